/* Team locks misused: every case returns its error code (with a log line,
 * muted here) and leaves the lock usable; nothing hangs or crashes. */
#include "test_stage.h"

int main(int argc, char **argv)
{
  dart_lock_t lock = DART_LOCK_NULL;
  TEST_RET(dart_team_lock_init(DART_TEAM_ALL, &lock), DART_ERR_NOTINIT);
  TEST_ASSERT(lock == DART_LOCK_NULL);
  TEST_OK(dart_init(&argc, &argv));
  int saved = mute_log();
  int32_t got = -1;

  STAGE("DART_LOCK_NULL");
  S_RET(dart_team_lock_init(DART_TEAM_ALL, NULL), DART_ERR_INVAL);
  S_RET(dart_team_lock_init((dart_team_t)12345, &lock), DART_ERR_INVAL);
  TEST_ASSERT(lock == DART_LOCK_NULL);
  S_RET(dart_lock_acquire(DART_LOCK_NULL), DART_ERR_INVAL);
  S_RET(dart_lock_try_acquire(DART_LOCK_NULL, &got), DART_ERR_INVAL);
  TEST_EQ(got, 0);
  S_RET(dart_lock_release(DART_LOCK_NULL), DART_ERR_INVAL);
  TEST_ASSERT(!dart_lock_initialized(DART_LOCK_NULL));
  S_OK(dart_team_lock_destroy(NULL));
  S_OK(dart_team_lock_destroy(&lock));

  STAGE("not held, held twice");
  S_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  S_RET(dart_lock_release(lock), DART_ERR_INVAL);
  S_RET(dart_lock_try_acquire(lock, NULL), DART_ERR_INVAL);
  S_OK(dart_barrier(DART_TEAM_ALL));
  S_OK(dart_lock_acquire(lock));
  S_RET(dart_lock_acquire(lock), DART_ERR_INVAL);
  got = 0;
  S_RET(dart_lock_try_acquire(lock, &got), DART_ERR_INVAL);
  TEST_EQ(got, 1);
  S_OK(dart_lock_release(lock));
  S_RET(dart_lock_release(lock), DART_ERR_INVAL);
  /* Still a working lock after all that. */
  S_OK(dart_lock_acquire(lock));
  S_OK(dart_lock_release(lock));
  S_OK(dart_barrier(DART_TEAM_ALL));

  STAGE("use after destroy");
  dart_lock_t copy = lock;
  S_OK(dart_team_lock_destroy(&lock));
  TEST_ASSERT(lock == DART_LOCK_NULL);
  TEST_ASSERT(!dart_lock_initialized(copy));
  S_RET(dart_lock_acquire(copy), DART_ERR_INVAL);
  S_RET(dart_lock_try_acquire(copy, &got), DART_ERR_INVAL);
  S_RET(dart_lock_release(copy), DART_ERR_INVAL);
  S_RET(dart_team_lock_destroy(&copy), DART_ERR_INVAL);

  restore_log(saved);
  test_report_pass("test_locks_bad_input");
  TEST_OK(dart_exit());
  return 0;
}
