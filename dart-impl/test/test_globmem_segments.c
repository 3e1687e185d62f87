/* Global pointers and the life cycle of segments (dart-if/include/dash/
 * dart/if/dart_globmem.h; docs/design.md, "Global memory and segments"):
 * dart_gptr_setaddr/getaddr and the flags of a segment; segment ids
 * (distinct while live, reused least recently freed first, for
 * allocations and registrations alike, no leak under churn); and freeing:
 * the errors of dart_team_memfree/memderegister, kinds that do not mix,
 * double frees; registrations of 0 elements at any address. Shared part:
 * test_globmem_common.h. */
#include "test_globmem_common.h"

/* ---------------------------------------------------------------------
 * Addresses and flags.
 * --------------------------------------------------------------------- */

static void test_addr_and_flags(void)
{
  STAGE("setaddr/getaddr round trip");
  size_t count = 16 + (size_t)me;
  dart_gptr_t g;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, count, DART_TYPE_LONG,
                                       &g));
  dart_gptr_t mine = gptr_at(g, me, 0);
  char *base = local_addr(mine);
  ASSERT(base != NULL);
  const size_t offsets[] = { 0, 3, count - 1 };
  for (size_t i = 0; i < sizeof offsets / sizeof *offsets; ++i) {
    size_t off = offsets[i] * sizeof(long);
    dart_gptr_t h = mine;
    h.addr_or_offs.offset = 12345;
    ASSERT_OK(dart_gptr_setaddr(&h, base + off));
    ASSERT_EQ(h.addr_or_offs.offset, off);
    ASSERT_EQ(h.unitid, me);
    ASSERT_EQ(h.segid, g.segid);
    ASSERT_EQ(h.teamid, g.teamid);
    ASSERT(local_addr(h) == base + off);
  }
  /* setaddr leaves the unit alone: the caller points it. */
  dart_gptr_t other = gptr_at(g, (me + 1) % n, 0);
  ASSERT_OK(dart_gptr_setaddr(&other, base + 2 * sizeof(long)));
  ASSERT_EQ(other.unitid, (me + 1) % n);
  ASSERT_EQ(other.addr_or_offs.offset, 2 * sizeof(long));

  STAGE("setaddr/getaddr errors");
  int saved = mute_log();
  long on_stack = 0;
  dart_gptr_t h = mine;
  ASSERT_RET(dart_gptr_setaddr(&h, base - 8), DART_ERR_INVAL);
  ASSERT_RET(dart_gptr_setaddr(&h, base + (count + 1) * sizeof(long)),
             DART_ERR_INVAL);
  ASSERT_RET(dart_gptr_setaddr(&h, &on_stack), DART_ERR_INVAL);
  ASSERT_RET(dart_gptr_setaddr(NULL, base), DART_ERR_INVAL);
  dart_gptr_t bad = mine;
  bad.segid = 999;
  ASSERT_RET(dart_gptr_setaddr(&bad, base), DART_ERR_INVAL);
  bad = mine;
  bad.teamid = 77;
  ASSERT_RET(dart_gptr_setaddr(&bad, base), DART_ERR_INVAL);
  ASSERT_RET(dart_gptr_getaddr(mine, NULL), DART_ERR_INVAL);
  void *p = &p;
  ASSERT_RET(dart_gptr_getaddr(DART_GPTR_NULL, &p), DART_ERR_INVAL);
  ASSERT(p == NULL);
  p = &p;
  bad = mine;
  bad.segid = 999;
  ASSERT_RET(dart_gptr_getaddr(bad, &p), DART_ERR_INVAL);
  ASSERT(p == NULL);
  p = &p;
  bad = mine;
  bad.teamid = 77;
  ASSERT_RET(dart_gptr_getaddr(bad, &p), DART_ERR_INVAL);
  ASSERT(p == NULL);
  restore_log(saved);

  STAGE("getflags/setflags");
  uint16_t flags = 0xffff;
  ASSERT_OK(dart_gptr_getflags(g, &flags));
  ASSERT_EQ(flags, 0);
  h = mine;
  ASSERT_OK(dart_gptr_setflags(&h, 0x1a5));
  ASSERT_EQ(h.flags, 0xa5);
  ASSERT_EQ(h.unitid, me);
  ASSERT_EQ(h.segid, g.segid);
  ASSERT_EQ(h.addr_or_offs.offset, 0);
  ASSERT(DART_GPTR_EQUAL(h, mine)); /* flags are ignored */
  flags = 0;
  ASSERT_OK(dart_gptr_getflags(h, &flags));
  ASSERT_EQ(flags, 0x1a5);
  flags = 0;
  ASSERT_OK(dart_gptr_getflags(g, &flags)); /* the segment's, not the gptr's */
  ASSERT_EQ(flags, 0x1a5);
  ASSERT_OK(dart_gptr_setflags(&h, 0x7f00));
  ASSERT_EQ(h.flags, 0);
  ASSERT_OK(dart_gptr_getflags(g, &flags));
  ASSERT_EQ(flags, 0x7f00);
  ASSERT_OK(dart_gptr_setflags(&h, 0));
  ASSERT_OK(dart_gptr_getflags(g, &flags));
  ASSERT_EQ(flags, 0);
  /* The flags ride along in transfers of the gptr but change nothing. */
  ASSERT_OK(dart_gptr_setflags(&h, 0xff));
  long value = 4242 + me, back = 0;
  ASSERT_OK(dart_put_blocking(h, &value, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  ASSERT_OK(dart_get_blocking(&back, mine, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  ASSERT_EQ(back, 4242 + me);
  ASSERT_OK(dart_gptr_setflags(&h, 0));

  saved = mute_log();
  bad = mine;
  bad.segid = 999;
  flags = 0x5c5c;
  ASSERT(dart_gptr_getflags(bad, &flags) != DART_OK);
  ASSERT_EQ(flags, 0);
  flags = 0x5c5c;
  ASSERT(dart_gptr_getflags(DART_GPTR_NULL, &flags) != DART_OK);
  ASSERT_EQ(flags, 0);
  ASSERT_RET(dart_gptr_setflags(&bad, 1), DART_ERR_INVAL);
  bad = mine;
  bad.teamid = 77;
  ASSERT_RET(dart_gptr_setflags(&bad, 1), DART_ERR_INVAL);
  ASSERT_RET(dart_gptr_setflags(NULL, 1), DART_ERR_INVAL);
  ASSERT_RET(dart_gptr_getflags(mine, NULL), DART_ERR_INVAL);
  restore_log(saved);

  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(g));
}

/* ---------------------------------------------------------------------
 * Segment ids.
 * --------------------------------------------------------------------- */

/* On a fresh team (a copy of DART_TEAM_ALL), so the free-id history is
 * known: live ids differ, and freed ids come back oldest free first
 * (counted in allocations), the smallest among those freed between the
 * same two allocations, whatever order they were freed in: for
 * allocations and registrations alike (segment.h). */
static void test_segment_id_reuse(void)
{
  STAGE("segment ids on a fresh team");
  dart_group_t group = DART_GROUP_NULL;
  ASSERT_OK(dart_group_create(&group));
  for (int u = 0; u < n; ++u) {
    ASSERT_OK(dart_group_addmember(group, DART_GLOBAL_UNIT_ID(u)));
  }
  dart_team_t team = DART_TEAM_NULL;
  ASSERT_OK(dart_team_create(DART_TEAM_ALL, group, &team));
  ASSERT_OK(dart_group_destroy(&group));
  ASSERT(team != DART_TEAM_NULL && team != DART_TEAM_ALL);

  dart_gptr_t a = alloc_bytes(team, 8), b = alloc_bytes(team, 16),
              c = alloc_bytes(team, 24);
  check_fresh(a, team, false);
  check_fresh(b, team, false);
  check_fresh(c, team, false);
  ASSERT(a.segid != b.segid && b.segid != c.segid &&
         a.segid != c.segid);

  ASSERT_OK(dart_barrier(team));
  /* Freed in opposite orders on even and odd units. */
  dart_team_unit_t tme;
  ASSERT_OK(dart_team_myid(team, &tme));
  ASSERT_OK(dart_team_memfree(tme.id % 2 ? a : c));
  ASSERT_OK(dart_team_memfree(tme.id % 2 ? c : a));
  dart_gptr_t x = alloc_bytes(team, 32), y = alloc_bytes(team, 8);
  STAGE("segment ids: freed %d and %d, got %d then %d", (int)c.segid,
        (int)a.segid, (int)x.segid, (int)y.segid);
  ASSERT_EQ(x.segid, a.segid < c.segid ? a.segid : c.segid);
  ASSERT_EQ(y.segid, a.segid < c.segid ? c.segid : a.segid);
  check_same_everywhere(team, n, x);
  check_same_everywhere(team, n, y);
  dart_gptr_t z = alloc_bytes(team, 8);
  ASSERT(z.segid > 0 && z.segid != b.segid && z.segid != x.segid &&
         z.segid != y.segid);
  check_same_everywhere(team, n, z);

  STAGE("registered segment ids on a fresh team");
  long buf1[4], buf2[4], buf3[4];
  dart_gptr_t r1, r2, r3, r4;
  ASSERT_OK(dart_team_memregister(team, 4, DART_TYPE_LONG, buf1, &r1));
  ASSERT_OK(dart_team_memregister(team, 4, DART_TYPE_LONG, buf2, &r2));
  ASSERT_OK(dart_team_memregister(team, 4, DART_TYPE_LONG, buf3, &r3));
  check_fresh(r1, team, true);
  check_fresh(r2, team, true);
  check_fresh(r3, team, true);
  ASSERT(r1.segid != r2.segid && r2.segid != r3.segid &&
         r1.segid != r3.segid);
  ASSERT_OK(dart_barrier(team));
  /* r2 freed an allocation earlier than r1: it comes back first even
   * though its id is not the smallest. */
  ASSERT_OK(dart_team_memderegister(r2));
  int16_t first_freed = r2.segid, second_freed = r1.segid;
  dart_gptr_t between = alloc_bytes(team, 8);
  ASSERT_OK(dart_team_memderegister(r1));
  ASSERT_OK(dart_team_memregister(team, 4, DART_TYPE_LONG, buf2, &r4));
  ASSERT_OK(dart_team_memregister(team, 4, DART_TYPE_LONG, buf1, &r1));
  ASSERT_OK(dart_team_memfree(between));
  STAGE("registered ids: freed %d then %d, got %d then %d",
        (int)first_freed, (int)second_freed, (int)r4.segid, (int)r1.segid);
  ASSERT_EQ(r4.segid, first_freed);
  ASSERT_EQ(r1.segid, second_freed);
  check_same_everywhere(team, n, r1);

  ASSERT_OK(dart_barrier(team));
  ASSERT_OK(dart_team_memderegister(r1));
  ASSERT_OK(dart_team_memderegister(r3));
  ASSERT_OK(dart_team_memderegister(r4));
  ASSERT_OK(dart_team_memfree(b));
  ASSERT_OK(dart_team_memfree(x));
  ASSERT_OK(dart_team_memfree(y));
  ASSERT_OK(dart_team_memfree(z));
  ASSERT_OK(dart_team_destroy(&team));
}

#define CHURN_LIVE 4

/* Allocation and free churn with several segments live at once: every
 * call succeeds, live ids stay distinct, ids do not leak (they stay
 * small), and now and then the newest segment carries data correctly.
 * With more units than cores an allocation costs MPICH some 100 ms, so
 * the long churn runs where units have a core each. */
static void test_segment_churn(void)
{
  const int cycles = n <= 2 ? 300 : 16;
  dart_gptr_t live[CHURN_LIVE];
  for (int s = 0; s < CHURN_LIVE; ++s) {
    live[s] = DART_GPTR_NULL;
  }
  for (int cycle = 0; cycle < cycles; ++cycle) {
    int slot = cycle % CHURN_LIVE;
    STAGE("churn cycle %d", cycle);
    ASSERT_OK(dart_team_memfree(live[slot])); /* DART_GPTR_NULL at first */
    size_t count = (size_t)((cycle * 7 + me * 3) % 50);
    ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, count, DART_TYPE_INT,
                                         &live[slot]));
    dart_gptr_t g = live[slot];
    check_fresh(g, DART_TEAM_ALL, false);
    if (g.segid > 16) {
      FAILF("segment id %d with at most %d segments live: "
            "freed ids are not reused", (int)g.segid, CHURN_LIVE);
    }
    for (int s = 0; s < CHURN_LIVE; ++s) {
      if (s != slot && !gptr_is_null(live[s]) && live[s].segid == g.segid) {
        FAILF("segment id %d is live twice", (int)g.segid);
      }
    }
    if (cycle % 37 == 5 || cycle == cycles - 1) {
      int *base = local_addr(gptr_at(g, me, 0));
      fill(DART_TYPE_INT, base, 0, count, key(me, cycle % 60));
      ASSERT_OK(dart_barrier(DART_TEAM_ALL));
      int peer = (me + 1) % n;
      size_t peer_count = (size_t)((cycle * 7 + peer * 3) % 50);
      int got[50];
      ASSERT_OK(dart_get_blocking(got, gptr_at(g, peer, 0), peer_count,
                                  DART_TYPE_INT, DART_TYPE_INT));
      check_fill(DART_TYPE_INT, got, 0, peer_count, 0,
                 key(peer, cycle % 60));
      ASSERT_OK(dart_barrier(DART_TEAM_ALL));
    }
  }
  for (int s = 0; s < CHURN_LIVE; ++s) {
    ASSERT_OK(dart_team_memfree(live[s]));
  }
}

