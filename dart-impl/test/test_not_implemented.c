/* Calls that later work items implement (team locks, locality) must fail
 * loudly until then, never report a silent success. Remove entries as
 * they are implemented. */
#include "test_assert.h"

#include <dash/dart/if/dart_locality.h>

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  dart_lock_t lock = DART_LOCK_NULL;
  TEST_RET(dart_team_lock_init(DART_TEAM_ALL, &lock), DART_ERR_OTHER);
  TEST_ASSERT(!dart_lock_initialized(lock));
  TEST_RET(dart_lock_acquire(lock), DART_ERR_OTHER);
  test_report_pass("test_not_implemented");
  TEST_OK(dart_exit());
  return 0;
}
