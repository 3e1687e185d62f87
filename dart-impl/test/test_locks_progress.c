/* The progress thread (DART_PROGRESS_THREAD=on, dart_init_thread): while
 * every unit on the lock's home node computes without calling DART, the
 * remote units still get the lock (that needs a migration to network
 * mode, which only the home's progress thread can do then) and report it
 * with an accumulate into the home unit's memory, within a generous
 * deadline. Then two threads per unit contend for one lock: a counter
 * incremented by plain get / add / put proves mutual exclusion among the
 * threads of a unit as well as among units. */
#include "test_lock_counter.h"
#include "test_nodes.h"
#include "test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

enum { THREADS = 2, ITERS = 50 };
static const double DEADLINE_S = 20.0;

static dart_lock_t lock;
static dart_gptr_t counter;

static double now_s(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *worker(void *arg)
{
  (void)arg;
  locked_increments(lock, counter, ITERS);
  return NULL;
}

static void setup(int *argc, char ***argv)
{
  dart_thread_support_level_t level;
  ASSERT_OK(dart_init_thread(argc, argv, &level));
  ASSERT_EQ(level, DART_THREAD_MULTIPLE);
}

static void progress_thread(void)
{
  dart_global_unit_t id;
  size_t size;
  ASSERT_OK(dart_myid(&id));
  ASSERT_OK(dart_size(&size));
  int me = id.id, n = (int)size;

  dart_gptr_t g;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 2, DART_TYPE_LONGLONG,
                                       &g));
  long long *mine = NULL;
  ASSERT_OK(dart_gptr_getaddr(gptr_at(g, me, 0), (void **)&mine));
  mine[0] = mine[1] = 0;
  /* The first lock of a team has its home at unit 0. */
  ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  long long *keys = test_node_keys(n);
  int home_node_units = 0;
  for (int u = 0; u < n; ++u) {
    home_node_units += keys[u] == keys[0];
  }
  bool home_side = keys[me] == keys[0];
  int remote_units = n - home_node_units;
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  STAGE("home node busy");
  if (me == 0) {
    /* Compute without entering DART or MPI until every remote unit has
     * had the lock, then tell the other home-node units (node-local
     * copies, no MPI progress involved). */
    volatile long long *flag = &mine[0];
    double start = now_s();
    while (*flag < remote_units && now_s() - start < DEADLINE_S) {
    }
    ASSERT_EQ(*flag, remote_units);
    long long done = 1;
    for (int u = 1; u < n; ++u) {
      if (keys[u] != keys[0]) {
        continue;
      }
      ASSERT_OK(dart_put_blocking(gptr_at(g, u, 0), &done, 1, DART_TYPE_LONGLONG,
                                  DART_TYPE_LONGLONG));
    }
  } else if (home_side) {
    volatile long long *flag = &mine[0];
    double start = now_s();
    while (*flag == 0 && now_s() - start < 2 * DEADLINE_S) {
    }
    ASSERT_EQ(*flag, 1);
  } else {
    /* Taking the lock needs a migration to network mode: only the home
     * unit's progress thread can do it while unit 0 computes. */
    ASSERT_OK(dart_lock_acquire(lock));
    long long one = 1;
    ASSERT_OK(dart_accumulate(gptr_at(g, 0, 0), &one, 1, DART_TYPE_LONGLONG,
                              DART_OP_SUM));
    ASSERT_OK(dart_flush(gptr_at(g, 0, 0)));
    ASSERT_OK(dart_lock_release(lock));
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  STAGE("threads");
  counter = gptr_at(g, n - 1, sizeof(long long));
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    ASSERT(pthread_create(&threads[t], NULL, worker, NULL) == 0);
  }
  for (int t = 0; t < THREADS; ++t) {
    pthread_join(threads[t], NULL);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  long long value = -1;
  ASSERT_OK(dart_get_blocking(&value, counter, 1, DART_TYPE_LONGLONG,
                              DART_TYPE_LONGLONG));
  ASSERT_EQ(value, (long long)n * THREADS * ITERS);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_lock_destroy(&lock));
  ASSERT_OK(dart_team_memfree(g));
  free(keys);
}

static const struct test_case cases[] = {
  { "progress_thread", progress_thread },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup,
                       test_dart_teardown);
}
