/* shmem-stencil: the stencil peer on OpenSHMEM. Blocks are shmem_malloc'd;
 * a halo row is shmem_putmem + shmem_quiet (a blocking put, as
 * dart_put_blocking), the convergence test shmem_float_max_to_all.
 * Results are printed before shmem_finalize (Open MPI's may crash there).
 * Usage: shmem-stencil [-n N] [-i MAX_ITERS] [-t TOL] [--verify] [--phases] */
#include "mpi_peer.h"
#include "shmem_peer.h"
#include "stencil_kernel.h"

#include <shmem.h>
#include <stdio.h>

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
  return shmem_peer_max(v);
}

int main(int argc, char **argv)
{
  struct st_params p;
  int code;
  if (st_parse_args(argc, argv, "shmem-stencil", &p, &code)) {
    return mpi_peer_stop(&argc, &argv, code);
  }
  shmem_peer_start();
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
