/* The buddy allocator under load: a randomized run against a shadow
 * model, and a 1 GiB pool that must be cheap to create and use. Shared
 * part: test_buddy_allocator_common.h. */
#include "test_buddy_allocator_common.h"

/* ---- randomized run against a shadow model --------------------------- */

enum { STRESS_CAP = 1 << 20, STRESS_GRANULES = STRESS_CAP / 16,
       STRESS_WORDS = STRESS_GRANULES / 64, STRESS_OPS = 200000 };

struct live_block { size_t offset, size; };

struct shadow {
  struct live_block live[STRESS_GRANULES];
  size_t nlive;
  size_t live_bytes;
  uint64_t occupied[STRESS_WORDS]; /* one bit per 16-byte granule */
  unsigned char starts[STRESS_GRANULES]; /* a live block starts here */
};

static int shadow_range_free(const struct shadow *sh, size_t off, size_t size)
{
  size_t g = off / 16, n = size / 16;
  if (n >= 64) {
    for (size_t w = g / 64; w < (g + n) / 64; ++w) {
      if (sh->occupied[w] != 0) {
        return 0;
      }
    }
    return 1;
  }
  uint64_t mask = ((UINT64_C(1) << n) - 1) << (g % 64);
  return (sh->occupied[g / 64] & mask) == 0;
}

static void shadow_mark(struct shadow *sh, size_t off, size_t size, int set)
{
  size_t g = off / 16, n = size / 16;
  if (n >= 64) {
    memset(&sh->occupied[g / 64], set ? 0xFF : 0, n / 64 * sizeof(uint64_t));
  } else {
    uint64_t mask = ((UINT64_C(1) << n) - 1) << (g % 64);
    if (set) {
      sh->occupied[g / 64] |= mask;
    } else {
      sh->occupied[g / 64] &= ~mask;
    }
  }
  sh->starts[g] = (unsigned char)set;
}

/* Whether some size-aligned range of `size` bytes is entirely free in the
 * shadow: exactly when a buddy allocator must satisfy the request. */
static int shadow_has_free_range(const struct shadow *sh, size_t size)
{
  size_t n = size / 16;
  if (n >= 64) {
    for (size_t w = 0; w < STRESS_WORDS; w += n / 64) {
      size_t j = 0;
      while (j < n / 64 && sh->occupied[w + j] == 0) {
        ++j;
      }
      if (j == n / 64) {
        return 1;
      }
    }
    return 0;
  }
  uint64_t starts = 0;
  for (size_t p = 0; p < 64; p += n) {
    starts |= UINT64_C(1) << p;
  }
  for (size_t w = 0; w < STRESS_WORDS; ++w) {
    uint64_t f = ~sh->occupied[w];
    for (size_t step = 1; step < n; step *= 2) {
      f &= f >> step; /* bit p: granules p .. p + 2*step - 1 all free */
    }
    if (f & starts) {
      return 1;
    }
  }
  return 0;
}

static size_t random_request(void)
{
  uint64_t r = rnd();
  unsigned kind = (unsigned)(r % 100);
  r >>= 8;
  if (kind < 5) {
    return 0;
  } else if (kind < 45) {
    return 1 + (size_t)(r % 64);
  } else if (kind < 75) {
    return 1 + (size_t)(r % 1024);
  } else if (kind < 93) {
    return 1 + (size_t)(r % (16 * 1024));
  } else if (kind < 99) {
    return 1 + (size_t)(r % (128 * 1024));
  }
  return 1 + (size_t)(r % STRESS_CAP);
}

