/* The lifecycle table: every public call before dart_init and after
 * dart_exit returns DART_ERR_NOTINIT and writes no memory it was given;
 * every call on a freed or destroyed object (segment, team, type,
 * operation, handle, lock, allocator) returns an error, never DART_OK,
 * and never crashes. The calls are listed once, in `calls` below, so a
 * new API function needs one line here. */
#include "test.h"

#include <dash/dart/if/dart_locality.h>

#include <stdint.h>
#include <string.h>

/* Arguments the table's calls use. Before dart_init and after dart_exit
 * they hold plausible values (as a program that kept them would pass). */
struct args {
  dart_gptr_t           gptr;
  dart_team_t           team;
  dart_datatype_t       type;
  dart_operation_t      op;
  dart_group_t          group;
  dart_lock_t           lock;
  dart_handle_t         handle;
  dart_allocator_t      allocator;
  dart_domain_locality_t *domain;
  long                  buf[16];
  long                  out[16];
};

typedef dart_ret_t (*call_fn)(struct args *a);

struct call {
  const char *name;
  call_fn     fn;
  bool        pure; /* works on caller-held data alone, see `calls` */
};

static void user_op(const void *in, void *inout, size_t len, void *data)
{
  (void)in;
  (void)inout;
  (void)len;
  (void)data;
}

/* One function per call keeps the table readable and lets a failure name
 * the call. */
