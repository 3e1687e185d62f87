/* Global memory (dart-if/include/dash/dart/if/dart_globmem.h; docs/
 * design.md, "Global memory and segments"): collective allocation with
 * different sizes per unit (0 included) for every basic type, the global
 * pointers it returns, local addresses, flags, segment ids (distinct while
 * live, reused least recently freed first, no leak under churn),
 * sub-team segments, registration of user memory, the non-collective
 * local pool (dart_memalloc) and the pool allocator (dart_allocator_*),
 * and the argument errors of every call.
 *
 * Values depend on the owning unit and the element index, so data read
 * from the wrong portion, the wrong offset or a stale segment shows up.
 * Errors are provoked by every unit alike (collective calls stay
 * matched); the runtime's log is muted for them. */
#include "test.h"
#include "test_values.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, n;            /* global id and size */
static dart_team_t sub = DART_TEAM_NULL; /* odd units and the last one */
static int sub_me = -1, sub_n = 0;
static dart_datatype_t strided_type = DART_TYPE_UNDEFINED;
static dart_datatype_t custom_type = DART_TYPE_UNDEFINED; /* 12 bytes */

#define NBASIC 11
static const dart_datatype_t basic[NBASIC] = {
  DART_TYPE_BYTE,     DART_TYPE_SHORT,     DART_TYPE_INT,
  DART_TYPE_UINT,     DART_TYPE_LONG,      DART_TYPE_ULONG,
  DART_TYPE_LONGLONG, DART_TYPE_ULONGLONG, DART_TYPE_FLOAT,
  DART_TYPE_DOUBLE,   DART_TYPE_LONG_DOUBLE
};

static size_t tsize(dart_datatype_t t) { return basic_size(t); }

static const char *tname(dart_datatype_t t)
{
  const char *name = basic_name(t);
  return name != NULL ? name : "other";
}

/* A distinct key per (unit, purpose). */
static int key(int unit, int purpose) { return 1 + unit * 64 + purpose; }

static void fill(dart_datatype_t t, void *buf, size_t from, size_t count,
                 int k)
{
  for (size_t i = from; i < from + count; ++i) {
    put_val(t, buf, i, basic_pattern(t, k, i));
  }
}

/* Elements [from, from + count) of buf hold pattern k, element i of buf
 * being element i + shift of the pattern. */
#define check_fill(...) check_fill_at(__FILE__, __LINE__, __VA_ARGS__)
static void check_fill_at(const char *file, int line, dart_datatype_t t,
                          const void *buf,
                       size_t from, size_t count, size_t shift, int k)
{
  for (size_t i = from; i < from + count; ++i) {
    long double got = get_val(t, buf, i);
    long double want = basic_pattern(t, k, i + shift);
    if (got != want) {
      test_failf(file, line,
                 "%s element %zu: got %.21Lg, expected %.21Lg (key %d)",
                 tname(t), i, got, want, k);
    }
  }
}

#define local_addr(...) local_addr_at(__FILE__, __LINE__, __VA_ARGS__)
static void *local_addr_at(const char *file, int line, dart_gptr_t g)
{
  void *p = (void *)&p;
  dart_ret_t ret = dart_gptr_getaddr(g, &p);
  if (ret != DART_OK) {
    test_failf(file, line, "dart_gptr_getaddr returned %d", (int)ret);
  }
  return p;
}

static bool gptr_is_null(dart_gptr_t g)
{
  dart_gptr_t null = DART_GPTR_NULL;
  return DART_GPTR_ISNULL(g) && memcmp(&g, &null, sizeof g) == 0;
}

static void junk_gptr(dart_gptr_t *g)
{
  memset(g, POISON, sizeof *g);
}

/* The fields every fresh collective/registered gptr has. */
#define check_fresh(...) check_fresh_at(__FILE__, __LINE__, __VA_ARGS__)
static void check_fresh_at(const char *file, int line, dart_gptr_t g,
                           dart_team_t team,
                        bool registered)
{
  if (g.unitid != 0 || g.flags != 0 || g.teamid != team ||
      g.addr_or_offs.offset != 0 ||
      (registered ? g.segid >= 0 : g.segid <= 0)) {
    test_failf(file, line, "fresh gptr {unit %d, flags %u, segid %d, team %d, "
               "offset %llu}: expected unit 0, flags 0, %s segid, team %d, "
               "offset 0", (int)g.unitid, (unsigned)g.flags, (int)g.segid,
               (int)g.teamid,
               (unsigned long long)g.addr_or_offs.offset,
               registered ? "negative" : "positive", (int)team);
  }
}

/* The gptr is bytewise the same on every member of the team. */
#define check_same_everywhere(...) check_same_everywhere_at(__FILE__, __LINE__, __VA_ARGS__)
static void check_same_everywhere_at(const char *file, int line,
                                     dart_team_t team, int size,
                                  dart_gptr_t g)
{
  dart_gptr_t *all = xmalloc((size_t)size * sizeof *all);
  memset(all, POISON, (size_t)size * sizeof *all);
  ASSERT_OK(dart_allgather(&g, all, sizeof g, DART_TYPE_BYTE, team));
  for (int u = 0; u < size; ++u) {
    if (memcmp(&all[u], &g, sizeof g) != 0) {
      test_failf(file, line, "team unit %d holds a different gptr (segid %d, "
                 "team %d) than mine (segid %d, team %d)", u,
                 (int)all[u].segid, (int)all[u].teamid, (int)g.segid,
                 (int)g.teamid);
    }
  }
  free(all);
}