static int test_stress(void)
{
  struct shadow *sh = calloc(1, sizeof *sh);
  struct buddy_allocator *b = buddy_create(STRESS_CAP);
  ASSERT(sh != NULL && b != NULL);
  rng_state = 20240601;
  size_t allocs = 0, failures = 0, frees = 0, rejects = 0;
  for (long op = 0; op < STRESS_OPS; ++op) {
    unsigned bias = sh->live_bytes < STRESS_CAP / 2 ? 60
                    : sh->live_bytes < STRESS_CAP / 8 * 7 ? 50 : 35;
    if (sh->nlive == 0 || rnd() % 100 < bias) {
      size_t want = random_request();
      size_t size = expected_size(want), off = SIZE_MAX;
      if (buddy_alloc(b, want, &off) == 0) {
        ++allocs;
        ASSERT(off % size == 0 && off + size <= STRESS_CAP);
        ASSERT(shadow_range_free(sh, off, size));
        ASSERT(buddy_block_size(b, off) == size);
        shadow_mark(sh, off, size, 1);
        sh->live[sh->nlive].offset = off;
        sh->live[sh->nlive].size = size;
        sh->nlive++;
        sh->live_bytes += size;
      } else {
        ++failures;
        ASSERT(off == SIZE_MAX);
        ASSERT(!shadow_has_free_range(sh, size));
      }
    } else {
      size_t n = (size_t)(rnd() % sh->nlive);
      struct live_block blk = sh->live[n];
      ASSERT(buddy_block_size(b, blk.offset) == blk.size);
      if (blk.size > 16) { /* an interior offset first */
        size_t d = 16 * (1 + (size_t)(rnd() % (blk.size / 16 - 1)));
        ASSERT(buddy_free(b, blk.offset + d) == -1);
        ++rejects;
      }
      ASSERT(buddy_free(b, blk.offset) == 0);
      ++frees;
      shadow_mark(sh, blk.offset, blk.size, 0);
      sh->live[n] = sh->live[--sh->nlive];
      sh->live_bytes -= blk.size;
      if (rnd() % 4 == 0) {
        ASSERT(buddy_free(b, blk.offset) == -1); /* double free */
        ++rejects;
      }
    }
    /* A random offset: rejected unless a live block starts there. */
    if (op % 8 == 0) {
      size_t probe = (size_t)(rnd() % (STRESS_CAP + 64));
      if (op % 16 == 0) {
        probe &= ~(size_t)15;
      }
      if (probe >= STRESS_CAP || probe % 16 != 0 || !sh->starts[probe / 16]) {
        ASSERT(buddy_free(b, probe) == -1);
        ASSERT(buddy_block_size(b, probe) == 0);
        ++rejects;
      } else {
        ASSERT(buddy_block_size(b, probe) != 0);
      }
    }
    if (op % 20000 == 0) {
      for (size_t n = 0; n < sh->nlive; ++n) {
        ASSERT(buddy_block_size(b, sh->live[n].offset) == sh->live[n].size);
      }
    }
  }
  /* The run must have exercised both paths a lot. */
  ASSERT(allocs > 50000 && frees > 50000 && failures > 100 && rejects > 50000);
  for (size_t n = 0; n < sh->nlive; ++n) {
    ASSERT(buddy_free(b, sh->live[n].offset) == 0);
  }
  size_t off;
  ASSERT(buddy_alloc(b, STRESS_CAP, &off) == 0 && off == 0);
  ASSERT(buddy_block_size(b, 0) == STRESS_CAP);
  printf("stress: %zu allocations, %zu failed (verified), %zu frees, "
         "%zu rejected frees\n", allocs, failures, frees, rejects);
  buddy_destroy(b);
  free(sh);
  return 0;
}

/* ---- a 1 GiB pool: cheap to create, fast to use ---------------------- */

static int test_large_pool(void)
{
  const size_t cap = (size_t)1 << 30;
  enum { N = 100000 };
  double t0 = now_seconds();
  for (int r = 0; r < 20; ++r) { /* creation does not touch O(capacity) */
    struct buddy_allocator *b = buddy_create(cap);
    ASSERT(b != NULL);
    buddy_destroy(b);
  }
  double t_create = now_seconds() - t0;

  t0 = now_seconds();
  struct buddy_allocator *b = buddy_create(cap + 12345);
  size_t *offs = malloc(N * sizeof *offs);
  ASSERT(b != NULL && offs != NULL && buddy_capacity(b) == cap);
  rng_state = 77;
  for (int n = 0; n < N; ++n) {
    size_t want = (size_t)1 << (rnd() % 13); /* 1 .. 4096 */
    size_t size = expected_size(want);
    ASSERT(buddy_alloc(b, want, &offs[n]) == 0);
    ASSERT(offs[n] % size == 0 && offs[n] + size <= cap);
  }
  size_t off;
  size_t half;
  ASSERT(buddy_alloc(b, cap / 2, &half) == 0 && half == cap / 2);
  ASSERT(buddy_alloc(b, cap / 2, &off) == -1);
  ASSERT(buddy_free(b, half) == 0);
  shuffle(offs, N);
  for (int n = 0; n < N; ++n) {
    ASSERT(buddy_free(b, offs[n]) == 0);
  }
  ASSERT(buddy_alloc(b, cap, &off) == 0 && off == 0);
  ASSERT(buddy_block_size(b, 0) == cap);
  /* The top-down lookup on the deepest tree: every 16-byte slot of the
   * last 64 KiB is rejected while one block spans the pool. */
  for (size_t o = cap - 65536; o < cap; o += 16) {
    ASSERT(buddy_free(b, o) == -1);
  }
  ASSERT(buddy_free(b, 0) == 0);
  double t_use = now_seconds() - t0;
  buddy_destroy(b);
  free(offs);
  printf("1 GiB pool: 20 create/destroy %.3f s, "
         "%d allocations + frees %.3f s\n",
         t_create, N, t_use);
  ASSERT(t_create < 1.0);
  ASSERT(t_use < 3.0);
  return 0;
}

RUNS_CLEAN(test_stress)
RUNS_CLEAN(test_large_pool)

static const struct test_case cases[] = {
  { "stress", test_stress_case },
  { "large_pool", test_large_pool_case },
};

int main(int argc, char **argv)
{
  rng_state = 12345;
  return test_run(argc, argv, TEST_CASES(cases));
}
