/* What every DART program in apps/ and benchmarks/ does the same way:
 * start-up, error checks that stop the job, the local address of one's
 * own part of a segment. */
#ifndef DART_APP_H
#define DART_APP_H

#include <dash/dart/if/dart.h>

#include <stddef.h>

/* Reports the failed call and aborts the whole job (never returns). */
void dart_app_fail(const char *call, dart_ret_t ret);

#define CHECK(call)                                                       \
  do {                                                                    \
    dart_ret_t ret_ = (call);                                             \
    if (ret_ != DART_OK) {                                                \
      dart_app_fail(#call, ret_);                                         \
    }                                                                     \
  } while (0)

/* dart_init, then this unit's id and the unit count. */
void dart_app_start(int *argc, char ***argv, dart_global_unit_t *me,
                    size_t *units);

/* For a command line that ends the program before it starts (a bad
 * argument, --help): starts and ends DART on every unit and returns code.
 * mpiexec tears the whole job down as soon as one unit exits with a
 * non-zero code; a unit that did so before unit 0 had written its message
 * took the message with it (unit 1 on another host is the fast one).
 * dart_exit's barrier holds every unit until unit 0 has written it. */
int dart_app_stop(int *argc, char ***argv, int code);

/* Native address of unit me's part of the DART_TEAM_ALL segment g. */
void *dart_app_local(dart_gptr_t g, dart_global_unit_t me);

/* dart_barrier on DART_TEAM_ALL, shaped as a kernel model callback. */
void dart_app_barrier(void *ctx);

#endif