/* ---------------------------------------------------------------------
 * Collective allocation: every basic type, per-unit sizes with zeros.
 * --------------------------------------------------------------------- */

static size_t alloc_nelem(int u, int ti)
{
  return (u + ti) % 3 == 0 ? 0 : (size_t)(u + 1) * 7 + (size_t)ti;
}

static void test_alloc_types(void)
{
  for (int ti = 0; ti < NBASIC; ++ti) {
    dart_datatype_t t = basic[ti];
    size_t es = tsize(t), mine_n = alloc_nelem(me, ti);
    STAGE("memalloc_aligned %s, %zu elements here", tname(t), mine_n);
    dart_gptr_t g;
    junk_gptr(&g);
    ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, mine_n, t, &g));
    check_fresh(g, DART_TEAM_ALL, false);
    check_same_everywhere(DART_TEAM_ALL, n, g);

    /* My portion: a local address; anybody else's: NULL and DART_OK. */
    char *base = local_addr(gptr_at(g, me, 0));
    if (mine_n > 0) {
      ASSERT(base != NULL);
    }
    if (base != NULL) {
      ASSERT_EQ((uintptr_t)base % 8, 0);
      for (size_t i = 1; i < mine_n; i += 3) {
        ASSERT(local_addr(gptr_at(g, me, i * es)) ==
               base + i * es);
      }
    }
    for (int v = 0; v < n; ++v) {
      if (v != me) {
        ASSERT(local_addr(gptr_at(g, v, 0)) == NULL);
        ASSERT(local_addr(gptr_at(g, v, es)) == NULL);
      }
    }
    fill(t, base, 0, mine_n, key(me, ti));
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));

    /* Everybody's portion, through get (whole, and from the middle). */
    for (int v = 0; v < n; ++v) {
      size_t nv = alloc_nelem(v, ti);
      if (nv == 0) {
        continue;
      }
      STAGE("memalloc_aligned %s: read unit %d's %zu elements", tname(t),
            v, nv);
      unsigned char *buf = xmalloc(nv * es);
      memset(buf, POISON, nv * es);
      ASSERT_OK(dart_get_blocking(buf, gptr_at(g, v, 0), nv, t, t));
      check_fill(t, buf, 0, nv, 0, key(v, ti));
      size_t half = nv / 2;
      memset(buf, POISON, nv * es);
      ASSERT_OK(dart_get_blocking(buf, gptr_at(g, v, half * es), nv - half, t,
                                  t));
      check_fill(t, buf, 0, nv - half, half, key(v, ti));
      ASSERT_POISON(buf, (nv - half) * es, half * es);
      free(buf);
    }
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
    ASSERT_OK(dart_team_memfree(g));
  }

  /* Every portion empty. */
  STAGE("memalloc_aligned with 0 elements everywhere");
  dart_gptr_t g;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 0, DART_TYPE_INT, &g));
  check_fresh(g, DART_TEAM_ALL, false);
  check_same_everywhere(DART_TEAM_ALL, n, g);
  for (int v = 0; v < n; ++v) {
    void *p = local_addr(gptr_at(g, v, 0));
    if (v != me) {
      ASSERT(p == NULL);
    }
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(g));
}

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

static dart_gptr_t alloc_bytes(dart_team_t team, size_t bytes)
{
  dart_gptr_t g;
  ASSERT_OK(dart_team_memalloc_aligned(team, bytes, DART_TYPE_BYTE, &g));
  return g;
}

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
 * Sub-team segments.
 * --------------------------------------------------------------------- */

