#include "base/node_db.h"
#include "base/cache_line.h"

#include <errno.h>
#include <string.h>

#define NODE_DB_MAGIC UINT64_C(0x444152544e4f4445) /* "DARTNODE" */

/* Start of the shared mapping; the lock follows on its own lines. */
struct node_db_header {
  uint64_t magic;
  uint32_t record_size;
  uint32_t num_records;
  uint32_t num_keyed;
  uint32_t slot_size;
  uint64_t lock_offset;
  uint64_t slots_offset;
  uint64_t keyed_offset;
  uint64_t total_bytes;
};

/* Slot = state word, then the record. Keyed slot = state, key, record. */
#define SLOT_FILLED 1u
#define KEYED_HEAD  16u

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

struct layout {
  size_t slot_size, lock_offset, slots_offset, keyed_offset, total;
};

static int plan(const struct node_db_geometry *g, struct layout *l)
{
  if (g == NULL || g->record_size == 0 || g->num_readers < 1 ||
      g->record_size > (1u << 24)) {
    return EINVAL;
  }
  l->slot_size = node_db_slot_bytes(g->record_size);
  l->lock_offset = round_up(sizeof(struct node_db_header), CACHE_LINE);
  l->slots_offset = round_up(l->lock_offset +
                             shared_rw_lock_bytes(g->num_readers), CACHE_LINE);
  l->keyed_offset = round_up(l->slots_offset +
                             (size_t)g->num_records * l->slot_size, CACHE_LINE);
  l->total = l->keyed_offset +
             (size_t)g->num_keyed * (KEYED_HEAD + round_up(g->record_size, 8));
  return 0;
}

size_t node_db_slot_bytes(uint32_t record_size)
{
  return sizeof(uint64_t) + round_up(record_size, 8);
}

size_t node_db_bytes(const struct node_db_geometry *geometry)
{
  struct layout l;
  return plan(geometry, &l) == 0 ? l.total : 0;
}

static size_t keyed_slot_size(const struct node_db *db)
{
  return KEYED_HEAD + round_up(db->record_size, 8);
}

int node_db_attach(struct node_db *db, void *mem)
{
  struct node_db_header *h = mem;
  if (db == NULL || h == NULL || h->magic != NODE_DB_MAGIC) {
    return EINVAL;
  }
  unsigned char *base = mem;
  db->header = h;
  db->lock = (struct shared_rw_lock *)(base + h->lock_offset);
  db->slots = base + h->slots_offset;
  db->keyed = base + h->keyed_offset;
  db->slot_size = h->slot_size;
  db->record_size = h->record_size;
  db->num_records = h->num_records;
  db->num_keyed = h->num_keyed;
  return 0;
}

int node_db_format(struct node_db *db, void *mem,
                   const struct node_db_geometry *geometry)
{
  struct layout l;
  if (db == NULL || mem == NULL || ((uintptr_t)mem % CACHE_LINE) != 0 ||
      plan(geometry, &l) != 0) {
    return EINVAL;
  }
  unsigned char *base = mem;
  int err = shared_rw_lock_format(base + l.lock_offset, geometry->lock_kind,
                                  geometry->num_readers);
  if (err != 0) {
    return err;
  }
  memset(base + l.slots_offset, 0, l.total - l.slots_offset);
  struct node_db_header *h = mem;
  *h = (struct node_db_header){
    .magic = NODE_DB_MAGIC,
    .record_size = geometry->record_size,
    .num_records = geometry->num_records,
    .num_keyed = geometry->num_keyed,
    .slot_size = (uint32_t)l.slot_size,
    .lock_offset = l.lock_offset,
    .slots_offset = l.slots_offset,
    .keyed_offset = l.keyed_offset,
    .total_bytes = l.total,
  };
  return node_db_attach(db, mem);
}

void node_db_destroy(struct node_db *db)
{
  if (db != NULL && db->lock != NULL) {
    shared_rw_lock_destroy(db->lock);
    db->header->magic = 0;
  }
}

void *node_db_slot_record(void *slot)
{
  return (unsigned char *)slot + sizeof(uint64_t);
}

const void *node_db_slot_record_const(const void *slot)
{
  return (const unsigned char *)slot + sizeof(uint64_t);
}

void node_db_slot_set_filled(void *slot)
{
  *(uint64_t *)slot = SLOT_FILLED;
}

bool node_db_slot_filled(const void *slot)
{
  return *(const uint64_t *)slot == SLOT_FILLED;
}

bool node_db_read(const struct node_db *db, int reader, uint32_t index,
                  void *out)
{
  const unsigned char *slot = node_db_slot(db, index);
  shared_rw_lock_read_acquire(db->lock, reader);
  bool filled = node_db_slot_filled(slot);
  if (filled) {
    memcpy(out, node_db_slot_record_const(slot), db->record_size);
  }
  shared_rw_lock_read_release(db->lock, reader);
  return filled;
}

void node_db_write(struct node_db *db, uint32_t index, const void *record)
{
  unsigned char *slot = node_db_slot(db, index);
  shared_rw_lock_write_acquire(db->lock);
  memcpy(node_db_slot_record(slot), record, db->record_size);
  node_db_slot_set_filled(slot);
  shared_rw_lock_write_release(db->lock);
}

/* Keyed area: open addressing with linear probing, no removal, so a
 * lookup stops at the first empty slot. */
static uint32_t key_home(const struct node_db *db, uint64_t key)
{
  key ^= key >> 33;
  key *= UINT64_C(0xff51afd7ed558ccd);
  key ^= key >> 33;
  return (uint32_t)(key % db->num_keyed);
}

static unsigned char *keyed_slot(const struct node_db *db, uint32_t i)
{
  return db->keyed + (size_t)i * keyed_slot_size(db);
}

/* The slot holding `key`, or the empty slot where it would go, or NULL
 * when the area is full without it. Caller holds a lock. */
static unsigned char *keyed_find(const struct node_db *db, uint64_t key)
{
  if (db->num_keyed == 0) {
    return NULL;
  }
  uint32_t i = key_home(db, key);
  for (uint32_t probe = 0; probe < db->num_keyed; ++probe) {
    unsigned char *slot = keyed_slot(db, i);
    uint64_t state, slot_key;
    memcpy(&state, slot, sizeof state);
    memcpy(&slot_key, slot + 8, sizeof slot_key);
    if (state != SLOT_FILLED || slot_key == key) {
      return slot;
    }
    i = (i + 1 == db->num_keyed) ? 0 : i + 1;
  }
  return NULL;
}

bool node_db_read_keyed(const struct node_db *db, int reader, uint64_t key,
                        void *out)
{
  shared_rw_lock_read_acquire(db->lock, reader);
  const unsigned char *slot = keyed_find(db, key);
  bool found = slot != NULL && node_db_slot_filled(slot);
  if (found) {
    memcpy(out, slot + KEYED_HEAD, db->record_size);
  }
  shared_rw_lock_read_release(db->lock, reader);
  return found;
}

bool node_db_write_keyed(struct node_db *db, uint64_t key, const void *record)
{
  shared_rw_lock_write_acquire(db->lock);
  unsigned char *slot = keyed_find(db, key);
  if (slot != NULL) {
    memcpy(slot + 8, &key, sizeof key);
    memcpy(slot + KEYED_HEAD, record, db->record_size);
    node_db_slot_set_filled(slot);
  }
  shared_rw_lock_write_release(db->lock);
  return slot != NULL;
}
