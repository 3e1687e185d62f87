/* Serialization of the MPI one-sided calls that the MPI library cannot
 * take from several threads at once, although it grants
 * MPI_THREAD_MULTIPLE.
 *
 * Why: Open MPI 4.1's one-sided component osc/ucx (the one DART selects,
 * mpi_quirks_before_init in core/quirks.c) is not safe under concurrent RMA
 * from threads of one process. Four threads per unit doing blocking 64-byte
 * puts and gets to a unit on another (simulated) node plus MPI_Fetch_and_op
 * on one counter (dart-impl/test/test_threads_stress.c) either hung for good
 * (threads spinning in ompi_osc_ucx_put/get/fetch_and_op and
 * ucp_worker_progress) or failed puts with MPI_ERR_OTHER and read back wrong
 * data, with UCX warnings of remote keys never returned to their pool at
 * exit. One thread at a time inside osc/ucx is exact. MPICH 4.0 runs the same
 * test exactly without serialization, and so does Open MPI when the units
 * share a node (every access is load/store).
 *
 * So under Open MPI before 5 with MPI_THREAD_MULTIPLE granted, every
 * MPI RMA call of the runtime (put, get, atomics, flushes, request
 * tests, the lock algorithms' atomics) runs under one process-wide
 * mutex; elsewhere the wrappers cost one predictable branch. Node peers
 * reached by load/store never come here. */
#ifndef DART_MPI_SERIALIZE_H
#define DART_MPI_SERIALIZE_H

#include <pthread.h>
#include <stdbool.h>

struct mpi_serial {
  bool            on;   /* set at dart_init, before any RMA */
  pthread_mutex_t lock;
};
extern struct mpi_serial mpi_serial;

/* Switches serialization on or off at init (init.c asks core/quirks.h,
 * mpi_quirks_serialize_rma); logs the decision at debug level. */
void mpi_serialize_setup(bool on);

static inline void mpi_serial_enter(void)
{
  if (__builtin_expect(mpi_serial.on, 0)) {
    pthread_mutex_lock(&mpi_serial.lock);
  }
}

static inline void mpi_serial_leave(void)
{
  if (__builtin_expect(mpi_serial.on, 0)) {
    pthread_mutex_unlock(&mpi_serial.lock);
  }
}

/* Runs `statement` (one or more MPI one-sided calls) under the lock
 * where the library needs it: MPI_SERIALIZED(err = MPI_Win_flush(u, w)); */
#define MPI_SERIALIZED(statement)                                           \
  do {                                                                      \
    mpi_serial_enter();                                                     \
    statement;                                                              \
    mpi_serial_leave();                                                     \
  } while (0)

#endif
