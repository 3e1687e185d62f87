/* The process-wide runtime state and MPI error reporting: the bottom of
 * dart-impl/mpi that every other module may use (runtime.h). */
#include "mpi/core/runtime.h"

#include <stdio.h>

struct runtime runtime;

dart_ret_t report_mpi_error(const char *call, const char *mpi_function,
                            int mpi_error)
{
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(mpi_error, text, &len) != MPI_SUCCESS) {
    snprintf(text, sizeof text, "MPI error %d", mpi_error);
  }
  return report_error(DART_ERR_OTHER, call, "%s failed: %s", mpi_function,
                      text);
}
