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

static int grow(struct segment_slots **where, int index)
{
  struct segment_slots *old = *where;
  int cap = old != NULL ? old->cap : 0;
  if (index < cap) {
    return 0;
  }
  int fresh = cap < 16 ? 16 : cap;
  while (fresh <= index) {
    fresh *= 2;
  }
  struct segment_slots *grown =
    calloc(1, sizeof *grown + (size_t)fresh * sizeof grown->slot[0]);
  if (grown == NULL) {
    return -1;
  }
  grown->replaced = old;
  grown->cap = fresh;
  for (int i = 0; i < cap; ++i) {
    grown->slot[i] = __atomic_load_n(&old->slot[i], __ATOMIC_RELAXED);
  }
  __atomic_store_n(where, grown, __ATOMIC_RELEASE);
  return 0;
}

int segment_insert(struct segment_table *t, struct segment *seg)
{
  if (seg->id == 0) {
    t->local_pool = seg;
    return 0;
  }
  struct segment_slots **where = seg->id > 0 ? &t->positive : &t->negative;
  int index = seg->id > 0 ? seg->id : -seg->id;
  if (grow(where, index) != 0) {
    return -1;
  }
  __atomic_store_n(&(*where)->slot[index], seg, __ATOMIC_RELEASE);
  return 0;
}

void segment_remove(struct segment_table *t, int16_t segid)
{
  if (segid == 0) {
    t->local_pool = NULL;
  } else {
    struct segment_slots *s = segid > 0 ? t->positive : t->negative;
    int index = segid > 0 ? segid : -segid;
    if (s != NULL && index < s->cap) {
      __atomic_store_n(&s->slot[index], NULL, __ATOMIC_RELEASE);
    }
  }
  segment_id_return(t, segid);
}

int segment_table_span(const struct segment_table *t, bool positive)
{
  const struct segment_slots *s = positive ? t->positive : t->negative;
  return s != NULL ? s->cap : 0;
}

static void free_slots(struct segment_slots *s)
{
  while (s != NULL) {
    struct segment_slots *older = s->replaced;
    free(s);
    s = older;
  }
}

void segment_table_free(struct segment_table *t)
{
  free_slots(t->positive);
  free_slots(t->negative);
  free(t->positive_ids.freed);
  free(t->negative_ids.freed);
  memset(t, 0, sizeof *t);
}
