/* Non-collective global memory. dart_memalloc takes blocks from the
 * caller's local pool, segment 0 of DART_TEAM_ALL: a large node-shared
 * reservation made at init (pool_memory.h), whose committed part is
 * exposed to RMA (pool_exposure.h), so node peers reach a block by
 * load/store and every other unit by RMA from the moment it is handed
 * out. The pool commits the reservation in chunks: the first
 * DART_LOCAL_POOL_MIB at init, and when no chunk has room, one more that
 * doubles the committed size (or just fits the request), until the
 * reservation (DART_LOCAL_POOL_MAX_MIB) or the node's memory runs out;
 * the newest chunks go back once they have been empty for a while
 * (pool_shrink_idle). dart_allocator_* do the same on a collective
 * segment of any team. The bookkeeping is a private buddy allocator per
 * chunk or pool; pool memory itself is never touched. */
#include "base/buddy_allocator.h"
#include "base/handle_table.h"
#include "mpi/core/progress.h"
#include "mpi/core/runtime.h"
#include "mpi/memory/globmem.h"
#include "mpi/memory/local_pool.h"
#include "mpi/memory/pool_exposure.h"
#include "mpi/memory/pool_memory.h"
#include "mpi/model/datatype.h"
#include "mpi/model/team.h"

#include <dash/dart/if/dart_globmem.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A committed piece of the reservation with its own buddy allocator over
 * [offset, offset + capacity); capacity is a power of two and offset a
 * multiple of it, so blocks keep the buddy's size alignment. */
struct pool_chunk {
  size_t                  offset;
  struct buddy_allocator *buddy;
  size_t                  live;          /* blocks handed out */
  long long               empty_since_ns; /* when `live` became 0 */
};

/* Doubling from 1 MiB reaches any machine's memory long before this. */
#define MAX_POOL_CHUNKS 64

static struct {
  struct pool_chunk chunks[MAX_POOL_CHUNKS]; /* ascending offsets */
  int               nchunks;
  size_t            reserve; /* bytes of address space reserved */
  int               fd;      /* my reservation, to commit more of it */
  pthread_mutex_t   lock;    /* memalloc/memfree are MT-safe */
} local_pool = { .fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER };

static size_t chunk_end(const struct pool_chunk *c)
{
  return c->offset + buddy_capacity(c->buddy);
}

static size_t round_up_pow2(size_t bytes)
{
  size_t p = BUDDY_MIN_BLOCK;
  while (p < bytes) {
    p <<= 1;
  }
  return p;
}

/* Commits [offset, offset + size) and appends it as a chunk (not yet
 * exposed). Caller holds the lock. */
static dart_ret_t add_chunk(const char *call, size_t offset, size_t size)
{
  if (local_pool.nchunks == MAX_POOL_CHUNKS) {
    return report_error(DART_ERR_NOMEM, call, "local pool has reached its "
                        "%d chunks", MAX_POOL_CHUNKS);
  }
  struct buddy_allocator *buddy = buddy_create(size);
  if (buddy == NULL) {
    return report_error(DART_ERR_NOMEM, call, "out of memory for the "
                        "bookkeeping of %zu pool bytes", size);
  }
  int err = pool_memory_commit(local_pool.fd, offset, size);
  if (err != 0) {
    buddy_destroy(buddy);
    return report_error(DART_ERR_NOMEM, call, "cannot grow the local "
                        "pool by %zu bytes: %s", size, strerror(err));
  }
  local_pool.chunks[local_pool.nchunks++] =
    (struct pool_chunk){ offset, buddy, 0, progress_clock_ns() };
  LOG_DEBUG(call, "local pool grew by %zu bytes at offset %zu", size,
            offset);
  return DART_OK;
}

/* Takes the chunks from index `keep` on back (their pages too). */
static void drop_chunks(int keep)
{
  while (local_pool.nchunks > keep) {
    struct pool_chunk *c = &local_pool.chunks[--local_pool.nchunks];
    pool_memory_release(local_pool.fd, c->offset, buddy_capacity(c->buddy));
    buddy_destroy(c->buddy);
  }
}

/* Commits chunks up to one with room for `bytes` and exposes them.
 * Caller holds the lock. Returns DART_OK or logs why the pool cannot
 * grow. */
