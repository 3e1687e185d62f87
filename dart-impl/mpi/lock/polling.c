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

static pthread_t   progress_thread;
static bool        progress_running;
static _Atomic int progress_stop;

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
   * targeting this unit. */
  locks_poll();
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

static void *progress_main(void *arg)
{
  (void)arg;
  /* Bounds how long a remote waits for a migration while every unit of
   * the home node computes without calling DART. */
  const long pause_ns = 50000;
  while (!atomic_load(&progress_stop)) {
    poll_once();
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
               MPI_STATUS_IGNORE);
    sleep_ns(pause_ns);
  }
  return NULL;
}

static void lock_progress_start(const char *call)
{
  static bool warned;
  if (!runtime.env.progress_thread || progress_running) {
    return;
  }
  if (runtime.thread_level < MPI_THREAD_MULTIPLE) {
    if (!warned) {
      LOG_WARN(call, "DART_PROGRESS_THREAD=on needs MPI_THREAD_MULTIPLE "
               "(start with dart_init_thread); running without it");
      warned = true;
    }
    return;
  }
  atomic_store(&progress_stop, 0);
  if (pthread_create(&progress_thread, NULL, progress_main, NULL) != 0) {
    LOG_WARN(call, "could not start the progress thread; running without");
    return;
  }
  progress_running = true;
}

static void lock_progress_stop(void)
{
  if (progress_running) {
    atomic_store(&progress_stop, 1);
    pthread_join(progress_thread, NULL);
    progress_running = false;
  }
}

static bool hook_needed(void) { return locks_need_polling(); }

static const struct progress_hook poll_hook = {
  .needed = hook_needed,
  .poll = locks_poll,
};

void locks_home_add(const char *call, struct dart_lock_struct *lock)
{
  /* Lower modules wait through progress_wait; from now on they poll. */
  progress_set_hook(&poll_hook);
  pthread_mutex_lock(&home_mutex);
  lock->next_home = home_locks;
  home_locks = lock;
  atomic_fetch_add(&lock_home_count, 1);
  pthread_mutex_unlock(&home_mutex);
  lock_progress_start(call);
}

void locks_home_remove(struct dart_lock_struct *lock)
{
  pthread_mutex_lock(&home_mutex);
  for (struct dart_lock_struct **p = &home_locks; *p != NULL;
       p = &(*p)->next_home) {
    if (*p == lock) {
      *p = lock->next_home;
      atomic_fetch_sub(&lock_home_count, 1);
      break;
    }
  }
  bool empty = home_locks == NULL;
  pthread_mutex_unlock(&home_mutex);
  if (empty) {
    lock_progress_stop();
  }
}
