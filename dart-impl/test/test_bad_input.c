/* Bad input to the foundation calls: the fitting error code, outputs set
 * to their null values, no crash, and the runtime keeps working. */
#include "test.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

static void user_sum(const void *in, void *inout, size_t len, void *data)
{
  (void)data;
  for (size_t i = 0; i < len; ++i) {
    ((int *)inout)[i] += ((const int *)in)[i];
  }
}

static void check_units_and_teams(int n)
{
  dart_team_unit_t tu = { 5 };
  dart_global_unit_t gu = { 5 };
  size_t size = 77;
  dart_team_t bogus[] = { DART_TEAM_NULL, 1234, 999, INT16_MAX, -7 };
  for (size_t i = 0; i < sizeof bogus / sizeof *bogus; ++i) {
    tu.id = 5;
    ASSERT_RET(dart_team_myid(bogus[i], &tu), DART_ERR_INVAL);
    ASSERT_EQ(tu.id, DART_UNDEFINED_UNIT_ID);
    ASSERT_RET(dart_team_size(bogus[i], &size), DART_ERR_INVAL);
    ASSERT_EQ(size, 77);
    gu.id = 5;
    ASSERT_RET(dart_team_unit_l2g(bogus[i], DART_TEAM_UNIT_ID(0), &gu),
               DART_ERR_INVAL);
    ASSERT_EQ(gu.id, DART_UNDEFINED_UNIT_ID);
    ASSERT_RET(dart_team_unit_g2l(bogus[i], DART_GLOBAL_UNIT_ID(0), &tu),
               DART_ERR_INVAL);
    ASSERT_RET(dart_barrier(bogus[i]), DART_ERR_INVAL);
    dart_team_t out = 5;
    ASSERT_RET(dart_team_clone(bogus[i], &out), DART_ERR_INVAL);
    ASSERT_EQ(out, DART_TEAM_NULL);
    dart_group_t g = DART_GROUP_NULL;
    ASSERT_OK(dart_group_create(&g));
    out = 5;
    ASSERT_RET(dart_team_create(bogus[i], g, &out), DART_ERR_INVAL);
    ASSERT_EQ(out, DART_TEAM_NULL);
    ASSERT_OK(dart_group_destroy(&g));
  }
  ASSERT_RET(dart_barrier(DART_UNDEFINED_TEAM_ID), DART_ERR_INVAL);

  /* Units out of range. */
  int bad_units[] = { -1, n, n + 100, INT32_MIN };
  for (size_t i = 0; i < sizeof bad_units / sizeof *bad_units; ++i) {
    gu.id = 5;
    ASSERT_RET(dart_team_unit_l2g(DART_TEAM_ALL,
                                  DART_TEAM_UNIT_ID(bad_units[i]), &gu),
               DART_ERR_INVAL);
    ASSERT_EQ(gu.id, DART_UNDEFINED_UNIT_ID);
    /* g2l of a non-member is DART_OK with a negative id
     * (dart_team_unit_g2l in dart_team_group.h). */
    tu.id = 5;
    ASSERT_OK(dart_team_unit_g2l(DART_TEAM_ALL,
                                 DART_GLOBAL_UNIT_ID(bad_units[i]), &tu));
    ASSERT(tu.id < 0);
  }

  /* NULL out-pointers. */
  ASSERT_RET(dart_myid(NULL), DART_ERR_INVAL);
  ASSERT_RET(dart_size(NULL), DART_ERR_INVAL);
  ASSERT_RET(dart_team_myid(DART_TEAM_ALL, NULL), DART_ERR_INVAL);
  ASSERT_RET(dart_team_size(DART_TEAM_ALL, NULL), DART_ERR_INVAL);
  ASSERT_RET(dart_team_unit_l2g(DART_TEAM_ALL, DART_TEAM_UNIT_ID(0), NULL),
             DART_ERR_INVAL);
  ASSERT_RET(dart_team_unit_g2l(DART_TEAM_ALL, DART_GLOBAL_UNIT_ID(0), NULL),
             DART_ERR_INVAL);
  ASSERT_RET(dart_team_clone(DART_TEAM_ALL, NULL), DART_ERR_INVAL);
  ASSERT_RET(dart_team_create(DART_TEAM_ALL, DART_GROUP_NULL, NULL),
             DART_ERR_INVAL);
  ASSERT_RET(dart_team_destroy(NULL), DART_ERR_INVAL);
  dart_config(NULL); /* void call: must just not crash */
}

