/* One-sided transfers of other shapes and completed in other ways
 * (dart-if/include/dash/dart/if/dart_communication.h): strided and
 * indexed types on both sides (dart_types.h), zero-element transfers,
 * registered memory, and handles with every wait/test/free call on live
 * transfers. Contiguous transfers completed by flushes are
 * test_onesided_xfer.c's, refused input test_onesided_errors.c's. Shared
 * part: test_onesided_common.h. */
#include "test_onesided_common.h"

/* ---------------------------------------------------------------------
 * Strided and indexed types (dart_type_create_strided/_indexed,
 * dart-if/include/dash/dart/if/dart_types.h).
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
    { &s31, &i32, 40 }, /* remote 0, 3, ..., 117 -> 0..39 */
    { &i32, &s31, 40 }, /* ... and the other way round */
    { &s52, &s21, 48 }, /* strided into strided */
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
 * Indexed types with overlapping blocks (dart_type_create_indexed): fine
 * as the layout a transfer reads, refused as the one it writes, on every
 * path alike.
 * --------------------------------------------------------------------- */

#define OREGION 64 /* ints per region: [0] refused puts, [1] allowed ones */

static void test_overlapping(const struct ctx *c)
{
  /* Blocks in offset order sharing elements 2 and 3 (B 8, E 6), and out
   * of order sharing element 2 (B 5, E 4). */
  const size_t l1[] = { 4, 4 }, o1[] = { 0, 2 };
  const size_t l2[] = { 2, 3 }, o2[] = { 2, 0 };
  struct layout ovs[2] = { indexed(DART_TYPE_INT, 2, l1, o1),
                           indexed(DART_TYPE_INT, 2, l2, o2) };
  const size_t region_bytes = OREGION * sizeof(int);
  dart_gptr_t seg = alloc_portions(c, 2 * region_bytes);
  int *mine = (int *)local_base(seg, c->me);
  int next = (c->me + 1) % c->n, prev = (c->me + c->n - 1) % c->n;
  int gme = c->global_of[c->me], gnext = c->global_of[next],
      gprev = c->global_of[prev];
  int src[OREGION], buf[OREGION];
  for (size_t p = 0; p < OREGION; ++p) {
    src[p] = (int)dval(gme, p);
    mine[p] = mine[OREGION + p] = -(int)dval(gme, p);
  }
  ASSERT_OK(dart_barrier(c->team));
  dart_gptr_t refused = gptr_at(seg, next, 0);
  dart_gptr_t allowed = gptr_at(seg, next, region_bytes);
  for (int k = 0; k < 2; ++k) {
    const struct layout *ov = &ovs[k];
    size_t nelem = 2 * ov->block_count; /* two instances */
    STAGE("%s: overlapping type %d as the written layout", c->label, k);
    ASSERT_RET(dart_put_blocking(refused, src, nelem, DART_TYPE_INT, ov->id),
               DART_ERR_INVAL);
    ASSERT_RET(dart_put(refused, src, nelem, DART_TYPE_INT, ov->id),
               DART_ERR_INVAL);
    dart_handle_t h = (dart_handle_t)0x1234;
    ASSERT_RET(dart_put_handle(refused, src, nelem, DART_TYPE_INT, ov->id,
                               &h), DART_ERR_INVAL);
    ASSERT(h == DART_HANDLE_NULL);
    memset(buf, POISON, sizeof buf);
    ASSERT_RET(dart_get_blocking(buf, refused, nelem, DART_TYPE_INT, ov->id),
               DART_ERR_INVAL);
    ASSERT_RET(dart_get(buf, refused, nelem, DART_TYPE_INT, ov->id),
               DART_ERR_INVAL);
    h = (dart_handle_t)0x1234;
    ASSERT_RET(dart_get_handle(buf, refused, nelem, DART_TYPE_INT, ov->id,
                               &h), DART_ERR_INVAL);
    ASSERT(h == DART_HANDLE_NULL);
    ASSERT_POISON(buf, 0, sizeof buf);

    /* As the layout read, by a put (my source) and a get (the target's
     * untouched region), each element comes from its position there. */
    STAGE("%s: overlapping type %d as the read layout", c->label, k);
    ASSERT_OK(dart_barrier(c->team));
    ASSERT_OK(dart_put_blocking(allowed, src, nelem, ov->id, DART_TYPE_INT));
    ASSERT_OK(dart_barrier(c->team));
    for (size_t j = 0; j < OREGION; ++j) {
      int want = j < nelem ? (int)dval(gprev, pos_of(ov, j))
                           : -(int)dval(gme, j);
      ASSERT_EQ(mine[OREGION + j], want);
    }
    memset(buf, POISON, sizeof buf);
    ASSERT_OK(dart_get_blocking(buf, refused, nelem, ov->id, DART_TYPE_INT));
    for (size_t j = 0; j < nelem; ++j) {
      ASSERT_EQ(buf[j], -(int)dval(gnext, pos_of(ov, j)));
    }
    ASSERT_POISON(buf, nelem * sizeof(int), sizeof buf - nelem * sizeof(int));
    ASSERT_OK(dart_barrier(c->team));
    for (size_t p = 0; p < OREGION; ++p) {
      mine[OREGION + p] = -(int)dval(gme, p);
    }
    ASSERT_OK(dart_barrier(c->team));
  }
  /* Not a byte of the refused region changed. */
  for (size_t p = 0; p < OREGION; ++p) {
    ASSERT_EQ(mine[p], -(int)dval(gme, p));
  }
  ASSERT_OK(dart_barrier(c->team));
  ASSERT_OK(dart_team_memfree(seg));
  for (int k = 0; k < 2; ++k) {
    ASSERT_OK(dart_type_destroy(&ovs[k].id));
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
    ASSERT_OK(dart_put_blocking(g, NULL, 0, DART_TYPE_DOUBLE,
                                DART_TYPE_DOUBLE));
    ASSERT_OK(dart_get_blocking(NULL, g, 0, DART_TYPE_BYTE, DART_TYPE_BYTE));
    ASSERT_OK(dart_put_handle(g, NULL, 0, DART_TYPE_INT, DART_TYPE_INT, &h));
    ASSERT(h == DART_HANDLE_NULL);
    h = (dart_handle_t)0x1234;
    ASSERT_OK(dart_get_handle(NULL, g, 0, s, DART_TYPE_INT, &h));
    ASSERT(h == DART_HANDLE_NULL);
    ASSERT_OK(dart_put(g, NULL, 0, DART_TYPE_INT, s));
    ASSERT_OK(dart_flush(g));
  }
  /* Nothing moves, but the pointer is checked all the same
   * (dart_communication.h, "Validity of a target"): the null pointer, a
   * unit outside the team, an offset past the portion, a freed segment. */
  long v = 0;
  dart_gptr_t past = gptr_at(seg, c->me, 64 + 64 * (uint64_t)c->me + 1);
  dart_gptr_t outside = gptr_at(seg, 0, 0);
  outside.unitid = c->n;
  dart_gptr_t bad[] = { DART_GPTR_NULL, outside, past };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    dart_handle_t h = (dart_handle_t)0x1234;
    ASSERT_RET(dart_put(bad[i], &v, 0, DART_TYPE_LONG, DART_TYPE_LONG),
               DART_ERR_INVAL);
    ASSERT_RET(dart_get(&v, bad[i], 0, DART_TYPE_LONG, DART_TYPE_LONG),
               DART_ERR_INVAL);
    ASSERT_RET(dart_put_blocking(bad[i], &v, 0, DART_TYPE_LONG,
                                 DART_TYPE_LONG), DART_ERR_INVAL);
    ASSERT_RET(dart_get_blocking(&v, bad[i], 0, DART_TYPE_LONG,
                                 DART_TYPE_LONG), DART_ERR_INVAL);
    ASSERT_RET(dart_get_handle(&v, bad[i], 0, DART_TYPE_LONG, DART_TYPE_LONG,
                               &h), DART_ERR_INVAL);
    ASSERT(h == DART_HANDLE_NULL);
    ASSERT_RET(dart_accumulate(bad[i], &v, 0, DART_TYPE_LONG, DART_OP_SUM),
               DART_ERR_INVAL);
  }
  ASSERT_OK(dart_type_destroy(&s));
  ASSERT_OK(dart_barrier(c->team));
  dart_gptr_t freed = gptr_at(seg, c->me, 0);
  ASSERT_OK(dart_team_memfree(seg));
  ASSERT_RET(dart_put_blocking(freed, &v, 0, DART_TYPE_LONG, DART_TYPE_LONG),
             DART_ERR_INVAL);
  ASSERT_RET(dart_get(&v, freed, 0, DART_TYPE_LONG, DART_TYPE_LONG),
             DART_ERR_INVAL);
  ASSERT_RET(dart_accumulate(freed, &v, 0, DART_TYPE_LONG, DART_OP_SUM),
             DART_ERR_INVAL);
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
  ASSERT_OK(dart_get(vals, gptr_at(r, next, 0), SLOT, DART_TYPE_LONG,
                     DART_TYPE_LONG));
  ASSERT_OK(dart_flush_local_all(r));
  check_fill(DART_TYPE_LONG, vals, SLOT,
             key(c->global_of[c->me], 51));
  ASSERT_OK(dart_barrier(c->team));
  ASSERT_OK(dart_team_memderegister(r));
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

