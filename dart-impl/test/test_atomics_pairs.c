/* Atomics, every valid (basic type, operation) pair of
 * dart-if/include/dash/dart/if/dart_types.h with dart_accumulate,
 * dart_accumulate_blocking_local (several elements) and dart_fetch_and_op
 * from all units onto one element: unsigned MIN/MAX above 2^31 and 2^63
 * (the MPIs here order them as signed, the runtime must not), NO_OP
 * reads, REPLACE swaps, long double. Each result is checked against a
 * model of the operation written out here, independently of the runtime.
 * replace_edges swaps signed zeros, NaNs and infinities in with REPLACE,
 * bit for bit, in every floating type; minmax_edges applies MIN and MAX
 * to them.
 * Shared part: test_atomics_common.h.
 *
 * Operands are chosen so the final value is exact whatever the order in
 * which the units' operations land; every fetched value must be the
 * initial value combined with some subset of the other units' operands. */
#include "test_atomics_common.h"

static const dart_operation_t atomic_ops[] = {
  DART_OP_MIN,  DART_OP_MAX,  DART_OP_SUM,  DART_OP_PROD,
  DART_OP_BAND, DART_OP_LAND, DART_OP_BOR,  DART_OP_LOR,
  DART_OP_BXOR, DART_OP_LXOR, DART_OP_REPLACE, DART_OP_NO_OP
};
#define NOPS (sizeof atomic_ops / sizeof *atomic_ops)

static const char *oname(dart_operation_t op)
{
  static const char *names[] = { "UNDEFINED", "MIN", "MAX", "MINMAX", "SUM",
                                 "PROD", "BAND", "LAND", "BOR", "LOR",
                                 "BXOR", "LXOR", "REPLACE", "NO_OP" };
  return op < DART_OP_LAST ? names[op] : "user";
}

static bool is_unsigned(dart_datatype_t t)
{
  return t == DART_TYPE_UINT || t == DART_TYPE_ULONG ||
         t == DART_TYPE_ULONGLONG;
}

static bool is_floating(dart_datatype_t t)
{
  return t == DART_TYPE_FLOAT || t == DART_TYPE_DOUBLE ||
         t == DART_TYPE_LONG_DOUBLE;
}

/* The valid pairs of dart-if/include/dash/dart/if/dart_types.h, written
 * out independently of the runtime. */
static bool valid_atomic(dart_datatype_t t, dart_operation_t op)
{
  switch (op) {
  case DART_OP_MIN: case DART_OP_MAX: case DART_OP_SUM: case DART_OP_PROD:
    return t != DART_TYPE_BYTE;
  case DART_OP_BAND: case DART_OP_BOR: case DART_OP_BXOR:
    return !is_floating(t);
  case DART_OP_LAND: case DART_OP_LOR: case DART_OP_LXOR:
    return !is_floating(t) && t != DART_TYPE_BYTE;
  case DART_OP_REPLACE: case DART_OP_NO_OP:
    return true;
  default:
    return false;
  }
}

static unsigned long long mask_of(dart_datatype_t t)
{
  return width(t) >= 64 ? ~0ULL : (1ULL << width(t)) - 1;
}

static unsigned long long to_bits(dart_datatype_t t, long double v)
{
  unsigned long long b = is_unsigned(t) ? (unsigned long long)v
                                        : (unsigned long long)(long long)v;
  return b & mask_of(t);
}

/* 2^(w-1) for an unsigned type of w bits: the first value a signed
 * comparison orders wrongly. */
static long double top(dart_datatype_t t)
{
  return (long double)(1ULL << (width(t) - 1));
}

