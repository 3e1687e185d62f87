/* Shared part of the collective test programs (test_collectives_move.c:
 * barrier, bcast, allgather, alltoall and the argument errors;
 * test_collectives_gather.c: scatter, gather and allgatherv;
 * test_collectives_reduce.c: reductions, MINMAX and user operations). The calls are those of
 * dart-if/include/dash/dart/if/dart_communication.h, with the types and
 * operations of dart_types.h; docs/design.md, "Collectives and the
 * polling barrier", says how they run. Every case runs on DART_TEAM_ALL
 * and on a sub-team that leaves unit 0 out where it can.
 *
 * Every element depends on the contributing unit and on its index, so a
 * block in the wrong place, a missing contribution or a truncated transfer
 * changes the result. Counts above 7 and not multiples of it run the
 * large-count paths under DART_MPI_COUNT_LIMIT=7. */
#ifndef DART_TEST_COLLECTIVES_COMMON_H
#define DART_TEST_COLLECTIVES_COMMON_H

#include "test.h"
#include "test_values.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct team_ctx {
  dart_team_t team;
  int         me;
  int         n;
  const char *label;
  bool        full; /* every (type, op) pair, or a cross-section */
};

static inline struct team_ctx team_ctx_of(dart_team_t team, const char *label,
                                   bool full)
{
  struct team_ctx c = { team, 0, 0, label, full };
  test_team_position(team, &c.me, &c.n);
  return c;
}

/* A distinct key per (a, b) with b < 8: sender/root and block/variant. */
static inline int key(int a, int b) { return 1 + a * 8 + b; }

/* ---------------------------------------------------------------------
 * Types and element patterns.
 * --------------------------------------------------------------------- */

/* dart_type_create_custom(12): three ints. */
struct triple {
  int a, b, c;
};
_Static_assert(sizeof(struct triple) == 12, "struct triple must be packed");
static dart_datatype_t triple_type = DART_TYPE_UNDEFINED;

/* dart_type_create_custom(32): a 2x2 matrix of longs, row major. */
struct mat2 {
  long m[4];
};
static dart_datatype_t mat_type = DART_TYPE_UNDEFINED;

static inline size_t tsize(dart_datatype_t t)
{
  if (basic_name(t) != NULL) {
    return basic_size(t);
  }
  ASSERT(t == triple_type);
  return sizeof(struct triple);
}

static inline const char *tname(dart_datatype_t t)
{
  const char *name = basic_name(t);
  return name != NULL ? name : t == triple_type ? "custom(12)" : "other";
}

static inline struct triple triple_pattern(int k, size_t i)
{
  int j = (int)i;
  return (struct triple){ k * 1000 + j, -(k * 7 + j * 3), k ^ (j * 17) };
}

static inline void fill_block(dart_datatype_t t, void *buf, size_t off,
                              size_t n,
                       int k)
{
  for (size_t i = 0; i < n; ++i) {
    if (t == triple_type) {
      struct triple v = triple_pattern(k, i);
      memcpy((char *)buf + (off + i) * sizeof v, &v, sizeof v);
    } else {
      put_val(t, buf, off + i, basic_pattern(t, k, i));
    }
  }
}

#define check_block(...) check_block_at(__FILE__, __LINE__, __VA_ARGS__)
static inline void check_block_at(const char *file, int line,
                                  dart_datatype_t t, const void *buf,
                        size_t off, size_t n, int k)
{
  for (size_t i = 0; i < n; ++i) {
    if (t == triple_type) {
      struct triple got, want = triple_pattern(k, i);
      memcpy(&got, (const char *)buf + (off + i) * sizeof got, sizeof got);
      if (got.a != want.a || got.b != want.b || got.c != want.c) {
        test_failf(file, line, "element %zu (block key %d): got {%d,%d,%d}, "
                   "expected {%d,%d,%d}", off + i, k, got.a, got.b, got.c,
                   want.a, want.b, want.c);
      }
    } else {
      long double got = get_val(t, buf, off + i);
      long double want = basic_pattern(t, k, i);
      if (got != want) {
        test_failf(file, line, "element %zu (block key %d): got %Lg, expected "
                   "%Lg", off + i, k, got, want);
      }
    }
  }
}

/* The types moved by scatter/gather/allgather: a cross-section of the
 * basic types (all of them go through bcast) plus the custom type. */
