/* The buddy allocator behind the per-unit memory pools: capacity
 * rounding, block sizes and alignment, exhaustion and merging, frees that
 * must be rejected without changing anything, a randomized run against a
 * shadow model, and a 1 GiB pool that must be cheap to create and use. */
#include "base/buddy_allocator.h"
#include "test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* splitmix64: a fixed seed gives the same run everywhere. */
static uint64_t rng_state;
static uint64_t rnd(void)
{
  uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static double now_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The block size a request must get: next power of two, at least 16. */
static size_t expected_size(size_t bytes)
{
  size_t size = BUDDY_MIN_BLOCK;
  while (size < bytes) {
    size *= 2;
  }
  return size;
}

static void shuffle(size_t *v, size_t n)
{
  for (size_t i = n; i > 1; --i) {
    size_t j = (size_t)(rnd() % i);
    size_t t = v[i - 1];
    v[i - 1] = v[j];
    v[j] = t;
  }
}

static int test_capacity_rounding(void)
{
  static const struct { size_t asked, got; } cases[] = {
    {16, 16}, {17, 16}, {31, 16}, {32, 32}, {1000, 512}, {1023, 512},
    {1024, 1024}, {1025, 1024}, {((size_t)1 << 20) + 5, (size_t)1 << 20},
    {((size_t)3 << 20), (size_t)2 << 20},
  };
  ASSERT(buddy_create(0) == NULL);
  ASSERT(buddy_create(1) == NULL);
  ASSERT(buddy_create(15) == NULL);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    struct buddy_allocator *b = buddy_create(cases[c].asked);
    ASSERT(b != NULL);
    ASSERT(buddy_capacity(b) == cases[c].got);
    size_t off = 99;
    ASSERT(buddy_alloc(b, cases[c].got + 1, &off) == -1);
    ASSERT(off == 99);
    ASSERT(buddy_alloc(b, cases[c].got, &off) == 0 && off == 0);
    ASSERT(buddy_block_size(b, 0) == cases[c].got);
    ASSERT(buddy_alloc(b, 1, &off) == -1);
    ASSERT(buddy_free(b, 0) == 0);
    buddy_destroy(b);
  }
  buddy_destroy(NULL);

  /* The smallest pool is one block of 16. */
  struct buddy_allocator *b = buddy_create(16);
  size_t off;
  ASSERT(buddy_alloc(b, 17, &off) == -1);
  ASSERT(buddy_alloc(b, 0, &off) == 0 && off == 0);
  ASSERT(buddy_block_size(b, 0) == 16);
  ASSERT(buddy_alloc(b, 0, &off) == -1);
  ASSERT(buddy_free(b, 0) == 0);
  ASSERT(buddy_free(b, 0) == -1);
  ASSERT(buddy_alloc(b, 16, &off) == 0 && off == 0);
  buddy_destroy(b);

  /* 1000 bytes asked: 512 managed, so a 1000-byte block does not fit. */
  b = buddy_create(1000);
  ASSERT(buddy_alloc(b, 1000, &off) == -1);
  ASSERT(buddy_alloc(b, 513, &off) == -1);
  ASSERT(buddy_alloc(b, 512, &off) == 0 && off == 0);
  buddy_destroy(b);
  return 0;
}

