/* The per-team lock arena (white-box: reads slots and the home's state),
 * for hybrid locks and (DART_LOCK_MODE=mpi-mcs) the MCS baseline.
 * More locks than one chunk holds get distinct slots in creation order;
 * destroyed slots are reused lowest first; a reused slot starts from the
 * initial state (hybrid: ticket counters zero, CPU mode, network word
 * CPU_MODE; MCS: every unit's tail and next NONE, blocked 0)
 * although its previous lock was used (and, across nodes, migrated);
 * locks on reused and grown slots still exclude mutually. */
#include "mpi/lock/lock.h"
#include "mpi/lock/arena.h"
#include "mpi/core/runtime.h"
#include "test_lock_counter.h"
#include "test.h"

#include <stdint.h>

enum { NLOCKS = LOCK_ARENA_CHUNK * 2 + 5, ITERS = 6 };
static const int reused[] = { 3, LOCK_ARENA_CHUNK + 1, 10 };
enum { NREUSED = sizeof reused / sizeof *reused };

static int me, n;

static int64_t read_word(MPI_Win win, int unit, MPI_Aint disp)
{
  int64_t word = 0;
  ASSERT_EQ(MPI_Fetch_and_op(NULL, &word, MPI_INT64_T, unit, disp, MPI_NO_OP,
                             win), MPI_SUCCESS);
  ASSERT_EQ(MPI_Win_flush(unit, win), MPI_SUCCESS);
  return word;
}

/* The fresh lock's state before anyone used it: MCS, my own words;
 * hybrid, checked by the home. */
static void check_initial(dart_lock_t l)
{
  if (l->ops == &lock_ops_mcs) {
    ASSERT_EQ(read_word(l->win, l->me, l->net_disp + 0), -1); /* tail */
    ASSERT_EQ(read_word(l->win, l->me, l->net_disp + 1), -1); /* next */
    ASSERT_EQ(read_word(l->win, l->me, l->net_disp + 2), 0);  /* blocked */
    return;
  }
  if (l->me != l->home) {
    return;
  }
  ASSERT_EQ(atomic_load(&l->shm->next), 0);
  ASSERT_EQ(atomic_load(&l->shm->serving), 0);
  ASSERT_EQ(atomic_load(&l->shm->mode), HYBRID_MODE_CPU);
  ASSERT_EQ(atomic_load(&l->shm->migrate_pending), 0);
  if (l->net_win != MPI_WIN_NULL) {
    ASSERT_EQ(read_word(l->net_win, l->home, l->net_disp), NET_CPU_MODE);
  }
}

static void exclude(dart_lock_t *locks, dart_gptr_t g, const int *which,
                    int count, int round)
{
  for (int j = 0; j < count; ++j) {
    int k = which[j];
    STAGE("round %d: lock %d", round, k);
    locked_increments(locks[k], gptr_at(g, k % n, (uint64_t)k * 8), ITERS);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int j = 0; j < count; ++j) {
    int k = which[j];
    long long value = -1;
    ASSERT_OK(dart_get_blocking(&value, gptr_at(g, k % n, (uint64_t)k * 8), 1,
                                DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
    ASSERT_EQ(value, (long long)n * ITERS * round);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

static void arena_slots(void)
{
  dart_gptr_t g;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, NLOCKS, DART_TYPE_LONGLONG,
                                       &g));
  long long *mine = NULL;
  ASSERT_OK(dart_gptr_getaddr(gptr_at(g, me, 0), (void **)&mine));
  for (int k = 0; k < NLOCKS; ++k) {
    mine[k] = 0;
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  dart_lock_t locks[NLOCKS];
  for (int k = 0; k < NLOCKS; ++k) {
    STAGE("init %d", k);
    ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &locks[k]));
    ASSERT(locks[k]->ops == (runtime.env.lock_mode == LOCK_MODE_MPI_MCS
                                 ? &lock_ops_mcs : &lock_ops_hybrid));
    ASSERT_EQ(locks[k]->slot, k);
    check_initial(locks[k]);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  /* Used by every unit: from other nodes that migrates them. */
  exclude(locks, g, reused, NREUSED, 1);
  int last[] = { NLOCKS - 1 };
  exclude(locks, g, last, 1, 1);

  for (int j = 0; j < NREUSED; ++j) {
    ASSERT_OK(dart_team_lock_destroy(&locks[reused[j]]));
  }
  /* Reuse lowest first: 3, 10, then CHUNK + 1. */
  int order[] = { 3, 10, LOCK_ARENA_CHUNK + 1 };
  for (int j = 0; j < NREUSED; ++j) {
    STAGE("reuse %d", j);
    dart_lock_t l;
    ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &l));
    ASSERT_EQ(l->slot, order[j]);
    check_initial(l);
    locks[order[j]] = l;
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  /* The new locks have new homes: count on from round 1's values. */
  exclude(locks, g, reused, NREUSED, 2);
  exclude(locks, g, last, 1, 2);

  for (int k = 0; k < NLOCKS; ++k) {
    ASSERT_OK(dart_team_lock_destroy(&locks[k]));
  }
  ASSERT_OK(dart_team_memfree(g));
}

static const struct test_case cases[] = {
  { "arena_slots", arena_slots },
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
