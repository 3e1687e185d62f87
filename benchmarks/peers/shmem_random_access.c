/* shmem-random-access: the RandomAccess peer on OpenSHMEM. The table is
 * shmem_malloc'd (symmetric), every update shmem_uint64_atomic_xor,
 * completed by shmem_quiet in batches of 1024 as in the DART version.
 * Results are printed before shmem_finalize (Open MPI's may crash there).
 * Usage: shmem-random-access [-k LOG2_WORDS] [-u FACTOR] [-e PER_MILLE] */
#include "ra_kernel.h"

#include <shmem.h>
#include <stdio.h>

/* Symmetric reduction buffers; two pSync arrays used in turn, so a
 * reduction never reuses the one its predecessor may still be using. */
static long long sum_in, sum_out;
static long long sum_work[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long sum_sync[2][SHMEM_REDUCE_SYNC_SIZE];
static int sum_turn;

static void shmem_ra_update(void *ctx, uint64_t owner, uint64_t offset,
                            const uint64_t *value)
{
  uint64_t *table = ctx;
  shmem_uint64_atomic_xor(&table[offset], *value, (int)owner);
}

static void shmem_ra_complete(void *ctx)
{
  (void)ctx;
  shmem_quiet();
}

static void shmem_ra_barrier(void *ctx)
{
  (void)ctx;
  shmem_barrier_all();
}

static uint64_t shmem_ra_sum(void *ctx, uint64_t v)
{
  (void)ctx;
  sum_in = (long long)v;
  shmem_longlong_sum_to_all(&sum_out, &sum_in, 1, 0, 0, shmem_n_pes(),
                            sum_work, sum_sync[sum_turn]);
  sum_turn ^= 1;
  return (uint64_t)sum_out;
}

int main(int argc, char **argv)
{
  struct ra_params p;
  int parsed = ra_parse_args(argc, argv, "shmem-random-access", &p);
  if (parsed != 0) {
    return parsed == 1 ? 0 : 2;
  }
  shmem_init();
  for (int t = 0; t < 2; ++t) {
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) {
      sum_sync[t][i] = SHMEM_SYNC_VALUE;
    }
  }
  uint64_t *table = shmem_malloc(sizeof(uint64_t) << p.log2_local);
  int rc = 1;
  if (table == NULL) {
    fprintf(stderr, "shmem-random-access: shmem_malloc failed\n");
  } else {
    shmem_barrier_all();
    struct ra_model model = {
      .name = "openshmem", .ctx = table, .update = shmem_ra_update,
      .complete = shmem_ra_complete, .barrier = shmem_ra_barrier,
      .sum = shmem_ra_sum,
    };
    rc = ra_run(&p, &model, (uint64_t)shmem_n_pes(),
                (uint64_t)shmem_my_pe(), table);
    shmem_barrier_all();
    shmem_free(table);
  }
  shmem_finalize();
  return rc;
}
