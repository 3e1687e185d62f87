/* The plan of test_cpu_atomics_concurrent.c: the basic types seen
 * through void pointers, and operands whose combination is exact and
 * order-independent, so that any interleaving of the processes gives the
 * sequential result. */
#ifndef DART_TEST_CPU_ATOMICS_PLAN_H
#define DART_TEST_CPU_ATOMICS_PLAN_H

#include "base/cpu_atomics.h"
#include "test.h"

#include <stdint.h>
#include <string.h>


enum {
  P       = 4,    /* processes */
  K       = 5000, /* updates per process and target */
  K_BYTE  = 60,   /* counters and tokens in a byte: P * K_BYTE + 1 <= 256 */
  K_SHORT = 8000, /* ... and in a short: P * K_SHORT + 1 <= 32768 */
  NARRAY  = 5,    /* elements of the array accumulates */
  NTYPES  = 10,
  NPLAN   = 14,
};

/* ---- the basic types, seen through void pointers --------------------- */

struct type_info {
  const char     *name;
  dart_datatype_t type;
  size_t          size;
  bool            floating;
  void (*set)(void *dst, uint64_t x);     /* *dst = (T)x */
  void (*set_real)(void *dst, double x);  /* floating types only */
  uint64_t (*count)(const void *src);     /* small non-negative value back */
  /* sequential reference: *acc = *acc op *v */
  void (*reference)(void *acc, const void *v, dart_operation_t op);
};

#define INTEGER_TYPE(NAME, T, U)                                            \
  static void NAME##_set(void *dst, uint64_t x)                             \
  {                                                                         \
    T v = (T)x;                                                             \
    memcpy(dst, &v, sizeof v);                                              \
  }                                                                         \
  static uint64_t NAME##_count(const void *src)                             \
  {                                                                         \
    U v;                                                                    \
    memcpy(&v, src, sizeof v);                                              \
    return v;                                                               \
  }                                                                         \
  static void NAME##_reference(void *accp, const void *vp,                  \
                               dart_operation_t op)                         \
  {                                                                         \
    T a, v;                                                                 \
    memcpy(&a, accp, sizeof a);                                             \
    memcpy(&v, vp, sizeof v);                                               \
    uintmax_t ua = (U)a, uv = (U)v;                                         \
    switch (op) {                                                           \
    case DART_OP_MIN:     a = v < a ? v : a;   break;                       \
    case DART_OP_MAX:     a = v > a ? v : a;   break;                       \
    case DART_OP_SUM:     a = (T)(U)(ua + uv); break;                       \
    case DART_OP_PROD:    a = (T)(U)(ua * uv); break;                       \
    case DART_OP_BAND:    a = (T)(U)(ua & uv); break;                       \
    case DART_OP_BOR:     a = (T)(U)(ua | uv); break;                       \
    case DART_OP_BXOR:    a = (T)(U)(ua ^ uv); break;                       \
    case DART_OP_LAND:    a = a && v;          break;                       \
    case DART_OP_LOR:     a = a || v;          break;                       \
    case DART_OP_LXOR:    a = !a != !v;        break;                       \
    case DART_OP_REPLACE: a = v;               break;                       \
    default:                                   break;                       \
    }                                                                       \
    memcpy(accp, &a, sizeof a);                                             \
  }

