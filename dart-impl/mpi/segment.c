#include "segment.h"

#include <stdlib.h>
#include <string.h>

static int id_push(struct id_pool *pool, int16_t id)
{
  if (pool->count == pool->capacity) {
    int cap = pool->capacity < 16 ? 16 : 2 * pool->capacity;
    int16_t *ring = malloc((size_t)cap * sizeof *ring);
    if (ring == NULL) {
      return -1;
    }
    for (int i = 0; i < pool->count; ++i) {
      ring[i] = pool->freed[(pool->head + i) % pool->capacity];
    }
    free(pool->freed);
    pool->freed = ring;
    pool->head = 0;
    pool->capacity = cap;
  }
  pool->freed[(pool->head + pool->count) % pool->capacity] = id;
  pool->count++;
  return 0;
}

int16_t segment_id_take(struct segment_table *t, bool registered)
{
  struct id_pool *pool = registered ? &t->negative_ids : &t->positive_ids;
  if (pool->count > 0) {
    int16_t id = pool->freed[pool->head];
    pool->head = (pool->head + 1) % pool->capacity;
    pool->count--;
    return id;
  }
  int magnitude = pool->next + 1;
  if (magnitude > INT16_MAX) {
    return 0;
  }
  pool->next = magnitude;
  return (int16_t)(registered ? -magnitude : magnitude);
}

void segment_id_return(struct segment_table *t, int16_t segid)
{
  if (segid == 0) {
    return; /* the local pool's id is not pooled */
  }
  struct id_pool *pool = segid < 0 ? &t->negative_ids : &t->positive_ids;
  /* Out of memory for the ring only loses the id for reuse. */
  (void)id_push(pool, segid);
}

static int grow(struct segment ***slots, int *cap, int index)
{
  if (index < *cap) {
    return 0;
  }
  int fresh = *cap < 16 ? 16 : *cap;
  while (fresh <= index) {
    fresh *= 2;
  }
  struct segment **grown = realloc(*slots, (size_t)fresh * sizeof **slots);
  if (grown == NULL) {
    return -1;
  }
  memset(grown + *cap, 0, (size_t)(fresh - *cap) * sizeof *grown);
  *slots = grown;
  *cap = fresh;
  return 0;
}

int segment_insert(struct segment_table *t, struct segment *seg)
{
  if (seg->id == 0) {
    t->local_pool = seg;
  } else if (seg->id > 0) {
    if (grow(&t->positive, &t->positive_cap, seg->id) != 0) {
      return -1;
    }
    t->positive[seg->id] = seg;
  } else {
    if (grow(&t->negative, &t->negative_cap, -seg->id) != 0) {
      return -1;
    }
    t->negative[-seg->id] = seg;
  }
  return 0;
}

void segment_remove(struct segment_table *t, int16_t segid)
{
  if (segid == 0) {
    t->local_pool = NULL;
  } else if (segid > 0) {
    t->positive[segid] = NULL;
  } else {
    t->negative[-segid] = NULL;
  }
  segment_id_return(t, segid);
}

void segment_table_free(struct segment_table *t)
{
  free(t->positive);
  free(t->negative);
  free(t->positive_ids.freed);
  free(t->negative_ids.freed);
  memset(t, 0, sizeof *t);
}
