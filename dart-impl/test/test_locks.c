/* Team locks (dart-if/include/dash/dart/if/dart_synchronization.h;
 * docs/design.md, "Locks") in whatever DART_LOCK_MODE / DART_LOCK_POLICY
 * the environment selects: mutual exclusion proved by counters that every
 * unit increments with a plain get / add / put inside the critical
 * section (one lost update fails), on locks homed on every node, with
 * the counter on either side; try-acquire semantics; locks on a
 * sub-team; many locks on one team; a lock outliving its team. */
#include "test_lock_counter.h"
#include "test.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

static int me, n;

static long long read_counter(dart_gptr_t counter)
{
  long long value = -1;
  ASSERT_OK(dart_get_blocking(&value, counter, 1, DART_TYPE_LONGLONG,
                              DART_TYPE_LONGLONG));
  return value;
}

/* Counters of `team` (size `size`, my id `myid`), zeroed. */
static dart_gptr_t counters_alloc(dart_team_t team, int per_unit)
{
  dart_gptr_t g = DART_GPTR_NULL;
  ASSERT_OK(dart_team_memalloc_aligned(team, (size_t)per_unit,
                                       DART_TYPE_LONGLONG, &g));
  long long *mine = NULL;
  dart_gptr_t local = g;
  dart_team_unit_t myid;
  ASSERT_OK(dart_team_myid(team, &myid));
  ASSERT_OK(dart_gptr_setunit(&local, myid));
  ASSERT_OK(dart_gptr_getaddr(local, (void **)&mine));
  for (int i = 0; i < per_unit; ++i) {
    mine[i] = 0;
  }
  ASSERT_OK(dart_barrier(team));
  return g;
}

/* One lock per node and one more: homes on every node (docs/design.md,
 * "Locks"), counters on the first and on the last unit. */
static void test_mutual_exclusion(int iters)
{
  enum { NLOCKS = 5 };
  dart_gptr_t g = counters_alloc(DART_TEAM_ALL, NLOCKS);
  dart_lock_t locks[NLOCKS];
  for (int k = 0; k < NLOCKS; ++k) {
    STAGE("mutual exclusion: init lock %d", k);
    ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &locks[k]));
    ASSERT(dart_lock_initialized(locks[k]));
  }
  for (int k = 0; k < NLOCKS; ++k) {
    STAGE("mutual exclusion: lock %d", k);
    int owner = k % 2 == 0 ? 0 : n - 1;
    dart_gptr_t counter = gptr_at(g, owner, (uint64_t)k * sizeof(long long));
    locked_increments(locks[k], counter, iters);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int k = 0; k < NLOCKS; ++k) {
    int owner = k % 2 == 0 ? 0 : n - 1;
    dart_gptr_t counter = gptr_at(g, owner, (uint64_t)k * sizeof(long long));
    ASSERT_EQ(read_counter(counter), (long long)n * iters);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int k = 0; k < NLOCKS; ++k) {
    ASSERT_OK(dart_team_lock_destroy(&locks[k]));
    ASSERT(locks[k] == DART_LOCK_NULL);
  }
  ASSERT_OK(dart_team_memfree(g));
}

/* While one unit holds the lock every other try fails; once it is free
 * each unit in turn gets it by trying (a try may fail while the hybrid
 * lock migrates to network mode, never once it is there). */
