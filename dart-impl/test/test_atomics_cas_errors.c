/* Atomics one call at a time (dart-if/include/dash/dart/if/
 * dart_communication.h): compare-and-swap on every integral type, with a
 * compare that misses (nothing changes) and a token handed from unit to
 * unit; and the argument errors (invalid type and operation pairs, NULL
 * buffers, compare-and-swap on non-integral types, targets out of range
 * or freed), which must leave target and result untouched; and one
 * buffer as operand and result. Shared part: test_atomics_common.h. */
#include "test_atomics_common.h"

/* ---------------------------------------------------------------------
 * Compare-and-swap on every integral type.
 * --------------------------------------------------------------------- */

/* Token r of type t: top bit set (negative for signed types). */
static long double cas_token(dart_datatype_t t, int r)
{
  return from_bits(t, (1ULL << (width(t) - 1)) | (unsigned)(r * 3 + 1));
}

static void test_cas_types(void)
{
  const int ntypes = DART_TYPE_ULONGLONG - DART_TYPE_BYTE + 1;
  dart_gptr_t seg;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, (size_t)ntypes * 16,
                                       DART_TYPE_BYTE, &seg));
  char *mine = local_base(seg, me);
  for (int k = 0; k < ntypes; ++k) {
    dart_datatype_t t = DART_TYPE_BYTE + k;
    if (k % n == me) {
      memset(mine + 16 * k, POISON, 16);
      put_val(t, mine + 16 * k, 0, cas_token(t, 0));
    }
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  /* A compare that does not match: old value back, nothing changes. */
  for (int k = 0; k < ntypes; ++k) {
    dart_datatype_t t = DART_TYPE_BYTE + k;
    STAGE("compare_and_swap %s, compare mismatching", tname(t));
    _Alignas(16) unsigned char value[16], compare[16], result[16];
    memset(result, POISON, sizeof result);
    put_val(t, value, 0, cas_token(t, 7));
    put_val(t, compare, 0, cas_token(t, 1));
    dart_gptr_t g = gptr_at(seg, k % n, 16 * (size_t)k);
    ASSERT_OK(dart_compare_and_swap(g, value, compare, result, t));
    ASSERT_OK(dart_flush(g));
    ASSERT(get_val(t, result, 0) == cas_token(t, 0));
    ASSERT_POISON(result, tsize(t), sizeof result - tsize(t));
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  /* Unit r swaps token r for token r + 1, one unit after the other. */
  for (int r = 0; r < n; ++r) {
    if (me == r) {
      for (int k = 0; k < ntypes; ++k) {
        dart_datatype_t t = DART_TYPE_BYTE + k;
        STAGE("compare_and_swap %s, token %d -> %d", tname(t), r, r + 1);
        _Alignas(16) unsigned char value[16], compare[16], result[16];
        put_val(t, value, 0, cas_token(t, r + 1));
        put_val(t, compare, 0, cas_token(t, r));
        dart_gptr_t g = gptr_at(seg, k % n, 16 * (size_t)k);
        ASSERT_OK(dart_compare_and_swap(g, value, compare, result, t));
        ASSERT_OK(dart_flush(g));
        ASSERT(get_val(t, result, 0) == cas_token(t, r));
      }
    }
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  }
  for (int k = 0; k < ntypes; ++k) {
    dart_datatype_t t = DART_TYPE_BYTE + k;
    if (k % n == me) {
      STAGE("compare_and_swap %s: final token", tname(t));
      ASSERT(get_val(t, mine + 16 * k, 0) == cas_token(t, n));
      ASSERT_POISON(mine + 16 * k, tsize(t), 16 - tsize(t));
    }
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(seg));
}

/* ---------------------------------------------------------------------
 * Argument errors: refused, target and result untouched.
 * --------------------------------------------------------------------- */

static void user_sum(const void *in, void *inout, size_t len, void *data)
{
  (void)data;
  for (size_t i = 0; i < len; ++i) {
    ((long *)inout)[i] += ((const long *)in)[i];
  }
}

static void test_errors(void)
{
  STAGE("atomics: bad input setup");
  dart_gptr_t seg, dead;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8 + (size_t)me,
                                       DART_TYPE_LONG, &seg));
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_LONG,
                                       &dead));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(dead));
  char *mine = local_base(seg, me);
  memset(mine, POISON, (8 + (size_t)me) * sizeof(long));
  dart_operation_t user_op = DART_OP_UNDEFINED;
  ASSERT_OK(dart_op_create(user_sum, NULL, true, DART_TYPE_LONG, false,
                           &user_op));
  dart_datatype_t custom = DART_TYPE_UNDEFINED, strided = DART_TYPE_UNDEFINED;
  ASSERT_OK(dart_type_create_custom(sizeof(long), &custom));
  ASSERT_OK(dart_type_create_strided(DART_TYPE_LONG, 2, 1, &strided));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  int saved = mute_log();
  long vals[4] = { 1, 2, 3, 4 };
  _Alignas(16) unsigned char res[32];
  struct {
    dart_datatype_t  type;
    dart_operation_t op;
  } bad_pairs[] = {
    { DART_TYPE_LONG, DART_OP_MINMAX },  { DART_TYPE_LONG, DART_OP_LAST },
    { DART_TYPE_LONG, DART_OP_UNDEFINED }, { DART_TYPE_LONG, user_op },
    { DART_TYPE_LONG, (dart_operation_t)99 }, { custom, DART_OP_SUM },
    { custom, DART_OP_REPLACE },         { strided, DART_OP_SUM },
    { DART_TYPE_BYTE, DART_OP_SUM },     { DART_TYPE_BYTE, DART_OP_MIN },
    { DART_TYPE_BYTE, DART_OP_LAND },    { DART_TYPE_DOUBLE, DART_OP_BAND },
    { DART_TYPE_FLOAT, DART_OP_LAND },   { DART_TYPE_LONG_DOUBLE, DART_OP_BXOR },
    { DART_TYPE_UNDEFINED, DART_OP_SUM }, { DART_TYPE_LAST, DART_OP_SUM },
  };
  for (int t = 0; t < n; ++t) {
    dart_gptr_t g = gptr_at(seg, t, 0);
    /* A valid read first: where atomics take the CPU path, the segment is
     * then cached and every bad call below meets the cached fast path's
     * checks, not only the resolution's. */
    STAGE("atomics: fetching unit %d's first element", t);
    ASSERT_OK(dart_fetch_and_op(g, vals, res, DART_TYPE_LONG, DART_OP_NO_OP));
    for (size_t i = 0; i < sizeof bad_pairs / sizeof *bad_pairs; ++i) {
      STAGE("atomics: type %ld with op %d towards unit %d",
            (long)bad_pairs[i].type, (int)bad_pairs[i].op, t);
      memset(res, POISON, sizeof res);
      ASSERT_RET(dart_accumulate(g, vals, 1, bad_pairs[i].type,
                                 bad_pairs[i].op),
                 DART_ERR_INVAL);
      ASSERT_RET(dart_accumulate_blocking_local(g, vals, 2, bad_pairs[i].type,
                                                bad_pairs[i].op), DART_ERR_INVAL);
      ASSERT_RET(dart_fetch_and_op(g, vals, res, bad_pairs[i].type,
                                   bad_pairs[i].op), DART_ERR_INVAL);
      ASSERT_POISON(res, 0, sizeof res);
    }
    STAGE("atomics: NULL buffers towards unit %d", t);
    memset(res, POISON, sizeof res);
    ASSERT_RET(dart_accumulate(g, NULL, 1, DART_TYPE_LONG, DART_OP_SUM),
               DART_ERR_INVAL);
    ASSERT_RET(dart_accumulate_blocking_local(g, NULL, 2, DART_TYPE_LONG,
                                              DART_OP_SUM), DART_ERR_INVAL);
    ASSERT_RET(dart_fetch_and_op(g, NULL, res, DART_TYPE_LONG, DART_OP_SUM),
               DART_ERR_INVAL);
    ASSERT_RET(dart_fetch_and_op(g, vals, NULL, DART_TYPE_LONG, DART_OP_SUM),
               DART_ERR_INVAL);
    ASSERT_RET(dart_compare_and_swap(g, vals, vals, NULL, DART_TYPE_LONG),
               DART_ERR_INVAL);
    ASSERT_RET(dart_compare_and_swap(g, NULL, vals, res, DART_TYPE_LONG),
               DART_ERR_INVAL);
    ASSERT_RET(dart_compare_and_swap(g, vals, NULL, res, DART_TYPE_LONG),
               DART_ERR_INVAL);
    ASSERT_POISON(res, 0, sizeof res);

    STAGE("atomics: compare_and_swap on non-integral types, unit %d", t);
    const dart_datatype_t no_cas[] = { DART_TYPE_FLOAT, DART_TYPE_DOUBLE,
                                       DART_TYPE_LONG_DOUBLE,
                                       DART_TYPE_UNDEFINED, DART_TYPE_LAST,
                                       custom, strided };
    for (size_t i = 0; i < sizeof no_cas / sizeof *no_cas; ++i) {
      ASSERT_RET(dart_compare_and_swap(g, vals, vals, res, no_cas[i]),
                 DART_ERR_INVAL);
    }
    ASSERT_POISON(res, 0, sizeof res);

    STAGE("atomics: out-of-range targets, unit %d", t);
    size_t tbytes = (8 + (size_t)t) * sizeof(long);
    dart_gptr_t bad[8];
    int nbad = 0;
    bad[nbad] = g;
    bad[nbad++].unitid = -1;
    bad[nbad] = g;
    bad[nbad++].unitid = n;
    bad[nbad++] = gptr_at(seg, t, tbytes);
    bad[nbad++] = gptr_at(seg, t, tbytes - 4);
    bad[nbad++] = gptr_at(seg, t, UINT64_MAX - 3);
    bad[nbad] = g;
    bad[nbad++].teamid = 77;
    bad[nbad] = g;
    bad[nbad++].segid = 999;
    bad[nbad++] = gptr_at(dead, t, 0);
    for (int b = 0; b < nbad; ++b) {
      ASSERT_RET(dart_accumulate(bad[b], vals, 1, DART_TYPE_LONG, DART_OP_SUM),
                 DART_ERR_INVAL);
      ASSERT_RET(dart_accumulate_blocking_local(bad[b], vals, 1, DART_TYPE_LONG,
                                                DART_OP_MAX), DART_ERR_INVAL);
      ASSERT_RET(dart_fetch_and_op(bad[b], vals, res, DART_TYPE_LONG,
                                   DART_OP_NO_OP), DART_ERR_INVAL);
      ASSERT_RET(dart_compare_and_swap(bad[b], vals, vals, res, DART_TYPE_LONG),
                 DART_ERR_INVAL);
    }
    /* Several elements whose last one runs past the end. */
    ASSERT_RET(dart_accumulate(gptr_at(seg, t, tbytes - 2 * sizeof(long)),
                               vals, 3,
                               DART_TYPE_LONG, DART_OP_SUM), DART_ERR_INVAL);
    ASSERT_RET(dart_accumulate_blocking_local(gptr_at(seg, t, 0), vals,
                                              9 + (size_t)t,
                                              DART_TYPE_LONG, DART_OP_BOR),
               DART_ERR_INVAL);
    ASSERT_POISON(res, 0, sizeof res);
  }
  restore_log(saved);
  ASSERT_OK(dart_flush_all(seg));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  STAGE("atomics: target untouched by bad input");
  ASSERT_POISON(mine, 0, (8 + (size_t)me) * sizeof(long));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  /* Correct calls still work, up to the last element of a portion. */
  STAGE("atomics: correct calls after bad input");
  size_t nl = 8 + (size_t)me;
  for (size_t i = 0; i < nl; ++i) {
    ((long *)mine)[i] = 0;
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  int next = (me + 1) % n;
  size_t next_n = 8 + (size_t)next;
  long add[2] = { me + 1, 10 * (me + 1) };
  ASSERT_OK(dart_accumulate(gptr_at(seg, next, (next_n - 2) * sizeof(long)),
                            add, 2,
                            DART_TYPE_LONG, DART_OP_SUM));
  ASSERT_OK(dart_flush(gptr_at(seg, next, 0)));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  int prev = (me + n - 1) % n;
  ASSERT_EQ(((long *)mine)[nl - 2], prev + 1);
  ASSERT_EQ(((long *)mine)[nl - 1], 10 * (prev + 1));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  ASSERT_OK(dart_op_destroy(&user_op));
  ASSERT_OK(dart_type_destroy(&custom));
  ASSERT_OK(dart_type_destroy(&strided));
  ASSERT_OK(dart_team_memfree(seg));
}