static int test_sizes_and_alignment(void)
{
  enum { CAP = 4096 };
  static const size_t requests[] = {0, 1, 8, 16, 17, 1000, CAP};
  static const size_t sizes[] = {16, 16, 16, 16, 32, 1024, CAP};
  enum { N = sizeof requests / sizeof requests[0] };
  struct buddy_allocator *b = buddy_create(CAP);
  ASSERT(b != NULL && buddy_capacity(b) == CAP);

  /* One at a time, each on the empty pool. */
  for (size_t r = 0; r < N; ++r) {
    size_t off = SIZE_MAX;
    ASSERT(buddy_alloc(b, requests[r], &off) == 0);
    ASSERT(expected_size(requests[r]) == sizes[r]);
    ASSERT(buddy_block_size(b, off) == sizes[r]);
    ASSERT(off % sizes[r] == 0 && off + sizes[r] <= CAP);
    ASSERT(buddy_free(b, off) == 0);
    ASSERT(buddy_block_size(b, off) == 0);
  }
  /* Too large, and too large to round up at all. */
  size_t off = 7;
  ASSERT(buddy_alloc(b, CAP + 1, &off) == -1);
  ASSERT(buddy_alloc(b, 2 * CAP, &off) == -1);
  ASSERT(buddy_alloc(b, SIZE_MAX / 2 + 2, &off) == -1);
  ASSERT(buddy_alloc(b, SIZE_MAX, &off) == -1);
  ASSERT(off == 7);

  /* All but the whole-pool request together: disjoint, each aligned. */
  size_t offs[N - 1];
  for (size_t r = 0; r + 1 < N; ++r) {
    ASSERT(buddy_alloc(b, requests[r], &offs[r]) == 0);
    ASSERT(buddy_block_size(b, offs[r]) == sizes[r]);
    ASSERT(offs[r] % sizes[r] == 0 && offs[r] + sizes[r] <= CAP);
    for (size_t q = 0; q < r; ++q) {
      ASSERT(offs[r] + sizes[r] <= offs[q] || offs[q] + sizes[q] <= offs[r]);
    }
  }
  ASSERT(buddy_alloc(b, CAP, &off) == -1);
  /* Smallest fit packs the 1120 live bytes into one half: the other
   * stays whole; after taking it, nothing over a quarter fits. */
  size_t half;
  ASSERT(buddy_alloc(b, CAP / 2, &half) == 0 && half % (CAP / 2) == 0);
  ASSERT(buddy_alloc(b, CAP / 4 + 1, &off) == -1);
  ASSERT(buddy_free(b, half) == 0);
  for (size_t r = 0; r + 1 < N; ++r) {
    ASSERT(buddy_free(b, offs[r]) == 0);
  }
  ASSERT(buddy_alloc(b, CAP, &off) == 0 && off == 0);
  ASSERT(buddy_free(b, 0) == 0);

  /* Smallest fit: the second 16-byte block is the first one's buddy,
   * taken from the free block the first split left, not split anew. */
  size_t x, y;
  ASSERT(buddy_alloc(b, 16, &x) == 0);
  ASSERT(buddy_alloc(b, 16, &y) == 0);
  ASSERT(y == (x ^ 16));
  size_t z;
  ASSERT(buddy_alloc(b, 32, &z) == 0);
  ASSERT(z == ((x & ~(size_t)31) ^ 32));
  ASSERT(buddy_free(b, x) == 0 && buddy_free(b, y) == 0 && buddy_free(b, z) == 0);
  ASSERT(buddy_alloc(b, CAP, &off) == 0 && off == 0);
  buddy_destroy(b);
  return 0;
}

