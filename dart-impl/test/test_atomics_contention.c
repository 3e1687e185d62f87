/* Atomics under contention (dart-if/include/dash/dart/if/
 * dart_communication.h): counters updated by every unit at once through
 * fetch_and_op SUM (LONGLONG, DOUBLE), compare-and-swap retry loops and
 * REPLACE token passing (LONGLONG, and BYTE and SHORT tokens sharing
 * 4-byte words with SHORT counters that the others add to), whose
 * fetched values must form an exact permutation (no update lost or
 * applied twice); long double with exact
 * fractions; atomics on dart_memalloc memory; and the same on a sub-team
 * segment with team-relative ids. Shared part: test_atomics_common.h. */
#include "test_atomics_common.h"

static dart_team_t sub = DART_TEAM_NULL;

/* ---------------------------------------------------------------------
 * Contended counters: fetched values form an exact permutation.
 * --------------------------------------------------------------------- */

static int cmp_ll(const void *a, const void *b)
{
  long long x = *(const long long *)a, y = *(const long long *)b;
  return x < y ? -1 : x > y;
}

/* All units' `k` values, gathered (plus `*left` when not NULL: the token
 * a fetch-and-replace chain leaves behind), sorted, must be first,
 * first+1, ...: no update lost or applied twice. */
static void check_run_at(const char *file, int line, dart_team_t team,
                         int size, const long long *mine, int k,
                         const long long *left, long long first,
                         const char *what)
{
  size_t fetched = (size_t)size * (size_t)k;
  size_t total = fetched + (left != NULL);
  long long *all = xmalloc(total * sizeof *all);
  ASSERT_OK(dart_allgather(mine, all, (size_t)k, DART_TYPE_LONGLONG, team));
  if (left != NULL) {
    all[fetched] = *left;
  }
  qsort(all, total, sizeof *all, cmp_ll);
  for (size_t j = 0; j < total; ++j) {
    if (all[j] != first + (long long)j) {
      test_failf(file, line, "%s: sorted value %zu is %lld, expected %lld "
                 "(lost or duplicated update)", what, j, all[j],
                 first + (long long)j);
    }
  }
  free(all);
}

/* Fetched values of counters: a permutation of first, first+1, ... */
#define check_permutation(team, size, mine, k, first)                      \
  check_run_at(__FILE__, __LINE__, team, size, mine, k, NULL, first,       \
               "fetched values")

/* Tokens swapped in with fetch-and-replace: the fetched ones plus the one
 * left behind are the initial token `first` and every token swapped in,
 * each exactly once. */
#define check_tokens(team, size, fetched, k, left, first, what)            \
  check_run_at(__FILE__, __LINE__, team, size, fetched, k,                 \
               &(long long){ (left) }, first, what)

/* Operations per unit (K_SUM for the LONGLONG counter, K_SMALL for the
 * others). With more units than cores every MPICH atomic waits for the
 * target to be scheduled (some 2 ms), so the long runs are where each
 * unit has a core. */

