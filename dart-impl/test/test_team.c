/* Teams (dart-if/include/dash/dart/if/dart_team_group.h): id agreement,
 * unit numbering, translation, nesting, clone, destroy, and collective
 * agreement on bad groups. */
#include "test.h"

static int me, n;

static dart_group_t group_of_range(int first, int last)
{
  dart_group_t g;
  ASSERT_OK(dart_group_create(&g));
  for (int u = last; u >= first; --u) { /* descending on purpose */
    ASSERT_OK(dart_group_addmember(g, DART_GLOBAL_UNIT_ID(u)));
  }
  return g;
}

/* Checks a team of the global units [first, last] from a member's view. */
static void check_team(dart_team_t team, int first, int last)
{
  dart_team_unit_t my;
  size_t size;
  ASSERT_OK(dart_team_myid(team, &my));
  ASSERT_OK(dart_team_size(team, &size));
  ASSERT_EQ(size, last - first + 1);
  ASSERT_EQ(my.id, me - first); /* ascending global order */
  for (int t = 0; t < (int)size; ++t) {
    dart_global_unit_t g;
    ASSERT_OK(dart_team_unit_l2g(team, DART_TEAM_UNIT_ID(t), &g));
    ASSERT_EQ(g.id, first + t);
    dart_team_unit_t back;
    ASSERT_OK(dart_team_unit_g2l(team, g, &back));
    ASSERT_EQ(back.id, t);
  }
  for (int u = 0; u < n; ++u) {
    if (u < first || u > last) {
      dart_team_unit_t none = { 5 };
      ASSERT_OK(dart_team_unit_g2l(team, DART_GLOBAL_UNIT_ID(u), &none));
      ASSERT(none.id < 0);
    }
  }
  dart_group_t g;
  ASSERT_OK(dart_team_get_group(team, &g));
  size_t gsize;
  ASSERT_OK(dart_group_size(g, &gsize));
  ASSERT_EQ(gsize, size);
  dart_global_unit_t members[64];
  ASSERT_OK(dart_group_getmembers(g, members));
  for (int t = 0; t < (int)size; ++t) {
    ASSERT_EQ(members[t].id, first + t);
  }
  ASSERT_OK(dart_group_destroy(&g));
  /* The team's communicator works: the sum of its global ids. */
  long long mine = me, sum = -1;
  ASSERT_OK(dart_allreduce(&mine, &sum, 1, DART_TYPE_LONGLONG, DART_OP_SUM,
                           team));
  ASSERT_EQ(sum, (long long)(first + last) * (last - first + 1) / 2);
  ASSERT_OK(dart_barrier(team));
}

