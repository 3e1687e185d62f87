/**
 * \file dash/dart/if/dart_initialization.h
 *
 * Start-up and shutdown of the DART runtime.
 */
#ifndef DASH__DART__IF__DART_INITIALIZATION_H_
#define DASH__DART__IF__DART_INITIALIZATION_H_

#include <stdbool.h>

#include "dart_types.h"
#include "dart_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over all processes; creates DART_TEAM_ALL. */
dart_ret_t dart_init(int *argc, char ***argv) DART_NOTHROW;

/* As dart_init; *thread_safety receives the thread level provided. */
dart_ret_t dart_init_thread(
  int*                          argc,
  char***                       argv,
  dart_thread_support_level_t * thread_safety) DART_NOTHROW;

/* Collective over DART_TEAM_ALL; releases all runtime resources. */
dart_ret_t dart_exit() DART_NOTHROW;

/* true between successful initialisation and dart_exit. */
bool dart_initialized() DART_NOTHROW;

/* Terminates all units immediately with exit status errorcode. */
void dart_abort(int errorcode) __attribute__((noreturn));

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DASH__DART__IF__DART_INITIALIZATION_H_ */
