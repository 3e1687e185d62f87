/* random-access: HPCC RandomAccess (GUP/s) on DART. The table is one
 * dart_team_memalloc_aligned segment, 2^k 64-bit words per unit; every
 * update is dart_accumulate with DART_OP_BXOR, wherever the index points
 * (own part included, so concurrent updates to a word stay atomic), and
 * dart_flush_all completes them in batches of HPCC's 1024.
 * Usage: random-access [-k LOG2_WORDS] [-u FACTOR] [-e PER_MILLE] */
#include "dart_app.h"
#include "ra_kernel.h"

/* DART_TYPE_ULONGLONG is the table's 64-bit word. */
_Static_assert(sizeof(unsigned long long) == sizeof(uint64_t),
               "unsigned long long must be 64 bits");

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
  int code;
  if (ra_parse_args(argc, argv, "random-access", &p, &code)) {
    return dart_app_stop(&argc, &argv, code);
  }
  dart_global_unit_t me;
  size_t units;
  dart_app_start(&argc, &argv, &me, &units);

  dart_gptr_t table;
  CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, (size_t)1 << p.log2_local,
                                   DART_TYPE_ULONGLONG, &table));
  struct ra_model model = {
    .name = "dart", .ctx = &table, .update = dart_ra_update,
    .complete = dart_ra_complete, .barrier = dart_app_barrier,
    .sum = dart_ra_sum,
  };
  int rc = ra_run(&p, &model, units, (uint64_t)me.id,
                  dart_app_local(table, me));

  CHECK(dart_team_memfree(table));
  CHECK(dart_exit());
  return rc;
}