static void create_destroy_ids(void)
{
  int next = 1; /* the id counter every unit should have */

  /* Lower half {0..h-1} then upper half {h..n-1} from DART_TEAM_ALL. */
  int h = (n + 1) / 2;
  dart_group_t lower = group_of_range(0, h - 1);
  dart_group_t upper = group_of_range(h, n - 1);
  dart_team_t t_lower = 77, t_upper = 77;
  ASSERT_OK(dart_team_create(DART_TEAM_ALL, lower, &t_lower));
  ASSERT_OK(dart_team_create(DART_TEAM_ALL, upper, &t_upper));
  ASSERT_EQ(t_lower, me < h ? next : DART_TEAM_NULL);
  next++;
  if (h < n) {
    ASSERT_EQ(t_upper, me >= h ? next : DART_TEAM_NULL);
    next++;
  } else {
    ASSERT_EQ(t_upper, DART_TEAM_NULL); /* empty group: no id consumed */
  }
  if (me < h) {
    check_team(t_lower, 0, h - 1);
  } else {
    check_team(t_upper, h, n - 1);
  }

  /* Nested: the first two units of the lower half, created from it. The
   * id is max(next) over the lower half, which saw both creations. */
  if (me < h) {
    int last = h >= 2 ? 1 : 0;
    dart_group_t pair = group_of_range(0, last);
    dart_team_t t_pair = 77;
    ASSERT_OK(dart_team_create(t_lower, pair, &t_pair));
    ASSERT_EQ(t_pair, me <= last ? next : DART_TEAM_NULL);
    if (me <= last) {
      check_team(t_pair, 0, last);
      ASSERT_OK(dart_team_destroy(&t_pair));
      ASSERT_EQ(t_pair, DART_TEAM_NULL);
    }
    ASSERT_OK(dart_group_destroy(&pair));
  }
  /* Units of the upper half did not take part: their counter is behind,
   * but the next creation from ALL agrees on the maximum again. */
  next++;

  /* A single-unit team of the last unit; non-members pass NULL. */
  dart_group_t single = group_of_range(n - 1, n - 1);
  dart_team_t t_single = 77;
  ASSERT_OK(dart_team_create(DART_TEAM_ALL, me == n - 1 ? single : NULL,
                             &t_single));
  ASSERT_EQ(t_single, me == n - 1 ? next : DART_TEAM_NULL);
  next++;
  if (me == n - 1) {
    check_team(t_single, n - 1, n - 1);
    ASSERT_OK(dart_team_destroy(&t_single));
  }

  /* Clone of ALL: a new id, the same members. */
  dart_team_t t_clone = 77;
  ASSERT_OK(dart_team_clone(DART_TEAM_ALL, &t_clone));
  ASSERT_EQ(t_clone, next);
  next++;
  check_team(t_clone, 0, n - 1);

  /* Ids are never reused: create/destroy churn keeps counting up. */
  dart_group_t all = group_of_range(0, n - 1);
  for (int i = 0; i < 40; ++i) {
    dart_team_t t = 77;
    ASSERT_OK(dart_team_create(t_clone, all, &t));
    ASSERT_EQ(t, next);
    next++;
    ASSERT_OK(dart_barrier(t));
    ASSERT_OK(dart_team_destroy(&t));
    ASSERT_EQ(t, DART_TEAM_NULL);
  }

  /* Groups that differ between units, reach outside the parent, or name
   * a unit that passed none: every unit gets DART_ERR_INVAL, nobody
   * hangs, no id is consumed. */
  if (n >= 2) {
    dart_group_t mine = group_of_range(0, me == 0 ? 0 : 1);
    dart_team_t t = 77;
    ASSERT_RET(dart_team_create(DART_TEAM_ALL, mine, &t), DART_ERR_INVAL);
    ASSERT_EQ(t, DART_TEAM_NULL);
    ASSERT_OK(dart_group_destroy(&mine));
    /* Unit 0 passes no group ("not a member") while the others' group
     * names it: it hung the others in the communicator's creation. */
    dart_group_t pair = group_of_range(0, 1);
    ASSERT_RET(dart_team_create(DART_TEAM_ALL, me == 0 ? NULL : pair, &t),
               DART_ERR_INVAL);
    ASSERT_EQ(t, DART_TEAM_NULL);
    ASSERT_OK(dart_group_destroy(&pair));
    if (me < h && h < n) {
      dart_group_t outside = group_of_range(0, h); /* unit h is not in it */
      ASSERT_RET(dart_team_create(t_lower, outside, &t), DART_ERR_INVAL);
      ASSERT_EQ(t, DART_TEAM_NULL);
      ASSERT_OK(dart_group_destroy(&outside));
    }
  }
  dart_team_t t_after = 77;
  ASSERT_OK(dart_team_create(DART_TEAM_ALL, all, &t_after));
  ASSERT_EQ(t_after, next);
  next++;

  /* An empty group gives DART_TEAM_NULL everywhere. */
  dart_group_t empty;
  ASSERT_OK(dart_group_create(&empty));
  dart_team_t t_empty = 77;
  ASSERT_OK(dart_team_create(DART_TEAM_ALL, empty, &t_empty));
  ASSERT_EQ(t_empty, DART_TEAM_NULL);

  /* Destroy, then the id is unknown. */
  dart_team_t dead = t_clone;
  ASSERT_OK(dart_team_destroy(&t_clone));
  ASSERT_EQ(t_clone, DART_TEAM_NULL);
  dart_team_unit_t u = { 5 };
  ASSERT_RET(dart_team_myid(dead, &u), DART_ERR_INVAL);
  ASSERT_EQ(u.id, DART_UNDEFINED_UNIT_ID);
  ASSERT_RET(dart_team_destroy(&dead), DART_ERR_INVAL);
  ASSERT_RET(dart_barrier(dead), DART_ERR_INVAL);
  dart_team_t null_team = DART_TEAM_NULL;
  ASSERT_OK(dart_team_destroy(&null_team));
  dart_team_t all_team = DART_TEAM_ALL;
  ASSERT_RET(dart_team_destroy(&all_team), DART_ERR_INVAL);
  ASSERT_EQ(all_team, DART_TEAM_ALL);

  /* A team the caller is not in is unknown to it. */
  if (h < n) {
    dart_team_t foreign = me < h ? (dart_team_t)2 : (dart_team_t)1;
    size_t s = 1234;
    ASSERT_RET(dart_team_size(foreign, &s), DART_ERR_INVAL);
    ASSERT_EQ(s, 1234); /* untouched */
  }

  ASSERT_OK(dart_team_destroy(&t_after));
  ASSERT_OK(dart_team_destroy(me < h ? &t_lower : &t_upper));
  dart_group_t *groups[] = { &lower, &upper, &single, &all, &empty };
  for (size_t i = 0; i < sizeof groups / sizeof *groups; ++i) {
    ASSERT_OK(dart_group_destroy(groups[i]));
  }
}

static const struct test_case cases[] = {
  { "create_destroy_ids", create_destroy_ids },
};

static void setup(int *argc, char ***argv)
{
  test_start(argc, argv, &me, &n);
}

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup,
                       test_dart_teardown);
}