/* Initial value of element i and the operand of unit u for element i. */
static long double initial(dart_datatype_t t, dart_operation_t op, int i)
{
  int w = width(t);
  switch (op) {
  case DART_OP_SUM:
    return is_floating(t) ? 0.5L + i
           : is_unsigned(t) ? top(t) + 5 + i : -7 + i;
  case DART_OP_PROD:
    return is_floating(t) ? 1.5L + i : is_unsigned(t) ? 3 + i : -3 - i;
  case DART_OP_MIN:
    return is_floating(t) ? 1000.25L - i
           : is_unsigned(t) ? 2 * top(t) - 1 - i : 100 + i;
  case DART_OP_MAX:
    return is_floating(t) ? -1000.5L + i
           : is_unsigned(t) ? top(t) - 1 - i : -100 - i;
  case DART_OP_BAND: return from_bits(t, ~0ULL & mask_of(t));
  case DART_OP_BOR:  return from_bits(t, 1ULL << (w - 1));
  case DART_OP_BXOR: return from_bits(t, 0x5a5a5a5a5a5a5a5aULL & mask_of(t));
  case DART_OP_LAND: return i == 2 ? 0 : 7;
  case DART_OP_LOR:  return i == 2 ? 4 : 0;
  case DART_OP_LXOR: return i == 0 ? 3 : 0;
  case DART_OP_REPLACE:
    return is_unsigned(t) ? top(t) + 1 : t == DART_TYPE_BYTE ? 1 : -1;
  default: /* NO_OP */
    return 42 + i;
  }
}

static long double operand(dart_datatype_t t, dart_operation_t op, int u,
                           int i)
{
  int w = width(t);
  switch (op) {
  case DART_OP_SUM:
    return is_floating(t) ? 0.25L * (u + 1) + i
           : is_unsigned(t) ? u + 1 + 2 * i
           : (u % 2 ? -(u + 1) : 3 * (u + 1)) + i;
  case DART_OP_PROD:
    return is_floating(t) ? 0.5L * (u % 3 + 1)
           : is_unsigned(t) ? u % 3 + 1 : (u % 2 ? -1 : 1) * (u % 3 + 1);
  case DART_OP_MIN:
    return is_floating(t) ? 10.5L - 3.75L * u - i
           : is_unsigned(t) ? (u == 0 ? top(t) - 16 - i : top(t) + 7 * u + i)
           : 50 - 37 * u - i;
  case DART_OP_MAX:
    return is_floating(t) ? -10.25L + 3.5L * u + i
           : is_unsigned(t) ? top(t) + 5 * u + 1 + i : -50 + 37 * u + i;
  case DART_OP_BAND:
    return from_bits(t, ~(1ULL << ((u * 3 + i) % w)) & mask_of(t));
  case DART_OP_BOR:
    return from_bits(t, 1ULL << ((u * 2 + i) % (w - 1)));
  case DART_OP_BXOR:
    return from_bits(t, ((0x1111ULL * (unsigned)(u + 1)) << i) & mask_of(t));
  case DART_OP_LAND: return i == 1 && u == n - 1 ? 0 : u + 2;
  case DART_OP_LOR:  return i == 0 && u == n - 1 ? 9 : 0;
  case DART_OP_LXOR: return i == 0 ? (u % 2 ? 6 : 0) : i == 1 ? 2 : 0;
  case DART_OP_REPLACE:
    return is_floating(t) ? 1000.5L + 10 * u + i
           : t == DART_TYPE_BYTE ? 10 + 10 * u + i
           : is_unsigned(t) ? top(t) + 100 + 10 * u + i : -1000 - 10 * u - i;
  default: /* NO_OP: ignored */
    return 77;
  }
}

static long double apply(dart_datatype_t t, dart_operation_t op,
                         long double acc, long double v)
{
  switch (op) {
  case DART_OP_MIN:  return v < acc ? v : acc;
  case DART_OP_MAX:  return v > acc ? v : acc;
  case DART_OP_SUM:  return acc + v;
  case DART_OP_PROD: return acc * v;
  case DART_OP_BAND: return from_bits(t, to_bits(t, acc) & to_bits(t, v));
  case DART_OP_BOR:  return from_bits(t, to_bits(t, acc) | to_bits(t, v));
  case DART_OP_BXOR: return from_bits(t, to_bits(t, acc) ^ to_bits(t, v));
  case DART_OP_LAND: return acc != 0 && v != 0;
  case DART_OP_LOR:  return acc != 0 || v != 0;
  case DART_OP_LXOR: return (acc != 0) != (v != 0);
  case DART_OP_REPLACE: return v;
  default:           return acc;
  }
}

