#include "mpi_peer.h"

#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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
  return mpi_peer_finish(code);
}

/* MPICH before 4.2 on ch4:ucx with processes on more than one host: its
 * MPI_Finalize can hang there (dart-impl/mpi/core/quirks.h). */
static bool finalize_may_hang(void)
{
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0, major = 0, minor = 0;
  MPI_Get_library_version(version, &len);
  if (sscanf(version, "MPICH Version: %d.%d", &major, &minor) != 2 ||
      strstr(version, "ch4:ucx") == NULL ||
      (major == 4 && minor >= 2) || major > 4) {
    return false;
  }
  int size = 0, node_size = 0;
  MPI_Comm node;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                      MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  return node_size < size;
}

int mpi_peer_finish(int code)
{
  if (finalize_may_hang()) {
    /* The order of mpi_quirks_before_finalize in
     * dart-impl/mpi/core/quirks.c, which says why: a message each way
     * between every pair, a barrier, then 100 ms without MPI calls. */
    int size = 0, me = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    for (int d = 1; d < size; ++d) {
      char out = 0, in = 0;
      MPI_Sendrecv(&out, 1, MPI_CHAR, (me + d) % size, 0, &in, 1, MPI_CHAR,
                   (me - d + size) % size, 0, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    struct timespec pause = { 0, 100 * 1000 * 1000 };
    nanosleep(&pause, NULL);
  }
  MPI_Finalize();
  return code;
}
