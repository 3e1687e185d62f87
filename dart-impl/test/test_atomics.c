/* Atomics (dart-if/include/dash/dart/if/dart_communication.h, with the
 * operations of dart_types.h): every valid (basic type, operation) pair with
 * dart_accumulate, dart_accumulate_blocking_local (several elements) and
 * dart_fetch_and_op from all units onto one element; contended counters
 * whose fetched values must form an exact permutation; compare-and-swap
 * on every integral type and as a retry loop; unsigned MIN/MAX above
 * 2^31 and 2^63 (the MPIs here order them as signed, the runtime must
 * not); NO_OP reads, REPLACE swaps with no token lost; long double;
 * atomics on dart_memalloc memory and on a sub-team segment; and the
 * argument errors, which must leave target and result untouched.
 *
 * Operands are chosen so the final value is exact whatever the order in
 * which the units' operations land; every fetched value must be the
 * initial value combined with some subset of the other units' operands. */
#include "test.h"
#include "test_values.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, n;
static dart_team_t sub = DART_TEAM_NULL;

#define NBASIC 11
static const dart_datatype_t basic[NBASIC] = {
  DART_TYPE_BYTE,     DART_TYPE_SHORT,     DART_TYPE_INT,
  DART_TYPE_UINT,     DART_TYPE_LONG,      DART_TYPE_ULONG,
  DART_TYPE_LONGLONG, DART_TYPE_ULONGLONG, DART_TYPE_FLOAT,
  DART_TYPE_DOUBLE,   DART_TYPE_LONG_DOUBLE
};

static const dart_operation_t atomic_ops[] = {
  DART_OP_MIN,  DART_OP_MAX,  DART_OP_SUM,  DART_OP_PROD,
  DART_OP_BAND, DART_OP_LAND, DART_OP_BOR,  DART_OP_LOR,
  DART_OP_BXOR, DART_OP_LXOR, DART_OP_REPLACE, DART_OP_NO_OP
};
#define NOPS (sizeof atomic_ops / sizeof *atomic_ops)

static size_t tsize(dart_datatype_t t) { return basic_size(t); }

static const char *tname(dart_datatype_t t)
{
  const char *name = basic_name(t);
  return name != NULL ? name : "other";
}

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

static int width(dart_datatype_t t) { return 8 * (int)tsize(t); }

static unsigned long long mask_of(dart_datatype_t t)
{
  return width(t) >= 64 ? ~0ULL : (1ULL << width(t)) - 1;
}

