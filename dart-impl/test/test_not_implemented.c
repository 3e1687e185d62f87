/* Calls that later work items implement must fail loudly until then,
 * never report a silent success. Remove entries as they are implemented. */
#include "test_assert.h"

#include <dash/dart/if/dart_locality.h>

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  dart_gptr_t gptr = DART_GPTR_NULL;
  int value = 0;
  TEST_RET(dart_memalloc(1, DART_TYPE_INT, &gptr), DART_ERR_OTHER);
  TEST_RET(dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_INT, &gptr),
           DART_ERR_OTHER);
  TEST_RET(dart_put_blocking(gptr, &value, 1, DART_TYPE_INT, DART_TYPE_INT),
           DART_ERR_OTHER);
  TEST_RET(dart_get_blocking(&value, gptr, 1, DART_TYPE_INT, DART_TYPE_INT),
           DART_ERR_OTHER);
  TEST_RET(dart_flush(gptr), DART_ERR_OTHER);
  TEST_RET(dart_fetch_and_op(gptr, &value, &value, DART_TYPE_INT,
                             DART_OP_SUM), DART_ERR_OTHER);
  dart_lock_t lock = DART_LOCK_NULL;
  TEST_RET(dart_team_lock_init(DART_TEAM_ALL, &lock), DART_ERR_OTHER);
  TEST_ASSERT(!dart_lock_initialized(lock));
  TEST_RET(dart_team_locality_init(DART_TEAM_ALL), DART_ERR_OTHER);
  dart_domain_locality_t *domain = NULL;
  TEST_RET(dart_domain_team_locality(DART_TEAM_ALL, ".", &domain),
           DART_ERR_OTHER);
  test_report_pass("test_not_implemented");
  TEST_OK(dart_exit());
  return 0;
}