static dart_ret_t pool_grow(const char *call, size_t bytes)
{
  const struct pool_chunk *last = &local_pool.chunks[local_pool.nchunks - 1];
  size_t end = chunk_end(last);
  size_t need = bytes > (SIZE_MAX >> 2) ? 0 : round_up_pow2(bytes);
  /* Doubling keeps the number of chunks logarithmic; near the end of the
   * reservation the largest chunk that still fits, down to one just large
   * enough for the request (always that one made every later small block
   * a chunk of its own, and the pool ran out of chunks with most of its
   * reservation unused). */
  for (size_t size = need > end ? need : end; need > 0 && size >= need;
       size >>= 1) {
    size_t offset = (end + size - 1) / size * size;
    if (offset > local_pool.reserve || size > local_pool.reserve - offset) {
      continue;
    }
    int before = local_pool.nchunks;
    dart_ret_t ret = DART_OK;
    /* The gap below an aligned chunk becomes chunks as well, each aligned
     * to its size: RMA reaches the pool as one prefix, and registering
     * a gap would cost its memory (pinned) without making it usable. */
    for (size_t at = end; ret == DART_OK && at < offset;) {
      size_t piece = at & (~at + 1); /* the largest power of two dividing at */
      while (piece > offset - at) {
        piece >>= 1;
      }
      ret = add_chunk(call, at, piece);
      at += piece;
    }
    if (ret == DART_OK) {
      ret = add_chunk(call, offset, size);
    }
    /* Reachable by RMA before any block of it is handed out. */
    if (ret == DART_OK) {
      ret = pool_exposure_grow(call, offset + size);
    }
    if (ret != DART_OK) {
      drop_chunks(before);
    }
    return ret;
  }
  return report_error(DART_ERR_NOMEM, call, "local pool reservation of "
                      "%zu bytes has no room for %zu more "
                      "(DART_LOCAL_POOL_MAX_MIB sets it)",
                      local_pool.reserve, bytes);
}

/* Gives the newest chunks back to the system once they have held no
 * block for DART_POOL_SHRINK_MS (the hysteresis that keeps a program
 * which frees and allocates again from paying a change each time): they
 * leave the exposure under its change protocol (pool_exposure_shrink),
 * then their pages go. The first chunk stays. Looked at whenever a block
 * comes or goes. Caller holds the lock. */
static void pool_shrink_idle(const char *call)
{
  int delay_ms = runtime.env.pool_shrink_ms;
  if (delay_ms < 0 || !pool_exposure_shrinks()) {
    return;
  }
  long long now = progress_clock_ns();
  int keep = local_pool.nchunks;
  while (keep > 1) {
    const struct pool_chunk *c = &local_pool.chunks[keep - 1];
    if (c->live != 0 || now - c->empty_since_ns < delay_ms * 1000000LL) {
      break;
    }
    --keep;
  }
  if (keep < local_pool.nchunks &&
      pool_exposure_shrink(call, chunk_end(&local_pool.chunks[keep - 1])) ==
        DART_OK) {
    drop_chunks(keep);
  }
}

/* A block of `bytes` from the newest chunk with room (they are the
 * largest), growing the pool when none has. */
static dart_ret_t local_pool_take(const char *call, size_t bytes,
                                  size_t *offset)
{
  dart_ret_t ret = DART_OK;
  pthread_mutex_lock(&local_pool.lock);
  for (;;) {
    for (int i = local_pool.nchunks - 1; i >= 0; --i) {
      struct pool_chunk *c = &local_pool.chunks[i];
      if (buddy_alloc(c->buddy, bytes, offset) == 0) {
        *offset += c->offset;
        c->live++;
        pool_shrink_idle(call);
        pthread_mutex_unlock(&local_pool.lock);
        return DART_OK;
      }
    }
    if ((ret = pool_grow(call, bytes)) != DART_OK) {
      break;
    }
  }
  pthread_mutex_unlock(&local_pool.lock);
  return ret;
}

/* 0, or -1 if no live block starts at `offset`. */
static int local_pool_give_back(const char *call, size_t offset)
{
  int rc = -1;
  pthread_mutex_lock(&local_pool.lock);
  for (int i = local_pool.nchunks - 1; i >= 0; --i) {
    struct pool_chunk *c = &local_pool.chunks[i];
    if (offset >= c->offset) {
      rc = offset < chunk_end(c) ? buddy_free(c->buddy, offset - c->offset)
                                 : -1;
      if (rc == 0 && --c->live == 0) {
        c->empty_since_ns = progress_clock_ns();
      }
      break;
    }
  }
  if (rc == 0) {
    pool_shrink_idle(call);
  }
  pthread_mutex_unlock(&local_pool.lock);
  return rc;
}

struct block_pool {
  struct buddy_allocator *buddy;
  pthread_mutex_t         lock;
};

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