static inline size_t movement_types(dart_datatype_t *out)
{
  size_t k = 0;
  out[k++] = DART_TYPE_BYTE;
  out[k++] = DART_TYPE_SHORT;
  out[k++] = DART_TYPE_INT;
  out[k++] = DART_TYPE_ULONGLONG;
  out[k++] = DART_TYPE_FLOAT;
  out[k++] = DART_TYPE_DOUBLE;
  out[k++] = DART_TYPE_LONG_DOUBLE;
  out[k++] = triple_type;
  return k;
}

/* ---------------------------------------------------------------------
 * User operations.
 * --------------------------------------------------------------------- */

/* Commutative on the custom triple type: a summed, b maximised, c summed
 * modulo a number that only userdata knows. */
#define TRIPLE_MAGIC 0x5eed
struct triple_op_data {
  int    magic;
  int    modulus;
  size_t max_len;
  int    calls;
};
static struct triple_op_data triple_data = { TRIPLE_MAGIC, 997, 10, 0 };

static inline void triple_combine(const void *invec, void *inoutvec, size_t len,
                           void *user_data)
{
  struct triple_op_data *d = user_data;
  ASSERT(d == &triple_data && d->magic == TRIPLE_MAGIC);
  ASSERT(len <= d->max_len);
  d->calls++;
  for (size_t k = 0; k < len; ++k) {
    struct triple x, y;
    memcpy(&x, (const char *)invec + k * sizeof x, sizeof x);
    memcpy(&y, (char *)inoutvec + k * sizeof y, sizeof y);
    y.a = x.a + y.a;
    y.b = x.b > y.b ? x.b : y.b;
    y.c = (x.c + y.c) % d->modulus;
    memcpy((char *)inoutvec + k * sizeof y, &y, sizeof y);
  }
}

static inline struct triple triple_operand(int u, size_t i)
{
  int j = (int)i;
  return (struct triple){ u * 100 + j, (u * 37 + j * 11) % 50,
                          (u * 400 + j * 13 + 500) % 997 };
}

/* Non-commutative on LONGLONG: decimal strings behind a leading 1
 * ("1" + digits), combined by concatenation, so the result spells the
 * contributions in the order they were combined. */
static int concat_userdata;

static inline long long concat2(long long x, long long y)
{
  long long p = 1;
  while (p <= y / 10) {
    p *= 10;
  }
  return x * p + (y - p);
}

static inline void concat_combine(const void *invec, void *inoutvec, size_t len,
                           void *user_data)
{
  ASSERT(user_data == &concat_userdata);
  for (size_t k = 0; k < len; ++k) {
    long long x, y;
    memcpy(&x, (const char *)invec + k * sizeof x, sizeof x);
    memcpy(&y, (char *)inoutvec + k * sizeof y, sizeof y);
    y = concat2(x, y);
    memcpy((char *)inoutvec + k * sizeof y, &y, sizeof y);
  }
}

/* Unit u contributes u % 3 + 1 digits. */
static inline long long concat_operand(int u, size_t i)
{
  long long v = 1;
  for (int d = 0; d <= u % 3; ++d) {
    v = v * 10 + (long long)(((size_t)u * 3 + i * 7 + (size_t)d * 5) % 10);
  }
  return v;
}

/* Non-commutative on a custom type: 2x2 matrix product. */
static inline void mat_mul(const struct mat2 *x, const struct mat2 *y,
                    struct mat2 *out)
{
  struct mat2 r;
  r.m[0] = x->m[0] * y->m[0] + x->m[1] * y->m[2];
  r.m[1] = x->m[0] * y->m[1] + x->m[1] * y->m[3];
  r.m[2] = x->m[2] * y->m[0] + x->m[3] * y->m[2];
  r.m[3] = x->m[2] * y->m[1] + x->m[3] * y->m[3];
  *out = r;
}

static inline void mat_combine(const void *invec, void *inoutvec, size_t len,
                        void *user_data)
{
  ASSERT(user_data == NULL);
  for (size_t k = 0; k < len; ++k) {
    struct mat2 x, y;
    memcpy(&x, (const char *)invec + k * sizeof x, sizeof x);
    memcpy(&y, (char *)inoutvec + k * sizeof y, sizeof y);
    mat_mul(&x, &y, &y);
    memcpy((char *)inoutvec + k * sizeof y, &y, sizeof y);
  }
}

static inline struct mat2 mat_operand(int u, size_t i)
{
  long a = (long)((i + (size_t)u) % 3), b = (long)((2 * i + 1) % 3);
  long c = (long)(((size_t)u * 2 + i) % 2) - 1;
  return (struct mat2){ { a + 1, b, c, 1 + (long)(u % 2) } };
}

