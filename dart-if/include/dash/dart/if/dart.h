/**
 * \file dash/dart/if/dart.h
 *
 * \brief Umbrella header of the DART runtime interface.
 *
 * Includes dart_version.h (generated at build time), dart_types.h,
 * dart_config.h, dart_initialization.h, dart_team_group.h,
 * dart_globmem.h, dart_communication.h and dart_synchronization.h.
 * dart_locality.h and dart_io.h are not included here and must be
 * included explicitly by clients that need them.
 */
#ifndef DASH__DART__IF__DART_H_
#define DASH__DART__IF__DART_H_

/**
 * \mainpage DART runtime interface
 *
 * DART is the runtime of a partitioned global address space: a program
 * runs as a set of units (processes), grouped into teams, that allocate
 * global memory together and read, write and update each other's part of
 * it with one-sided calls. Clients include `<dash/dart/if/dart.h>` and,
 * where needed, `<dash/dart/if/dart_locality.h>`.
 *
 * The modules: \ref DartVersion, \ref DartTypes, \ref DartConfig,
 * \ref DartInit, \ref DartTeamGroup, \ref DartGlobMem,
 * \ref DartCommunication, \ref DartSync, \ref DartLocality, \ref DartIO,
 * \ref DartUtil.
 *
 * \section dart_conventions Conventions
 *
 * - Calls return a dart_ret_t: #DART_OK on success, otherwise an error
 *   code listed with each call. An error return also writes one line
 *   to stderr naming the call and the reason, unless the call says
 *   otherwise (dart_config_t switches these lines off). No call throws a
 *   C++ exception.
 * - Output parameters receive their null value (#DART_GPTR_NULL,
 *   #DART_TEAM_NULL, #DART_UNDEFINED_UNIT_ID, NULL) when a call fails after
 *   checking them.
 * - Counts are element counts of the given data type, never bytes.
 * - Before dart_init() and after dart_exit() every call that needs the
 *   runtime returns #DART_ERR_NOTINIT and writes nothing.
 *
 * \section dart_collectives Collective and local calls
 *
 * A call documented as *collective over team T* must be made by every
 * member of T, in the same order relative to the other collective calls
 * on T, with matching arguments where the call says so; it returns on a
 * unit once that unit's part is done, which may mean waiting for the
 * others. A member that fails an argument check returns at once and
 * leaves the others waiting, except in the allocation and registration
 * calls of dart_globmem.h, which fail on every member together. A *local*
 * call involves the calling unit only. A *non-blocking* call may return
 * before its effect is complete; how completion is obtained is stated
 * with the call (dart_flush(), dart_wait(), ...).
 *
 * \section dart_threads Thread safety
 *
 * After dart_init(), or dart_init_thread() granting
 * #DART_THREAD_SINGLE, only one thread of a unit may be inside DART at a
 * time. When dart_init_thread() grants #DART_THREAD_MULTIPLE, every call
 * states one of three classes:
 *
 * - **MT-safe**: threads may make the call concurrently with each other
 *   and with other MT-safe or MT-team calls, as long as they do not act
 *   on the same object (the same handle, lock release or output buffer).
 * - **MT-team**: concurrent calls are allowed as long as no two threads
 *   use the same team at the same time.
 * - **MT-none**: the call must not overlap with any other DART call of
 *   the same unit.
 *
 * Memory reached through a native pointer from dart_gptr_getaddr() is
 * ordinary memory and follows the rules of C.
 */

/**
 * \defgroup DartVersion Version
 * \brief Version of the interface and of the build.
 *
 * The numeric version and #DART_VERSION_STR come from dart_version.h,
 * which the build generates from the project version.
 * @{
 */

#include <dash/dart/if/dart_version.h>

/** \brief Compile date and time of the translation unit that includes
 *         the header (`__DATE__ " " __TIME__`). */
#define DART_BUILD_STR (__DATE__ " " __TIME__)

/** @} */

#include "dart_types.h"
#include "dart_config.h"
#include "dart_initialization.h"
#include "dart_team_group.h"
#include "dart_globmem.h"
#include "dart_communication.h"
#include "dart_synchronization.h"

#endif /* DASH__DART__IF__DART_H_ */
