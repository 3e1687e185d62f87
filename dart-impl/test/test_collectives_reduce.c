/* Reductions (dart-if/include/dash/dart/if/dart_communication.h) with
 * every valid (type, op) pair of dart_types.h, MINMAX, and user operations
 * (commutative with userdata, non-commutative in team order). Shared part:
 * test_collectives_common.h. */
#include "test_collectives_common.h"

/* ---------------------------------------------------------------------
 * Predefined reductions: every valid (type, op) pair.
 * --------------------------------------------------------------------- */

enum kind { K_BYTE, K_SIGNED, K_UNSIGNED, K_FLOAT };
enum { MODE_ALL, MODE_ALL_IN_PLACE, MODE_ROOT };
static const char *const red_mode_name[] = { "allreduce",
                                             "allreduce in place",
                                             "reduce" };

static const char *op_name(dart_operation_t op)
{
  static const char *const names[DART_OP_LAST] = {
    [DART_OP_MIN] = "MIN",   [DART_OP_MAX] = "MAX",   [DART_OP_SUM] = "SUM",
    [DART_OP_PROD] = "PROD", [DART_OP_BAND] = "BAND", [DART_OP_LAND] = "LAND",
    [DART_OP_BOR] = "BOR",   [DART_OP_LOR] = "LOR",   [DART_OP_BXOR] = "BXOR",
    [DART_OP_LXOR] = "LXOR", [DART_OP_MINMAX] = "MINMAX",
  };
  return op < DART_OP_LAST && names[op] != NULL ? names[op] : "user/other";
}

/* Pseudo-random full-width bits for the bitwise operations. */
static unsigned long long mix(int u, size_t i)
{
  unsigned long long x = (unsigned long long)(u + 1) * 0x9E3779B97F4A7C15ULL;
  x ^= (unsigned long long)(i + 1) * 0xC2B2AE3D27D4EB4FULL;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 32;
  return x;
}

/* 1..23, distinct for the units of a team at every index. */
static int base23(int u, size_t i)
{
  return (int)((i * 13 + (size_t)u * 7) % 23) + 1;
}

/* Logical operands, by element class: all units true except unit j, only
 * unit j true, all true, none true (j = 0..3 along the elements), so a
 * missing contribution of any one unit changes some element. True is
 * u + 2, not 1, so that bitwise ops would give other results. */
static int logical_operand(int u, size_t i)
{
  int j = (int)((i / 4) % 4);
  switch (i % 4) {
  case 0:  return u == j ? 0 : u + 2;
  case 1:  return u == j ? u + 2 : 0;
  case 2:  return u + 2;
  default: return 0;
  }
}

static int prod_index(int u, size_t i)
{
  return (int)((i + (size_t)(2 * u + u * u)) % 6);
}

/* 2^(bits - drop) of an integer type, without shift warnings. */
#define POW2_OF(CT, drop, out)                                           \
  do {                                                                   \
    (out) = (CT)1;                                                       \
    for (int b_ = 0; b_ < (int)sizeof(CT) * 8 - (drop); ++b_) {          \
      (out) = (CT)((out) * 2);                                           \
    }                                                                    \
  } while (0)

/* Runs one reduction of `nelem` elements of `es` bytes in `mode` and
 * returns the result buffer; NULL off the root of a reduce, where the
 * receive buffer must stay untouched (and is passed as NULL for odd roots
 * when null_off_root: recvbuf is ignored there). `send` is only read (not
 * const: GCC's -Wmaybe-uninitialized takes the MINMAX operands, filled
 * pair by pair, for possibly unset). */
static void *run_reduction(const struct team_ctx *c, void *send,
                           size_t nelem, size_t es, dart_datatype_t t,
                           dart_operation_t op, int mode, int root,
                           bool null_off_root)
{
  size_t bytes = nelem * es;
  unsigned char *recv = xmalloc(bytes);
  memset(recv, POISON, bytes);
  if (mode == MODE_ALL) {
    ASSERT_OK(dart_allreduce(send, recv, nelem, t, op, c->team));
  } else if (mode == MODE_ALL_IN_PLACE) {
    memcpy(recv, send, bytes);
    ASSERT_OK(dart_allreduce(recv, recv, nelem, t, op, c->team));
  } else {
    bool off_root = c->me != root;
    void *dst = off_root && null_off_root && root % 2 == 1 ? NULL : recv;
    ASSERT_OK(dart_reduce(send, dst, nelem, t, op, DART_TEAM_UNIT_ID(root),
                          c->team));
    if (off_root) {
      ASSERT_POISON(recv, 0, bytes);
      free(recv);
      return NULL;
    }
  }
  return recv;
}