/* Initial value combined with the operands of the units in `units`. */
static long double fold(dart_datatype_t t, dart_operation_t op, int i,
                        unsigned units)
{
  long double acc = initial(t, op, i);
  for (int u = 0; u < n; ++u) {
    if (units & (1u << u)) {
      acc = apply(t, op, acc, operand(t, op, u, i));
    }
  }
  return acc;
}

/* The final value once every unit applied its operand; for REPLACE any
 * unit's operand may be last. */
static bool final_ok(dart_datatype_t t, dart_operation_t op, int i,
                     long double got)
{
  if (op == DART_OP_REPLACE) {
    for (int u = 0; u < n; ++u) {
      if (got == operand(t, op, u, i)) {
        return true;
      }
    }
    return false;
  }
  return got == fold(t, op, i, (1u << n) - 1);
}

/* A value fetched by unit `self`: the initial value combined with the
 * operands of some subset of the other units. */
static bool fetched_ok(dart_datatype_t t, dart_operation_t op, int i,
                       int self, long double got)
{
  for (unsigned s = 0; s < (1u << n); ++s) {
    if (s & (1u << self)) {
      continue;
    }
    if (op == DART_OP_REPLACE) {
      if (got == initial(t, op, i)) {
        return true;
      }
      for (int u = 0; u < n; ++u) {
        if ((s & (1u << u)) && got == operand(t, op, u, i)) {
          return true;
        }
      }
    } else if (got == fold(t, op, i, s)) {
      return true;
    }
  }
  return false;
}

/* ---------------------------------------------------------------------
 * Every (type, op) pair: accumulate, accumulate_blocking_local and
 * fetch_and_op from all units onto one element.
 * --------------------------------------------------------------------- */

#define SLOT_BYTES 64 /* element A at 0, elements B[0..2] at 16 */
#define NB 3

struct combo {
  dart_datatype_t  type;
  dart_operation_t op;
  int              target;
};

static int make_combos(struct combo *out)
{
  int k = 0;
  for (int ti = 0; ti < TEST_NBASIC; ++ti) {
    for (size_t oi = 0; oi < NOPS; ++oi) {
      if (valid_atomic(test_basic_types[ti], atomic_ops[oi])) {
        out[k] = (struct combo){ test_basic_types[ti], atomic_ops[oi], k % n };
        ++k;
      }
    }
  }
  return k;
}

static void init_owned(const struct combo *cs, int ncombos, char *mine)
{
  for (int c = 0; c < ncombos; ++c) {
    if (cs[c].target != me) {
      continue;
    }
    char *slot = mine + (size_t)c * SLOT_BYTES;
    memset(slot, POISON, SLOT_BYTES);
    put_val(cs[c].type, slot, 0, initial(cs[c].type, cs[c].op, 0));
    for (int i = 0; i < NB; ++i) {
      put_val(cs[c].type, slot + 16, (size_t)i,
              initial(cs[c].type, cs[c].op, i));
    }
  }
}

#define check_owned(...) check_owned_at(__FILE__, __LINE__, __VA_ARGS__)
static void check_owned_at(const char *file, int line, const struct combo *cs,
                           int ncombos,
                        const char *mine, bool with_b)
{
  for (int c = 0; c < ncombos; ++c) {
    if (cs[c].target != me) {
      continue;
    }
    dart_datatype_t t = cs[c].type;
    const char *slot = mine + (size_t)c * SLOT_BYTES;
    long double got = get_val(t, slot, 0);
    if (!final_ok(t, cs[c].op, 0, got)) {
      test_failf(file, line, "%s %s: final %.21Lg, expected %.21Lg", tname(t),
                 oname(cs[c].op), got, fold(t, cs[c].op, 0, (1u << n) - 1));
    }
    test_check_poison(file, line, slot, tsize(t), 16 - tsize(t));
    for (int i = 0; with_b && i < NB; ++i) {
      got = get_val(t, slot + 16, (size_t)i);
      if (!final_ok(t, cs[c].op, i, got)) {
        test_failf(file, line,
                   "%s %s element %d of 3: final %.21Lg, expected %.21Lg",
                   tname(t), oname(cs[c].op), i, got,
                   fold(t, cs[c].op, i, (1u << n) - 1));
      }
    }
    test_check_poison(file, line, slot, 16 + NB * tsize(t),
                      SLOT_BYTES - 16 - NB * tsize(t));
  }
}

