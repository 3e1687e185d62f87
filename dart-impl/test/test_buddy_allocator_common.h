/* Shared part of the buddy allocator tests (base/buddy_allocator.h, the
 * allocator behind the per-unit memory pools; docs/design.md, "The local
 * pool"): test_buddy_allocator_blocks.c (capacity rounding, block sizes
 * and alignment, exhaustion and merging, rejected frees, independent
 * allocators) and test_buddy_allocator_stress.c (a randomized run against
 * a shadow model, a 1 GiB pool). */
#ifndef DART_TEST_BUDDY_ALLOCATOR_COMMON_H
#define DART_TEST_BUDDY_ALLOCATOR_COMMON_H

#include "base/buddy_allocator.h"
#include "test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* splitmix64: a fixed seed gives the same run everywhere. */
static uint64_t rng_state;
static inline uint64_t rnd(void)
{
  uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static inline double now_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The block size a request must get: next power of two, at least 16. */
static inline size_t expected_size(size_t bytes)
{
  size_t size = BUDDY_MIN_BLOCK;
  while (size < bytes) {
    size *= 2;
  }
  return size;
}

static inline void shuffle(size_t *v, size_t n)
{
  for (size_t i = n; i > 1; --i) {
    size_t j = (size_t)(rnd() % i);
    size_t t = v[i - 1];
    v[i - 1] = v[j];
    v[j] = t;
  }
}

/* The functions return 0 or fail an assertion; the cases check both. */
#define RUNS_CLEAN(fn)                                                     \
  static void fn##_case(void) { ASSERT(fn() == 0); }

#endif
