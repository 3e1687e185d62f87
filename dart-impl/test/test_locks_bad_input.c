/* Team locks misused: every case returns its error code (with a log line,
 * muted here) and leaves the lock usable; nothing hangs or crashes. That
 * includes destroying a lock this unit holds, and members destroying
 * different locks in one collective call.
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

  STAGE("destroy while held");
  /* Refused on the holder at once (a unit waiting for the lock could not
   * come to the destroy); the others wait in theirs until it comes again,
   * after its release. */
  dart_global_unit_t my_id;
  size_t units = 0;
  ASSERT_OK(dart_myid(&my_id));
  ASSERT_OK(dart_size(&units));
  dart_lock_t held = DART_LOCK_NULL;
  ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &held));
  if (my_id.id == 0) {
    ASSERT_OK(dart_lock_acquire(held));
    dart_lock_t attempt = held;
    ASSERT_RET(dart_team_lock_destroy(&attempt), DART_ERR_INVAL);
    ASSERT(attempt == held && dart_lock_initialized(held));
    ASSERT_OK(dart_lock_release(held));
  }
  ASSERT_OK(dart_team_lock_destroy(&held));
  ASSERT(held == DART_LOCK_NULL);

  STAGE("members destroy different locks");
  /* Unit 0 names the first, the others the second: every member is
   * refused and both locks still work (a slot freed on some units only
   * would later give one new lock two slots). */
  dart_lock_t first = DART_LOCK_NULL, second = DART_LOCK_NULL;
  ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &first));
  ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &second));
  if (units > 1) {
    dart_lock_t mine = my_id.id == 0 ? first : second;
    ASSERT_RET(dart_team_lock_destroy(&mine), DART_ERR_INVAL);
    ASSERT(mine == (my_id.id == 0 ? first : second));
  }
  for (int k = 0; k < 2; ++k) {
    ASSERT_OK(dart_lock_acquire(k == 0 ? first : second));
    ASSERT_OK(dart_lock_release(k == 0 ? first : second));
  }
  ASSERT_OK(dart_team_lock_destroy(&first));
  ASSERT_OK(dart_team_lock_destroy(&second));
  ASSERT(first == DART_LOCK_NULL && second == DART_LOCK_NULL);

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
