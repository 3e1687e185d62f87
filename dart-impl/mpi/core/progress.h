/* Polled waits: every DART call that waits for other units (collectives,
 * team and memory management, two-sided, lock creation) completes its MPI
 * requests here, and while it waits keeps a service of a higher layer
 * polling through a hook that service registers at init. Why: a unit
 * waiting for a lock homed here may be what the others wait for
 * (lock/polling.c has the liveness argument). This module knows no
 * service; the hook is its only way up. */
#ifndef DART_MPI_PROGRESS_H
#define DART_MPI_PROGRESS_H

#include <mpi.h>
#include <stdbool.h>

/* What a waiting unit must keep doing for others: `needed` is cheap and
 * says whether `poll` has anything to do (checked again and again, so a
 * wait costs nothing extra while it says no); `poll` is safe from any
 * thread. Each service of a higher layer that others may wait for (the
 * locks homed here, lock/polling.c; atomics applied here for other nodes,
 * rma/am_atomics.c) adds its hook once, never to be removed: lower
 * modules do not know those services, only this table. */
struct progress_hook {
  bool (*needed)(void);
  void (*poll)(void);
  /* A wait that spins on MPI_Test polls the hook once in this many tests
   * (0 counts as 1): what a poll costs against how soon others need it. */
  unsigned every;
};
/* Adds `hook` (again: nothing happens). At most PROGRESS_MAX_HOOKS. */
#define PROGRESS_MAX_HOOKS 4
void progress_add_hook(const struct progress_hook *hook);

/* The optional progress thread (DART_PROGRESS_THREAD=on): polls every
 * hook and enters MPI every 50 us, so that the services others wait for
 * keep going while every unit of this process computes outside DART.
 * A service holds it while it may be needed; it runs while any does.
 * Needs MPI_THREAD_MULTIPLE (else one warning, no thread). */
void progress_thread_hold(const char *call);
void progress_thread_release(void);

/* Whether any hook has work now (false before registration). */
bool progress_needed(void);
/* Runs the poll of every hook that has work. */
void progress_poll(void);

/* Completes a request: MPI_Wait while the hook has nothing to do and
 * MPI's wait leaves the core to others, else an MPI_Test loop that polls
 * and yields (runtime.oversubscribed says when it does not). Returns the
 * MPI error code (that of the request itself, e.g. MPI_ERR_TRUNCATE). */
int progress_wait(MPI_Request *request);
/* Completes a one-sided request (MPI_Rget, MPI_Rget_accumulate) by an
 * MPI_Test loop that yields the core every few tests (and never polls
 * the hook): for an MPI whose own waits spin without ever yielding while
 * the target may need this very core to serve the request (core/quirks.h,
 * mpi_rma_waits_yield). */
int progress_wait_yielding(MPI_Request *request);

/* progress_wait after a call that started `request` and returned `err`. */
static inline int progress_complete(int err, MPI_Request *request)
{
  return err == MPI_SUCCESS ? progress_wait(request) : err;
}

/* Returns once a message from `source` with `tag` can be received on
 * `comm` (MPI_Iprobe, polling); at once while the hook has nothing to
 * do and MPI's blocking receive leaves the core to others. For blocking
 * receives: an error such as truncation then comes from the receive
 * itself, under the communicator's error handler. */
int progress_await_message(int source, int tag, MPI_Comm comm);

/* The monotonic clock in nanoseconds, for waits and for timing them. */
long long progress_clock_ns(void);

/* A wait for another unit to serve this one, which that unit does only
 * inside DART calls or with the progress thread (atomics by message, a
 * lock homed there): progress_stalled tells its caller once when the
 * wait has lasted DART_STALL_WARN_MS, and the caller logs which unit it
 * waits for and why, so that a job stuck that way says so. */
struct progress_stall {
  long long since_ns; /* progress_clock_ns() at the start of the wait */
  bool      said;
};

/* Called now and then during the wait (it reads the clock: some 20 ns).
 * True once, when the wait has lasted the threshold, with *waited_ms how
 * long. */
bool progress_stalled(struct progress_stall *w, long long *waited_ms);

/* Lets `ns` nanoseconds pass while MPI (an MPI_Iprobe every 100 us, so
 * that one-sided calls of others into this unit complete under MPIs that
 * need the target inside MPI) and the hook keep progressing: a grace time
 * that other units' transfers must be able to finish in
 * (memory/pool_exposure.c). */
void progress_sleep(long long ns);

/* For DART calls that return without waiting and mostly without MPI
 * (dart_memalloc, dart_memfree, dart_allocator_alloc/free): at most once
 * every 100 us and every 16 calls of a thread, one visit to MPI
 * (MPI_Iprobe) and the hooks; otherwise a counter, and every 16th call a
 * clock read. Why: another unit may wait for this one
 * inside MPI (a pool exposure change flushes its flag to every RMA peer,
 * memory/pool_exposure.c), and under MPIs that need the target inside MPI
 * (UCX over TCP) a unit that loops over such calls would hold it up until
 * its next MPI call: 10 s in test_pool_exposure's case busy_peer. */
void progress_visit(void);

/* Collective over `comm`: MPI_Ibarrier completed by progress_wait.
 * Blocking MPI calls that cannot be made non-blocking (communicator and
 * window creation and destruction) come after it: then every member is
 * already inside the same DART call, so the blocking part waits for no
 * unit that might be waiting for this one. */
int progress_gate(MPI_Comm comm);

#endif
