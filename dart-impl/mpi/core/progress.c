/* Polled waits (progress.h). */
#include "mpi/core/progress.h"
#include "mpi/core/runtime.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

/* The services the waits of DART calls keep going (progress.h): slots
 * filled once, in order, never emptied, so readers need no lock. */
static const struct progress_hook *_Atomic hooks[PROGRESS_MAX_HOOKS];
static pthread_mutex_t hooks_lock = PTHREAD_MUTEX_INITIALIZER;

void progress_add_hook(const struct progress_hook *hook)
{
  pthread_mutex_lock(&hooks_lock);
  for (int i = 0; i < PROGRESS_MAX_HOOKS; ++i) {
    const struct progress_hook *h =
        atomic_load_explicit(&hooks[i], memory_order_relaxed);
    if (h == hook) {
      break;
    }
    if (h == NULL) {
      atomic_store_explicit(&hooks[i], hook, memory_order_release);
      break;
    }
  }
  pthread_mutex_unlock(&hooks_lock);
}

bool progress_needed(void)
{
  for (int i = 0; i < PROGRESS_MAX_HOOKS; ++i) {
    const struct progress_hook *h =
        atomic_load_explicit(&hooks[i], memory_order_acquire);
    if (h == NULL) {
      return false;
    }
    if (h->needed()) {
      return true;
    }
  }
  return false;
}

/* Polls the hooks that have work and are due at test `round` of a wait
 * (struct progress_hook.every); round 0: every hook. */
static void poll_due(unsigned round)
{
  for (int i = 0; i < PROGRESS_MAX_HOOKS; ++i) {
    const struct progress_hook *h =
        atomic_load_explicit(&hooks[i], memory_order_acquire);
    if (h == NULL) {
      return;
    }
    if ((h->every <= 1 || round % h->every == 0) && h->needed()) {
      h->poll();
    }
  }
}

void progress_poll(void) { poll_due(0); }

static pthread_mutex_t thread_lock = PTHREAD_MUTEX_INITIALIZER;
static int             thread_holders;
static bool            thread_running;
static pthread_t       thread;
static atomic_int      thread_stop;

static void *progress_main(void *arg)
{
  (void)arg;
  /* Bounds how long others wait for a service of this unit while all its
   * threads compute outside DART. */
  const struct timespec pause = { 0, 50000 };
  while (!atomic_load(&thread_stop)) {
    progress_poll();
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
               MPI_STATUS_IGNORE);
    nanosleep(&pause, NULL);
  }
  return NULL;
}

void progress_thread_hold(const char *call)
{
  static bool warned;
  pthread_mutex_lock(&thread_lock);
  ++thread_holders;
  if (runtime.env.progress_thread && !thread_running) {
    if (runtime.thread_level < MPI_THREAD_MULTIPLE) {
      if (!warned) {
        LOG_WARN(call, "DART_PROGRESS_THREAD=on needs MPI_THREAD_MULTIPLE "
                 "(start with dart_init_thread); running without it");
        warned = true;
      }
    } else {
      atomic_store(&thread_stop, 0);
      if (pthread_create(&thread, NULL, progress_main, NULL) == 0) {
        thread_running = true;
      } else {
        LOG_WARN(call, "could not start the progress thread; running "
                 "without");
      }
    }
  }
  pthread_mutex_unlock(&thread_lock);
}

void progress_thread_release(void)
{
  pthread_mutex_lock(&thread_lock);
  if (thread_holders > 0 && --thread_holders == 0 && thread_running) {
    atomic_store(&thread_stop, 1);
    pthread_join(thread, NULL);
    thread_running = false;
  }
  pthread_mutex_unlock(&thread_lock);
}

/* Completes `request` by MPI_Test, yielding every `every` tests; with
 * `poll`, polling each hook as often as it asks. */
static int test_loop(MPI_Request *request, unsigned every, bool poll)
{
  for (unsigned round = 1;; ++round) {
    int done = 0;
    int err = MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS || done) {
      return err;
    }
    if (poll) {
      poll_due(round);
    }
    if (round % every == 0) {
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
    poll_due(round);
    if (round % 64 == 0) {
      sched_yield();
    }
  }
  return MPI_SUCCESS;
}

/* One visit to MPI (a probe drives its progress engine, so that others'
 * one-sided calls into this unit complete under MPIs that need the
 * target inside MPI) and to the hooks: progress_visit, progress_sleep. */
static void visit_mpi_and_hooks(void)
{
  int flag = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, runtime.user_p2p_comm, &flag,
             MPI_STATUS_IGNORE);
  progress_poll();
}

/* When the next progress_visit goes to MPI; races between threads only
 * make two visits where one would do. */
static _Atomic long long next_visit_ns;

void progress_visit(void)
{
  /* The clock only every 16th call of a thread: a few hundred ns apart in
   * a loop over dart_memalloc + dart_memfree, where a clock read each
   * time would add some 8 % to the pair. */
  static _Thread_local unsigned calls;
  if (++calls % 16 != 0) {
    return;
  }
  const long long every = 100000;
  long long now = progress_clock_ns();
  if (now < atomic_load_explicit(&next_visit_ns, memory_order_relaxed)) {
    return;
  }
  atomic_store_explicit(&next_visit_ns, now + every, memory_order_relaxed);
  visit_mpi_and_hooks();
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

bool progress_stalled(struct progress_stall *w, long long *waited_ms)
{
  if (w->said || runtime.env.stall_warn_ms == 0) {
    return false;
  }
  *waited_ms = (progress_clock_ns() - w->since_ns) / 1000000;
  w->said = *waited_ms >= runtime.env.stall_warn_ms;
  return w->said;
}

void progress_sleep(long long ns)
{
  const long long step = 100000; /* between two visits to MPI */
  long long deadline = progress_clock_ns() + ns;
  for (long long left = ns; left > 0; left = deadline - progress_clock_ns()) {
    visit_mpi_and_hooks();
    /* Sleep rather than spin: the time is for other units to run. */
    long long nap = left < step ? left : step;
    struct timespec pause = { 0, (long)nap };
    nanosleep(&pause, NULL);
  }
}
