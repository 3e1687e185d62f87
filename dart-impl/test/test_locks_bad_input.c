/* Team locks misused: every case returns its error code (with a log line,
 * muted here) and leaves the lock usable; nothing hangs or crashes.
 * Lifecycle: before dart_init and after dart_exit every lock call returns
 * DART_ERR_NOTINIT, whatever the handle (none, live at exit, of a team
 * destroyed before exit, destroyed). */
#include "test_stage.h"

/* Every lock call on `lock` (and on NULL handles) is DART_ERR_NOTINIT. */
static void all_not_initialized(dart_lock_t lock)
{
  dart_lock_t fresh = (dart_lock_t)&fresh; /* must be overwritten */
  TEST_RET(dart_team_lock_init(DART_TEAM_ALL, &fresh), DART_ERR_NOTINIT);
  TEST_ASSERT(fresh == DART_LOCK_NULL);
  TEST_RET(dart_team_lock_init(DART_TEAM_ALL, NULL), DART_ERR_NOTINIT);
  TEST_RET(dart_lock_acquire(lock), DART_ERR_NOTINIT);
  int32_t got = -1;
  TEST_RET(dart_lock_try_acquire(lock, &got), DART_ERR_NOTINIT);
  TEST_EQ(got, 0);
  TEST_RET(dart_lock_try_acquire(lock, NULL), DART_ERR_NOTINIT);
  TEST_RET(dart_lock_release(lock), DART_ERR_NOTINIT);
  TEST_ASSERT(!dart_lock_initialized(lock));
  TEST_RET(dart_lock_acquire(DART_LOCK_NULL), DART_ERR_NOTINIT);
  TEST_RET(dart_lock_release(DART_LOCK_NULL), DART_ERR_NOTINIT);
  TEST_RET(dart_team_lock_destroy(NULL), DART_ERR_NOTINIT);
  dart_lock_t null_lock = DART_LOCK_NULL;
  TEST_RET(dart_team_lock_destroy(&null_lock), DART_ERR_NOTINIT);
  dart_lock_t copy = lock;
  TEST_RET(dart_team_lock_destroy(&copy), DART_ERR_NOTINIT);
}

int main(int argc, char **argv)
{
  dart_lock_t lock = DART_LOCK_NULL;
  int saved = mute_log();
  all_not_initialized(DART_LOCK_NULL);
  TEST_OK(dart_init(&argc, &argv));
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

  STAGE("team destroyed");
  dart_team_t clone = DART_TEAM_NULL;
  S_OK(dart_team_clone(DART_TEAM_ALL, &clone));
  dart_lock_t orphan = DART_LOCK_NULL, orphan_kept = DART_LOCK_NULL;
  S_OK(dart_team_lock_init(clone, &orphan));
  S_OK(dart_team_lock_init(clone, &orphan_kept));
  S_OK(dart_lock_acquire(orphan));
  S_OK(dart_lock_release(orphan));
  S_OK(dart_barrier(clone));
  S_OK(dart_team_destroy(&clone));
  TEST_ASSERT(!dart_lock_initialized(orphan));
  S_RET(dart_lock_acquire(orphan), DART_ERR_INVAL);
  S_RET(dart_lock_try_acquire(orphan, &got), DART_ERR_INVAL);
  TEST_EQ(got, 0);
  S_RET(dart_lock_release(orphan), DART_ERR_INVAL);
  S_OK(dart_team_lock_destroy(&orphan)); /* local, spec 3.7 */
  TEST_ASSERT(orphan == DART_LOCK_NULL);

  STAGE("after dart_exit");
  dart_lock_t live = DART_LOCK_NULL;
  S_OK(dart_team_lock_init(DART_TEAM_ALL, &live));
  TEST_ASSERT(dart_lock_initialized(live));
  restore_log(saved);
  test_report_pass("test_locks_bad_input");
  TEST_OK(dart_exit());
  saved = mute_log();
  all_not_initialized(live);
  all_not_initialized(orphan_kept);
  all_not_initialized(copy);
  restore_log(saved);
  return 0;
}
