/* Calls that later work items implement (team locks, locality) must fail
 * loudly until then, never report a silent success. Remove entries as
 * they are implemented. */
#include "test_assert.h"

#include <dash/dart/if/dart_locality.h>

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  TEST_RET(dart_team_locality_init(DART_TEAM_ALL), DART_ERR_OTHER);
  dart_domain_locality_t *domain = NULL;
  TEST_RET(dart_domain_team_locality(DART_TEAM_ALL, ".", &domain),
           DART_ERR_OTHER);
  dart_unit_locality_t *loc = NULL;
  TEST_RET(dart_unit_locality(DART_TEAM_ALL, DART_TEAM_UNIT_ID(0), &loc),
           DART_ERR_OTHER);
  test_report_pass("test_not_implemented");
  TEST_OK(dart_exit());
  return 0;
}
