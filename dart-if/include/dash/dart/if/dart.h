/**
 * \file dash/dart/if/dart.h
 *
 * Umbrella header of the DART runtime interface.
 *
 * Note: dart_locality.h and dart_io.h are not included here and must be
 * included explicitly by clients that need them.
 */
#ifndef DASH__DART__IF__DART_H_
#define DASH__DART__IF__DART_H_

#define DART_VERSION_STR "3.2.0"

/* Compile date and time of the including translation unit. */
#define DART_BUILD_STR (__DATE__ " " __TIME__)

#include "dart_types.h"
#include "dart_config.h"
#include "dart_initialization.h"
#include "dart_team_group.h"
#include "dart_globmem.h"
#include "dart_communication.h"
#include "dart_synchronization.h"

#endif /* DASH__DART__IF__DART_H_ */
