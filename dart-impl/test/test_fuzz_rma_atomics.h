/* Machinery of test_fuzz_rma.c, part 3: valid and invalid atomics
 * (accumulate, fetch-and-op, compare-and-swap of dart-if/include/dash/
 * dart/if/dart_communication.h), each checked against the shadow of the
 * target memory. Needs test_fuzz_rma_core.h. */
#include "test_fuzz_rma_core.h"

#ifndef DART_TEST_FUZZ_RMA_ATOMICS_H
#define DART_TEST_FUZZ_RMA_ATOMICS_H

/* ---- atomics ------------------------------------------------------------ */

/* The basic types atomics are checked on (long double's padding bytes are
 * not defined by arithmetic), with the operations valid on each. */
static inline bool is_float(dart_datatype_t t)
{
  return t == DART_TYPE_FLOAT || t == DART_TYPE_DOUBLE;
}

static inline bool is_unsigned(dart_datatype_t t)
{
  return t == DART_TYPE_UINT || t == DART_TYPE_ULONG ||
         t == DART_TYPE_ULONGLONG || t == DART_TYPE_BYTE;
}

static inline size_t tsize(dart_datatype_t t) { return basic_sizes[t - 1]; }

static inline bool op_valid(dart_datatype_t t, dart_operation_t op)
{
  switch (op) {
  case DART_OP_REPLACE: case DART_OP_NO_OP:
    return true;
  case DART_OP_BAND: case DART_OP_BOR: case DART_OP_BXOR:
    return !is_float(t);
  case DART_OP_MIN: case DART_OP_MAX: case DART_OP_SUM: case DART_OP_PROD:
    return t != DART_TYPE_BYTE;
  case DART_OP_LAND: case DART_OP_LOR: case DART_OP_LXOR:
    return t != DART_TYPE_BYTE && !is_float(t);
  default:
    return false;
  }
}

static inline int64_t load_signed(const unsigned char *p, size_t size)
{
  switch (size) {
  case 1: { int8_t v; memcpy(&v, p, 1); return v; }
  case 2: { int16_t v; memcpy(&v, p, 2); return v; }
  case 4: { int32_t v; memcpy(&v, p, 4); return v; }
  default: { int64_t v; memcpy(&v, p, 8); return v; }
  }
}

static inline uint64_t load_unsigned(const unsigned char *p, size_t size)
{
  uint64_t v = 0;
  memcpy(&v, p, size); /* little endian */
  return v;
}

/* target = target op value, the element-wise update of dart_accumulate
 * (dart_communication.h). */
static inline void apply(dart_datatype_t t, dart_operation_t op,
                  unsigned char *target, const unsigned char *value)
{
  size_t size = tsize(t);
  if (op == DART_OP_NO_OP) {
    return;
  }
  if (op == DART_OP_REPLACE) {
    memcpy(target, value, size);
    return;
  }
  if (t == DART_TYPE_FLOAT) {
    float a, b;
    memcpy(&a, target, 4);
    memcpy(&b, value, 4);
    a = op == DART_OP_SUM ? a + b : op == DART_OP_PROD ? a * b
      : op == DART_OP_MIN ? (b < a ? b : a) : (b > a ? b : a);
    memcpy(target, &a, 4);
    return;
  }
  if (t == DART_TYPE_DOUBLE) {
    double a, b;
    memcpy(&a, target, 8);
    memcpy(&b, value, 8);
    a = op == DART_OP_SUM ? a + b : op == DART_OP_PROD ? a * b
      : op == DART_OP_MIN ? (b < a ? b : a) : (b > a ? b : a);
    memcpy(target, &a, 8);
    return;
  }
  uint64_t a = load_unsigned(target, size), b = load_unsigned(value, size);
  int64_t sa = load_signed(target, size), sb = load_signed(value, size);
  bool uns = is_unsigned(t);
  uint64_t r;
  switch (op) {
  case DART_OP_MIN: r = uns ? (b < a ? b : a) : (uint64_t)(sb < sa ? sb : sa);
    break;
  case DART_OP_MAX: r = uns ? (b > a ? b : a) : (uint64_t)(sb > sa ? sb : sa);
    break;
  case DART_OP_SUM:  r = a + b; break;
  case DART_OP_PROD: r = a * b; break;
  case DART_OP_BAND: r = a & b; break;
  case DART_OP_BOR:  r = a | b; break;
  case DART_OP_BXOR: r = a ^ b; break;
  case DART_OP_LAND: r = a != 0 && b != 0; break;
  case DART_OP_LOR:  r = a != 0 || b != 0; break;
  default:           r = (a != 0) != (b != 0); break; /* LXOR */
  }
  memcpy(target, &r, size); /* little endian: the low bytes */
}

