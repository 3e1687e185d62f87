/* The lifecycle table, part 2: one function per call of
 * dart_team_group.h, dart_types.h, dart_synchronization.h and
 * dart_locality.h (dart-if/include/dash/dart/if/), the table of all calls
 * (a new API function needs one line here), and the checks the programs
 * share. */
#ifndef DART_TEST_LIFECYCLE_TABLE_H
#define DART_TEST_LIFECYCLE_TABLE_H

#include "test_lifecycle_calls.h"

static inline dart_ret_t c_group_create(struct args *a)
{
  (void)a;
  dart_group_t g = DART_GROUP_NULL;
  dart_ret_t ret = dart_group_create(&g);
  if (ret == DART_OK) {
    dart_group_destroy(&g);
  }
  return ret;
}
static inline dart_ret_t c_group_destroy(struct args *a)
{
  dart_group_t g = a->group;
  return dart_group_destroy(&g);
}
static inline dart_ret_t c_group_clone(struct args *a)
{
  dart_group_t g = DART_GROUP_NULL;
  return dart_group_clone(a->group, &g);
}
static inline dart_ret_t c_group_union(struct args *a)
{
  dart_group_t g = DART_GROUP_NULL;
  return dart_group_union(a->group, a->group, &g);
}
static inline dart_ret_t c_group_intersect(struct args *a)
{
  dart_group_t g = DART_GROUP_NULL;
  return dart_group_intersect(a->group, a->group, &g);
}
static inline dart_ret_t c_group_addmember(struct args *a)
{
  return dart_group_addmember(a->group, DART_GLOBAL_UNIT_ID(0));
}
static inline dart_ret_t c_group_delmember(struct args *a)
{
  return dart_group_delmember(a->group, DART_GLOBAL_UNIT_ID(0));
}
static inline dart_ret_t c_group_ismember(struct args *a)
{
  int32_t is;
  return dart_group_ismember(a->group, DART_GLOBAL_UNIT_ID(0), &is);
}
static inline dart_ret_t c_group_size(struct args *a)
{
  size_t n;
  return dart_group_size(a->group, &n);
}
static inline dart_ret_t c_group_getmembers(struct args *a)
{
  dart_global_unit_t ids[64];
  return dart_group_getmembers(a->group, ids);
}
static inline dart_ret_t c_group_split(struct args *a)
{
  size_t nout;
  dart_group_t out[1] = { DART_GROUP_NULL };
  return dart_group_split(a->group, 1, &nout, out);
}
static inline dart_ret_t c_group_locality_split(struct args *a)
{
  size_t nout;
  dart_group_t out[1] = { DART_GROUP_NULL };
  return dart_group_locality_split(a->group, a->domain,
                                   DART_LOCALITY_SCOPE_NODE, 1, &nout, out);
}
static inline dart_ret_t c_team_get_group(struct args *a)
{
  dart_group_t g = DART_GROUP_NULL;
  return dart_team_get_group(a->team, &g);
}
static inline dart_ret_t c_team_create(struct args *a)
{
  dart_team_t t;
  return dart_team_create(a->team, a->group, &t);
}
static inline dart_ret_t c_team_clone(struct args *a)
{
  dart_team_t t;
  return dart_team_clone(a->team, &t);
}
static inline dart_ret_t c_team_destroy(struct args *a)
{
  dart_team_t t = a->team;
  return dart_team_destroy(&t);
}
static inline dart_ret_t c_team_myid(struct args *a)
{
  dart_team_unit_t u;
  return dart_team_myid(a->team, &u);
}
static inline dart_ret_t c_team_size(struct args *a)
{
  size_t n;
  return dart_team_size(a->team, &n);
}
static inline dart_ret_t c_team_unit_l2g(struct args *a)
{
  dart_global_unit_t u;
  return dart_team_unit_l2g(a->team, DART_TEAM_UNIT_ID(0), &u);
}
static inline dart_ret_t c_team_unit_g2l(struct args *a)
{
  dart_team_unit_t u;
  return dart_team_unit_g2l(a->team, DART_GLOBAL_UNIT_ID(0), &u);
}
static inline dart_ret_t c_type_create_strided(struct args *a)
{
  (void)a;
  dart_datatype_t t;
  return dart_type_create_strided(DART_TYPE_LONG, 4, 2, &t);
}
static inline dart_ret_t c_type_create_indexed(struct args *a)
{
  (void)a;
  size_t bl[1] = { 1 }, off[1] = { 0 };
  dart_datatype_t t;
  return dart_type_create_indexed(DART_TYPE_LONG, 1, bl, off, &t);
}
static inline dart_ret_t c_type_create_custom(struct args *a)
{
  (void)a;
  dart_datatype_t t;
  return dart_type_create_custom(24, &t);
}
static inline dart_ret_t c_type_destroy(struct args *a)
{
  dart_datatype_t t = a->type;
  return dart_type_destroy(&t);
}
static inline dart_ret_t c_op_create(struct args *a)
{
  (void)a;
  dart_operation_t op;
  return dart_op_create(user_op, NULL, true, DART_TYPE_LONG, false, &op);
}
static inline dart_ret_t c_op_destroy(struct args *a)
{
  dart_operation_t op = a->op;
  return dart_op_destroy(&op);
}
static inline dart_ret_t c_team_lock_init(struct args *a)
{
  dart_lock_t l = NULL;
  return dart_team_lock_init(a->team, &l);
}
static inline dart_ret_t c_team_lock_destroy(struct args *a)
{
  dart_lock_t l = a->lock;
  return dart_team_lock_destroy(&l);
}
static inline dart_ret_t c_lock_acquire(struct args *a)
{
  return dart_lock_acquire(a->lock);
}
static inline dart_ret_t c_lock_try_acquire(struct args *a)
{
  int32_t got;
  return dart_lock_try_acquire(a->lock, &got);
}
static inline dart_ret_t c_lock_release(struct args *a)
{
  return dart_lock_release(a->lock);
}
static inline dart_ret_t c_team_locality_init(struct args *a)
{
  return dart_team_locality_init(a->team);
}
static inline dart_ret_t c_team_locality_finalize(struct args *a)
{
  return dart_team_locality_finalize(a->team);
}
static inline dart_ret_t c_domain_team_locality(struct args *a)
{
  dart_domain_locality_t *d;
  return dart_domain_team_locality(a->team, ".", &d);
}
static inline dart_ret_t c_unit_locality(struct args *a)
{
  dart_unit_locality_t *l;
  return dart_unit_locality(a->team, DART_TEAM_UNIT_ID(0), &l);
}
static inline dart_ret_t c_domain_create(struct args *a)
{
  (void)a;
  dart_domain_locality_t *d;
  return dart_domain_create(&d);
}
static inline dart_ret_t c_domain_clone(struct args *a)
{
  dart_domain_locality_t *d;
  return dart_domain_clone(a->domain, &d);
}
static inline dart_ret_t c_domain_destroy(struct args *a)
{
  return dart_domain_destroy(a->domain);
}
static inline dart_ret_t c_domain_assign(struct args *a)
{
  return dart_domain_assign(a->domain, a->domain);
}
static inline dart_ret_t c_domain_find(struct args *a)
{
  dart_domain_locality_t *d;
  return dart_domain_find(a->domain, ".", &d);
}
static inline dart_ret_t c_domain_select(struct args *a)
{
  const char *tags[1] = { "." };
  return dart_domain_select(a->domain, 1, tags);
}
static inline dart_ret_t c_domain_exclude(struct args *a)
{
  const char *tags[1] = { ".0" };
  return dart_domain_exclude(a->domain, 1, tags);
}
static inline dart_ret_t c_domain_add_subdomain(struct args *a)
{
  return dart_domain_add_subdomain(a->domain, a->domain, 0);
}
static inline dart_ret_t c_domain_move_subdomain(struct args *a)
{
  return dart_domain_move_subdomain(a->domain, a->domain, 0);
}
static inline dart_ret_t c_domain_split_scope(struct args *a)
{
  dart_domain_locality_t parts[1];
  return dart_domain_split_scope(a->domain, DART_LOCALITY_SCOPE_NODE, 1,
                                 parts);
}
static inline dart_ret_t c_domain_scope_tags(struct args *a)
{
  int n;
  char **tags;
  return dart_domain_scope_tags(a->domain, DART_LOCALITY_SCOPE_NODE, &n,
                                &tags);
}
static inline dart_ret_t c_domain_scope_domains(struct args *a)
{
  int n;
  dart_domain_locality_t **ds;
  return dart_domain_scope_domains(a->domain, DART_LOCALITY_SCOPE_NODE, &n,
                                   &ds);
}
static inline dart_ret_t c_domain_group(struct args *a)
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
static inline void expect(const char *phase, const struct call *c,
                          dart_ret_t got,
                   dart_ret_t want)
{
  if (got != want) {
    FAILF("%s: dart_%s returned %d, expected %d", phase, c->name, (int)got,
          (int)want);
  }
}

