/* Non-collective global memory. dart_memalloc takes blocks from the
 * caller's part of the local pool, segment 0 of DART_TEAM_ALL, created
 * at init in node-shared memory inside the dynamic window, so node peers
 * reach it by load/store and every other unit by RMA from the moment a
 * block is handed out. dart_allocator_* do the same on a collective
 * segment of any team. The bookkeeping is a private buddy allocator per
 * pool; the pool memory itself is never touched by it. */
#include "globmem.h"
#include "local_pool.h"
#include "datatype.h"
#include "runtime.h"
#include "team.h"
#include "../base/buddy_allocator.h"
#include "../base/handle_table.h"

#include <dash/dart/if/dart_globmem.h>

#include <pthread.h>
#include <stdlib.h>

struct block_pool {
  struct buddy_allocator *buddy;
  pthread_mutex_t         lock; /* memalloc/memfree are MT-safe */
};

static struct block_pool local_pool = { NULL, PTHREAD_MUTEX_INITIALIZER };

/* A pool hands out a block of `bytes`; -1 when exhausted. */
static int pool_take(struct block_pool *pool, size_t bytes, size_t *offset)
{
  pthread_mutex_lock(&pool->lock);
  int rc = buddy_alloc(pool->buddy, bytes, offset);
  pthread_mutex_unlock(&pool->lock);
  return rc;
}

static int pool_give_back(struct block_pool *pool, size_t offset)
{
  pthread_mutex_lock(&pool->lock);
  int rc = buddy_free(pool->buddy, offset);
  pthread_mutex_unlock(&pool->lock);
  return rc;
}

/* Bytes of `nelem` elements of a contiguous type; logs on failure. */
static dart_ret_t block_bytes(const char *call, size_t nelem,
                              dart_datatype_t dtype, size_t *bytes)
{
  const struct datatype *type = datatype_contiguous_or_report(call, dtype);
  if (type == NULL) {
    return DART_ERR_INVAL;
  }
  if (nelem > SIZE_MAX / type->base_size) {
    return report_error(DART_ERR_INVAL, call, "%zu elements of %zu bytes "
                        "overflow the address space", nelem,
                        type->base_size);
  }
  *bytes = nelem * type->base_size;
  return DART_OK;
}

dart_ret_t local_pool_init(const char *call, size_t bytes)
{
  local_pool.buddy = buddy_create(bytes);
  if (local_pool.buddy == NULL) {
    return report_error(DART_ERR_NOMEM, call, "cannot manage a local pool "
                        "of %zu bytes", bytes);
  }
  /* The buddy manages a power of two; share exactly that much. */
  dart_ret_t ret = team_allocate_local_pool(
    call, team_lookup(DART_TEAM_ALL), buddy_capacity(local_pool.buddy));
  if (ret != DART_OK) {
    buddy_destroy(local_pool.buddy);
    local_pool.buddy = NULL;
  }
  return ret;
}

void local_pool_finalize(void)
{
  buddy_destroy(local_pool.buddy);
  local_pool.buddy = NULL;
}

dart_ret_t dart_memalloc(size_t nelem, dart_datatype_t dtype,
                         dart_gptr_t *gptr)
{
  REQUIRE_INIT();
  if (gptr == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "gptr is NULL");
  }
  *gptr = DART_GPTR_NULL;
  size_t bytes = 0, offset = 0;
  if (block_bytes(__func__, nelem, dtype, &bytes) != DART_OK) {
    return DART_ERR_INVAL;
  }
  if (pool_take(&local_pool, bytes, &offset) != 0) {
    return report_error(DART_ERR_NOMEM, __func__,
                        "local pool of %zu bytes has no free block of %zu "
                        "bytes (DART_LOCAL_POOL_MIB sets its size)",
                        buddy_capacity(local_pool.buddy), bytes);
  }
  *gptr = (dart_gptr_t){ .unitid = runtime.myid, .flags = 0,
                         .segid = DART_SEGMENT_LOCAL,
                         .teamid = DART_TEAM_ALL,
                         .addr_or_offs.offset = offset };
  return DART_OK;
}

dart_ret_t dart_memfree(dart_gptr_t gptr)
{
  REQUIRE_INIT();
  if (gptr.segid != DART_SEGMENT_LOCAL || gptr.teamid != DART_TEAM_ALL) {
    return report_error(DART_ERR_INVAL, __func__,
                        "gptr (team %d, segment %d) is not from "
                        "dart_memalloc", (int)gptr.teamid, (int)gptr.segid);
  }
  if (gptr.unitid != runtime.myid) {
    return report_error(DART_ERR_INVAL, __func__,
                        "block belongs to unit %d; only its owner frees it",
                        (int)gptr.unitid);
  }
  if (pool_give_back(&local_pool, gptr.addr_or_offs.offset) != 0) {
    return report_error(DART_ERR_INVAL, __func__,
                        "offset %llu is not a live block (double free?)",
                        (unsigned long long)gptr.addr_or_offs.offset);
  }
  return DART_OK;
}

/* --- dart_allocator_*: the same over a collective segment --- */

struct allocator {
  struct block_pool pool;
  dart_gptr_t       segment; /* unitid 0, offset 0 */
};

/* dart_allocator_t values are ids of this table, so a destroyed or
 * made-up allocator is rejected rather than dereferenced. */
