/* See core/serialize.h for the Open MPI behaviour this works around. */
#include "mpi/core/serialize.h"
#include "base/logging.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

struct mpi_serial mpi_serial = { false, PTHREAD_MUTEX_INITIALIZER };

/* Whether the library is Open MPI older than 5 (whose osc/ucx the header
 * describes), asked at run time: the shared library may be newer than
 * the headers this was built with. */
static bool open_mpi_before_5(void)
{
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  if (MPI_Get_library_version(version, &len) != MPI_SUCCESS) {
    return false;
  }
  int major = 0;
  return sscanf(version, "Open MPI v%d.", &major) == 1 && major < 5;
}

void mpi_serialize_setup(int thread_level)
{
  mpi_serial.on =
    thread_level >= MPI_THREAD_MULTIPLE && open_mpi_before_5();
  LOG_DEBUG("dart_init_thread", "MPI one-sided calls %s",
            mpi_serial.on ? "serialized (Open MPI 4 osc/ucx under "
                            "MPI_THREAD_MULTIPLE, core/serialize.h)"
                          : "not serialized");
}
