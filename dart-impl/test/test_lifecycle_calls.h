/* The lifecycle table's calls, part 1: the arguments every call takes
 * and one function per call of dart_communication.h and dart_globmem.h
 * (dart-if/include/dash/dart/if/). test_lifecycle_table.h holds the rest
 * and the table; test_lifecycle_notinit.c and test_lifecycle_stale.c run
 * it. */
#ifndef DART_TEST_LIFECYCLE_CALLS_H
#define DART_TEST_LIFECYCLE_CALLS_H

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

static inline void user_op(const void *in, void *inout, size_t len, void *data)
{
  (void)in;
  (void)inout;
  (void)len;
  (void)data;
}

/* One function per call keeps the table readable and lets a failure name
 * the call. */
static inline dart_ret_t c_myid(struct args *a)
{
  (void)a;
  dart_global_unit_t u;
  return dart_myid(&u);
}
static inline dart_ret_t c_size(struct args *a)
{
  (void)a;
  size_t n;
  return dart_size(&n);
}
static inline dart_ret_t c_exit(struct args *a)
{
  (void)a;
  return dart_exit();
}
static inline dart_ret_t c_barrier(struct args *a)
{
  return dart_barrier(a->team);
}
static inline dart_ret_t c_bcast(struct args *a)
{
  return dart_bcast(a->buf, 1, DART_TYPE_LONG, DART_TEAM_UNIT_ID(0), a->team);
}
static inline dart_ret_t c_scatter(struct args *a)
{
  return dart_scatter(a->buf, a->out, 1, DART_TYPE_LONG, DART_TEAM_UNIT_ID(0),
                      a->team);
}
static inline dart_ret_t c_gather(struct args *a)
{
  return dart_gather(a->buf, a->out, 1, DART_TYPE_LONG, DART_TEAM_UNIT_ID(0),
                     a->team);
}
static inline dart_ret_t c_allgather(struct args *a)
{
  return dart_allgather(a->buf, a->out, 1, DART_TYPE_LONG, a->team);
}
static inline dart_ret_t c_allgatherv(struct args *a)
{
  size_t counts[1] = { 1 }, displs[1] = { 0 };
  return dart_allgatherv(a->buf, 1, DART_TYPE_LONG, a->out, counts, displs,
                         a->team);
}
static inline dart_ret_t c_allreduce(struct args *a)
{
  return dart_allreduce(a->buf, a->out, 1, DART_TYPE_LONG, DART_OP_SUM,
                        a->team);
}
static inline dart_ret_t c_alltoall(struct args *a)
{
  return dart_alltoall(a->buf, a->out, 1, DART_TYPE_LONG, a->team);
}
static inline dart_ret_t c_reduce(struct args *a)
{
  return dart_reduce(a->buf, a->out, 1, DART_TYPE_LONG, DART_OP_SUM,
                     DART_TEAM_UNIT_ID(0), a->team);
}
static inline dart_ret_t c_send(struct args *a)
{
  return dart_send(a->buf, 1, DART_TYPE_LONG, 1, DART_GLOBAL_UNIT_ID(0));
}
static inline dart_ret_t c_recv(struct args *a)
{
  return dart_recv(a->out, 1, DART_TYPE_LONG, 1, DART_GLOBAL_UNIT_ID(0));
}
static inline dart_ret_t c_sendrecv(struct args *a)
{
  return dart_sendrecv(a->buf, 1, DART_TYPE_LONG, 1, DART_GLOBAL_UNIT_ID(0),
                       a->out, 1, DART_TYPE_LONG, 1, DART_GLOBAL_UNIT_ID(0));
}
static inline dart_ret_t c_accumulate(struct args *a)
{
  return dart_accumulate(a->gptr, a->buf, 1, DART_TYPE_LONG, DART_OP_SUM);
}
static inline dart_ret_t c_accumulate_local(struct args *a)
{
  return dart_accumulate_blocking_local(a->gptr, a->buf, 1, DART_TYPE_LONG,
                                        DART_OP_SUM);
}
static inline dart_ret_t c_fetch_and_op(struct args *a)
{
  return dart_fetch_and_op(a->gptr, a->buf, a->out, DART_TYPE_LONG,
                           DART_OP_SUM);
}
static inline dart_ret_t c_cas(struct args *a)
{
  return dart_compare_and_swap(a->gptr, a->buf, a->buf + 1, a->out,
                               DART_TYPE_LONG);
}
static inline dart_ret_t c_get(struct args *a)
{
  return dart_get(a->out, a->gptr, 1, DART_TYPE_LONG, DART_TYPE_LONG);
}
static inline dart_ret_t c_put(struct args *a)
{
  return dart_put(a->gptr, a->buf, 1, DART_TYPE_LONG, DART_TYPE_LONG);
}
static inline dart_ret_t c_get_blocking(struct args *a)
{
  return dart_get_blocking(a->out, a->gptr, 1, DART_TYPE_LONG,
                           DART_TYPE_LONG);
}
static inline dart_ret_t c_put_blocking(struct args *a)
{
  return dart_put_blocking(a->gptr, a->buf, 1, DART_TYPE_LONG,
                           DART_TYPE_LONG);
}
static inline dart_ret_t c_get_handle(struct args *a)
{
  dart_handle_t h = DART_HANDLE_NULL;
  dart_ret_t ret = dart_get_handle(a->out, a->gptr, 1, DART_TYPE_LONG,
                                   DART_TYPE_LONG, &h);
  if (ret == DART_OK) {
    dart_wait(&h);
  }
  return ret;
}
static inline dart_ret_t c_put_handle(struct args *a)
{
  dart_handle_t h = DART_HANDLE_NULL;
  dart_ret_t ret = dart_put_handle(a->gptr, a->buf, 1, DART_TYPE_LONG,
                                   DART_TYPE_LONG, &h);
  if (ret == DART_OK) {
    dart_wait(&h);
  }
  return ret;
}
static inline dart_ret_t c_flush(struct args *a) { return dart_flush(a->gptr); }
static inline dart_ret_t c_flush_all(struct args *a)
{
  return dart_flush_all(a->gptr);
}
static inline dart_ret_t c_flush_local(struct args *a)
{
  return dart_flush_local(a->gptr);
}
static inline dart_ret_t c_flush_local_all(struct args *a)
{
  return dart_flush_local_all(a->gptr);
}
static inline dart_ret_t c_wait(struct args *a)
{
  dart_handle_t h = a->handle;
  return dart_wait(&h);
}
static inline dart_ret_t c_wait_local(struct args *a)
{
  dart_handle_t h = a->handle;
  return dart_wait_local(&h);
}
static inline dart_ret_t c_waitall(struct args *a)
{
  dart_handle_t h[1] = { a->handle };
  return dart_waitall(h, 1);
}
static inline dart_ret_t c_waitall_local(struct args *a)
{
  dart_handle_t h[1] = { a->handle };
  return dart_waitall_local(h, 1);
}
static inline dart_ret_t c_test(struct args *a)
{
  dart_handle_t h = a->handle;
  int32_t done;
  return dart_test(&h, &done);
}
static inline dart_ret_t c_test_local(struct args *a)
{
  dart_handle_t h = a->handle;
  int32_t done;
  return dart_test_local(&h, &done);
}
static inline dart_ret_t c_testall(struct args *a)
{
  dart_handle_t h[1] = { a->handle };
  int32_t done;
  return dart_testall(h, 1, &done);
}
static inline dart_ret_t c_testall_local(struct args *a)
{
  dart_handle_t h[1] = { a->handle };
  int32_t done;
  return dart_testall_local(h, 1, &done);
}
static inline dart_ret_t c_handle_free(struct args *a)
{
  dart_handle_t h = a->handle;
  return dart_handle_free(&h);
}
static inline dart_ret_t c_gptr_getaddr(struct args *a)
{
  void *p;
  return dart_gptr_getaddr(a->gptr, &p);
}
static inline dart_ret_t c_gptr_setaddr(struct args *a)
{
  dart_gptr_t g = a->gptr;
  return dart_gptr_setaddr(&g, a->buf);
}
static inline dart_ret_t c_gptr_getflags(struct args *a)
{
  uint16_t f;
  return dart_gptr_getflags(a->gptr, &f);
}
static inline dart_ret_t c_gptr_setflags(struct args *a)
{
  dart_gptr_t g = a->gptr;
  return dart_gptr_setflags(&g, 1);
}
static inline dart_ret_t c_allocator_new(struct args *a)
{
  dart_allocator_t al = NULL;
  dart_ret_t ret = dart_allocator_new(4096, a->team, &al);
  if (ret == DART_OK) {
    dart_allocator_destroy(&al);
  }
  return ret;
}
static inline dart_ret_t c_allocator_alloc(struct args *a)
{
  dart_gptr_t g;
  return dart_allocator_alloc(1, DART_TYPE_LONG, &g, a->allocator);
}
static inline dart_ret_t c_allocator_free(struct args *a)
{
  dart_gptr_t g = a->gptr;
  return dart_allocator_free(&g, a->allocator);
}
static inline dart_ret_t c_allocator_destroy(struct args *a)
{
  dart_allocator_t al = a->allocator;
  return dart_allocator_destroy(&al);
}
static inline dart_ret_t c_memalloc(struct args *a)
{
  (void)a;
  dart_gptr_t g;
  dart_ret_t ret = dart_memalloc(1, DART_TYPE_LONG, &g);
  if (ret == DART_OK) {
    dart_memfree(g);
  }
  return ret;
}
static inline dart_ret_t c_memfree(struct args *a)
{
  return dart_memfree(a->gptr);
}
static inline dart_ret_t c_team_memalloc(struct args *a)
{
  dart_gptr_t g;
  return dart_team_memalloc_aligned(a->team, 1, DART_TYPE_LONG, &g);
}
static inline dart_ret_t c_team_memfree(struct args *a)
{
  return dart_team_memfree(a->gptr);
}
static inline dart_ret_t c_team_memregister(struct args *a)
{
  dart_gptr_t g;
  return dart_team_memregister(a->team, 1, DART_TYPE_LONG, a->buf, &g);
}
static inline dart_ret_t c_team_memregister_aligned(struct args *a)
{
  dart_gptr_t g;
  return dart_team_memregister_aligned(a->team, 1, DART_TYPE_LONG, a->buf,
                                       &g);
}
static inline dart_ret_t c_team_memderegister(struct args *a)
{
  return dart_team_memderegister(a->gptr);
}
#endif
