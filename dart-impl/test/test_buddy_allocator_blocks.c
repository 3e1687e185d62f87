/* The buddy allocator's blocks: capacity rounding, block sizes and
 * alignment, exhaustion and merging, frees that must be rejected without
 * changing anything, and allocators that do not share state. Shared part:
 * test_buddy_allocator_common.h. */
#include "test_buddy_allocator_common.h"

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
  ASSERT(buddy_free(b, x) == 0 && buddy_free(b, y) == 0 &&
         buddy_free(b, z) == 0);
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
  /* Merges with s into a 32-byte block (or more). */
  ASSERT(buddy_free(b, t) == 0);
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

RUNS_CLEAN(test_capacity_rounding)
RUNS_CLEAN(test_sizes_and_alignment)
RUNS_CLEAN(test_exhaustion)
RUNS_CLEAN(test_rejected_frees)
RUNS_CLEAN(test_independent_allocators)

static const struct test_case cases[] = {
  { "capacity_rounding", test_capacity_rounding_case },
  { "sizes_and_alignment", test_sizes_and_alignment_case },
  { "exhaustion", test_exhaustion_case },
  { "rejected_frees", test_rejected_frees_case },
  { "independent_allocators", test_independent_allocators_case },
};

int main(int argc, char **argv)
{
  rng_state = 12345;
  return test_run(argc, argv, TEST_CASES(cases));
}
