/* Progress for hybrid locks: the list of locks homed at this unit, the
 * poll that serves their migration requests (from DART calls, waits and
 * the optional progress thread), and the back-off every lock wait uses.
 *
 * Liveness without a progress thread. A remote unit that finds the lock
 * in CPU mode needs a unit on the home node to migrate it (only they
 * reach the CPU lock). The home serves requests whenever it is inside
 * DART and waits:
 *  - lock waits (lock_backoff_wait) and every LOCK_POLL_EVERY lock call
 *    poll directly;
 *  - every DART call that waits for other units completes MPI requests
 *    through progress_wait, which polls through the hook registered
 *    below while this unit homes a lock with remote members (and is a
 *    plain MPI_Wait otherwise: zero cost without such locks). That is
 *    every collective (non-blocking MPI collectives; the shared-memory
 *    barrier of one-node teams polls in its back-off), the two-sided
 *    calls, and a polled MPI_Ibarrier (progress_gate) in front of the
 *    calls that have no non-blocking form (communicator and window
 *    creation and destruction: team create/destroy, collective
 *    allocation and free, lock init/destroy). After that gate every
 *    member is inside the same DART call, so the blocking part waits
 *    only for units that are themselves past it: its time is bounded.
 * Hence a home unit inside any DART call serves a request within a
 * bounded time; a remote acquire of a free lock completes as soon as
 * the home unit is in, or next enters, DART. Why not a design without
 * the home's help: in CPU mode only CPU atomics on the home node's
 * shared memory know whether the lock is free, and MPI atomics must not
 * touch that memory meanwhile (docs/design.md, "Locks"); keeping a free
 * lock in network mode instead would cost every local acquire an MPI
 * atomic (~1 us) where the CPU path takes 6 ns. A home node that
 * computes outside DART for long keeps remote waiters waiting until its
 * next DART call; DART_PROGRESS_THREAD=on bounds that too. */
#include "mpi/lock/polling.h"
#include "mpi/core/progress.h"
#include "mpi/core/runtime.h"

#include <sched.h>
#include <time.h>

static struct dart_lock_struct *home_locks;
static pthread_mutex_t          home_mutex = PTHREAD_MUTEX_INITIALIZER;
_Atomic int                     lock_home_count;

static void sleep_ns(long ns)
{
  struct timespec t = { 0, ns };
  nanosleep(&t, NULL);
}

void lock_backoff_wait(struct lock_backoff *b, MPI_Comm comm)
{
  unsigned round = b->rounds++;
  if (round < 16) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    return;
  }
  /* MPICH's RMA advances only inside MPI: ours and that of others
   * targeting this unit. Every service others may wait for here (locks
   * homed here, atomics applied here: core/progress.h) keeps going. */
  progress_poll();
  if (comm != MPI_COMM_NULL) {
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, MPI_STATUS_IGNORE);
  }
  if (round < 512) {
    sched_yield(); /* hands the core to a holder that shares it */
    return;
  }
  unsigned shift = round - 512 > 4 ? 4 : round - 512;
  sleep_ns(1000L << shift); /* 1 us .. 16 us */
}

/* Returns whether any lock was checked (some are homed here). */
static bool poll_once(void)
{
  if (pthread_mutex_trylock(&home_mutex) != 0) {
    return true; /* another thread is polling right now */
  }
  bool any = home_locks != NULL;
  for (struct dart_lock_struct *l = home_locks; l != NULL;
       l = l->next_home) {
    l->ops->serve_home(l);
  }
  pthread_mutex_unlock(&home_mutex);
  return any;
}

void locks_poll(void)
{
  if (locks_need_polling()) {
    poll_once();
  }
}

static bool hook_needed(void) { return locks_need_polling(); }

static const struct progress_hook poll_hook = {
  .needed = hook_needed,
  .poll = locks_poll,
  .every = 64, /* an MPI atomic per lock homed here, about 1 us */
};

void locks_home_add(const char *call, struct dart_lock_struct *lock)
{
  /* Lower modules wait through progress_wait; from now on they poll. */
  progress_add_hook(&poll_hook);
  pthread_mutex_lock(&home_mutex);
  bool first = home_locks == NULL;
  lock->next_home = home_locks;
  home_locks = lock;
  atomic_fetch_add(&lock_home_count, 1);
  pthread_mutex_unlock(&home_mutex);
  if (first) {
    progress_thread_hold(call); /* where DART_PROGRESS_THREAD=on */
  }
}

void locks_home_remove(struct dart_lock_struct *lock)
{
  bool removed = false;
  pthread_mutex_lock(&home_mutex);
  for (struct dart_lock_struct **p = &home_locks; *p != NULL;
       p = &(*p)->next_home) {
    if (*p == lock) {
      *p = lock->next_home;
      atomic_fetch_sub(&lock_home_count, 1);
      removed = true;
      break;
    }
  }
  bool emptied = removed && home_locks == NULL;
  pthread_mutex_unlock(&home_mutex);
  if (emptied) {
    progress_thread_release();
  }
}