static void check_types_and_ops(void)
{
  dart_datatype_t t = 99;
  ASSERT_RET(dart_type_create_custom(0, &t), DART_ERR_INVAL);
  ASSERT_EQ(t, DART_TYPE_UNDEFINED);
  ASSERT_RET(dart_type_create_custom((size_t)INT_MAX + 1, &t), DART_ERR_INVAL);
  ASSERT_RET(dart_type_create_custom(4, NULL), DART_ERR_INVAL);

  t = 99;
  ASSERT_RET(dart_type_create_strided(DART_TYPE_INT, 4, 0, &t), DART_ERR_INVAL);
  ASSERT_EQ(t, DART_TYPE_UNDEFINED);
  ASSERT_RET(dart_type_create_strided(DART_TYPE_INT, 2, 3, &t), DART_ERR_INVAL);
  ASSERT_RET(dart_type_create_strided(DART_TYPE_UNDEFINED, 4, 1, &t),
             DART_ERR_INVAL);
  ASSERT_RET(dart_type_create_strided(DART_TYPE_LAST, 4, 1, &t),
             DART_ERR_INVAL);
  ASSERT_RET(dart_type_create_strided(123456789, 4, 1, &t), DART_ERR_INVAL);
  ASSERT_RET(dart_type_create_strided(DART_TYPE_INT, (size_t)INT_MAX + 1, 1,
                                      &t), DART_ERR_INVAL);
  ASSERT_RET(dart_type_create_strided(DART_TYPE_INT, 4, 1, NULL),
             DART_ERR_INVAL);

  /* A strided type is no base for another derived type. */
  dart_datatype_t strided;
  ASSERT_OK(dart_type_create_strided(DART_TYPE_INT, 4, 2, &strided));
  ASSERT_RET(dart_type_create_strided(strided, 8, 1, &t), DART_ERR_INVAL);
  size_t len[2] = { 1, 2 }, off[2] = { 0, 5 };
  ASSERT_RET(dart_type_create_indexed(strided, 2, len, off, &t),
             DART_ERR_INVAL);
  ASSERT_RET(dart_type_create_indexed(DART_TYPE_INT, 0, len, off, &t),
             DART_ERR_INVAL);
  ASSERT_RET(dart_type_create_indexed(DART_TYPE_INT, 2, NULL, off, &t),
             DART_ERR_INVAL);
  ASSERT_RET(dart_type_create_indexed(DART_TYPE_INT, 2, len, NULL, &t),
             DART_ERR_INVAL);
  size_t zero[2] = { 0, 0 };
  ASSERT_RET(dart_type_create_indexed(DART_TYPE_INT, 2, zero, off, &t),
             DART_ERR_INVAL);
  size_t huge[2] = { 1, (size_t)INT_MAX + 1 };
  ASSERT_RET(dart_type_create_indexed(DART_TYPE_INT, 2, len, huge, &t),
             DART_ERR_INVAL);
  dart_datatype_t indexed;
  ASSERT_OK(dart_type_create_indexed(DART_TYPE_INT, 2, len, off, &indexed));
  /* A custom type is a valid base. */
  dart_datatype_t custom, over_custom;
  ASSERT_OK(dart_type_create_custom(12, &custom));
  ASSERT_OK(dart_type_create_strided(custom, 3, 1, &over_custom));
  ASSERT(custom > DART_TYPE_LAST && strided > DART_TYPE_LAST &&
         indexed > DART_TYPE_LAST && over_custom > DART_TYPE_LAST);

  /* Destroy: basic types, NULL, twice. */
  dart_datatype_t basic = DART_TYPE_INT;
  ASSERT_RET(dart_type_destroy(&basic), DART_ERR_INVAL);
  ASSERT_EQ(basic, DART_TYPE_INT);
  ASSERT_RET(dart_type_destroy(NULL), DART_ERR_INVAL);
  dart_datatype_t undefined = DART_TYPE_UNDEFINED;
  ASSERT_RET(dart_type_destroy(&undefined), DART_ERR_INVAL);
  dart_datatype_t stale = strided;
  ASSERT_OK(dart_type_destroy(&strided));
  ASSERT_EQ(strided, DART_TYPE_UNDEFINED);
  ASSERT_RET(dart_type_destroy(&stale), DART_ERR_INVAL);
  /* A stale id stays dead after its slot is reused. */
  dart_datatype_t reused;
  ASSERT_OK(dart_type_create_custom(8, &reused));
  ASSERT(reused != stale);
  ASSERT_RET(dart_type_destroy(&stale), DART_ERR_INVAL);

  /* Operations. */
  dart_operation_t op = 99;
  ASSERT_RET(dart_op_create(NULL, NULL, true, DART_TYPE_INT, false, &op),
             DART_ERR_INVAL);
  ASSERT_EQ(op, DART_OP_UNDEFINED);
  ASSERT_RET(dart_op_create(user_sum, NULL, true, DART_TYPE_INT, false, NULL),
             DART_ERR_INVAL);
  ASSERT_RET(dart_op_create(user_sum, NULL, true, indexed, false, &op),
             DART_ERR_INVAL);
  ASSERT_RET(dart_op_create(user_sum, NULL, true, DART_TYPE_UNDEFINED, false,
                            &op), DART_ERR_INVAL);
  dart_operation_t predefined = DART_OP_SUM;
  ASSERT_RET(dart_op_destroy(&predefined), DART_ERR_INVAL);
  ASSERT_EQ(predefined, DART_OP_SUM);
  ASSERT_RET(dart_op_destroy(NULL), DART_ERR_INVAL);
  ASSERT_OK(dart_op_create(user_sum, NULL, true, DART_TYPE_INT, false, &op));
  ASSERT(op > DART_OP_LAST);
  dart_operation_t stale_op = op;
  ASSERT_OK(dart_op_destroy(&op));
  ASSERT_EQ(op, DART_OP_UNDEFINED);
  ASSERT_RET(dart_op_destroy(&stale_op), DART_ERR_INVAL);

  dart_datatype_t *live[] = { &indexed, &custom, &over_custom, &reused };
  for (size_t i = 0; i < sizeof live / sizeof *live; ++i) {
    ASSERT_OK(dart_type_destroy(live[i]));
  }
}

