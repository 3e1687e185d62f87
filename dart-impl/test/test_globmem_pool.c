/* The non-collective local pool (dart-if/include/dash/dart/if/
 * dart_globmem.h; docs/design.md, "Global memory and segments"):
 * dart_memalloc blocks of several types on the even units, read, written
 * and accumulated into by every unit, dart_memfree and its errors; and the
 * pool's growth up to its reservation, which needs DART_LOCAL_POOL_MIB=1 and
 * DART_LOCAL_POOL_MAX_MIB=64 (every registration of the test_globmem
 * family in dart-impl/test/CMakeLists.txt sets them); and its tail,
 * run again with a reservation of 3 MiB. Shared part:
 * test_globmem_common.h. */
#include "test_globmem_common.h"

/* ---------------------------------------------------------------------
 * The local pool: dart_memalloc / dart_memfree.
 * --------------------------------------------------------------------- */

static size_t pow2_at_least(size_t bytes)
{
  size_t p = 8;
  while (p < bytes) {
    p <<= 1;
  }
  return p;
}

#define check_pool_gptr(...) check_pool_gptr_at(__FILE__, __LINE__, __VA_ARGS__)
static void check_pool_gptr_at(const char *file, int line, dart_gptr_t g)
{
  if (g.unitid != me || g.segid != DART_SEGMENT_LOCAL ||
      g.teamid != DART_TEAM_ALL || g.flags != 0 ||
      g.addr_or_offs.offset % 8 != 0) {
    test_failf(file, line,
               "memalloc gptr {unit %d, flags %u, segid %d, team %d, "
               "offset %llu}", (int)g.unitid, (unsigned)g.flags,
               (int)g.segid, (int)g.teamid,
               (unsigned long long)g.addr_or_offs.offset);
  }
}

#define POOL_BLOCKS 6