dart_ret_t local_pool_init(const char *call, size_t initial, size_t reserve)
{
  struct team *all = team_lookup(DART_TEAM_ALL);
  struct buddy_allocator *first = buddy_create(initial);
  if (first == NULL) {
    return report_error(DART_ERR_NOMEM, call, "cannot manage a local pool "
                        "of %zu bytes", initial);
  }
  /* The buddy manages a power of two; reserve a whole number of pages. */
  initial = buddy_capacity(first);
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (reserve == 0) {
    reserve = pool_memory_default_reserve(all->node_size);
  }
  reserve = (reserve < initial ? initial : reserve) / page * page;
  char **node_bases = NULL;
  dart_ret_t ret = pool_memory_map(call, all->node_comm, reserve, initial,
                                   &local_pool.fd, &node_bases);
  if (ret == DART_OK) {
    MPI_Win win = MPI_WIN_NULL;
    bool attached = false;
    const struct segment_watch *watch = NULL;
    ret = pool_exposure_init(call, all, node_bases[all->node_rank], initial,
                             reserve, &win, &attached, &watch);
    /* Also after a failure, so that every unit enters the collective
     * exchange and the segment takes the mappings back. */
    dart_ret_t published = team_publish_local_pool(
      call, all, node_bases, reserve, initial, win, attached, watch);
    ret = ret != DART_OK ? ret : published;
  }
  if (ret != DART_OK) {
    buddy_destroy(first);
    local_pool_finalize();
    return ret;
  }
  local_pool.chunks[0] = (struct pool_chunk){ 0, first, 0, 0 };
  local_pool.nchunks = 1;
  local_pool.reserve = reserve;
  return DART_OK;
}

void local_pool_stats(struct local_pool_stats *stats)
{
  pthread_mutex_lock(&local_pool.lock);
  stats->reserved = local_pool.reserve;
  stats->committed = 0;
  for (int i = 0; i < local_pool.nchunks; ++i) {
    stats->committed += buddy_capacity(local_pool.chunks[i].buddy);
  }
  stats->chunks = local_pool.nchunks;
  struct stat st;
  stats->backed = local_pool.fd >= 0 && fstat(local_pool.fd, &st) == 0
                    ? (size_t)st.st_blocks * 512 /* st_blocks' unit */
                    : 0;
  pthread_mutex_unlock(&local_pool.lock);
  pool_exposure_stats(&stats->exposure);
}

void local_pool_finalize(void)
{
  pool_exposure_finalize(); /* collective: dart_exit's barrier is behind */
  /* The mappings go with segment 0 when DART_TEAM_ALL's segments go. */
  for (int i = 0; i < local_pool.nchunks; ++i) {
    buddy_destroy(local_pool.chunks[i].buddy);
  }
  local_pool.nchunks = 0;
  if (local_pool.fd >= 0) {
    close(local_pool.fd);
    local_pool.fd = -1;
  }
}

dart_ret_t dart_memalloc(size_t nelem, dart_datatype_t dtype,
                         dart_gptr_t *gptr)
{
  REQUIRE_INIT();
  progress_visit(); /* others may wait for me inside MPI */
  if (gptr == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "gptr is NULL");
  }
  *gptr = DART_GPTR_NULL;
  size_t bytes = 0, offset = 0;
  if (block_bytes(__func__, nelem, dtype, &bytes) != DART_OK) {
    return DART_ERR_INVAL;
  }
  dart_ret_t ret = local_pool_take(__func__, bytes, &offset);
  if (ret != DART_OK) {
    return ret;
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
  progress_visit(); /* others may wait for me inside MPI */
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
  if (local_pool_give_back(__func__, gptr.addr_or_offs.offset) != 0) {
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

/* The allocator's team while its segment lives, else NULL: the segment
 * goes with its team (dart_team_destroy frees the team's segments). */
static struct team *allocator_team(const struct allocator *alloc)
{
  struct team *team = team_lookup(alloc->segment.teamid);
  return team != NULL &&
             segment_lookup(&team->segments, alloc->segment.segid) != NULL
           ? team
           : NULL;
}

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
  size_t rounded = round_up_pow2(pool_size); /* spec: a power of two */
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
  progress_visit(); /* others may wait for me inside MPI */
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
  /* No block of a segment that went with its team. */
  struct team *team = allocator_team(alloc);
  if (team == NULL) {
    return report_error(DART_ERR_INVAL, __func__,
                        "the allocator's team %d was destroyed, and its "
                        "segment with it", (int)alloc->segment.teamid);
  }
  if (pool_take(&alloc->pool, bytes, &offset) != 0) {
    return report_error(DART_ERR_NOMEM, __func__,
                        "allocator pool has no free block of %zu bytes",
                        bytes);
  }
  *gptr = alloc->segment;
  gptr->unitid = team->my_rank;
  gptr->addr_or_offs.offset = offset;
  return DART_OK;
}

dart_ret_t dart_allocator_free(dart_gptr_t *gptr, dart_allocator_t allocator)
{
  REQUIRE_INIT();
  progress_visit(); /* others may wait for me inside MPI */
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
  /* Collective while the team lives; the segment of a destroyed team
   * went with it, and the rest is local (as a lock's destroy then). */
  dart_ret_t ret = DART_OK;
  if (allocator_team(alloc) != NULL) {
    ret = dart_team_memfree(alloc->segment);
  }
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