/* Whether a floating-point update has one exact, portable result: finite
 * operands (no NaN payloads), nonzero ones for MIN/MAX (no signed-zero
 * ambiguity). */
static inline bool float_ok(dart_datatype_t t, dart_operation_t op,
                     const unsigned char *target, const unsigned char *value)
{
  if (!is_float(t) || op == DART_OP_REPLACE || op == DART_OP_NO_OP) {
    return true;
  }
  double a, b;
  if (t == DART_TYPE_FLOAT) {
    float fa, fb;
    memcpy(&fa, target, 4);
    memcpy(&fb, value, 4);
    a = fa;
    b = fb;
  } else {
    memcpy(&a, target, 8);
    memcpy(&b, value, 8);
  }
  if (!isfinite(a) || !isfinite(b)) {
    return false;
  }
  return (op != DART_OP_MIN && op != DART_OP_MAX) || (a != 0 && b != 0);
}

static inline void random_operand(dart_datatype_t t, unsigned char *out)
{
  if (t == DART_TYPE_FLOAT) {
    float v = (float)((int)below(17) - 8);
    v = v == 0 ? 3 : v;
    memcpy(out, &v, 4);
  } else if (t == DART_TYPE_DOUBLE) {
    double v = (double)((int)below(17) - 8) / (chance(50) ? 1 : 4);
    v = v == 0 ? -5 : v;
    memcpy(out, &v, 8);
  } else {
    uint64_t r = chance(30) ? below(4) : rnd();
    memcpy(out, &r, tsize(t));
  }
}

static const dart_datatype_t atomic_types[] = {
  DART_TYPE_BYTE, DART_TYPE_SHORT, DART_TYPE_INT, DART_TYPE_UINT,
  DART_TYPE_LONG, DART_TYPE_ULONG, DART_TYPE_LONGLONG, DART_TYPE_ULONGLONG,
  DART_TYPE_FLOAT, DART_TYPE_DOUBLE
};
#define NATOMIC_TYPES (sizeof atomic_types / sizeof *atomic_types)

enum aform { ACCUMULATE, ACCUMULATE_BLOCKING_LOCAL, FETCH_AND_OP,
             COMPARE_AND_SWAP };
static const char *const aform_names[] = {
  "dart_accumulate", "dart_accumulate_blocking_local", "dart_fetch_and_op",
  "dart_compare_and_swap" };

/* Local operands: values at lbody, compare at lbody + 512, result at
 * lbody + 768 (all inside the guarded local buffer). */
#define CMP_AT 512
#define RES_AT 768

static inline dart_ret_t issue_atomic(enum aform f, dart_gptr_t g,
                               const void *values, const void *compare,
                               void *result, size_t n, dart_datatype_t t,
                               dart_operation_t op)
{
  switch (f) {
  case ACCUMULATE:
    return dart_accumulate(g, values, n, t, op);
  case ACCUMULATE_BLOCKING_LOCAL:
    return dart_accumulate_blocking_local(g, values, n, t, op);
  case FETCH_AND_OP:
    return dart_fetch_and_op(g, values, result, t, op);
  default:
    return dart_compare_and_swap(g, values, compare, result, t);
  }
}

