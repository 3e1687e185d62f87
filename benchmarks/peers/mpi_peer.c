#include "mpi_peer.h"

#include <mpi.h>
#include <stdio.h>

void mpi_peer_start(int *argc, char ***argv, int *me, int *units)
{
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, me);
  MPI_Comm_size(MPI_COMM_WORLD, units);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int mpi_peer_stop(int *argc, char ***argv, int code)
{
  fflush(stdout);
  fflush(stderr);
  int started = 0;
  MPI_Initialized(&started);
  if (!started) {
    MPI_Init(argc, argv);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return code;
}
