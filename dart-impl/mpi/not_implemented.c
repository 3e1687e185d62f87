/* API calls that later work items implement (global memory and one-sided
 * communication, team locks, locality). Until then each one fails loudly
 * with DART_ERR_OTHER; none of them ever reports a silent success. When a
 * call is implemented, delete it here and from test_not_implemented.c. */
#include "runtime.h"

#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_locality.h>

#pragma GCC diagnostic ignored "-Wunused-parameter"

static dart_ret_t not_implemented(const char *call)
{
  return report_error(DART_ERR_OTHER, call,
                      "not implemented yet in this runtime");
}

#define NOT_IMPLEMENTED return not_implemented(__func__)



/* --- team locks (dart_synchronization.h) --- */
dart_ret_t dart_team_lock_init(dart_team_t teamid, dart_lock_t *lock)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_team_lock_destroy(dart_lock_t *lock)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_lock_acquire(dart_lock_t lock)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_lock_try_acquire(dart_lock_t lock, int32_t *result)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_lock_release(dart_lock_t lock)
{ NOT_IMPLEMENTED; }
bool dart_lock_initialized(struct dart_lock_struct const *lock)
{
  /* No lock can exist yet, so none is backed by live memory. */
  return false;
}
