/* The lifecycle table on freed and destroyed objects (segment, team,
 * type, operation, handle, lock, allocator): every call returns an error,
 * never DART_OK, and never crashes. The calls are listed once, in
 * test_lifecycle_table.h; test_lifecycle_notinit.c checks them before
 * dart_init and after dart_exit. */
#include "test_lifecycle_table.h"

/* Freed and destroyed objects: a program that kept a copy of a handle
 * after freeing it gets an error from every call that takes it. */
static void check_stale(struct args *live, int units)
{
  struct args a = *live;

  /* A freed local allocation: freeing it again is an error. (Its bytes
   * stay inside the unit's pool segment, so a put through a kept gptr is
   * not detectable without a check on every transfer; see local_pool.c.) */
  ASSERT_OK(dart_memalloc(4, DART_TYPE_LONG, &a.gptr));
  ASSERT_OK(dart_memfree(a.gptr));
  ASSERT_RET(dart_memfree(a.gptr), DART_ERR_INVAL);

  /* A freed collective segment: its id is gone, every call is refused. */
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_LONG,
                                       &a.gptr));
  ASSERT_OK(dart_team_memfree(a.gptr));
  ASSERT_RET(dart_team_memfree(a.gptr), DART_ERR_INVAL);
  static const char *const seg_calls[] = {
    "accumulate", "accumulate_local", "fetch_and_op", "cas", "get", "put",
    "get_blocking", "put_blocking", "get_handle", "put_handle",
    "gptr_getaddr", "flush", "flush_all", "flush_local", "flush_local_all",
    "team_memfree", "team_memderegister"
  };
  for (size_t i = 0; i < NCALLS; ++i) {
    for (size_t k = 0; k < sizeof seg_calls / sizeof *seg_calls; ++k) {
      if (strcmp(calls[i].name, seg_calls[k]) == 0) {
        fill(&a);
        expect("freed team segment", &calls[i], calls[i].fn(&a),
               DART_ERR_INVAL);
        ASSERT(untouched(&a));
      }
    }
  }

  /* A deregistered segment. */
  ASSERT_OK(dart_team_memregister(DART_TEAM_ALL, 4, DART_TYPE_LONG, a.buf,
                                  &a.gptr));
  ASSERT_OK(dart_team_memderegister(a.gptr));
  ASSERT_RET(dart_team_memderegister(a.gptr), DART_ERR_INVAL);
  ASSERT_RET(dart_put_blocking(a.gptr, a.buf, 1, DART_TYPE_LONG,
                               DART_TYPE_LONG), DART_ERR_INVAL);

  /* A destroyed team: every team call is DART_ERR_INVAL. */
  dart_team_t t = DART_TEAM_NULL;
  ASSERT_OK(dart_team_clone(DART_TEAM_ALL, &t));
  dart_team_t kept = t;
  ASSERT_OK(dart_team_destroy(&t));
  ASSERT_EQ(t, DART_TEAM_NULL);
  a.team = kept;
  static const char *const team_calls[] = {
    "barrier", "bcast", "scatter", "gather", "allgather", "allgatherv",
    "allreduce", "alltoall", "reduce", "team_memalloc", "team_memregister",
    "team_memregister_aligned", "team_get_group", "team_clone",
    "team_destroy", "team_myid", "team_size", "team_unit_l2g",
    "team_unit_g2l", "team_lock_init", "team_locality_init",
    "team_locality_finalize", "domain_team_locality", "unit_locality",
    "allocator_new"
  };
  for (size_t i = 0; i < NCALLS; ++i) {
    for (size_t k = 0; k < sizeof team_calls / sizeof *team_calls; ++k) {
      if (strcmp(calls[i].name, team_calls[k]) == 0) {
        fill(&a);
        expect("destroyed team", &calls[i], calls[i].fn(&a), DART_ERR_INVAL);
        ASSERT(untouched(&a));
      }
    }
  }
  a.team = DART_TEAM_ALL;

  /* A destroyed custom type and operation. */
  dart_datatype_t ty;
  ASSERT_OK(dart_type_create_custom(24, &ty));
  dart_datatype_t kept_ty = ty;
  ASSERT_OK(dart_type_destroy(&ty));
  ASSERT_RET(dart_type_destroy(&kept_ty), DART_ERR_INVAL);
  long got[8];
  ASSERT_RET(dart_get_blocking(got, live->gptr, 1, kept_ty, kept_ty),
             DART_ERR_INVAL);
  ASSERT_RET(dart_allreduce(a.buf, got, 1, kept_ty, DART_OP_SUM, DART_TEAM_ALL),
             DART_ERR_INVAL);
  dart_operation_t op;
  ASSERT_OK(dart_op_create(user_op, NULL, true, DART_TYPE_LONG, false, &op));
  dart_operation_t kept_op = op;
  ASSERT_OK(dart_op_destroy(&op));
  ASSERT_RET(dart_op_destroy(&kept_op), DART_ERR_INVAL);
  ASSERT_RET(dart_allreduce(a.buf, got, 1, DART_TYPE_LONG, kept_op,
                            DART_TEAM_ALL), DART_ERR_INVAL);
  ASSERT_RET(dart_accumulate(live->gptr, a.buf, 1, DART_TYPE_LONG, kept_op),
             DART_ERR_INVAL);

  /* A released handle: a made-up one, and (where the transfer went
   * through MPI and so got a handle) a copy kept past dart_wait. A
   * transfer that completed at once returns DART_HANDLE_NULL. */
  static const char *const handle_calls[] = {
    "wait", "wait_local", "waitall", "waitall_local", "test", "test_local",
    "testall", "testall_local", "handle_free"
  };
  dart_handle_t h = DART_HANDLE_NULL;
  dart_team_unit_t me;
  ASSERT_OK(dart_team_myid(DART_TEAM_ALL, &me));
  dart_gptr_t peer = live->gptr;
  peer.unitid = (me.id + 1) % units;
  ASSERT_OK(dart_get_handle(got, peer, 1, DART_TYPE_LONG, DART_TYPE_LONG, &h));
  dart_handle_t stale[2] = { (dart_handle_t)(uintptr_t)0x7777, h };
  ASSERT_OK(dart_wait(&h));
  ASSERT(h == DART_HANDLE_NULL);
  for (int s = 0; s < 2 && stale[s] != DART_HANDLE_NULL; ++s) {
    a.handle = stale[s];
    for (size_t i = 0; i < NCALLS; ++i) {
      for (size_t k = 0; k < sizeof handle_calls / sizeof *handle_calls;
           ++k) {
        if (strcmp(calls[i].name, handle_calls[k]) == 0) {
          expect(s == 0 ? "made-up handle" : "released handle", &calls[i],
                 calls[i].fn(&a), DART_ERR_INVAL);
        }
      }
    }
  }

  /* A destroyed lock: its handle is set to NULL; NULL is rejected. */
  dart_lock_t l = NULL;
  ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &l));
  ASSERT(dart_lock_initialized(l));
  dart_lock_t kept_l = l;
  ASSERT_OK(dart_team_lock_destroy(&l));
  ASSERT(l == NULL);
  ASSERT(!dart_lock_initialized(l));
  ASSERT_RET(dart_lock_acquire(l), DART_ERR_INVAL);
  ASSERT_RET(dart_lock_release(l), DART_ERR_INVAL);
  int32_t took = 7;
  ASSERT_RET(dart_lock_try_acquire(l, &took), DART_ERR_INVAL);
  ASSERT_OK(dart_team_lock_destroy(&l)); /* DART_LOCK_NULL: a no-op */
  /* A kept copy of the destroyed handle (destroyed locks stay marked). */
  ASSERT(!dart_lock_initialized(kept_l));
  ASSERT_RET(dart_lock_acquire(kept_l), DART_ERR_INVAL);
  ASSERT_RET(dart_lock_try_acquire(kept_l, &took), DART_ERR_INVAL);
  ASSERT_RET(dart_lock_release(kept_l), DART_ERR_INVAL);
  ASSERT_RET(dart_team_lock_destroy(&kept_l), DART_ERR_INVAL);

  /* A destroyed allocator: its handle is set to NULL. */
  dart_allocator_t al = NULL;
  ASSERT_OK(dart_allocator_new(4096, DART_TEAM_ALL, &al));
  ASSERT_OK(dart_allocator_destroy(&al));
  ASSERT(al == NULL);
  dart_gptr_t g;
  ASSERT_RET(dart_allocator_alloc(1, DART_TYPE_LONG, &g, al), DART_ERR_INVAL);
  ASSERT_RET(dart_allocator_destroy(&al), DART_ERR_INVAL);

  /* The runtime is still in one piece. */
  long sum = 0, one = 1;
  ASSERT_OK(dart_allreduce(&one, &sum, 1, DART_TYPE_LONG, DART_OP_SUM,
                           DART_TEAM_ALL));
  ASSERT_EQ(sum, units);
}

static void stale_objects(void)
{
  struct args a;
  static char dummy[256];
  plausible_args(&a, dummy);
  char before_dummy[sizeof dummy];
  memcpy(before_dummy, dummy, sizeof dummy);
  ASSERT_OK(dart_init(&test_argc, &test_argv));
  size_t units = 0;
  ASSERT_OK(dart_size(&units));
  struct args live = a;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 16, DART_TYPE_LONG,
                                       &live.gptr));
  check_stale(&live, (int)units);
  ASSERT_OK(dart_team_memfree(live.gptr));
  ASSERT_OK(dart_exit());
  ASSERT_MSG(memcmp(before_dummy, dummy, sizeof dummy) == 0,
             "a call wrote through a stale handle");
}

static const struct test_case cases[] = {
  { "stale_objects", stale_objects },
};

int main(int argc, char **argv)
{
  return test_run(argc, argv, TEST_CASES(cases));
}
