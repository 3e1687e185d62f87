/* The lifecycle table before dart_init and after dart_exit: every public
 * call returns DART_ERR_NOTINIT and writes no memory it was given, also
 * with the handles a program kept from the run (a freed segment, a lock
 * still alive at dart_exit). The calls are listed once, in
 * test_lifecycle_table.h; test_lifecycle_stale.c checks freed and
 * destroyed objects during the run. */
#include "test_lifecycle_table.h"

/* Not initialized (before dart_init, after dart_exit): every call is
 * DART_ERR_NOTINIT and writes nothing. */
static void check_not_initialized(const char *phase, struct args *a)
{
  ASSERT(!dart_initialized());
  for (size_t i = 0; i < NCALLS; ++i) {
    if (calls[i].pure) {
      continue;
    }
    fill(a);
    expect(phase, &calls[i], calls[i].fn(a), DART_ERR_NOTINIT);
    if (!untouched(a)) {
      FAILF("%s: dart_%s wrote a caller's buffer", phase, calls[i].name);
    }
  }
  ASSERT(!dart_lock_initialized(NULL));
}


static void before_and_after(void)
{
  struct args a;
  static char dummy[256];
  plausible_args(&a, dummy);
  char before_dummy[sizeof dummy];
  memcpy(before_dummy, dummy, sizeof dummy);

  check_not_initialized("before dart_init", &a);

  ASSERT_OK(dart_init(&test_argc, &test_argv));
  size_t units = 0;
  ASSERT_OK(dart_size(&units));
  struct args live = a;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 16, DART_TYPE_LONG,
                                       &live.gptr));
  ASSERT_OK(dart_team_memfree(live.gptr));
  dart_global_unit_t me;
  ASSERT_OK(dart_myid(&me));
  /* A lock still alive at dart_exit: the handle a program kept. */
  dart_lock_t open_lock = NULL;
  ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &open_lock));
  ASSERT_OK(dart_exit());
  a.lock = open_lock;

  a.gptr = live.gptr;
  check_not_initialized("after dart_exit", &a);
  ASSERT_MSG(memcmp(before_dummy, dummy, sizeof dummy) == 0,
             "a call wrote through a stale handle");
  if (me.id == 0) {
    printf("test_lifecycle_notinit: %zu calls checked, %zu units passed\n",
           (size_t)NCALLS, units);
  }
}

static const struct test_case cases[] = {
  { "before_and_after", before_and_after },
};

int main(int argc, char **argv)
{
  return test_run(argc, argv, TEST_CASES(cases));
}
