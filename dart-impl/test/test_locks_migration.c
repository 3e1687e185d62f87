/* Hybrid lock migrations (white-box: reads the home node's lock state).
 * Rounds of "remote units take the lock, then home-node units do" force
 * one migration each way per round under the seed policy, fewer under
 * the history policy; a final phase has every unit contend at once. The
 * counter each critical section increments with a plain get / add / put
 * must come out exact, and the network word must be back to a valid
 * state. */
#include "mpi/lock/lock.h"
#include "mpi/core/runtime.h"
#include "test_lock_counter.h"
#include "test.h"

#include <stdint.h>

enum { ROUNDS = 10, PER_PHASE = 3, CONTENDED = 40 };

static void migrations(void)
{
  int me = test_me, n = test_units;
  dart_gptr_t g;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_LONGLONG,
                                       &g));
  dart_gptr_t mine = gptr_at(g, me, 0);
  long long *local = NULL;
  ASSERT_OK(dart_gptr_getaddr(mine, (void **)&local));
  *local = 0;
  dart_lock_t lock;
  ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  ASSERT(lock->ops == &lock_ops_hybrid);
  ASSERT_EQ(lock->home, 0); /* the first lock of a team: unit 0 */
  bool local_side = lock->on_home_node;
  bool multi_node = lock->team->num_nodes > 1;
  /* The counter sits with the last unit: on the far side when the
   * team spans nodes. */
  dart_gptr_t counter = gptr_at(g, n - 1, 0);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  for (int r = 0; r < ROUNDS; ++r) {
    STAGE("round %d: remote side", r);
    if (!local_side) {
      locked_increments(lock, counter, PER_PHASE);
    }
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
    STAGE("round %d: home side", r);
    if (local_side) {
      locked_increments(lock, counter, PER_PHASE);
    }
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  }
  if (local_side) {
    uint32_t to_net = atomic_load(&lock->shm->to_net);
    uint32_t to_cpu = atomic_load(&lock->shm->to_cpu);
    if (!multi_node) {
      ASSERT_EQ(to_net, 0);
      ASSERT_EQ(to_cpu, 0);
    } else if (runtime.env.lock_policy == LOCK_POLICY_SEED) {
      /* Each remote phase finds CPU mode and each home phase network
       * mode: exactly one migration each way per round. */
      ASSERT_EQ(to_net, ROUNDS);
      ASSERT_EQ(to_cpu, ROUNDS);
    } else {
      /* History: stays in network mode across several home phases. */
      ASSERT(to_net >= 1);
      ASSERT(to_cpu < ROUNDS);
      ASSERT(to_net <= to_cpu + 1);
    }
  }
  /* Nobody starts the contended phase before the counts are read. */
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  STAGE("contended");
  locked_increments(lock, counter, CONTENDED);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  long long value = -1;
  ASSERT_OK(dart_get_blocking(&value, counter, 1, DART_TYPE_LONGLONG,
                              DART_TYPE_LONGLONG));
  ASSERT_EQ(value, (long long)(ROUNDS * PER_PHASE + CONTENDED) * n);
  if (lock->me == lock->home) {
    int64_t word = 0;
    MPI_Win win = lock->net_win;
    if (win != MPI_WIN_NULL) {
      MPI_Fetch_and_op(NULL, &word, MPI_INT64_T, lock->home, lock->net_disp,
                       MPI_NO_OP, win);
      MPI_Win_flush(lock->home, win);
      /* Nobody holds or waits: unlocked in one mode or the other. */
      ASSERT(word == NET_UNLOCKED || word == NET_CPU_MODE);
    }
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_lock_destroy(&lock));
  ASSERT_OK(dart_team_memfree(g));
}

static const struct test_case cases[] = {
  { "migrations", migrations },
};

int main(int argc, char **argv)
{
  return test_run_dart(argc, argv, TEST_CASES(cases));
}