static void test_try_acquire(void)
{
  dart_lock_t lock;
  STAGE("try: init");
  ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  for (int holder = 0; holder < n; ++holder) {
    STAGE("try: unit %d holds", holder);
    int32_t got = -1;
    if (me == holder) {
      ASSERT_OK(dart_lock_try_acquire(lock, &got));
      /* Give the home unit (maybe sharing this core) time to migrate. */
      for (int tries = 1; got == 0; ++tries) {
        ASSERT(tries < 100000);
        nanosleep(&(struct timespec){ 0, 50000 }, NULL);
        ASSERT_OK(dart_lock_try_acquire(lock, &got));
      }
      ASSERT_EQ(got, 1);
    }
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
    if (me != holder) {
      for (int t = 0; t < 20; ++t) {
        got = -1;
        ASSERT_OK(dart_lock_try_acquire(lock, &got));
        ASSERT_EQ(got, 0);
      }
    } else {
      int saved = mute_log();
      got = 0;
      ASSERT_RET(dart_lock_try_acquire(lock, &got), DART_ERR_INVAL);
      ASSERT_EQ(got, 1);
      restore_log(saved);
    }
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
    if (me == holder) {
      ASSERT_OK(dart_lock_release(lock));
    }
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  }
  ASSERT_OK(dart_team_lock_destroy(&lock));
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
    ASSERT_OK(dart_team_size(sub, &size));
    dart_gptr_t g = counters_alloc(sub, 1);
    dart_lock_t lock, spare;
    ASSERT_OK(dart_team_lock_init(sub, &lock));
    ASSERT_OK(dart_team_lock_init(sub, &spare));
    dart_gptr_t counter = gptr_at(g, (int)size - 1, 0);
    locked_increments(lock, counter, iters);
    ASSERT_OK(dart_barrier(sub));
    ASSERT_EQ(read_counter(counter), (long long)size * iters);
    ASSERT_OK(dart_barrier(sub));
    ASSERT_OK(dart_team_lock_destroy(&lock));
    ASSERT_OK(dart_team_memfree(g));
    ASSERT(dart_lock_initialized(spare));
    ASSERT_OK(dart_team_destroy(&sub));
    ASSERT(!dart_lock_initialized(spare));
    int saved = mute_log();
    ASSERT_RET(dart_lock_acquire(spare), DART_ERR_INVAL);
    restore_log(saved);
    ASSERT_OK(dart_team_lock_destroy(&spare));
    ASSERT(spare == DART_LOCK_NULL);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* Many locks on one team, homes spread over nodes and units: each unit
 * takes every lock in a different order, nested two at a time. */
static void test_many_locks(int nlocks, int rounds)
{
  STAGE("many locks: init %d", nlocks);
  dart_gptr_t g = counters_alloc(DART_TEAM_ALL, nlocks);
  dart_lock_t *locks = xmalloc((size_t)nlocks * sizeof *locks);
  for (int k = 0; k < nlocks; ++k) {
    ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &locks[k]));
  }
  for (int r = 0; r < rounds; ++r) {
    for (int j = 0; j < nlocks; ++j) {
      int k = (j + me * 7) % nlocks;
      STAGE("many locks: round %d lock %d", r, k);
      dart_gptr_t counter = gptr_at(g, k % n, (uint64_t)k * sizeof(long long));
      locked_increments(locks[k], counter, 1);
    }
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int k = 0; k < nlocks; ++k) {
    dart_gptr_t counter = gptr_at(g, k % n, (uint64_t)k * sizeof(long long));
    ASSERT_EQ(read_counter(counter), (long long)n * rounds);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int k = 0; k < nlocks; ++k) {
    ASSERT_OK(dart_team_lock_destroy(&locks[k]));
  }
  free(locks);
  ASSERT_OK(dart_team_memfree(g));
}

/* --quick: fewer iterations and locks (each lock costs MPI windows) for
 * the registrations of the baselines, slow where MPI needs the target's
 * progress. */
static bool quick;

static void setup(int *argc, char ***argv)
{
  test_start(argc, argv, &me, &n);
  quick = *argc > 1 && strcmp((*argv)[1], "--quick") == 0;
}

static void mutual_exclusion(void)
{
  test_mutual_exclusion(quick ? 15 : 25);
}

static void subteam(void)
{
  test_subteam(quick ? 10 : 25);
}

static void many_locks(void)
{
  test_many_locks(quick ? 16 : 64, 1);
}

static const struct test_case cases[] = {
  { "mutual_exclusion", mutual_exclusion },
  { "try_acquire", test_try_acquire },
  { "subteam", subteam },
  { "many_locks", many_locks },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup,
                       test_dart_teardown);
}