static int test_exhaustion(void)
{
  enum { CAP = 64 * 1024, BLOCKS = CAP / 16 };
  struct buddy_allocator *b = buddy_create(CAP);
  size_t *offs = malloc(BLOCKS * sizeof *offs);
  unsigned char *used = calloc(BLOCKS, 1);
  ASSERT(b != NULL && offs != NULL && used != NULL);
  for (size_t n = 0; n < BLOCKS; ++n) {
    ASSERT(buddy_alloc(b, 16, &offs[n]) == 0);
    ASSERT(offs[n] % 16 == 0 && offs[n] < CAP);
    ASSERT(!used[offs[n] / 16]); /* distinct; size 16 so no overlap */
    used[offs[n] / 16] = 1;
    ASSERT(buddy_block_size(b, offs[n]) == 16);
  }
  size_t off = 5;
  ASSERT(buddy_alloc(b, 16, &off) == -1);
  ASSERT(buddy_alloc(b, 0, &off) == -1);
  ASSERT(buddy_alloc(b, CAP, &off) == -1);
  ASSERT(off == 5);

  /* Free every other block: 2048 free blocks, none mergeable. */
  size_t kept = 0;
  for (size_t n = 0; n < BLOCKS; ++n) {
    if (offs[n] / 16 % 2 == 0) {
      ASSERT(buddy_free(b, offs[n]) == 0);
      ASSERT(buddy_free(b, offs[n]) == -1);
    } else {
      offs[kept++] = offs[n];
    }
  }
  ASSERT(kept == BLOCKS / 2);
  ASSERT(buddy_alloc(b, 17, &off) == -1);
  ASSERT(buddy_alloc(b, 16, &off) == 0 && off / 16 % 2 == 0);
  ASSERT(buddy_free(b, off) == 0);

  /* The rest in random order; everything merges back into one block. */
  shuffle(offs, kept);
  for (size_t n = 0; n < kept; ++n) {
    ASSERT(buddy_free(b, offs[n]) == 0);
    ASSERT(buddy_free(b, offs[n]) == -1);
    ASSERT(buddy_block_size(b, offs[n]) == 0);
  }
  ASSERT(buddy_alloc(b, CAP, &off) == 0 && off == 0);
  ASSERT(buddy_block_size(b, 0) == CAP);
  ASSERT(buddy_free(b, 0) == 0);

  /* Once more with whole-capacity exhaustion by mixed sizes. */
  size_t big, mid, small[4];
  ASSERT(buddy_alloc(b, CAP / 2, &big) == 0);
  ASSERT(buddy_alloc(b, CAP / 4, &mid) == 0);
  for (int s = 0; s < 4; ++s) {
    ASSERT(buddy_alloc(b, CAP / 16, &small[s]) == 0);
  }
  ASSERT(buddy_alloc(b, 1, &off) == -1);
  ASSERT(buddy_free(b, big) == 0 && buddy_free(b, mid) == 0);
  for (int s = 0; s < 4; ++s) {
    ASSERT(buddy_free(b, small[s]) == 0);
  }
  ASSERT(buddy_alloc(b, CAP, &off) == 0 && off == 0);
  free(used);
  free(offs);
  buddy_destroy(b);
  return 0;
}

static int test_rejected_frees(void)
{
  enum { CAP = 1024 };
  struct buddy_allocator *b = buddy_create(CAP);
  size_t off;
  ASSERT(b != NULL);
  /* Nothing allocated yet: offset 0 starts the free root block. */
  ASSERT(buddy_free(b, 0) == -1);
  ASSERT(buddy_block_size(b, 0) == 0);
  ASSERT(buddy_free(b, 512) == -1);

  size_t a, s;
  ASSERT(buddy_alloc(b, 64, &a) == 0);
  ASSERT(buddy_alloc(b, 16, &s) == 0);
  /* Interior offsets of the 64-byte block, aligned or not. */
  for (size_t d = 1; d < 64; ++d) {
    ASSERT(buddy_free(b, a + d) == -1);
    ASSERT(buddy_block_size(b, a + d) == 0);
  }
  /* Out of range. */
  ASSERT(buddy_free(b, CAP) == -1);
  ASSERT(buddy_free(b, CAP + 16) == -1);
  ASSERT(buddy_free(b, 2 * CAP) == -1);
  ASSERT(buddy_free(b, SIZE_MAX) == -1);
  ASSERT(buddy_free(b, SIZE_MAX & ~(size_t)15) == -1);
  ASSERT(buddy_block_size(b, CAP) == 0);
  ASSERT(buddy_block_size(b, SIZE_MAX) == 0);
  /* The start of a free block that was never handed out. */
  ASSERT(buddy_free(b, s ^ 16) == -1);
  /* Nothing changed. */
  ASSERT(buddy_block_size(b, a) == 64);
  ASSERT(buddy_block_size(b, s) == 16);
  ASSERT(buddy_alloc(b, CAP, &off) == -1);

  /* Two buddies: double frees, then both starts merged away. */
  size_t t;
  ASSERT(buddy_alloc(b, 16, &t) == 0 && t == (s ^ 16));
  ASSERT(buddy_free(b, s) == 0);
  ASSERT(buddy_free(b, s) == -1);
  ASSERT(buddy_block_size(b, t) == 16);
  ASSERT(buddy_free(b, t) == 0); /* merges with s into a 32-byte block (or more) */
  ASSERT(buddy_free(b, t) == -1);
  ASSERT(buddy_free(b, s) == -1);
  ASSERT(buddy_block_size(b, s) == 0 && buddy_block_size(b, t) == 0);
  /* The merged block is free again: one 32-byte request takes it whole. */
  size_t u;
  ASSERT(buddy_alloc(b, 32, &u) == 0 && u == (s & ~(size_t)31));
  ASSERT(buddy_free(b, u + 16) == -1);
  ASSERT(buddy_free(b, u) == 0);

  ASSERT(buddy_free(b, a) == 0);
  ASSERT(buddy_free(b, a) == -1);
  /* Everything merged: no offset starts a live block any more. */
  for (size_t o = 0; o < CAP; o += 16) {
    ASSERT(buddy_free(b, o) == -1);
    ASSERT(buddy_block_size(b, o) == 0);
  }
  ASSERT(buddy_alloc(b, CAP, &off) == 0 && off == 0);
  ASSERT(buddy_block_size(b, 0) == CAP);
  ASSERT(buddy_free(b, CAP / 2) == -1); /* start of a merged-away half */
  ASSERT(buddy_free(b, 0) == 0);
  ASSERT(buddy_free(b, 0) == -1);
  ASSERT(buddy_alloc(b, CAP, &off) == 0 && off == 0);
  buddy_destroy(b);
  return 0;
}

