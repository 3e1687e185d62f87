#include "mpi/model/segment.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int id_push(struct id_pool *pool, int16_t id, uint32_t epoch)
{
  if (pool->count == pool->capacity) {
    int cap = pool->capacity < 16 ? 16 : 2 * pool->capacity;
    struct freed_id *grown = realloc(pool->freed,
                                     (size_t)cap * sizeof *grown);
    if (grown == NULL) {
      return -1;
    }
    pool->freed = grown;
    pool->capacity = cap;
  }
  pool->freed[pool->count++] = (struct freed_id){ id, epoch };
  return 0;
}

static bool older(struct freed_id a, struct freed_id b)
{
  if (a.epoch != b.epoch) {
    return a.epoch < b.epoch;
  }
  return abs(a.id) < abs(b.id);
}

int16_t segment_id_take(struct segment_table *t, bool registered)
{
  struct id_pool *pool = registered ? &t->negative_ids : &t->positive_ids;
  t->epoch++;
  if (pool->count > 0) {
    int best = 0;
    for (int i = 1; i < pool->count; ++i) {
      if (older(pool->freed[i], pool->freed[best])) {
        best = i;
      }
    }
    int16_t id = pool->freed[best].id;
    pool->freed[best] = pool->freed[--pool->count];
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
  /* Out of memory for the list only loses the id for reuse. */
  (void)id_push(pool, segid, t->epoch);
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
