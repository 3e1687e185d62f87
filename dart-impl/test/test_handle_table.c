/* The id table behind derived types and user ops: ids are never small
 * constants, stale and made-up ids are rejected, slots are reused with a
 * new generation. */
#include "base/handle_table.h"
#include "test.h"

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

static const struct test_case cases[] = {
  { "insert_lookup_remove", insert_lookup_remove },
};

int main(int argc, char **argv)
{
  return test_run(argc, argv, TEST_CASES(cases));
}