static dart_ret_t c_myid(struct args *a)
{
  (void)a;
  dart_global_unit_t u;
  return dart_myid(&u);
}
static dart_ret_t c_size(struct args *a)
{
  (void)a;
  size_t n;
  return dart_size(&n);
}
static dart_ret_t c_exit(struct args *a)
{
  (void)a;
  return dart_exit();
}
static dart_ret_t c_barrier(struct args *a) { return dart_barrier(a->team); }
static dart_ret_t c_bcast(struct args *a)
{
  return dart_bcast(a->buf, 1, DART_TYPE_LONG, DART_TEAM_UNIT_ID(0), a->team);
}
static dart_ret_t c_scatter(struct args *a)
{
  return dart_scatter(a->buf, a->out, 1, DART_TYPE_LONG, DART_TEAM_UNIT_ID(0),
                      a->team);
}
static dart_ret_t c_gather(struct args *a)
{
  return dart_gather(a->buf, a->out, 1, DART_TYPE_LONG, DART_TEAM_UNIT_ID(0),
                     a->team);
}
static dart_ret_t c_allgather(struct args *a)
{
  return dart_allgather(a->buf, a->out, 1, DART_TYPE_LONG, a->team);
}
static dart_ret_t c_allgatherv(struct args *a)
{
  size_t counts[1] = { 1 }, displs[1] = { 0 };
  return dart_allgatherv(a->buf, 1, DART_TYPE_LONG, a->out, counts, displs,
                         a->team);
}
static dart_ret_t c_allreduce(struct args *a)
{
  return dart_allreduce(a->buf, a->out, 1, DART_TYPE_LONG, DART_OP_SUM,
                        a->team);
}
static dart_ret_t c_alltoall(struct args *a)
{
  return dart_alltoall(a->buf, a->out, 1, DART_TYPE_LONG, a->team);
}
static dart_ret_t c_reduce(struct args *a)
{
  return dart_reduce(a->buf, a->out, 1, DART_TYPE_LONG, DART_OP_SUM,
                     DART_TEAM_UNIT_ID(0), a->team);
}
static dart_ret_t c_send(struct args *a)
{
  return dart_send(a->buf, 1, DART_TYPE_LONG, 1, DART_GLOBAL_UNIT_ID(0));
}
static dart_ret_t c_recv(struct args *a)
{
  return dart_recv(a->out, 1, DART_TYPE_LONG, 1, DART_GLOBAL_UNIT_ID(0));
}
static dart_ret_t c_sendrecv(struct args *a)
{
  return dart_sendrecv(a->buf, 1, DART_TYPE_LONG, 1, DART_GLOBAL_UNIT_ID(0),
                       a->out, 1, DART_TYPE_LONG, 1, DART_GLOBAL_UNIT_ID(0));
}
static dart_ret_t c_accumulate(struct args *a)
{
  return dart_accumulate(a->gptr, a->buf, 1, DART_TYPE_LONG, DART_OP_SUM);
}
static dart_ret_t c_accumulate_local(struct args *a)
{
  return dart_accumulate_blocking_local(a->gptr, a->buf, 1, DART_TYPE_LONG,
                                        DART_OP_SUM);
}
static dart_ret_t c_fetch_and_op(struct args *a)
{
  return dart_fetch_and_op(a->gptr, a->buf, a->out, DART_TYPE_LONG,
                           DART_OP_SUM);
}
static dart_ret_t c_cas(struct args *a)
{
  return dart_compare_and_swap(a->gptr, a->buf, a->buf + 1, a->out,
                               DART_TYPE_LONG);
}
static dart_ret_t c_get(struct args *a)
{
  return dart_get(a->out, a->gptr, 1, DART_TYPE_LONG, DART_TYPE_LONG);
}
static dart_ret_t c_put(struct args *a)
{
  return dart_put(a->gptr, a->buf, 1, DART_TYPE_LONG, DART_TYPE_LONG);
}
static dart_ret_t c_get_blocking(struct args *a)
{
  return dart_get_blocking(a->out, a->gptr, 1, DART_TYPE_LONG,
                           DART_TYPE_LONG);
}
static dart_ret_t c_put_blocking(struct args *a)
{
  return dart_put_blocking(a->gptr, a->buf, 1, DART_TYPE_LONG,
                           DART_TYPE_LONG);
}
static dart_ret_t c_get_handle(struct args *a)
{
  dart_handle_t h = DART_HANDLE_NULL;
  dart_ret_t ret = dart_get_handle(a->out, a->gptr, 1, DART_TYPE_LONG,
                                   DART_TYPE_LONG, &h);
  if (ret == DART_OK) {
    dart_wait(&h);
  }
  return ret;
}
static dart_ret_t c_put_handle(struct args *a)
{
  dart_handle_t h = DART_HANDLE_NULL;
  dart_ret_t ret = dart_put_handle(a->gptr, a->buf, 1, DART_TYPE_LONG,
                                   DART_TYPE_LONG, &h);
  if (ret == DART_OK) {
    dart_wait(&h);
  }
  return ret;
}
static dart_ret_t c_flush(struct args *a) { return dart_flush(a->gptr); }
static dart_ret_t c_flush_all(struct args *a)
{
  return dart_flush_all(a->gptr);
}
static dart_ret_t c_flush_local(struct args *a)
{
  return dart_flush_local(a->gptr);
}
static dart_ret_t c_flush_local_all(struct args *a)
{
  return dart_flush_local_all(a->gptr);
}
static dart_ret_t c_wait(struct args *a)
{
  dart_handle_t h = a->handle;
  return dart_wait(&h);
}
static dart_ret_t c_wait_local(struct args *a)
{
  dart_handle_t h = a->handle;
  return dart_wait_local(&h);
}
static dart_ret_t c_waitall(struct args *a)
{
  dart_handle_t h[1] = { a->handle };
  return dart_waitall(h, 1);
}
static dart_ret_t c_waitall_local(struct args *a)
{
  dart_handle_t h[1] = { a->handle };
  return dart_waitall_local(h, 1);
}
static dart_ret_t c_test(struct args *a)
{
  dart_handle_t h = a->handle;
  int32_t done;
  return dart_test(&h, &done);
}
static dart_ret_t c_test_local(struct args *a)
{
  dart_handle_t h = a->handle;
  int32_t done;
  return dart_test_local(&h, &done);
}
static dart_ret_t c_testall(struct args *a)
{
  dart_handle_t h[1] = { a->handle };
  int32_t done;
  return dart_testall(h, 1, &done);
}
static dart_ret_t c_testall_local(struct args *a)
{
  dart_handle_t h[1] = { a->handle };
  int32_t done;
  return dart_testall_local(h, 1, &done);
}
static dart_ret_t c_handle_free(struct args *a)
{
  dart_handle_t h = a->handle;
  return dart_handle_free(&h);
}
static dart_ret_t c_gptr_getaddr(struct args *a)
{
  void *p;
  return dart_gptr_getaddr(a->gptr, &p);
}
static dart_ret_t c_gptr_setaddr(struct args *a)
{
  dart_gptr_t g = a->gptr;
  return dart_gptr_setaddr(&g, a->buf);
}
static dart_ret_t c_gptr_getflags(struct args *a)
{
  uint16_t f;
  return dart_gptr_getflags(a->gptr, &f);
}
static dart_ret_t c_gptr_setflags(struct args *a)
{
  dart_gptr_t g = a->gptr;
  return dart_gptr_setflags(&g, 1);
}
static dart_ret_t c_allocator_new(struct args *a)
{
  dart_allocator_t al = NULL;
  dart_ret_t ret = dart_allocator_new(4096, a->team, &al);
  if (ret == DART_OK) {
    dart_allocator_destroy(&al);
  }
  return ret;
}
static dart_ret_t c_allocator_alloc(struct args *a)
{
  dart_gptr_t g;
  return dart_allocator_alloc(1, DART_TYPE_LONG, &g, a->allocator);
}
static dart_ret_t c_allocator_free(struct args *a)
{
  dart_gptr_t g = a->gptr;
  return dart_allocator_free(&g, a->allocator);
}
static dart_ret_t c_allocator_destroy(struct args *a)
{
  dart_allocator_t al = a->allocator;
  return dart_allocator_destroy(&al);
}
static dart_ret_t c_memalloc(struct args *a)
{
  (void)a;
  dart_gptr_t g;
  dart_ret_t ret = dart_memalloc(1, DART_TYPE_LONG, &g);
  if (ret == DART_OK) {
    dart_memfree(g);
  }
  return ret;
}
static dart_ret_t c_memfree(struct args *a) { return dart_memfree(a->gptr); }
static dart_ret_t c_team_memalloc(struct args *a)
{
  dart_gptr_t g;
  return dart_team_memalloc_aligned(a->team, 1, DART_TYPE_LONG, &g);
}
static dart_ret_t c_team_memfree(struct args *a)
{
  return dart_team_memfree(a->gptr);
}
static dart_ret_t c_team_memregister(struct args *a)
{
  dart_gptr_t g;
  return dart_team_memregister(a->team, 1, DART_TYPE_LONG, a->buf, &g);
}
static dart_ret_t c_team_memregister_aligned(struct args *a)
{
  dart_gptr_t g;
  return dart_team_memregister_aligned(a->team, 1, DART_TYPE_LONG, a->buf,
                                       &g);
}
static dart_ret_t c_team_memderegister(struct args *a)
{
  return dart_team_memderegister(a->gptr);
}
static dart_ret_t c_group_create(struct args *a)
{
  (void)a;
  dart_group_t g = DART_GROUP_NULL;
  dart_ret_t ret = dart_group_create(&g);
  if (ret == DART_OK) {
    dart_group_destroy(&g);
  }
  return ret;
}
static dart_ret_t c_group_destroy(struct args *a)
{
  dart_group_t g = a->group;
  return dart_group_destroy(&g);
}
static dart_ret_t c_group_clone(struct args *a)
{
  dart_group_t g = DART_GROUP_NULL;
  return dart_group_clone(a->group, &g);
}
static dart_ret_t c_group_union(struct args *a)
{
  dart_group_t g = DART_GROUP_NULL;
  return dart_group_union(a->group, a->group, &g);
}
static dart_ret_t c_group_intersect(struct args *a)
{
  dart_group_t g = DART_GROUP_NULL;
  return dart_group_intersect(a->group, a->group, &g);
}
static dart_ret_t c_group_addmember(struct args *a)
{
  return dart_group_addmember(a->group, DART_GLOBAL_UNIT_ID(0));
}
static dart_ret_t c_group_delmember(struct args *a)
{
  return dart_group_delmember(a->group, DART_GLOBAL_UNIT_ID(0));
}
static dart_ret_t c_group_ismember(struct args *a)
{
  int32_t is;
  return dart_group_ismember(a->group, DART_GLOBAL_UNIT_ID(0), &is);
}
static dart_ret_t c_group_size(struct args *a)
{
  size_t n;
  return dart_group_size(a->group, &n);
}
static dart_ret_t c_group_getmembers(struct args *a)
{
  dart_global_unit_t ids[64];
  return dart_group_getmembers(a->group, ids);
}
static dart_ret_t c_group_split(struct args *a)
{
  size_t nout;
  dart_group_t out[1] = { DART_GROUP_NULL };
  return dart_group_split(a->group, 1, &nout, out);
}
static dart_ret_t c_group_locality_split(struct args *a)
{
  size_t nout;
  dart_group_t out[1] = { DART_GROUP_NULL };
  return dart_group_locality_split(a->group, a->domain,
                                   DART_LOCALITY_SCOPE_NODE, 1, &nout, out);
}
static dart_ret_t c_team_get_group(struct args *a)
{
  dart_group_t g = DART_GROUP_NULL;
  return dart_team_get_group(a->team, &g);
}
static dart_ret_t c_team_create(struct args *a)
{
  dart_team_t t;
  return dart_team_create(a->team, a->group, &t);
}
static dart_ret_t c_team_clone(struct args *a)
{
  dart_team_t t;
  return dart_team_clone(a->team, &t);
}
static dart_ret_t c_team_destroy(struct args *a)
{
  dart_team_t t = a->team;
  return dart_team_destroy(&t);
}
static dart_ret_t c_team_myid(struct args *a)
{
  dart_team_unit_t u;
  return dart_team_myid(a->team, &u);
}
static dart_ret_t c_team_size(struct args *a)
{
  size_t n;
  return dart_team_size(a->team, &n);
}
static dart_ret_t c_team_unit_l2g(struct args *a)
{
  dart_global_unit_t u;
  return dart_team_unit_l2g(a->team, DART_TEAM_UNIT_ID(0), &u);
}
static dart_ret_t c_team_unit_g2l(struct args *a)
{
  dart_team_unit_t u;
  return dart_team_unit_g2l(a->team, DART_GLOBAL_UNIT_ID(0), &u);
}
static dart_ret_t c_type_create_strided(struct args *a)
{
  (void)a;
  dart_datatype_t t;
  return dart_type_create_strided(DART_TYPE_LONG, 4, 2, &t);
}
static dart_ret_t c_type_create_indexed(struct args *a)
{
  (void)a;
  size_t bl[1] = { 1 }, off[1] = { 0 };
  dart_datatype_t t;
  return dart_type_create_indexed(DART_TYPE_LONG, 1, bl, off, &t);
}
static dart_ret_t c_type_create_custom(struct args *a)
{
  (void)a;
  dart_datatype_t t;
  return dart_type_create_custom(24, &t);
}
static dart_ret_t c_type_destroy(struct args *a)
{
  dart_datatype_t t = a->type;
  return dart_type_destroy(&t);
}
static dart_ret_t c_op_create(struct args *a)
{
  (void)a;
  dart_operation_t op;
  return dart_op_create(user_op, NULL, true, DART_TYPE_LONG, false, &op);
}
static dart_ret_t c_op_destroy(struct args *a)
{
  dart_operation_t op = a->op;
  return dart_op_destroy(&op);
}
static dart_ret_t c_team_lock_init(struct args *a)
{
  dart_lock_t l = NULL;
  return dart_team_lock_init(a->team, &l);
}
static dart_ret_t c_team_lock_destroy(struct args *a)
{
  dart_lock_t l = a->lock;
  return dart_team_lock_destroy(&l);
}
static dart_ret_t c_lock_acquire(struct args *a)
{
  return dart_lock_acquire(a->lock);
}
static dart_ret_t c_lock_try_acquire(struct args *a)
{
  int32_t got;
  return dart_lock_try_acquire(a->lock, &got);
}
static dart_ret_t c_lock_release(struct args *a)
{
  return dart_lock_release(a->lock);
}
static dart_ret_t c_team_locality_init(struct args *a)
{
  return dart_team_locality_init(a->team);
}
static dart_ret_t c_team_locality_finalize(struct args *a)
{
  return dart_team_locality_finalize(a->team);
}
static dart_ret_t c_domain_team_locality(struct args *a)
{
  dart_domain_locality_t *d;
  return dart_domain_team_locality(a->team, ".", &d);
}
static dart_ret_t c_unit_locality(struct args *a)
{
  dart_unit_locality_t *l;
  return dart_unit_locality(a->team, DART_TEAM_UNIT_ID(0), &l);
}
static dart_ret_t c_domain_create(struct args *a)
{
  (void)a;
  dart_domain_locality_t *d;
  return dart_domain_create(&d);
}
static dart_ret_t c_domain_clone(struct args *a)
{
  dart_domain_locality_t *d;
  return dart_domain_clone(a->domain, &d);
}
static dart_ret_t c_domain_destroy(struct args *a)
{
  return dart_domain_destroy(a->domain);
}
static dart_ret_t c_domain_assign(struct args *a)
{
  return dart_domain_assign(a->domain, a->domain);
}
static dart_ret_t c_domain_find(struct args *a)
{
  dart_domain_locality_t *d;
  return dart_domain_find(a->domain, ".", &d);
}
static dart_ret_t c_domain_select(struct args *a)
{
  const char *tags[1] = { "." };
  return dart_domain_select(a->domain, 1, tags);
}
static dart_ret_t c_domain_exclude(struct args *a)
{
  const char *tags[1] = { ".0" };
  return dart_domain_exclude(a->domain, 1, tags);
}
static dart_ret_t c_domain_add_subdomain(struct args *a)
{
  return dart_domain_add_subdomain(a->domain, a->domain, 0);
}
static dart_ret_t c_domain_move_subdomain(struct args *a)
{
  return dart_domain_move_subdomain(a->domain, a->domain, 0);
}
static dart_ret_t c_domain_split_scope(struct args *a)
{
  dart_domain_locality_t parts[1];
  return dart_domain_split_scope(a->domain, DART_LOCALITY_SCOPE_NODE, 1,
                                 parts);
}
static dart_ret_t c_domain_scope_tags(struct args *a)
{
  int n;
  char **tags;
  return dart_domain_scope_tags(a->domain, DART_LOCALITY_SCOPE_NODE, &n,
                                &tags);
}
static dart_ret_t c_domain_scope_domains(struct args *a)
{
  int n;
  dart_domain_locality_t **ds;
  return dart_domain_scope_domains(a->domain, DART_LOCALITY_SCOPE_NODE, &n,
                                   &ds);
}
static dart_ret_t c_domain_group(struct args *a)
{
  const char *tags[1] = { ".0" };
  char out[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
  return dart_domain_group(a->domain, 1, tags, out);
}

/* Every public call that returns dart_ret_t, except dart_init,
 * dart_init_thread (they start the runtime), the header-inline
 * dart_gptr_incaddr / dart_gptr_setunit (pure arithmetic on a gptr) and
 * the HDF5 helper of dart_io.h, which this runtime does not build. */
#define CALL(n) { #n, c_##n, false }
/* The dart_domain_* calls that take a domain object work on that object
 * alone (malloc'd trees the caller holds), like the group calls of other
 * PGAS runtimes; they need no runtime and are exempt from the rule. */
#define PURE(n) { #n, c_##n, true }
static const struct call calls[] = {
  CALL(myid), CALL(size), CALL(exit), CALL(barrier), CALL(bcast),
  CALL(scatter), CALL(gather), CALL(allgather), CALL(allgatherv),
  CALL(allreduce), CALL(alltoall), CALL(reduce), CALL(send), CALL(recv),
  CALL(sendrecv), CALL(accumulate), CALL(accumulate_local),
  CALL(fetch_and_op), CALL(cas), CALL(get), CALL(put), CALL(get_blocking),
  CALL(put_blocking), CALL(get_handle), CALL(put_handle), CALL(flush),
  CALL(flush_all), CALL(flush_local), CALL(flush_local_all), CALL(wait),
  CALL(wait_local), CALL(waitall), CALL(waitall_local), CALL(test),
  CALL(test_local), CALL(testall), CALL(testall_local), CALL(handle_free),
  CALL(gptr_getaddr), CALL(gptr_setaddr), CALL(gptr_getflags),
  CALL(gptr_setflags), CALL(allocator_new), CALL(allocator_alloc),
  CALL(allocator_free), CALL(allocator_destroy), CALL(memalloc),
  CALL(memfree), CALL(team_memalloc), CALL(team_memfree),
  CALL(team_memregister), CALL(team_memregister_aligned),
  CALL(team_memderegister), CALL(group_create), CALL(group_destroy),
  CALL(group_clone), CALL(group_union), CALL(group_intersect),
  CALL(group_addmember), CALL(group_delmember), CALL(group_ismember),
  CALL(group_size), CALL(group_getmembers), CALL(group_split),
  CALL(group_locality_split), CALL(team_get_group), CALL(team_create),
  CALL(team_clone), CALL(team_destroy), CALL(team_myid), CALL(team_size),
  CALL(team_unit_l2g), CALL(team_unit_g2l), CALL(type_create_strided),
  CALL(type_create_indexed), CALL(type_create_custom), CALL(type_destroy),
  CALL(op_create), CALL(op_destroy), CALL(team_lock_init),
  CALL(team_lock_destroy), CALL(lock_acquire), CALL(lock_try_acquire),
  CALL(lock_release), CALL(team_locality_init), CALL(team_locality_finalize),
  CALL(domain_team_locality), CALL(unit_locality), PURE(domain_create),
  PURE(domain_clone), PURE(domain_destroy), PURE(domain_assign),
  PURE(domain_find), PURE(domain_select), PURE(domain_exclude),
  PURE(domain_add_subdomain), PURE(domain_move_subdomain),
  PURE(domain_split_scope), PURE(domain_scope_tags),
  PURE(domain_scope_domains), PURE(domain_group),
};
#undef CALL
#undef PURE
#define NCALLS (sizeof calls / sizeof *calls)

/* The failure names the phase and the call: the line is expect's. */
static void expect(const char *phase, const struct call *c, dart_ret_t got,
                   dart_ret_t want)
{
  if (got != want) {
    FAILF("%s: dart_%s returned %d, expected %d", phase, c->name, (int)got,
          (int)want);
  }
}

/* Buffers the calls were handed must be untouched when they fail. */
static void fill(struct args *a)
{
  memset(a->buf, 0x5a, sizeof a->buf);
  memset(a->out, 0xa5, sizeof a->out);
}

static bool untouched(const struct args *a)
{
  for (size_t i = 0; i < sizeof a->buf; ++i) {
    if (((const unsigned char *)a->buf)[i] != 0x5a ||
        ((const unsigned char *)a->out)[i] != 0xa5) {
      return false;
    }
  }
  return true;
}

/* Not initialized (before dart_init, after dart_exit): every call is
 * DART_ERR_NOTINIT and writes nothing. */
static void check_not_initialized(const char *phase, struct args *a)
{
  ASSERT(!dart_initialized());
  for (size_t i = 0; i < NCALLS; ++i) {
    if (calls[i].pure) {
      continue;
    }
    fill(a);
    expect(phase, &calls[i], calls[i].fn(a), DART_ERR_NOTINIT);
    if (!untouched(a)) {
      FAILF("%s: dart_%s wrote a caller's buffer", phase, calls[i].name);
    }
  }
  ASSERT(!dart_lock_initialized(NULL));
}

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

static void before_during_after(void)
{
  struct args a;
  memset(&a, 0, sizeof a);
  /* Values a program could hold: DART_TEAM_ALL, a gptr of segment 0, the
   * first custom type id, and non-NULL handles that point at memory. */
  a.gptr = DART_GPTR_NULL;
  a.gptr.segid = 0;
  a.team = DART_TEAM_ALL;
  a.type = (dart_datatype_t)300; /* a custom type id's range */
  a.op = DART_OP_SUM;
  static char dummy[256];
  a.group = (dart_group_t)dummy;
  a.lock = (dart_lock_t)dummy;
  a.handle = (dart_handle_t)dummy;
  a.allocator = (dart_allocator_t)dummy;
  a.domain = (dart_domain_locality_t *)dummy;
  char before_dummy[sizeof dummy];
  memcpy(before_dummy, dummy, sizeof dummy);

  check_not_initialized("before dart_init", &a);

  ASSERT_OK(dart_init(&test_argc, &test_argv));
  size_t units = 0;
  ASSERT_OK(dart_size(&units));
  struct args live = a;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 16, DART_TYPE_LONG,
                                       &live.gptr));
  check_stale(&live, (int)units);
  ASSERT_OK(dart_team_memfree(live.gptr));
  dart_global_unit_t me;
  ASSERT_OK(dart_myid(&me));
  /* A lock still alive at dart_exit: the handle a program kept. */
  dart_lock_t open_lock = NULL;
  ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &open_lock));
  ASSERT_OK(dart_exit());
  a.lock = open_lock;

  a.gptr = live.gptr;
  check_not_initialized("after dart_exit", &a);
  ASSERT_MSG(memcmp(before_dummy, dummy, sizeof dummy) == 0,
             "a call wrote through a stale handle");
  if (me.id == 0) {
    printf("test_lifecycle: %zu calls checked, %zu units passed\n",
           (size_t)NCALLS, units);
  }
}

static const struct test_case cases[] = {
  { "before_during_after", before_during_after },
};

int main(int argc, char **argv)
{
  return test_run(argc, argv, TEST_CASES(cases));
}
