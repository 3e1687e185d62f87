/* See core/serialize.h for the Open MPI behaviour this works around. */
#include "mpi/core/serialize.h"
#include "base/logging.h"

struct mpi_serial mpi_serial = { false, PTHREAD_MUTEX_INITIALIZER };

void mpi_serialize_setup(bool on)
{
  mpi_serial.on = on;
  LOG_DEBUG("dart_init_thread", "MPI one-sided calls %s",
            mpi_serial.on ? "serialized (Open MPI 4 osc/ucx under "
                            "MPI_THREAD_MULTIPLE, core/serialize.h)"
                          : "not serialized");
}
