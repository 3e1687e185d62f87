/* One-sided calls given input they must refuse or treat as nothing to
 * do (dart-if/include/dash/dart/if/dart_communication.h): bad targets,
 * segments, offsets, counts, types and buffers refused without a byte
 * written anywhere and with correct transfers working afterwards; NULL
 * handles accepted as complete, junk and consumed handles refused; and a
 * stale target after a segment id is reused (docs/design.md, "Global
 * memory and segments"). The transfers that must work are
 * test_onesided_xfer.c's and test_onesided_types.c's. Shared part:
 * test_onesided_common.h. */
#include "test_onesided_common.h"

/* ---------------------------------------------------------------------
 * Bad input: refused, and no byte written anywhere.
 * --------------------------------------------------------------------- */

#define ERR_LONGS 32 /* longs in portion u: ERR_LONGS + u */

#define bad_put(...) bad_put_at(__FILE__, __LINE__, __VA_ARGS__)
static void bad_put_at(const char *file, int line, dart_gptr_t g,
                       const void *src, size_t nelem, dart_datatype_t st,
                       dart_datatype_t dt)
{
  ASSERT_RET(dart_put_blocking(g, src, nelem, st, dt), DART_ERR_INVAL);
  ASSERT_RET(dart_put(g, src, nelem, st, dt), DART_ERR_INVAL);
  dart_handle_t h = (dart_handle_t)0x1234;
  ASSERT_RET(dart_put_handle(g, src, nelem, st, dt, &h), DART_ERR_INVAL);
  if (h != DART_HANDLE_NULL) {
    test_failf(file, line, "dart_put_handle failed but left a handle");
  }
}

#define bad_get(...) bad_get_at(__FILE__, __LINE__, __VA_ARGS__)
static void bad_get_at(const char *file, int line, void *dst, size_t dst_bytes,
                       dart_gptr_t g, size_t nelem, dart_datatype_t st,
                       dart_datatype_t dt)
{
  if (dst != NULL) {
    memset(dst, POISON, dst_bytes);
  }
  ASSERT_RET(dart_get_blocking(dst, g, nelem, st, dt), DART_ERR_INVAL);
  ASSERT_RET(dart_get(dst, g, nelem, st, dt), DART_ERR_INVAL);
  dart_handle_t h = (dart_handle_t)0x1234;
  ASSERT_RET(dart_get_handle(dst, g, nelem, st, dt, &h), DART_ERR_INVAL);
  if (h != DART_HANDLE_NULL) {
    test_failf(file, line, "dart_get_handle failed but left a handle");
  }
  if (dst != NULL) {
    test_check_poison(file, line, dst, 0, dst_bytes);
  }
}

#define bad_both(...) bad_both_at(__FILE__, __LINE__, __VA_ARGS__)
static void bad_both_at(const char *file, int line, dart_gptr_t g,
                        size_t nelem, dart_datatype_t st, dart_datatype_t dt)
{
  long buf[256];
  memset(buf, 0, sizeof buf);
  bad_put_at(file, line, g, buf, nelem, st, dt);
  bad_get_at(file, line, buf, sizeof buf, g, nelem, dt, st);
}