static void test_counters(dart_team_t team, int tme, int tn,
                          const char *label, int K_SUM, int K_SMALL)
{
  dart_gptr_t seg;
  ASSERT_OK(dart_team_memalloc_aligned(team, 5, DART_TYPE_LONGLONG, &seg));
  long long *mine = (long long *)local_base(seg, tme);
  const int c_sum = 0, c_dbl = tn - 1, c_cas = tn / 2;
  const int c_swap = (tn + 1) / 2 % tn;
  mine[0] = 0;                 /* LONGLONG fetch-and-add counter */
  ((double *)mine)[1] = 0.0;   /* DOUBLE counter */
  mine[2] = 0;                 /* LONG CAS counter */
  mine[3] = -1;                /* REPLACE token */
  /* Two 4-byte words of narrow elements: a BYTE token and a SHORT
   * counter, a SHORT token and a SHORT counter. Where MPI has no 1- and
   * 2-byte atomics the swaps go through the whole word, beside the other
   * units' additions to its counter. */
  struct narrow_words {
    unsigned char byte_token, pad;
    short         count_a;
    short         short_token;
    short         count_b;
  } *narrow = (struct narrow_words *)(void *)&mine[4];
  memset(narrow, 0, sizeof *narrow);
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
  /* BYTE tokens 1 .. tn * K_BYTE after the initial 0. */
  const int K_BYTE = K_SWAP < 254 / tn ? K_SWAP : 254 / tn;
  STAGE("%s: %d x %d BYTE and SHORT REPLACE swaps beside SHORT sums",
        label, tn, K_BYTE);
  long long *got_b = xmalloc((size_t)K_BYTE * sizeof *got_b);
  long long *got_s = xmalloc((size_t)K_BYTE * sizeof *got_s);
  const size_t words = 4 * sizeof(long long);
  dart_gptr_t g_bt = gptr_at(seg, c_swap, words);
  dart_gptr_t g_ca = gptr_at(seg, c_swap, words + 2);
  dart_gptr_t g_st = gptr_at(seg, c_swap, words + 4);
  dart_gptr_t g_cb = gptr_at(seg, c_swap, words + 6);
  const short add = 1;
  for (int k = 0; k < K_BYTE; ++k) {
    unsigned char bt = (unsigned char)(1 + tme * K_BYTE + k), old_b = 0;
    short st = (short)(1 + tme * K_BYTE + k), old_s = 0;
    ASSERT_OK(dart_fetch_and_op(g_bt, &bt, &old_b, DART_TYPE_BYTE,
                                DART_OP_REPLACE));
    ASSERT_OK(dart_accumulate(g_ca, &add, 1, DART_TYPE_SHORT, DART_OP_SUM));
    ASSERT_OK(dart_fetch_and_op(g_st, &st, &old_s, DART_TYPE_SHORT,
                                DART_OP_REPLACE));
    ASSERT_OK(dart_accumulate(g_cb, &add, 1, DART_TYPE_SHORT, DART_OP_SUM));
    ASSERT_OK(dart_flush(g_bt));
    got_b[k] = old_b;
    got_s[k] = old_s;
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
  if (tme == c_swap) {
    ASSERT_EQ(narrow->count_a, (short)(tn * K_BYTE));
    ASSERT_EQ(narrow->count_b, (short)(tn * K_BYTE));
    ASSERT_EQ(narrow->pad, 0);
  }
  long long left = 0;
  ASSERT_OK(dart_get_blocking(&left, g, 1, DART_TYPE_LONGLONG,
                              DART_TYPE_LONGLONG));
  check_tokens(team, tn, got, K_SWAP, left, -1, "LONGLONG");
  unsigned char left_b = 0;
  short left_s = 0;
  ASSERT_OK(dart_get_blocking(&left_b, g_bt, 1, DART_TYPE_BYTE,
                              DART_TYPE_BYTE));
  ASSERT_OK(dart_get_blocking(&left_s, g_st, 1, DART_TYPE_SHORT,
                              DART_TYPE_SHORT));
  check_tokens(team, tn, got_b, K_BYTE, left_b, 0, "BYTE");
  check_tokens(team, tn, got_s, K_BYTE, left_s, 0, "SHORT");
  free(got_b);
  free(got_s);
  free(got);
  ASSERT_OK(dart_barrier(team));
  ASSERT_OK(dart_team_memfree(seg));
}

/* ---------------------------------------------------------------------
 * Long double: contended SUM with exact fractions, MIN/MAX/REPLACE.
 * --------------------------------------------------------------------- */

#define K_LD 50

/* The number j of a LONG_DOUBLE token +-(j + 0.25) (sign: j odd), or -1
 * for anything else, which check_tokens then reports. */
static long long token_number(long double v)
{
  long double a = v < 0 ? -v : v;
  long long j = (long long)a;
  bool ok = a < 1e15L && a - (long double)j == 0.25L && (v < 0) == (j % 2);
  return ok ? j : -1;
}

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
    mine[3] = 0.25L; /* token 0 */
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

  STAGE("LONG_DOUBLE MIN/MAX, %d x %d REPLACE swaps (token passing)", n,
        K_LD);
  long double lo = -1e-20L * (me + 1) - 3, hi = 1e15L + me + 0.5L;
  ASSERT_OK(dart_accumulate(gptr_at(seg, owner, sizeof(long double)), &lo, 1,
                            DART_TYPE_LONG_DOUBLE, DART_OP_MIN));
  ASSERT_OK(dart_accumulate(gptr_at(seg, owner, 2 * sizeof(long double)), &hi,
                            1,
                            DART_TYPE_LONG_DOUBLE, DART_OP_MAX));
  /* Token j is +-(j + 0.25), negative for odd j, so consecutive swaps
   * cross zero both ways; token 0 is the initial one. */
  dart_gptr_t g_tok = gptr_at(seg, owner, 3 * sizeof(long double));
  for (int k = 0; k < K_LD; ++k) {
    long long j = 1 + (long long)me * K_LD + k;
    long double tok = (j % 2 ? -1 : 1) * ((long double)j + 0.25L), old = 0;
    ASSERT_OK(dart_fetch_and_op(g_tok, &tok, &old, DART_TYPE_LONG_DOUBLE,
                                DART_OP_REPLACE));
    ASSERT_OK(dart_flush_local(g_tok));
    got[k] = token_number(old);
  }
  ASSERT_OK(dart_flush_all(seg));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  if (me == owner) {
    ASSERT(mine[0] == 0.25L + (long double)(n * K_LD) * step);
    ASSERT(mine[1] == -1e-20L * n - 3);
    ASSERT(mine[2] == 1e15L + (n - 1) + 0.5L);
  }
  long double left = 0;
  ASSERT_OK(dart_get_blocking(&left, g_tok, 1, DART_TYPE_LONG_DOUBLE,
                              DART_TYPE_LONG_DOUBLE));
  check_tokens(DART_TEAM_ALL, n, got, K_LD, token_number(left), 0,
               "LONG_DOUBLE");
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

/* The sub-team of test.h (the odd units and the last one): only this part
 * runs atomics on one. */
static void setup_with_subteam(int *argc, char ***argv)
{
  setup(argc, argv);
  sub = test_subteam_create(n);
}

static void teardown_with_subteam(void)
{
  if (sub != DART_TEAM_NULL) {
    ASSERT_OK(dart_team_destroy(&sub));
  }
  teardown();
}

static void counters_all(void)
{
  test_counters(DART_TEAM_ALL, me, n, "DART_TEAM_ALL", n <= 2 ? 500 : 120,
                n <= 2 ? 100 : 40);
}

static const struct test_case cases[] = {
  { "counters", counters_all },
  { "long_double", test_long_double },
  { "local_pool", test_local_pool },
  { "subteam", test_subteam },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup_with_subteam,
                       teardown_with_subteam);
}