static int test_independent_allocators(void)
{
  struct buddy_allocator *p = buddy_create(256);
  struct buddy_allocator *q = buddy_create(512);
  size_t off, first;
  ASSERT(p != NULL && q != NULL);
  ASSERT(buddy_alloc(p, 256, &off) == 0 && off == 0);
  ASSERT(buddy_alloc(p, 1, &off) == -1);
  ASSERT(buddy_block_size(q, 0) == 0);
  ASSERT(buddy_free(q, 0) == -1);
  ASSERT(buddy_alloc(q, 16, &first) == 0);
  for (int n = 1; n < 32; ++n) {
    ASSERT(buddy_alloc(q, 16, &off) == 0);
  }
  ASSERT(buddy_alloc(q, 16, &off) == -1);
  ASSERT(buddy_block_size(p, 0) == 256);
  ASSERT(buddy_free(p, 0) == 0);
  ASSERT(buddy_block_size(q, first) == 16);
  buddy_destroy(q);
  ASSERT(buddy_alloc(p, 128, &off) == 0);
  buddy_destroy(p);
  return 0;
}

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
  printf("1 GiB pool: 20 create/destroy %.3f s, %d allocations + frees %.3f s\n",
         t_create, N, t_use);
  ASSERT(t_create < 1.0);
  ASSERT(t_use < 3.0);
  return 0;
}

/* The functions return 0 or fail an assertion; the cases check both. */
#define RUNS_CLEAN(fn)                                                     \
  static void fn##_case(void) { ASSERT(fn() == 0); }
RUNS_CLEAN(test_capacity_rounding)
RUNS_CLEAN(test_sizes_and_alignment)
RUNS_CLEAN(test_exhaustion)
RUNS_CLEAN(test_rejected_frees)
RUNS_CLEAN(test_independent_allocators)
RUNS_CLEAN(test_stress)
RUNS_CLEAN(test_large_pool)

static const struct test_case cases[] = {
  { "capacity_rounding", test_capacity_rounding_case },
  { "sizes_and_alignment", test_sizes_and_alignment_case },
  { "exhaustion", test_exhaustion_case },
  { "rejected_frees", test_rejected_frees_case },
  { "independent_allocators", test_independent_allocators_case },
  { "stress", test_stress_case },
  { "large_pool", test_large_pool_case },
};

int main(int argc, char **argv)
{
  rng_state = 12345;
  return test_run(argc, argv, TEST_CASES(cases));
}