static inline void describe_atomic(enum aform f, int s, dart_gptr_t g, size_t n,
                            dart_datatype_t t, dart_operation_t op,
                            const char *kind)
{
  snprintf(what, sizeof what,
           "%s %s: %s segment, team %d segid %d unit %d offset %" PRIu64
           ", nelem %zu, type %ld, op %lu", kind, aform_names[f],
           seg_names[s], (int)g.teamid, (int)g.segid, (int)g.unitid,
           g.addr_or_offs.offset, n, (long)t, (unsigned long)op);
}

static inline void valid_atomic(void)
{
  enum aform f = (enum aform)below(4);
  int s = pick_segment();
  int owner = (int)below((uint64_t)nunits);
  dart_datatype_t t;
  do {
    t = atomic_types[below(NATOMIC_TYPES)];
  } while (f == COMPARE_AND_SWAP && is_float(t));
  size_t size = tsize(t), slots = ATOM / size;
  size_t k = below(slots);
  size_t n = f == ACCUMULATE || f == ACCUMULATE_BLOCKING_LOCAL
               ? 1 + below(slots - k < 4 ? slots - k : 4) : 1;
  dart_operation_t op;
  do {
    op = DART_OP_MIN + below(DART_OP_NO_OP);
  } while (!op_valid(t, op));
  size_t toff = DATA + k * size;
  unsigned char *sh = shadow_of(s, owner) + toff;
  local_fill_canary();
  for (size_t i = 0; i < n; ++i) {
    random_operand(t, lbody + i * size);
    if (!float_ok(t, op, sh + i * size, lbody + i * size)) {
      op = chance(50) ? DART_OP_REPLACE : DART_OP_NO_OP;
    }
  }
  if (f == COMPARE_AND_SWAP) {
    if (chance(50)) {
      memcpy(lbody + CMP_AT, sh, size);
    } else {
      random_operand(t, lbody + CMP_AT);
    }
  }
  dart_gptr_t g = gptr_to(s, owner, region_off(me) + toff);
  describe_atomic(f, s, g, n, t, op, "valid");
  memcpy(lexpect, lraw, sizeof lraw);
  dart_ret_t ret = issue_atomic(f, g, lbody, lbody + CMP_AT, lbody + RES_AT,
                                n, t, op);
  int lines = new_log_lines();
  if (ret != DART_OK) {
    FAIL("returned %d", (int)ret);
  }
  if (lines != 0) {
    FAIL("a valid call logged %d lines", lines);
  }
  if ((chance(50) ? dart_flush(g) : dart_flush_all(g)) != DART_OK) {
    FAIL("the flush after the atomic failed");
  }
  if (f == FETCH_AND_OP || f == COMPARE_AND_SWAP) {
    memcpy(lexpect + LGUARD + RES_AT, sh, size);
  }
  if (f == COMPARE_AND_SWAP) {
    if (memcmp(sh, lbody + CMP_AT, size) == 0) {
      memcpy(sh, lbody, size);
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      apply(t, op, sh + i * size, lbody + i * size);
    }
  }
  local_check(lexpect, f == ACCUMULATE || f == ACCUMULATE_BLOCKING_LOCAL
                         ? "an accumulate changed its operands or guards"
                         : "wrong result, or operands or guards changed");
  ++stats[ST_VALID];
  ++stats[ST_ATOMIC];
}

