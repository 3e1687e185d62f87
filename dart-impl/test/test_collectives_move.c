/* Barrier, bcast, allgather and alltoall with every basic type and a
 * custom type (dart-if/include/dash/dart/if/dart_communication.h), and the
 * argument errors every unit makes alike, with live and with destroyed
 * types and operations; the runtime still works afterwards. Scatter,
 * gather and allgatherv are test_collectives_gather.c's. Shared part:
 * test_collectives_common.h. */
#include "test_collectives_common.h"

/* ---------------------------------------------------------------------
 * Barrier and data movement. Combinations of root, type, count and
 * buffer mode rotate, so that each value of each occurs without running
 * the whole cross product (every collective costs milliseconds when
 * MPICH runs more units than cores).
 * --------------------------------------------------------------------- */

static void one_bcast(const struct team_ctx *c, dart_datatype_t t,
                      size_t nelem, int root, int k)
{
  size_t bytes = nelem * tsize(t);
  STAGE("%s: bcast root %d type %s nelem %zu", c->label, root, tname(t),
        nelem);
  unsigned char *buf = xmalloc(bytes);
  memset(buf, POISON, bytes);
  if (c->me == root) {
    fill_block(t, buf, 0, nelem, k);
  }
  ASSERT_OK(dart_bcast(buf, nelem, t, DART_TEAM_UNIT_ID(root), c->team));
  check_block(t, buf, 0, nelem, k);
  free(buf);
}

static void test_bcast(const struct team_ctx *c)
{
  static const size_t nelems[] = { 1, 10, 37 };
  /* Every basic type and the custom type, roots and counts rotating. */
  for (int ti = 0; ti <= TEST_NBASIC; ++ti) {
    dart_datatype_t t = ti < TEST_NBASIC ? test_basic_types[ti] : triple_type;
    int root = (ti + 1) % c->n;
    one_bcast(c, t, nelems[ti % 3], root, key(root, ti % 8));
  }
  /* Every root. */
  for (int root = 0; root < c->n; ++root) {
    one_bcast(c, DART_TYPE_INT, 10, root, key(root, 4));
  }
  /* Large counts from the last unit. */
  one_bcast(c, DART_TYPE_INT, 1000, c->n - 1, key(c->n - 1, 5));
  one_bcast(c, DART_TYPE_LONG_DOUBLE, 1003, c->n - 1, key(c->n - 1, 6));
  /* Zero elements: nothing moves. */
  STAGE("%s: bcast of 0 elements", c->label);
  int zero[4];
  memset(zero, POISON, sizeof zero);
  ASSERT_OK(dart_bcast(zero, 0, DART_TYPE_INT, DART_TEAM_UNIT_ID(0), c->team));
  ASSERT_POISON(zero, 0, sizeof zero);
}

static void one_allgather(const struct team_ctx *c, dart_datatype_t t,
                          size_t nelem, int mode)
{
  size_t bytes = nelem * tsize(t), total = (size_t)c->n * bytes;
  STAGE("%s: allgather type %s nelem %zu, %s", c->label, tname(t), nelem,
        mode_name[mode]);
  unsigned char *recv = xmalloc(total);
  memset(recv, POISON, total);
  unsigned char *send = NULL;
  if (mode == MODE_SEPARATE) {
    send = xmalloc(bytes);
    fill_block(t, send, 0, nelem, key(c->me, mode));
  } else {
    fill_block(t, recv, (size_t)c->me * nelem, nelem, key(c->me, mode));
  }
  ASSERT_OK(dart_allgather(mode_sendbuf(mode, send, recv), recv, nelem, t,
                           c->team));
  for (int j = 0; j < c->n; ++j) {
    check_block(t, recv, (size_t)j * nelem, nelem, key(j, mode));
  }
  free(send);
  free(recv);
}