/* The check body shared by integer and floating reductions: unit me
 * contributes operand(op, me, i); the expected result folds all units'
 * operands with the same C operation. */
#define DEFINE_REDUCE_CHECK(SUF, CT)                                       \
  static void reduce_##SUF(const struct team_ctx *c, dart_datatype_t t,   \
                           dart_operation_t op, size_t nelem, int mode,   \
                           int root)                                      \
  {                                                                        \
    CT *send = xmalloc(nelem * sizeof(CT));                                \
    CT *want = xmalloc(nelem * sizeof(CT));                                \
    for (size_t i = 0; i < nelem; ++i) {                                   \
      send[i] = operand_##SUF(op, c->me, i);                               \
      want[i] = operand_##SUF(op, 0, i);                                   \
      for (int u = 1; u < c->n; ++u) {                                     \
        want[i] = fold_##SUF(op, want[i], operand_##SUF(op, u, i));        \
      }                                                                    \
    }                                                                      \
    CT *recv = run_reduction(c, send, nelem, sizeof(CT), t, op, mode, root, \
                             true);                                        \
    for (size_t i = 0; i < nelem; ++i) {                                   \
      if (send[i] != operand_##SUF(op, c->me, i)) {                        \
        FAILF("sendbuf element %zu was modified", i);                      \
      }                                                                    \
      if (recv != NULL && recv[i] != want[i]) {                            \
        FAILF("element %zu: got %Lg, expected %Lg", i,                     \
              (long double)recv[i], (long double)want[i]);                 \
      }                                                                    \
    }                                                                      \
    free(send);                                                            \
    free(recv);                                                            \
    free(want);                                                            \
  }

#define DEFINE_INT_REDUCTION(SUF, CT, KIND)                                \
  static CT operand_##SUF(dart_operation_t op, int u, size_t i)           \
  {                                                                        \
    switch (op) {                                                          \
    case DART_OP_BAND: case DART_OP_BOR: case DART_OP_BXOR:                \
      return (CT)mix(u, i);                                                \
    case DART_OP_LAND: case DART_OP_LOR: case DART_OP_LXOR:                \
      return (CT)logical_operand(u, i);                                    \
    case DART_OP_PROD: {                                                   \
      static const int sv[6] = { -3, 2, -1, 3, 1, -2 };                    \
      static const int uv[6] = { 3, 1, 2, 7, 5, 4 };                       \
      int p = prod_index(u, i);                                            \
      return (CT)((KIND) == K_UNSIGNED ? uv[p] : sv[p]);                   \
    }                                                                      \
    default: { /* MIN, MAX, SUM: high bits in use, low bits too */         \
      CT scale;                                                            \
      POW2_OF(CT, 10, scale);                                              \
      int a = base23(u, i);                                                \
      if ((KIND) == K_SIGNED) {                                            \
        return (CT)((CT)(a - 12) * scale + (CT)(i % 7));                   \
      }                                                                    \
      CT v = (CT)((CT)a * scale + (CT)(i % 7));                            \
      if (op != DART_OP_SUM && (i + (size_t)u) % 3 == 0) {                 \
        v = (CT)(v | (CT)(scale * 512)); /* the top bit */                 \
      }                                                                    \
      return v;                                                            \
    }                                                                      \
    }                                                                      \
  }                                                                        \
  static CT fold_##SUF(dart_operation_t op, CT acc, CT v)                  \
  {                                                                        \
    switch (op) {                                                          \
    case DART_OP_MIN:  return v < acc ? v : acc;                           \
    case DART_OP_MAX:  return v > acc ? v : acc;                           \
    case DART_OP_SUM:  return (CT)(acc + v);                               \
    case DART_OP_PROD: return (CT)(acc * v);                               \
    case DART_OP_BAND: return (CT)(acc & v);                               \
    case DART_OP_BOR:  return (CT)(acc | v);                               \
    case DART_OP_BXOR: return (CT)(acc ^ v);                               \
    case DART_OP_LAND: return (CT)(acc && v);                              \
    case DART_OP_LOR:  return (CT)(acc || v);                              \
    case DART_OP_LXOR: return (CT)(!acc != !v);                            \
    default:           ASSERT(!"fold: unexpected op");                \
    }                                                                      \
    return acc;                                                            \
  }                                                                        \
  DEFINE_REDUCE_CHECK(SUF, CT)