static void test_subteam(void)
{
  STAGE("sub-team allocation");
  dart_gptr_t g = DART_GPTR_NULL;
  int root = n == 1 ? 0 : 1; /* the sub-team's unit 0 */
  if (sub != DART_TEAM_NULL) {
    size_t count = sub_me == 1 ? 0 : (size_t)sub_me * 3 + 2;
    ASSERT_OK(dart_team_memalloc_aligned(sub, count, DART_TYPE_LONGLONG, &g));
    check_fresh(g, sub, false);
    check_same_everywhere(sub, sub_n, g);
    long long *base = local_addr(gptr_at(g, sub_me, 0));
    if (count > 0) {
      ASSERT(base != NULL);
    }
    for (int v = 0; v < sub_n; ++v) {
      if (v != sub_me) {
        ASSERT(local_addr(gptr_at(g, v, 0)) == NULL);
      }
    }
    /* Values keyed by the global id: team-relative addressing that
     * mixed up team and global ids would read the wrong pattern. */
    fill(DART_TYPE_LONGLONG, base, 0, count, key(me, 20));
    ASSERT_OK(dart_barrier(sub));
    for (int v = 0; v < sub_n; ++v) {
      size_t cv = v == 1 ? 0 : (size_t)v * 3 + 2;
      dart_global_unit_t gv;
      ASSERT_OK(dart_team_unit_l2g(sub, DART_TEAM_UNIT_ID(v), &gv));
      long long got[32];
      memset(got, POISON, sizeof got);
      ASSERT_OK(dart_get_blocking(got, gptr_at(g, v, 0), cv, DART_TYPE_LONGLONG,
                                  DART_TYPE_LONGLONG));
      check_fill(DART_TYPE_LONGLONG, got, 0, cv, 0, key(gv.id, 20));
      ASSERT_POISON(got, cv * sizeof(long long),
                    sizeof got - cv * sizeof(long long));
    }
    int saved = mute_log();
    long long x;
    ASSERT_RET(dart_get_blocking(&x, gptr_at(g, sub_n, 0), 1,
                                 DART_TYPE_LONGLONG,
                                 DART_TYPE_LONGLONG), DART_ERR_INVAL);
    restore_log(saved);
    ASSERT_OK(dart_barrier(sub));
  }
  /* Non-members know nothing of the sub-team's segments. */
  ASSERT_OK(dart_bcast(&g, sizeof g, DART_TYPE_BYTE, DART_TEAM_UNIT_ID(root),
                       DART_TEAM_ALL));
  ASSERT(g.segid > 0);
  if (sub == DART_TEAM_NULL) {
    STAGE("sub-team segment seen from a non-member");
    int saved = mute_log();
    void *p = &p;
    ASSERT_RET(dart_gptr_getaddr(gptr_at(g, 0, 0), &p), DART_ERR_INVAL);
    ASSERT(p == NULL);
    long long x = 0;
    ASSERT_RET(dart_get_blocking(&x, gptr_at(g, 0, 0), 1, DART_TYPE_LONGLONG,
                                 DART_TYPE_LONGLONG), DART_ERR_INVAL);
    ASSERT_RET(dart_put_blocking(gptr_at(g, 0, 0), &x, 1, DART_TYPE_LONGLONG,
                                 DART_TYPE_LONGLONG), DART_ERR_INVAL);
    ASSERT_RET(dart_team_memfree(g), DART_ERR_INVAL);
    ASSERT_RET(dart_team_memalloc_aligned(g.teamid, 4, DART_TYPE_INT, &g),
               DART_ERR_INVAL);
    ASSERT(gptr_is_null(g));
    restore_log(saved);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  if (sub != DART_TEAM_NULL) {
    ASSERT_OK(dart_team_memfree(g));
  }
}

/* ---------------------------------------------------------------------
 * Registration of user memory.
 * --------------------------------------------------------------------- */

static size_t reg_nelem(int u) { return u % 3 == 0 ? 0 : 10 + 3 * (size_t)u; }

static void test_register(void)
{
  STAGE("memregister, %zu elements here", reg_nelem(me));
  size_t count = reg_nelem(me);
  long *buf = count > 0 ? xmalloc(count * sizeof(long)) : NULL;
  fill(DART_TYPE_LONG, buf, 0, count, key(me, 30));
  dart_gptr_t r;
  junk_gptr(&r);
  ASSERT_OK(dart_team_memregister(DART_TEAM_ALL, count, DART_TYPE_LONG, buf,
                                  &r));
  check_fresh(r, DART_TEAM_ALL, true);
  check_same_everywhere(DART_TEAM_ALL, n, r);
  if (count > 0) {
    ASSERT(local_addr(gptr_at(r, me, 0)) == buf);
    ASSERT(local_addr(gptr_at(r, me, 2 * sizeof(long))) ==
           buf + 2);
  }
  for (int v = 0; v < n; ++v) {
    if (v != me) {
      ASSERT(local_addr(gptr_at(r, v, 0)) == NULL);
    }
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  /* Get every registered portion. */
  for (int v = 0; v < n; ++v) {
    size_t cv = reg_nelem(v);
    long got[64];
    memset(got, POISON, sizeof got);
    ASSERT_OK(dart_get_blocking(got, gptr_at(r, v, 0), cv, DART_TYPE_LONG,
                                DART_TYPE_LONG));
    check_fill(DART_TYPE_LONG, got, 0, cv, 0, key(v, 30));
    ASSERT_POISON(got, cv * sizeof(long),
                  sizeof got - cv * sizeof(long));
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  /* Put into the next unit's portion: each portion has one writer. */
  STAGE("memregister: put into the next unit's buffer");
  int next = (me + 1) % n, prev = (me + n - 1) % n;
  long src[64];
  fill(DART_TYPE_LONG, src, 0, reg_nelem(next), key(me, 31));
  ASSERT_OK(dart_put_blocking(gptr_at(r, next, 0), src, reg_nelem(next),
                              DART_TYPE_LONG, DART_TYPE_LONG));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  check_fill(DART_TYPE_LONG, buf, 0, count, 0, key(prev, 31));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  /* The _aligned variant, equal sizes. */
  STAGE("memregister_aligned");
  double abuf[8];
  fill(DART_TYPE_DOUBLE, abuf, 0, 8, key(me, 32));
  dart_gptr_t ra;
  ASSERT_OK(dart_team_memregister_aligned(DART_TEAM_ALL, 8, DART_TYPE_DOUBLE,
                                          abuf,
                                          &ra));
  check_fresh(ra, DART_TEAM_ALL, true);
  ASSERT(ra.segid != r.segid);
  check_same_everywhere(DART_TEAM_ALL, n, ra);
  ASSERT(local_addr(gptr_at(ra, me, 0)) == abuf);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  double dgot[8];
  ASSERT_OK(dart_get_blocking(dgot, gptr_at(ra, next, 0), 8, DART_TYPE_DOUBLE,
                              DART_TYPE_DOUBLE));
  check_fill(DART_TYPE_DOUBLE, dgot, 0, 8, 0, key(next, 32));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  /* Deregistered: every access is refused and the memory stays ours. */
  STAGE("access after deregistration");
  ASSERT_OK(dart_team_memderegister(r));
  ASSERT_OK(dart_team_memderegister(ra));
  if (count > 0) {
    memset(buf, POISON, count * sizeof(long));
  }
  memset(abuf, POISON, sizeof abuf);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  int saved = mute_log();
  long junk[64];
  memset(junk, 0, sizeof junk);
  for (int v = 0; v < n; ++v) {
    if (reg_nelem(v) > 0) {
      ASSERT_RET(dart_put_blocking(gptr_at(r, v, 0), junk, 1, DART_TYPE_LONG,
                                   DART_TYPE_LONG), DART_ERR_INVAL);
    }
    ASSERT_RET(dart_put_blocking(gptr_at(ra, v, 0), junk, 1, DART_TYPE_DOUBLE,
                                 DART_TYPE_DOUBLE), DART_ERR_INVAL);
    ASSERT_RET(dart_put(gptr_at(ra, v, 0), junk, 1, DART_TYPE_DOUBLE,
                        DART_TYPE_DOUBLE), DART_ERR_INVAL);
    memset(junk, POISON, sizeof junk);
    ASSERT_RET(dart_get_blocking(junk, gptr_at(ra, v, 0), 1, DART_TYPE_DOUBLE,
                                 DART_TYPE_DOUBLE), DART_ERR_INVAL);
    ASSERT_POISON(junk, 0, sizeof junk);
    memset(junk, 0, sizeof junk);
  }
  void *p = &p;
  ASSERT_RET(dart_gptr_getaddr(gptr_at(ra, me, 0), &p), DART_ERR_INVAL);
  ASSERT(p == NULL);
  ASSERT_RET(dart_team_memderegister(ra), DART_ERR_INVAL);
  restore_log(saved);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_POISON(abuf, 0, sizeof abuf);
  if (count > 0) {
    ASSERT_POISON(buf, 0, count * sizeof(long));
  }
  free(buf);

  STAGE("memregister errors");
  saved = mute_log();
  dart_gptr_t g;
  ASSERT_RET(dart_team_memregister(DART_TEAM_ALL, 4, strided_type, abuf, &g),
             DART_ERR_INVAL);
  ASSERT(gptr_is_null(g));
  ASSERT_RET(dart_team_memregister_aligned(DART_TEAM_ALL, 1, custom_type, abuf,
                                           &g), DART_ERR_INVAL);
  ASSERT_RET(dart_team_memregister(DART_TEAM_ALL, 4, DART_TYPE_UNDEFINED, abuf,
                                   &g), DART_ERR_INVAL);
  ASSERT_RET(dart_team_memregister(DART_TEAM_ALL, 4, DART_TYPE_INT, NULL, &g),
             DART_ERR_INVAL);
  ASSERT_RET(dart_team_memregister(DART_TEAM_ALL, 4, DART_TYPE_INT, abuf, NULL),
             DART_ERR_INVAL);
  ASSERT_RET(dart_team_memregister(77, 4, DART_TYPE_INT, abuf, &g),
             DART_ERR_INVAL);
  ASSERT(gptr_is_null(g));
  ASSERT_RET(dart_team_memregister_aligned(DART_TEAM_NULL, 4, DART_TYPE_INT,
                                           abuf,
                                           &g), DART_ERR_INVAL);
  restore_log(saved);
}

/* ---------------------------------------------------------------------
 * The local pool: dart_memalloc / dart_memfree.
 * --------------------------------------------------------------------- */

static size_t pow2_at_least(size_t bytes)
{
  size_t p = 8;
  while (p < bytes) {
    p <<= 1;
  }
  return p;
}

#define check_pool_gptr(...) check_pool_gptr_at(__FILE__, __LINE__, __VA_ARGS__)
static void check_pool_gptr_at(const char *file, int line, dart_gptr_t g)
{
  if (g.unitid != me || g.segid != DART_SEGMENT_LOCAL ||
      g.teamid != DART_TEAM_ALL || g.flags != 0 ||
      g.addr_or_offs.offset % 8 != 0) {
    test_failf(file, line,
               "memalloc gptr {unit %d, flags %u, segid %d, team %d, "
               "offset %llu}", (int)g.unitid, (unsigned)g.flags,
               (int)g.segid, (int)g.teamid,
               (unsigned long long)g.addr_or_offs.offset);
  }
}

#define POOL_BLOCKS 6

static void test_memalloc(void)
{
  /* Even units allocate; everybody uses the blocks. */
  bool owner = me % 2 == 0;
  static const struct {
    size_t nelem;
    int    type; /* index into basic[], or -1 for the custom type */
  } spec[POOL_BLOCKS] = { { 1, 0 }, { 3, 1 }, { 1, 6 }, { 100, 2 },
                          { 1000, 9 }, { 5, -1 } };
  dart_gptr_t blocks[POOL_BLOCKS];
  size_t bytes[POOL_BLOCKS];
  STAGE("memalloc");
  for (int b = 0; b < POOL_BLOCKS; ++b) {
    dart_datatype_t t = spec[b].type < 0 ? custom_type : basic[spec[b].type];
    bytes[b] = spec[b].nelem * (spec[b].type < 0 ? 12 : tsize(t));
    blocks[b] = DART_GPTR_NULL;
    if (owner) {
      junk_gptr(&blocks[b]);
      ASSERT_OK(dart_memalloc(spec[b].nelem, t, &blocks[b]));
      check_pool_gptr(blocks[b]);
    }
  }
  if (owner) {
    char *pool_base = local_addr(gptr_at(blocks[0], me, 0));
    ASSERT(pool_base != NULL);
    for (int b = 0; b < POOL_BLOCKS; ++b) {
      uint64_t ob = blocks[b].addr_or_offs.offset;
      char *p = local_addr(blocks[b]);
      ASSERT(p == pool_base + ob);
      ASSERT_EQ((uintptr_t)p % 8, 0);
      for (int c = 0; c < b; ++c) {
        uint64_t oc = blocks[c].addr_or_offs.offset;
        if (ob < oc + pow2_at_least(bytes[c]) &&
            oc < ob + pow2_at_least(bytes[b])) {
          FAILF("blocks %d (offset %llu, %zu bytes) and %d "
                "(offset %llu, %zu bytes) overlap", c,
                (unsigned long long)oc, bytes[c], b,
                (unsigned long long)ob, bytes[b]);
        }
      }
    }
    /* Contents written locally: INT block pattern, LONGLONG counter. */
    fill(DART_TYPE_INT, local_addr(blocks[3]), 0, 100,
         key(me, 40));
    *(long long *)local_addr(blocks[2]) = 1000 + me;
    double *d = local_addr(blocks[4]);
    memset(d, POISON, 1000 * sizeof(double));
  }

  /* Share the gptrs of the INT, LONGLONG and DOUBLE blocks. */
  dart_gptr_t mine3[3] = { blocks[3], blocks[2], blocks[4] };
  dart_gptr_t *all = xmalloc((size_t)n * sizeof mine3);
  ASSERT_OK(dart_allgather(mine3, all, sizeof mine3, DART_TYPE_BYTE,
                           DART_TEAM_ALL));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int v = 0; v < n; ++v) {
    dart_gptr_t ints = all[3 * v], counter = all[3 * v + 1],
                dbls = all[3 * v + 2];
    if (v % 2 != 0) {
      ASSERT(gptr_is_null(ints));
      continue;
    }
    STAGE("memalloc: unit %d's blocks from unit %d", v, me);
    ASSERT_EQ(ints.unitid, v);
    ASSERT_EQ(ints.segid, 0);
    ASSERT_EQ(ints.teamid, DART_TEAM_ALL);
    if (v != me) {
      ASSERT(local_addr(ints) == NULL);
    }
    int got[100];
    memset(got, POISON, sizeof got);
    ASSERT_OK(dart_get_blocking(got, ints, 100, DART_TYPE_INT, DART_TYPE_INT));
    check_fill(DART_TYPE_INT, got, 0, 100, 0, key(v, 40));
    /* Ten doubles per writer, each region written by one unit. */
    double mine10[10];
    fill(DART_TYPE_DOUBLE, mine10, 0, 10, key(me, 41 + v % 8));
    dart_gptr_t region = dbls;
    ASSERT_OK(dart_gptr_incaddr(&region, (int64_t)(me * 10 * sizeof(double))));
    ASSERT_OK(dart_put(region, mine10, 10, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
    long long add = me + 1;
    ASSERT_OK(dart_accumulate(counter, &add, 1, DART_TYPE_LONGLONG,
                              DART_OP_SUM));
    ASSERT_OK(dart_flush(region));
    ASSERT_OK(dart_flush(counter));
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  if (owner) {
    STAGE("memalloc: what the others wrote into unit %d's blocks", me);
    double *d = local_addr(blocks[4]);
    for (int w = 0; w < n; ++w) {
      check_fill(DART_TYPE_DOUBLE, d + 10 * w, 0, 10, 0,
                 key(w, 41 + me % 8));
    }
    ASSERT_POISON(d, 10 * (size_t)n * sizeof(double),
                  (1000 - 10 * (size_t)n) * sizeof(double));
    ASSERT_EQ(*(long long *)local_addr(blocks[2]),
              1000 + me + (long long)n * (n + 1) / 2);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  STAGE("memfree errors");
  int saved = mute_log();
  int foreign = (me + 2) % n;
  if (foreign != me && foreign % 2 == 0) {
    ASSERT_RET(dart_memfree(all[3 * foreign]), DART_ERR_INVAL);
  }
  ASSERT_RET(dart_memfree(DART_GPTR_NULL), DART_ERR_INVAL);
  dart_gptr_t coll = alloc_bytes(DART_TEAM_ALL, 16);
  ASSERT_RET(dart_memfree(coll), DART_ERR_INVAL);
  dart_gptr_t fake = coll;
  fake.segid = 0;
  fake.teamid = 3;
  ASSERT_RET(dart_memfree(fake), DART_ERR_INVAL);
  fake = coll;
  fake.segid = 0;
  fake.unitid = me;
  fake.addr_or_offs.offset = 1u << 30; /* far past the pool */
  ASSERT_RET(dart_memfree(fake), DART_ERR_INVAL);
  if (owner) {
    dart_gptr_t inner = blocks[4];
    inner.addr_or_offs.offset += 8;
    ASSERT_RET(dart_memfree(inner), DART_ERR_INVAL);
  }
  ASSERT_RET(dart_memalloc(4, DART_TYPE_INT, NULL), DART_ERR_INVAL);
  dart_gptr_t g;
  junk_gptr(&g);
  ASSERT_RET(dart_memalloc(4, strided_type, &g), DART_ERR_INVAL);
  ASSERT(gptr_is_null(g));
  ASSERT_RET(dart_memalloc(4, DART_TYPE_UNDEFINED, &g), DART_ERR_INVAL);
  ASSERT_RET(dart_memalloc(4, DART_TYPE_LAST, &g), DART_ERR_INVAL);
  restore_log(saved);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(coll));

  /* Zero elements: a minimal block or DART_GPTR_NULL, both fine. */
  ASSERT_OK(dart_memalloc(0, DART_TYPE_INT, &g));
  if (!gptr_is_null(g)) {
    check_pool_gptr(g);
    ASSERT_OK(dart_memfree(g));
  }

  if (owner) {
    STAGE("memfree by the owner, then double free");
    for (int b = 0; b < POOL_BLOCKS; ++b) {
      ASSERT_OK(dart_memfree(blocks[b]));
    }
    saved = mute_log();
    for (int b = 0; b < POOL_BLOCKS; ++b) {
      ASSERT_RET(dart_memfree(blocks[b]), DART_ERR_INVAL);
    }
    restore_log(saved);
  }
  free(all);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* ctest runs this program with a 1 MiB initial pool and a 64 MiB
 * reservation, so growth and its limit are reached quickly. */
enum { POOL_MIB = 1, POOL_MAX_MIB = 64 };

static void require_pool_env(void)
{
  const char *initial = getenv("DART_LOCAL_POOL_MIB");
  const char *max = getenv("DART_LOCAL_POOL_MAX_MIB");
  if (initial == NULL || max == NULL || atoi(initial) != POOL_MIB ||
      atoi(max) != POOL_MAX_MIB) {
    FAILF("run with DART_LOCAL_POOL_MIB=%d and "
          "DART_LOCAL_POOL_MAX_MIB=%d", POOL_MIB, POOL_MAX_MIB);
  }
}

/* Growth: 1 MiB blocks fill chunks of 1, 1, 2, 4, 8, 16 and 32 MiB, the
 * whole reservation, before the pool reports DART_ERR_NOMEM; every block
 * is reachable by node peers and by RMA like the first one. */
static void test_local_pool_growth(void)
{
  require_pool_env();
  STAGE("local pool growth");
  enum { BLOCKS = POOL_MAX_MIB / POOL_MIB };
  const size_t mib = (size_t)1 << 20;
  dart_gptr_t blocks[BLOCKS + 1];
  int taken = 0;
  dart_ret_t ret = DART_OK;
  int saved = mute_log();
  while (taken <= BLOCKS) {
    junk_gptr(&blocks[taken]);
    ret = dart_memalloc(mib, DART_TYPE_BYTE, &blocks[taken]);
    if (ret != DART_OK) {
      break;
    }
    check_pool_gptr(blocks[taken]);
    char *p = local_addr(blocks[taken]);
    p[0] = (char)(me + taken);
    p[mib - 1] = (char)(me - taken);
    ++taken;
  }
  restore_log(saved);
  ASSERT_EQ(ret, DART_ERR_NOMEM);
  ASSERT_EQ(taken, BLOCKS);
  ASSERT(gptr_is_null(blocks[BLOCKS]));

  STAGE("local pool growth: the next unit's blocks");
  dart_gptr_t *all = xmalloc((size_t)n * BLOCKS * sizeof *all);
  ASSERT_OK(dart_allgather(blocks, all, BLOCKS * sizeof *all, DART_TYPE_BYTE,
                           DART_TEAM_ALL));
  int next = (me + 1) % n, prev = (me + n - 1) % n;
  dart_gptr_t *theirs = all + (size_t)next * BLOCKS;
  for (int b = 0; b < BLOCKS; ++b) {
    dart_gptr_t last = theirs[b];
    last.addr_or_offs.offset += mib - 1;
    char first_byte = 0, last_byte = 0;
    ASSERT_OK(dart_get_blocking(&first_byte, theirs[b], 1, DART_TYPE_BYTE,
                                DART_TYPE_BYTE));
    ASSERT_OK(dart_get_blocking(&last_byte, last, 1, DART_TYPE_BYTE,
                                DART_TYPE_BYTE));
    ASSERT_EQ(first_byte, (char)(next + b));
    ASSERT_EQ(last_byte, (char)(next - b));
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  int marks[BLOCKS]; /* dart_put may read them until the flush */
  for (int b = 0; b < BLOCKS; ++b) {
    dart_gptr_t middle = theirs[b];
    middle.addr_or_offs.offset += mib / 2;
    marks[b] = 1000 * me + b;
    ASSERT_OK(dart_put(middle, &marks[b], 1, DART_TYPE_INT, DART_TYPE_INT));
  }
  ASSERT_OK(dart_flush_all(theirs[0]));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int b = 0; b < BLOCKS; ++b) {
    char *p = local_addr(blocks[b]);
    int mark;
    memcpy(&mark, p + mib / 2, sizeof mark);
    ASSERT_EQ(mark, 1000 * prev + b);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  free(all);

  STAGE("local pool growth: freed space is reused, the limit holds");
  for (int b = 0; b < BLOCKS; ++b) {
    ASSERT_OK(dart_memfree(blocks[b]));
  }
  dart_gptr_t g;
  saved = mute_log();
  junk_gptr(&g);
  ASSERT_RET(dart_memalloc((size_t)1 << 40, DART_TYPE_BYTE, &g),
             DART_ERR_NOMEM);
  ASSERT(gptr_is_null(g));
  /* 48 MiB rounds up to a 64 MiB block: no chunk holds one, and a new
   * chunk of 64 MiB would run past the reservation. */
  ASSERT_RET(dart_memalloc(48 * mib, DART_TYPE_BYTE, &g), DART_ERR_NOMEM);
  restore_log(saved);
  ASSERT_OK(dart_memalloc(32 * mib, DART_TYPE_BYTE, &g));
  check_pool_gptr(g);
  ASSERT_EQ(g.addr_or_offs.offset, 32 * mib);
  ASSERT_OK(dart_memfree(g));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* ---------------------------------------------------------------------
 * The pool allocator: dart_allocator_*.
 * --------------------------------------------------------------------- */

static void test_allocator_on(dart_team_t team, int tme, int tn,
                              const char *label)
{
  STAGE("%s: allocator_new", label);
  dart_allocator_t a = (dart_allocator_t)&a;
  ASSERT_OK(dart_allocator_new(1000, team, &a)); /* rounds up to 1024 */
  ASSERT(a != NULL);

  dart_gptr_t b1, b2;
  ASSERT_OK(dart_allocator_alloc(3, DART_TYPE_LONG, &b1, a));
  ASSERT_OK(dart_allocator_alloc(1, DART_TYPE_INT, &b2, a));
  dart_gptr_t both[2] = { b1, b2 };
  for (int i = 0; i < 2; ++i) {
    dart_gptr_t g = both[i];
    if (g.unitid != tme || g.teamid != team || g.segid <= 0 ||
        g.flags != 0 || g.addr_or_offs.offset % 8 != 0) {
      FAILF("allocator gptr {unit %d, flags %u, segid %d, "
            "team %d, offset %llu}", (int)g.unitid, (unsigned)g.flags,
            (int)g.segid, (int)g.teamid,
            (unsigned long long)g.addr_or_offs.offset);
    }
  }
  ASSERT_EQ(b1.segid, b2.segid);
  uint64_t o1 = b1.addr_or_offs.offset, o2 = b2.addr_or_offs.offset;
  ASSERT(o1 + 3 * sizeof(long) <= o2 || o2 + sizeof(int) <= o1);
  fill(DART_TYPE_LONG, local_addr(b1), 0, 3, key(me, 50));
  *(int *)local_addr(b2) = -1;

  dart_gptr_t *all = xmalloc((size_t)tn * sizeof both);
  ASSERT_OK(dart_allgather(both, all, sizeof both, DART_TYPE_BYTE, team));
  int next = (tme + 1) % tn, prev = (tme + tn - 1) % tn;
  dart_global_unit_t gnext, gprev;
  ASSERT_OK(dart_team_unit_l2g(team, DART_TEAM_UNIT_ID(next), &gnext));
  ASSERT_OK(dart_team_unit_l2g(team, DART_TEAM_UNIT_ID(prev), &gprev));
  ASSERT_EQ(all[2 * next].unitid, next);
  ASSERT_OK(dart_barrier(team));
  STAGE("%s: blocks of the next unit", label);
  long got[3];
  ASSERT_OK(dart_get_blocking(got, all[2 * next], 3, DART_TYPE_LONG,
                              DART_TYPE_LONG));
  check_fill(DART_TYPE_LONG, got, 0, 3, 0, key(gnext.id, 50));
  if (next != tme) {
    ASSERT(local_addr(all[2 * next]) == NULL);
  }
  int mark = 7000 + me;
  ASSERT_OK(dart_put(all[2 * next + 1], &mark, 1, DART_TYPE_INT,
                     DART_TYPE_INT));
  ASSERT_OK(dart_flush(all[2 * next + 1]));
  ASSERT_OK(dart_barrier(team));
  ASSERT_EQ(*(int *)local_addr(b2), 7000 + gprev.id);

  STAGE("%s: allocator exhaustion", label);
  dart_gptr_t big[9];
  int taken = 0;
  dart_ret_t ret = DART_OK;
  int saved = mute_log();
  while (taken < 8) {
    junk_gptr(&big[taken]);
    ret = dart_allocator_alloc(256, DART_TYPE_BYTE, &big[taken], a);
    if (ret != DART_OK) {
      break;
    }
    ++taken;
  }
  restore_log(saved);
  ASSERT_EQ(ret, DART_ERR_NOMEM);
  ASSERT(gptr_is_null(big[taken]));
  ASSERT(taken >= 2 && taken <= 3);
  for (int i = 0; i < taken; ++i) {
    ASSERT_OK(dart_allocator_free(&big[i], a));
    ASSERT(gptr_is_null(big[i]));
  }

  STAGE("%s: allocator errors", label);
  saved = mute_log();
  if (tn > 1) {
    dart_gptr_t foreign = all[2 * next];
    ASSERT_RET(dart_allocator_free(&foreign, a), DART_ERR_INVAL);
    ASSERT(!gptr_is_null(foreign));
  }
  dart_gptr_t copy = b1;
  ASSERT_OK(dart_allocator_free(&b1, a));
  ASSERT(gptr_is_null(b1));
  ASSERT_RET(dart_allocator_free(&copy, a), DART_ERR_INVAL);
  ASSERT_RET(dart_allocator_free(&b1, a), DART_ERR_INVAL);
  dart_gptr_t inner = b2;
  inner.addr_or_offs.offset += 8;
  ASSERT_RET(dart_allocator_free(&inner, a), DART_ERR_INVAL);
  ASSERT_RET(dart_allocator_free(NULL, a), DART_ERR_INVAL);
  ASSERT_RET(dart_allocator_alloc(1, DART_TYPE_INT, NULL, a), DART_ERR_INVAL);
  dart_gptr_t g;
  ASSERT_RET(dart_allocator_alloc(2, strided_type, &g, a), DART_ERR_INVAL);
  ASSERT(gptr_is_null(g));
  restore_log(saved);

  /* Rounding up: the whole 1024 bytes in one block once it is empty. */
  ASSERT_OK(dart_allocator_free(&b2, a));
  ASSERT_OK(dart_allocator_alloc(1024, DART_TYPE_BYTE, &g, a));
  ASSERT_OK(dart_allocator_free(&g, a));

  ASSERT_OK(dart_barrier(team));
  STAGE("%s: allocator_destroy", label);
  dart_allocator_t old = a;
  ASSERT_OK(dart_allocator_destroy(&a));
  ASSERT(a == NULL);
  saved = mute_log();
  ASSERT_RET(dart_allocator_alloc(1, DART_TYPE_INT, &g, old), DART_ERR_INVAL);
  ASSERT(gptr_is_null(g));
  g = all[2 * tme + 1];
  ASSERT_RET(dart_allocator_free(&g, old), DART_ERR_INVAL);
  ASSERT_RET(dart_allocator_destroy(&old), DART_ERR_INVAL);
  ASSERT_RET(dart_allocator_destroy(NULL), DART_ERR_INVAL);
  /* The pool segment is gone with it. */
  int x = 0;
  ASSERT_RET(dart_get_blocking(&x, all[2 * next + 1], 1, DART_TYPE_INT,
                               DART_TYPE_INT), DART_ERR_INVAL);
  restore_log(saved);
  free(all);
}

static void test_allocator(void)
{
  test_allocator_on(DART_TEAM_ALL, me, n, "DART_TEAM_ALL");
  if (sub != DART_TEAM_NULL) {
    test_allocator_on(sub, sub_me, sub_n, "sub-team");
  }
  STAGE("allocator_new errors");
  int saved = mute_log();
  dart_allocator_t a = (dart_allocator_t)&a;
  ASSERT_RET(dart_allocator_new(1024, 77, &a), DART_ERR_INVAL);
  ASSERT(a == NULL);
  ASSERT_RET(dart_allocator_new(1024, DART_TEAM_NULL, &a), DART_ERR_INVAL);
  ASSERT_RET(dart_allocator_new(1024, DART_TEAM_ALL, NULL), DART_ERR_INVAL);
  restore_log(saved);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* ---------------------------------------------------------------------
 * Argument errors of the collective allocation.
 * --------------------------------------------------------------------- */

static void test_alloc_errors(void)
{
  STAGE("memalloc_aligned errors");
  int saved = mute_log();
  dart_gptr_t g;
  ASSERT_RET(dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_INT, NULL),
             DART_ERR_INVAL);
  const dart_team_t bad_teams[] = { 77, DART_TEAM_NULL, 30000 };
  for (size_t i = 0; i < sizeof bad_teams / sizeof *bad_teams; ++i) {
    junk_gptr(&g);
    ASSERT_RET(dart_team_memalloc_aligned(bad_teams[i], 4, DART_TYPE_INT, &g),
               DART_ERR_INVAL);
    ASSERT(gptr_is_null(g));
  }
  const dart_datatype_t bad_types[] = { strided_type, custom_type,
                                        DART_TYPE_UNDEFINED,
                                        DART_TYPE_LAST, 12345 };
  for (size_t i = 0; i < sizeof bad_types / sizeof *bad_types; ++i) {
    junk_gptr(&g);
    ASSERT_RET(dart_team_memalloc_aligned(DART_TEAM_ALL, 4, bad_types[i], &g),
               DART_ERR_INVAL);
    ASSERT(gptr_is_null(g));
  }
  restore_log(saved);
  /* Nothing half-made is left behind: the next allocation works. */
  g = alloc_bytes(DART_TEAM_ALL, 8);
  check_fresh(g, DART_TEAM_ALL, false);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(g));
}

static void setup(int *argc, char ***argv)
{
  test_start(argc, argv, &me, &n);
  sub = test_subteam_create(n);
  ASSERT_EQ(sub != DART_TEAM_NULL, test_subteam_member(me, n));
  if (sub != DART_TEAM_NULL) {
    dart_team_unit_t tme;
    size_t tsz;
    ASSERT_OK(dart_team_myid(sub, &tme));
    ASSERT_OK(dart_team_size(sub, &tsz));
    sub_me = tme.id;
    sub_n = (int)tsz;
  }
  ASSERT_OK(dart_type_create_strided(DART_TYPE_INT, 3, 1, &strided_type));
  ASSERT_OK(dart_type_create_custom(12, &custom_type));
}

static void teardown(void)
{
  ASSERT_OK(dart_type_destroy(&strided_type));
  ASSERT_OK(dart_type_destroy(&custom_type));
  if (sub != DART_TEAM_NULL) {
    ASSERT_OK(dart_team_destroy(&sub));
  }
  test_dart_teardown();
}

static const struct test_case cases[] = {
  { "alloc_types", test_alloc_types },
  { "addr_and_flags", test_addr_and_flags },
  { "segment_id_reuse", test_segment_id_reuse },
  { "segment_churn", test_segment_churn },
  { "free_errors", test_free_errors },
  { "subteam", test_subteam },
  { "register", test_register },
  { "memalloc", test_memalloc },
  { "local_pool_growth", test_local_pool_growth },
  { "allocator", test_allocator },
  { "alloc_errors", test_alloc_errors },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