static void test_errors(const struct ctx *c)
{
  STAGE("%s: bad input setup", c->label);
  /* E: every portion non-empty, of different sizes. Z: the last unit's
   * portion is empty. F: freed before use. */
  dart_gptr_t e, z, f;
  ASSERT_OK(dart_team_memalloc_aligned(c->team, ERR_LONGS + (size_t)c->me,
                                       DART_TYPE_LONG, &e));
  ASSERT_OK(dart_team_memalloc_aligned(c->team, c->me == c->n - 1 ? 0 : 4,
                                       DART_TYPE_LONG, &z));
  ASSERT_OK(dart_team_memalloc_aligned(c->team, 8, DART_TYPE_LONG, &f));
  ASSERT_OK(dart_barrier(c->team));
  ASSERT_OK(dart_team_memfree(f));
  char *emine = local_base(e, c->me);
  size_t ebytes = (ERR_LONGS + (size_t)c->me) * sizeof(long);
  memset(emine, POISON, ebytes);
  char *zmine = local_base(z, c->me);
  if (c->me != c->n - 1) {
    memset(zmine, POISON, 4 * sizeof(long));
  }
  dart_datatype_t s42 = DART_TYPE_UNDEFINED, s31l = DART_TYPE_UNDEFINED,
                  s31i = DART_TYPE_UNDEFINED, custom8 = DART_TYPE_UNDEFINED;
  ASSERT_OK(dart_type_create_strided(DART_TYPE_LONG, 4, 2, &s42));
  ASSERT_OK(dart_type_create_strided(DART_TYPE_LONG, 3, 1, &s31l));
  ASSERT_OK(dart_type_create_strided(DART_TYPE_INT, 3, 1, &s31i));
  ASSERT_OK(dart_type_create_custom(8, &custom8));
  ASSERT_OK(dart_barrier(c->team));

  int saved = mute_log();
  long buf[256];
  for (int t = 0; t < c->n; ++t) {
    size_t tbytes = (ERR_LONGS + (size_t)t) * sizeof(long);
    STAGE("%s: bad input towards team unit %d", c->label, t);
    /* Units outside the team. */
    const int bad_units[] = { -1, c->n, c->n + 5 };
    for (size_t i = 0; i < 3; ++i) {
      dart_gptr_t g = e;
      g.unitid = bad_units[i];
      bad_both(g, 1, DART_TYPE_LONG, DART_TYPE_LONG);
      ASSERT_RET(dart_flush(g), DART_ERR_INVAL);
      ASSERT_RET(dart_flush_local(g), DART_ERR_INVAL);
    }
    /* Unknown team and segments, freed segment. */
    dart_gptr_t g = gptr_at(e, t, 0);
    g.teamid = 77;
    bad_both(g, 1, DART_TYPE_LONG, DART_TYPE_LONG);
    ASSERT_RET(dart_flush(g), DART_ERR_INVAL);
    ASSERT_RET(dart_flush_all(g), DART_ERR_INVAL);
    ASSERT_RET(dart_flush_local(g), DART_ERR_INVAL);
    ASSERT_RET(dart_flush_local_all(g), DART_ERR_INVAL);
    g.teamid = DART_TEAM_NULL;
    bad_both(g, 1, DART_TYPE_LONG, DART_TYPE_LONG);
    bad_both(DART_GPTR_NULL, 1, DART_TYPE_LONG, DART_TYPE_LONG);
    const int16_t bad_segs[] = { 999, -999, 17 };
    for (size_t i = 0; i < 3; ++i) {
      g = gptr_at(e, t, 0);
      g.segid = bad_segs[i];
      if (g.segid == e.segid || g.segid == z.segid) {
        continue;
      }
      bad_both(g, 1, DART_TYPE_LONG, DART_TYPE_LONG);
      ASSERT_RET(dart_flush(g), DART_ERR_INVAL);
      ASSERT_RET(dart_flush_all(g), DART_ERR_INVAL);
      ASSERT_RET(dart_flush_local(g), DART_ERR_INVAL);
      ASSERT_RET(dart_flush_local_all(g), DART_ERR_INVAL);
    }
    g = gptr_at(f, t, 0);
    bad_both(g, 1, DART_TYPE_LONG, DART_TYPE_LONG);
    ASSERT_RET(dart_flush(g), DART_ERR_INVAL);
    ASSERT_RET(dart_flush_all(g), DART_ERR_INVAL);
    /* Past the end of the target's portion. */
    bad_both(gptr_at(e, t, tbytes), 1, DART_TYPE_LONG, DART_TYPE_LONG);
    bad_both(gptr_at(e, t, tbytes - 4), 1, DART_TYPE_LONG,
             DART_TYPE_LONG);
    bad_both(gptr_at(e, t, 0), tbytes / sizeof(long) + 1,
             DART_TYPE_LONG, DART_TYPE_LONG);
    bad_both(gptr_at(e, t, sizeof(long)), tbytes / sizeof(long),
             DART_TYPE_LONG, DART_TYPE_LONG);
    bad_both(gptr_at(e, t, UINT64_MAX - 3), 1, DART_TYPE_LONG,
             DART_TYPE_LONG);
    bad_both(gptr_at(e, t, UINT64_MAX / 2), 2, DART_TYPE_LONG,
             DART_TYPE_LONG);
    /* A remote strided layout whose span runs past the end although the
     * element count alone would fit. */
    size_t fit = (tbytes / sizeof(long) - 1) / 3 + 1; /* span fits */
    bad_put(gptr_at(e, t, 0), buf, fit + 1, DART_TYPE_LONG, s31l);
    memset(buf, POISON, sizeof buf);
    ASSERT_RET(dart_get_blocking(buf, gptr_at(e, t, 0), fit + 1, s31l,
                                 DART_TYPE_LONG), DART_ERR_INVAL);
    ASSERT_POISON(buf, 0, sizeof buf);
    /* An empty portion takes nothing. */
    if (t == c->n - 1) {
      bad_both(gptr_at(z, t, 0), 1, DART_TYPE_LONG, DART_TYPE_LONG);
      bad_both(gptr_at(z, t, 8), 1, DART_TYPE_BYTE, DART_TYPE_BYTE);
    } else {
      bad_both(gptr_at(z, t, 0), 5, DART_TYPE_LONG, DART_TYPE_LONG);
    }
    /* NULL buffers. */
    ASSERT_RET(dart_put_blocking(gptr_at(e, t, 0), NULL, 1, DART_TYPE_LONG,
                                 DART_TYPE_LONG), DART_ERR_INVAL);
    ASSERT_RET(dart_put(gptr_at(e, t, 0), NULL, 2, DART_TYPE_LONG,
                        DART_TYPE_LONG),
               DART_ERR_INVAL);
    bad_get(NULL, 0, gptr_at(e, t, 0), 1, DART_TYPE_LONG,
            DART_TYPE_LONG);
    /* Type errors. */
    bad_both(gptr_at(e, t, 0), 2, DART_TYPE_INT, DART_TYPE_LONG);
    bad_both(gptr_at(e, t, 0), 2, DART_TYPE_LONG, DART_TYPE_DOUBLE);
    bad_both(gptr_at(e, t, 0), 2, s31i, DART_TYPE_LONG);
    bad_both(gptr_at(e, t, 0), 2, DART_TYPE_LONG, s31i);
    bad_both(gptr_at(e, t, 0), 2, custom8, DART_TYPE_LONG);
    bad_both(gptr_at(e, t, 0), 3, s42, DART_TYPE_LONG);
    bad_both(gptr_at(e, t, 0), 3, DART_TYPE_LONG, s42);
    bad_both(gptr_at(e, t, 0), 5, s42, s42);
    bad_both(gptr_at(e, t, 0), 1, DART_TYPE_UNDEFINED,
             DART_TYPE_UNDEFINED);
    bad_both(gptr_at(e, t, 0), 1, DART_TYPE_LAST, DART_TYPE_LAST);
    bad_both(gptr_at(e, t, 0), 1, DART_TYPE_LONG, 12345);
    /* No handle pointer. */
    ASSERT_RET(dart_put_handle(gptr_at(e, t, 0), buf, 1, DART_TYPE_LONG,
                               DART_TYPE_LONG, NULL), DART_ERR_INVAL);
    ASSERT_RET(dart_get_handle(buf, gptr_at(e, t, 0), 1, DART_TYPE_LONG,
                               DART_TYPE_LONG, NULL), DART_ERR_INVAL);
  }

  STAGE("%s: invalid handles", c->label);
  const dart_handle_t junk[] = { (dart_handle_t)0x1234,
                                 (dart_handle_t)0x7fff0000,
                                 (dart_handle_t)1 };
  int32_t done;
  for (size_t i = 0; i < sizeof junk / sizeof *junk; ++i) {
    dart_handle_t h = junk[i];
    ASSERT_RET(dart_wait(&h), DART_ERR_INVAL);
    ASSERT_RET(dart_wait_local(&h), DART_ERR_INVAL);
    ASSERT_RET(dart_test(&h, &done), DART_ERR_INVAL);
    ASSERT_RET(dart_test_local(&h, &done), DART_ERR_INVAL);
    ASSERT_RET(dart_handle_free(&h), DART_ERR_INVAL);
    dart_handle_t arr[2] = { DART_HANDLE_NULL, junk[i] };
    ASSERT_RET(dart_waitall(arr, 2), DART_ERR_INVAL);
    ASSERT_RET(dart_waitall_local(arr, 2), DART_ERR_INVAL);
    ASSERT_RET(dart_testall(arr, 2, &done), DART_ERR_INVAL);
    ASSERT_RET(dart_testall_local(arr, 2, &done), DART_ERR_INVAL);
  }
  /* A consumed handle is dead, wherever it came from. */
  for (int t = 0; t < c->n; ++t) {
    dart_handle_t h = DART_HANDLE_NULL;
    ASSERT_OK(dart_get_handle(buf, gptr_at(e, t, 0), 1, DART_TYPE_LONG,
                              DART_TYPE_LONG, &h));
    dart_handle_t stale = h;
    ASSERT_OK(dart_wait(&h));
    if (stale != DART_HANDLE_NULL) {
      ASSERT_RET(dart_wait(&stale), DART_ERR_INVAL);
      ASSERT_RET(dart_handle_free(&stale), DART_ERR_INVAL);
    }
  }
  dart_handle_t none = DART_HANDLE_NULL;
  ASSERT_RET(dart_test(&none, NULL), DART_ERR_INVAL);
  ASSERT_RET(dart_testall(&none, 1, NULL), DART_ERR_INVAL);
  restore_log(saved);

  /* Nobody wrote into my portions. */
  ASSERT_OK(dart_barrier(c->team));
  STAGE("%s: portions untouched by bad input", c->label);
  ASSERT_POISON(emine, 0, ebytes);
  if (c->me != c->n - 1) {
    ASSERT_POISON(zmine, 0, 4 * sizeof(long));
  }
  ASSERT_OK(dart_barrier(c->team));

  /* And correct transfers still work. */
  STAGE("%s: correct transfers after bad input", c->label);
  int next = (c->me + 1) % c->n, prev = (c->me + c->n - 1) % c->n;
  long vals[ERR_LONGS];
  fill(DART_TYPE_LONG, vals, ERR_LONGS, key(c->global_of[c->me], 50));
  ASSERT_OK(dart_put(gptr_at(e, next, 0), vals, ERR_LONGS, DART_TYPE_LONG,
                     DART_TYPE_LONG));
  ASSERT_OK(dart_flush(gptr_at(e, next, 0)));
  ASSERT_OK(dart_barrier(c->team));
  check_fill(DART_TYPE_LONG, emine, ERR_LONGS,
             key(c->global_of[prev], 50));
  memset(vals, POISON, sizeof vals);
  ASSERT_OK(dart_get_blocking(vals, gptr_at(e, next, 0), ERR_LONGS,
                              DART_TYPE_LONG, DART_TYPE_LONG));
  check_fill(DART_TYPE_LONG, vals, ERR_LONGS,
             key(c->global_of[c->me], 50));
  ASSERT_OK(dart_barrier(c->team));
  /* The last element of a portion is reachable, also as the end of a
   * strided layout that spans the portion exactly. */
  size_t nlongs = ERR_LONGS + (size_t)next;
  size_t fit = (nlongs - 1) / 3 + 1;
  fill(DART_TYPE_LONG, vals, fit, key(c->global_of[c->me], 52));
  ASSERT_OK(dart_put_blocking(gptr_at(e, next, 0), vals, fit, DART_TYPE_LONG,
                              s31l));
  long last = 4242 + c->me;
  ASSERT_OK(dart_put_blocking(gptr_at(e, next, (nlongs - 1) * sizeof(long)),
                              &last, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  ASSERT_OK(dart_barrier(c->team));
  long *el = (long *)emine;
  size_t mine_longs = ERR_LONGS + (size_t)c->me;
  for (size_t j = 0; j < (mine_longs - 1) / 3 + 1; ++j) {
    long want = (long)pattern(DART_TYPE_LONG, key(c->global_of[prev], 52), j);
    if (3 * j == mine_longs - 1) {
      want = 4242 + prev;
    }
    if (el[3 * j] != want) {
      FAILF("strided element %zu: got %ld, expected %ld", j,
            el[3 * j], want);
    }
  }
  ASSERT_EQ(el[mine_longs - 1], 4242 + prev);
  ASSERT_EQ(el[1], (long)pattern(DART_TYPE_LONG, key(c->global_of[prev], 50),
                                 1));
  ASSERT_OK(dart_barrier(c->team));

  ASSERT_OK(dart_type_destroy(&s42));
  ASSERT_OK(dart_type_destroy(&s31l));
  ASSERT_OK(dart_type_destroy(&s31i));
  ASSERT_OK(dart_type_destroy(&custom8));
  ASSERT_OK(dart_team_memfree(e));
  ASSERT_OK(dart_team_memfree(z));
}

/* ---------------------------------------------------------------------
 * NULL handles: nothing to wait for.
 * --------------------------------------------------------------------- */

/* A test call on nothing pending: it succeeds and reports completion. */
#define ASSERT_DONE(call, done)                                            \
  do {                                                                     \
    (done) = 7;                                                            \
    ASSERT_OK(call);                                                       \
    ASSERT_EQ(done, 1);                                                    \
  } while (0)

static void test_null_handles(const struct ctx *c)
{
  int32_t done;
  STAGE("%s: NULL handles", c->label);
  dart_handle_t null_h = DART_HANDLE_NULL;
  ASSERT_OK(dart_wait(NULL));
  ASSERT_OK(dart_wait(&null_h));
  ASSERT_OK(dart_wait_local(NULL));
  ASSERT_OK(dart_wait_local(&null_h));
  ASSERT_OK(dart_handle_free(NULL));
  ASSERT_OK(dart_handle_free(&null_h));
  ASSERT_DONE(dart_test(NULL, &done), done);
  ASSERT_DONE(dart_test(&null_h, &done), done);
  ASSERT_DONE(dart_test_local(NULL, &done), done);
  ASSERT_DONE(dart_test_local(&null_h, &done), done);
  ASSERT(null_h == DART_HANDLE_NULL);
  dart_handle_t nulls[3] = { DART_HANDLE_NULL, DART_HANDLE_NULL,
                             DART_HANDLE_NULL };
  ASSERT_OK(dart_waitall(NULL, 3));
  ASSERT_OK(dart_waitall(nulls, 0));
  ASSERT_OK(dart_waitall(nulls, 3));
  ASSERT_OK(dart_waitall_local(NULL, 3));
  ASSERT_OK(dart_waitall_local(nulls, 3));
  ASSERT_DONE(dart_testall(NULL, 0, &done), done);
  ASSERT_DONE(dart_testall(nulls, 0, &done), done);
  ASSERT_DONE(dart_testall(nulls, 3, &done), done);
  ASSERT_DONE(dart_testall_local(nulls, 3, &done), done);
  ASSERT_DONE(dart_testall_local(NULL, 0, &done), done);

}

/* A freed segment's id comes back for a smaller segment: whatever a
 * unit remembered about the old one must not let an access past the new
 * portion's end through. */
static void check_stale_target(void)
{
  STAGE("stale target after free and id reuse");
  dart_gptr_t big, small;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 64, DART_TYPE_LONG,
                                       &big));
  long value = 7, got = 0;
  big.unitid = me;
  big.addr_or_offs.offset = 32 * sizeof(long);
  ASSERT_OK(dart_put_blocking(big, &value, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  ASSERT_OK(dart_get_blocking(&got, big, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  ASSERT_EQ(got, 7);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  dart_gptr_t freed = big;
  ASSERT_OK(dart_team_memfree(big));
  /* Freed ids come back least recently freed first: allocate until the
   * old id is handed out again. */
  dart_gptr_t others[64];
  int n_others = 0;
  for (;;) {
    ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_LONG,
                                         &small));
    if (small.segid == freed.segid) {
      break;
    }
    ASSERT(n_others < 64);
    others[n_others++] = small;
  }
  int saved = mute_log();
  ASSERT_RET(dart_get_blocking(&got, freed, 1, DART_TYPE_LONG, DART_TYPE_LONG),
             DART_ERR_INVAL);
  ASSERT_RET(dart_put_blocking(freed, &value, 1, DART_TYPE_LONG,
                               DART_TYPE_LONG),
             DART_ERR_INVAL);
  restore_log(saved);
  small.unitid = me;
  small.addr_or_offs.offset = 7 * sizeof(long);
  ASSERT_OK(dart_put_blocking(small, &value, 1, DART_TYPE_LONG,
                              DART_TYPE_LONG));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(small));
  for (int i = 0; i < n_others; ++i) {
    ASSERT_OK(dart_team_memfree(others[i]));
  }
}

static void errors(void) { on_both_teams(test_errors); }
static void null_handles(void) { on_both_teams(test_null_handles); }

/* ---------------------------------------------------------------------
 * Handles: listed twice, and outliving their segment or team.
 * --------------------------------------------------------------------- */

/* A handle listed twice in one waitall or testall is one transfer: the
 * call succeeds and sets every place to DART_HANDLE_NULL. */
static void test_duplicate_handles(const struct ctx *c)
{
  STAGE("%s: a handle listed twice", c->label);
  dart_gptr_t seg = alloc_portions(c, 4 * sizeof(long));
  int next = (c->me + 1) % c->n, prev = (c->me + c->n - 1) % c->n;
  long v[3] = { key(c->global_of[c->me], 60), key(c->global_of[c->me], 61),
                key(c->global_of[c->me], 62) };
  long got = 0;
  dart_handle_t h;
  ASSERT_OK(dart_put_handle(gptr_at(seg, next, 0), &v[0], 1, DART_TYPE_LONG,
                            DART_TYPE_LONG, &h));
  dart_handle_t three[3] = { h, DART_HANDLE_NULL, h };
  ASSERT_OK(dart_waitall(three, 3));
  ASSERT(three[0] == DART_HANDLE_NULL && three[2] == DART_HANDLE_NULL);
  ASSERT_OK(dart_put_handle(gptr_at(seg, next, sizeof(long)), &v[1], 1,
                            DART_TYPE_LONG, DART_TYPE_LONG, &h));
  dart_handle_t two[2] = { h, h };
  int32_t done = 0;
  while (!done) {
    ASSERT_OK(dart_testall(two, 2, &done));
  }
  ASSERT(two[0] == DART_HANDLE_NULL && two[1] == DART_HANDLE_NULL);
  ASSERT_OK(dart_put_handle(gptr_at(seg, next, 2 * sizeof(long)), &v[2], 1,
                            DART_TYPE_LONG, DART_TYPE_LONG, &h));
  ASSERT_OK(dart_flush(gptr_at(seg, next, 0)));
  ASSERT_OK(dart_barrier(c->team));
  ASSERT_OK(dart_get_handle(&got, gptr_at(seg, next, 2 * sizeof(long)), 1,
                            DART_TYPE_LONG, DART_TYPE_LONG, &two[0]));
  two[1] = two[0];
  dart_handle_t put_h = h;
  ASSERT_OK(dart_waitall_local(two, 2));
  ASSERT(two[0] == DART_HANDLE_NULL && two[1] == DART_HANDLE_NULL);
  ASSERT_EQ(got, v[2]);
  ASSERT_OK(dart_wait(&put_h));
  ASSERT_OK(dart_barrier(c->team));
  const long *mine = (const long *)(void *)local_base(seg, c->me);
  for (int k = 0; k < 3; ++k) {
    ASSERT_EQ(mine[k], key(c->global_of[prev], 60 + k));
  }
  ASSERT_OK(dart_barrier(c->team));
  ASSERT_OK(dart_team_memfree(seg));
}

/* A handle not consumed before its segment is freed (its transfer
 * flushed first, as the API asks): the wait afterwards succeeds and
 * touches nothing of the segment, whose window is gone or serves the next
 * allocation; the same after the segment's team is destroyed. */
static void test_handles_outliving(const struct ctx *c)
{
  STAGE("%s: handles outliving their segment", c->label);
  int next = (c->me + 1) % c->n;
  long v = key(c->global_of[c->me], 63), got = -1;
  dart_gptr_t seg = alloc_portions(c, sizeof(long));
  dart_handle_t put_h, get_h;
  ASSERT_OK(dart_put_handle(gptr_at(seg, next, 0), &v, 1, DART_TYPE_LONG,
                            DART_TYPE_LONG, &put_h));
  ASSERT_OK(dart_flush_all(seg));
  ASSERT_OK(dart_barrier(c->team));
  ASSERT_OK(dart_get_handle(&got, gptr_at(seg, next, 0), 1, DART_TYPE_LONG,
                            DART_TYPE_LONG, &get_h));
  ASSERT_OK(dart_flush_local_all(seg));
  ASSERT_OK(dart_barrier(c->team));
  ASSERT_OK(dart_team_memfree(seg));
  dart_gptr_t again = alloc_portions(c, 1024); /* may take the old slot */
  ASSERT_OK(dart_wait(&put_h));
  ASSERT_OK(dart_wait_local(&get_h));
  ASSERT(put_h == DART_HANDLE_NULL && get_h == DART_HANDLE_NULL);
  ASSERT_EQ(got, v);
  ASSERT_OK(dart_barrier(c->team));
  ASSERT_OK(dart_team_memfree(again));

  STAGE("%s: handles outliving their team", c->label);
  dart_team_t clone = DART_TEAM_NULL;
  ASSERT_OK(dart_team_clone(c->team, &clone));
  dart_gptr_t cs;
  ASSERT_OK(dart_team_memalloc_aligned(clone, 8, DART_TYPE_LONG, &cs));
  ASSERT_OK(dart_put_handle(gptr_at(cs, next, 0), &v, 1, DART_TYPE_LONG,
                            DART_TYPE_LONG, &put_h));
  dart_handle_t pair[2] = { put_h, DART_HANDLE_NULL };
  ASSERT_OK(dart_get_handle(&got, gptr_at(cs, next, 0), 1, DART_TYPE_LONG,
                            DART_TYPE_LONG, &pair[1]));
  ASSERT_OK(dart_flush_all(cs));
  ASSERT_OK(dart_barrier(clone));
  ASSERT_OK(dart_team_memfree(cs));
  ASSERT_OK(dart_team_destroy(&clone));
  /* Memory the team's windows had may serve someone else now. */
  void *reuse = xmalloc(1 << 20);
  memset(reuse, 0x5a, 1 << 20);
  ASSERT_OK(dart_waitall(pair, 2));
  ASSERT(pair[0] == DART_HANDLE_NULL && pair[1] == DART_HANDLE_NULL);
  free(reuse);
  ASSERT_OK(dart_barrier(c->team));
}

static void handle_lifetimes(void)
{
  on_both_teams(test_duplicate_handles);
  on_both_teams(test_handles_outliving);
}

static const struct test_case cases[] = {
  { "errors", errors },
  { "null_handles", null_handles },
  { "handle_lifetimes", handle_lifetimes },
  { "stale_target", check_stale_target },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