static void test_allgather(const struct team_ctx *c)
{
  static const size_t nelems[] = { 1, 10, 37 };
  dart_datatype_t types[8];
  size_t ntypes = movement_types(types);
  /* Modes rotate fastest, then counts: every (mode, count) but one. */
  for (size_t k = 0; k < ntypes; ++k) {
    one_allgather(c, types[k], nelems[(k / 3) % 3], (int)(k % 3));
  }
  one_allgather(c, DART_TYPE_INT, 1000, MODE_NULL);
  one_allgather(c, triple_type, 1000, MODE_SAME);
  one_allgather(c, DART_TYPE_SHORT, 37, MODE_SAME);
}

static void one_alltoall(const struct team_ctx *c, dart_datatype_t t,
                         size_t nelem, int mode)
{
  size_t bytes = nelem * tsize(t), total = (size_t)c->n * bytes;
  STAGE("%s: alltoall type %s nelem %zu, %s", c->label, tname(t), nelem,
        mode_name[mode]);
  unsigned char *recv = xmalloc(total);
  unsigned char *send = NULL;
  memset(recv, POISON, total);
  /* Block j of unit i's input is key(i, j); it must land in block i of
   * unit j. */
  unsigned char *input = recv;
  if (mode == MODE_SEPARATE) {
    send = xmalloc(total);
    input = send;
  }
  for (int j = 0; j < c->n; ++j) {
    fill_block(t, input, (size_t)j * nelem, nelem, key(c->me, j));
  }
  ASSERT_OK(dart_alltoall(mode_sendbuf(mode, send, recv), recv, nelem, t,
                          c->team));
  for (int i = 0; i < c->n; ++i) {
    check_block(t, recv, (size_t)i * nelem, nelem, key(i, c->me));
  }
  for (int j = 0; send != NULL && j < c->n; ++j) {
    check_block(t, send, (size_t)j * nelem, nelem, key(c->me, j));
  }
  free(send);
  free(recv);
}

static void test_alltoall(const struct team_ctx *c)
{
  static const size_t nelems[] = { 1, 10, 37 };
  const dart_datatype_t types[] = {
    DART_TYPE_BYTE,     DART_TYPE_SHORT, DART_TYPE_INT,    DART_TYPE_UINT,
    DART_TYPE_LONGLONG, DART_TYPE_FLOAT, DART_TYPE_DOUBLE,
    DART_TYPE_LONG_DOUBLE
  };
  for (size_t k = 0; k < sizeof types / sizeof types[0]; ++k) {
    one_alltoall(c, types[k], nelems[(k / 3) % 3], (int)(k % 3));
  }
  one_alltoall(c, DART_TYPE_INT, 1000, MODE_SEPARATE);
  one_alltoall(c, DART_TYPE_ULONG, 37, MODE_SAME);

  /* dart_alltoall needs a basic type: a custom type is rejected on every
   * unit alike, before any communication. */
  STAGE("%s: alltoall with a custom type", c->label);
  size_t bytes = (size_t)c->n * 4 * sizeof(struct triple);
  unsigned char *a = xmalloc(bytes), *b = xmalloc(bytes);
  memset(a, 0, bytes);
  memset(b, POISON, bytes);
  int saved_log = mute_log();
  ASSERT_RET(dart_alltoall(a, b, 4, triple_type, c->team), DART_ERR_INVAL);
  ASSERT_RET(dart_alltoall(NULL, b, 4, triple_type, c->team), DART_ERR_INVAL);
  restore_log(saved_log);
  ASSERT_POISON(b, 0, bytes);
  free(a);
  free(b);
}

/* ---------------------------------------------------------------------
 * Errors: every unit makes the same bad call, so nobody waits.
 * --------------------------------------------------------------------- */

/* A correct allreduce (sum) and reduce (max, to the last unit) after the
 * errors, each element depending on the unit and the index. */