/* The value of type t whose bit pattern is `bits`. */
static long double from_bits(dart_datatype_t t, unsigned long long bits)
{
  switch (t) {
  case DART_TYPE_BYTE:      return (char)bits;
  case DART_TYPE_SHORT:     return (short)bits;
  case DART_TYPE_INT:       return (int)bits;
  case DART_TYPE_UINT:      return (unsigned int)bits;
  case DART_TYPE_LONG:      return (long)bits;
  case DART_TYPE_ULONG:     return (unsigned long)bits;
  case DART_TYPE_LONGLONG:  return (long long)bits;
  case DART_TYPE_ULONGLONG: return bits;
  default:                  ASSERT(!"from_bits: not integral");
  }
  return 0;
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

static char *local_base(dart_gptr_t g, int my_team_id)
{
  void *p = NULL;
  ASSERT_OK(dart_gptr_getaddr(gptr_at(g, my_team_id, 0), &p));
  ASSERT(p != NULL);
  return p;
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
  for (int ti = 0; ti < NBASIC; ++ti) {
    for (size_t oi = 0; oi < NOPS; ++oi) {
      if (valid_atomic(basic[ti], atomic_ops[oi])) {
        out[k] = (struct combo){ basic[ti], atomic_ops[oi], k % n };
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
  struct combo cs[NBASIC * NOPS];
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

/* ---------------------------------------------------------------------
 * Contended counters: fetched values form an exact permutation.
 * --------------------------------------------------------------------- */

static int cmp_ll(const void *a, const void *b)
{
  long long x = *(const long long *)a, y = *(const long long *)b;
  return x < y ? -1 : x > y;
}

/* All units' `k` values, gathered, sorted, must be first, first+1, ... */
#define check_permutation(...) check_permutation_at(__FILE__, __LINE__, __VA_ARGS__)
static void check_permutation_at(const char *file, int line, dart_team_t team,
                                 int size,
                              const long long *mine, int k, long long first)
{
  long long *all = xmalloc((size_t)size * (size_t)k * sizeof *all);
  ASSERT_OK(dart_allgather(mine, all, (size_t)k, DART_TYPE_LONGLONG, team));
  qsort(all, (size_t)size * (size_t)k, sizeof *all, cmp_ll);
  for (long long j = 0; j < (long long)size * k; ++j) {
    if (all[j] != first + j) {
      test_failf(file, line, "sorted fetched value %lld is %lld, expected %lld "
                 "(lost or duplicated update)", j, all[j], first + j);
    }
  }
  free(all);
}

/* Operations per unit (K_SUM for the LONGLONG counter, K_SMALL for the
 * others). With more units than cores every MPICH atomic waits for the
 * target to be scheduled (some 2 ms), so the long runs are where each
 * unit has a core. */

static void test_counters(dart_team_t team, int tme, int tn,
                          const char *label, int K_SUM, int K_SMALL)
{
  dart_gptr_t seg;
  ASSERT_OK(dart_team_memalloc_aligned(team, 4, DART_TYPE_LONGLONG, &seg));
  long long *mine = (long long *)local_base(seg, tme);
  const int c_sum = 0, c_dbl = tn - 1, c_cas = tn / 2;
  const int c_swap = (tn + 1) / 2 % tn;
  mine[0] = 0;                 /* LONGLONG fetch-and-add counter */
  ((double *)mine)[1] = 0.0;   /* DOUBLE counter */
  mine[2] = 0;                 /* LONG CAS counter */
  mine[3] = -1;                /* REPLACE token */
  ASSERT_OK(dart_barrier(team));
  const int K_DBL = K_SMALL, K_CAS = K_SMALL, K_SWAP = K_SMALL;
  long long *got = xmalloc((size_t)(K_SUM > K_SMALL ? K_SUM : K_SMALL) *
                           sizeof *got);

  STAGE("%s: %d x %d fetch_and_op SUM +1 (LONGLONG)", label, tn, K_SUM);
  dart_gptr_t g = gptr_at(seg, c_sum, 0);
  long long one = 1;
  for (int k = 0; k < K_SUM; ++k) {
    ASSERT_OK(dart_fetch_and_op(g, &one, &got[k], DART_TYPE_LONGLONG,
                                DART_OP_SUM));
    ASSERT_OK(dart_flush_local(g));
  }
  check_permutation(team, tn, got, K_SUM, 0);

  STAGE("%s: %d x %d fetch_and_op SUM +0.5 (DOUBLE)", label, tn, K_DBL);
  g = gptr_at(seg, c_dbl, sizeof(double));
  double half = 0.5, d;
  for (int k = 0; k < K_DBL; ++k) {
    ASSERT_OK(dart_fetch_and_op(g, &half, &d, DART_TYPE_DOUBLE, DART_OP_SUM));
    ASSERT_OK(dart_flush_local(g));
    got[k] = (long long)(d * 2);
    ASSERT((double)got[k] == d * 2);
  }
  check_permutation(team, tn, got, K_DBL, 0);

  STAGE("%s: %d x %d compare_and_swap increments (LONG)", label, tn, K_CAS);
  g = gptr_at(seg, c_cas, 2 * sizeof(long));
  long cur = 0;
  for (int k = 0; k < K_CAS; ++k) {
    for (;;) {
      long next = cur + 1, old = -7;
      ASSERT_OK(dart_compare_and_swap(g, &next, &cur, &old, DART_TYPE_LONG));
      ASSERT_OK(dart_flush_local(g));
      if (old == cur) {
        got[k] = cur;
        cur = next;
        break;
      }
      ASSERT(old > cur || k == 0);
      cur = old;
    }
  }
  check_permutation(team, tn, got, K_CAS, 0);

  STAGE("%s: %d x %d REPLACE swaps (token passing)", label, tn, K_SWAP);
  g = gptr_at(seg, c_swap, 3 * sizeof(long long));
  for (int k = 0; k < K_SWAP; ++k) {
    long long mine_token = (long long)tme * K_SWAP + k;
    ASSERT_OK(dart_fetch_and_op(g, &mine_token, &got[k], DART_TYPE_LONGLONG,
                                DART_OP_REPLACE));
    ASSERT_OK(dart_flush_local(g));
  }
  ASSERT_OK(dart_flush_all(seg));
  ASSERT_OK(dart_barrier(team));

  STAGE("%s: counter final values", label);
  if (tme == c_sum) {
    ASSERT_EQ(mine[0], (long long)tn * K_SUM);
  }
  if (tme == c_dbl) {
    ASSERT(((double *)mine)[1] == 0.5 * tn * K_DBL);
  }
  if (tme == c_cas) {
    ASSERT_EQ(((long *)mine)[2], (long)tn * K_CAS);
  }
  /* Tokens: the fetched ones plus the one left behind are the initial
   * token and every token swapped in, each exactly once. */
  long long left = 0;
  ASSERT_OK(dart_get_blocking(&left, g, 1, DART_TYPE_LONGLONG,
                              DART_TYPE_LONGLONG));
  long long *all = xmalloc(((size_t)tn * K_SWAP + 1) * sizeof *all);
  ASSERT_OK(dart_allgather(got, all, K_SWAP, DART_TYPE_LONGLONG, team));
  all[(size_t)tn * K_SWAP] = left;
  qsort(all, (size_t)tn * K_SWAP + 1, sizeof *all, cmp_ll);
  for (long long j = 0; j <= (long long)tn * K_SWAP; ++j) {
    if (all[j] != j - 1) {
      FAILF("token %lld is %lld, expected %lld", j, all[j],
            j - 1);
    }
  }
  free(all);
  free(got);
  ASSERT_OK(dart_barrier(team));
  ASSERT_OK(dart_team_memfree(seg));
}

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
 * Long double: contended SUM with exact fractions, MIN/MAX/REPLACE.
 * --------------------------------------------------------------------- */

#define K_LD 50

static void test_long_double(void)
{
  STAGE("LONG_DOUBLE contended fetch_and_op SUM");
  dart_gptr_t seg;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_LONG_DOUBLE,
                                       &seg));
  long double *mine = (long double *)local_base(seg, me);
  const int owner = n - 1;
  if (me == owner) {
    mine[0] = 0.25L;
    mine[1] = 1e30L;
    mine[2] = -1e30L;
    mine[3] = 0;
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  dart_gptr_t g = gptr_at(seg, owner, 0);
  long long got[K_LD];
  /* Exact in long double for every sum reached here, not in double. */
  long double step = 0.5L + 0x1p-50L;
  for (int k = 0; k < K_LD; ++k) {
    long double r;
    ASSERT_OK(dart_fetch_and_op(g, &step, &r, DART_TYPE_LONG_DOUBLE,
                                DART_OP_SUM));
    ASSERT_OK(dart_flush_local(g));
    /* r = 0.25 + j * step for some j */
    long double j = (r - 0.25L) / step;
    got[k] = (long long)(j + 0.5L);
    if (r != 0.25L + (long double)got[k] * step) {
      FAILF("fetched %.21Lg is not 0.25 + j * step", r);
    }
  }
  check_permutation(DART_TEAM_ALL, n, got, K_LD, 0);

  STAGE("LONG_DOUBLE MIN/MAX/REPLACE");
  long double lo = -1e-20L * (me + 1) - 3, hi = 1e15L + me + 0.5L;
  long double rep = me + 0.125L;
  ASSERT_OK(dart_accumulate(gptr_at(seg, owner, sizeof(long double)), &lo, 1,
                            DART_TYPE_LONG_DOUBLE, DART_OP_MIN));
  ASSERT_OK(dart_accumulate(gptr_at(seg, owner, 2 * sizeof(long double)), &hi,
                            1,
                            DART_TYPE_LONG_DOUBLE, DART_OP_MAX));
  long double old = -1;
  ASSERT_OK(dart_fetch_and_op(gptr_at(seg, owner, 3 * sizeof(long double)),
                              &rep, &old,
                              DART_TYPE_LONG_DOUBLE, DART_OP_REPLACE));
  ASSERT_OK(dart_flush_all(seg));
  ASSERT(old == 0 || (old >= 0.125L && old < n &&
                      old - (long long)old == 0.125L));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  if (me == owner) {
    ASSERT(mine[0] == 0.25L + (long double)(n * K_LD) * step);
    ASSERT(mine[1] == -1e-20L * n - 3);
    ASSERT(mine[2] == 1e15L + (n - 1) + 0.5L);
    ASSERT(mine[3] >= 0.125L && mine[3] < n &&
           mine[3] - (long long)mine[3] == 0.125L);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(seg));
}

/* ---------------------------------------------------------------------
 * Atomics on dart_memalloc memory (segment 0).
 * --------------------------------------------------------------------- */

#define K_POOL 20
#define K_POOL_CAS 5

static void test_local_pool(void)
{
  STAGE("atomics on dart_memalloc memory");
  dart_gptr_t mine;
  ASSERT_OK(dart_memalloc(3, DART_TYPE_LONGLONG, &mine));
  long long *p = (long long *)(local_base(mine, me) +
                               mine.addr_or_offs.offset);
  p[0] = 1000 * me;
  p[1] = 0;
  p[2] = -1;
  dart_gptr_t *all = xmalloc((size_t)n * sizeof *all);
  ASSERT_OK(dart_allgather(&mine, all, sizeof mine, DART_TYPE_BYTE,
                           DART_TEAM_ALL));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  long long one = 1, bit = 1LL << me;
  for (int v = 0; v < n; ++v) {
    ASSERT_EQ(all[v].segid, 0);
    ASSERT_EQ(all[v].unitid, v);
    dart_gptr_t c = all[v];
    long long prev = -1;
    for (int k = 0; k < K_POOL; ++k) {
      long long r = -1;
      ASSERT_OK(dart_fetch_and_op(c, &one, &r, DART_TYPE_LONGLONG,
                                  DART_OP_SUM));
      ASSERT_OK(dart_flush_local(c));
      ASSERT(r >= 1000 * v && r < 1000 * v + n * K_POOL && r > prev);
      prev = r;
    }
    dart_gptr_t b = c;
    b.addr_or_offs.offset += sizeof(long long);
    ASSERT_OK(dart_accumulate(b, &bit, 1, DART_TYPE_LONGLONG, DART_OP_BOR));
    /* The last element: compare-and-swap increments with retry (every
     * failed attempt means somebody else's succeeded). */
    dart_gptr_t s = c;
    s.addr_or_offs.offset += 2 * sizeof(long long);
    long long cur = -1;
    for (int k = 0; k < K_POOL_CAS; ++k) {
      for (;;) {
        long long next = cur + 1, r = -5;
        ASSERT_OK(dart_compare_and_swap(s, &next, &cur, &r,
                                        DART_TYPE_LONGLONG));
        ASSERT_OK(dart_flush(s));
        if (r == cur) {
          cur = next;
          break;
        }
        ASSERT(r > cur);
        cur = r;
      }
    }
    ASSERT_OK(dart_flush(b));
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_EQ(p[0], 1000 * me + n * K_POOL);
  ASSERT_EQ(p[1], (1LL << n) - 1);
  ASSERT_EQ(p[2], -1 + n * K_POOL_CAS);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_memfree(mine));
  free(all);
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

/* Sub-team: its segment, team-relative ids, a few ops and the counters. */
static void test_subteam(void)
{
  if (sub == DART_TEAM_NULL) {
    return;
  }
  dart_team_unit_t tme;
  size_t tsz;
  ASSERT_OK(dart_team_myid(sub, &tme));
  ASSERT_OK(dart_team_size(sub, &tsz));
  STAGE("sub-team: accumulate onto team unit 0");
  dart_gptr_t seg;
  ASSERT_OK(dart_team_memalloc_aligned(sub, 2, DART_TYPE_ULONG, &seg));
  unsigned long *mine = (unsigned long *)local_base(seg, tme.id);
  mine[0] = 0;
  mine[1] = 0;
  ASSERT_OK(dart_barrier(sub));
  unsigned long mybit = 1UL << me; /* global id: no team/global mix-up */
  ASSERT_OK(dart_accumulate(gptr_at(seg, 0, 0), &mybit, 1, DART_TYPE_ULONG,
                            DART_OP_BOR));
  unsigned long big = (1UL << 63) + (unsigned long)me;
  ASSERT_OK(dart_accumulate(gptr_at(seg, (int)tsz - 1, sizeof(unsigned long)),
                            &big,
                            1, DART_TYPE_ULONG, DART_OP_MAX));
  ASSERT_OK(dart_flush_all(seg));
  ASSERT_OK(dart_barrier(sub));
  unsigned long expect_bits = 0, expect_max = 0;
  for (int u = 0; u < n; ++u) {
    if (test_subteam_member(u, n)) {
      expect_bits |= 1UL << u;
      expect_max = (1UL << 63) + (unsigned long)u;
    }
  }
  if (tme.id == 0) {
    ASSERT_EQ(mine[0], expect_bits);
  }
  if (tme.id == (int)tsz - 1) {
    ASSERT(mine[1] == expect_max);
  }
  ASSERT_OK(dart_barrier(sub));
  ASSERT_OK(dart_team_memfree(seg));
  test_counters(sub, tme.id, (int)tsz, "sub-team", 60, 30);
}

static void setup(int *argc, char ***argv)
{
  test_start(argc, argv, &me, &n);
  ASSERT(n <= 16);
  sub = test_subteam_create(n);
}

static void teardown(void)
{
  if (sub != DART_TEAM_NULL) {
    ASSERT_OK(dart_team_destroy(&sub));
  }
  test_dart_teardown();
}

static void counters_all(void)
{
  test_counters(DART_TEAM_ALL, me, n, "DART_TEAM_ALL", n <= 2 ? 500 : 120,
                n <= 2 ? 100 : 40);
}

static const struct test_case cases[] = {
  { "all_pairs", test_all_pairs },
  { "counters", counters_all },
  { "cas_types", test_cas_types },
  { "long_double", test_long_double },
  { "local_pool", test_local_pool },
  { "subteam", test_subteam },
  { "errors", test_errors },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