#define DEFINE_FLOAT_REDUCTION(SUF, CT)                                    \
  static CT operand_##SUF(dart_operation_t op, int u, size_t i)           \
  {                                                                        \
    if (op == DART_OP_PROD) {                                              \
      static const double fv[6] = { -1.5, 2.0, 0.25, -0.5, 3.0, 1.0 };     \
      return (CT)fv[prod_index(u, i)];                                     \
    }                                                                      \
    return (CT)((base23(u, i) - 12) + 0.25 * (double)((i + (size_t)u) % 4)); \
  }                                                                        \
  static CT fold_##SUF(dart_operation_t op, CT acc, CT v)                  \
  {                                                                        \
    switch (op) {                                                          \
    case DART_OP_MIN:  return v < acc ? v : acc;                           \
    case DART_OP_MAX:  return v > acc ? v : acc;                           \
    case DART_OP_SUM:  return acc + v;                                     \
    case DART_OP_PROD: return acc * v;                                     \
    default:           ASSERT(!"fold: unexpected op");                \
    }                                                                      \
    return acc;                                                            \
  }                                                                        \
  DEFINE_REDUCE_CHECK(SUF, CT)

DEFINE_INT_REDUCTION(byte, char, K_BYTE)
DEFINE_INT_REDUCTION(short, short, K_SIGNED)
DEFINE_INT_REDUCTION(int, int, K_SIGNED)
DEFINE_INT_REDUCTION(uint, unsigned int, K_UNSIGNED)
DEFINE_INT_REDUCTION(long, long, K_SIGNED)
DEFINE_INT_REDUCTION(ulong, unsigned long, K_UNSIGNED)
DEFINE_INT_REDUCTION(longlong, long long, K_SIGNED)
DEFINE_INT_REDUCTION(ulonglong, unsigned long long, K_UNSIGNED)
DEFINE_FLOAT_REDUCTION(float, float)
DEFINE_FLOAT_REDUCTION(double, double)
DEFINE_FLOAT_REDUCTION(long_double, long double)

typedef void (*reduce_fn)(const struct team_ctx *, dart_datatype_t,
                          dart_operation_t, size_t, int, int);

static const struct {
  dart_datatype_t type;
  enum kind       kind;
  reduce_fn       run;
} reducers[TEST_NBASIC] = {
  { DART_TYPE_BYTE, K_BYTE, reduce_byte },
  { DART_TYPE_SHORT, K_SIGNED, reduce_short },
  { DART_TYPE_INT, K_SIGNED, reduce_int },
  { DART_TYPE_UINT, K_UNSIGNED, reduce_uint },
  { DART_TYPE_LONG, K_SIGNED, reduce_long },
  { DART_TYPE_ULONG, K_UNSIGNED, reduce_ulong },
  { DART_TYPE_LONGLONG, K_SIGNED, reduce_longlong },
  { DART_TYPE_ULONGLONG, K_UNSIGNED, reduce_ulonglong },
  { DART_TYPE_FLOAT, K_FLOAT, reduce_float },
  { DART_TYPE_DOUBLE, K_FLOAT, reduce_double },
  { DART_TYPE_LONG_DOUBLE, K_FLOAT, reduce_long_double },
};

/* The valid operations of each kind of type: all of them on integers,
 * the arithmetic ones on floating types, the bitwise ones on BYTE. */
static const dart_operation_t integer_ops[] = {
  DART_OP_MIN,  DART_OP_MAX, DART_OP_SUM,  DART_OP_PROD, DART_OP_BAND,
  DART_OP_BOR,  DART_OP_BXOR, DART_OP_LAND, DART_OP_LOR, DART_OP_LXOR
};
static const struct {
  const dart_operation_t *ops;
  size_t                  nops;
} ops_of[] = {
  [K_BYTE] = { integer_ops + 4, 3 }, /* BAND, BOR, BXOR */
  [K_SIGNED] = { integer_ops, 10 },
  [K_UNSIGNED] = { integer_ops, 10 },
  [K_FLOAT] = { integer_ops, 4 }, /* MIN, MAX, SUM, PROD */
};

