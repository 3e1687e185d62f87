/* White-box: a target of atomics by message (rma/am_atomics.h) refuses
 * requests that do not resolve in its own portion, writes nothing for
 * them, and the origin's completion or fetching call returns the error.
 * The public calls validate before sending, so the requests are sent
 * through the module directly, as a unit with another view of the
 * segment (or another program) could send them. Registered with
 * DART_REMOTE_ATOMICS=message on several nodes
 * (dart-impl/test/robust_atomics.cmake). */
#include "test.h"
#include "mpi/model/team.h"
#include "mpi/rma/am_atomics.h"

#include <stdint.h>
#include <string.h>

enum { WORDS = 8 };

static dart_gptr_t seg;
static const struct team *all;
static int target;

static void fill(int64_t base)
{
  int64_t mine[WORDS];
  for (int i = 0; i < WORDS; ++i) {
    mine[i] = base + i;
  }
  ASSERT_OK(dart_put_blocking(gptr_at(seg, test_me, 0), mine, WORDS,
                              DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* The target's words equal `expect`. */
static void check_target(const int64_t *expect)
{
  int64_t got[WORDS];
  ASSERT_OK(dart_get_blocking(got, gptr_at(seg, target, 0), WORDS,
                              DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
  for (int i = 0; i < WORDS; ++i) {
    ASSERT_MSG(got[i] == expect[i], "word %d: %lld, expected %lld", i,
               (long long)got[i], (long long)expect[i]);
  }
}

static void setup_segment(void)
{
  ASSERT(am_atomics_active());
  all = team_lookup(DART_TEAM_ALL);
  ASSERT(all != NULL && all->num_nodes > 1);
  target = test_units - 1; /* on another node than unit 0 */
  ASSERT(all->node_of[target] != all->node_of[0]);
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, WORDS,
                                       DART_TYPE_LONGLONG, &seg));
  fill(100);
}

/* Accumulates past the portion: acknowledged with an error, nothing
 * written; in a scattered one the valid entry still applies. */
static void accumulate_refused(void)
{
  setup_segment();
  int64_t expect[WORDS];
  for (int i = 0; i < WORDS; ++i) {
    expect[i] = 100 + i;
  }
  if (test_me == 0) {
    const char *call = "test accumulate";
    int64_t add[2] = { 5, 7 };
    ASSERT_OK(am_accumulate(call, all, seg.segid, target, NULL,
                            WORDS * sizeof(int64_t), add, 1,
                            DART_TYPE_LONGLONG, DART_OP_SUM));
    ASSERT_RET(am_atomics_complete(call, all, target), DART_ERR_INVAL);
    uint64_t offsets[2] = { 0, 1000 * sizeof(int64_t) };
    ASSERT_OK(am_accumulate(call, all, seg.segid, target, offsets, 0, add,
                            2, DART_TYPE_LONGLONG, DART_OP_SUM));
    ASSERT_RET(am_atomics_complete(call, all, target), DART_ERR_INVAL);
    /* A refusal is reported once: the next completion is clean. */
    ASSERT_OK(am_atomics_complete(call, all, target));
    expect[0] += 5;
    check_target(expect);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(seg));
}

/* Fetching requests past the portion, misaligned, or for a segment the
 * target does not know: an error, the result untouched, nothing
 * written. */
static void fetch_refused(void)
{
  setup_segment();
  if (test_me == 0) {
    const char *call = "test fetch";
    int64_t one = 1, swap = 9, cmp = 100, result = -5;
    ASSERT_RET(am_fetch_and_op(call, all, seg.segid, target,
                               WORDS * sizeof(int64_t), &one, &result,
                               DART_TYPE_LONGLONG, DART_OP_SUM),
               DART_ERR_INVAL);
    ASSERT_RET(am_compare_and_swap(call, all, seg.segid, target, 4, &swap,
                                   &cmp, &result, DART_TYPE_LONGLONG),
               DART_ERR_INVAL);
    ASSERT_RET(am_fetch_and_op(call, all, (int16_t)(seg.segid + 100),
                               target, 0, &one, &result, DART_TYPE_LONGLONG,
                               DART_OP_SUM),
               DART_ERR_INVAL);
    ASSERT_EQ(result, -5);
    /* The same requests, valid, still work afterwards. */
    ASSERT_OK(am_fetch_and_op(call, all, seg.segid, target, 0, &one,
                              &result, DART_TYPE_LONGLONG, DART_OP_SUM));
    ASSERT_EQ(result, 100);
    ASSERT_OK(am_compare_and_swap(call, all, seg.segid, target, 8, &swap,
                                  &cmp, &result, DART_TYPE_LONGLONG));
    ASSERT_EQ(result, 101); /* compared 100: no swap */
    int64_t expect[WORDS];
    for (int i = 0; i < WORDS; ++i) {
      expect[i] = 100 + i;
    }
    expect[0] = 101;
    check_target(expect);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(seg));
}

static const struct test_case cases[] = {
  { "accumulate_refused", accumulate_refused },
  { "fetch_refused", fetch_refused },
};

/* The refusals are logged by the target and the origin: expected here. */
static void setup(int *argc, char ***argv)
{
  test_dart_setup(argc, argv);
  mute_log();
}

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup,
                       test_dart_teardown);
}
