/* What DART does differently for the MPI library and one-sided component
 * it runs on, decided once at dart_init (mpi_quirks_detect) from the
 * library's version string and a probe window, whoever started MPI. Each
 * quirk names the plain-MPI test in dart-impl/test that shows it is still
 * there (quirk_*.c, expected to fail while the bug lives).
 *
 * The quirks of Open MPI 4.1's one-sided components:
 * - osc/rdma (the default when an application starts MPI on one host):
 *   through the shared-memory transport it crashes the target of a
 *   contended MPI_Compare_and_swap (ompi #11349, quirk_ompi_rdma_cas.c)
 *   and computes unsigned MIN and MAX and the logical operations wrong
 *   (test_app_mpi_atomics.c: the unsigned minimum of 5 and 2^63 came out
 *   2^63, LOR of 0 and 1 came out 0); the other operations are exact,
 *   contended too. Those atomics, when they would go through MPI, return
 *   DART_ERR_OTHER with a log line naming the fix (mpi_atomic_works,
 *   mpi_cas_works); atomics on node-shared memory use the CPU and work.
 * - osc/pt2pt: MPI_Win_flush_local on the calling process itself never
 *   returns after an MPI_Get from itself while a get from another process
 *   is outstanding (quirk_ompi_pt2pt_flush_local.c; test_onesided hung).
 *   MPI_Win_flush, which completes more, does: mpi_win_flush_local.
 *   osc/pt2pt also refuses windows at MPI_THREAD_MULTIPLE: dart_init
 *   fails with one line saying so.
 * The other workarounds for one library live in mpi_serialize.h (Open MPI
 * osc/ucx under MPI_THREAD_MULTIPLE) and globmem.c window_per_segment. */
#ifndef DART_MPI_MPI_QUIRKS_H
#define DART_MPI_MPI_QUIRKS_H

#include <dash/dart/if/dart_types.h>

#include <mpi.h>
#include <stdbool.h>

struct mpi_quirks {
  bool flush_local_is_flush; /* osc/pt2pt */
  bool atomics_partly_wrong; /* osc/rdma */
};
extern struct mpi_quirks mpi_quirks;

/* Whether MPI_Compare_and_swap can be used. */
static inline bool mpi_cas_works(void)
{
  return !mpi_quirks.atomics_partly_wrong;
}

/* Whether MPI's accumulates and fetch-and-ops of `op` on `dtype` are
 * exact. */
bool mpi_atomic_works(dart_operation_t op, dart_datatype_t dtype);

/* Collective over `world`: probes the library, sets mpi_quirks. Fails (one log line) when MPI cannot create a
 * window at all, since nothing of DART's memory could be reached then. */
dart_ret_t mpi_quirks_detect(const char *call, MPI_Comm world);

/* MPI_Win_flush_local, or MPI_Win_flush where the former hangs. */
static inline int mpi_win_flush_local(int unit, MPI_Win win)
{
  return mpi_quirks.flush_local_is_flush ? MPI_Win_flush(unit, win)
                                         : MPI_Win_flush_local(unit, win);
}

#endif
