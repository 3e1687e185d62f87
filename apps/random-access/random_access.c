/* random-access: HPCC RandomAccess (GUP/s) on DART. The table is one
 * dart_team_memalloc_aligned segment, 2^k 64-bit words per unit; every
 * update is dart_accumulate with DART_OP_BXOR, wherever the index points
 * (own part included, so concurrent updates to a word stay atomic), and
 * dart_flush_all completes them in batches of HPCC's 1024.
 * Usage: random-access [-k LOG2_WORDS] [-u FACTOR] [-e PER_MILLE] */
#include <dash/dart/if/dart.h>

#include "ra_kernel.h"

#include <stdio.h>

/* DART_TYPE_ULONGLONG is the table's 64-bit word. */
_Static_assert(sizeof(unsigned long long) == sizeof(uint64_t),
               "unsigned long long must be 64 bits");

#define CHECK(call)                                                       \
  do {                                                                    \
    dart_ret_t ret_ = (call);                                             \
    if (ret_ != DART_OK) {                                                \
      fprintf(stderr, "random-access: %s failed with %d\n", #call,       \
              (int)ret_);                                                 \
      dart_abort(DART_EXIT_ABORT);                                        \
    }                                                                     \
  } while (0)

static void dart_ra_update(void *ctx, uint64_t owner, uint64_t offset,
                           const uint64_t *value)
{
  dart_gptr_t g = *(const dart_gptr_t *)ctx;
  g.unitid = (dart_unit_t)owner;
  g.addr_or_offs.offset += offset * sizeof(uint64_t);
  CHECK(dart_accumulate(g, value, 1, DART_TYPE_ULONGLONG, DART_OP_BXOR));
}

static void dart_ra_complete(void *ctx)
{
  CHECK(dart_flush_all(*(const dart_gptr_t *)ctx));
}

static void dart_ra_barrier(void *ctx)
{
  (void)ctx;
  CHECK(dart_barrier(DART_TEAM_ALL));
}

static uint64_t dart_ra_sum(void *ctx, uint64_t v)
{
  (void)ctx;
  uint64_t all = 0;
  CHECK(dart_allreduce(&v, &all, 1, DART_TYPE_ULONGLONG, DART_OP_SUM,
                       DART_TEAM_ALL));
  return all;
}

int main(int argc, char **argv)
{
  struct ra_params p;
  int parsed = ra_parse_args(argc, argv, "random-access", &p);
  if (parsed != 0) {
    return parsed == 1 ? 0 : 2;
  }
  CHECK(dart_init(&argc, &argv));
  dart_global_unit_t me;
  size_t units;
  CHECK(dart_myid(&me));
  CHECK(dart_size(&units));

  dart_gptr_t table;
  CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, (size_t)1 << p.log2_local,
                                   DART_TYPE_ULONGLONG, &table));
  dart_gptr_t mine = table;
  mine.unitid = me.id;
  void *local = NULL;
  CHECK(dart_gptr_getaddr(mine, &local));

  struct ra_model model = {
    .name = "dart", .ctx = &table, .update = dart_ra_update,
    .complete = dart_ra_complete, .barrier = dart_ra_barrier,
    .sum = dart_ra_sum,
  };
  int rc = ra_run(&p, &model, units, (uint64_t)me.id, local);

  CHECK(dart_team_memfree(table));
  CHECK(dart_exit());
  return rc;
}