static void test_reductions(const struct team_ctx *c)
{
  for (size_t r = 0; r < TEST_NBASIC; ++r) {
    const dart_operation_t *ops = ops_of[reducers[r].kind].ops;
    size_t nops = ops_of[reducers[r].kind].nops;
    /* Each pair through dart_allreduce (separate buffers or in place,
     * alternating; the type's first op with a count above the limit of
     * the countlimit runs) and through dart_reduce (roots rotating). A
     * sub-team checks one op per type. */
    for (size_t o = 0; o < nops; ++o) {
      if (!c->full && o != r % nops) {
        continue;
      }
      size_t nelem = o == 0 ? 10 : 6;
      int mode = (r + o) % 2 ? MODE_ALL_IN_PLACE : MODE_ALL;
      int root = (int)((r + o) % (size_t)c->n);
      STAGE("%s: %s %s %s nelem %zu", c->label, red_mode_name[mode],
            tname(reducers[r].type), op_name(ops[o]), nelem);
      reducers[r].run(c, reducers[r].type, ops[o], nelem, mode, root);
      STAGE("%s: reduce %s %s nelem 5 root %d", c->label,
            tname(reducers[r].type), op_name(ops[o]), root);
      reducers[r].run(c, reducers[r].type, ops[o], 5, MODE_ROOT, root);
    }
  }
  /* Larger ones: several chunks when the count limit is 7. */
  STAGE("%s: larger reductions", c->label);
  reduce_int(c, DART_TYPE_INT, DART_OP_SUM, 50, MODE_ALL, 0);
  reduce_longlong(c, DART_TYPE_LONGLONG, DART_OP_BXOR, 43, MODE_ROOT,
                  c->n - 1);
  reduce_double(c, DART_TYPE_DOUBLE, DART_OP_PROD, 45, MODE_ALL_IN_PLACE,
                0);
  reduce_ulonglong(c, DART_TYPE_ULONGLONG, DART_OP_MIN, 1, MODE_ALL, 0);
}

/* ---------------------------------------------------------------------
 * DART_OP_MINMAX: (min, max) pairs.
 * --------------------------------------------------------------------- */

static int mm_base_min(int u, size_t k)
{
  return (int)((k * 7 + (size_t)u * 5 + 3) % 31);
}

static int mm_base_max(int u, size_t k)
{
  return (int)((k * 11 + (size_t)u * 13 + 1) % 31);
}

/* Maps 0..30 into the type: negative chars for BYTE (compared as char),
 * values above the signed range for the unsigned types, the full
 * magnitude for the signed ones, fractions for the floating ones. */
#define DEFINE_MINMAX(SUF, CT, KIND)                                       \
  static CT mm_value_##SUF(int b)                                          \
  {                                                                        \
    CT scale;                                                              \
    switch (KIND) {                                                        \
    case K_BYTE:                                                           \
      return (CT)((b - 15) * 8);                                           \
    case K_SIGNED:                                                         \
      POW2_OF(CT, 6, scale);                                               \
      return (CT)((CT)(b - 15) * scale + (CT)b);                           \
    case K_UNSIGNED:                                                       \
      POW2_OF(CT, 5, scale);                                               \
      return (CT)((CT)b * scale + (CT)b);                                  \
    default:                                                               \
      return (CT)((b - 15) * 0.75);                                        \
    }                                                                      \
  }                                                                        \
  static void minmax_##SUF(const struct team_ctx *c, dart_datatype_t t,   \
                           size_t pairs, int mode, int root)               \
  {                                                                        \
    size_t nelem = 2 * pairs, bytes = nelem * sizeof(CT);                  \
    CT *send = xmalloc(bytes), *want = xmalloc(bytes);                     \
    for (size_t k = 0; k < pairs; ++k) {                                   \
      CT *s = send + 2 * k, *w = want + 2 * k;                             \
      s[DART_OP_MINMAX_MIN] = mm_value_##SUF(mm_base_min(c->me, k));       \
      s[DART_OP_MINMAX_MAX] = mm_value_##SUF(mm_base_max(c->me, k));       \
      w[DART_OP_MINMAX_MIN] = mm_value_##SUF(mm_base_min(0, k));           \
      w[DART_OP_MINMAX_MAX] = mm_value_##SUF(mm_base_max(0, k));           \
      for (int u = 1; u < c->n; ++u) {                                     \
        CT lo = mm_value_##SUF(mm_base_min(u, k));                         \
        CT hi = mm_value_##SUF(mm_base_max(u, k));                         \
        if (lo < w[DART_OP_MINMAX_MIN]) {                                  \
          w[DART_OP_MINMAX_MIN] = lo;                                      \
        }                                                                  \
        if (hi > w[DART_OP_MINMAX_MAX]) {                                  \
          w[DART_OP_MINMAX_MAX] = hi;                                      \
        }                                                                  \
      }                                                                    \
    }                                                                      \
    CT *recv = run_reduction(c, send, nelem, sizeof(CT), t, DART_OP_MINMAX,  \
                             mode, root, false);                           \
    for (size_t i = 0; recv != NULL && i < nelem; ++i) {                   \
      if (recv[i] != want[i]) {                                            \
        FAILF("element %zu (%s of pair %zu): got %Lg, expected %Lg", i,    \
              i % 2 ? "max" : "min", i / 2, (long double)recv[i],          \
              (long double)want[i]);                                       \
      }                                                                    \
    }                                                                      \
    free(send);                                                            \
    free(recv);                                                            \
    free(want);                                                            \
  }

