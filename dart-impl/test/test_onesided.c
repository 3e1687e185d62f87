/* One-sided communication (spec 3.6.3-3.6.5, 4.3, 4.5): blocking put/get
 * between every pair of units for several sizes and types, non-blocking
 * put/get with every flush, handles with every wait/test/free call, a
 * burst of thousands of small puts completed by one flush, the memory
 * model across the shared-memory and RMA paths, strided and indexed types
 * on both sides, zero-element transfers, and bad input that must be
 * refused without touching any memory. Everything runs on DART_TEAM_ALL
 * and on a sub-team whose team ids differ from the global ids.
 *
 * Values depend on the writing unit, the purpose and the position, so
 * data landing in the wrong portion, at the wrong offset or in the wrong
 * order shows up. Which targets a unit reaches by direct copy is
 * computed here from MPI and the documented switches (DART_SHM_PATH,
 * DART_UNITS_PER_NODE, MPICH cliques), independently of the runtime. */
#include "test.h"
#include "test_values.h"
#include "test_nodes.h"

#include <mpi.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int me, n;
static bool shm_on = true;
static long long *node_key; /* global unit -> node identity */

struct ctx {
  dart_team_t  team;
  int          me, n;
  int         *global_of; /* team unit -> global unit */
  const char  *label;
};

static int key(int unit, int purpose) { return 1 + unit * 64 + purpose; }

static size_t tsize(dart_datatype_t t) { return basic_size(t); }

static const char *tname(dart_datatype_t t)
{
  const char *name = basic_name(t);
  return name != NULL ? name : "other";
}

/* Element i of the data identified by `k`, exact in type t: the shared
 * pattern, with bytes spread over negative values as well. */
static long double pattern(dart_datatype_t t, int k, size_t i)
{
  if (t == DART_TYPE_BYTE) {
    return (long double)(((long long)k * 37 + (long long)i * 11 + 5) % 251 -
                         125);
  }
  return basic_pattern(t, k, i);
}

static void fill(dart_datatype_t t, void *buf, size_t count, int k)
{
  for (size_t i = 0; i < count; ++i) {
    put_val(t, buf, i, pattern(t, k, i));
  }
}

#define check_fill(...) check_fill_at(__FILE__, __LINE__, __VA_ARGS__)
static void check_fill_at(const char *file, int line, dart_datatype_t t, const void *buf,
                       size_t count, int k)
{
  for (size_t i = 0; i < count; ++i) {
    long double got = get_val(t, buf, i), want = pattern(t, k, i);
    if (got != want) {
      test_failf(file, line, "%s element %zu: got %.21Lg, expected %.21Lg (key %d)",
                 tname(t), i, got, want, k);
    }
  }
}