static void test_all_pairs(void)
{
  struct combo cs[TEST_NBASIC * NOPS];
  int ncombos = make_combos(cs);
  ASSERT_EQ(ncombos, 7 * 12 + 3 * 6 + 5);
  dart_gptr_t seg;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL,
                                       (size_t)ncombos * SLOT_BYTES,
                                       DART_TYPE_BYTE, &seg));
  char *mine = local_base(seg, me);
  /* Operands stay untouched until the flush (dart_accumulate in
   * dart-if/include/dash/dart/if/dart_communication.h). */
  unsigned char (*ops)[SLOT_BYTES] = xmalloc((size_t)ncombos * SLOT_BYTES);

  STAGE("accumulate: every (type, op) pair");
  init_owned(cs, ncombos, mine);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int c = 0; c < ncombos; ++c) {
    dart_datatype_t t = cs[c].type;
    dart_operation_t op = cs[c].op;
    STAGE("accumulate %s %s onto unit %d", tname(t), oname(op),
          cs[c].target);
    put_val(t, ops[c], 0, operand(t, op, me, 0));
    dart_gptr_t g = gptr_at(seg, cs[c].target, (size_t)c * SLOT_BYTES);
    ASSERT_OK(dart_accumulate(g, ops[c], 1, t, op));
    _Alignas(16) unsigned char vals[3 * 16];
    for (int i = 0; i < NB; ++i) {
      put_val(t, vals, (size_t)i, operand(t, op, me, i));
    }
    g.addr_or_offs.offset += 16;
    ASSERT_OK(dart_accumulate_blocking_local(g, vals, NB, t, op));
    memset(vals, 0, sizeof vals); /* reusable at once */
  }
  ASSERT_OK(dart_flush_all(seg));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  STAGE("accumulate: final values");
  check_owned(cs, ncombos, mine, true);

  /* The next unit after the owner reads every result back: NO_OP fetch
   * (atomic read) of A, plain get of B. */
  for (int c = 0; c < ncombos; ++c) {
    dart_datatype_t t = cs[c].type;
    if ((cs[c].target + 1) % n != me) {
      continue;
    }
    STAGE("read back %s %s from unit %d", tname(t), oname(cs[c].op),
          cs[c].target);
    dart_gptr_t g = gptr_at(seg, cs[c].target, (size_t)c * SLOT_BYTES);
    _Alignas(16) unsigned char res[16], dummy[16], vals[3 * 16];
    memset(res, POISON, sizeof res);
    memset(dummy, 0, sizeof dummy);
    ASSERT_OK(dart_fetch_and_op(g, dummy, res, t, DART_OP_NO_OP));
    ASSERT_OK(dart_flush_local(g));
    ASSERT(final_ok(t, cs[c].op, 0, get_val(t, res, 0)));
    ASSERT_POISON(res, tsize(t), sizeof res - tsize(t));
    g.addr_or_offs.offset += 16;
    ASSERT_OK(dart_get_blocking(vals, g, NB, t, t));
    for (int i = 0; i < NB; ++i) {
      ASSERT(final_ok(t, cs[c].op, i, get_val(t, vals, (size_t)i)));
    }
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  /* fetch_and_op: each fetched value is the initial one combined with
   * what some of the others applied before me. */
  STAGE("fetch_and_op: every (type, op) pair");
  init_owned(cs, ncombos, mine);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  unsigned char (*res)[16] = xmalloc((size_t)ncombos * 16);
  memset(res, POISON, (size_t)ncombos * 16);
  for (int c = 0; c < ncombos; ++c) {
    dart_datatype_t t = cs[c].type;
    put_val(t, ops[c], 0, operand(t, cs[c].op, me, 0));
    dart_gptr_t g = gptr_at(seg, cs[c].target, (size_t)c * SLOT_BYTES);
    ASSERT_OK(dart_fetch_and_op(g, ops[c], res[c], t, cs[c].op));
    if (c % 2 == 0) {
      ASSERT_OK(dart_flush_local(g));
    }
  }
  ASSERT_OK(dart_flush_local_all(seg));
  for (int c = 0; c < ncombos; ++c) {
    dart_datatype_t t = cs[c].type;
    long double got = get_val(t, res[c], 0);
    STAGE("fetch_and_op %s %s onto unit %d", tname(t), oname(cs[c].op),
          cs[c].target);
    if (!fetched_ok(t, cs[c].op, 0, me, got)) {
      FAILF("fetched %.21Lg: not the initial value %.21Lg "
            "combined with other units' operands", got,
            initial(t, cs[c].op, 0));
    }
    ASSERT_POISON(res[c], tsize(t), 16 - tsize(t));
  }
  ASSERT_OK(dart_flush_all(seg));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  STAGE("fetch_and_op: final values");
  check_owned(cs, ncombos, mine, false);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  free(res);
  free(ops);
  ASSERT_OK(dart_team_memfree(seg));
}