DEFINE_MINMAX(byte, char, K_BYTE)
DEFINE_MINMAX(short, short, K_SIGNED)
DEFINE_MINMAX(int, int, K_SIGNED)
DEFINE_MINMAX(uint, unsigned int, K_UNSIGNED)
DEFINE_MINMAX(long, long, K_SIGNED)
DEFINE_MINMAX(ulong, unsigned long, K_UNSIGNED)
DEFINE_MINMAX(longlong, long long, K_SIGNED)
DEFINE_MINMAX(ulonglong, unsigned long long, K_UNSIGNED)
DEFINE_MINMAX(float, float, K_FLOAT)
DEFINE_MINMAX(double, double, K_FLOAT)
DEFINE_MINMAX(long_double, long double, K_FLOAT)

typedef void (*minmax_fn)(const struct team_ctx *, dart_datatype_t, size_t,
                          int, int);
static const minmax_fn minmax_of[TEST_NBASIC] = {
  minmax_byte,     minmax_short,     minmax_int,       minmax_uint,
  minmax_long,     minmax_ulong,     minmax_longlong,  minmax_ulonglong,
  minmax_float,    minmax_double,    minmax_long_double
};

static void test_minmax(const struct team_ctx *c)
{
  /* Every type, 3 pairs, modes rotating. */
  for (int ti = 0; c->full && ti < TEST_NBASIC; ++ti) {
    int mode = ti % 3, root = (ti + 1) % c->n;
    STAGE("%s: %s MINMAX %s, 3 pairs, root %d", c->label,
          red_mode_name[mode], tname(test_basic_types[ti]), root);
    minmax_of[ti](c, test_basic_types[ti], 3, mode, root);
  }
  /* 10 pairs (two chunks at count limit 7) in every mode. */
  for (int mode = MODE_ALL; mode <= MODE_ROOT; ++mode) {
    int root = c->n - 1 - mode % c->n;
    STAGE("%s: %s MINMAX BYTE/DOUBLE/ULONGLONG, 10 pairs, root %d",
          c->label, red_mode_name[mode], root);
    minmax_byte(c, DART_TYPE_BYTE, 10, mode, root);
    minmax_double(c, DART_TYPE_DOUBLE, 10, mode, root);
    minmax_ulonglong(c, DART_TYPE_ULONGLONG, 10, mode, root);
  }
  STAGE("%s: MINMAX LONG_DOUBLE, 25 pairs", c->label);
  minmax_long_double(c, DART_TYPE_LONG_DOUBLE, 25, MODE_ALL, 0);
}

