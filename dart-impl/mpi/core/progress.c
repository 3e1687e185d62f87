/* Polled waits (progress.h). */
#include "mpi/core/progress.h"
#include "mpi/core/runtime.h"

#include <sched.h>
#include <stdatomic.h>
#include <time.h>

/* The waits of DART calls that wait for other units (see team_sync.h). */
static const struct progress_hook *_Atomic poll_hook;

void progress_set_hook(const struct progress_hook *hook)
{
  atomic_store_explicit(&poll_hook, hook, memory_order_release);
}

bool progress_needed(void)
{
  const struct progress_hook *hook =
      atomic_load_explicit(&poll_hook, memory_order_acquire);
  return hook != NULL && hook->needed();
}

void progress_poll(void)
{
  const struct progress_hook *hook =
      atomic_load_explicit(&poll_hook, memory_order_acquire);
  if (hook != NULL && hook->needed()) {
    hook->poll();
  }
}

/* Completes `request` by MPI_Test, yielding (and with `poll` polling the
 * hook) every `every` tests. */
static int test_loop(MPI_Request *request, unsigned every, bool poll)
{
  for (unsigned round = 1;; ++round) {
    int done = 0;
    int err = MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS || done) {
      return err;
    }
    if (round % every == 0) {
      if (poll) {
        progress_poll();
      }
      sched_yield();
    }
  }
}

/* Whether MPI's own blocking waits would keep the core from a unit that
 * needs it: runtime.oversubscribed is set only under an MPI whose waits
 * spin without yielding (core/quirks.h, mpi_rma_waits_yield). */
static inline bool blocking_waits_starve(void)
{
  return runtime.oversubscribed;
}

int progress_wait(MPI_Request *request)
{
  if (!progress_needed() && !blocking_waits_starve()) {
    return MPI_Wait(request, MPI_STATUS_IGNORE);
  }
  /* MPI_Test drives MPI's progress; between polls (an MPI atomic per lock
   * homed here, about 1 us on MPICH) it spins, then yields the core to a
   * unit that shares it. No sleep: collectives are latency-bound. */
  return test_loop(request, 64, true);
}

int progress_wait_yielding(MPI_Request *request)
{
  /* A yield every 16 tests: a few microseconds of spinning when no other
   * process wants the core (then sched_yield returns at once), and the
   * target gets a core soon when it shares one with this unit. No poll of
   * the hook: callers may hold core/serialize.h's lock, which the hook's
   * MPI calls take, and the target serves this request whatever the
   * locks homed here do. */
  return test_loop(request, 16, false);
}

int progress_await_message(int source, int tag, MPI_Comm comm)
{
  for (unsigned round = 1; progress_needed() || blocking_waits_starve();
       ++round) {
    int flag = 0;
    int err = MPI_Iprobe(source, tag, comm, &flag, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS || flag) {
      return err;
    }
    if (round % 64 == 0) {
      progress_poll();
      sched_yield();
    }
  }
  return MPI_SUCCESS;
}

int progress_gate(MPI_Comm comm)
{
  MPI_Request request;
  int err = MPI_Ibarrier(comm, &request);
  return err == MPI_SUCCESS ? progress_wait(&request) : err;
}

long long progress_clock_ns(void)
{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

void progress_sleep(long long ns)
{
  const long long step = 100000; /* between two visits to MPI */
  long long deadline = progress_clock_ns() + ns;
  for (long long left = ns; left > 0; left = deadline - progress_clock_ns()) {
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, runtime.user_p2p_comm, &flag,
               MPI_STATUS_IGNORE);
    progress_poll();
    /* Sleep rather than spin: the time is for other units to run. */
    long long nap = left < step ? left : step;
    struct timespec pause = { 0, (long)nap };
    nanosleep(&pause, NULL);
  }
}
