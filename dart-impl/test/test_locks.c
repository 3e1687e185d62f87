/* Team locks (spec 3.7) in whatever DART_LOCK_MODE / DART_LOCK_POLICY the
 * environment selects: mutual exclusion proved by counters that every
 * unit increments with a plain get / add / put inside the critical
 * section (one lost update fails), on locks homed on every node, with
 * the counter on either side; try-acquire semantics; locks on a
 * sub-team; many locks on one team; a lock outliving its team. */
#include "test_lock_counter.h"
#include "test_stage.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

static int me, n;

static long long read_counter(dart_gptr_t counter)
{
  long long value = -1;
  S_OK(dart_get_blocking(&value, counter, 1, DART_TYPE_LONGLONG,
                         DART_TYPE_LONGLONG));
  return value;
}

/* Counters of `team` (size `size`, my id `myid`), zeroed. */
static dart_gptr_t counters_alloc(dart_team_t team, int per_unit)
{
  dart_gptr_t g = DART_GPTR_NULL;
  S_OK(dart_team_memalloc_aligned(team, (size_t)per_unit,
                                  DART_TYPE_LONGLONG, &g));
  long long *mine = NULL;
  dart_gptr_t local = g;
  dart_team_unit_t myid;
  S_OK(dart_team_myid(team, &myid));
  S_OK(dart_gptr_setunit(&local, myid));
  S_OK(dart_gptr_getaddr(local, (void **)&mine));
  for (int i = 0; i < per_unit; ++i) {
    mine[i] = 0;
  }
  S_OK(dart_barrier(team));
  return g;
}

/* One lock per node and one more: homes on every node (spec'd spread),
 * counters on the first and on the last unit. */
static void test_mutual_exclusion(int iters)
{
  enum { NLOCKS = 5 };
  dart_gptr_t g = counters_alloc(DART_TEAM_ALL, NLOCKS);
  dart_lock_t locks[NLOCKS];
  for (int k = 0; k < NLOCKS; ++k) {
    STAGE("mutual exclusion: init lock %d", k);
    S_OK(dart_team_lock_init(DART_TEAM_ALL, &locks[k]));
    TEST_ASSERT(dart_lock_initialized(locks[k]));
  }
  for (int k = 0; k < NLOCKS; ++k) {
    STAGE("mutual exclusion: lock %d", k);
    int owner = k % 2 == 0 ? 0 : n - 1;
    dart_gptr_t counter = gptr_at(g, owner, (uint64_t)k * sizeof(long long));
    locked_increments(locks[k], counter, iters);
  }
  S_OK(dart_barrier(DART_TEAM_ALL));
  for (int k = 0; k < NLOCKS; ++k) {
    int owner = k % 2 == 0 ? 0 : n - 1;
    dart_gptr_t counter = gptr_at(g, owner, (uint64_t)k * sizeof(long long));
    TEST_EQ(read_counter(counter), (long long)n * iters);
  }
  S_OK(dart_barrier(DART_TEAM_ALL));
  for (int k = 0; k < NLOCKS; ++k) {
    S_OK(dart_team_lock_destroy(&locks[k]));
    TEST_ASSERT(locks[k] == DART_LOCK_NULL);
  }
  S_OK(dart_team_memfree(g));
}

/* While one unit holds the lock every other try fails; once it is free
 * each unit in turn gets it by trying (a try may fail while the hybrid
 * lock migrates to network mode, never once it is there). */
static void test_try_acquire(void)
{
  dart_lock_t lock;
  STAGE("try: init");
  S_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  for (int holder = 0; holder < n; ++holder) {
    STAGE("try: unit %d holds", holder);
    int32_t got = -1;
    if (me == holder) {
      S_OK(dart_lock_try_acquire(lock, &got));
      /* Give the home unit (maybe sharing this core) time to migrate. */
      for (int tries = 1; got == 0; ++tries) {
        TEST_ASSERT(tries < 100000);
        nanosleep(&(struct timespec){ 0, 50000 }, NULL);
        S_OK(dart_lock_try_acquire(lock, &got));
      }
      TEST_EQ(got, 1);
    }
    S_OK(dart_barrier(DART_TEAM_ALL));
    if (me != holder) {
      for (int t = 0; t < 20; ++t) {
        got = -1;
        S_OK(dart_lock_try_acquire(lock, &got));
        TEST_EQ(got, 0);
      }
    } else {
      int saved = mute_log();
      got = 0;
      S_RET(dart_lock_try_acquire(lock, &got), DART_ERR_INVAL);
      TEST_EQ(got, 1);
      restore_log(saved);
    }
    S_OK(dart_barrier(DART_TEAM_ALL));
    if (me == holder) {
      S_OK(dart_lock_release(lock));
    }
    S_OK(dart_barrier(DART_TEAM_ALL));
  }
  S_OK(dart_team_lock_destroy(&lock));
}