static dart_operation_t triple_op = DART_OP_UNDEFINED;
static dart_operation_t concat_op = DART_OP_UNDEFINED;
static dart_operation_t mat_op = DART_OP_UNDEFINED;

/* The buffer modes of the collectives with an in-place form: a separate
 * send buffer, in place through NULL, or in place through the receive
 * buffer itself. */
enum { MODE_SEPARATE, MODE_NULL, MODE_SAME };
static const char *const mode_name[] = { "separate buffers",
                                         "in place (NULL)",
                                         "in place (sendbuf == recvbuf)" };

static inline const void *mode_sendbuf(int mode, const void *send,
                                       const void *recv)
{
  return mode == MODE_SEPARATE ? send : mode == MODE_NULL ? NULL : recv;
}

static inline void test_barrier(const struct team_ctx *c)
{
  STAGE("%s: barrier", c->label);
  ASSERT_OK(dart_barrier(c->team));
}

/* ---------------------------------------------------------------------
 * Setup and teardown.
 * --------------------------------------------------------------------- */


/* The sub-team: odd units and the last one ({0} at 1 unit, {1} at 2,
 * {1, 2} at 3, {1, 3} at 4), so team and global ids differ. */
static dart_team_t sub = DART_TEAM_NULL;
static bool member;
static struct team_ctx all_ctx;
static struct team_ctx sub_ctx = { DART_TEAM_NULL, -1, 0, "sub-team", false };
static dart_datatype_t strided = DART_TYPE_UNDEFINED;
static int me, n;

static inline void setup(int *argc, char ***argv)
{
  test_start(argc, argv, &me, &n);
  sub = test_subteam_create(n);
  member = test_subteam_member(me, n);
  ASSERT_EQ(sub != DART_TEAM_NULL, member);

  /* Custom types and user operations (local calls). */
  ASSERT_OK(dart_type_create_custom(sizeof(struct triple), &triple_type));
  ASSERT_OK(dart_type_create_custom(sizeof(struct mat2), &mat_type));
  ASSERT(triple_type >= DART_TYPE_LAST || triple_type < 0);
  ASSERT(mat_type != triple_type);
  ASSERT_OK(dart_type_create_strided(DART_TYPE_INT, 3, 1, &strided));
  ASSERT_OK(dart_op_create(triple_combine, &triple_data, true, triple_type,
                           false, &triple_op));
  ASSERT_OK(dart_op_create(concat_combine, &concat_userdata, false,
                           DART_TYPE_LONGLONG, false, &concat_op));
  ASSERT_OK(dart_op_create(mat_combine, NULL, false, mat_type, true,
                           &mat_op));
  ASSERT(triple_op > DART_OP_LAST && concat_op > DART_OP_LAST &&
         mat_op > DART_OP_LAST);
  ASSERT(triple_op != concat_op && concat_op != mat_op);

  all_ctx = team_ctx_of(DART_TEAM_ALL, "DART_TEAM_ALL", true);
  ASSERT_EQ(all_ctx.me, me);
  ASSERT_EQ(all_ctx.n, n);
  if (member) {
    sub_ctx = team_ctx_of(sub, "sub-team", false);
    ASSERT_EQ(sub_ctx.n, n / 2 + (n % 2));
    dart_global_unit_t g;
    ASSERT_OK(dart_team_unit_l2g(sub, DART_TEAM_UNIT_ID(sub_ctx.me), &g));
    ASSERT_EQ(g.id, me);
  }
}

/* Whatever the cases run left alive goes: operations before their types. */
static inline void teardown(void)
{
  dart_operation_t *ops[] = { &concat_op, &triple_op, &mat_op };
  for (size_t i = 0; i < sizeof ops / sizeof *ops; ++i) {
    if (*ops[i] != DART_OP_UNDEFINED) {
      ASSERT_OK(dart_op_destroy(ops[i]));
    }
  }
  dart_datatype_t *types[] = { &mat_type, &triple_type, &strided };
  for (size_t i = 0; i < sizeof types / sizeof *types; ++i) {
    if (*types[i] != DART_TYPE_UNDEFINED) {
      ASSERT_OK(dart_type_destroy(types[i]));
    }
  }
  if (sub != DART_TEAM_NULL) {
    ASSERT_OK(dart_team_destroy(&sub));
  }
  test_dart_teardown();
}

/* `check` on DART_TEAM_ALL, then on the sub-team where this unit is in. */
static inline void on_both_teams(void (*check)(const struct team_ctx *c))
{
  check(&all_ctx);
  if (member) {
    check(&sub_ctx);
  }
}

#endif
