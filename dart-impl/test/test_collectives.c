/* Collectives (spec 3.6.1, 4.6) on DART_TEAM_ALL and on a sub-team that
 * leaves unit 0 out where it can: data movement with every basic type and
 * a custom type, reductions with every valid (type, op) pair, MINMAX, user
 * operations (commutative with userdata, non-commutative in team order),
 * and the argument errors every unit makes alike.
 *
 * Every element depends on the contributing unit and on its index, so a
 * block in the wrong place, a missing contribution or a truncated transfer
 * changes the result. Counts above 7 and not multiples of it run the
 * large-count paths under DART_MPI_COUNT_LIMIT=7. */
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

static struct team_ctx team_ctx_of(dart_team_t team, const char *label,
                                   bool full)
{
  struct team_ctx c = { team, 0, 0, label, full };
  test_team_position(team, &c.me, &c.n);
  return c;
}

/* A distinct key per (a, b) with b < 8: sender/root and block/variant. */
static int key(int a, int b) { return 1 + a * 8 + b; }

/* ---------------------------------------------------------------------
 * Types and element patterns.
 * --------------------------------------------------------------------- */

#define NBASIC 11
static const dart_datatype_t basic[NBASIC] = {
  DART_TYPE_BYTE,     DART_TYPE_SHORT,     DART_TYPE_INT,
  DART_TYPE_UINT,     DART_TYPE_LONG,      DART_TYPE_ULONG,
  DART_TYPE_LONGLONG, DART_TYPE_ULONGLONG, DART_TYPE_FLOAT,
  DART_TYPE_DOUBLE,   DART_TYPE_LONG_DOUBLE
};

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

static size_t tsize(dart_datatype_t t)
{
  if (basic_name(t) != NULL) {
    return basic_size(t);
  }
  ASSERT(t == triple_type);
  return sizeof(struct triple);
}

static const char *tname(dart_datatype_t t)
{
  const char *name = basic_name(t);
  return name != NULL ? name : t == triple_type ? "custom(12)" : "other";
}

static struct triple triple_pattern(int k, size_t i)
{
  int j = (int)i;
  return (struct triple){ k * 1000 + j, -(k * 7 + j * 3), k ^ (j * 17) };
}