static void after_errors(const struct team_ctx *c)
{
  enum { N = 10 };
  int in[N], sum[N];
  unsigned int uin[N], max[N];
  for (int i = 0; i < N; ++i) {
    in[i] = key(c->me, i) - 40;
    uin[i] = (unsigned)((c->me * 7 + i * 13) % 23) + 3000000000u;
  }
  memset(max, POISON, sizeof max);
  ASSERT_OK(dart_allreduce(in, sum, N, DART_TYPE_INT, DART_OP_SUM, c->team));
  ASSERT_OK(dart_reduce(uin, max, N, DART_TYPE_UINT, DART_OP_MAX,
                        DART_TEAM_UNIT_ID(c->n - 1), c->team));
  for (int i = 0; i < N; ++i) {
    int want = 0;
    unsigned int want_max = 0;
    for (int u = 0; u < c->n; ++u) {
      want += key(u, i) - 40;
      unsigned int v = (unsigned)((u * 7 + i * 13) % 23) + 3000000000u;
      want_max = v > want_max ? v : want_max;
    }
    ASSERT_EQ(sum[i], want);
    if (c->me == c->n - 1) {
      ASSERT_EQ(max[i], want_max);
    }
  }
  if (c->me != c->n - 1) {
    ASSERT_POISON(max, 0, sizeof max);
  }
}

struct bad_handles {
  dart_datatype_t strided;      /* live, but not contiguous */
  dart_datatype_t dead_type;    /* destroyed custom type (or UNDEFINED) */
  dart_operation_t dead_op;     /* destroyed user op (or UNDEFINED) */
};

/* Every collective with one bad argument set; `type` and `op` are used
 * where the call takes them. */
static void expect_inval_everywhere(const struct team_ctx *c,
                                    dart_team_t team, dart_datatype_t type,
                                    dart_team_unit_t root, size_t nelem,
                                    void *a, void *b, bool with_root_calls)
{
  size_t n = (size_t)c->n;
  size_t *cnt = xmalloc(n * sizeof(size_t));
  size_t *displ = xmalloc(n * sizeof(size_t));
  for (size_t u = 0; u < n; ++u) {
    cnt[u] = nelem;
    displ[u] = u * nelem;
  }
  if (team != c->team || type != DART_TYPE_INT) {
    ASSERT_RET(dart_barrier(team), team != c->team ? DART_ERR_INVAL : DART_OK);
    ASSERT_RET(dart_allgather(a, b, nelem, type, team), DART_ERR_INVAL);
    ASSERT_RET(dart_allgatherv(a, nelem, type, b, cnt, displ, team),
               DART_ERR_INVAL);
    ASSERT_RET(dart_alltoall(a, b, nelem, type, team), DART_ERR_INVAL);
    ASSERT_RET(dart_allreduce(a, b, nelem, type, DART_OP_SUM, team),
               DART_ERR_INVAL);
  }
  if (with_root_calls) {
    ASSERT_RET(dart_bcast(a, nelem, type, root, team), DART_ERR_INVAL);
    ASSERT_RET(dart_scatter(a, b, nelem, type, root, team), DART_ERR_INVAL);
    ASSERT_RET(dart_gather(a, b, nelem, type, root, team), DART_ERR_INVAL);
    ASSERT_RET(dart_reduce(a, b, nelem, type, DART_OP_SUM, root, team),
               DART_ERR_INVAL);
  }
  free(cnt);
  free(displ);
}