#define FLOAT_TYPE(NAME, T)                                                 \
  static void NAME##_set(void *dst, uint64_t x)                             \
  {                                                                         \
    T v = (T)x;                                                             \
    memcpy(dst, &v, sizeof v);                                              \
  }                                                                         \
  static void NAME##_set_real(void *dst, double x)                          \
  {                                                                         \
    T v = (T)x;                                                             \
    memcpy(dst, &v, sizeof v);                                              \
  }                                                                         \
  static uint64_t NAME##_count(const void *src)                             \
  {                                                                         \
    T v;                                                                    \
    memcpy(&v, src, sizeof v);                                              \
    return v >= 0 && v < 1e9 && v == (T)(uint64_t)v ? (uint64_t)v           \
                                                    : UINT64_MAX;           \
  }                                                                         \
  static void NAME##_reference(void *accp, const void *vp,                  \
                               dart_operation_t op)                         \
  {                                                                         \
    T a, v;                                                                 \
    memcpy(&a, accp, sizeof a);                                             \
    memcpy(&v, vp, sizeof v);                                               \
    switch (op) {                                                           \
    case DART_OP_MIN:     a = v < a ? v : a; break;                         \
    case DART_OP_MAX:     a = v > a ? v : a; break;                         \
    case DART_OP_SUM:     a = a + v;         break;                         \
    case DART_OP_PROD:    a = a * v;         break;                         \
    case DART_OP_REPLACE: a = v;             break;                         \
    default:                                 break;                         \
    }                                                                       \
    memcpy(accp, &a, sizeof a);                                             \
  }

INTEGER_TYPE(byte, char, unsigned char)
INTEGER_TYPE(short, short, unsigned short)
INTEGER_TYPE(int, int, unsigned int)
INTEGER_TYPE(uint, unsigned int, unsigned int)
INTEGER_TYPE(long, long, unsigned long)
INTEGER_TYPE(ulong, unsigned long, unsigned long)
INTEGER_TYPE(longlong, long long, unsigned long long)
INTEGER_TYPE(ulonglong, unsigned long long, unsigned long long)
FLOAT_TYPE(float, float)
FLOAT_TYPE(double, double)