/* ---------------------------------------------------------------------
 * One buffer as operand and result: the calls do not forbid it, and the
 * answer must not depend on the path (between nodes MPI_Fetch_and_op and
 * MPI_Compare_and_swap want the buffers apart).
 * --------------------------------------------------------------------- */

static void test_aliased_buffers(void)
{
  static const dart_datatype_t sum_types[] = {
    DART_TYPE_SHORT, DART_TYPE_INT, DART_TYPE_LONG, DART_TYPE_ULONGLONG,
    DART_TYPE_FLOAT, DART_TYPE_DOUBLE, DART_TYPE_LONG_DOUBLE
  };
  static const dart_datatype_t cas_types[] = {
    DART_TYPE_BYTE, DART_TYPE_SHORT, DART_TYPE_INT, DART_TYPE_LONGLONG
  };
  enum { NSUM = sizeof sum_types / sizeof sum_types[0],
         NCAS = sizeof cas_types / sizeof cas_types[0],
         SLOTS = NSUM + 2 * NCAS, SLOT = 16 };
  /* Every unit owns a row of slots at the next unit: no contention. */
  const int owner = (me + 1) % n, writer = (me + n - 1) % n;
  dart_gptr_t seg;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, SLOTS * SLOT,
                                       DART_TYPE_BYTE, &seg));
  char *mine = local_base(seg, me);
  memset(mine, 0, SLOTS * SLOT);
  for (int k = 0; k < NSUM; ++k) {
    put_val(sum_types[k], mine + k * SLOT, 0, 100 + writer);
  }
  for (int k = 0; k < NCAS; ++k) {
    put_val(cas_types[k], mine + (NSUM + 2 * k) * SLOT, 0, 20 + writer);
    put_val(cas_types[k], mine + (NSUM + 2 * k + 1) * SLOT, 0, 40 + writer);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int k = 0; k < NSUM; ++k) {
    dart_datatype_t t = sum_types[k];
    STAGE("fetch-and-op SUM %s, operand and result one buffer", tname(t));
    unsigned char x[SLOT] = { 0 };
    put_val(t, x, 0, 7.5L); /* 7 for the integers */
    ASSERT_OK(dart_fetch_and_op(gptr_at(seg, owner, (uint64_t)k * SLOT), x,
                                x, t, DART_OP_SUM));
    ASSERT_MSG(get_val(t, x, 0) == 100 + me,
               "%s: fetched %Lg, not the old value %d", tname(t),
               get_val(t, x, 0), 100 + me);
  }
  for (int k = 0; k < NCAS; ++k) {
    dart_datatype_t t = cas_types[k];
    STAGE("compare-and-swap %s, result in the operand's or the compare's "
          "buffer", tname(t));
    unsigned char v[SLOT] = { 0 }, c[SLOT] = { 0 };
    put_val(t, v, 0, 30);
    put_val(t, c, 0, 20 + me);
    dart_gptr_t g = gptr_at(seg, owner, (uint64_t)(NSUM + 2 * k) * SLOT);
    ASSERT_OK(dart_compare_and_swap(g, v, c, v, t));
    ASSERT_EQ(get_val(t, v, 0), 20 + me);
    put_val(t, v, 0, 50);
    put_val(t, c, 0, 40 + me);
    g = gptr_at(seg, owner, (uint64_t)(NSUM + 2 * k + 1) * SLOT);
    ASSERT_OK(dart_compare_and_swap(g, v, c, c, t));
    ASSERT_EQ(get_val(t, c, 0), 40 + me);
  }
  ASSERT_OK(dart_flush_all(seg));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  STAGE("the owner's slots");
  for (int k = 0; k < NSUM; ++k) {
    unsigned char x[SLOT] = { 0 };
    put_val(sum_types[k], x, 0, 7.5L);
    long double expected = 100 + writer + get_val(sum_types[k], x, 0);
    ASSERT_MSG(get_val(sum_types[k], mine + k * SLOT, 0) == expected,
               "%s: %Lg after the SUM, not %Lg", tname(sum_types[k]),
               get_val(sum_types[k], mine + k * SLOT, 0), expected);
  }
  for (int k = 0; k < NCAS; ++k) {
    ASSERT_EQ(get_val(cas_types[k], mine + (NSUM + 2 * k) * SLOT, 0), 30);
    ASSERT_EQ(get_val(cas_types[k], mine + (NSUM + 2 * k + 1) * SLOT, 0),
              50);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(seg));
}

static const struct test_case cases[] = {
  { "cas_types", test_cas_types },
  { "errors", test_errors },
  { "aliased_buffers", test_aliased_buffers },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
