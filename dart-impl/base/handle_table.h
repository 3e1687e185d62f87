/* Table of live objects behind opaque integer ids (derived datatypes,
 * user reduction operations). An id encodes slot and generation, so a
 * destroyed or made-up id is rejected by lookup instead of being
 * dereferenced. Ids are >= HANDLE_TABLE_MIN_ID and never collide with
 * the small predefined constants of the DART interface. Lookup takes no
 * lock and never allocates; insert and remove are serialized. */
#ifndef DART_BASE_HANDLE_TABLE_H
#define DART_BASE_HANDLE_TABLE_H

#include <pthread.h>
#include <stdint.h>

#define HANDLE_TABLE_MIN_ID   256
#define HANDLE_TABLE_CHUNK    1024
#define HANDLE_TABLE_CHUNKS   4096

struct handle_slot {
  void     *entry;       /* NULL when free */
  uint32_t  generation;  /* bumped on every remove */
  uint32_t  next_free;
};

struct handle_table {
  pthread_mutex_t     lock;
  struct handle_slot *chunks[HANDLE_TABLE_CHUNKS];
  uint32_t            used_slots;  /* slots handed out at least once */
  uint32_t            free_head;   /* UINT32_MAX: empty free list */
  uint32_t            live;
  uint32_t            first_generation; /* of slots in new chunks */
};

#define HANDLE_TABLE_INITIALIZER \
  { PTHREAD_MUTEX_INITIALIZER, { NULL }, 0, UINT32_MAX, 0, 1 }

/* Returns the new id, or 0 if the table is full or out of memory. */
intptr_t handle_table_insert(struct handle_table *table, void *entry);
/* Returns the entry of a live id, NULL for anything else. */
void *handle_table_lookup(struct handle_table *table, intptr_t id);
/* Removes a live id and returns its entry; NULL if the id is not live. */
void *handle_table_remove(struct handle_table *table, intptr_t id);
/* Calls `visit` on every live entry, under the table's lock: `visit`
 * must not insert or remove. Nothing is visited while the table is
 * empty, whatever it held before. */
void handle_table_each(struct handle_table *table,
                       void (*visit)(void *entry, void *arg), void *arg);
/* Removes every live entry, calling `destroy` on each, and frees the
 * table's memory; the table is empty and reusable afterwards. Ids handed
 * out before stay dead: the slots made afterwards start past every
 * generation the table had (a program may call dart_init again after
 * dart_exit and still hold ids of the first run). */
void handle_table_clear(struct handle_table *table, void (*destroy)(void *));

#endif
