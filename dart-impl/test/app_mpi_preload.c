/* Preloaded into a test program (LD_PRELOAD) to make it an application
 * that starts MPI itself before dart_init, as a C++ library's test driver
 * does: TEST_APP_MPI=multiple|serialized picks the thread level of
 * MPI_Init_thread, called before main; MPI_Finalize runs after main
 * returns (dart_exit leaves a borrowed MPI running). Only MPI ranks act:
 * mpiexec, which inherits the preload, starts no MPI. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void finalize_at_exit(void)
{
  int finished = 0;
  MPI_Finalized(&finished);
  if (!finished) {
    MPI_Finalize();
  }
}

__attribute__((constructor)) static void start_mpi_first(void)
{
  const char *level = getenv("TEST_APP_MPI");
  if (level == NULL || (getenv("OMPI_COMM_WORLD_RANK") == NULL &&
                        getenv("PMI_RANK") == NULL)) {
    return;
  }
  int want = strcmp(level, "multiple") == 0 ? MPI_THREAD_MULTIPLE
                                            : MPI_THREAD_SERIALIZED;
  int got = 0;
  if (MPI_Init_thread(NULL, NULL, want, &got) != MPI_SUCCESS) {
    fprintf(stderr, "app_mpi_preload: MPI_Init_thread failed\n");
    exit(1);
  }
  atexit(finalize_at_exit);
}
