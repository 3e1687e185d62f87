#include "dart_app.h"

#include <stdio.h>

void dart_app_fail(const char *call, dart_ret_t ret)
{
  fprintf(stderr, "%s failed with %d\n", call, (int)ret);
  dart_abort(DART_EXIT_ABORT);
}

void dart_app_start(int *argc, char ***argv, dart_global_unit_t *me,
                    size_t *units)
{
  CHECK(dart_init(argc, argv));
  CHECK(dart_myid(me));
  CHECK(dart_size(units));
}

int dart_app_stop(int *argc, char ***argv, int code)
{
  fflush(stdout);
  fflush(stderr);
  CHECK(dart_init(argc, argv));
  CHECK(dart_exit());
  return code;
}

void *dart_app_local(dart_gptr_t g, dart_global_unit_t me)
{
  void *local = NULL;
  g.unitid = me.id;
  CHECK(dart_gptr_getaddr(g, &local));
  return local;
}

void dart_app_barrier(void *ctx)
{
  (void)ctx;
  CHECK(dart_barrier(DART_TEAM_ALL));
}