#define INTEGER_ENTRY(NAME, DT, T)                                          \
  { #DT, DT, sizeof(T), false, NAME##_set, NULL, NAME##_count,              \
    NAME##_reference }
#define FLOAT_ENTRY(NAME, DT, T)                                            \
  { #DT, DT, sizeof(T), true, NAME##_set, NAME##_set_real, NAME##_count,    \
    NAME##_reference }

/* The integral types come first: they are the compare-and-swap types. */
static const struct type_info types[NTYPES] = {
  INTEGER_ENTRY(byte, DART_TYPE_BYTE, char),
  INTEGER_ENTRY(short, DART_TYPE_SHORT, short),
  INTEGER_ENTRY(int, DART_TYPE_INT, int),
  INTEGER_ENTRY(uint, DART_TYPE_UINT, unsigned int),
  INTEGER_ENTRY(long, DART_TYPE_LONG, long),
  INTEGER_ENTRY(ulong, DART_TYPE_ULONG, unsigned long),
  INTEGER_ENTRY(longlong, DART_TYPE_LONGLONG, long long),
  INTEGER_ENTRY(ulonglong, DART_TYPE_ULONGLONG, unsigned long long),
  FLOAT_ENTRY(float, DART_TYPE_FLOAT, float),
  FLOAT_ENTRY(double, DART_TYPE_DOUBLE, double),
};
enum { NINTEGRAL = 8 };

/* ---- operands whose combination is exact and order-independent ------ */

static const struct {
  dart_operation_t op;
  const char      *name;
  int              variant;
  bool             integer_only;
} plan[NPLAN] = {
  { DART_OP_MIN, "MIN", 0, false },      { DART_OP_MAX, "MAX", 0, false },
  { DART_OP_SUM, "SUM", 0, false },      { DART_OP_PROD, "PROD", 0, false },
  { DART_OP_BAND, "BAND", 0, true },     { DART_OP_BOR, "BOR", 0, true },
  { DART_OP_BXOR, "BXOR", 0, true },     { DART_OP_LAND, "LAND", 0, true },
  { DART_OP_LAND, "LAND", 1, true },     { DART_OP_LOR, "LOR", 0, true },
  { DART_OP_LOR, "LOR", 1, true },       { DART_OP_LXOR, "LXOR", 0, true },
  { DART_OP_REPLACE, "REPLACE", 0, false },
  { DART_OP_NO_OP, "NO_OP", 0, false },
};

static inline uint64_t mix(uint64_t x)
{
  x += UINT64_C(0x9e3779b97f4a7c15);
  x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
  return x ^ (x >> 31);
}

/* BAND/BOR: each bit but every fourth is flipped by exactly one update, so
 * a lost update shows in the result. */
static inline int designated_bit(const struct type_info *ti, int p, int k)
{
  int bit = p + P * (k / 64);
  return k % 64 == 0 && bit < (int)(8 * ti->size) && bit % 4 != 3 ? bit
                                                                  : -1;
}

static inline void operand(const struct type_info *ti, dart_operation_t op,
                    int variant, int p, int k, void *out)
{
  uint64_t x = mix(((uint64_t)op << 40) ^ ((uint64_t)p << 20) ^ (uint64_t)k);
  int bit = designated_bit(ti, p, k);
  switch (op) {
  case DART_OP_MIN:
  case DART_OP_MAX: /* integers: full range, half of them with the top bit */
    if (ti->floating) {
      ti->set_real(out, ((double)(x % 2000001) - 1000000) / 8);
    } else {
      ti->set(out, x);
    }
    break;
  case DART_OP_SUM: /* integers wrap; floats: small integers stay exact */
    if (ti->floating) {
      ti->set_real(out, (double)(x % 5) - 2);
    } else {
      ti->set(out, x);
    }
    break;
  case DART_OP_PROD:
    /* integers: odd factors, wrapping (exact in any order); floats: +-1,
     * and 2 and 0.5 taking turns in each process, so every partial product
     * is +-1.5 * 2^m with 0 <= m <= P: exact in any order */
    if (ti->floating) {
      ti->set_real(out, k % 64 == 0   ? 2.0
                        : k % 64 == 32 ? 0.5
                        : x % 8 == 0   ? -1.0
                                       : 1.0);
    } else {
      ti->set(out, x | 1);
    }
    break;
  case DART_OP_BAND:
    ti->set(out, bit < 0 ? UINT64_MAX : ~(UINT64_C(1) << bit));
    break;
  case DART_OP_BOR:
    ti->set(out, bit < 0 ? 0 : UINT64_C(1) << bit);
    break;
  case DART_OP_LAND: /* nonzero (odd) operands; variant 1: one zero */
    ti->set(out, variant == 1 && p == P - 1 && k == K / 2 ? 0 : x | 1);
    break;
  case DART_OP_LOR: /* zero operands; variant 1: one nonzero */
    ti->set(out, variant == 1 && p == 1 && k == K / 3 ? x | 1 : 0);
    break;
  case DART_OP_LXOR: /* a third of them zero: the parity of the rest */
    ti->set(out, x % 3 == 0 ? 0 : x | 1);
    break;
  default: /* BXOR, REPLACE, NO_OP */
    if (ti->floating) {
      ti->set_real(out, (double)(x % 100000));
    } else {
      ti->set(out, x);
    }
  }
}

static inline void initial(const struct type_info *ti, dart_operation_t op,
                    void *out)
{
  switch (op) {
  case DART_OP_MIN:
  case DART_OP_MAX:
    if (ti->floating) {
      ti->set_real(out, 0.25);
    } else {
      ti->set(out, UINT64_C(1) << (8 * ti->size - 2));
    }
    break;
  case DART_OP_SUM:
    if (ti->floating) {
      ti->set_real(out, 0.5);
    } else {
      ti->set(out, mix(42));
    }
    break;
  case DART_OP_PROD:
    if (ti->floating) {
      ti->set_real(out, 1.5);
    } else {
      ti->set(out, 3);
    }
    break;
  case DART_OP_BAND: ti->set(out, UINT64_MAX); break;
  case DART_OP_BOR:
  case DART_OP_LOR:  ti->set(out, 0);          break;
  case DART_OP_LAND: ti->set(out, 42);         break;
  case DART_OP_LXOR: ti->set(out, 5);          break;
  default:           ti->set(out, 77);         break;
  }
}

/* Counters and tokens: steps per worker such that the P * n + 1 values
 * fit the type. */
static inline int count_steps(const struct type_info *ti)
{
  return ti->size == 1 ? K_BYTE : ti->size == 2 && K > K_SHORT ? K_SHORT : K;
}

#endif
