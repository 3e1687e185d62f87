/* The id table behind derived types and user ops: ids are never small
 * constants, stale and made-up ids are rejected, slots are reused with a
 * new generation, and a clear leaves every earlier id dead. */
#include "base/handle_table.h"
#include "test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static int destroyed;
static void count_destroy(void *entry) { (void)entry; destroyed++; }

static void insert_lookup_remove(void)
{
  static struct handle_table table = HANDLE_TABLE_INITIALIZER;
  int a, b, c;
  intptr_t ia = handle_table_insert(&table, &a);
  intptr_t ib = handle_table_insert(&table, &b);
  ASSERT(ia >= HANDLE_TABLE_MIN_ID && ib >= HANDLE_TABLE_MIN_ID && ia != ib);
  ASSERT(handle_table_lookup(&table, ia) == &a);
  ASSERT(handle_table_lookup(&table, ib) == &b);
  for (intptr_t small = -5; small < HANDLE_TABLE_MIN_ID; ++small) {
    ASSERT(handle_table_lookup(&table, small) == NULL);
  }
  ASSERT(handle_table_lookup(&table, ib + 1) == NULL);
  ASSERT(handle_table_lookup(&table, INTPTR_MAX) == NULL);

  /* Removed: the old id is dead, and a reused slot gets a new id. */
  ASSERT(handle_table_remove(&table, ia) == &a);
  ASSERT(handle_table_lookup(&table, ia) == NULL);
  ASSERT(handle_table_remove(&table, ia) == NULL);
  intptr_t ic = handle_table_insert(&table, &c);
  ASSERT(ic != ia && ic != ib);
  ASSERT(handle_table_lookup(&table, ic) == &c);
  ASSERT(handle_table_lookup(&table, ia) == NULL);

  /* Many entries across several chunks. */
  enum { MANY = 5000 };
  intptr_t *ids = xmalloc(MANY * sizeof *ids);
  for (int i = 0; i < MANY; ++i) {
    ids[i] = handle_table_insert(&table, &ids[i]);
    ASSERT(ids[i] != 0);
  }
  for (int i = 0; i < MANY; i += 2) {
    ASSERT(handle_table_remove(&table, ids[i]) == &ids[i]);
  }
  for (int i = 0; i < MANY; ++i) {
    ASSERT(handle_table_lookup(&table, ids[i]) == (i % 2 ? &ids[i] : NULL));
  }
  handle_table_clear(&table, count_destroy);
  ASSERT(destroyed == 2 + MANY / 2); /* b, c and the odd half */
  ASSERT(handle_table_lookup(&table, ib) == NULL);
  free(ids);
}

/* After a clear (dart_exit; the program may call dart_init again), ids
 * of before are refused, also where a new entry sits in the same slot:
 * live ones, removed ones, and those of slots the clear freed. */
static void ids_dead_after_clear(void)
{
  static struct handle_table table = HANDLE_TABLE_INITIALIZER;
  enum { OLD = 1500 };
  static int entries[OLD], fresh[OLD];
  intptr_t *old = xmalloc(OLD * sizeof *old);
  for (int i = 0; i < OLD; ++i) {
    old[i] = handle_table_insert(&table, &entries[i]);
    ASSERT(old[i] != 0);
  }
  for (int i = 0; i < OLD; i += 3) { /* a third removed, some reused */
    ASSERT(handle_table_remove(&table, old[i]) == &entries[i]);
  }
  intptr_t reused = handle_table_insert(&table, &entries[0]);
  ASSERT(reused != 0);
  destroyed = 0;
  handle_table_clear(&table, count_destroy);
  ASSERT_EQ(destroyed, OLD - (OLD + 2) / 3 + 1);
  for (int round = 0; round < 2; ++round) { /* and after a second clear */
    for (int i = 0; i < OLD; ++i) {
      intptr_t id = handle_table_insert(&table, &fresh[i]);
      ASSERT(id != 0);
      ASSERT(handle_table_lookup(&table, id) == &fresh[i]);
    }
    for (int i = 0; i < OLD; ++i) {
      ASSERT_MSG(handle_table_lookup(&table, old[i]) == NULL,
                 "round %d: id %ld of before the clear finds an entry",
                 round, (long)old[i]);
      ASSERT(handle_table_remove(&table, old[i]) == NULL);
    }
    ASSERT(handle_table_lookup(&table, reused) == NULL);
    handle_table_clear(&table, NULL);
  }
  free(old);
}

