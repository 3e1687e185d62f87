/* mpi-stencil: the stencil peer on plain MPI RMA. Blocks live in an
 * MPI_Win_allocate window in one lock_all epoch; a halo row is MPI_Put +
 * MPI_Win_flush (a blocking put, as dart_put_blocking), the convergence
 * test MPI_Allreduce (MAX).
 * Usage: mpi-stencil [-n N] [-i MAX_ITERS] [-t TOL] [--verify] [--phases] */
#include "mpi_peer.h"
#include "stencil_kernel.h"

#include <mpi.h>
#include <stdio.h>

struct mpi_st {
  const struct st_layout *layout;
  MPI_Win win;
  float  *block;
};

static void mpi_st_exchange(void *ctx, int slot)
{
  struct mpi_st *s = ctx;
  struct st_put puts[2];
  int k = st_exchange_plan(s->layout, slot, puts);
  for (int i = 0; i < k; ++i) {
    MPI_Put(s->block + puts[i].src, (int)puts[i].count, MPI_FLOAT,
            (int)puts[i].target, (MPI_Aint)puts[i].dst, (int)puts[i].count,
            MPI_FLOAT, s->win);
    MPI_Win_flush((int)puts[i].target, s->win);
  }
}

static void mpi_st_barrier(void *ctx)
{
  struct mpi_st *s = ctx;
  MPI_Barrier(MPI_COMM_WORLD);
  /* Halo rows written by the neighbours become visible to local loads. */
  MPI_Win_sync(s->win);
}

static float mpi_st_max(void *ctx, float v)
{
  struct mpi_st *s = ctx;
  float all = 0.0f;
  MPI_Allreduce(&v, &all, 1, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Win_sync(s->win);
  return all;
}

int main(int argc, char **argv)
{
  struct st_params p;
  int code, me, units;
  if (st_parse_args(argc, argv, "mpi-stencil", &p, &code)) {
    return mpi_peer_stop(&argc, &argv, code);
  }
  mpi_peer_start(&argc, &argv, &me, &units);
  struct st_layout layout;
  if (st_layout_init(&p, units, me, &layout) != 0) {
    return mpi_peer_stop(&argc, &argv, 2);
  }

  struct mpi_st s = { .layout = &layout };
  MPI_Win_allocate((MPI_Aint)(st_block_floats(&layout) * sizeof(float)),
                   sizeof(float), MPI_INFO_NULL, MPI_COMM_WORLD, &s.block,
                   &s.win);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, s.win);

  struct st_model model = {
    .name = "mpi-rma", .ctx = &s, .exchange = mpi_st_exchange,
    .barrier = mpi_st_barrier, .max = mpi_st_max,
  };
  int rc = st_run(&p, &model, &layout, s.block);

  MPI_Win_unlock_all(s.win);
  MPI_Win_free(&s.win);
  return mpi_peer_finish(rc);
}