/* Counts whose bytes overflow or exceed any buffer: DART_ERR_INVAL on
 * every member (the verdict depends only on arguments that agree, so no
 * member is left waiting in a collective), nothing written. */
static void check_huge_counts(int n)
{
  dart_global_unit_t me;
  ASSERT_OK(dart_myid(&me));
  const size_t huge[] = { SIZE_MAX, SIZE_MAX / sizeof(long) + 1,
                          ((size_t)1 << 61) + 1,
                          (size_t)PTRDIFF_MAX / sizeof(long) + 1,
                          (size_t)PTRDIFF_MAX / 4 };
  dart_team_unit_t root = DART_TEAM_UNIT_ID(0);
  long in[4] = { 7, 7, 7, 7 }, out[4] = { 9, 9, 9, 9 };
  size_t *counts = malloc((size_t)n * sizeof *counts);
  size_t *displs = malloc((size_t)n * sizeof *displs);
  ASSERT(counts != NULL && displs != NULL);
  for (size_t i = 0; i < sizeof huge / sizeof *huge; ++i) {
    size_t h = huge[i];
    ASSERT_RET(dart_bcast(out, h, DART_TYPE_LONG, root, DART_TEAM_ALL),
               DART_ERR_INVAL);
    ASSERT_RET(dart_scatter(in, out, h, DART_TYPE_LONG, root, DART_TEAM_ALL),
               DART_ERR_INVAL);
    ASSERT_RET(dart_gather(in, out, h, DART_TYPE_LONG, root, DART_TEAM_ALL),
               DART_ERR_INVAL);
    ASSERT_RET(dart_allgather(in, out, h, DART_TYPE_LONG, DART_TEAM_ALL),
               DART_ERR_INVAL);
    ASSERT_RET(dart_alltoall(in, out, h, DART_TYPE_LONG, DART_TEAM_ALL),
               DART_ERR_INVAL);
    ASSERT_RET(dart_allreduce(in, out, h, DART_TYPE_LONG, DART_OP_SUM,
                              DART_TEAM_ALL), DART_ERR_INVAL);
    ASSERT_RET(dart_reduce(in, out, h, DART_TYPE_LONG, DART_OP_SUM, root,
                           DART_TEAM_ALL), DART_ERR_INVAL);
    for (int u = 0; u < n; ++u) {
      counts[u] = h;
      displs[u] = 0;
    }
    ASSERT_RET(dart_allgatherv(in, h, DART_TYPE_LONG, out, counts, displs,
                               DART_TEAM_ALL), DART_ERR_INVAL);
    for (int u = 0; u < n; ++u) { /* one element, far out */
      counts[u] = 1;
      displs[u] = h;
    }
    ASSERT_RET(dart_allgatherv(in, 1, DART_TYPE_LONG, out, counts, displs,
                               DART_TEAM_ALL), DART_ERR_INVAL);
    ASSERT_RET(dart_send(in, h, DART_TYPE_LONG, 0, me), DART_ERR_INVAL);
    ASSERT_RET(dart_recv(out, h, DART_TYPE_LONG, 0, me), DART_ERR_INVAL);
    ASSERT_RET(dart_sendrecv(in, 1, DART_TYPE_LONG, 0, me, out, h,
                             DART_TYPE_LONG, 0, me), DART_ERR_INVAL);
    dart_gptr_t g = { .unitid = 3, .segid = 3, .teamid = 3 };
    ASSERT(dart_memalloc(h, DART_TYPE_LONG, &g) != DART_OK);
    ASSERT(DART_GPTR_ISNULL(g));
    g.teamid = 3;
    ASSERT_RET(dart_team_memalloc_aligned(DART_TEAM_ALL, h, DART_TYPE_LONG, &g),
               DART_ERR_INVAL);
    ASSERT(DART_GPTR_ISNULL(g));
    g.teamid = 3;
    ASSERT_RET(dart_team_memregister(DART_TEAM_ALL, h, DART_TYPE_LONG, in, &g),
               DART_ERR_INVAL);
    ASSERT(DART_GPTR_ISNULL(g));
    ASSERT_RET(dart_team_memregister_aligned(DART_TEAM_ALL, h, DART_TYPE_LONG,
                                             in, &g), DART_ERR_INVAL);
  }
  /* Each block fits, all of them together do not. */
  if (n > 1) {
    size_t h = (size_t)PTRDIFF_MAX / sizeof(long) / (size_t)n + 1;
    ASSERT_RET(dart_scatter(in, out, h, DART_TYPE_LONG, root, DART_TEAM_ALL),
               DART_ERR_INVAL);
    ASSERT_RET(dart_gather(in, out, h, DART_TYPE_LONG, root, DART_TEAM_ALL),
               DART_ERR_INVAL);
    ASSERT_RET(dart_allgather(in, out, h, DART_TYPE_LONG, DART_TEAM_ALL),
               DART_ERR_INVAL);
    ASSERT_RET(dart_alltoall(in, out, h, DART_TYPE_LONG, DART_TEAM_ALL),
               DART_ERR_INVAL);
  }
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(in[i], 7);
    ASSERT_EQ(out[i], 9);
  }
  /* One member's bad size fails the allocation on every member instead
   * of leaving the others waiting; then allocation works again. */
  dart_gptr_t g;
  dart_ret_t ret = dart_team_memalloc_aligned(
    DART_TEAM_ALL, me.id == 0 ? SIZE_MAX / 2 : 4, DART_TYPE_LONG, &g);
  ASSERT_EQ(ret, me.id == 0 ? DART_ERR_INVAL
                            : n > 1 ? DART_ERR_OTHER : DART_ERR_INVAL);
  ASSERT(DART_GPTR_ISNULL(g));
  ret = dart_team_memregister(DART_TEAM_ALL, 4, DART_TYPE_LONG,
                              me.id == n - 1 ? NULL : in, &g);
  ASSERT_EQ(ret, me.id == n - 1 ? DART_ERR_INVAL
                                : n > 1 ? DART_ERR_OTHER : DART_ERR_INVAL);
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_LONG, &g));
  ASSERT_OK(dart_team_memfree(g));
  free(counts);
  free(displs);
}

static void units_and_teams(void)
{
  check_units_and_teams(test_units);
}

static void huge_counts(void)
{
  check_huge_counts(test_units);
}

/* Still fully working after all of that. */
static void still_working(void)
{
  int one = 1, sum = 0;
  ASSERT_OK(dart_allreduce(&one, &sum, 1, DART_TYPE_INT, DART_OP_SUM,
                           DART_TEAM_ALL));
  ASSERT_EQ(sum, test_units);
}

static const struct test_case cases[] = {
  { "units_and_teams", units_and_teams },
  { "types_and_ops", check_types_and_ops },
  { "huge_counts", huge_counts },
  { "still_working", still_working },
};

int main(int argc, char **argv)
{
  return test_run_dart(argc, argv, TEST_CASES(cases));
}