/* REPLACE through every floating type with the values whose order is
 * not total: signed zeros, NaNs of either sign with payloads, infinities.
 * Where MPI_Get_accumulate REPLACE races, DART replaces a LONG_DOUBLE by
 * MIN/MAX (rma/atomics.c, minmax_replace), which must write these too.
 * Unit 0 swaps the values in one after another on the last unit (through
 * MPI across nodes); each fetched value must be bit for bit the one
 * before. */
#define N_EDGE 9

/* Each value in every floating type: a NaN's payload does not survive a
 * conversion, so each type has its own column. */
static const struct {
  float       f;
  double      d;
  long double ld;
} edges[N_EDGE] = {
  { 1.5f, 1.5, 1.5L },
  { -0.0f, -0.0, -0.0L },
  { 0.0f, 0.0, 0.0L },
  { -0.0f, -0.0, -0.0L },
  { __builtin_nanf("0x123"), __builtin_nan("0x123"), __builtin_nanl("0x123") },
  { -2.0f, -2.0, -2.0L },
  { -__builtin_nanf("0x5"), -__builtin_nan("0x5"), -__builtin_nanl("0x5") },
  { __builtin_inff(), __builtin_inf(), __builtin_infl() },
  { -0.0f, -0.0, -0.0L },
};

static void edge_value(dart_datatype_t t, int i, unsigned char out[16])
{
  const void *v = t == DART_TYPE_FLOAT    ? (const void *)&edges[i].f
                  : t == DART_TYPE_DOUBLE ? (const void *)&edges[i].d
                                          : (const void *)&edges[i].ld;
  memset(out, 0, 16);
  memcpy(out, v, basic_value_bytes(t));
}

static void test_replace_edges(void)
{
  static const dart_datatype_t types[] = {
    DART_TYPE_FLOAT, DART_TYPE_DOUBLE, DART_TYPE_LONG_DOUBLE
  };
  const int owner = n - 1;
  dart_gptr_t seg;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 3 * 16, DART_TYPE_BYTE,
                                       &seg));
  char *mine = local_base(seg, me);
  memset(mine, 0, 3 * 16);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int ti = 0; ti < 3; ++ti) {
    dart_datatype_t t = types[ti];
    STAGE("REPLACE %s: signed zeros, NaNs, infinities", tname(t));
    dart_gptr_t g = gptr_at(seg, owner, (uint64_t)ti * 16);
    if (me == 0) {
      unsigned char before[16] = { 0 }, value[16], old[16];
      for (int i = 0; i < N_EDGE; ++i) {
        edge_value(t, i, value);
        memset(old, 0xa5, sizeof old);
        ASSERT_OK(dart_fetch_and_op(g, value, old, t, DART_OP_REPLACE));
        ASSERT_OK(dart_flush(g));
        if (memcmp(old, before, basic_value_bytes(t)) != 0) {
          FAILF("%s swap %d fetched bytes %02x%02x..%02x, not the value "
                "swapped in before", tname(t), i, old[0], old[1],
                old[basic_value_bytes(t) - 1]);
        }
        memcpy(before, value, sizeof before);
      }
    }
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
    if (me == owner) {
      unsigned char last[16];
      edge_value(t, N_EDGE - 1, last);
      ASSERT(memcmp(mine + ti * 16, last, basic_value_bytes(t)) == 0);
    }
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(seg));
}