/* A lock on the usual sub-team guards a counter of that team; the team
 * is destroyed before the lock, which then reports uninitialized and
 * still destroys cleanly. */
static void test_subteam(int iters)
{
  STAGE("sub-team");
  dart_team_t sub = test_subteam_create(n);
  if (sub != DART_TEAM_NULL) {
    size_t size = 0;
    S_OK(dart_team_size(sub, &size));
    dart_gptr_t g = counters_alloc(sub, 1);
    dart_lock_t lock, spare;
    S_OK(dart_team_lock_init(sub, &lock));
    S_OK(dart_team_lock_init(sub, &spare));
    dart_gptr_t counter = gptr_at(g, (int)size - 1, 0);
    locked_increments(lock, counter, iters);
    S_OK(dart_barrier(sub));
    TEST_EQ(read_counter(counter), (long long)size * iters);
    S_OK(dart_barrier(sub));
    S_OK(dart_team_lock_destroy(&lock));
    S_OK(dart_team_memfree(g));
    TEST_ASSERT(dart_lock_initialized(spare));
    S_OK(dart_team_destroy(&sub));
    TEST_ASSERT(!dart_lock_initialized(spare));
    int saved = mute_log();
    S_RET(dart_lock_acquire(spare), DART_ERR_INVAL);
    restore_log(saved);
    S_OK(dart_team_lock_destroy(&spare));
    TEST_ASSERT(spare == DART_LOCK_NULL);
  }
  S_OK(dart_barrier(DART_TEAM_ALL));
}

/* Many locks on one team, homes spread over nodes and units: each unit
 * takes every lock in a different order, nested two at a time. */
static void test_many_locks(int nlocks, int rounds)
{
  STAGE("many locks: init %d", nlocks);
  dart_gptr_t g = counters_alloc(DART_TEAM_ALL, nlocks);
  dart_lock_t *locks = xmalloc((size_t)nlocks * sizeof *locks);
  for (int k = 0; k < nlocks; ++k) {
    S_OK(dart_team_lock_init(DART_TEAM_ALL, &locks[k]));
  }
  for (int r = 0; r < rounds; ++r) {
    for (int j = 0; j < nlocks; ++j) {
      int k = (j + me * 7) % nlocks;
      STAGE("many locks: round %d lock %d", r, k);
      dart_gptr_t counter = gptr_at(g, k % n, (uint64_t)k * sizeof(long long));
      locked_increments(locks[k], counter, 1);
    }
  }
  S_OK(dart_barrier(DART_TEAM_ALL));
  for (int k = 0; k < nlocks; ++k) {
    dart_gptr_t counter = gptr_at(g, k % n, (uint64_t)k * sizeof(long long));
    TEST_EQ(read_counter(counter), (long long)n * rounds);
  }
  S_OK(dart_barrier(DART_TEAM_ALL));
  for (int k = 0; k < nlocks; ++k) {
    S_OK(dart_team_lock_destroy(&locks[k]));
  }
  free(locks);
  S_OK(dart_team_memfree(g));
}

int main(int argc, char **argv)
{
  test_start(&argc, &argv, &me, &n);
  /* --quick: fewer iterations and locks (each lock costs MPI windows) for
   * the registrations of the baselines, slow where MPI needs the target's
   * progress. */
  bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  test_mutual_exclusion(quick ? 15 : 25);
  test_try_acquire();
  test_subteam(quick ? 10 : 25);
  test_many_locks(quick ? 16 : 64, 1);
  test_report_pass("test_locks");
  TEST_OK(dart_exit());
  return 0;
}
