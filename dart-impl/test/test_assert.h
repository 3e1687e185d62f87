/* Assertions for the C test programs: every failure names file, line and
 * unit, then takes the whole job down so no unit hangs in a collective. */
#ifndef DART_TEST_ASSERT_H
#define DART_TEST_ASSERT_H

#include <dash/dart/if/dart.h>

#include <stdio.h>
#include <stdlib.h>

static inline int test_unit(void)
{
  dart_global_unit_t me;
  if (dart_initialized() && dart_myid(&me) == DART_OK) {
    return me.id;
  }
  return -1;
}

__attribute__((noreturn)) static inline void
test_fail(const char *file, int line, const char *what, long long actual,
          long long expected, int show_values)
{
  if (show_values) {
    fprintf(stderr, "FAIL %s:%d unit %d: %s (got %lld, expected %lld)\n",
            file, line, test_unit(), what, actual, expected);
  } else {
    fprintf(stderr, "FAIL %s:%d unit %d: %s\n", file, line, test_unit(),
            what);
  }
  fflush(stderr);
  dart_abort(1);
}

/* One line from unit 0 once every check has passed (call before exit). */
static inline void test_report_pass(const char *name)
{
  size_t units = 0;
  if (test_unit() == 0 && dart_size(&units) == DART_OK) {
    printf("%s: %zu units passed\n", name, units);
    fflush(stdout);
  }
}

#define TEST_ASSERT(cond)                                                  \
  do {                                                                     \
    if (!(cond)) {                                                         \
      test_fail(__FILE__, __LINE__, #cond, 0, 0, 0);                       \
    }                                                                      \
  } while (0)

#define TEST_EQ(actual, expected)                                          \
  do {                                                                     \
    long long test_a_ = (long long)(actual);                               \
    long long test_e_ = (long long)(expected);                             \
    if (test_a_ != test_e_) {                                              \
      test_fail(__FILE__, __LINE__, #actual " == " #expected, test_a_,     \
                test_e_, 1);                                               \
    }                                                                      \
  } while (0)

#define TEST_RET(call, code) TEST_EQ(call, code)
#define TEST_OK(call) TEST_EQ(call, DART_OK)

/* dart_init, then this unit's global id and the number of units: the
 * opening of every MPI test program. */
static inline void test_start(int *argc, char ***argv, int *me, int *n)
{
  TEST_OK(dart_init(argc, argv));
  dart_global_unit_t id;
  size_t size;
  TEST_OK(dart_myid(&id));
  TEST_OK(dart_size(&size));
  *me = id.id;
  *n = (int)size;
}

/* The tests' usual sub-team: the odd units and the last one ({0}, {1},
 * {1, 2}, {1, 3} at 1-4 units), so it leaves unit 0 out where it can and
 * team ids differ from global ids. */
static inline bool test_subteam_member(int unit, int n)
{
  return unit % 2 == 1 || unit == n - 1;
}

/* My team-relative id in `team` and the team's size. */
static inline void test_team_position(dart_team_t team, int *me, int *n)
{
  dart_team_unit_t my;
  size_t size;
  TEST_OK(dart_team_myid(team, &my));
  TEST_OK(dart_team_size(team, &size));
  *me = my.id;
  *n = (int)size;
}

/* Collective over DART_TEAM_ALL (n units): creates that sub-team;
 * DART_TEAM_NULL on non-members. */
static inline dart_team_t test_subteam_create(int n)
{
  dart_group_t group = DART_GROUP_NULL;
  TEST_OK(dart_group_create(&group));
  for (int u = 0; u < n; ++u) {
    if (test_subteam_member(u, n)) {
      TEST_OK(dart_group_addmember(group, DART_GLOBAL_UNIT_ID(u)));
    }
  }
  dart_team_t sub = DART_TEAM_NULL;
  TEST_OK(dart_team_create(DART_TEAM_ALL, group, &sub));
  TEST_OK(dart_group_destroy(&group));
  return sub;
}

/* `g` moved to team unit `unit` of its team, at byte `offset`. */
static inline dart_gptr_t gptr_at(dart_gptr_t g, int unit, uint64_t offset)
{
  TEST_OK(dart_gptr_setunit(&g, DART_TEAM_UNIT_ID(unit)));
  g.addr_or_offs.offset = offset;
  return g;
}

#endif
