/* The slab behind lock handles (base/tombstone_slab.c): objects are zeroed,
 * never share an address or a cache line, stay readable once retired, and
 * a page goes back to the system (reads as zeros) only when every object
 * on it is retired, whatever else the caller hands to retire. */
#include "base/tombstone_slab.h"
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct thing {
  uint32_t magic;
  char     payload[150];
};

enum { COUNT = 50000, MAGIC = 0x4c495645 };

static bool all_zero(const void *p, size_t bytes)
{
  const unsigned char *c = p;
  for (size_t i = 0; i < bytes; ++i) {
    if (c[i] != 0) {
      return false;
    }
  }
  return true;
}

static int by_address(const void *a, const void *b)
{
  uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;
  return (x > y) - (x < y);
}

static void alloc_retire(void)
{
  static struct tombstone_slab slab =
    TOMBSTONE_SLAB_INITIALIZER(sizeof(struct thing));
  static struct thing *things[COUNT], *sorted[COUNT];
  for (int i = 0; i < COUNT; ++i) {
    things[i] = tombstone_slab_alloc(&slab);
    ASSERT(things[i] != NULL);
    ASSERT_EQ((uintptr_t)things[i] % 64, 0);
    ASSERT(all_zero(things[i], sizeof *things[i]));
    things[i]->magic = MAGIC;
    memset(things[i]->payload, 0x5a, sizeof things[i]->payload);
  }
  /* Distinct, and far enough apart never to overlap. */
  memcpy(sorted, things, sizeof sorted);
  qsort(sorted, COUNT, sizeof *sorted, by_address);
  for (int i = 1; i < COUNT; ++i) {
    ASSERT((char *)sorted[i] >= (char *)sorted[i - 1] + sizeof(struct thing));
  }
  size_t resident = tombstone_slab_resident_pages(&slab);
  ASSERT(resident * (size_t)sysconf(_SC_PAGESIZE) >=
         (size_t)COUNT * sizeof(struct thing));

  /* Retiring every object but the first: its page stays, even when the
   * objects beside it are retired twice or junk is retired. */
  int junk = 0;
  tombstone_slab_retire(&slab, &junk);
  tombstone_slab_retire(&slab, (char *)things[0] + 8);
  for (int i = 1; i < COUNT; ++i) {
    things[i]->magic = 0xdead;
    tombstone_slab_retire(&slab, things[i]);
    tombstone_slab_retire(&slab, things[i]);
  }
  ASSERT_EQ(things[0]->magic, MAGIC);
  ASSERT_EQ(things[0]->payload[149], 0x5a);
  /* The page of things[0] and the one being filled at most. */
  ASSERT(tombstone_slab_resident_pages(&slab) <= 2);
  /* A retired object of a released page reads as zeros; one that shares
   * the live object's page keeps what it held. */
  ASSERT_EQ(things[COUNT / 2]->magic, 0);
  ASSERT(all_zero(things[COUNT / 2], sizeof *things[COUNT / 2]));
  ASSERT_EQ(things[1]->magic, 0xdead);

  /* New objects never take a retired address. */
  for (int i = 0; i < 1000; ++i) {
    struct thing *t = tombstone_slab_alloc(&slab);
    ASSERT(t != NULL);
    ASSERT(bsearch(&t, sorted, COUNT, sizeof *sorted, by_address) == NULL);
    tombstone_slab_retire(&slab, t);
  }
  tombstone_slab_retire(&slab, things[0]);
  ASSERT(tombstone_slab_resident_pages(&slab) <= 1);
}

static const struct test_case cases[] = {
  { "alloc_retire", alloc_retire },
};

int main(int argc, char **argv)
{
  return test_run(argc, argv, TEST_CASES(cases));
}