/* MIN and MAX where the order is not total (dart_types.h): the target
 * stays only where it compares strictly less (MIN) or greater (MAX) than
 * the operand, otherwise the operand is written bit for bit: a NaN on
 * either side, or -0.0 against +0.0. The same on every path (CPU atomics,
 * messages, MPI): unit 0 applies each case to the last unit's element
 * with dart_fetch_and_op, dart_accumulate and
 * dart_accumulate_blocking_local and reads the element back. Indices
 * name rows of `edges` above. */
static const struct {
  dart_operation_t op;
  int target, operand, expect;
} minmax_cases[] = {
  { DART_OP_MAX, 0, 4, 4 }, /* MAX(1.5, NaN): the NaN operand */
  { DART_OP_MAX, 4, 0, 0 }, /* MAX(NaN, 1.5): the operand */
  { DART_OP_MAX, 2, 1, 1 }, /* MAX(+0, -0): -0 */
  { DART_OP_MAX, 1, 2, 2 }, /* MAX(-0, +0): +0 */
  { DART_OP_MIN, 1, 2, 2 }, /* MIN(-0, +0): +0 */
  { DART_OP_MIN, 2, 1, 1 }, /* MIN(+0, -0): -0 */
  { DART_OP_MIN, 6, 5, 5 }, /* MIN(-NaN, -2): -2 */
  { DART_OP_MIN, 5, 6, 6 }, /* MIN(-2, -NaN): the NaN operand */
  { DART_OP_MAX, 7, 0, 7 }, /* MAX(inf, 1.5): inf stays */
  { DART_OP_MIN, 5, 0, 5 }, /* MIN(-2, 1.5): -2 stays */
};
#define N_MINMAX (sizeof minmax_cases / sizeof *minmax_cases)

static void test_minmax_edges(void)
{
  static const dart_datatype_t types[] = {
    DART_TYPE_FLOAT, DART_TYPE_DOUBLE, DART_TYPE_LONG_DOUBLE
  };
  const int owner = n - 1;
  dart_gptr_t seg;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 16, DART_TYPE_BYTE,
                                       &seg));
  dart_gptr_t g = gptr_at(seg, owner, 0);
  for (int ti = 0; ti < 3 && me == 0; ++ti) {
    dart_datatype_t t = types[ti];
    size_t bytes = basic_value_bytes(t);
    STAGE("MIN/MAX %s: signed zeros, NaNs", tname(t));
    for (size_t c = 0; c < N_MINMAX; ++c) {
      unsigned char target[16], operand[16], expect[16], old[16], now[16];
      edge_value(t, minmax_cases[c].target, target);
      edge_value(t, minmax_cases[c].operand, operand);
      edge_value(t, minmax_cases[c].expect, expect);
      for (int call = 0; call < 3; ++call) {
        ASSERT_OK(dart_put_blocking(g, target, 1, t, t));
        memset(old, 0xa5, sizeof old);
        if (call == 0) {
          ASSERT_OK(dart_fetch_and_op(g, operand, old, t,
                                      minmax_cases[c].op));
        } else if (call == 1) {
          ASSERT_OK(dart_accumulate(g, operand, 1, t, minmax_cases[c].op));
        } else {
          ASSERT_OK(dart_accumulate_blocking_local(g, operand, 1, t,
                                                   minmax_cases[c].op));
        }
        ASSERT_OK(dart_flush(g));
        ASSERT_OK(dart_get_blocking(now, g, 1, t, t));
        if ((call == 0 && memcmp(old, target, bytes) != 0) ||
            memcmp(now, expect, bytes) != 0) {
          FAILF("%s case %zu, call %d: %s left bytes %02x..%02x (want "
                "%02x..%02x), fetched %02x..%02x (want %02x..%02x)",
                tname(t), c, call, oname(minmax_cases[c].op), now[0],
                now[bytes - 1], expect[0], expect[bytes - 1], old[0],
                old[bytes - 1], target[0], target[bytes - 1]);
        }
      }
    }
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(seg));
}

static const struct test_case cases[] = {
  { "all_pairs", test_all_pairs },
  { "replace_edges", test_replace_edges },
  { "minmax_edges", test_minmax_edges },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
