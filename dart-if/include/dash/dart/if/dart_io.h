/**
 * \file dash/dart/if/dart_io.h
 *
 * \brief Optional HDF5 support.
 *
 * Requires `<hdf5.h>` (for `hid_t`) to be included before this header;
 * only available if DART was built with HDF5: this runtime builds it in
 * where parallel HDF5 for its MPI is installed (`DART_HAVE_HDF5` in the
 * CMake package, `pkg-config --variable=hdf5 dart`); elsewhere the header
 * exists so that clients compile, and its function is not in the library.
 */
#ifndef DASH__DART__IF__DART_IO_H_
#define DASH__DART__IF__DART_IO_H_

#include "dart_types.h"
#include "dart_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \defgroup DartIO HDF5 support
 * \brief Parallel HDF5 files over a team (optional).
 * @{
 */

/**
 * \brief Sets up an HDF5 file-access property list for parallel MPI-IO
 *        over the members of a team.
 *
 * Thread safety: MT-none. The interface calls it local, but HDF5
 * duplicates the team's communicator (`MPI_Comm_dup`), which is
 * collective: every member of the team makes this call, as DASH does.
 * The property list and the files opened with it stay usable after the
 * team is destroyed.
 *
 * \param[in] plist_id HDF5 file-access property list to configure.
 * \param[in] teamid   Team whose members will open the file together.
 * \retval DART_OK          Configured.
 * \retval DART_ERR_INVAL   `teamid` is not a team the caller belongs to, or
 *                          `plist_id` (this unit's or another member's) is
 *                          not a file-access property list; then no
 *                          member's list is changed.
 * \retval DART_ERR_OTHER   HDF5 refused the setting.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart__io__hdf5__prep_mpio(
    hid_t plist_id,
    dart_team_t teamid) DART_NOTHROW;

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DASH__DART__IF__DART_IO_H_ */
