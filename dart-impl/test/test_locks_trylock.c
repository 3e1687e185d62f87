/* No livelock on dart_lock_try_acquire: every unit spins on the try until
 * it has had the lock K times (a plain get / add / put of a counter in
 * global memory inside, so two holders at once lose an update), with and
 * without work between the tries, on a lock homed on each node. Before
 * that, atomic traffic and lock churn on the same team (locks reuse
 * arena slots that earlier locks left in any state). A free lock that
 * several units try must go to one of them in bounded time: the alarm
 * fails a run whose tries stop succeeding. free_lock_tried: a try on a
 * free lock succeeds from every unit while the others are inside DART. */
#include "test_lock_counter.h"
#include "test.h"

#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { K = 60, ALARM_S = 60 };

static int me, n;

static void on_alarm(int sig)
{
  (void)sig;
  static const char head[] = "LIVELOCK (tries stopped succeeding): ";
  write(STDERR_FILENO, head, sizeof head - 1);
  write(STDERR_FILENO, test_stage, strnlen(test_stage, sizeof test_stage));
  write(STDERR_FILENO, "\n", 1);
  _exit(1);
}

/* Some computation between tries, outside DART (a few microseconds). */
static void work(unsigned iters)
{
  volatile unsigned x = 0;
  for (unsigned i = 0; i < iters; ++i) {
    x += i;
  }
}

static void atomic_traffic(dart_gptr_t g)
{
  STAGE("atomic traffic");
  for (int i = 0; i < 200; ++i) {
    int target = (me + i) % n;
    long long one = 1, old = -1;
    ASSERT_OK(dart_fetch_and_op(gptr_at(g, target, 0), &one, &old,
                                DART_TYPE_LONGLONG, DART_OP_SUM));
    ASSERT_OK(dart_accumulate(gptr_at(g, target, 0), &one, 1, DART_TYPE_LONGLONG,
                              DART_OP_SUM));
    long long cmp = -7, swap = -8, got = 0;
    ASSERT_OK(dart_compare_and_swap(gptr_at(g, target, sizeof(long long)), &swap,
                                    &cmp, &got, DART_TYPE_LONGLONG));
    ASSERT_OK(dart_flush(gptr_at(g, target, 0)));
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  long long total = 0;
  for (int u = 0; u < n; ++u) {
    long long v = -1;
    ASSERT_OK(dart_get_blocking(&v, gptr_at(g, u, 0), 1, DART_TYPE_LONGLONG,
                                DART_TYPE_LONGLONG));
    total += v;
  }
  ASSERT_EQ(total, 2LL * 200 * n);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* Locks taken and left in every state: held and released by every unit
 * through both calls, then destroyed, so the try locks below reuse the
 * slots. */
static void lock_churn(void)
{
  for (int round = 0; round < 3; ++round) {
    STAGE("lock churn %d", round);
    dart_lock_t locks[3];
    for (int k = 0; k < 3; ++k) {
      ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &locks[k]));
    }
    for (int k = 0; k < 3; ++k) {
      ASSERT_OK(dart_lock_acquire(locks[k]));
      ASSERT_OK(dart_lock_release(locks[k]));
      int32_t got = 0;
      ASSERT_OK(dart_lock_try_acquire(locks[k], &got));
      if (got) {
        ASSERT_OK(dart_lock_release(locks[k]));
      }
    }
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
    for (int k = 0; k < 3; ++k) {
      ASSERT_OK(dart_team_lock_destroy(&locks[k]));
    }
  }
}

/* Every unit: K times spin on the try (`pause` iterations of work
 * between failed tries), increment the counter, release. */
static void try_loop(dart_lock_t lock, dart_gptr_t counter, unsigned pause,
                     long long *tries)
{
  for (int k = 0; k < K; ++k) {
    int32_t got = 0;
    for (;;) {
      ASSERT_OK(dart_lock_try_acquire(lock, &got));
      ++*tries;
      if (got) {
        break;
      }
      if (pause > 0) {
        work(pause);
      }
    }
    ASSERT_EQ(got, 1);
    counter_increment(counter);
    if (pause > 0) {
      work(pause);
    }
    ASSERT_OK(dart_lock_release(lock));
  }
}