static void test_user_ops(const struct team_ctx *c)
{
  static const size_t nelems[] = { 3, 10 };
  ASSERT_EQ(concat2(12, 134), 1234);
  ASSERT_EQ(concat2(concat2(15, 167), 10), 15670);
  for (int ci = 0; ci < 2; ++ci) {
    size_t nelem = nelems[ci];
    for (int mode = MODE_ALL; mode <= MODE_ROOT; ++mode) {
      int root = mode == MODE_ROOT ? (ci % 2 == 0 ? c->n - 1 : 0) : -1;

      /* Commutative user op on the custom type, with userdata. */
      STAGE("%s: %s user op on custom(12), nelem %zu, root %d", c->label,
            red_mode_name[mode], nelem, root);
      struct triple *ts = xmalloc(nelem * sizeof *ts);
      for (size_t i = 0; i < nelem; ++i) {
        ts[i] = triple_operand(c->me, i);
      }
      triple_data.calls = 0;
      struct triple *tr = run_reduction(c, ts, nelem, sizeof *ts, triple_type,
                                        triple_op, mode, root, false);
      for (size_t i = 0; tr != NULL && i < nelem; ++i) {
        struct triple w = triple_operand(0, i);
        for (int u = 1; u < c->n; ++u) {
          struct triple v = triple_operand(u, i);
          w.a += v.a;
          w.b = v.b > w.b ? v.b : w.b;
          w.c = (w.c + v.c) % triple_data.modulus;
        }
        if (tr[i].a != w.a || tr[i].b != w.b || tr[i].c != w.c) {
          FAILF("element %zu: got {%d,%d,%d}, expected "
                "{%d,%d,%d}", i, tr[i].a, tr[i].b, tr[i].c, w.a, w.b,
                w.c);
        }
      }
      /* Somebody must have called the operation (with our userdata). */
      int calls = 0;
      ASSERT_OK(dart_allreduce(&triple_data.calls, &calls, 1, DART_TYPE_INT,
                               DART_OP_SUM, c->team));
      if (c->n > 1) {
        ASSERT(calls >= 1);
      }
      free(ts);
      free(tr);

      /* Non-commutative on LONGLONG: team order. */
      STAGE("%s: %s non-commutative concat on LONGLONG, nelem %zu, "
            "root %d", c->label, red_mode_name[mode], nelem, root);
      long long *ls = xmalloc(nelem * sizeof *ls);
      for (size_t i = 0; i < nelem; ++i) {
        ls[i] = concat_operand(c->me, i);
      }
      long long *lr = run_reduction(c, ls, nelem, sizeof *ls,
                                    DART_TYPE_LONGLONG, concat_op, mode, root,
                                    false);
      for (size_t i = 0; lr != NULL && i < nelem; ++i) {
        long long w = concat_operand(0, i);
        for (int u = 1; u < c->n; ++u) {
          w = concat2(w, concat_operand(u, i));
        }
        if (lr[i] != w) {
          FAILF("element %zu: got %lld, expected %lld "
                "(team order)", i, lr[i], w);
        }
      }
      free(ls);
      free(lr);

      /* Non-commutative on a custom type: matrix product in team order. */
      STAGE("%s: %s non-commutative 2x2 product on custom(32), nelem %zu, "
            "root %d", c->label, red_mode_name[mode], nelem, root);
      struct mat2 *ms = xmalloc(nelem * sizeof *ms);
      for (size_t i = 0; i < nelem; ++i) {
        ms[i] = mat_operand(c->me, i);
      }
      struct mat2 *mr = run_reduction(c, ms, nelem, sizeof *ms, mat_type,
                                      mat_op, mode, root, false);
      for (size_t i = 0; mr != NULL && i < nelem; ++i) {
        struct mat2 w = mat_operand(0, i);
        for (int u = 1; u < c->n; ++u) {
          struct mat2 v = mat_operand(u, i);
          mat_mul(&w, &v, &w);
        }
        for (int e = 0; e < 4; ++e) {
          if (mr[i].m[e] != w.m[e]) {
            FAILF("element %zu entry %d: got %ld, expected "
                  "%ld (team order)", i, e, mr[i].m[e], w.m[e]);
          }
        }
      }
      free(ms);
      free(mr);
    }
  }
}

static void reductions_on(const struct team_ctx *c)
{
  test_reductions(c);
  test_minmax(c);
}

static void user_ops_on(const struct team_ctx *c)
{
  test_user_ops(c);
  test_barrier(c);
}

static void reductions(void) { on_both_teams(reductions_on); }
static void user_ops(void) { on_both_teams(user_ops_on); }

static const struct test_case cases[] = {
  { "reductions", reductions },
  { "user_ops", user_ops },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