/* Buffers the calls were handed must be untouched when they fail. */
static inline void fill(struct args *a)
{
  memset(a->buf, 0x5a, sizeof a->buf);
  memset(a->out, 0xa5, sizeof a->out);
}

static inline bool untouched(const struct args *a)
{
  for (size_t i = 0; i < sizeof a->buf; ++i) {
    if (((const unsigned char *)a->buf)[i] != 0x5a ||
        ((const unsigned char *)a->out)[i] != 0xa5) {
      return false;
    }
  }
  return true;
}


/* Values a program could hold: DART_TEAM_ALL, a gptr of segment 0, the
 * first custom type id, and non-NULL handles that point at `dummy`. */
static inline void plausible_args(struct args *a, char *dummy)
{
  memset(a, 0, sizeof *a);
  a->gptr = DART_GPTR_NULL;
  a->gptr.segid = 0;
  a->team = DART_TEAM_ALL;
  a->type = (dart_datatype_t)300; /* a custom type id's range */
  a->op = DART_OP_SUM;
  a->group = (dart_group_t)dummy;
  a->lock = (dart_lock_t)dummy;
  a->handle = (dart_handle_t)dummy;
  a->allocator = (dart_allocator_t)dummy;
  a->domain = (dart_domain_locality_t *)dummy;
}

#endif