static void test_errors(const struct team_ctx *c,
                        const struct bad_handles *bad)
{
  int saved_log = mute_log();

  size_t bytes = (size_t)c->n * 8 * sizeof(long double);
  void *a = xmalloc(bytes), *b = xmalloc(bytes);
  memset(a, 0, bytes);
  memset(b, POISON, bytes);

  /* Root outside [0, size). */
  const dart_team_unit_t bad_roots[] = { DART_TEAM_UNIT_ID(-1),
                                         DART_TEAM_UNIT_ID(c->n),
                                         DART_TEAM_UNIT_ID(c->n + 5) };
  for (int r = 0; r < 3; ++r) {
    STAGE("%s: root %d out of range", c->label, (int)bad_roots[r].id);
    expect_inval_everywhere(c, c->team, DART_TYPE_INT, bad_roots[r], 4, a,
                            b, true);
    ASSERT_RET(dart_reduce(a, b, 2, DART_TYPE_INT, DART_OP_MINMAX, bad_roots[r],
                           c->team), DART_ERR_INVAL);
  }

  /* Unknown teams. */
  const dart_team_t bad_teams[] = { 1234, DART_TEAM_NULL,
                                    DART_UNDEFINED_TEAM_ID, 31000 };
  for (int t = 0; t < 4; ++t) {
    STAGE("%s: unknown team %d", c->label, (int)bad_teams[t]);
    expect_inval_everywhere(c, bad_teams[t], DART_TYPE_INT,
                            DART_TEAM_UNIT_ID(0), 4, a, b, true);
  }

  /* Types that collectives cannot take. */
  const dart_datatype_t bad_types[] = { DART_TYPE_UNDEFINED, DART_TYPE_LAST,
                                        bad->dead_type, bad->strided,
                                        (dart_datatype_t)4242 };
  for (int t = 0; t < 5; ++t) {
    STAGE("%s: bad type %ld", c->label, (long)bad_types[t]);
    expect_inval_everywhere(c, c->team, bad_types[t], DART_TEAM_UNIT_ID(0),
                            4, a, b, true);
    ASSERT_RET(dart_allreduce(a, b, 2, bad_types[t], DART_OP_MINMAX, c->team),
               DART_ERR_INVAL);
  }

  /* MINMAX needs an even element count. */
  STAGE("%s: MINMAX with an odd count", c->label);
  ASSERT_RET(dart_allreduce(a, b, 3, DART_TYPE_INT, DART_OP_MINMAX, c->team),
             DART_ERR_INVAL);
  ASSERT_RET(dart_allreduce(a, b, 1, DART_TYPE_DOUBLE, DART_OP_MINMAX, c->team),
             DART_ERR_INVAL);
  ASSERT_RET(dart_allreduce(a, a, 9, DART_TYPE_BYTE, DART_OP_MINMAX, c->team),
             DART_ERR_INVAL);
  ASSERT_RET(dart_reduce(a, b, 5, DART_TYPE_ULONGLONG, DART_OP_MINMAX,
                         DART_TEAM_UNIT_ID(0), c->team), DART_ERR_INVAL);

  /* Operations that are no reductions. */
  const dart_operation_t bad_ops[] = { DART_OP_UNDEFINED, DART_OP_REPLACE,
                                       DART_OP_NO_OP, DART_OP_LAST,
                                       (dart_operation_t)100 };
  for (int o = 0; o < 5; ++o) {
    STAGE("%s: operation %lu in a reduction", c->label,
          (unsigned long)bad_ops[o]);
    ASSERT_RET(dart_allreduce(a, b, 4, DART_TYPE_INT, bad_ops[o], c->team),
               DART_ERR_INVAL);
    ASSERT_RET(dart_allreduce(a, b, 4, DART_TYPE_DOUBLE, bad_ops[o], c->team),
               DART_ERR_INVAL);
    ASSERT_RET(dart_reduce(a, b, 4, DART_TYPE_LONG, bad_ops[o],
                           DART_TEAM_UNIT_ID(c->n - 1), c->team), DART_ERR_INVAL);
  }

  /* Predefined operations on types they do not apply to. */
  STAGE("%s: invalid (type, op) pairs", c->label);
  ASSERT_RET(dart_allreduce(a, b, 4, DART_TYPE_BYTE, DART_OP_SUM, c->team),
             DART_ERR_INVAL);
  ASSERT_RET(dart_reduce(a, b, 4, DART_TYPE_BYTE, DART_OP_SUM,
                         DART_TEAM_UNIT_ID(0), c->team), DART_ERR_INVAL);
  ASSERT_RET(dart_allreduce(a, b, 4, DART_TYPE_DOUBLE, DART_OP_BAND, c->team),
             DART_ERR_INVAL);
  ASSERT_RET(dart_allreduce(a, b, 4, DART_TYPE_FLOAT, DART_OP_BXOR, c->team),
             DART_ERR_INVAL);
  ASSERT_RET(dart_allreduce(a, b, 4, DART_TYPE_DOUBLE, DART_OP_LAND, c->team),
             DART_ERR_INVAL);
  ASSERT_RET(dart_allreduce(a, b, 4, DART_TYPE_LONG_DOUBLE, DART_OP_LOR,
                            c->team), DART_ERR_INVAL);

  /* Predefined operations on a custom type. */
  STAGE("%s: predefined operations on a custom type", c->label);
  const dart_operation_t predefined[] = { DART_OP_SUM, DART_OP_MIN,
                                          DART_OP_BAND, DART_OP_MINMAX };
  for (int o = 0; o < 4; ++o) {
    ASSERT_RET(dart_allreduce(a, b, 2, triple_type, predefined[o], c->team),
               DART_ERR_INVAL);
    ASSERT_RET(dart_reduce(a, b, 2, triple_type, predefined[o],
                           DART_TEAM_UNIT_ID(0), c->team), DART_ERR_INVAL);
  }

  /* User operations only with the type they were created for. */
  STAGE("%s: user operations with another type", c->label);
  if (triple_op != DART_OP_UNDEFINED) {
    ASSERT_RET(dart_allreduce(a, b, 4, DART_TYPE_INT, triple_op, c->team),
               DART_ERR_INVAL);
    ASSERT_RET(dart_allreduce(a, b, 4, mat_type, triple_op, c->team),
               DART_ERR_INVAL);
    ASSERT_RET(dart_allreduce(a, b, 4, DART_TYPE_ULONGLONG, concat_op, c->team),
               DART_ERR_INVAL);
    ASSERT_RET(dart_reduce(a, b, 4, DART_TYPE_LONG, concat_op,
                           DART_TEAM_UNIT_ID(0), c->team), DART_ERR_INVAL);
    ASSERT_RET(dart_allreduce(a, b, 1, triple_type, mat_op, c->team),
               DART_ERR_INVAL);
  }

  /* A destroyed user operation. */
  if (bad->dead_op != DART_OP_UNDEFINED) {
    STAGE("%s: destroyed user operation", c->label);
    ASSERT_RET(dart_allreduce(a, b, 4, DART_TYPE_LONGLONG, bad->dead_op,
                              c->team), DART_ERR_INVAL);
    ASSERT_RET(dart_reduce(a, b, 4, DART_TYPE_LONGLONG, bad->dead_op,
                           DART_TEAM_UNIT_ID(0), c->team), DART_ERR_INVAL);
  }

  /* A strided type in bcast, and a bad bcast root: nothing moved. */
  STAGE("%s: strided type in bcast", c->label);
  ASSERT_RET(dart_bcast(b, 2, bad->strided, DART_TEAM_UNIT_ID(0), c->team),
             DART_ERR_INVAL);
  ASSERT_RET(dart_bcast(b, 4, DART_TYPE_INT, DART_TEAM_UNIT_ID(c->n), c->team),
             DART_ERR_INVAL);
  ASSERT_POISON(b, 0, bytes);

  restore_log(saved_log);
  free(a);
  free(b);

  /* The runtime still works. */
  STAGE("%s: a correct collective after the errors", c->label);
  after_errors(c);
  ASSERT_OK(dart_barrier(c->team));
}

