/**
 * \file dash/dart/if/dart_io.h
 *
 * Optional HDF5 support. Requires <hdf5.h> (for hid_t) to be included
 * before this header; only available if DART was built with HDF5.
 */
#ifndef DASH__DART__IF__DART_IO_H_
#define DASH__DART__IF__DART_IO_H_

#include "dart_types.h"
#include "dart_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sets up plist_id for parallel MPI-IO over the members of teamid. */
dart_ret_t dart__io__hdf5__prep_mpio(
    hid_t plist_id,
    dart_team_t teamid) DART_NOTHROW;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DASH__DART__IF__DART_IO_H_ */
