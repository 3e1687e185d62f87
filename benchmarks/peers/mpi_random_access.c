/* mpi-random-access: the RandomAccess peer on plain MPI RMA. The table is
 * an MPI_Win_allocate window in one lock_all epoch; every update is
 * MPI_Accumulate with MPI_BXOR, completed by MPI_Win_flush_all in batches
 * of 1024, exactly where the DART version calls dart_flush_all.
 * Usage: mpi-random-access [-k LOG2_WORDS] [-u FACTOR] [-e PER_MILLE] */
#include "mpi_peer.h"
#include "ra_kernel.h"

#include <mpi.h>
#include <stdio.h>

static void mpi_ra_update(void *ctx, uint64_t owner, uint64_t offset,
                          const uint64_t *value)
{
  MPI_Accumulate(value, 1, MPI_UINT64_T, (int)owner, (MPI_Aint)offset, 1,
                 MPI_UINT64_T, MPI_BXOR, *(MPI_Win *)ctx);
}

static void mpi_ra_complete(void *ctx)
{
  MPI_Win_flush_all(*(MPI_Win *)ctx);
}

static void mpi_ra_barrier(void *ctx)
{
  /* Local loads of the table after the barrier must see remote updates. */
  MPI_Win_sync(*(MPI_Win *)ctx);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(*(MPI_Win *)ctx);
}

static uint64_t mpi_ra_sum(void *ctx, uint64_t v)
{
  (void)ctx;
  uint64_t all = 0;
  MPI_Allreduce(&v, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

int main(int argc, char **argv)
{
  struct ra_params p;
  int code, me, units;
  if (ra_parse_args(argc, argv, "mpi-random-access", &p, &code)) {
    return mpi_peer_stop(&argc, &argv, code);
  }
  mpi_peer_start(&argc, &argv, &me, &units);

  uint64_t *local = NULL;
  MPI_Win win;
  MPI_Aint bytes = (MPI_Aint)(sizeof(uint64_t) << p.log2_local);
  MPI_Win_allocate(bytes, sizeof(uint64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                   &local, &win);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);

  struct ra_model model = {
    .name = "mpi-rma", .ctx = &win, .update = mpi_ra_update,
    .complete = mpi_ra_complete, .barrier = mpi_ra_barrier,
    .sum = mpi_ra_sum,
  };
  int rc = ra_run(&p, &model, (uint64_t)units, (uint64_t)me, local);

  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  return mpi_peer_finish(rc);
}
