/* shmem-random-access: the RandomAccess peer on OpenSHMEM. The table is
 * shmem_malloc'd (symmetric), every update shmem_uint64_atomic_xor,
 * completed by shmem_quiet in batches of 1024 as in the DART version.
 * Results are printed before shmem_finalize (Open MPI's may crash there).
 * Usage: shmem-random-access [-k LOG2_WORDS] [-u FACTOR] [-e PER_MILLE] */
#include "ra_kernel.h"
#include "mpi_peer.h"
#include "shmem_peer.h"

#include <shmem.h>
#include <stdio.h>

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
  return (uint64_t)shmem_peer_sum((long long)v);
}

int main(int argc, char **argv)
{
  struct ra_params p;
  int code;
  if (ra_parse_args(argc, argv, "shmem-random-access", &p, &code)) {
    return mpi_peer_stop(&argc, &argv, code);
  }
  shmem_peer_start();
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