/* handle_table_each visits every live entry once, none removed. */
static void sum_entry(void *entry, void *sum)
{
  *(long *)sum += *(int *)entry;
}

static void each_live_entry(void)
{
  struct handle_table t = HANDLE_TABLE_INITIALIZER;
  static int values[2 * HANDLE_TABLE_CHUNK];
  intptr_t ids[2 * HANDLE_TABLE_CHUNK];
  long want = 0;
  for (int i = 0; i < 2 * HANDLE_TABLE_CHUNK; ++i) {
    values[i] = i + 1;
    ids[i] = handle_table_insert(&t, &values[i]);
    ASSERT(ids[i] != 0);
  }
  for (int i = 0; i < 2 * HANDLE_TABLE_CHUNK; ++i) {
    if (i % 3 == 0) {
      ASSERT(handle_table_remove(&t, ids[i]) == &values[i]);
    } else {
      want += i + 1;
    }
  }
  long sum = 0;
  handle_table_each(&t, sum_entry, &sum);
  ASSERT_EQ(sum, want);
  handle_table_clear(&t, NULL);
  sum = 0;
  handle_table_each(&t, sum_entry, &sum);
  ASSERT_EQ(sum, 0);
}

/* An id looked up while its slot is removed and filled again (one
 * thread destroys a type while another still uses the type's id, a user
 * error): the lookup returns the id's own entry or NULL, never the
 * slot's next entry. The lookup used to read the generation and then
 * the entry, so a remove and an insert in between returned the next
 * entry for the old id. A writer thread reuses one slot over and over, with two entries
 * that alternate with the slot's generation, while this thread looks up
 * the id the writer handed out last. */
enum { REUSES = 2000000 };

struct reuse {
  struct handle_table *table;
  _Atomic intptr_t     live;  /* the id inserted last */
  atomic_bool          done;
  uint64_t             first_generation;
  int                  entries[2];
};

/* The generation is the id's part above the slot's 24 bits; every
 * remove bumps it by one, and a removed slot is the next one reused. */
static void *entry_for_generation(struct reuse *r, uint64_t generation)
{
  return &r->entries[(generation - r->first_generation) % 2];
}

static void *reuse_slot(void *arg)
{
  struct reuse *r = arg;
  intptr_t id = atomic_load(&r->live);
  for (int i = 0; i < REUSES; ++i) {
    uint64_t generation = (uint64_t)id >> 24;
    ASSERT(handle_table_remove(r->table, id) ==
           entry_for_generation(r, generation));
    id = handle_table_insert(r->table,
                             entry_for_generation(r, generation + 1));
    ASSERT(((uint64_t)id >> 24) == generation + 1);
    atomic_store(&r->live, id);
  }
  atomic_store(&r->done, true);
  return NULL;
}

static void stale_id_under_reuse(void)
{
  static struct handle_table table = HANDLE_TABLE_INITIALIZER;
  static struct reuse r;
  r.table = &table;
  atomic_store(&r.done, false);
  intptr_t first = handle_table_insert(&table, &r.entries[0]);
  r.first_generation = (uint64_t)first >> 24;
  atomic_store(&r.live, first);
  pthread_t writer;
  ASSERT(pthread_create(&writer, NULL, reuse_slot, &r) == 0);
  unsigned long lookups = 0, wrong = 0;
  while (!atomic_load(&r.done)) {
    intptr_t id = atomic_load(&r.live);
    void *found = handle_table_lookup(&table, id);
    wrong += found != NULL &&
             found != entry_for_generation(&r, (uint64_t)id >> 24);
    ++lookups;
  }
  ASSERT(pthread_join(writer, NULL) == 0);
  if (wrong != 0) {
    FAILF("%lu of %lu lookups returned the entry of a later id", wrong,
          lookups);
  }
  handle_table_clear(&table, NULL);
}

static const struct test_case cases[] = {
  { "insert_lookup_remove", insert_lookup_remove },
  { "ids_dead_after_clear", ids_dead_after_clear },
  { "each_live_entry", each_live_entry },
  { "stale_id_under_reuse", stale_id_under_reuse },
};

int main(int argc, char **argv)
{
  return test_run(argc, argv, TEST_CASES(cases));
}
