#include "base/handle_table.h"

#include <stdlib.h>

#define SLOT_BITS 24
#define SLOT_MASK ((UINT32_C(1) << SLOT_BITS) - 1)
#define MAX_SLOTS ((uint32_t)HANDLE_TABLE_CHUNK * HANDLE_TABLE_CHUNKS)
#define GENERATION_MASK UINT32_C(0x7fffffff) /* keeps ids positive */

static struct handle_slot *slot_at(struct handle_table *table, uint32_t slot)
{
  struct handle_slot *chunk = __atomic_load_n(
    &table->chunks[slot / HANDLE_TABLE_CHUNK], __ATOMIC_ACQUIRE);
  return chunk == NULL ? NULL : &chunk[slot % HANDLE_TABLE_CHUNK];
}

/* The generation after `g`: never 0, always a valid id's. */
static uint32_t next_generation(uint32_t g)
{
  uint32_t next = (g + 1) & GENERATION_MASK;
  return next == 0 ? 1 : next;
}

static intptr_t encode(uint32_t slot, uint32_t generation)
{
  return (intptr_t)(((uint64_t)generation << SLOT_BITS) |
                    (uint64_t)(slot + HANDLE_TABLE_MIN_ID));
}

static int decode(intptr_t id, uint32_t *slot, uint32_t *generation)
{
  if (id < HANDLE_TABLE_MIN_ID) {
    return -1;
  }
  uint64_t raw = (uint64_t)id;
  uint32_t low = (uint32_t)(raw & SLOT_MASK);
  if (low < HANDLE_TABLE_MIN_ID || (raw >> SLOT_BITS) > GENERATION_MASK) {
    return -1;
  }
  *slot       = low - HANDLE_TABLE_MIN_ID;
  *generation = (uint32_t)(raw >> SLOT_BITS);
  return *slot < MAX_SLOTS ? 0 : -1;
}

intptr_t handle_table_insert(struct handle_table *table, void *entry)
{
  intptr_t id = 0;
  pthread_mutex_lock(&table->lock);
  uint32_t slot;
  if (table->free_head != UINT32_MAX) {
    slot = table->free_head;
    table->free_head = slot_at(table, slot)->next_free;
  } else if (table->used_slots < MAX_SLOTS &&
             table->used_slots + HANDLE_TABLE_MIN_ID <= SLOT_MASK) {
    slot = table->used_slots;
    uint32_t chunk = slot / HANDLE_TABLE_CHUNK;
    if (table->chunks[chunk] == NULL) {
      struct handle_slot *fresh =
        calloc(HANDLE_TABLE_CHUNK, sizeof(struct handle_slot));
      if (fresh == NULL) {
        goto out;
      }
      for (uint32_t i = 0; i < HANDLE_TABLE_CHUNK; ++i) {
        fresh[i].generation = table->first_generation;
      }
      __atomic_store_n(&table->chunks[chunk], fresh, __ATOMIC_RELEASE);
    }
    table->used_slots++;
  } else {
    goto out;
  }
  struct handle_slot *s = slot_at(table, slot);
  __atomic_store_n(&s->entry, entry, __ATOMIC_RELEASE);
  table->live++;
  id = encode(slot, s->generation);
out:
  pthread_mutex_unlock(&table->lock);
  return id;
}

void *handle_table_lookup(struct handle_table *table, intptr_t id)
{
  uint32_t slot, generation;
  if (decode(id, &slot, &generation) != 0) {
    return NULL;
  }
  struct handle_slot *s = slot_at(table, slot);
  if (s == NULL ||
      __atomic_load_n(&s->generation, __ATOMIC_ACQUIRE) != generation) {
    return NULL;
  }
  /* The generation again after the entry: a remove and an insert between
   * the two loads would otherwise hand the slot's next entry to this old
   * id. An entry stored by a later insert comes after that insert's
   * remove bumped the generation (both under the lock), so whoever loads
   * the new entry (acquire) then loads the new generation. */
  void *entry = __atomic_load_n(&s->entry, __ATOMIC_ACQUIRE);
  if (__atomic_load_n(&s->generation, __ATOMIC_RELAXED) != generation) {
    return NULL;
  }
  return entry;
}

void *handle_table_remove(struct handle_table *table, intptr_t id)
{
  uint32_t slot, generation;
  if (decode(id, &slot, &generation) != 0) {
    return NULL;
  }
  void *entry = NULL;
  pthread_mutex_lock(&table->lock);
  struct handle_slot *s = slot_at(table, slot);
  if (s != NULL && s->generation == generation && s->entry != NULL) {
    entry = s->entry;
    __atomic_store_n(&s->entry, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&s->generation, next_generation(s->generation),
                     __ATOMIC_RELEASE);
    s->next_free = table->free_head;
    table->free_head = slot;
    table->live--;
  }
  pthread_mutex_unlock(&table->lock);
  return entry;
}

void handle_table_each(struct handle_table *table,
                       void (*visit)(void *entry, void *arg), void *arg)
{
  pthread_mutex_lock(&table->lock);
  for (uint32_t s = 0; s < table->used_slots && table->live > 0; ++s) {
    struct handle_slot *slot = slot_at(table, s);
    if (slot != NULL && slot->entry != NULL) {
      visit(slot->entry, arg);
    }
  }
  pthread_mutex_unlock(&table->lock);
}

void handle_table_clear(struct handle_table *table, void (*destroy)(void *))
{
  pthread_mutex_lock(&table->lock);
  uint32_t newest = table->first_generation;
  for (uint32_t c = 0; c < HANDLE_TABLE_CHUNKS; ++c) {
    struct handle_slot *chunk = table->chunks[c];
    if (chunk == NULL) {
      continue;
    }
    for (uint32_t i = 0; i < HANDLE_TABLE_CHUNK; ++i) {
      if (chunk[i].entry != NULL && destroy != NULL) {
        destroy(chunk[i].entry);
      }
      if (chunk[i].generation > newest) {
        newest = chunk[i].generation;
      }
    }
    free(chunk);
    table->chunks[c] = NULL;
  }
  table->used_slots = 0;
  table->free_head  = UINT32_MAX;
  table->live       = 0;
  /* A live slot's id carries its current generation, a dead one's any
   * earlier one: past the newest, no old id decodes to a new slot's. */
  table->first_generation = next_generation(newest);
  pthread_mutex_unlock(&table->lock);
}