static inline void invalid_atomic(void)
{
  enum aform f = (enum aform)below(4);
  int s = pick_segment();
  int owner = (int)below((uint64_t)nunits);
  dart_datatype_t t;
  do {
    t = atomic_types[below(NATOMIC_TYPES)];
  } while (f == COMPARE_AND_SWAP && is_float(t));
  size_t size = tsize(t), slots = ATOM / size;
  size_t k = below(slots);
  bool multi = f == ACCUMULATE || f == ACCUMULATE_BLOCKING_LOCAL;
  size_t n = multi ? 1 + below(slots - k < 4 ? slots - k : 4) : 1;
  dart_operation_t op;
  do {
    op = DART_OP_MIN + below(DART_OP_NO_OP);
  } while (!op_valid(t, op));
  size_t toff = DATA + k * size;
  dart_gptr_t g = gptr_to(s, owner, region_off(me) + toff);
  const void *values = lbody, *compare = lbody + CMP_AT;
  void *result = lbody + RES_AT;
  const char *kind = "?";
  int how = (int)below(8);
  switch (how) {
  case 0:
  case 1:
    g = bad_gptr(s, owner, region_off(me) + toff, n * size, &kind);
    break;
  case 2: {
    /* Misaligned target (the lead's rule: DART_ERR_INVAL, no change). */
    if (size == 1) {
      t = DART_TYPE_INT;
      size = tsize(t);
      if (!op_valid(t, op)) {
        op = DART_OP_REPLACE;
      }
      n = 1;
    }
    g.addr_or_offs.offset =
      segs[s].base[owner] + region_off(me) + DATA + 8 + 1 + below(size - 1);
    kind = "misaligned target";
    break;
  }
  case 3: {
    int which = (int)below(f == COMPARE_AND_SWAP ? 3 : f == FETCH_AND_OP ? 2
                                                                         : 1);
    if (which == 0) {
      values = NULL;
    } else if (which == 1) {
      result = NULL;
    } else {
      compare = NULL;
    }
    kind = "NULL operand or result";
    break;
  }
  case 4:
    if (multi) {
      n = huge_count(s, size, 1);
      kind = "huge count";
      break;
    }
    /* fall through */
  case 5: {
    const dart_datatype_t bad[] = {
      DART_TYPE_UNDEFINED, DART_TYPE_LAST, (dart_datatype_t)123456789,
      types[NBASIC].id, types[NBASIC + 4].id, stale_type,
      DART_TYPE_FLOAT, DART_TYPE_DOUBLE, DART_TYPE_LONG_DOUBLE };
    /* Floating types are invalid in compare-and-swap only. */
    t = bad[below(f == COMPARE_AND_SWAP ? 9 : 6)];
    kind = "invalid type";
    break;
  }
  default: {
    if (f == COMPARE_AND_SWAP) { /* takes no operation */
      g = bad_gptr(s, owner, region_off(me) + toff, size, &kind);
      break;
    }
    const dart_operation_t bad[] = {
      DART_OP_MINMAX, DART_OP_UNDEFINED, DART_OP_LAST, 999, user_op,
      (dart_operation_t)-1 };
    int b = (int)below(8);
    if (b < 6) {
      op = bad[b];
    } else {
      /* A predefined operation the type does not take. */
      t = chance(50) ? DART_TYPE_DOUBLE : DART_TYPE_FLOAT;
      op = (dart_operation_t[]){ DART_OP_BAND, DART_OP_LXOR, DART_OP_BOR,
                                 DART_OP_LAND }[below(4)];
      n = 1;
    }
    kind = "invalid operation";
    break;
  }
  }
  describe_atomic(f, s, g, n, t, op, "invalid");
  snprintf(what + strlen(what), sizeof what - strlen(what), " [%s]", kind);
  local_fill_random();
  memcpy(lexpect, lraw, sizeof lraw);
  dart_ret_t ret = issue_atomic(f, g, values, compare, result, n, t, op);
  int lines = new_log_lines();
  if (ret != DART_ERR_INVAL) {
    FAIL("returned %d, expected DART_ERR_INVAL (%d)", (int)ret,
         (int)DART_ERR_INVAL);
  }
  if (lines != 1) {
    FAIL("logged %d lines, expected one", lines);
  }
  local_check(lexpect, "an invalid atomic wrote local memory");
  dart_gptr_t valid = gptr_to(s, owner, 0);
  if (dart_flush_all(valid) != DART_OK || new_log_lines() != 0) {
    FAIL("dart_flush_all after the invalid call failed");
  }
  ++stats[ST_INVALID];
  ++stats[ST_ATOMIC];
}

#endif