static void test_memalloc(void)
{
  /* Even units allocate; everybody uses the blocks. */
  bool owner = me % 2 == 0;
  static const struct {
    size_t nelem;
    int    type; /* index into test_basic_types[], or -1 for the custom type */
  } spec[POOL_BLOCKS] = { { 1, 0 }, { 3, 1 }, { 1, 6 }, { 100, 2 },
                          { 1000, 9 }, { 5, -1 } };
  dart_gptr_t blocks[POOL_BLOCKS];
  size_t bytes[POOL_BLOCKS];
  STAGE("memalloc");
  for (int b = 0; b < POOL_BLOCKS; ++b) {
    dart_datatype_t t = spec[b].type < 0 ? custom_type : test_basic_types[spec[b].type];
    bytes[b] = spec[b].nelem * (spec[b].type < 0 ? 12 : tsize(t));
    blocks[b] = DART_GPTR_NULL;
    if (owner) {
      junk_gptr(&blocks[b]);
      ASSERT_OK(dart_memalloc(spec[b].nelem, t, &blocks[b]));
      check_pool_gptr(blocks[b]);
    }
  }
  if (owner) {
    char *pool_base = local_addr(gptr_at(blocks[0], me, 0));
    ASSERT(pool_base != NULL);
    for (int b = 0; b < POOL_BLOCKS; ++b) {
      uint64_t ob = blocks[b].addr_or_offs.offset;
      char *p = local_addr(blocks[b]);
      ASSERT(p == pool_base + ob);
      ASSERT_EQ((uintptr_t)p % 8, 0);
      for (int c = 0; c < b; ++c) {
        uint64_t oc = blocks[c].addr_or_offs.offset;
        if (ob < oc + pow2_at_least(bytes[c]) &&
            oc < ob + pow2_at_least(bytes[b])) {
          FAILF("blocks %d (offset %llu, %zu bytes) and %d "
                "(offset %llu, %zu bytes) overlap", c,
                (unsigned long long)oc, bytes[c], b,
                (unsigned long long)ob, bytes[b]);
        }
      }
    }
    /* Contents written locally: INT block pattern, LONGLONG counter. */
    fill(DART_TYPE_INT, local_addr(blocks[3]), 0, 100,
         key(me, 40));
    *(long long *)local_addr(blocks[2]) = 1000 + me;
    double *d = local_addr(blocks[4]);
    memset(d, POISON, 1000 * sizeof(double));
  }

  /* Share the gptrs of the INT, LONGLONG and DOUBLE blocks. */
  dart_gptr_t mine3[3] = { blocks[3], blocks[2], blocks[4] };
  dart_gptr_t *all = xmalloc((size_t)n * sizeof mine3);
  ASSERT_OK(dart_allgather(mine3, all, sizeof mine3, DART_TYPE_BYTE,
                           DART_TEAM_ALL));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int v = 0; v < n; ++v) {
    dart_gptr_t ints = all[3 * v], counter = all[3 * v + 1],
                dbls = all[3 * v + 2];
    if (v % 2 != 0) {
      ASSERT(gptr_is_null(ints));
      continue;
    }
    STAGE("memalloc: unit %d's blocks from unit %d", v, me);
    ASSERT_EQ(ints.unitid, v);
    ASSERT_EQ(ints.segid, 0);
    ASSERT_EQ(ints.teamid, DART_TEAM_ALL);
    if (v != me) {
      ASSERT(local_addr(ints) == NULL);
    }
    int got[100];
    memset(got, POISON, sizeof got);
    ASSERT_OK(dart_get_blocking(got, ints, 100, DART_TYPE_INT, DART_TYPE_INT));
    check_fill(DART_TYPE_INT, got, 0, 100, 0, key(v, 40));
    /* Ten doubles per writer, each region written by one unit. */
    double mine10[10];
    fill(DART_TYPE_DOUBLE, mine10, 0, 10, key(me, 41 + v % 8));
    dart_gptr_t region = dbls;
    ASSERT_OK(dart_gptr_incaddr(&region, (int64_t)(me * 10 * sizeof(double))));
    ASSERT_OK(dart_put(region, mine10, 10, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
    long long add = me + 1;
    ASSERT_OK(dart_accumulate(counter, &add, 1, DART_TYPE_LONGLONG,
                              DART_OP_SUM));
    ASSERT_OK(dart_flush(region));
    ASSERT_OK(dart_flush(counter));
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  if (owner) {
    STAGE("memalloc: what the others wrote into unit %d's blocks", me);
    double *d = local_addr(blocks[4]);
    for (int w = 0; w < n; ++w) {
      check_fill(DART_TYPE_DOUBLE, d + 10 * w, 0, 10, 0,
                 key(w, 41 + me % 8));
    }
    ASSERT_POISON(d, 10 * (size_t)n * sizeof(double),
                  (1000 - 10 * (size_t)n) * sizeof(double));
    ASSERT_EQ(*(long long *)local_addr(blocks[2]),
              1000 + me + (long long)n * (n + 1) / 2);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  STAGE("memfree errors");
  int saved = mute_log();
  int foreign = (me + 2) % n;
  if (foreign != me && foreign % 2 == 0) {
    ASSERT_RET(dart_memfree(all[3 * foreign]), DART_ERR_INVAL);
  }
  ASSERT_RET(dart_memfree(DART_GPTR_NULL), DART_ERR_INVAL);
  dart_gptr_t coll = alloc_bytes(DART_TEAM_ALL, 16);
  ASSERT_RET(dart_memfree(coll), DART_ERR_INVAL);
  dart_gptr_t fake = coll;
  fake.segid = 0;
  fake.teamid = 3;
  ASSERT_RET(dart_memfree(fake), DART_ERR_INVAL);
  fake = coll;
  fake.segid = 0;
  fake.unitid = me;
  fake.addr_or_offs.offset = 1u << 30; /* far past the pool */
  ASSERT_RET(dart_memfree(fake), DART_ERR_INVAL);
  if (owner) {
    dart_gptr_t inner = blocks[4];
    inner.addr_or_offs.offset += 8;
    ASSERT_RET(dart_memfree(inner), DART_ERR_INVAL);
  }
  ASSERT_RET(dart_memalloc(4, DART_TYPE_INT, NULL), DART_ERR_INVAL);
  dart_gptr_t g;
  junk_gptr(&g);
  ASSERT_RET(dart_memalloc(4, strided_type, &g), DART_ERR_INVAL);
  ASSERT(gptr_is_null(g));
  ASSERT_RET(dart_memalloc(4, DART_TYPE_UNDEFINED, &g), DART_ERR_INVAL);
  ASSERT_RET(dart_memalloc(4, DART_TYPE_LAST, &g), DART_ERR_INVAL);
  restore_log(saved);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(coll));

  /* Zero elements: a minimal block or DART_GPTR_NULL, both fine. */
  ASSERT_OK(dart_memalloc(0, DART_TYPE_INT, &g));
  if (!gptr_is_null(g)) {
    check_pool_gptr(g);
    ASSERT_OK(dart_memfree(g));
  }

  if (owner) {
    STAGE("memfree by the owner, then double free");
    for (int b = 0; b < POOL_BLOCKS; ++b) {
      ASSERT_OK(dart_memfree(blocks[b]));
    }
    saved = mute_log();
    for (int b = 0; b < POOL_BLOCKS; ++b) {
      ASSERT_RET(dart_memfree(blocks[b]), DART_ERR_INVAL);
    }
    restore_log(saved);
  }
  free(all);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* ctest runs this program with a 1 MiB initial pool and a 64 MiB
 * reservation, so growth and its limit are reached quickly. */
enum { POOL_MIB = 1, POOL_MAX_MIB = 64 };

static void require_pool_env(void)
{
  const char *initial = getenv("DART_LOCAL_POOL_MIB");
  const char *max = getenv("DART_LOCAL_POOL_MAX_MIB");
  if (initial == NULL || max == NULL || atoi(initial) != POOL_MIB ||
      atoi(max) != POOL_MAX_MIB) {
    FAILF("run with DART_LOCAL_POOL_MIB=%d and "
          "DART_LOCAL_POOL_MAX_MIB=%d", POOL_MIB, POOL_MAX_MIB);
  }
}

/* Growth: 1 MiB blocks fill chunks of 1, 1, 2, 4, 8, 16 and 32 MiB, the
 * whole reservation, before the pool reports DART_ERR_NOMEM; every block
 * is reachable by node peers and by RMA like the first one. */
static void test_local_pool_growth(void)
{
  require_pool_env();
  STAGE("local pool growth");
  enum { BLOCKS = POOL_MAX_MIB / POOL_MIB };
  const size_t mib = (size_t)1 << 20;
  dart_gptr_t blocks[BLOCKS + 1];
  int taken = 0;
  dart_ret_t ret = DART_OK;
  int saved = mute_log();
  while (taken <= BLOCKS) {
    junk_gptr(&blocks[taken]);
    ret = dart_memalloc(mib, DART_TYPE_BYTE, &blocks[taken]);
    if (ret != DART_OK) {
      break;
    }
    check_pool_gptr(blocks[taken]);
    char *p = local_addr(blocks[taken]);
    p[0] = (char)(me + taken);
    p[mib - 1] = (char)(me - taken);
    ++taken;
  }
  restore_log(saved);
  ASSERT_EQ(ret, DART_ERR_NOMEM);
  ASSERT_EQ(taken, BLOCKS);
  ASSERT(gptr_is_null(blocks[BLOCKS]));

  STAGE("local pool growth: the next unit's blocks");
  dart_gptr_t *all = xmalloc((size_t)n * BLOCKS * sizeof *all);
  ASSERT_OK(dart_allgather(blocks, all, BLOCKS * sizeof *all, DART_TYPE_BYTE,
                           DART_TEAM_ALL));
  int next = (me + 1) % n, prev = (me + n - 1) % n;
  dart_gptr_t *theirs = all + (size_t)next * BLOCKS;
  for (int b = 0; b < BLOCKS; ++b) {
    dart_gptr_t last = theirs[b];
    last.addr_or_offs.offset += mib - 1;
    char first_byte = 0, last_byte = 0;
    ASSERT_OK(dart_get_blocking(&first_byte, theirs[b], 1, DART_TYPE_BYTE,
                                DART_TYPE_BYTE));
    ASSERT_OK(dart_get_blocking(&last_byte, last, 1, DART_TYPE_BYTE,
                                DART_TYPE_BYTE));
    ASSERT_EQ(first_byte, (char)(next + b));
    ASSERT_EQ(last_byte, (char)(next - b));
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  int marks[BLOCKS]; /* dart_put may read them until the flush */
  for (int b = 0; b < BLOCKS; ++b) {
    dart_gptr_t middle = theirs[b];
    middle.addr_or_offs.offset += mib / 2;
    marks[b] = 1000 * me + b;
    ASSERT_OK(dart_put(middle, &marks[b], 1, DART_TYPE_INT, DART_TYPE_INT));
  }
  ASSERT_OK(dart_flush_all(theirs[0]));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int b = 0; b < BLOCKS; ++b) {
    char *p = local_addr(blocks[b]);
    int mark;
    memcpy(&mark, p + mib / 2, sizeof mark);
    ASSERT_EQ(mark, 1000 * prev + b);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  free(all);

  STAGE("local pool growth: freed space is reused, the limit holds");
  for (int b = 0; b < BLOCKS; ++b) {
    ASSERT_OK(dart_memfree(blocks[b]));
  }
  dart_gptr_t g;
  saved = mute_log();
  junk_gptr(&g);
  ASSERT_RET(dart_memalloc((size_t)1 << 40, DART_TYPE_BYTE, &g),
             DART_ERR_NOMEM);
  ASSERT(gptr_is_null(g));
  /* 48 MiB rounds up to a 64 MiB block: no chunk holds one, and a new
   * chunk of 64 MiB would run past the reservation. */
  ASSERT_RET(dart_memalloc(48 * mib, DART_TYPE_BYTE, &g), DART_ERR_NOMEM);
  restore_log(saved);
  ASSERT_OK(dart_memalloc(32 * mib, DART_TYPE_BYTE, &g));
  check_pool_gptr(g);
  ASSERT_EQ(g.addr_or_offs.offset, 32 * mib);
  ASSERT_OK(dart_memfree(g));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* The tail of the reservation: after 2 MiB of blocks, 4 KiB blocks fill
 * exactly what is left, whether or not the rest is a sum of doubling
 * chunks (a chunk just large enough per block used to be the fallback:
 * with DART_LOCAL_POOL_MAX_MIB=3 the pool ran out of its 64 chunks after
 * 62 blocks, the tail mostly unused). */
static void test_pool_tail(void)
{
  const char *initial = getenv("DART_LOCAL_POOL_MIB");
  const char *max = getenv("DART_LOCAL_POOL_MAX_MIB");
  ASSERT_MSG(initial != NULL && max != NULL && atoi(initial) == 1 &&
               atoi(max) >= 3 && atoi(max) <= 64,
             "run with DART_LOCAL_POOL_MIB=1 and DART_LOCAL_POOL_MAX_MIB "
             "between 3 and 64");
  const size_t mib = (size_t)1 << 20, small = 4096;
  const size_t expected = ((size_t)atoi(max) - 2) * mib / small;
  STAGE("pool tail: 2 MiB, then %zu blocks of 4 KiB", expected);
  dart_gptr_t big[2];
  for (int b = 0; b < 2; ++b) {
    ASSERT_OK(dart_memalloc(mib, DART_TYPE_BYTE, &big[b]));
  }
  dart_gptr_t *blocks = xmalloc((expected + 1) * sizeof *blocks);
  size_t taken = 0;
  dart_ret_t ret = DART_OK;
  int saved = mute_log();
  while (taken <= expected) {
    ret = dart_memalloc(small, DART_TYPE_BYTE, &blocks[taken]);
    if (ret != DART_OK) {
      break;
    }
    ++taken;
  }
  restore_log(saved);
  ASSERT_EQ(ret, DART_ERR_NOMEM);
  ASSERT_EQ(taken, expected);
  for (size_t k = 0; k < taken; ++k) {
    ASSERT_OK(dart_memfree(blocks[k]));
  }
  for (int b = 0; b < 2; ++b) {
    ASSERT_OK(dart_memfree(big[b]));
  }
  free(blocks);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

static const struct test_case cases[] = {
  { "memalloc", test_memalloc },
  { "local_pool_growth", test_local_pool_growth },
  { "pool_tail", test_pool_tail },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