static char *local_base(dart_gptr_t g, int my_team_id)
{
  void *p = NULL;
  ASSERT_OK(dart_gptr_getaddr(gptr_at(g, my_team_id, 0), &p));
  return p;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Whether a transfer from me to team unit `u` completes during the call
 * (direct copy): always in a one-unit team, else with the shared-memory
 * path on and the target on my (possibly simulated) node. */
static bool direct(const struct ctx *c, int u)
{
  return c->n == 1 || (shm_on && node_key[c->global_of[u]] == node_key[me]);
}

#define check_handle(...) check_handle_at(__FILE__, __LINE__, __VA_ARGS__)
static void check_handle_at(const char *file, int line, const struct ctx *c, int u,
                         dart_handle_t h)
{
  if (direct(c, u) && h != DART_HANDLE_NULL) {
    test_failf(file, line, "transfer to team unit %d (node peer or myself) got "
               "a handle: it must complete at once", u);
  }
}

/* Node identity from MPI's view of shared memory (MPICH cliques) and
 * the runtime's documented DART_UNITS_PER_NODE split. */
static void compute_node_keys(void)
{
  node_key = test_node_keys(n);
  const char *shm = getenv("DART_SHM_PATH");
  shm_on = !(shm != NULL && (strcmp(shm, "off") == 0 || strcmp(shm, "0") == 0));
}

static struct ctx make_ctx(dart_team_t team, const char *label)
{
  struct ctx c = { team, 0, 0, NULL, label };
  test_team_position(team, &c.me, &c.n);
  c.global_of = xmalloc((size_t)c.n * sizeof(int));
  for (int u = 0; u < c.n; ++u) {
    dart_global_unit_t g;
    ASSERT_OK(dart_team_unit_l2g(team, DART_TEAM_UNIT_ID(u), &g));
    c.global_of[u] = g.id;
  }
  return c;
}

/* A byte segment on the team with `bytes + 64 * team unit` bytes per
 * unit (portions of different sizes). */
static dart_gptr_t alloc_portions(const struct ctx *c, size_t bytes)
{
  dart_gptr_t g;
  ASSERT_OK(dart_team_memalloc_aligned(c->team, bytes + 64 * (size_t)c->me,
                                       DART_TYPE_BYTE, &g));
  return g;
}

/* ---------------------------------------------------------------------
 * Blocking put/get between every pair of units.
 * --------------------------------------------------------------------- */

struct xfer_case {
  dart_datatype_t type;
  size_t          count;
};

static const struct xfer_case pair_cases[] = {
  { DART_TYPE_BYTE, 1 },      { DART_TYPE_BYTE, 7 },
  { DART_TYPE_BYTE, 1000 },   { DART_TYPE_BYTE, 100000 },
  { DART_TYPE_SHORT, 3 },     { DART_TYPE_INT, 250 },
  { DART_TYPE_ULONGLONG, 125 }, { DART_TYPE_DOUBLE, 12500 },
  { DART_TYPE_LONG_DOUBLE, 7 }, { DART_TYPE_FLOAT, 1 },
};
#define NPAIR_CASES (sizeof pair_cases / sizeof *pair_cases)

/* Where case ci lives in a portion: 16-byte aligned regions with 16
 * bytes of slack, shifted by `shift` (0 or 8) inside the slack. */
static size_t region_of(size_t ci, size_t shift)
{
  size_t off = 0;
  for (size_t i = 0; i < ci; ++i) {
    off += (pair_cases[i].count * tsize(pair_cases[i].type) + 31) / 16 * 16;
  }
  return off + shift;
}

static void test_pairwise(const struct ctx *c, size_t ncases)
{
  size_t total = region_of(ncases, 0);
  dart_gptr_t seg = alloc_portions(c, total);
  char *mine = local_base(seg, c->me);
  size_t maxbytes = 0;
  for (size_t ci = 0; ci < ncases; ++ci) {
    size_t b = pair_cases[ci].count * tsize(pair_cases[ci].type);
    maxbytes = b > maxbytes ? b : maxbytes;
  }
  unsigned char *buf = xmalloc(maxbytes + 64);
  for (int k = 0; k < c->n; ++k) {
    int dst = (c->me + k) % c->n, from = (c->me - k + c->n) % c->n;
    size_t shift = (size_t)(k % 2) * 8;
    for (size_t ci = 0; ci < ncases; ++ci) {
      dart_datatype_t t = pair_cases[ci].type;
      size_t cnt = pair_cases[ci].count;
      if (shift != 0 && tsize(t) > 8) {
        continue; /* keep long double aligned */
      }
      STAGE("%s: blocking put of %zu %s to team unit %d (k=%d)", c->label,
            cnt, tname(t), dst, k);
      fill(t, buf, cnt, key(c->global_of[c->me], (int)ci * 4 + k % 4));
      ASSERT_OK(dart_put_blocking(gptr_at(seg, dst, region_of(ci, shift)), buf, cnt,
                                  t, t));
    }
    ASSERT_OK(dart_barrier(c->team));
    for (size_t ci = 0; ci < ncases; ++ci) {
      dart_datatype_t t = pair_cases[ci].type;
      size_t cnt = pair_cases[ci].count;
      if (shift != 0 && tsize(t) > 8) {
        continue;
      }
      /* What the origin put, read locally. */
      STAGE("%s: local read of %zu %s put by team unit %d (k=%d)", c->label,
            cnt, tname(t), from, k);
      check_fill(t, mine + region_of(ci, shift), cnt,
                 key(c->global_of[from], (int)ci * 4 + k % 4));
      /* What I put, read back from the target. */
      STAGE("%s: blocking get of %zu %s from team unit %d (k=%d)", c->label,
            cnt, tname(t), dst, k);
      size_t bytes = cnt * tsize(t);
      memset(buf, POISON, bytes + 64);
      ASSERT_OK(dart_get_blocking(buf, gptr_at(seg, dst, region_of(ci, shift)), cnt,
                                  t, t));
      check_fill(t, buf, cnt,
                 key(c->global_of[c->me], (int)ci * 4 + k % 4));
      ASSERT_POISON(buf, bytes, 64);
    }
    ASSERT_OK(dart_barrier(c->team));
  }
  free(buf);
  ASSERT_OK(dart_team_memfree(seg));
}

/* ---------------------------------------------------------------------
 * Non-blocking put/get and the four flushes.
 * --------------------------------------------------------------------- */

#define SLOT 64 /* longs per (origin, target) slot */

static void put_round(const struct ctx *c, dart_gptr_t seg, int purpose,
                      long *src)
{
  for (int t = 0; t < c->n; ++t) {
    long *s = src + (size_t)t * SLOT;
    fill(DART_TYPE_LONG, s, SLOT, key(c->global_of[c->me], purpose + t));
    ASSERT_OK(dart_put(gptr_at(seg, t, (size_t)c->me * SLOT * sizeof(long)), s, SLOT,
                       DART_TYPE_LONG, DART_TYPE_LONG));
  }
}

#define check_round(...) check_round_at(__FILE__, __LINE__, __VA_ARGS__)
static void check_round_at(const char *file, int line, const struct ctx *c, dart_gptr_t seg,
                        int purpose)
{
  long *mine = (long *)local_base(seg, c->me);
  for (int o = 0; o < c->n; ++o) {
    check_fill_at(file, line, DART_TYPE_LONG, mine + (size_t)o * SLOT, SLOT,
               key(c->global_of[o], purpose + c->me));
  }
}

static void test_nonblocking(const struct ctx *c)
{
  dart_gptr_t seg = alloc_portions(c, (size_t)c->n * SLOT * sizeof(long));
  long *src = xmalloc((size_t)c->n * SLOT * sizeof(long));
  long *dst = xmalloc((size_t)c->n * SLOT * sizeof(long));

  STAGE("%s: dart_put + dart_flush per target", c->label);
  put_round(c, seg, 0, src);
  for (int t = 0; t < c->n; ++t) {
    ASSERT_OK(dart_flush(gptr_at(seg, t, 0)));
  }
  ASSERT_OK(dart_barrier(c->team));
  check_round(c, seg, 0);
  ASSERT_OK(dart_barrier(c->team));

  STAGE("%s: dart_put + dart_flush_all", c->label);
  put_round(c, seg, 8, src);
  ASSERT_OK(dart_flush_all(seg));
  ASSERT_OK(dart_barrier(c->team));
  check_round(c, seg, 8);

  /* Gets of what everybody put into everybody (read only from here). */
  STAGE("%s: dart_get + dart_flush_local per target", c->label);
  memset(dst, POISON, (size_t)c->n * SLOT * sizeof(long));
  for (int t = 0; t < c->n; ++t) {
    int o = (c->me + t) % c->n; /* a slot somebody else wrote */
    ASSERT_OK(dart_get(dst + (size_t)t * SLOT,
                       gptr_at(seg, t, (size_t)o * SLOT * sizeof(long)), SLOT,
                       DART_TYPE_LONG, DART_TYPE_LONG));
  }
  for (int t = 0; t < c->n; ++t) {
    ASSERT_OK(dart_flush_local(gptr_at(seg, t, 0)));
  }
  for (int t = 0; t < c->n; ++t) {
    int o = (c->me + t) % c->n;
    check_fill(DART_TYPE_LONG, dst + (size_t)t * SLOT, SLOT,
               key(c->global_of[o], 8 + t));
  }

  STAGE("%s: dart_get + dart_flush_local_all", c->label);
  memset(dst, POISON, (size_t)c->n * SLOT * sizeof(long));
  for (int t = 0; t < c->n; ++t) {
    ASSERT_OK(dart_get(dst + (size_t)t * SLOT,
                       gptr_at(seg, t, (size_t)c->me * SLOT * sizeof(long)), SLOT,
                       DART_TYPE_LONG, DART_TYPE_LONG));
  }
  ASSERT_OK(dart_flush_local_all(seg));
  for (int t = 0; t < c->n; ++t) {
    check_fill(DART_TYPE_LONG, dst + (size_t)t * SLOT, SLOT,
               key(c->global_of[c->me], 8 + t));
  }

  STAGE("%s: dart_get + dart_flush / dart_flush_all", c->label);
  memset(dst, POISON, (size_t)c->n * SLOT * sizeof(long));
  for (int t = 0; t < c->n; ++t) {
    ASSERT_OK(dart_get(dst + (size_t)t * SLOT,
                       gptr_at(seg, t, (size_t)c->me * SLOT * sizeof(long)), SLOT,
                       DART_TYPE_LONG, DART_TYPE_LONG));
    if (t % 2 == 0) {
      ASSERT_OK(dart_flush(gptr_at(seg, t, 0)));
    }
  }
  ASSERT_OK(dart_flush_all(seg));
  for (int t = 0; t < c->n; ++t) {
    check_fill(DART_TYPE_LONG, dst + (size_t)t * SLOT, SLOT,
               key(c->global_of[c->me], 8 + t));
  }
  ASSERT_OK(dart_barrier(c->team));

  /* After flush_local the source may be reused: overwriting it must not
   * change what arrives. */
  STAGE("%s: dart_put, flush_local, reuse source, flush", c->label);
  put_round(c, seg, 16, src);
  for (int t = 0; t < c->n; ++t) {
    ASSERT_OK(dart_flush_local(gptr_at(seg, t, 0)));
  }
  memset(src, 0, (size_t)c->n * SLOT * sizeof(long));
  for (int t = 0; t < c->n; ++t) {
    ASSERT_OK(dart_flush(gptr_at(seg, t, 0)));
  }
  ASSERT_OK(dart_barrier(c->team));
  check_round(c, seg, 16);
  ASSERT_OK(dart_barrier(c->team));

  free(src);
  free(dst);
  ASSERT_OK(dart_team_memfree(seg));
}

/* A large non-blocking transfer to the next unit and back. */
static void test_large_nonblocking(const struct ctx *c)
{
  const size_t count = 40000; /* doubles: 320 KB */
  STAGE("%s: large non-blocking put/get", c->label);
  dart_gptr_t seg = alloc_portions(c, count * sizeof(double));
  int next = (c->me + 1) % c->n, prev = (c->me + c->n - 1) % c->n;
  double *src = xmalloc(count * sizeof(double));
  fill(DART_TYPE_DOUBLE, src, count, key(c->global_of[c->me], 30));
  ASSERT_OK(dart_put(gptr_at(seg, next, 0), src, count, DART_TYPE_DOUBLE,
                     DART_TYPE_DOUBLE));
  ASSERT_OK(dart_flush(gptr_at(seg, next, 0)));
  ASSERT_OK(dart_barrier(c->team));
  check_fill(DART_TYPE_DOUBLE, local_base(seg, c->me), count,
             key(c->global_of[prev], 30));
  memset(src, POISON, count * sizeof(double));
  ASSERT_OK(dart_get(src, gptr_at(seg, next, 0), count, DART_TYPE_DOUBLE,
                     DART_TYPE_DOUBLE));
  ASSERT_OK(dart_flush_local(gptr_at(seg, next, 0)));
  check_fill(DART_TYPE_DOUBLE, src, count,
             key(c->global_of[c->me], 30));
  free(src);
  ASSERT_OK(dart_barrier(c->team));
  ASSERT_OK(dart_team_memfree(seg));
}

/* ---------------------------------------------------------------------
 * A burst of small puts and gets, completed by a single flush.
 * --------------------------------------------------------------------- */

#define BURST 3000

static void test_burst(const struct ctx *c)
{
  STAGE("%s: burst of %d single-element puts", c->label, BURST);
  dart_gptr_t seg = alloc_portions(c, BURST * sizeof(long));
  int next = (c->me + 1) % c->n, prev = (c->me + c->n - 1) % c->n;
  long *vals = xmalloc(BURST * sizeof(long));
  fill(DART_TYPE_LONG, vals, BURST, key(c->global_of[c->me], 31));
  /* Scattered order: element i goes out as the (i * 7 mod BURST)-th. */
  for (size_t j = 0; j < BURST; ++j) {
    size_t i = (j * 7) % BURST;
    ASSERT_OK(dart_put(gptr_at(seg, next, i * sizeof(long)), &vals[i], 1,
                       DART_TYPE_LONG, DART_TYPE_LONG));
  }
  ASSERT_OK(dart_flush(gptr_at(seg, next, 0)));
  ASSERT_OK(dart_barrier(c->team));
  check_fill(DART_TYPE_LONG, local_base(seg, c->me), BURST,
             key(c->global_of[prev], 31));

  STAGE("%s: burst of %d single-element gets", c->label, BURST);
  memset(vals, POISON, BURST * sizeof(long));
  for (size_t j = 0; j < BURST; ++j) {
    size_t i = (j * 11) % BURST;
    ASSERT_OK(dart_get(&vals[i], gptr_at(seg, next, i * sizeof(long)), 1,
                       DART_TYPE_LONG, DART_TYPE_LONG));
  }
  ASSERT_OK(dart_flush_local(gptr_at(seg, next, 0)));
  check_fill(DART_TYPE_LONG, vals, BURST,
             key(c->global_of[c->me], 31));

  /* dart_flush_all must complete every put of a burst into memory from
   * dart_memalloc (the local pool's MPI_Win_create window), also the puts
   * the MPI library still queues for a target that is busy elsewhere:
   * Open MPI 4.1's osc/ucx MPI_Win_flush_all does not wait for those. */
  dart_gptr_t mine, *pools = xmalloc((size_t)c->n * sizeof *pools);
  ASSERT_OK(dart_memalloc(BURST, DART_TYPE_LONG, &mine));
  ASSERT_OK(dart_allgather(&mine, pools, sizeof mine, DART_TYPE_BYTE, c->team));
  long *landed = NULL;
  ASSERT_OK(dart_gptr_getaddr(mine, (void **)&landed));
  enum { ROUNDS = 30 };
  for (int r = 0; r < ROUNDS; ++r) {
    STAGE("%s: burst of %d puts into local-pool memory + dart_flush_all "
          "(round %d)", c->label, BURST, r);
    fill(DART_TYPE_LONG, vals, BURST, key(c->global_of[c->me], 40 + r));
    for (size_t i = 0; i < BURST; ++i) {
      dart_gptr_t g = pools[next];
      g.addr_or_offs.offset += i * sizeof(long);
      ASSERT_OK(dart_put(g, &vals[i], 1, DART_TYPE_LONG, DART_TYPE_LONG));
    }
    ASSERT_OK(dart_flush_all(pools[next]));
    ASSERT_OK(dart_barrier(c->team));
    check_fill(DART_TYPE_LONG, landed, BURST,
               key(c->global_of[prev], 40 + r));
    ASSERT_OK(dart_barrier(c->team));
  }
  ASSERT_OK(dart_memfree(mine));
  free(pools);
  free(vals);
  ASSERT_OK(dart_barrier(c->team));
  ASSERT_OK(dart_team_memfree(seg));
}

/* ---------------------------------------------------------------------
 * Handles.
 * --------------------------------------------------------------------- */

/* Calls `test` until it reports completion; it must make progress. */
#define TEST_UNTIL_DONE(call, done)                                        \
  do {                                                                     \
    double t0_ = now();                                                    \
    (done) = 0;                                                            \
    while (!(done)) {                                                      \
      ASSERT_OK(call);                                                     \
      if (!(done) && now() - t0_ > 30) {                                   \
        FAILF("%s never reported completion", #call);                      \
      }                                                                    \
    }                                                                      \
  } while (0)

static void test_handles(const struct ctx *c)
{
  dart_gptr_t seg = alloc_portions(c, (size_t)c->n * SLOT * sizeof(long));
  size_t all = (size_t)c->n * SLOT;
  long *src = xmalloc(all * sizeof(long));
  long *dst = xmalloc(all * sizeof(long));
  dart_handle_t *h = xmalloc((size_t)c->n * sizeof *h);
  int32_t done;

  STAGE("%s: put_handle to every unit + dart_waitall", c->label);
  for (int t = 0; t < c->n; ++t) {
    fill(DART_TYPE_LONG, src + (size_t)t * SLOT, SLOT,
         key(c->global_of[c->me], 40 + t));
    h[t] = (dart_handle_t)0x1234;
    ASSERT_OK(dart_put_handle(gptr_at(seg, t, (size_t)c->me * SLOT * sizeof(long)),
                              src + (size_t)t * SLOT, SLOT, DART_TYPE_LONG,
                              DART_TYPE_LONG, &h[t]));
    check_handle(c, t, h[t]);
  }
  ASSERT_OK(dart_waitall(h, (size_t)c->n));
  for (int t = 0; t < c->n; ++t) {
    ASSERT(h[t] == DART_HANDLE_NULL);
  }
  ASSERT_OK(dart_barrier(c->team));
  check_round(c, seg, 40);

  STAGE("%s: get_handle + dart_wait_local / dart_wait", c->label);
  memset(dst, POISON, all * sizeof(long));
  for (int t = 0; t < c->n; ++t) {
    dart_handle_t g = (dart_handle_t)0x1234;
    ASSERT_OK(dart_get_handle(dst + (size_t)t * SLOT,
                              gptr_at(seg, t, (size_t)c->me * SLOT * sizeof(long)),
                              SLOT, DART_TYPE_LONG, DART_TYPE_LONG, &g));
    check_handle(c, t, g);
    if (t % 2 == 0) {
      ASSERT_OK(dart_wait_local(&g));
    } else {
      ASSERT_OK(dart_wait(&g));
    }
    ASSERT(g == DART_HANDLE_NULL);
    check_fill(DART_TYPE_LONG, dst + (size_t)t * SLOT, SLOT,
               key(c->global_of[c->me], 40 + t));
  }
  ASSERT_OK(dart_barrier(c->team));

  STAGE("%s: put_handle + dart_wait / dart_test loop", c->label);
  for (int t = 0; t < c->n; ++t) {
    fill(DART_TYPE_LONG, src + (size_t)t * SLOT, SLOT,
         key(c->global_of[c->me], 48 + t));
    dart_handle_t p = DART_HANDLE_NULL;
    ASSERT_OK(dart_put_handle(gptr_at(seg, t, (size_t)c->me * SLOT * sizeof(long)),
                              src + (size_t)t * SLOT, SLOT, DART_TYPE_LONG,
                              DART_TYPE_LONG, &p));
    check_handle(c, t, p);
    if (t % 2 == 0) {
      ASSERT_OK(dart_wait(&p));
    } else {
      TEST_UNTIL_DONE(dart_test(&p, &done), done);
    }
    ASSERT(p == DART_HANDLE_NULL);
  }
  ASSERT_OK(dart_barrier(c->team));
  check_round(c, seg, 48);

  STAGE("%s: get_handle + dart_test_local loop", c->label);
  memset(dst, POISON, all * sizeof(long));
  for (int t = 0; t < c->n; ++t) {
    dart_handle_t g = DART_HANDLE_NULL;
    int o = (c->me + 1) % c->n;
    ASSERT_OK(dart_get_handle(dst + (size_t)t * SLOT,
                              gptr_at(seg, t, (size_t)o * SLOT * sizeof(long)), SLOT,
                              DART_TYPE_LONG, DART_TYPE_LONG, &g));
    check_handle(c, t, g);
    TEST_UNTIL_DONE(dart_test_local(&g, &done), done);
    ASSERT(g == DART_HANDLE_NULL);
    check_fill(DART_TYPE_LONG, dst + (size_t)t * SLOT, SLOT,
               key(c->global_of[o], 48 + t));
  }
  ASSERT_OK(dart_barrier(c->team));

  STAGE("%s: dart_testall loop over puts (with NULL entries)", c->label);
  dart_handle_t *hh = xmalloc(2 * (size_t)c->n * sizeof *hh);
  for (int t = 0; t < c->n; ++t) {
    fill(DART_TYPE_LONG, src + (size_t)t * SLOT, SLOT,
         key(c->global_of[c->me], 56 + t));
    hh[2 * t] = DART_HANDLE_NULL;
    ASSERT_OK(dart_put_handle(gptr_at(seg, t, (size_t)c->me * SLOT * sizeof(long)),
                              src + (size_t)t * SLOT, SLOT, DART_TYPE_LONG,
                              DART_TYPE_LONG, &hh[2 * t + 1]));
  }
  TEST_UNTIL_DONE(dart_testall(hh, 2 * (size_t)c->n, &done), done);
  for (int i = 0; i < 2 * c->n; ++i) {
    ASSERT(hh[i] == DART_HANDLE_NULL);
  }
  ASSERT_OK(dart_barrier(c->team));
  check_round(c, seg, 56);

  STAGE("%s: dart_testall_local loop / dart_waitall_local over gets",
        c->label);
  memset(dst, POISON, all * sizeof(long));
  for (int t = 0; t < c->n; ++t) {
    ASSERT_OK(dart_get_handle(dst + (size_t)t * SLOT,
                              gptr_at(seg, t, (size_t)c->me * SLOT * sizeof(long)),
                              SLOT, DART_TYPE_LONG, DART_TYPE_LONG, &h[t]));
  }
  TEST_UNTIL_DONE(dart_testall_local(h, (size_t)c->n, &done), done);
  for (int t = 0; t < c->n; ++t) {
    ASSERT(h[t] == DART_HANDLE_NULL);
    check_fill(DART_TYPE_LONG, dst + (size_t)t * SLOT, SLOT,
               key(c->global_of[c->me], 56 + t));
  }
  memset(dst, POISON, all * sizeof(long));
  for (int t = 0; t < c->n; ++t) {
    ASSERT_OK(dart_get_handle(dst + (size_t)t * SLOT,
                              gptr_at(seg, t, (size_t)c->me * SLOT * sizeof(long)),
                              SLOT, DART_TYPE_LONG, DART_TYPE_LONG, &h[t]));
  }
  ASSERT_OK(dart_waitall_local(h, (size_t)c->n));
  for (int t = 0; t < c->n; ++t) {
    ASSERT(h[t] == DART_HANDLE_NULL);
    check_fill(DART_TYPE_LONG, dst + (size_t)t * SLOT, SLOT,
               key(c->global_of[c->me], 56 + t));
  }
  ASSERT_OK(dart_barrier(c->team));

  /* Freed handles: the transfer still happens, a flush completes it. */
  STAGE("%s: put_handle + dart_handle_free + dart_flush", c->label);
  for (int t = 0; t < c->n; ++t) {
    fill(DART_TYPE_LONG, src + (size_t)t * SLOT, SLOT,
         key(c->global_of[c->me], 32 + t));
    ASSERT_OK(dart_put_handle(gptr_at(seg, t, (size_t)c->me * SLOT * sizeof(long)),
                              src + (size_t)t * SLOT, SLOT, DART_TYPE_LONG,
                              DART_TYPE_LONG, &h[t]));
    ASSERT_OK(dart_handle_free(&h[t]));
    ASSERT(h[t] == DART_HANDLE_NULL);
  }
  ASSERT_OK(dart_flush_all(seg));
  ASSERT_OK(dart_barrier(c->team));
  check_round(c, seg, 32);
  ASSERT_OK(dart_barrier(c->team));

  /* A flush does not consume handles: they are waited for afterwards. */
  STAGE("%s: handles survive a flush", c->label);
  for (int t = 0; t < c->n; ++t) {
    fill(DART_TYPE_LONG, src + (size_t)t * SLOT, SLOT,
         key(c->global_of[c->me], 24 + t));
    ASSERT_OK(dart_put_handle(gptr_at(seg, t, (size_t)c->me * SLOT * sizeof(long)),
                              src + (size_t)t * SLOT, SLOT, DART_TYPE_LONG,
                              DART_TYPE_LONG, &h[t]));
  }
  ASSERT_OK(dart_flush_all(seg));
  for (int t = 0; t < c->n; ++t) {
    ASSERT_OK(t % 2 == 0 ? dart_wait(&h[t]) : dart_wait_local(&h[t]));
    ASSERT(h[t] == DART_HANDLE_NULL);
  }
  ASSERT_OK(dart_barrier(c->team));
  check_round(c, seg, 24);
  ASSERT_OK(dart_barrier(c->team));

  STAGE("%s: NULL handles", c->label);
  dart_handle_t null_h = DART_HANDLE_NULL;
  ASSERT_OK(dart_wait(NULL));
  ASSERT_OK(dart_wait(&null_h));
  ASSERT_OK(dart_wait_local(NULL));
  ASSERT_OK(dart_wait_local(&null_h));
  ASSERT_OK(dart_handle_free(NULL));
  ASSERT_OK(dart_handle_free(&null_h));
  done = 7;
  ASSERT_OK(dart_test(NULL, &done));
  ASSERT_EQ(done, 1);
  done = 7;
  ASSERT_OK(dart_test(&null_h, &done));
  ASSERT_EQ(done, 1);
  done = 7;
  ASSERT_OK(dart_test_local(NULL, &done));
  ASSERT_EQ(done, 1);
  done = 7;
  ASSERT_OK(dart_test_local(&null_h, &done));
  ASSERT_EQ(done, 1);
  ASSERT(null_h == DART_HANDLE_NULL);
  dart_handle_t nulls[3] = { DART_HANDLE_NULL, DART_HANDLE_NULL,
                             DART_HANDLE_NULL };
  ASSERT_OK(dart_waitall(NULL, 3));
  ASSERT_OK(dart_waitall(nulls, 0));
  ASSERT_OK(dart_waitall(nulls, 3));
  ASSERT_OK(dart_waitall_local(NULL, 3));
  ASSERT_OK(dart_waitall_local(nulls, 3));
  done = 7;
  ASSERT_OK(dart_testall(NULL, 0, &done));
  ASSERT_EQ(done, 1);
  done = 7;
  ASSERT_OK(dart_testall(nulls, 0, &done));
  ASSERT_EQ(done, 1);
  done = 7;
  ASSERT_OK(dart_testall(nulls, 3, &done));
  ASSERT_EQ(done, 1);
  done = 7;
  ASSERT_OK(dart_testall_local(nulls, 3, &done));
  ASSERT_EQ(done, 1);
  done = 7;
  ASSERT_OK(dart_testall_local(NULL, 0, &done));
  ASSERT_EQ(done, 1);

  free(hh);
  free(h);
  free(src);
  free(dst);
  ASSERT_OK(dart_team_memfree(seg));
}

/* ---------------------------------------------------------------------
 * Memory model: local stores vs. remote access across a barrier.
 * --------------------------------------------------------------------- */

static void test_memory_model(const struct ctx *c)
{
  dart_gptr_t seg = alloc_portions(c, (size_t)c->n * SLOT * sizeof(long));
  long *mine = (long *)local_base(seg, c->me);
  long got[SLOT];
  for (int round = 0; round < 2; ++round) {
    /* (a) Store locally, barrier, everybody gets. */
    STAGE("%s: local store, barrier, remote get (round %d)", c->label,
          round);
    for (int o = 0; o < c->n; ++o) {
      fill(DART_TYPE_LONG, mine + (size_t)o * SLOT, SLOT,
           key(c->global_of[c->me], 20 + round * 2 + o % 2));
    }
    ASSERT_OK(dart_barrier(c->team));
    for (int t = 0; t < c->n; ++t) {
      memset(got, POISON, sizeof got);
      ASSERT_OK(dart_get_blocking(got,
                                  gptr_at(seg, t, (size_t)c->me * SLOT * sizeof(long)),
                                  SLOT, DART_TYPE_LONG, DART_TYPE_LONG));
      check_fill(DART_TYPE_LONG, got, SLOT,
                 key(c->global_of[t], 20 + round * 2 + c->me % 2));
    }
    ASSERT_OK(dart_barrier(c->team));
    /* (b) Put, flush, barrier, load locally (round 0: dart_put and
     * dart_flush per target; round 1: dart_flush_all). */
    STAGE("%s: put, flush, barrier, local load (round %d)", c->label,
          round);
    long *src = xmalloc((size_t)c->n * SLOT * sizeof(long));
    for (int t = 0; t < c->n; ++t) {
      long *s = src + (size_t)t * SLOT;
      fill(DART_TYPE_LONG, s, SLOT, key(c->global_of[c->me], 10 + t % 4));
      dart_gptr_t g = gptr_at(seg, t, (size_t)c->me * SLOT * sizeof(long));
      ASSERT_OK(dart_put(g, s, SLOT, DART_TYPE_LONG, DART_TYPE_LONG));
      if (round == 0) {
        ASSERT_OK(dart_flush(g));
      }
    }
    if (round == 1) {
      ASSERT_OK(dart_flush_all(seg));
    }
    free(src);
    ASSERT_OK(dart_barrier(c->team));
    for (int o = 0; o < c->n; ++o) {
      check_fill(DART_TYPE_LONG, mine + (size_t)o * SLOT, SLOT,
                 key(c->global_of[o], 10 + c->me % 4));
    }
    ASSERT_OK(dart_barrier(c->team));
  }
  ASSERT_OK(dart_team_memfree(seg));
}

/* ---------------------------------------------------------------------
 * Strided and indexed types (spec 4.5).
 * --------------------------------------------------------------------- */

struct layout {
  dart_datatype_t id;
  dart_datatype_t base;
  int             kind; /* 0 contiguous, 1 strided, 2 indexed */
  size_t          stride, blocklen;
  size_t          nblocks, lens[4], offs[4];
  size_t          block_count, extent;
};

static struct layout contiguous(dart_datatype_t base)
{
  struct layout l = { base, base, 0, 0, 0, 0, { 0 }, { 0 }, 1, 1 };
  return l;
}

static struct layout strided(dart_datatype_t base, size_t stride,
                             size_t blocklen)
{
  struct layout l = { DART_TYPE_UNDEFINED, base, 1, stride, blocklen, 0,
                      { 0 }, { 0 }, blocklen, stride };
  ASSERT_OK(dart_type_create_strided(base, stride, blocklen, &l.id));
  return l;
}

static struct layout indexed(dart_datatype_t base, size_t nblocks,
                             const size_t *lens, const size_t *offs)
{
  struct layout l = { DART_TYPE_UNDEFINED, base, 2, 0, 0, nblocks, { 0 },
                      { 0 }, 0, 0 };
  size_t lo = SIZE_MAX, hi = 0;
  for (size_t i = 0; i < nblocks; ++i) {
    l.lens[i] = lens[i];
    l.offs[i] = offs[i];
    l.block_count += lens[i];
    lo = offs[i] < lo ? offs[i] : lo;
    hi = offs[i] + lens[i] > hi ? offs[i] + lens[i] : hi;
  }
  l.extent = hi - lo;
  ASSERT_OK(dart_type_create_indexed(base, nblocks, lens, offs, &l.id));
  return l;
}

/* Position (in base elements) of element j. */
static size_t pos_of(const struct layout *l, size_t j)
{
  if (l->kind == 0) {
    return j;
  }
  if (l->kind == 1) {
    return j / l->blocklen * l->stride + j % l->blocklen;
  }
  size_t r = j / l->block_count, k = j % l->block_count;
  for (size_t i = 0; i < l->nblocks; ++i) {
    if (k < l->lens[i]) {
      return r * l->extent + l->offs[i] + k;
    }
    k -= l->lens[i];
  }
  ASSERT(!"pos_of: out of blocks");
  return 0;
}

struct derived_case {
  const struct layout *src, *dst;
  size_t               nelem;
};

#define DREGION 256 /* base elements per case region */

static long double dval(int k, size_t pos)
{
  return (long double)k * 100000.0L + (long double)pos + 1.0L;
}

static void test_derived(const struct ctx *c)
{
  struct layout i32 = contiguous(DART_TYPE_INT);
  struct layout f64 = contiguous(DART_TYPE_DOUBLE);
  struct layout s31 = strided(DART_TYPE_INT, 3, 1);
  struct layout s52 = strided(DART_TYPE_INT, 5, 2);
  struct layout s21 = strided(DART_TYPE_INT, 2, 1);
  struct layout s43 = strided(DART_TYPE_DOUBLE, 4, 3);
  const size_t l1[] = { 2, 1, 3 }, o1[] = { 0, 4, 7 };
  struct layout ix = indexed(DART_TYPE_INT, 3, l1, o1);     /* B 6, E 10 */
  const size_t l2[] = { 2, 3 }, o2[] = { 6, 1 };
  struct layout iu = indexed(DART_TYPE_INT, 2, l2, o2);     /* B 5, E 7 */
  const struct derived_case cases[] = {
    { &s31, &i32, 40 }, /* spec 4.5: remote 0, 3, ..., 117 -> 0..39 */
    { &i32, &s31, 40 }, /* ... and the other way round */
    { &s52, &s21, 48 }, /* spec 4.5: strided into strided */
    { &ix, &i32, 12 },  { &i32, &ix, 18 }, { &ix, &iu, 30 },
    { &s21, &iu, 10 },  { &iu, &s52, 10 },
    { &s43, &f64, 9 },  { &f64, &s43, 9 },
  };
  const size_t ncases = sizeof cases / sizeof *cases;
  const size_t region_bytes = DREGION * sizeof(double);
  dart_gptr_t seg = alloc_portions(c, ncases * region_bytes);
  char *mine = local_base(seg, c->me);
  int next = (c->me + 1) % c->n, prev = (c->me + c->n - 1) % c->n;
  int gme = c->global_of[c->me], gnext = c->global_of[next],
      gprev = c->global_of[prev];
  unsigned char *buf = xmalloc(region_bytes);

  /* Puts: the target's regions hold a sentinel; the origin's source
   * buffer holds its pattern at every position. */
  for (size_t ci = 0; ci < ncases; ++ci) {
    dart_datatype_t bt = cases[ci].src->base;
    for (size_t p = 0; p < DREGION; ++p) {
      put_val(bt, mine + ci * region_bytes, p, -dval(gme, p));
    }
  }
  ASSERT_OK(dart_barrier(c->team));
  for (size_t ci = 0; ci < ncases; ++ci) {
    const struct derived_case *dc = &cases[ci];
    STAGE("%s: put case %zu (%zu elements), mode %zu", c->label, ci,
          dc->nelem, ci % 3);
    unsigned char *src = xmalloc(region_bytes);
    for (size_t p = 0; p < DREGION; ++p) {
      put_val(dc->src->base, src, p, dval(gme, p));
    }
    dart_gptr_t g = gptr_at(seg, next, ci * region_bytes);
    if (ci % 3 == 0) {
      ASSERT_OK(dart_put_blocking(g, src, dc->nelem, dc->src->id, dc->dst->id));
    } else if (ci % 3 == 1) {
      ASSERT_OK(dart_put(g, src, dc->nelem, dc->src->id, dc->dst->id));
      ASSERT_OK(dart_flush(g));
    } else {
      dart_handle_t h;
      ASSERT_OK(dart_put_handle(g, src, dc->nelem, dc->src->id, dc->dst->id,
                                &h));
      check_handle(c, next, h);
      ASSERT_OK(dart_wait(&h));
    }
    free(src);
  }
  ASSERT_OK(dart_barrier(c->team));
  for (size_t ci = 0; ci < ncases; ++ci) {
    const struct derived_case *dc = &cases[ci];
    STAGE("%s: what put case %zu left here", c->label, ci);
    long double *want = xmalloc(DREGION * sizeof *want);
    for (size_t p = 0; p < DREGION; ++p) {
      want[p] = -dval(gme, p);
    }
    for (size_t j = 0; j < dc->nelem; ++j) {
      size_t pd = pos_of(dc->dst, j), ps = pos_of(dc->src, j);
      ASSERT(pd < DREGION && ps < DREGION);
      want[pd] = dval(gprev, ps);
    }
    for (size_t p = 0; p < DREGION; ++p) {
      long double got = get_val(dc->src->base, mine + ci * region_bytes, p);
      if (got != want[p]) {
        FAILF("position %zu: got %.21Lg, expected %.21Lg", p, got,
              want[p]);
      }
    }
    free(want);
  }
  ASSERT_OK(dart_barrier(c->team));

  /* Gets: the target's regions hold its pattern; the destination buffer
   * is poisoned where nothing may arrive. */
  for (size_t ci = 0; ci < ncases; ++ci) {
    for (size_t p = 0; p < DREGION; ++p) {
      put_val(cases[ci].src->base, mine + ci * region_bytes, p,
              dval(gme, p));
    }
  }
  ASSERT_OK(dart_barrier(c->team));
  for (size_t ci = 0; ci < ncases; ++ci) {
    const struct derived_case *dc = &cases[ci];
    STAGE("%s: get case %zu (%zu elements), mode %zu", c->label, ci,
          dc->nelem, ci % 3);
    memset(buf, POISON, region_bytes);
    dart_gptr_t g = gptr_at(seg, next, ci * region_bytes);
    if (ci % 3 == 0) {
      ASSERT_OK(dart_get_blocking(buf, g, dc->nelem, dc->src->id, dc->dst->id));
    } else if (ci % 3 == 1) {
      ASSERT_OK(dart_get(buf, g, dc->nelem, dc->src->id, dc->dst->id));
      ASSERT_OK(dart_flush_local(g));
    } else {
      dart_handle_t h;
      ASSERT_OK(dart_get_handle(buf, g, dc->nelem, dc->src->id, dc->dst->id,
                                &h));
      check_handle(c, next, h);
      ASSERT_OK(dart_wait_local(&h));
    }
    size_t es = tsize(dc->src->base);
    bool *hit = calloc(region_bytes / es, sizeof *hit);
    ASSERT(hit != NULL);
    for (size_t j = 0; j < dc->nelem; ++j) {
      size_t pd = pos_of(dc->dst, j), ps = pos_of(dc->src, j);
      hit[pd] = true;
      long double got = get_val(dc->src->base, buf, pd);
      if (got != dval(gnext, ps)) {
        FAILF("element %zu at position %zu: got %.21Lg, "
              "expected %.21Lg", j, pd, got, dval(gnext, ps));
      }
    }
    for (size_t p = 0; p < region_bytes / es; ++p) {
      if (!hit[p]) {
        ASSERT_POISON(buf, p * es, es);
      }
    }
    free(hit);
  }
  ASSERT_OK(dart_barrier(c->team));
  free(buf);
  ASSERT_OK(dart_team_memfree(seg));
  const struct layout *made[] = { &s31, &s52, &s21, &s43, &ix, &iu };
  for (size_t i = 0; i < sizeof made / sizeof *made; ++i) {
    dart_datatype_t id = made[i]->id;
    ASSERT_OK(dart_type_destroy(&id));
  }
}

/* ---------------------------------------------------------------------
 * Zero-element transfers.
 * --------------------------------------------------------------------- */

static void test_zero(const struct ctx *c)
{
  STAGE("%s: zero-element transfers", c->label);
  dart_gptr_t seg = alloc_portions(c, 64);
  dart_datatype_t s = DART_TYPE_UNDEFINED;
  ASSERT_OK(dart_type_create_strided(DART_TYPE_INT, 4, 2, &s));
  for (int t = 0; t < c->n; ++t) {
    dart_gptr_t g = gptr_at(seg, t, 0);
    dart_handle_t h = (dart_handle_t)0x1234;
    ASSERT_OK(dart_put(g, NULL, 0, DART_TYPE_INT, DART_TYPE_INT));
    ASSERT_OK(dart_get(NULL, g, 0, DART_TYPE_INT, DART_TYPE_INT));
    ASSERT_OK(dart_put_blocking(g, NULL, 0, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
    ASSERT_OK(dart_get_blocking(NULL, g, 0, DART_TYPE_BYTE, DART_TYPE_BYTE));
    ASSERT_OK(dart_put_handle(g, NULL, 0, DART_TYPE_INT, DART_TYPE_INT, &h));
    ASSERT(h == DART_HANDLE_NULL);
    h = (dart_handle_t)0x1234;
    ASSERT_OK(dart_get_handle(NULL, g, 0, s, DART_TYPE_INT, &h));
    ASSERT(h == DART_HANDLE_NULL);
    ASSERT_OK(dart_put(g, NULL, 0, DART_TYPE_INT, s));
    ASSERT_OK(dart_flush(g));
  }
  ASSERT_OK(dart_type_destroy(&s));
  ASSERT_OK(dart_barrier(c->team));
  ASSERT_OK(dart_team_memfree(seg));
}

/* ---------------------------------------------------------------------
 * Bad input: refused, and no byte written anywhere.
 * --------------------------------------------------------------------- */

#define ERR_LONGS 32 /* longs in portion u: ERR_LONGS + u */

#define bad_put(...) bad_put_at(__FILE__, __LINE__, __VA_ARGS__)
static void bad_put_at(const char *file, int line, dart_gptr_t g, const void *src, size_t nelem,
                    dart_datatype_t st, dart_datatype_t dt)
{
  ASSERT_RET(dart_put_blocking(g, src, nelem, st, dt), DART_ERR_INVAL);
  ASSERT_RET(dart_put(g, src, nelem, st, dt), DART_ERR_INVAL);
  dart_handle_t h = (dart_handle_t)0x1234;
  ASSERT_RET(dart_put_handle(g, src, nelem, st, dt, &h), DART_ERR_INVAL);
  if (h != DART_HANDLE_NULL) {
    test_failf(file, line, "dart_put_handle failed but left a handle");
  }
}

#define bad_get(...) bad_get_at(__FILE__, __LINE__, __VA_ARGS__)
static void bad_get_at(const char *file, int line, void *dst, size_t dst_bytes, dart_gptr_t g,
                    size_t nelem, dart_datatype_t st, dart_datatype_t dt)
{
  if (dst != NULL) {
    memset(dst, POISON, dst_bytes);
  }
  ASSERT_RET(dart_get_blocking(dst, g, nelem, st, dt), DART_ERR_INVAL);
  ASSERT_RET(dart_get(dst, g, nelem, st, dt), DART_ERR_INVAL);
  dart_handle_t h = (dart_handle_t)0x1234;
  ASSERT_RET(dart_get_handle(dst, g, nelem, st, dt, &h), DART_ERR_INVAL);
  if (h != DART_HANDLE_NULL) {
    test_failf(file, line, "dart_get_handle failed but left a handle");
  }
  if (dst != NULL) {
    test_check_poison(file, line, dst, 0, dst_bytes);
  }
}

#define bad_both(...) bad_both_at(__FILE__, __LINE__, __VA_ARGS__)
static void bad_both_at(const char *file, int line, dart_gptr_t g, size_t nelem,
                     dart_datatype_t st, dart_datatype_t dt)
{
  long buf[256];
  memset(buf, 0, sizeof buf);
  bad_put_at(file, line, g, buf, nelem, st, dt);
  bad_get_at(file, line, buf, sizeof buf, g, nelem, dt, st);
}

static void test_errors(const struct ctx *c)
{
  STAGE("%s: bad input setup", c->label);
  /* E: every portion non-empty, of different sizes. Z: the last unit's
   * portion is empty. F: freed before use. */
  dart_gptr_t e, z, f;
  ASSERT_OK(dart_team_memalloc_aligned(c->team, ERR_LONGS + (size_t)c->me,
                                       DART_TYPE_LONG, &e));
  ASSERT_OK(dart_team_memalloc_aligned(c->team, c->me == c->n - 1 ? 0 : 4,
                                       DART_TYPE_LONG, &z));
  ASSERT_OK(dart_team_memalloc_aligned(c->team, 8, DART_TYPE_LONG, &f));
  ASSERT_OK(dart_barrier(c->team));
  ASSERT_OK(dart_team_memfree(f));
  char *emine = local_base(e, c->me);
  size_t ebytes = (ERR_LONGS + (size_t)c->me) * sizeof(long);
  memset(emine, POISON, ebytes);
  char *zmine = local_base(z, c->me);
  if (c->me != c->n - 1) {
    memset(zmine, POISON, 4 * sizeof(long));
  }
  dart_datatype_t s42 = DART_TYPE_UNDEFINED, s31l = DART_TYPE_UNDEFINED,
                  s31i = DART_TYPE_UNDEFINED, custom8 = DART_TYPE_UNDEFINED;
  ASSERT_OK(dart_type_create_strided(DART_TYPE_LONG, 4, 2, &s42));
  ASSERT_OK(dart_type_create_strided(DART_TYPE_LONG, 3, 1, &s31l));
  ASSERT_OK(dart_type_create_strided(DART_TYPE_INT, 3, 1, &s31i));
  ASSERT_OK(dart_type_create_custom(8, &custom8));
  ASSERT_OK(dart_barrier(c->team));

  int saved = mute_log();
  long buf[256];
  for (int t = 0; t < c->n; ++t) {
    size_t tbytes = (ERR_LONGS + (size_t)t) * sizeof(long);
    STAGE("%s: bad input towards team unit %d", c->label, t);
    /* Units outside the team. */
    const int bad_units[] = { -1, c->n, c->n + 5 };
    for (size_t i = 0; i < 3; ++i) {
      dart_gptr_t g = e;
      g.unitid = bad_units[i];
      bad_both(g, 1, DART_TYPE_LONG, DART_TYPE_LONG);
      ASSERT_RET(dart_flush(g), DART_ERR_INVAL);
      ASSERT_RET(dart_flush_local(g), DART_ERR_INVAL);
    }
    /* Unknown team and segments, freed segment. */
    dart_gptr_t g = gptr_at(e, t, 0);
    g.teamid = 77;
    bad_both(g, 1, DART_TYPE_LONG, DART_TYPE_LONG);
    ASSERT_RET(dart_flush(g), DART_ERR_INVAL);
    ASSERT_RET(dart_flush_all(g), DART_ERR_INVAL);
    ASSERT_RET(dart_flush_local(g), DART_ERR_INVAL);
    ASSERT_RET(dart_flush_local_all(g), DART_ERR_INVAL);
    g.teamid = DART_TEAM_NULL;
    bad_both(g, 1, DART_TYPE_LONG, DART_TYPE_LONG);
    bad_both(DART_GPTR_NULL, 1, DART_TYPE_LONG, DART_TYPE_LONG);
    const int16_t bad_segs[] = { 999, -999, 17 };
    for (size_t i = 0; i < 3; ++i) {
      g = gptr_at(e, t, 0);
      g.segid = bad_segs[i];
      if (g.segid == e.segid || g.segid == z.segid) {
        continue;
      }
      bad_both(g, 1, DART_TYPE_LONG, DART_TYPE_LONG);
      ASSERT_RET(dart_flush(g), DART_ERR_INVAL);
      ASSERT_RET(dart_flush_all(g), DART_ERR_INVAL);
      ASSERT_RET(dart_flush_local(g), DART_ERR_INVAL);
      ASSERT_RET(dart_flush_local_all(g), DART_ERR_INVAL);
    }
    g = gptr_at(f, t, 0);
    bad_both(g, 1, DART_TYPE_LONG, DART_TYPE_LONG);
    ASSERT_RET(dart_flush(g), DART_ERR_INVAL);
    ASSERT_RET(dart_flush_all(g), DART_ERR_INVAL);
    /* Past the end of the target's portion. */
    bad_both(gptr_at(e, t, tbytes), 1, DART_TYPE_LONG, DART_TYPE_LONG);
    bad_both(gptr_at(e, t, tbytes - 4), 1, DART_TYPE_LONG,
             DART_TYPE_LONG);
    bad_both(gptr_at(e, t, 0), tbytes / sizeof(long) + 1,
             DART_TYPE_LONG, DART_TYPE_LONG);
    bad_both(gptr_at(e, t, sizeof(long)), tbytes / sizeof(long),
             DART_TYPE_LONG, DART_TYPE_LONG);
    bad_both(gptr_at(e, t, UINT64_MAX - 3), 1, DART_TYPE_LONG,
             DART_TYPE_LONG);
    bad_both(gptr_at(e, t, UINT64_MAX / 2), 2, DART_TYPE_LONG,
             DART_TYPE_LONG);
    /* A remote strided layout whose span runs past the end although the
     * element count alone would fit. */
    size_t fit = (tbytes / sizeof(long) - 1) / 3 + 1; /* span fits */
    bad_put(gptr_at(e, t, 0), buf, fit + 1, DART_TYPE_LONG, s31l);
    memset(buf, POISON, sizeof buf);
    ASSERT_RET(dart_get_blocking(buf, gptr_at(e, t, 0), fit + 1, s31l,
                                 DART_TYPE_LONG), DART_ERR_INVAL);
    ASSERT_POISON(buf, 0, sizeof buf);
    /* An empty portion takes nothing. */
    if (t == c->n - 1) {
      bad_both(gptr_at(z, t, 0), 1, DART_TYPE_LONG, DART_TYPE_LONG);
      bad_both(gptr_at(z, t, 8), 1, DART_TYPE_BYTE, DART_TYPE_BYTE);
    } else {
      bad_both(gptr_at(z, t, 0), 5, DART_TYPE_LONG, DART_TYPE_LONG);
    }
    /* NULL buffers. */
    ASSERT_RET(dart_put_blocking(gptr_at(e, t, 0), NULL, 1, DART_TYPE_LONG,
                                 DART_TYPE_LONG), DART_ERR_INVAL);
    ASSERT_RET(dart_put(gptr_at(e, t, 0), NULL, 2, DART_TYPE_LONG, DART_TYPE_LONG),
               DART_ERR_INVAL);
    bad_get(NULL, 0, gptr_at(e, t, 0), 1, DART_TYPE_LONG,
            DART_TYPE_LONG);
    /* Type errors. */
    bad_both(gptr_at(e, t, 0), 2, DART_TYPE_INT, DART_TYPE_LONG);
    bad_both(gptr_at(e, t, 0), 2, DART_TYPE_LONG, DART_TYPE_DOUBLE);
    bad_both(gptr_at(e, t, 0), 2, s31i, DART_TYPE_LONG);
    bad_both(gptr_at(e, t, 0), 2, DART_TYPE_LONG, s31i);
    bad_both(gptr_at(e, t, 0), 2, custom8, DART_TYPE_LONG);
    bad_both(gptr_at(e, t, 0), 3, s42, DART_TYPE_LONG);
    bad_both(gptr_at(e, t, 0), 3, DART_TYPE_LONG, s42);
    bad_both(gptr_at(e, t, 0), 5, s42, s42);
    bad_both(gptr_at(e, t, 0), 1, DART_TYPE_UNDEFINED,
             DART_TYPE_UNDEFINED);
    bad_both(gptr_at(e, t, 0), 1, DART_TYPE_LAST, DART_TYPE_LAST);
    bad_both(gptr_at(e, t, 0), 1, DART_TYPE_LONG, 12345);
    /* No handle pointer. */
    ASSERT_RET(dart_put_handle(gptr_at(e, t, 0), buf, 1, DART_TYPE_LONG,
                               DART_TYPE_LONG, NULL), DART_ERR_INVAL);
    ASSERT_RET(dart_get_handle(buf, gptr_at(e, t, 0), 1, DART_TYPE_LONG,
                               DART_TYPE_LONG, NULL), DART_ERR_INVAL);
  }

  STAGE("%s: invalid handles", c->label);
  const dart_handle_t junk[] = { (dart_handle_t)0x1234,
                                 (dart_handle_t)0x7fff0000,
                                 (dart_handle_t)1 };
  int32_t done;
  for (size_t i = 0; i < sizeof junk / sizeof *junk; ++i) {
    dart_handle_t h = junk[i];
    ASSERT_RET(dart_wait(&h), DART_ERR_INVAL);
    ASSERT_RET(dart_wait_local(&h), DART_ERR_INVAL);
    ASSERT_RET(dart_test(&h, &done), DART_ERR_INVAL);
    ASSERT_RET(dart_test_local(&h, &done), DART_ERR_INVAL);
    ASSERT_RET(dart_handle_free(&h), DART_ERR_INVAL);
    dart_handle_t arr[2] = { DART_HANDLE_NULL, junk[i] };
    ASSERT_RET(dart_waitall(arr, 2), DART_ERR_INVAL);
    ASSERT_RET(dart_waitall_local(arr, 2), DART_ERR_INVAL);
    ASSERT_RET(dart_testall(arr, 2, &done), DART_ERR_INVAL);
    ASSERT_RET(dart_testall_local(arr, 2, &done), DART_ERR_INVAL);
  }
  /* A consumed handle is dead, wherever it came from. */
  for (int t = 0; t < c->n; ++t) {
    dart_handle_t h = DART_HANDLE_NULL;
    ASSERT_OK(dart_get_handle(buf, gptr_at(e, t, 0), 1, DART_TYPE_LONG, DART_TYPE_LONG,
                              &h));
    dart_handle_t stale = h;
    ASSERT_OK(dart_wait(&h));
    if (stale != DART_HANDLE_NULL) {
      ASSERT_RET(dart_wait(&stale), DART_ERR_INVAL);
      ASSERT_RET(dart_handle_free(&stale), DART_ERR_INVAL);
    }
  }
  dart_handle_t none = DART_HANDLE_NULL;
  ASSERT_RET(dart_test(&none, NULL), DART_ERR_INVAL);
  ASSERT_RET(dart_testall(&none, 1, NULL), DART_ERR_INVAL);
  restore_log(saved);

  /* Nobody wrote into my portions. */
  ASSERT_OK(dart_barrier(c->team));
  STAGE("%s: portions untouched by bad input", c->label);
  ASSERT_POISON(emine, 0, ebytes);
  if (c->me != c->n - 1) {
    ASSERT_POISON(zmine, 0, 4 * sizeof(long));
  }
  ASSERT_OK(dart_barrier(c->team));

  /* And correct transfers still work. */
  STAGE("%s: correct transfers after bad input", c->label);
  int next = (c->me + 1) % c->n, prev = (c->me + c->n - 1) % c->n;
  long vals[ERR_LONGS];
  fill(DART_TYPE_LONG, vals, ERR_LONGS, key(c->global_of[c->me], 50));
  ASSERT_OK(dart_put(gptr_at(e, next, 0), vals, ERR_LONGS, DART_TYPE_LONG,
                     DART_TYPE_LONG));
  ASSERT_OK(dart_flush(gptr_at(e, next, 0)));
  ASSERT_OK(dart_barrier(c->team));
  check_fill(DART_TYPE_LONG, emine, ERR_LONGS,
             key(c->global_of[prev], 50));
  memset(vals, POISON, sizeof vals);
  ASSERT_OK(dart_get_blocking(vals, gptr_at(e, next, 0), ERR_LONGS, DART_TYPE_LONG,
                              DART_TYPE_LONG));
  check_fill(DART_TYPE_LONG, vals, ERR_LONGS,
             key(c->global_of[c->me], 50));
  ASSERT_OK(dart_barrier(c->team));
  /* The last element of a portion is reachable, also as the end of a
   * strided layout that spans the portion exactly. */
  size_t nlongs = ERR_LONGS + (size_t)next;
  size_t fit = (nlongs - 1) / 3 + 1;
  fill(DART_TYPE_LONG, vals, fit, key(c->global_of[c->me], 52));
  ASSERT_OK(dart_put_blocking(gptr_at(e, next, 0), vals, fit, DART_TYPE_LONG, s31l));
  long last = 4242 + c->me;
  ASSERT_OK(dart_put_blocking(gptr_at(e, next, (nlongs - 1) * sizeof(long)), &last, 1,
                              DART_TYPE_LONG, DART_TYPE_LONG));
  ASSERT_OK(dart_barrier(c->team));
  long *el = (long *)emine;
  size_t mine_longs = ERR_LONGS + (size_t)c->me;
  for (size_t j = 0; j < (mine_longs - 1) / 3 + 1; ++j) {
    long want = (long)pattern(DART_TYPE_LONG, key(c->global_of[prev], 52), j);
    if (3 * j == mine_longs - 1) {
      want = 4242 + prev;
    }
    if (el[3 * j] != want) {
      FAILF("strided element %zu: got %ld, expected %ld", j,
            el[3 * j], want);
    }
  }
  ASSERT_EQ(el[mine_longs - 1], 4242 + prev);
  ASSERT_EQ(el[1], (long)pattern(DART_TYPE_LONG, key(c->global_of[prev], 50),
                                 1));
  ASSERT_OK(dart_barrier(c->team));

  ASSERT_OK(dart_type_destroy(&s42));
  ASSERT_OK(dart_type_destroy(&s31l));
  ASSERT_OK(dart_type_destroy(&s31i));
  ASSERT_OK(dart_type_destroy(&custom8));
  ASSERT_OK(dart_team_memfree(e));
  ASSERT_OK(dart_team_memfree(z));
}

/* Registered memory: RMA except for the caller itself. */
static void test_registered(const struct ctx *c)
{
  STAGE("%s: put/get on registered memory", c->label);
  long mem[SLOT];
  memset(mem, POISON, sizeof mem);
  dart_gptr_t r;
  ASSERT_OK(dart_team_memregister(c->team, SLOT, DART_TYPE_LONG, mem, &r));
  int next = (c->me + 1) % c->n, prev = (c->me + c->n - 1) % c->n;
  long vals[SLOT];
  fill(DART_TYPE_LONG, vals, SLOT, key(c->global_of[c->me], 51));
  dart_handle_t h;
  ASSERT_OK(dart_put_handle(gptr_at(r, next, 0), vals, SLOT, DART_TYPE_LONG,
                            DART_TYPE_LONG, &h));
  if (c->n == 1) {
    ASSERT(h == DART_HANDLE_NULL);
  }
  ASSERT_OK(dart_wait(&h));
  ASSERT_OK(dart_barrier(c->team));
  check_fill(DART_TYPE_LONG, mem, SLOT, key(c->global_of[prev], 51));
  memset(vals, POISON, sizeof vals);
  ASSERT_OK(dart_get(vals, gptr_at(r, next, 0), SLOT, DART_TYPE_LONG, DART_TYPE_LONG));
  ASSERT_OK(dart_flush_local_all(r));
  check_fill(DART_TYPE_LONG, vals, SLOT,
             key(c->global_of[c->me], 51));
  ASSERT_OK(dart_barrier(c->team));
  ASSERT_OK(dart_team_memderegister(r));
}

/* A freed segment's id comes back for a smaller segment: whatever a
 * unit remembered about the old one must not let an access past the new
 * portion's end through. */
static void check_stale_target(void)
{
  STAGE("stale target after free and id reuse");
  dart_gptr_t big, small;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 64, DART_TYPE_LONG, &big));
  long value = 7, got = 0;
  big.unitid = me;
  big.addr_or_offs.offset = 32 * sizeof(long);
  ASSERT_OK(dart_put_blocking(big, &value, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  ASSERT_OK(dart_get_blocking(&got, big, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  ASSERT_EQ(got, 7);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  dart_gptr_t freed = big;
  ASSERT_OK(dart_team_memfree(big));
  /* Freed ids come back least recently freed first: allocate until the
   * old id is handed out again. */
  dart_gptr_t others[64];
  int n_others = 0;
  for (;;) {
    ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_LONG,
                                         &small));
    if (small.segid == freed.segid) {
      break;
    }
    ASSERT(n_others < 64);
    others[n_others++] = small;
  }
  int saved = mute_log();
  ASSERT_RET(dart_get_blocking(&got, freed, 1, DART_TYPE_LONG, DART_TYPE_LONG),
             DART_ERR_INVAL);
  ASSERT_RET(dart_put_blocking(freed, &value, 1, DART_TYPE_LONG, DART_TYPE_LONG),
             DART_ERR_INVAL);
  restore_log(saved);
  small.unitid = me;
  small.addr_or_offs.offset = 7 * sizeof(long);
  ASSERT_OK(dart_put_blocking(small, &value, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(small));
  for (int i = 0; i < n_others; ++i) {
    ASSERT_OK(dart_team_memfree(others[i]));
  }
}

/* DART_TEAM_ALL, and the sub-team of the odd units and the last one
 * ({0}, {1}, {1, 2}, {1, 3}); every case runs on both, the sub-team with
 * fewer pairs and without the large and burst transfers. */
static dart_team_t sub = DART_TEAM_NULL;
static struct ctx all_ctx, sub_ctx;

static void setup(int *argc, char ***argv)
{
  test_start(argc, argv, &me, &n);
  compute_node_keys();
  sub = test_subteam_create(n);
  all_ctx = make_ctx(DART_TEAM_ALL, "DART_TEAM_ALL");
  if (sub != DART_TEAM_NULL) {
    sub_ctx = make_ctx(sub, "sub-team");
  }
}

static void teardown(void)
{
  if (sub != DART_TEAM_NULL) {
    free(sub_ctx.global_of);
    ASSERT_OK(dart_team_destroy(&sub));
  }
  free(all_ctx.global_of);
  free(node_key);
  test_dart_teardown();
}

/* `check` on DART_TEAM_ALL, then on the sub-team where this unit is in. */
static void on_both_teams(void (*check)(const struct ctx *c))
{
  check(&all_ctx);
  if (sub != DART_TEAM_NULL) {
    check(&sub_ctx);
  }
}

static void pairwise(void)
{
  test_pairwise(&all_ctx, NPAIR_CASES);
  if (sub != DART_TEAM_NULL) {
    test_pairwise(&sub_ctx, 5);
  }
}

static void nonblocking(void) { on_both_teams(test_nonblocking); }
static void large_nonblocking(void) { test_large_nonblocking(&all_ctx); }
static void burst(void) { test_burst(&all_ctx); }
static void handles(void) { on_both_teams(test_handles); }
static void memory_model(void) { on_both_teams(test_memory_model); }
static void derived(void) { on_both_teams(test_derived); }
static void zero(void) { on_both_teams(test_zero); }
static void registered(void) { on_both_teams(test_registered); }
static void errors(void) { on_both_teams(test_errors); }

static const struct test_case cases[] = {
  { "pairwise", pairwise },
  { "nonblocking", nonblocking },
  { "large_nonblocking", large_nonblocking },
  { "burst", burst },
  { "handles", handles },
  { "memory_model", memory_model },
  { "derived", derived },
  { "zero", zero },
  { "registered", registered },
  { "errors", errors },
  { "stale_target", check_stale_target },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
