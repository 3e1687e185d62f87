/* Buddy allocator over an offset range [0, capacity): the bookkeeping of
 * the memory DART hands out from per-unit pools (dart_memalloc,
 * dart_allocator_alloc). It never touches the managed memory itself (that
 * memory is shared with other processes and belongs to the user once
 * allocated); all metadata lives in private memory of its own. Blocks
 * are powers of two of at least BUDDY_MIN_BLOCK bytes, aligned to their
 * size. Not thread-safe: callers serialize. */
#ifndef DART_BASE_BUDDY_ALLOCATOR_H
#define DART_BASE_BUDDY_ALLOCATOR_H

#include <stdbool.h>
#include <stddef.h>

#define BUDDY_MIN_BLOCK 16

struct buddy_allocator;

/* A new allocator for `capacity` bytes (rounded down to a power of two,
 * at least BUDDY_MIN_BLOCK); NULL if out of memory. */
struct buddy_allocator *buddy_create(size_t capacity);
void buddy_destroy(struct buddy_allocator *b);

/* The managed size (a power of two). */
size_t buddy_capacity(const struct buddy_allocator *b);

/* Reserves a block of at least `bytes` (0 counts as 1). Returns 0 and the
 * block's offset, or -1 when no block is free that large. */
int buddy_alloc(struct buddy_allocator *b, size_t bytes, size_t *offset);

/* Releases the block starting at `offset`. Returns 0, or -1 (nothing
 * changed) if no live block starts there: double free, interior offset,
 * out of range. */
int buddy_free(struct buddy_allocator *b, size_t offset);

/* Size of the live block at `offset`, or 0 if none starts there. */
size_t buddy_block_size(const struct buddy_allocator *b, size_t offset);

#endif