static struct handle_table allocators = HANDLE_TABLE_INITIALIZER;

static struct allocator *allocator_of(const char *call, dart_allocator_t a)
{
  struct allocator *alloc = handle_table_lookup(&allocators,
                                                (intptr_t)(uintptr_t)a);
  if (alloc == NULL) {
    report_error(DART_ERR_INVAL, call, "allocator %p is not live",
                 (void *)a);
  }
  return alloc;
}

dart_ret_t dart_allocator_new(size_t pool_size, dart_team_t team,
                              dart_allocator_t *new_allocator)
{
  REQUIRE_INIT();
  if (new_allocator == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "new_allocator is NULL");
  }
  *new_allocator = NULL;
  if (pool_size == 0 || pool_size > (SIZE_MAX >> 2)) {
    return report_error(DART_ERR_INVAL, __func__,
                        "pool_size %zu is out of range", pool_size);
  }
  size_t rounded = BUDDY_MIN_BLOCK;
  while (rounded < pool_size) {
    rounded <<= 1; /* spec: round up to a power of two */
  }
  struct allocator *alloc = calloc(1, sizeof *alloc);
  if (alloc == NULL) {
    return report_error(DART_ERR_NOMEM, __func__, "out of memory");
  }
  pthread_mutex_init(&alloc->pool.lock, NULL);
  alloc->pool.buddy = buddy_create(rounded);
  /* Every member enters the collective allocation, even after a local
   * failure above, so nobody is left waiting; the failure is then
   * reported after it. */
  dart_ret_t ret = dart_team_memalloc_aligned(team, rounded, DART_TYPE_BYTE,
                                              &alloc->segment);
  intptr_t id = 0;
  if (ret == DART_OK && alloc->pool.buddy != NULL) {
    id = handle_table_insert(&allocators, alloc);
  }
  if (id == 0) {
    if (ret == DART_OK) {
      dart_team_memfree(alloc->segment);
      ret = report_error(DART_ERR_NOMEM, __func__, "out of memory");
    }
    buddy_destroy(alloc->pool.buddy);
    pthread_mutex_destroy(&alloc->pool.lock);
    free(alloc);
    return ret;
  }
  *new_allocator = (dart_allocator_t)(uintptr_t)id;
  return DART_OK;
}

dart_ret_t dart_allocator_alloc(size_t nelem, dart_datatype_t dtype,
                                dart_gptr_t *gptr, dart_allocator_t allocator)
{
  REQUIRE_INIT();
  if (gptr == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "gptr is NULL");
  }
  *gptr = DART_GPTR_NULL;
  struct allocator *alloc = allocator_of(__func__, allocator);
  size_t bytes = 0, offset = 0;
  if (alloc == NULL ||
      block_bytes(__func__, nelem, dtype, &bytes) != DART_OK) {
    return DART_ERR_INVAL;
  }
  if (pool_take(&alloc->pool, bytes, &offset) != 0) {
    return report_error(DART_ERR_NOMEM, __func__,
                        "allocator pool has no free block of %zu bytes",
                        bytes);
  }
  struct team *team = team_lookup(alloc->segment.teamid);
  *gptr = alloc->segment;
  gptr->unitid = team->my_rank;
  gptr->addr_or_offs.offset = offset;
  return DART_OK;
}

dart_ret_t dart_allocator_free(dart_gptr_t *gptr, dart_allocator_t allocator)
{
  REQUIRE_INIT();
  if (gptr == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "gptr is NULL");
  }
  struct allocator *alloc = allocator_of(__func__, allocator);
  if (alloc == NULL) {
    return DART_ERR_INVAL;
  }
  struct team *team = team_lookup(alloc->segment.teamid);
  if (gptr->teamid != alloc->segment.teamid ||
      gptr->segid != alloc->segment.segid || team == NULL ||
      gptr->unitid != team->my_rank) {
    return report_error(DART_ERR_INVAL, __func__,
                        "gptr is not a block this unit took from this "
                        "allocator");
  }
  if (pool_give_back(&alloc->pool, gptr->addr_or_offs.offset) != 0) {
    return report_error(DART_ERR_INVAL, __func__,
                        "offset %llu is not a live block (double free?)",
                        (unsigned long long)gptr->addr_or_offs.offset);
  }
  *gptr = DART_GPTR_NULL;
  return DART_OK;
}

dart_ret_t dart_allocator_destroy(dart_allocator_t *allocator)
{
  REQUIRE_INIT();
  if (allocator == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "allocator is NULL");
  }
  struct allocator *alloc = handle_table_remove(
    &allocators, (intptr_t)(uintptr_t)*allocator);
  if (alloc == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "allocator %p is not live",
                        (void *)*allocator);
  }
  dart_ret_t ret = dart_team_memfree(alloc->segment);
  buddy_destroy(alloc->pool.buddy);
  pthread_mutex_destroy(&alloc->pool.lock);
  free(alloc);
  *allocator = NULL;
  return ret;
}

static void allocator_forget(void *entry)
{
  struct allocator *alloc = entry;
  buddy_destroy(alloc->pool.buddy);
  pthread_mutex_destroy(&alloc->pool.lock);
  free(alloc);
}

void allocators_finalize(void)
{
  /* Their segments go with their teams. */
  handle_table_clear(&allocators, allocator_forget);
}
