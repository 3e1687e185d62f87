/* Binary buddy allocator over offsets [0, capacity).
 *
 * The blocks form a complete binary tree: order k holds the blocks of
 * BUDDY_MIN_BLOCK << k bytes, node (k, i) covers the offsets
 * [i << (k + 4), (i + 1) << (k + 4)), its children are (k - 1, 2i) and
 * (k - 1, 2i + 1), and the root is (top, 0). Every node is in one of
 * four roles: a free block, a live (allocated) block, split (its two
 * halves are nodes of their own), or covered (inside a bigger block).
 *
 * All of that is stored in ONE bit per node, kept per order as a bitmap
 * (about 2 bits per 16-byte granule overall, capacity / 64 bytes). The
 * bits are read in sibling pairs, which always share a 64-bit word:
 *
 *   - a node whose parent is split (or the root) has bit 1 if it is a
 *     free block, 0 otherwise (live block or split);
 *   - the two children of a block (free or live) both have bit 1. Two
 *     free buddies never coexist (they merge at once), so under a split
 *     parent the pair 11 cannot occur and means "the parent is one
 *     block" unambiguously;
 *   - covered nodes deeper down hold only the pairs 00 or 11.
 *
 * So a bit is a free block exactly when it is set and its sibling's bit
 * is clear ("real" below), and a node is split exactly when its
 * children's pair is not 11. A split writes the pair of the two new
 * halves and sets the four grandchildren bits to mark both halves as
 * blocks; a merge of two free buddies just sets the second bit, which
 * turns the pair into 11. Every step is O(1) bit work.
 *
 * "Any free block of order k" is answered by a summary hierarchy over
 * each order's bitmap: level j + 1 has one bit per word of level j,
 * set when that word holds a real free bit (level 0) or is nonzero
 * (higher levels). Finding a free block is a descent of ctz steps,
 * updating after a change stops as soon as a summary word is unchanged:
 * O(log_64 blocks) each. The summaries add ~1/64 to the bitmaps.
 *
 * Costs: alloc O(top * log_64 n), free O(top + merges * log_64 n),
 * block_size O(top), where top = log2(capacity / 16). Metadata is one
 * calloc of ~capacity / 63 bytes (16.3 MiB for 1 GiB, 1.6%); creation
 * writes only the root's bits besides, never anything O(capacity). */
#include "base/buddy_allocator.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#define GRANULE_SHIFT 4 /* log2(BUDDY_MIN_BLOCK) */
/* Summary levels an order can need: 2^59 bits at order 0 on 64-bit
 * size_t make 11 levels (each divides the word count by 64). */
#define MAX_LEVELS 12

_Static_assert(BUDDY_MIN_BLOCK == 1 << GRANULE_SHIFT,
               "GRANULE_SHIFT must match BUDDY_MIN_BLOCK");

struct order_map {
  /* level[0]: one bit per node of this order (pair coded, see above);
   * level[j], j >= 1: one bit per word of level[j - 1]. The last level
   * is a single word; there are always at least two levels. */
  uint64_t *level[MAX_LEVELS];
  unsigned nlevels;
};

struct buddy_allocator {
  size_t capacity;
  unsigned top;     /* order of the root: capacity == 16 << top */
  uint64_t *words;  /* the one allocation behind every level of every map */
  struct order_map map[]; /* top + 1 entries */
};

static size_t words_for(size_t bits) { return bits / 64 + (bits % 64 != 0); }

static unsigned lowest_bit(uint64_t w) { return (unsigned)__builtin_ctzll(w); }

/* The bits of a level-0 word that are free blocks: set, with the
 * sibling's bit clear (a set pair marks a parent block instead). */
static uint64_t real_free(uint64_t w)
{
  uint64_t both = w & (w >> 1) & UINT64_C(0x5555555555555555);
  return w & ~(both | (both << 1));
}

/* Lays the levels of every order out in `base` (NULL: only counts) and
 * returns the number of words needed. */
static size_t layout(struct buddy_allocator *b, uint64_t *base)
{
  size_t total = 0;
  for (unsigned k = 0; k <= b->top; ++k) {
    size_t n = words_for((size_t)1 << (b->top - k));
    unsigned j = 0;
    for (;;) {
      if (base) {
        b->map[k].level[j] = base + total;
      }
      total += n;
      ++j;
      if (j >= 2 && n == 1) {
        break;
      }
      n = words_for(n);
    }
    b->map[k].nlevels = j;
  }
  return total;
}

static int node_bit(const struct buddy_allocator *b, unsigned k, size_t i)
{
  return (int)((b->map[k].level[0][i / 64] >> (i % 64)) & 1);
}

/* Brings the summaries of order map `m` up to date after level-0 word
 * `wi` changed. */
static void refresh(struct order_map *m, size_t wi)
{
  int has = real_free(m->level[0][wi]) != 0;
  for (unsigned j = 1; j < m->nlevels; ++j) {
    uint64_t *w = &m->level[j][wi / 64];
    uint64_t bit = UINT64_C(1) << (wi % 64);
    uint64_t now = has ? (*w | bit) : (*w & ~bit);
    if (now == *w) {
      return;
    }
    *w = now;
    has = now != 0;
    wi /= 64;
  }
}

/* Sets the `width` node bits of order k from `pos` (aligned to width, so
 * within one word) to `pattern` (bit 0 is node `pos`). */
