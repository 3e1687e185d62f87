/* Collective allocation and registration on teams (dart-if/include/dash/
 * dart/if/dart_globmem.h; docs/design.md, "Global memory and segments"):
 * dart_team_memalloc_aligned with different sizes per unit (0 included)
 * for every basic type, the gptrs it returns and the local addresses of
 * each portion; segments of a sub-team, seen from members and from
 * non-members; registration of user memory (both variants), access after
 * deregistration; and the argument errors of allocation and registration.
 * Shared part: test_globmem_common.h. */
#include "test_globmem_common.h"

/* ---------------------------------------------------------------------
 * Collective allocation: every basic type, per-unit sizes with zeros.
 * --------------------------------------------------------------------- */

static size_t alloc_nelem(int u, int ti)
{
  return (u + ti) % 3 == 0 ? 0 : (size_t)(u + 1) * 7 + (size_t)ti;
}

static void test_alloc_types(void)
{
  for (int ti = 0; ti < TEST_NBASIC; ++ti) {
    dart_datatype_t t = test_basic_types[ti];
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
  /* More than any machine has on one unit, a little on the others: no
   * hang (Open MPI's shared window hung the others in it), and every unit
   * is told that memory is short. */
  STAGE("unit 0 asks for 1 TiB");
  junk_gptr(&g);
  dart_ret_t ret = dart_team_memalloc_aligned(
      DART_TEAM_ALL, me == 0 ? (size_t)1 << 40 : 8, DART_TYPE_BYTE, &g);
  ASSERT_EQ(ret, DART_ERR_NOMEM);
  ASSERT(gptr_is_null(g));
  restore_log(saved);
  /* Nothing half-made is left behind: the next allocation works. */
  g = alloc_bytes(DART_TEAM_ALL, 8);
  check_fresh(g, DART_TEAM_ALL, false);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(g));
}

static const struct test_case cases[] = {
  { "alloc_types", test_alloc_types },
  { "subteam", test_subteam },
  { "register", test_register },
  { "alloc_errors", test_alloc_errors },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
