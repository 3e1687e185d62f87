/* Group algebra: ascending order, set operations, split, edge cases. */
#include "test.h"

static dart_group_t make_group(const int *ids, int n)
{
  dart_group_t g;
  ASSERT_OK(dart_group_create(&g));
  for (int i = 0; i < n; ++i) {
    ASSERT_OK(dart_group_addmember(g, DART_GLOBAL_UNIT_ID(ids[i])));
  }
  return g;
}

/* Checks that `g` holds exactly `expected` (ascending). */
static void expect_members(dart_group_t g, const int *expected, int n)
{
  size_t size = 99;
  ASSERT_OK(dart_group_size(g, &size));
  ASSERT_EQ(size, n);
  dart_global_unit_t members[64];
  ASSERT_OK(dart_group_getmembers(g, members));
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(members[i].id, expected[i]);
  }
}

static void group_calls(void)
{
  size_t units;
  ASSERT_OK(dart_size(&units));
  int n = (int)units;

  /* Insertion order does not matter; duplicates are ignored. */
  int all_desc[64] = { 0 };
  for (int i = 0; i < n; ++i) {
    all_desc[i] = n - 1 - i;
  }
  dart_group_t all = make_group(all_desc, n);
  ASSERT_OK(dart_group_addmember(all, DART_GLOBAL_UNIT_ID(0)));
  int all_asc[64] = { 0 };
  for (int i = 0; i < n; ++i) {
    all_asc[i] = i;
  }
  expect_members(all, all_asc, n);

  /* Empty group. */
  dart_group_t empty;
  ASSERT_OK(dart_group_create(&empty));
  expect_members(empty, NULL, 0);

  /* Membership. */
  int32_t is = -1;
  ASSERT_OK(dart_group_ismember(all, DART_GLOBAL_UNIT_ID(n - 1), &is));
  ASSERT_EQ(is, 1);
  ASSERT_OK(dart_group_ismember(empty, DART_GLOBAL_UNIT_ID(0), &is));
  ASSERT_EQ(is, 0);

  /* Even and odd units: union gives all, intersection nothing. */
  int evens[32], odds[32], ne = 0, no = 0;
  for (int i = 0; i < n; ++i) {
    if (i % 2 == 0) {
      evens[ne++] = i;
    } else {
      odds[no++] = i;
    }
  }
  dart_group_t ge = make_group(evens, ne), go = make_group(odds, no);
  dart_group_t gu, gi;
  ASSERT_OK(dart_group_union(go, ge, &gu));
  expect_members(gu, all_asc, n);
  ASSERT_OK(dart_group_intersect(ge, go, &gi));
  expect_members(gi, NULL, 0);
  dart_group_t gi2;
  ASSERT_OK(dart_group_intersect(all, ge, &gi2));
  expect_members(gi2, evens, ne);

  /* Clone is a deep copy. */
  dart_group_t clone;
  ASSERT_OK(dart_group_clone(ge, &clone));
  expect_members(clone, evens, ne);
  ASSERT_OK(dart_group_delmember(clone, DART_GLOBAL_UNIT_ID(0)));
  expect_members(clone, evens + 1, ne - 1);
  expect_members(ge, evens, ne);
  /* Deleting an absent member is no error. */
  ASSERT_OK(dart_group_delmember(clone, DART_GLOBAL_UNIT_ID(0)));
  expect_members(clone, evens + 1, ne - 1);

  /* Delete in the middle keeps order. */
  if (n >= 3) {
    dart_group_t g3;
    ASSERT_OK(dart_group_clone(all, &g3));
    ASSERT_OK(dart_group_delmember(g3, DART_GLOBAL_UNIT_ID(1)));
    int rest[64], k = 0;
    for (int i = 0; i < n; ++i) {
      if (i != 1) {
        rest[k++] = i;
      }
    }
    expect_members(g3, rest, k);
    ASSERT_OK(dart_group_destroy(&g3));
  }

  /* Split into 3: chunks of ceil(n/3), trailing groups may be empty. */
  dart_group_t parts[8];
  size_t nout = 0;
  ASSERT_OK(dart_group_split(all, 3, &nout, parts));
  ASSERT_EQ(nout, 3);
  size_t chunk = (units + 2) / 3, covered = 0;
  for (int p = 0; p < 3; ++p) {
    size_t begin = p * chunk < units ? p * chunk : units;
    size_t end = begin + chunk < units ? begin + chunk : units;
    expect_members(parts[p], all_asc + begin, (int)(end - begin));
    covered += end - begin;
    ASSERT_OK(dart_group_destroy(&parts[p]));
    ASSERT(parts[p] == DART_GROUP_NULL);
  }
  ASSERT_EQ(covered, units);
  /* More parts than members: every member alone, the rest empty. */
  ASSERT_OK(dart_group_split(all, 6, &nout, parts));
  ASSERT_EQ(nout, 6);
  for (int p = 0; p < 6; ++p) {
    size_t size;
    ASSERT_OK(dart_group_size(parts[p], &size));
    ASSERT_EQ(size, p < n ? 1 : 0);
    ASSERT_OK(dart_group_destroy(&parts[p]));
  }

  /* The team's group equals the group of all units. */
  dart_group_t team_group;
  ASSERT_OK(dart_team_get_group(DART_TEAM_ALL, &team_group));
  expect_members(team_group, all_asc, n);

  /* Bad input: error code, outputs nulled, nothing crashes. */
  dart_group_t out = all;
  ASSERT_RET(dart_group_clone(DART_GROUP_NULL, &out), DART_ERR_INVAL);
  ASSERT(out == DART_GROUP_NULL);
  out = all;
  ASSERT_RET(dart_group_union(all, DART_GROUP_NULL, &out), DART_ERR_INVAL);
  ASSERT(out == DART_GROUP_NULL);
  ASSERT_RET(dart_group_intersect(DART_GROUP_NULL, all, &out), DART_ERR_INVAL);
  ASSERT_RET(dart_group_addmember(DART_GROUP_NULL, DART_GLOBAL_UNIT_ID(0)),
             DART_ERR_INVAL);
  ASSERT_RET(dart_group_addmember(all, DART_GLOBAL_UNIT_ID(n)), DART_ERR_INVAL);
  ASSERT_RET(dart_group_addmember(all, DART_GLOBAL_UNIT_ID(-1)),
             DART_ERR_INVAL);
  expect_members(all, all_asc, n);
  ASSERT_RET(dart_group_delmember(DART_GROUP_NULL, DART_GLOBAL_UNIT_ID(0)),
             DART_ERR_INVAL);
  is = 7;
  ASSERT_RET(dart_group_ismember(DART_GROUP_NULL, DART_GLOBAL_UNIT_ID(0), &is),
             DART_ERR_INVAL);
  ASSERT_EQ(is, 0);
  ASSERT_RET(dart_group_ismember(all, DART_GLOBAL_UNIT_ID(0), NULL),
             DART_ERR_INVAL);
  size_t size;
  ASSERT_RET(dart_group_size(DART_GROUP_NULL, &size), DART_ERR_INVAL);
  ASSERT_RET(dart_group_size(all, NULL), DART_ERR_INVAL);
  ASSERT_RET(dart_group_getmembers(DART_GROUP_NULL, NULL), DART_ERR_INVAL);
  ASSERT_RET(dart_group_getmembers(all, NULL), DART_ERR_INVAL);
  ASSERT_OK(dart_group_getmembers(empty, NULL)); /* nothing to write */
  ASSERT_RET(dart_group_split(all, 0, &nout, parts), DART_ERR_INVAL);
  ASSERT_RET(dart_group_split(DART_GROUP_NULL, 2, &nout, parts),
             DART_ERR_INVAL);
  ASSERT_RET(dart_group_split(all, 2, NULL, parts), DART_ERR_INVAL);
  ASSERT_RET(dart_group_create(NULL), DART_ERR_INVAL);
  ASSERT_RET(dart_group_destroy(NULL), DART_ERR_INVAL);
  ASSERT_RET(dart_team_get_group(DART_TEAM_NULL, &out), DART_ERR_INVAL);
  ASSERT(out == DART_GROUP_NULL);
  ASSERT_RET(dart_team_get_group(DART_TEAM_ALL, NULL), DART_ERR_INVAL);
  /* Destroying a NULL group is a no-op. */
  dart_group_t nothing = DART_GROUP_NULL;
  ASSERT_OK(dart_group_destroy(&nothing));

  dart_group_t *to_free[] = { &all, &empty, &ge, &go, &gu, &gi, &gi2,
                              &clone, &team_group };
  for (size_t i = 0; i < sizeof to_free / sizeof *to_free; ++i) {
    ASSERT_OK(dart_group_destroy(to_free[i]));
    ASSERT(*to_free[i] == DART_GROUP_NULL);
  }
}

static const struct test_case cases[] = {
  { "group_calls", group_calls },
};

int main(int argc, char **argv)
{
  return test_run_dart(argc, argv, TEST_CASES(cases));
}