static void assign(struct buddy_allocator *b, unsigned k, size_t pos,
                   unsigned width, uint64_t pattern)
{
  struct order_map *m = &b->map[k];
  size_t wi = pos / 64;
  unsigned shift = (unsigned)(pos % 64);
  uint64_t mask = ((UINT64_C(1) << width) - 1) << shift;
  uint64_t old = m->level[0][wi];
  uint64_t now = (old & ~mask) | (pattern << shift);
  if (now != old) {
    m->level[0][wi] = now;
    refresh(m, wi);
  }
}

/* Some free block of order k: 1 and its index, or 0 if there is none. */
static int find_free(const struct buddy_allocator *b, unsigned k, size_t *index)
{
  const struct order_map *m = &b->map[k];
  size_t wi = 0;
  for (unsigned j = m->nlevels - 1; j >= 1; --j) {
    uint64_t w = m->level[j][wi];
    if (w == 0) {
      return 0; /* only the single top word can be empty */
    }
    wi = wi * 64 + lowest_bit(w);
  }
  *index = wi * 64 + lowest_bit(real_free(m->level[0][wi]));
  return 1;
}

/* The block (free or live) containing granule g: its order, and its
 * index at that order in *index. Walks down from the root through split
 * nodes. */
static unsigned block_of(const struct buddy_allocator *b, size_t g,
                         size_t *index)
{
  for (unsigned k = b->top; k > 0; --k) {
    size_t left = (g >> k) * 2; /* first child of (k, g >> k) */
    if (((b->map[k - 1].level[0][left / 64] >> (left % 64)) & 3) == 3) {
      *index = g >> k;
      return k;
    }
  }
  *index = g;
  return 0;
}

/* The order of the live block starting at `offset`, or -1. */
static int live_block_at(const struct buddy_allocator *b, size_t offset,
                         size_t *index)
{
  if (b == NULL || offset >= b->capacity || offset % BUDDY_MIN_BLOCK != 0) {
    return -1;
  }
  size_t g = offset >> GRANULE_SHIFT;
  unsigned k = block_of(b, g, index);
  if ((*index << k) != g || node_bit(b, k, *index)) {
    return -1; /* interior offset, or a free block */
  }
  return (int)k;
}

struct buddy_allocator *buddy_create(size_t capacity)
{
  if (capacity < BUDDY_MIN_BLOCK) {
    return NULL;
  }
  unsigned top = 0;
  while ((capacity >> GRANULE_SHIFT >> top) > 1) {
    ++top;
  }
  struct buddy_allocator *b =
      calloc(1, sizeof *b + (size_t)(top + 1) * sizeof b->map[0]);
  if (b == NULL) {
    return NULL;
  }
  b->capacity = (size_t)BUDDY_MIN_BLOCK << top;
  b->top = top;
  b->words = calloc(layout(b, NULL), sizeof *b->words);
  if (b->words == NULL) {
    free(b);
    return NULL;
  }
  layout(b, b->words);
  /* One free block, the root: its bit set, its children's pair 11. */
  assign(b, top, 0, 1, 1);
  if (top > 0) {
    assign(b, top - 1, 0, 2, 3);
  }
  return b;
}

void buddy_destroy(struct buddy_allocator *b)
{
  if (b != NULL) {
    free(b->words);
    free(b);
  }
}

size_t buddy_capacity(const struct buddy_allocator *b)
{
  return b != NULL ? b->capacity : 0;
}

int buddy_alloc(struct buddy_allocator *b, size_t bytes, size_t *offset)
{
  if (b == NULL || offset == NULL) {
    return -1;
  }
  if (bytes == 0) {
    bytes = 1;
  }
  if (bytes > b->capacity) {
    return -1; /* also covers every request whose rounding would overflow */
  }
  unsigned want = 0;
  while (((size_t)BUDDY_MIN_BLOCK << want) < bytes) {
    ++want;
  }
  /* The smallest order with a free block. */
  unsigned k = want;
  size_t i;
  while (!find_free(b, k, &i)) {
    if (k == b->top) {
      return -1;
    }
    ++k;
  }
  assign(b, k, i, 1, 0); /* taken (live, or about to be split) */
  while (k > want) {
    /* Split (k, i): both halves become blocks (their children read 11),
     * the right one free, the left one taken or split further. */
    if (k >= 2) {
      assign(b, k - 2, i * 4, 4, 0xF);
    }
    assign(b, k - 1, i * 2, 2, 0x2);
    --k;
    i *= 2;
  }
  *offset = i << (want + GRANULE_SHIFT);
  return 0;
}

int buddy_free(struct buddy_allocator *b, size_t offset)
{
  size_t i;
  int order = live_block_at(b, offset, &i);
  if (order < 0) {
    return -1;
  }
  unsigned k = (unsigned)order;
  /* While the buddy is a free block, the pair turns 11: the parent (whose
   * own bit is 0, it was split) is one block now, and is freed in turn. */
  while (k < b->top && node_bit(b, k, i ^ 1)) {
    assign(b, k, i & ~(size_t)1, 2, 0x3);
    ++k;
    i /= 2;
  }
  assign(b, k, i, 1, 1);
  return 0;
}

size_t buddy_block_size(const struct buddy_allocator *b, size_t offset)
{
  size_t i;
  int order = live_block_at(b, offset, &i);
  return order < 0 ? 0 : (size_t)BUDDY_MIN_BLOCK << order;
}
