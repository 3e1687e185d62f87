/* Shared part of the atomics test programs (test_atomics_pairs.c: every
 * valid (type, operation) pair; test_atomics_contention.c: contended
 * counters, long double, dart_memalloc memory and a sub-team;
 * test_atomics_cas_errors.c: compare-and-swap on every integral type and
 * the argument errors). The calls are those of
 * dart-if/include/dash/dart/if/dart_communication.h with the types and
 * operations of dart_types.h; docs/design.md, "One-sided operations and
 * atomics through MPI", says which path each takes. */
#ifndef DART_TEST_ATOMICS_COMMON_H
#define DART_TEST_ATOMICS_COMMON_H

#include "test.h"
#include "test_values.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, n;

static inline size_t tsize(dart_datatype_t t) { return basic_size(t); }

static inline const char *tname(dart_datatype_t t)
{
  const char *name = basic_name(t);
  return name != NULL ? name : "other";
}

static inline int width(dart_datatype_t t) { return 8 * (int)tsize(t); }

/* The value of type t whose bit pattern is `bits`. */
static inline long double from_bits(dart_datatype_t t,
                                    unsigned long long bits)
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

static inline char *local_base(dart_gptr_t g, int my_team_id)
{
  void *p = NULL;
  ASSERT_OK(dart_gptr_getaddr(gptr_at(g, my_team_id, 0), &p));
  ASSERT(p != NULL);
  return p;
}

/* At most 16 units: test_atomics_pairs.c checks a fetched value against
 * every subset of the units (bit masks in an unsigned, 2^n of them), and
 * test_atomics_contention.c gives every unit a bit of a long. */
static inline void setup(int *argc, char ***argv)
{
  test_start(argc, argv, &me, &n);
  ASSERT(n <= 16);
}

static inline void teardown(void)
{
  test_dart_teardown();
}

#endif
