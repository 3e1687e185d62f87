/* Shared part of the two-sided test programs (test_two_sided_messages.c:
 * ring, tags and ordering, matching by sender, pairwise exchange, tag 0
 * around collectives; test_two_sided_errors.c: argument errors and
 * truncation): dart_send / dart_recv / dart_sendrecv of
 * dart-if/include/dash/dart/if/dart_communication.h by global unit id.
 * Every element depends on the sender and the message, so a message
 * matched to the wrong receive, truncated or reordered shows up.
 *
 * dart_send may wait for the matching receive (dart_communication.h), so a
 * blocking send is issued before its receive is posted only for tiny
 * messages to another unit, which MPI sends eagerly; never to oneself
 * (MPICH's self path does wait). Everything else is ordered so that the
 * receive is sure to come: even units send first in the ring, big messages
 * go one direction at a time, exchanges with oneself use dart_sendrecv. */
#ifndef DART_TEST_TWO_SIDED_COMMON_H
#define DART_TEST_TWO_SIDED_COMMON_H

#include "test.h"
#include "test_values.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int me, n;

static inline dart_global_unit_t unit(int u) { return DART_GLOBAL_UNIT_ID(u); }

/* A distinct key per (sender, message) with message < 16. */
static inline int key(int sender, int msg) { return 1 + sender * 16 + msg; }

/* ---------------------------------------------------------------------
 * Types and patterns.
 * --------------------------------------------------------------------- */

struct triple {
  int a, b, c;
};
_Static_assert(sizeof(struct triple) == 12, "struct triple must be packed");
static dart_datatype_t triple_type = DART_TYPE_UNDEFINED; /* custom(12) */
static dart_datatype_t odd_type = DART_TYPE_UNDEFINED;    /* custom(3) */

static inline size_t tsize(dart_datatype_t t)
{
  if (basic_name(t) != NULL) {
    return basic_size(t);
  }
  if (t == odd_type) {
    return 3;
  }
  ASSERT(t == triple_type);
  return sizeof(struct triple);
}

static inline const char *tname(dart_datatype_t t)
{
  const char *name = basic_name(t);
  if (name != NULL) {
    return name;
  }
  return t == triple_type ? "custom(12)" : t == odd_type ? "custom(3)"
                                                         : "other";
}

static inline struct triple triple_pattern(int k, size_t i)
{
  int j = (int)i;
  return (struct triple){ k * 1000 + j, -(k * 7 + j * 3), k ^ (j * 17) };
}

static inline unsigned char odd_pattern(int k, size_t byte)
{
  return (unsigned char)((size_t)k * 31 + byte * 7 + 1);
}

static inline void fill_block(dart_datatype_t t, void *buf, size_t nelem, int k)
{
  for (size_t i = 0; i < nelem; ++i) {
    if (t == triple_type) {
      struct triple v = triple_pattern(k, i);
      memcpy((char *)buf + i * sizeof v, &v, sizeof v);
    } else if (t == odd_type) {
      for (size_t b = 0; b < 3; ++b) {
        ((unsigned char *)buf)[3 * i + b] = odd_pattern(k, 3 * i + b);
      }
    } else {
      put_val(t, buf, i, basic_pattern(t, k, i));
    }
  }
}

#define check_block(...) check_block_at(__FILE__, __LINE__, __VA_ARGS__)
static inline void check_block_at(const char *file, int line,
                                  dart_datatype_t t, const void *buf,
                                  size_t nelem, int k)
{
  for (size_t i = 0; i < nelem; ++i) {
    if (t == triple_type) {
      struct triple got, want = triple_pattern(k, i);
      memcpy(&got, (const char *)buf + i * sizeof got, sizeof got);
      if (got.a != want.a || got.b != want.b || got.c != want.c) {
        test_failf(file, line, "element %zu (key %d): got {%d,%d,%d}, expected "
                   "{%d,%d,%d}", i, k, got.a, got.b, got.c, want.a, want.b,
                   want.c);
      }
    } else if (t == odd_type) {
      for (size_t b = 0; b < 3; ++b) {
        unsigned char got = ((const unsigned char *)buf)[3 * i + b];
        if (got != odd_pattern(k, 3 * i + b)) {
          test_failf(file, line, "element %zu byte %zu (key %d): got %u, "
                     "expected %u", i, b, k, got,
                     odd_pattern(k, 3 * i + b));
        }
      }
    } else {
      long double got = get_val(t, buf, i), want = basic_pattern(t, k, i);
      if (got != want) {
        test_failf(file, line, "element %zu (key %d): got %Lg, expected %Lg", i,
                   k, got, want);
      }
    }
  }
}

/* The pairing: unit i with i ^ 1 when that exists, else with itself. */
static inline int partner(void) { return (me ^ 1) < n ? (me ^ 1) : me; }

/* A strided type, and the id of a destroyed one, for the error checks. */
static dart_datatype_t strided = DART_TYPE_UNDEFINED;
static dart_datatype_t dead_id = DART_TYPE_UNDEFINED;

static inline void setup(int *argc, char ***argv)
{
  test_start(argc, argv, &me, &n);
  ASSERT_OK(dart_type_create_custom(sizeof(struct triple), &triple_type));
  ASSERT_OK(dart_type_create_custom(3, &odd_type));
  dart_datatype_t dead = DART_TYPE_UNDEFINED;
  ASSERT_OK(dart_type_create_strided(DART_TYPE_INT, 4, 2, &strided));
  ASSERT_OK(dart_type_create_custom(8, &dead));
  dead_id = dead;
  ASSERT_OK(dart_type_destroy(&dead));
}

static inline void teardown(void)
{
  ASSERT_OK(dart_type_destroy(&strided));
  ASSERT_OK(dart_type_destroy(&odd_type));
  ASSERT_OK(dart_type_destroy(&triple_type));
  ASSERT_EQ(triple_type, DART_TYPE_UNDEFINED);
  ASSERT_OK(dart_exit());
}

#endif
