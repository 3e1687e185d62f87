/* shmem-stencil: the stencil peer on OpenSHMEM. Blocks are shmem_malloc'd;
 * a halo row is shmem_putmem + shmem_quiet (a blocking put, as
 * dart_put_blocking), the convergence test shmem_float_max_to_all.
 * Results are printed before shmem_finalize (Open MPI's may crash there).
 * Usage: shmem-stencil [-n N] [-i MAX_ITERS] [-t TOL] [--verify] */
#include "stencil_kernel.h"

#include <shmem.h>
#include <stdio.h>

/* Symmetric reduction buffers; two pSync arrays used in turn. */
static float max_in, max_out;
static float max_work[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long max_sync[2][SHMEM_REDUCE_SYNC_SIZE];
static int max_turn;

struct shmem_st {
  const struct st_layout *layout;
  float *block;
};

static void shmem_st_exchange(void *ctx, int slot)
{
  struct shmem_st *s = ctx;
  struct st_put puts[2];
  int k = st_exchange_plan(s->layout, slot, puts);
  for (int i = 0; i < k; ++i) {
    shmem_putmem(s->block + puts[i].dst, s->block + puts[i].src,
                 puts[i].count * sizeof(float), (int)puts[i].target);
    shmem_quiet();
  }
}

static void shmem_st_barrier(void *ctx)
{
  (void)ctx;
  shmem_barrier_all();
}

static float shmem_st_max(void *ctx, float v)
{
  (void)ctx;
  max_in = v;
  shmem_float_max_to_all(&max_out, &max_in, 1, 0, 0, shmem_n_pes(),
                         max_work, max_sync[max_turn]);
  max_turn ^= 1;
  return max_out;
}

int main(int argc, char **argv)
{
  struct st_params p;
  int parsed = st_parse_args(argc, argv, "shmem-stencil", &p);
  if (parsed != 0) {
    return parsed == 1 ? 0 : 2;
  }
  shmem_init();
  for (int t = 0; t < 2; ++t) {
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) {
      max_sync[t][i] = SHMEM_SYNC_VALUE;
    }
  }
  struct st_layout layout;
  int rc = st_layout_init(&p, shmem_n_pes(), shmem_my_pe(), &layout);
  if (rc == 0) {
    struct shmem_st s = { .layout = &layout };
    s.block = shmem_malloc(st_block_floats(&layout) * sizeof(float));
    if (s.block == NULL) {
      fprintf(stderr, "shmem-stencil: shmem_malloc failed\n");
      rc = 1;
    } else {
      shmem_barrier_all();
      struct st_model model = {
        .name = "openshmem", .ctx = &s, .exchange = shmem_st_exchange,
        .barrier = shmem_st_barrier, .max = shmem_st_max,
      };
      rc = st_run(&p, &model, &layout, s.block);
      shmem_barrier_all();
      shmem_free(s.block);
    }
  }
  shmem_finalize();
  return rc;
}
