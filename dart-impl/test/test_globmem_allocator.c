/* The pool allocator (dart_allocator_* in dart-if/include/dash/dart/if/
 * dart_globmem.h): a collective segment in which every member allocates
 * from its own pool without communication; blocks reached by the next
 * unit through RMA, exhaustion, the argument errors, and destruction,
 * which takes the segment with it; on DART_TEAM_ALL and on a sub-team
 * whose team ids differ from the global ids. Shared part:
 * test_globmem_common.h. */
#include "test_globmem_common.h"

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
  STAGE("allocator of a destroyed team");
  /* Its segment went with the team: no more blocks (it crashed), and the
   * destroy is local. */
  dart_team_t clone = DART_TEAM_NULL;
  ASSERT_OK(dart_team_clone(DART_TEAM_ALL, &clone));
  dart_allocator_t orphan = NULL;
  ASSERT_OK(dart_allocator_new(256, clone, &orphan));
  dart_gptr_t block = DART_GPTR_NULL;
  ASSERT_OK(dart_allocator_alloc(4, DART_TYPE_INT, &block, orphan));
  ASSERT_OK(dart_barrier(clone));
  ASSERT_OK(dart_team_destroy(&clone));
  int muted = mute_log();
  dart_gptr_t more = block;
  ASSERT_RET(dart_allocator_alloc(4, DART_TYPE_INT, &more, orphan),
             DART_ERR_INVAL);
  ASSERT(gptr_is_null(more));
  ASSERT_RET(dart_allocator_free(&block, orphan), DART_ERR_INVAL);
  restore_log(muted);
  ASSERT_OK(dart_allocator_destroy(&orphan));
  ASSERT(orphan == NULL);

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

static const struct test_case cases[] = {
  { "allocator", test_allocator },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
