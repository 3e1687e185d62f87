/* Node-local key-value store (docs/design.md, "Locality and bootstrap"):
 * fixed-size records in a table that one process formats inside a shared
 * mapping the caller provides, and every process of the node then reads and
 * writes in place. Two areas: `num_records` slots addressed by index (one
 * per unit, the bootstrap keeps them in node order so node tables can be
 * gathered in place), and `num_keyed` slots addressed by a 64-bit key (team-
 * level entries). A 2N-lock (or its alternatives) guards both.
 *
 * Reads copy one record under the reader's lock: no MPI, no allocation,
 * no syscall. No MPI anywhere in this module. */
#ifndef DART_BASE_NODE_DB_H
#define DART_BASE_NODE_DB_H

#include "base/rw_lock_2n.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct node_db_geometry {
  uint32_t                 record_size; /* bytes of one record */
  uint32_t                 num_records; /* index-addressed slots */
  uint32_t                 num_keyed;   /* key-addressed slots */
  int                      num_readers; /* processes that read (lock pairs) */
  enum shared_rw_lock_kind lock_kind;
};

/* A process's view of a formatted table (pointers into the mapping). */
struct node_db {
  struct node_db_header *header;
  struct shared_rw_lock *lock;
  unsigned char         *slots;
  unsigned char         *keyed;
  size_t                 slot_size;
  uint32_t               record_size;
  uint32_t               num_records;
  uint32_t               num_keyed;
};

/* Bytes one slot of `record_size`-byte records takes (state + record). */
size_t node_db_slot_bytes(uint32_t record_size);

/* Bytes of shared memory the table needs (0 if the geometry is bad). */
size_t node_db_bytes(const struct node_db_geometry *geometry);

/* Formats an empty table in `mem` (64-byte aligned, node_db_bytes long)
 * and attaches `db` to it. One process, before the others attach.
 * Returns 0 or an errno value. */
int node_db_format(struct node_db *db, void *mem,
                   const struct node_db_geometry *geometry);

/* Attaches `db` to a table another process formatted. Returns 0, or
 * EINVAL if `mem` holds no table. */
int node_db_attach(struct node_db *db, void *mem);

/* The formatting process, once nobody uses the table any more. */
void node_db_destroy(struct node_db *db);

/* Copies record `index` into `out` under the read lock of `reader`.
 * Returns false (and copies nothing) if the slot was never written. */
bool node_db_read(const struct node_db *db, int reader, uint32_t index,
                  void *out);

/* Stores record `index` under the write lock. */
void node_db_write(struct node_db *db, uint32_t index, const void *record);

/* Keyed slots: read under `reader`'s lock (false if absent); write
 * inserts or replaces, returning false when the keyed area is full. */
bool node_db_read_keyed(const struct node_db *db, int reader, uint64_t key,
                        void *out);
bool node_db_write_keyed(struct node_db *db, uint64_t key, const void *record);

/* Unlocked access for phases with no concurrent reader (bootstrap, before
 * a barrier publishes the table): slot `index` starts at
 * node_db_slot(db, index); slots are contiguous, slot_size bytes apart,
 * so a range of them can be the target of one collective. */
static inline void *node_db_slot(const struct node_db *db, uint32_t index)
{
  return db->slots + (size_t)index * db->slot_size;
}

/* The record bytes inside a slot, and marking a slot as written. */
void *node_db_slot_record(void *slot);
const void *node_db_slot_record_const(const void *slot);
void node_db_slot_set_filled(void *slot);
bool node_db_slot_filled(const void *slot);

#endif