static void try_no_livelock(void)
{
  signal(SIGALRM, on_alarm);
  enum { NLOCKS = 4 };
  dart_gptr_t g;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 2 + NLOCKS,
                                       DART_TYPE_LONGLONG, &g));
  long long *mine = NULL;
  ASSERT_OK(dart_gptr_getaddr(gptr_at(g, me, 0), (void **)&mine));
  for (int i = 0; i < 2 + NLOCKS; ++i) {
    mine[i] = 0;
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  atomic_traffic(g);
  lock_churn();

  /* Homes spread over the nodes (one lock per node and more, spec'd
   * spread in lock/api.c); the counter of lock k at unit k % n. */
  dart_lock_t locks[NLOCKS];
  for (int k = 0; k < NLOCKS; ++k) {
    ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &locks[k]));
  }
  static const unsigned pauses[] = { 0, 200, 3000 };
  long long tries = 0;
  for (int k = 0; k < NLOCKS; ++k) {
    dart_gptr_t counter =
        gptr_at(g, k % n, (uint64_t)(2 + k) * sizeof(long long));
    for (size_t p = 0; p < sizeof pauses / sizeof pauses[0]; ++p) {
      STAGE("lock %d, %u between tries", k, pauses[p]);
      alarm(ALARM_S);
      try_loop(locks[k], counter, pauses[p], &tries);
      alarm(0);
      ASSERT_OK(dart_barrier(DART_TEAM_ALL));
    }
    /* Blocking acquires mixed in: half the units acquire, half try. */
    STAGE("lock %d, acquire and try mixed", k);
    alarm(ALARM_S);
    if (me % 2 == 0) {
      locked_increments(locks[k], counter, K);
    } else {
      try_loop(locks[k], counter, 0, &tries);
    }
    alarm(0);
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
    long long value = -1;
    ASSERT_OK(dart_get_blocking(&value, counter, 1, DART_TYPE_LONGLONG,
                                DART_TYPE_LONGLONG));
    ASSERT_EQ(value, (long long)n * K * 4);
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  }
  for (int k = 0; k < NLOCKS; ++k) {
    ASSERT_OK(dart_team_lock_destroy(&locks[k]));
  }
  ASSERT_OK(dart_team_memfree(g));
  if (me == 0) {
    printf("test_locks_trylock: unit 0 tried %lld times for %d "
           "acquisitions\n", tries, NLOCKS * K * 3);
  }
}

/* A try on a free lock gets it, from every unit, on and off the lock's
 * home node, fresh locks (in CPU mode at their home node) included: the
 * others wait in a barrier meanwhile, inside DART, where the home node
 * hands a lock over (lock/hybrid.c, remote_take). */
static void free_lock_tried(void)
{
  enum { NLOCKS = 4 };
  dart_lock_t locks[NLOCKS];
  for (int k = 0; k < NLOCKS; ++k) { /* homes spread over the nodes */
    ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &locks[k]));
  }
  /* Every unit once through a lock of the same arena first: the network's
   * first contact between two units (connections made on demand) is no
   * part of what a try waits for. */
  STAGE("warm-up");
  dart_lock_t warm = DART_LOCK_NULL;
  ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &warm));
  ASSERT_OK(dart_lock_acquire(warm));
  ASSERT_OK(dart_lock_release(warm));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_lock_destroy(&warm));
  const struct timespec nap = { 0, 20 * 1000 * 1000 };
  for (int round = 0; round < 2; ++round) {
    for (int k = 0; k < NLOCKS; ++k) {
      for (int u = 0; u < n; ++u) {
        STAGE("round %d, lock %d, unit %d tries it free", round, k, u);
        ASSERT_OK(dart_barrier(DART_TEAM_ALL));
        if (me == u) {
          nanosleep(&nap, NULL); /* the others reach the next barrier */
          int32_t got = 0;
          ASSERT_OK(dart_lock_try_acquire(locks[k], &got));
          ASSERT_MSG(got == 1, "unit %d's try of free lock %d got %d", me,
                     k, (int)got);
          ASSERT_OK(dart_lock_release(locks[k]));
        }
        ASSERT_OK(dart_barrier(DART_TEAM_ALL));
      }
    }
  }
  for (int k = 0; k < NLOCKS; ++k) {
    ASSERT_OK(dart_team_lock_destroy(&locks[k]));
  }
}

static const struct test_case cases[] = {
  { "try_no_livelock", try_no_livelock },
  { "free_lock_tried", free_lock_tried },
};

static void setup(int *argc, char ***argv)
{
  test_start(argc, argv, &me, &n);
}

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup,
                       test_dart_teardown);
}