/* Errors of the local type/op calls (no communication). */
static void test_local_errors(dart_datatype_t strided)
{
  int saved_log = mute_log();
  STAGE("dart_op_create / dart_type_destroy argument errors");
  dart_operation_t op = (dart_operation_t)77;
  ASSERT_RET(dart_op_create(concat_combine, &concat_userdata, false, strided,
                            false, &op), DART_ERR_INVAL);
  ASSERT_EQ(op, DART_OP_UNDEFINED);
  op = (dart_operation_t)77;
  ASSERT_RET(dart_op_create(concat_combine, &concat_userdata, false,
                            DART_TYPE_UNDEFINED, false, &op), DART_ERR_INVAL);
  ASSERT_EQ(op, DART_OP_UNDEFINED);
  ASSERT_RET(dart_op_create(concat_combine, NULL, true, DART_TYPE_INT, false,
                            NULL), DART_ERR_INVAL);
  dart_datatype_t t = DART_TYPE_INT;
  ASSERT_RET(dart_type_destroy(&t), DART_ERR_INVAL);
  ASSERT_RET(dart_type_destroy(NULL), DART_ERR_INVAL);
  restore_log(saved_log);
}

static void local_errors(void)
{
  test_local_errors(strided);
}

static void movement_on(const struct team_ctx *c)
{
  test_barrier(c);
  test_bcast(c);
  test_allgather(c);
  test_alltoall(c);
}