/* ---------------------------------------------------------------------
 * Freeing errors (every unit makes the same call).
 * --------------------------------------------------------------------- */

static void test_free_errors(void)
{
  STAGE("memfree errors");
  ASSERT_OK(dart_team_memfree(DART_GPTR_NULL));
  ASSERT_OK(dart_team_memderegister(DART_GPTR_NULL));
  dart_gptr_t g = alloc_bytes(DART_TEAM_ALL, 64);
  long reg_buf[2] = { 0, 0 };
  dart_gptr_t r;
  ASSERT_OK(dart_team_memregister(DART_TEAM_ALL, 2, DART_TYPE_LONG, reg_buf,
                                  &r));
  dart_gptr_t pool;
  ASSERT_OK(dart_memalloc(4, DART_TYPE_LONG, &pool));

  int saved = mute_log();
  dart_gptr_t bad = g;
  bad.segid = 999;
  ASSERT_RET(dart_team_memfree(bad), DART_ERR_INVAL);
  bad = g;
  bad.teamid = 77;
  ASSERT_RET(dart_team_memfree(bad), DART_ERR_INVAL);
  bad = g;
  bad.teamid = DART_TEAM_NULL;
  ASSERT_RET(dart_team_memfree(bad), DART_ERR_INVAL);
  /* Kinds do not mix: a registration is not freed, an allocation not
   * deregistered, the local pool is neither. */
  ASSERT_RET(dart_team_memfree(r), DART_ERR_INVAL);
  ASSERT_RET(dart_team_memderegister(g), DART_ERR_INVAL);
  ASSERT_RET(dart_team_memfree(pool), DART_ERR_INVAL);
  ASSERT_RET(dart_team_memderegister(pool), DART_ERR_INVAL);
  bad = r;
  bad.segid = -999;
  ASSERT_RET(dart_team_memderegister(bad), DART_ERR_INVAL);
  restore_log(saved);

  /* The segments and the pool block survived the failed calls. */
  long one = 11 + me, back = 0;
  ASSERT_OK(dart_put_blocking(pool, &one, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  ASSERT_OK(dart_get_blocking(&back, pool, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  ASSERT_EQ(back, 11 + me);
  ASSERT_OK(dart_put_blocking(gptr_at(g, me, 8), &one, 1, DART_TYPE_LONG,
                              DART_TYPE_LONG));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(g));
  ASSERT_OK(dart_team_memderegister(r));
  ASSERT_OK(dart_memfree(pool));

  saved = mute_log();
  STAGE("double free and deregistration");
  ASSERT_RET(dart_team_memfree(g), DART_ERR_INVAL);
  ASSERT_RET(dart_team_memderegister(r), DART_ERR_INVAL);
  restore_log(saved);
}

/* ---------------------------------------------------------------------
 * Empty portions: a registration of 0 elements may name any address, a
 * null one, one inside a buffer, one mapped nowhere; the others' portions
 * work, and nothing of the empty one can be reached.
 * --------------------------------------------------------------------- */

static void test_empty_registrations(void)
{
  long buf[2] = { 0, 0 };
  void *const nowhere[] = { NULL, (char *)buf + 3, (void *)(uintptr_t)0x13 };
  for (size_t k = 0; k < sizeof nowhere / sizeof nowhere[0]; ++k) {
    STAGE("unit 0 registers 0 elements at %p", nowhere[k]);
    bool empty = me == 0;
    buf[0] = 100 * (long)k + me;
    buf[1] = -1;
    dart_gptr_t g = DART_GPTR_NULL;
    ASSERT_OK(dart_team_memregister(DART_TEAM_ALL, empty ? 0 : 2,
                                    DART_TYPE_LONG,
                                    empty ? nowhere[k] : (void *)buf, &g));
    for (int u = 1; u < n; ++u) {
      long v = -7;
      ASSERT_OK(dart_get_blocking(&v, gptr_at(g, u, 0), 1, DART_TYPE_LONG,
                                  DART_TYPE_LONG));
      ASSERT_EQ(v, 100 * (long)k + u);
    }
    int saved = mute_log();
    long v = -7;
    ASSERT_RET(dart_get_blocking(&v, gptr_at(g, 0, 0), 1, DART_TYPE_LONG,
                                 DART_TYPE_LONG), DART_ERR_INVAL);
    restore_log(saved);
    ASSERT_EQ(v, -7);
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
    ASSERT_OK(dart_team_memderegister(g));
  }
}

static const struct test_case cases[] = {
  { "addr_and_flags", test_addr_and_flags },
  { "empty_registrations", test_empty_registrations },
  { "segment_id_reuse", test_segment_id_reuse },
  { "segment_churn", test_segment_churn },
  { "free_errors", test_free_errors },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