/* dart_put_handle of slot t of `src`, filled with key(me, purpose + t),
 * into my slot at team unit t. */
static void put_slot_handle(const struct ctx *c, dart_gptr_t seg, long *src,
                            int t, int purpose, dart_handle_t *h)
{
  long *s = src + (size_t)t * SLOT;
  fill(DART_TYPE_LONG, s, SLOT, key(c->global_of[c->me], purpose + t));
  ASSERT_OK(dart_put_handle(gptr_at(seg, t, slot_of(c->me)), s, SLOT,
                            DART_TYPE_LONG, DART_TYPE_LONG, h));
}

/* dart_get_handle of origin o's slot at team unit t into slot t of dst. */
static void get_slot_handle(dart_gptr_t seg, long *dst, int t, int o,
                            dart_handle_t *h)
{
  ASSERT_OK(dart_get_handle(dst + (size_t)t * SLOT, gptr_at(seg, t, slot_of(o)),
                            SLOT, DART_TYPE_LONG, DART_TYPE_LONG, h));
}

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
    h[t] = (dart_handle_t)0x1234;
    put_slot_handle(c, seg, src, t, 40, &h[t]);
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
    get_slot_handle(seg, dst, t, c->me, &g);
    check_handle(c, t, g);
    if (t % 2 == 0) {
      ASSERT_OK(dart_wait_local(&g));
    } else {
      ASSERT_OK(dart_wait(&g));
    }
    ASSERT(g == DART_HANDLE_NULL);
    check_slot(c, dst, t, c->me, 40);
  }
  ASSERT_OK(dart_barrier(c->team));

  STAGE("%s: put_handle + dart_wait / dart_test loop", c->label);
  for (int t = 0; t < c->n; ++t) {
    dart_handle_t p = DART_HANDLE_NULL;
    put_slot_handle(c, seg, src, t, 48, &p);
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
    get_slot_handle(seg, dst, t, o, &g);
    check_handle(c, t, g);
    TEST_UNTIL_DONE(dart_test_local(&g, &done), done);
    ASSERT(g == DART_HANDLE_NULL);
    check_slot(c, dst, t, o, 48);
  }
  ASSERT_OK(dart_barrier(c->team));

  STAGE("%s: dart_testall loop over puts (with NULL entries)", c->label);
  dart_handle_t *hh = xmalloc(2 * (size_t)c->n * sizeof *hh);
  for (int t = 0; t < c->n; ++t) {
    hh[2 * t] = DART_HANDLE_NULL;
    put_slot_handle(c, seg, src, t, 56, &hh[2 * t + 1]);
  }
  TEST_UNTIL_DONE(dart_testall(hh, 2 * (size_t)c->n, &done), done);
  for (int i = 0; i < 2 * c->n; ++i) {
    ASSERT(hh[i] == DART_HANDLE_NULL);
  }
  ASSERT_OK(dart_barrier(c->team));
  check_round(c, seg, 56);

  /* Row 0 completes the gets with a dart_testall_local loop, row 1 with
   * dart_waitall_local. */
  for (int row = 0; row < 2; ++row) {
    STAGE("%s: %s over gets", c->label,
          row == 0 ? "dart_testall_local loop" : "dart_waitall_local");
    memset(dst, POISON, all * sizeof(long));
    for (int t = 0; t < c->n; ++t) {
      get_slot_handle(seg, dst, t, c->me, &h[t]);
    }
    if (row == 0) {
      TEST_UNTIL_DONE(dart_testall_local(h, (size_t)c->n, &done), done);
    } else {
      ASSERT_OK(dart_waitall_local(h, (size_t)c->n));
    }
    for (int t = 0; t < c->n; ++t) {
      ASSERT(h[t] == DART_HANDLE_NULL);
      check_slot(c, dst, t, c->me, 56);
    }
  }
  ASSERT_OK(dart_barrier(c->team));

  /* Freed handles: the transfer still happens, a flush completes it. */
  STAGE("%s: put_handle + dart_handle_free + dart_flush", c->label);
  for (int t = 0; t < c->n; ++t) {
    put_slot_handle(c, seg, src, t, 32, &h[t]);
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
    put_slot_handle(c, seg, src, t, 24, &h[t]);
  }
  ASSERT_OK(dart_flush_all(seg));
  for (int t = 0; t < c->n; ++t) {
    ASSERT_OK(t % 2 == 0 ? dart_wait(&h[t]) : dart_wait_local(&h[t]));
    ASSERT(h[t] == DART_HANDLE_NULL);
  }
  ASSERT_OK(dart_barrier(c->team));
  check_round(c, seg, 24);
  ASSERT_OK(dart_barrier(c->team));

  free(hh);
  free(h);
  free(src);
  free(dst);
  ASSERT_OK(dart_team_memfree(seg));
}

static void derived(void) { on_both_teams(test_derived); }
static void overlapping(void) { on_both_teams(test_overlapping); }
static void zero(void) { on_both_teams(test_zero); }
static void registered(void) { on_both_teams(test_registered); }
static void handles(void) { on_both_teams(test_handles); }

static const struct test_case cases[] = {
  { "derived", derived },
  { "overlapping", overlapping },
  { "zero", zero },
  { "registered", registered },
  { "handles", handles },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