static void data_movement(void) { on_both_teams(movement_on); }

/* Errors with live user operations. */
static void errors_live_handles(void)
{
  struct bad_handles bad = { strided, DART_TYPE_UNDEFINED,
                             DART_OP_UNDEFINED };
  test_errors(&all_ctx, &bad);
  if (member) {
    test_errors(&sub_ctx, &bad);
  }
}

/* Operations go first (their types must outlive them); the triple type
 * stays alive for the predefined-op-on-custom-type checks. No type or
 * operation is created after this point, so the dead ids cannot come back
 * to life. */
static void errors_dead_handles(void)
{
  dart_operation_t dead_op = concat_op;
  ASSERT_OK(dart_op_destroy(&concat_op));
  ASSERT_EQ(concat_op, DART_OP_UNDEFINED);
  ASSERT_OK(dart_op_destroy(&triple_op));
  ASSERT_EQ(triple_op, DART_OP_UNDEFINED);
  ASSERT_OK(dart_op_destroy(&mat_op));
  ASSERT_EQ(mat_op, DART_OP_UNDEFINED);
  dart_datatype_t dead_type = mat_type;
  ASSERT_OK(dart_type_destroy(&mat_type));
  ASSERT_EQ(mat_type, DART_TYPE_UNDEFINED);
  struct bad_handles bad = { strided, dead_type, dead_op };
  test_errors(&all_ctx, &bad);
  if (member) {
    test_errors(&sub_ctx, &bad);
  }
}

/* Everything still works after all the errors. */
static void still_working(void)
{
  test_bcast(&all_ctx);
  test_alltoall(&all_ctx);
  if (member) {
    test_allgather(&sub_ctx);
  }
  ASSERT_OK(dart_type_destroy(&triple_type));
  ASSERT_EQ(triple_type, DART_TYPE_UNDEFINED);
  ASSERT_OK(dart_type_destroy(&strided));
  ASSERT_EQ(strided, DART_TYPE_UNDEFINED);
}

/* The sub-team goes away; its id is unknown afterwards. */
static void team_destroyed(void)
{
  dart_team_t old_sub = sub;
  ASSERT_OK(dart_team_destroy(&sub));
  ASSERT_EQ(sub, DART_TEAM_NULL);
  member = false;
  int saved_log = mute_log();
  ASSERT_RET(dart_barrier(old_sub), DART_ERR_INVAL);
  restore_log(saved_log);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

static const struct test_case cases[] = {
  { "local_errors", local_errors },
  { "data_movement", data_movement },
  { "errors_live_handles", errors_live_handles },
  { "errors_dead_handles", errors_dead_handles },
  { "still_working", still_working },
  { "team_destroyed", team_destroyed },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
