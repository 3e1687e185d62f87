/* dart__io__hdf5__prep_mpio (dart_io.h): sets up an HDF5 file-access
 * property list so that files opened with it are accessed through
 * MPI-IO by the members of a team. DASH's HDF5 storage driver calls it on
 * every unit of the team that opens the file. Compiled only where
 * parallel HDF5 for the MPI DART uses was found (dart-impl/CMakeLists.txt,
 * DART_WITH_HDF5). */
#include "mpi/core/progress.h"
#include "mpi/core/runtime.h"
#include "mpi/model/team.h"

#include <hdf5.h>

#include <dash/dart/if/dart_io.h>

/* Parallel HDF5 declares H5Pset_fapl_mpio only when it was built with
 * MPI: a serial HDF5 found by mistake fails here, at compile time. */
#ifndef H5_HAVE_PARALLEL
#error "dart__io__hdf5__prep_mpio needs an HDF5 built with MPI (parallel HDF5)"
#endif

dart_ret_t dart__io__hdf5__prep_mpio(hid_t plist_id, dart_team_t teamid)
{
  REQUIRE_INIT();
  struct team *team = team_lookup_or_report(__func__, teamid);
  if (team == NULL) {
    return DART_ERR_INVAL;
  }
  /* HDF5 prints its own error stack on every failed call unless told
   * not to; the caller gets one line from here instead. */
  htri_t is_file_access = -1;
  H5E_BEGIN_TRY
  {
    is_file_access = H5Pisa_class(plist_id, H5P_FILE_ACCESS);
  }
  H5E_END_TRY;
  /* HDF5 duplicates the communicator (MPI_Comm_dup), so the property
   * list and the files opened with it outlive the team, and the call is
   * collective over the team although the interface calls it local. The
   * members first agree that every list is one (a unit whose list is
   * none would otherwise leave the others in the duplication for ever);
   * after that every member is inside this call, so the blocking
   * duplication waits for no unit that waits for this one (a lock homed
   * here, atomics by message: core/progress.h). */
  int mine_ok = is_file_access > 0, all_ok = 0;
  MPI_Request agreed = MPI_REQUEST_NULL;
  int err = progress_complete(MPI_Iallreduce(&mine_ok, &all_ok, 1, MPI_INT,
                                             MPI_MIN, team->comm, &agreed),
                              &agreed);
  if (err != MPI_SUCCESS) {
    return report_mpi_error(__func__, "MPI_Iallreduce", err);
  }
  if (!mine_ok) {
    return report_error(DART_ERR_INVAL, __func__,
                        "plist_id %lld is not an HDF5 file-access property "
                        "list (H5Pcreate(H5P_FILE_ACCESS) makes one)",
                        (long long)plist_id);
  }
  if (!all_ok) {
    return report_error(DART_ERR_INVAL, __func__,
                        "another unit of team %d passed no HDF5 file-access "
                        "property list: nothing set on this one",
                        (int)teamid);
  }
  herr_t set = -1;
  H5E_BEGIN_TRY
  {
    set = H5Pset_fapl_mpio(plist_id, team->comm, MPI_INFO_NULL);
  }
  H5E_END_TRY;
  if (set < 0) {
    return report_error(DART_ERR_OTHER, __func__,
                        "HDF5 refused the MPI-IO driver for team %d "
                        "(H5Pset_fapl_mpio failed)",
                        (int)teamid);
  }
  return DART_OK;
}