static void fill_block(dart_datatype_t t, void *buf, size_t off, size_t n,
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
static void check_block_at(const char *file, int line, dart_datatype_t t, const void *buf,
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
static size_t movement_types(dart_datatype_t *out)
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
 * Barrier and data movement. Combinations of root, type, count and
 * buffer mode rotate, so that each value of each occurs without running
 * the whole cross product (every collective costs milliseconds when
 * MPICH runs more units than cores).
 * --------------------------------------------------------------------- */

static void test_barrier(const struct team_ctx *c)
{
  STAGE("%s: barrier", c->label);
  ASSERT_OK(dart_barrier(c->team));
}

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
  for (int ti = 0; ti <= NBASIC; ++ti) {
    dart_datatype_t t = ti < NBASIC ? basic[ti] : triple_type;
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

static void one_scatter(const struct team_ctx *c, dart_datatype_t t,
                        size_t nelem, int root)
{
  size_t bytes = nelem * tsize(t);
  STAGE("%s: scatter root %d type %s nelem %zu", c->label, root, tname(t),
        nelem);
  unsigned char *send = NULL;
  if (c->me == root) {
    send = xmalloc((size_t)c->n * bytes);
    for (int j = 0; j < c->n; ++j) {
      fill_block(t, send, (size_t)j * nelem, nelem, key(root, j));
    }
  }
  unsigned char *recv = xmalloc(bytes);
  memset(recv, POISON, bytes);
  /* sendbuf is ignored on non-roots: they pass NULL. */
  ASSERT_OK(dart_scatter(send, recv, nelem, t, DART_TEAM_UNIT_ID(root),
                         c->team));
  check_block(t, recv, 0, nelem, key(root, c->me));
  for (int j = 0; send != NULL && j < c->n; ++j) {
    check_block(t, send, (size_t)j * nelem, nelem, key(root, j));
  }
  free(send);
  free(recv);
}

static void one_gather(const struct team_ctx *c, dart_datatype_t t,
                       size_t nelem, int root, bool null_off_root)
{
  size_t bytes = nelem * tsize(t), total = (size_t)c->n * bytes;
  STAGE("%s: gather root %d type %s nelem %zu", c->label, root, tname(t),
        nelem);
  unsigned char *send = xmalloc(bytes);
  fill_block(t, send, 0, nelem, key(root, c->me));
  /* recvbuf is ignored on non-roots: NULL, or a buffer that must stay
   * untouched. */
  unsigned char *recv = NULL;
  if (c->me == root || !null_off_root) {
    recv = xmalloc(total);
    memset(recv, POISON, total);
  }
  ASSERT_OK(dart_gather(send, recv, nelem, t, DART_TEAM_UNIT_ID(root), c->team));
  if (c->me == root) {
    for (int j = 0; j < c->n; ++j) {
      check_block(t, recv, (size_t)j * nelem, nelem, key(root, j));
    }
  } else if (recv != NULL) {
    ASSERT_POISON(recv, 0, total);
  }
  check_block(t, send, 0, nelem, key(root, c->me));
  free(send);
  free(recv);
}

static void test_scatter_gather(const struct team_ctx *c)
{
  static const size_t nelems[] = { 1, 9, 37 };
  dart_datatype_t types[8];
  int ntypes = (int)movement_types(types);
  /* Every type and every root (at least twice), counts rotating. */
  int rounds = 2 * c->n > ntypes ? 2 * c->n : ntypes;
  for (int k = 0; k < rounds; ++k) {
    int root = k % c->n;
    one_scatter(c, types[k % ntypes], nelems[k % 3], root);
    one_gather(c, types[(k + 3) % ntypes], nelems[(k + 1) % 3], root,
               (k / c->n) % 2 == 0);
  }
  one_scatter(c, DART_TYPE_INT, 1000, c->n - 1);
  one_gather(c, DART_TYPE_INT, 1000, c->n - 1, false);
}

enum { MODE_SEPARATE, MODE_NULL, MODE_SAME };
static const char *const mode_name[] = { "separate buffers",
                                         "in place (NULL)",
                                         "in place (sendbuf == recvbuf)" };

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
  const void *arg = mode == MODE_SEPARATE ? send
                    : mode == MODE_NULL   ? NULL
                                          : recv;
  ASSERT_OK(dart_allgather(arg, recv, nelem, t, c->team));
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

static void test_allgatherv(const struct team_ctx *c)
{
  const dart_datatype_t types[] = { DART_TYPE_INT, DART_TYPE_BYTE,
                                    DART_TYPE_DOUBLE, DART_TYPE_LONG_DOUBLE,
                                    triple_type };
  const int ntypes = (int)(sizeof types / sizeof types[0]);
  size_t n = (size_t)c->n;
  size_t *cnt = xmalloc(n * sizeof(size_t));
  size_t *displ = xmalloc(n * sizeof(size_t));
  for (int variant = 0; variant < 2; ++variant) {
    /* Unit 1 (mod 3) contributes nothing; the others 1..5 elements
     * (variant 0) or more than the count limit (variant 1). Blocks lie
     * in reverse unit order with gaps of 3 elements before, between and
     * after them. */
    for (size_t u = 0; u < n; ++u) {
      cnt[u] = u % 3 == 1 ? 0 : variant == 0 ? 1 + u % 5 : 8 + 3 * u;
    }
    size_t total = 2;
    for (size_t u = n; u-- > 0;) {
      displ[u] = total;
      total += cnt[u] + 3;
    }
    bool *covered = xmalloc(total * sizeof(bool));
    memset(covered, 0, total * sizeof(bool));
    for (size_t u = 0; u < n; ++u) {
      for (size_t i = 0; i < cnt[u]; ++i) {
        covered[displ[u] + i] = true;
      }
    }
    size_t mine = cnt[c->me];
    for (int ti = 0; ti < ntypes; ++ti) {
      dart_datatype_t t = types[ti];
      size_t es = tsize(t);
      int mode = (variant * ntypes + ti) % 3;
      STAGE("%s: allgatherv variant %d type %s, %s", c->label, variant,
            tname(t), mode_name[mode]);
      int kv = variant * 3 + mode;
      unsigned char *recv = xmalloc(total * es);
      memset(recv, POISON, total * es);
      unsigned char *send = NULL;
      if (mode == MODE_SEPARATE) {
        send = xmalloc(mine * es);
        fill_block(t, send, 0, mine, key(c->me, kv));
      } else {
        fill_block(t, recv, displ[c->me], mine, key(c->me, kv));
      }
      const void *arg = mode == MODE_SEPARATE ? send
                        : mode == MODE_NULL   ? NULL
                                              : recv;
      ASSERT_OK(dart_allgatherv(arg, mine, t, recv, cnt, displ, c->team));
      for (size_t u = 0; u < n; ++u) {
        check_block(t, recv, displ[u], cnt[u], key((int)u, kv));
      }
      for (size_t e = 0; e < total; ++e) {
        if (!covered[e]) {
          ASSERT_POISON(recv, e * es, es);
        }
      }
      free(send);
      free(recv);
    }
    free(covered);
  }
  free(cnt);
  free(displ);
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
  const void *arg = mode == MODE_SEPARATE ? send
                    : mode == MODE_NULL   ? NULL
                                          : recv;
  ASSERT_OK(dart_alltoall(arg, recv, nelem, t, c->team));
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
 * Predefined reductions: every valid (type, op) pair.
 * --------------------------------------------------------------------- */

enum kind { K_BYTE, K_SIGNED, K_UNSIGNED, K_FLOAT };
enum { MODE_ALL, MODE_ALL_IN_PLACE, MODE_ROOT };
static const char *const red_mode_name[] = { "allreduce",
                                             "allreduce in place",
                                             "reduce" };

static const char *op_name(dart_operation_t op)
{
  switch (op) {
  case DART_OP_MIN:    return "MIN";
  case DART_OP_MAX:    return "MAX";
  case DART_OP_MINMAX: return "MINMAX";
  case DART_OP_SUM:    return "SUM";
  case DART_OP_PROD:   return "PROD";
  case DART_OP_BAND:   return "BAND";
  case DART_OP_LAND:   return "LAND";
  case DART_OP_BOR:    return "BOR";
  case DART_OP_LOR:    return "LOR";
  case DART_OP_BXOR:   return "BXOR";
  case DART_OP_LXOR:   return "LXOR";
  default:             return "user/other";
  }
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

/* The check body shared by integer and floating reductions: unit me
 * contributes operand(op, me, i); the expected result folds all units'
 * operands with the same C operation. */
#define DEFINE_REDUCE_CHECK(SUF, CT)                                       \
  static void reduce_##SUF(const struct team_ctx *c, dart_datatype_t t,   \
                           dart_operation_t op, size_t nelem, int mode,   \
                           int root)                                      \
  {                                                                        \
    size_t bytes = nelem * sizeof(CT);                                     \
    CT *send = xmalloc(bytes), *recv = xmalloc(bytes);                     \
    CT *want = xmalloc(bytes);                                             \
    for (size_t i = 0; i < nelem; ++i) {                                   \
      send[i] = operand_##SUF(op, c->me, i);                               \
      want[i] = operand_##SUF(op, 0, i);                                   \
      for (int u = 1; u < c->n; ++u) {                                     \
        want[i] = fold_##SUF(op, want[i], operand_##SUF(op, u, i));        \
      }                                                                    \
    }                                                                      \
    memset(recv, POISON, bytes);                                           \
    bool has_result = mode != MODE_ROOT || c->me == root;                  \
    if (mode == MODE_ALL) {                                                \
      ASSERT_OK(dart_allreduce(send, recv, nelem, t, op, c->team));             \
    } else if (mode == MODE_ALL_IN_PLACE) {                                \
      memcpy(recv, send, bytes);                                           \
      ASSERT_OK(dart_allreduce(recv, recv, nelem, t, op, c->team));             \
    } else {                                                               \
      /* recvbuf is ignored off the root: NULL for odd roots. */           \
      void *dst = !has_result && root % 2 == 1 ? NULL : (void *)recv;      \
      ASSERT_OK(dart_reduce(send, dst, nelem, t, op, DART_TEAM_UNIT_ID(root),   \
                            c->team));                                          \
    }                                                                      \
    for (size_t i = 0; i < nelem; ++i) {                                   \
      if (send[i] != operand_##SUF(op, c->me, i)) {                        \
        FAILF("sendbuf element %zu was modified", i);       \
      }                                                                    \
      if (has_result && recv[i] != want[i]) {                              \
        FAILF("element %zu: got %Lg, expected %Lg", i,      \
    (long double)recv[i], (long double)want[i]);            \
      }                                                                    \
    }                                                                      \
    if (!has_result) {                                                     \
      ASSERT_POISON(recv, 0, bytes);                              \
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
} reducers[NBASIC] = {
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

static const dart_operation_t integer_ops[] = {
  DART_OP_MIN,  DART_OP_MAX, DART_OP_SUM,  DART_OP_PROD, DART_OP_BAND,
  DART_OP_BOR,  DART_OP_BXOR, DART_OP_LAND, DART_OP_LOR, DART_OP_LXOR
};
static const dart_operation_t floating_ops[] = { DART_OP_MIN, DART_OP_MAX,
                                                 DART_OP_SUM, DART_OP_PROD };
static const dart_operation_t byte_ops[] = { DART_OP_BAND, DART_OP_BOR,
                                             DART_OP_BXOR };

static void test_reductions(const struct team_ctx *c)
{
  for (size_t r = 0; r < NBASIC; ++r) {
    const dart_operation_t *ops = integer_ops;
    size_t nops = sizeof integer_ops / sizeof integer_ops[0];
    if (reducers[r].kind == K_FLOAT) {
      ops = floating_ops;
      nops = sizeof floating_ops / sizeof floating_ops[0];
    } else if (reducers[r].kind == K_BYTE) {
      ops = byte_ops;
      nops = sizeof byte_ops / sizeof byte_ops[0];
    }
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
    CT *send = xmalloc(bytes), *recv = xmalloc(bytes);                     \
    CT *want = xmalloc(bytes);                                             \
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
    memset(recv, POISON, bytes);                                           \
    bool has_result = mode != MODE_ROOT || c->me == root;                  \
    if (mode == MODE_ALL) {                                                \
      ASSERT_OK(dart_allreduce(send, recv, nelem, t, DART_OP_MINMAX, c->team)); \
    } else if (mode == MODE_ALL_IN_PLACE) {                                \
      memcpy(recv, send, bytes);                                           \
      ASSERT_OK(dart_allreduce(recv, recv, nelem, t, DART_OP_MINMAX, c->team)); \
    } else {                                                               \
      ASSERT_OK(dart_reduce(send, recv, nelem, t, DART_OP_MINMAX,               \
                            DART_TEAM_UNIT_ID(root), c->team));                 \
    }                                                                      \
    if (has_result) {                                                      \
      for (size_t i = 0; i < nelem; ++i) {                                 \
        if (recv[i] != want[i]) {                                          \
          FAILF("element %zu (%s of pair %zu): got %Lg, "   \
      "expected %Lg", i, i % 2 ? "max" : "min", i / 2,      \
      (long double)recv[i], (long double)want[i]);          \
        }                                                                  \
      }                                                                    \
    } else {                                                               \
      ASSERT_POISON(recv, 0, bytes);                              \
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
static const minmax_fn minmax_of[NBASIC] = {
  minmax_byte,     minmax_short,     minmax_int,       minmax_uint,
  minmax_long,     minmax_ulong,     minmax_longlong,  minmax_ulonglong,
  minmax_float,    minmax_double,    minmax_long_double
};

static void test_minmax(const struct team_ctx *c)
{
  /* Every type, 3 pairs, modes rotating. */
  for (int ti = 0; c->full && ti < NBASIC; ++ti) {
    int mode = ti % 3, root = (ti + 1) % c->n;
    STAGE("%s: %s MINMAX %s, 3 pairs, root %d", c->label,
          red_mode_name[mode], tname(basic[ti]), root);
    minmax_of[ti](c, basic[ti], 3, mode, root);
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

static void triple_combine(const void *invec, void *inoutvec, size_t len,
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

static struct triple triple_operand(int u, size_t i)
{
  int j = (int)i;
  return (struct triple){ u * 100 + j, (u * 37 + j * 11) % 50,
                          (u * 400 + j * 13 + 500) % 997 };
}

/* Non-commutative on LONGLONG: decimal strings behind a leading 1
 * ("1" + digits), combined by concatenation, so the result spells the
 * contributions in the order they were combined. */
static int concat_userdata;

static long long concat2(long long x, long long y)
{
  long long p = 1;
  while (p <= y / 10) {
    p *= 10;
  }
  return x * p + (y - p);
}

static void concat_combine(const void *invec, void *inoutvec, size_t len,
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
static long long concat_operand(int u, size_t i)
{
  long long v = 1;
  for (int d = 0; d <= u % 3; ++d) {
    v = v * 10 + (long long)(((size_t)u * 3 + i * 7 + (size_t)d * 5) % 10);
  }
  return v;
}

/* Non-commutative on a custom type: 2x2 matrix product. */
static void mat_mul(const struct mat2 *x, const struct mat2 *y,
                    struct mat2 *out)
{
  struct mat2 r;
  r.m[0] = x->m[0] * y->m[0] + x->m[1] * y->m[2];
  r.m[1] = x->m[0] * y->m[1] + x->m[1] * y->m[3];
  r.m[2] = x->m[2] * y->m[0] + x->m[3] * y->m[2];
  r.m[3] = x->m[2] * y->m[1] + x->m[3] * y->m[3];
  *out = r;
}

static void mat_combine(const void *invec, void *inoutvec, size_t len,
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

static struct mat2 mat_operand(int u, size_t i)
{
  long a = (long)((i + (size_t)u) % 3), b = (long)((2 * i + 1) % 3);
  long c = (long)(((size_t)u * 2 + i) % 2) - 1;
  return (struct mat2){ { a + 1, b, c, 1 + (long)(u % 2) } };
}

static dart_operation_t triple_op = DART_OP_UNDEFINED;
static dart_operation_t concat_op = DART_OP_UNDEFINED;
static dart_operation_t mat_op = DART_OP_UNDEFINED;

/* Runs one reduction of `nelem` elements of `es` bytes in `mode` and
 * returns the result buffer (NULL off the root of a reduce). */
static void *run_user_reduction(const struct team_ctx *c,
                                const void *send, size_t nelem, size_t es,
                                dart_datatype_t t, dart_operation_t op,
                                int mode, int root)
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
    ASSERT_OK(dart_reduce(send, recv, nelem, t, op, DART_TEAM_UNIT_ID(root),
                          c->team));
    if (c->me != root) {
      ASSERT_POISON(recv, 0, bytes);
      free(recv);
      return NULL;
    }
  }
  return recv;
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
      struct triple *tr = run_user_reduction(c, ts, nelem, sizeof *ts,
                                             triple_type, triple_op, mode,
                                             root);
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
      long long *lr = run_user_reduction(c, ls, nelem, sizeof *ls,
                                         DART_TYPE_LONGLONG, concat_op, mode,
                                         root);
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
      struct mat2 *mr = run_user_reduction(c, ms, nelem, sizeof *ms,
                                           mat_type, mat_op, mode, root);
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

/* ---------------------------------------------------------------------
 * Errors: every unit makes the same bad call, so nobody waits.
 * --------------------------------------------------------------------- */

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
  reduce_int(c, DART_TYPE_INT, DART_OP_SUM, 10, MODE_ALL, 0);
  reduce_uint(c, DART_TYPE_UINT, DART_OP_MAX, 10, MODE_ROOT, c->n - 1);
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

/* ---------------------------------------------------------------------
 * Driver.
 * --------------------------------------------------------------------- */

/* The sub-team: odd units and the last one ({0} at 1 unit, {1} at 2,
 * {1, 2} at 3, {1, 3} at 4), so team and global ids differ. */
static dart_team_t sub = DART_TEAM_NULL;
static bool member;
static struct team_ctx all_ctx;
static struct team_ctx sub_ctx = { DART_TEAM_NULL, -1, 0, "sub-team", false };
static dart_datatype_t strided = DART_TYPE_UNDEFINED;
static int me, n;

static void setup(int *argc, char ***argv)
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
static void teardown(void)
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
static void on_both_teams(void (*check)(const struct team_ctx *c))
{
  check(&all_ctx);
  if (member) {
    check(&sub_ctx);
  }
}

static void local_errors(void)
{
  test_local_errors(strided);
}

static void movement_on(const struct team_ctx *c)
{
  test_barrier(c);
  test_bcast(c);
  test_scatter_gather(c);
  test_allgather(c);
  test_allgatherv(c);
  test_alltoall(c);
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

static void data_movement(void) { on_both_teams(movement_on); }
static void reductions(void) { on_both_teams(reductions_on); }
static void user_ops(void) { on_both_teams(user_ops_on); }

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
  { "reductions", reductions },
  { "user_ops", user_ops },
  { "errors_live_handles", errors_live_handles },
  { "errors_dead_handles", errors_dead_handles },
  { "still_working", still_working },
  { "team_destroyed", team_destroyed },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
