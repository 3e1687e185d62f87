/* Locks under threads (dart_init_thread, DART_THREAD_MULTIPLE): several
 * threads per unit acquire and release the same team lock and increment
 * a counter in global memory with a plain get / add / put inside (a lost
 * update fails the exact count), on a lock homed on the first node and
 * one homed on the last, so with two nodes every unit uses a lock of its
 * own node and one of the other (off the home node the threads of a unit
 * share one identity in the network word). Half the threads acquire,
 * half spin on the try. At most one thread of one unit holds the lock
 * (dart_lock_acquire in dart-if/include/dash/dart/if/
 * dart_synchronization.h).
 *
 * --require-multiple: fail unless MPI grants DART_THREAD_MULTIPLE (the
 * registrations pass it: both MPIs of the suite grant it, so the test
 * cannot pass by skipping). Without it, a lower level skips the threaded
 * part with a message (dart_init_thread documents that it reports the
 * level MPI provides). */
#include "test_lock_counter.h"
#include "test.h"

#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

enum { THREADS = 4, ITERS = 40, NLOCKS = 2, ALARM_S = 90 };

static dart_lock_t locks[NLOCKS];
static dart_gptr_t counters[NLOCKS];

static void on_alarm(int sig)
{
  (void)sig;
  static const char msg[] = "HANG in the threaded lock test\n";
  write(STDERR_FILENO, msg, sizeof msg - 1);
  _exit(1);
}

static void try_increments(dart_lock_t lock, dart_gptr_t counter, int iters)
{
  for (int i = 0; i < iters; ++i) {
    int32_t got = 0;
    while (!got) {
      ASSERT_OK(dart_lock_try_acquire(lock, &got));
    }
    /* Held by this thread: a second try by it is misuse. */
    int32_t again = 0;
    ASSERT_RET(dart_lock_try_acquire(lock, &again), DART_ERR_INVAL);
    ASSERT_EQ(again, 1);
    counter_increment(counter);
    ASSERT_OK(dart_lock_release(lock));
  }
}

static void *worker(void *arg)
{
  int t = (int)(intptr_t)arg;
  /* Every thread takes both locks in turn, in a thread-dependent order. */
  for (int round = 0; round < 2; ++round) {
    for (int j = 0; j < NLOCKS; ++j) {
      int k = (j + t) % NLOCKS;
      if (t % 2 == 0) {
        locked_increments(locks[k], counters[k], ITERS / 2);
      } else {
        try_increments(locks[k], counters[k], ITERS / 2);
      }
    }
  }
  return NULL;
}

static dart_thread_support_level_t level = DART_THREAD_SINGLE;

static void setup(int *argc, char ***argv)
{
  ASSERT_OK(dart_init_thread(argc, argv, &level));
}

static void threads_on_locks(void)
{
  bool require =
      test_argc > 1 && strcmp(test_argv[1], "--require-multiple") == 0;
  dart_global_unit_t id;
  size_t size;
  ASSERT_OK(dart_myid(&id));
  ASSERT_OK(dart_size(&size));
  int me = id.id, n = (int)size;
  int mpi_level = -1;
  MPI_Query_thread(&mpi_level);
  /* The level reported is MPI's. */
  ASSERT_EQ(level == DART_THREAD_MULTIPLE, mpi_level == MPI_THREAD_MULTIPLE);
  if (level != DART_THREAD_MULTIPLE) {
    ASSERT_MSG(!require, "MPI granted thread level %d, not "
               "MPI_THREAD_MULTIPLE", mpi_level);
    if (me == 0) {
      printf("test_locks_threads: SKIPPED the threaded part: MPI grants "
             "thread level %d, not MPI_THREAD_MULTIPLE\n", mpi_level);
    }
    return;
  }
  signal(SIGALRM, on_alarm);
  alarm(ALARM_S);

  dart_gptr_t g;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, NLOCKS,
                                       DART_TYPE_LONGLONG, &g));
  long long *mine = NULL;
  ASSERT_OK(dart_gptr_getaddr(gptr_at(g, me, 0), (void **)&mine));
  for (int k = 0; k < NLOCKS; ++k) {
    mine[k] = 0;
  }
  /* Lock 0 is homed at unit 0 (first node), lock 1 on the second node
   * when there is one (homes go to the nodes in turn, lock/api.c). */
  for (int k = 0; k < NLOCKS; ++k) {
    ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &locks[k]));
    counters[k] = gptr_at(g, k == 0 ? n - 1 : 0,
                          (uint64_t)k * sizeof(long long));
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  /* The misuse checks in the try loop would log once per try. */
  int saved = mute_log();
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    ASSERT(pthread_create(&threads[t], NULL, worker,
                          (void *)(intptr_t)t) == 0);
  }
  for (int t = 0; t < THREADS; ++t) {
    pthread_join(threads[t], NULL);
  }
  restore_log(saved);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int k = 0; k < NLOCKS; ++k) {
    long long value = -1;
    ASSERT_OK(dart_get_blocking(&value, counters[k], 1, DART_TYPE_LONGLONG,
                                DART_TYPE_LONGLONG));
    ASSERT_EQ(value, (long long)n * THREADS * ITERS);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int k = 0; k < NLOCKS; ++k) {
    ASSERT_OK(dart_team_lock_destroy(&locks[k]));
  }
  ASSERT_OK(dart_team_memfree(g));
  alarm(0);
  if (me == 0) {
    printf("test_locks_threads: %d threads x %d units, %d acquisitions per "
           "lock\n", THREADS, n, n * THREADS * ITERS);
  }
}

static const struct test_case cases[] = {
  { "threads_on_locks", threads_on_locks },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup,
                       test_dart_teardown);
}
