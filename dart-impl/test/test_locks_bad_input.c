/* Team locks misused: every case returns its error code (with a log line,
 * muted here) and leaves the lock usable; nothing hangs or crashes.
 * Lifecycle: before dart_init and after dart_exit every lock call returns
 * DART_ERR_NOTINIT, whatever the handle (none, live at exit, of a team
 * destroyed before exit, destroyed). */
#include "test.h"

/* Every lock call on `lock` (and on NULL handles) is DART_ERR_NOTINIT. */
static void all_not_initialized(dart_lock_t lock)
{
  dart_lock_t fresh = (dart_lock_t)&fresh; /* must be overwritten */
  ASSERT_RET(dart_team_lock_init(DART_TEAM_ALL, &fresh), DART_ERR_NOTINIT);
  ASSERT(fresh == DART_LOCK_NULL);
  ASSERT_RET(dart_team_lock_init(DART_TEAM_ALL, NULL), DART_ERR_NOTINIT);
  ASSERT_RET(dart_lock_acquire(lock), DART_ERR_NOTINIT);
  int32_t got = -1;
  ASSERT_RET(dart_lock_try_acquire(lock, &got), DART_ERR_NOTINIT);
  ASSERT_EQ(got, 0);
  ASSERT_RET(dart_lock_try_acquire(lock, NULL), DART_ERR_NOTINIT);
  ASSERT_RET(dart_lock_release(lock), DART_ERR_NOTINIT);
  ASSERT(!dart_lock_initialized(lock));
  ASSERT_RET(dart_lock_acquire(DART_LOCK_NULL), DART_ERR_NOTINIT);
  ASSERT_RET(dart_lock_release(DART_LOCK_NULL), DART_ERR_NOTINIT);
  ASSERT_RET(dart_team_lock_destroy(NULL), DART_ERR_NOTINIT);
  dart_lock_t null_lock = DART_LOCK_NULL;
  ASSERT_RET(dart_team_lock_destroy(&null_lock), DART_ERR_NOTINIT);
  dart_lock_t copy = lock;
  ASSERT_RET(dart_team_lock_destroy(&copy), DART_ERR_NOTINIT);
}

static void misuse(void)
{
  dart_lock_t lock = DART_LOCK_NULL;
  int saved = mute_log();
  all_not_initialized(DART_LOCK_NULL);
  ASSERT_OK(dart_init(&test_argc, &test_argv));
  int32_t got = -1;

  STAGE("DART_LOCK_NULL");
  ASSERT_RET(dart_team_lock_init(DART_TEAM_ALL, NULL), DART_ERR_INVAL);
  ASSERT_RET(dart_team_lock_init((dart_team_t)12345, &lock), DART_ERR_INVAL);
  ASSERT(lock == DART_LOCK_NULL);
  ASSERT_RET(dart_lock_acquire(DART_LOCK_NULL), DART_ERR_INVAL);
  ASSERT_RET(dart_lock_try_acquire(DART_LOCK_NULL, &got), DART_ERR_INVAL);
  ASSERT_EQ(got, 0);
  ASSERT_RET(dart_lock_release(DART_LOCK_NULL), DART_ERR_INVAL);
  ASSERT(!dart_lock_initialized(DART_LOCK_NULL));
  ASSERT_OK(dart_team_lock_destroy(NULL));
  ASSERT_OK(dart_team_lock_destroy(&lock));

  STAGE("not held, held twice");
  ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  ASSERT_RET(dart_lock_release(lock), DART_ERR_INVAL);
  ASSERT_RET(dart_lock_try_acquire(lock, NULL), DART_ERR_INVAL);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_lock_acquire(lock));
  ASSERT_RET(dart_lock_acquire(lock), DART_ERR_INVAL);
  got = 0;
  ASSERT_RET(dart_lock_try_acquire(lock, &got), DART_ERR_INVAL);
  ASSERT_EQ(got, 1);
  ASSERT_OK(dart_lock_release(lock));
  ASSERT_RET(dart_lock_release(lock), DART_ERR_INVAL);
  /* Still a working lock after all that. */
  ASSERT_OK(dart_lock_acquire(lock));
  ASSERT_OK(dart_lock_release(lock));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  STAGE("use after destroy");
  dart_lock_t copy = lock;
  ASSERT_OK(dart_team_lock_destroy(&lock));
  ASSERT(lock == DART_LOCK_NULL);
  ASSERT(!dart_lock_initialized(copy));
  ASSERT_RET(dart_lock_acquire(copy), DART_ERR_INVAL);
  ASSERT_RET(dart_lock_try_acquire(copy, &got), DART_ERR_INVAL);
  ASSERT_RET(dart_lock_release(copy), DART_ERR_INVAL);
  ASSERT_RET(dart_team_lock_destroy(&copy), DART_ERR_INVAL);

  STAGE("team destroyed");
  dart_team_t clone = DART_TEAM_NULL;
  ASSERT_OK(dart_team_clone(DART_TEAM_ALL, &clone));
  dart_lock_t orphan = DART_LOCK_NULL, orphan_kept = DART_LOCK_NULL;
  ASSERT_OK(dart_team_lock_init(clone, &orphan));
  ASSERT_OK(dart_team_lock_init(clone, &orphan_kept));
  ASSERT_OK(dart_lock_acquire(orphan));
  ASSERT_OK(dart_lock_release(orphan));
  ASSERT_OK(dart_barrier(clone));
  ASSERT_OK(dart_team_destroy(&clone));
  ASSERT(!dart_lock_initialized(orphan));
  ASSERT_RET(dart_lock_acquire(orphan), DART_ERR_INVAL);
  ASSERT_RET(dart_lock_try_acquire(orphan, &got), DART_ERR_INVAL);
  ASSERT_EQ(got, 0);
  ASSERT_RET(dart_lock_release(orphan), DART_ERR_INVAL);
  /* Local (dart_team_lock_destroy in dart_synchronization.h). */
  ASSERT_OK(dart_team_lock_destroy(&orphan));
  ASSERT(orphan == DART_LOCK_NULL);

  STAGE("after dart_exit");
  dart_lock_t live = DART_LOCK_NULL;
  ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &live));
  ASSERT(dart_lock_initialized(live));
  restore_log(saved);
  ASSERT_OK(dart_exit());
  saved = mute_log();
  all_not_initialized(live);
  all_not_initialized(orphan_kept);
  all_not_initialized(copy);
  restore_log(saved);
}

static const struct test_case cases[] = {
  { "misuse", misuse },
};

int main(int argc, char **argv)
{
  return test_run(argc, argv, TEST_CASES(cases));
}
