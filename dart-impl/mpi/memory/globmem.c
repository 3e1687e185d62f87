/* Team memory: dart_team_memalloc_aligned allocates node-shared memory on
 * the team's node communicator (node_shm.h: an MPI shared window, or
 * DART's own mapping where the MPI has none; docs/design.md, "The fast
 * path"); registration takes the user's memory as it is. For RMA every
 * portion is exposed in a window: one MPI_Win_create window per segment
 * under Open MPI, the team's dynamic window elsewhere (core/quirks.h,
 * window_per_segment). Every member learns every portion's size and
 * displacement, so put/get find any byte in O(1). */
#include "mpi/memory/globmem.h"
#include "base/basic_types.h"
#include "base/cache_line.h"
#include "mpi/core/progress.h"
#include "mpi/core/quirks.h"
#include "mpi/core/runtime.h"
#include "mpi/memory/node_shm.h"
#include "mpi/memory/pool_memory.h"
#include "mpi/model/datatype.h"
#include "mpi/model/target.h"
#include "mpi/model/team.h"
#include "mpi/rma/acc_batch.h"
#include "mpi/rma/onesided.h"

#include <dash/dart/if/dart_globmem.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Portions start on a cache line, whatever alignment MPI hands out (some
 * MPIs return 4- or 8-byte aligned shared memory). */
#define PORTION_ALIGN CACHE_LINE

/* The collective part of freeing a segment: its own windows (MPI_Win_free
 * is collective over the team or node), then the memory. */
static void segment_free_windows(struct team *team, struct segment *seg)
{
  if (seg->owns_win) {
    MPI_Win_unlock_all(seg->win);
    MPI_Win_free(&seg->win);
  }
  struct node_shm shm = { seg->shm_win, seg->node_bases, seg->mapped_bytes };
  node_shm_free(&shm, team->node_size);
  free(seg);
}

/* The local part, at once: no cached target may reach the segment again,
 * no handle waits on its window later, and registered memory is no
 * longer exposed (MPI_Win_detach is local). */
static void segment_free_local(struct segment *seg)
{
  target_forget_all();
  onesided_segment_freed(seg); /* handles not consumed yet */
  acc_batch_free(seg); /* sends accumulates nobody flushed */
  if (seg->attached) {
    MPI_Win_detach(seg->win, seg->my_base);
    seg->attached = false;
  }
  rma_targets_free(&seg->rma_targets);
  free(seg->sizes);
  free(seg->disps);
  seg->sizes = NULL;
  seg->disps = NULL;
}

static void segment_free_memory(struct team *team, struct segment *seg)
{
  segment_free_local(seg);
  segment_free_windows(team, seg);
}

/* Order of the collective frees: by segment id, the same on every member
 * whatever order the application freed the segments in. */
static int by_id(const void *a, const void *b)
{
  int x = (*(struct segment *const *)a)->id;
  int y = (*(struct segment *const *)b)->id;
  return (x > y) - (x < y);
}

/* Collective: the windows of every retired segment, in id order. */
static void free_in_id_order(struct team *team)
{
  struct segment_table *t = &team->segments;
  int n = 0;
  for (struct segment *s = t->retired; s != NULL; s = s->next_retired) {
    ++n;
  }
  if (n == 0) {
    return;
  }
  struct segment **all = malloc((size_t)n * sizeof *all);
  if (all == NULL) {
    /* Without the list the order cannot be agreed: free in list order and
     * say so, as the members may now wait in different windows. */
    report_error(DART_ERR_NOMEM, __func__, "out of memory ordering %d "
                 "segment frees of team %d", n, (int)team->id);
  }
  int k = 0;
  while (t->retired != NULL) {
    struct segment *s = t->retired;
    t->retired = s->next_retired;
    if (all != NULL) {
      all[k++] = s;
    } else {
      segment_free_windows(team, s);
    }
  }
  if (all != NULL) {
    qsort(all, (size_t)n, sizeof *all, by_id);
    for (int i = 0; i < n; ++i) {
      segment_free_windows(team, all[i]);
    }
    free(all);
  }
}

/* Retires a segment: its local part goes now, its windows with the next
 * free_in_id_order. */
static void segment_retire(struct team *team, struct segment *seg)
{
  segment_free_local(seg);
  seg->next_retired = team->segments.retired;
  team->segments.retired = seg;
}

void team_segments_free(struct team *team)
{
  struct segment_table *t = &team->segments;
  if (t->local_pool != NULL) {
    segment_free_memory(team, t->local_pool);
  }
  /* Live and already freed segments together, in one id order. */
  for (int i = 1; i < segment_table_span(t, true); ++i) {
    struct segment *seg = segment_lookup(t, (int16_t)i);
    if (seg != NULL) {
      segment_retire(team, seg);
    }
  }
  for (int i = 1; i < segment_table_span(t, false); ++i) {
    struct segment *seg = segment_lookup(t, (int16_t)-i);
    if (seg != NULL) {
      segment_retire(team, seg);
    }
  }
  free_in_id_order(team);
  segment_table_free(t);
}

/* What every member publishes about its portion. */
struct portion {
  MPI_Aint disp;
  uint64_t size;
  int64_t  segid; /* cross-check: ids must agree without messages */
  int64_t  error; /* this unit's dart_ret_t */
};

/* Collective: attaches my portion, exchanges portions, enters the
 * segment. `local_err` is this member's verdict on its own arguments: a
 * member with bad ones still takes part (empty portion) and the
 * allocation fails on every member. On failure the segment's memory is
 * freed and the id is returned. */
static dart_ret_t publish_segment(const char *call, struct team *team,
                                  struct segment *seg, dart_gptr_t *gptr,
                                  dart_ret_t local_err)
{
  dart_ret_t ret = local_err;
  int err = MPI_SUCCESS;
  /* The local pool brings its own dynamic window with my portion
   * attached (memory/pool_exposure.h). */
  bool preset = seg->id == DART_SEGMENT_LOCAL;
  if (!preset) {
    seg->win = team->dynamic_win;
  }
  /* A window of its own starts at the 64-byte boundary at or below my
   * portion, so that displacements keep the low bits of the target's
   * address, which the alignment checks of atomics read (atomics.c); the
   * bytes below the portion share its page and are never addressed
   * (target.h checks every span). */
  bool own = !preset && seg->win != MPI_WIN_NULL &&
             mpi_quirks.window_per_segment;
  /* An empty portion exposes nothing, wherever its address points (a
   * registration of 0 elements may name any address, even an unmapped
   * one, which UCX then tried to register). */
  size_t phase = seg->my_size > 0 ? (uintptr_t)seg->my_base % PORTION_ALIGN
                                  : 0;
  size_t exposed = segment_window_size(seg, seg->my_size);
  if (own) {
    err = MPI_Win_create(seg->my_size > 0 ? seg->my_base - phase : NULL,
                         (MPI_Aint)(exposed + phase), 1, MPI_INFO_NULL,
                         team->comm, &seg->win);
    if (err == MPI_SUCCESS) {
      seg->owns_win = true;
      MPI_Win_set_errhandler(seg->win, MPI_ERRORS_RETURN);
      err = MPI_Win_lock_all(MPI_MODE_NOCHECK, seg->win);
    } else {
      seg->win = MPI_WIN_NULL;
    }
    if (err != MPI_SUCCESS) {
      ret = report_mpi_error(call, "MPI_Win_create", err);
    }
  }
  if (ret == DART_OK && seg->win != MPI_WIN_NULL && seg->my_size > 0 &&
      !own && !preset) {
    err = MPI_Win_attach(seg->win, seg->my_base, (MPI_Aint)exposed);
    if (err != MPI_SUCCESS) {
      ret = report_mpi_error(call, "MPI_Win_attach", err);
    }
    seg->attached = err == MPI_SUCCESS;
    if (seg->attached && seg->win == team->dynamic_win) {
      team->dynamic_win_exposes = true;
    }
  }
  struct portion mine = { (MPI_Aint)phase, seg->my_size, seg->id, ret };
  /* Displacements in a dynamic window are addresses; in the pool's window
   * created over its page-aligned reservation (not attached), offsets. */
  if (!own && !(preset && !seg->attached)) {
    MPI_Get_address(seg->my_base, &mine.disp);
  }
  if (ret != DART_OK) {
    mine.segid = INT64_MIN; /* tells everyone this unit failed */
  }
  struct portion *all = malloc((size_t)team->size * sizeof *all);
  seg->sizes = malloc((size_t)team->size * sizeof(size_t));
  seg->disps = malloc((size_t)team->size * sizeof(MPI_Aint));
  if (all == NULL || seg->sizes == NULL || seg->disps == NULL ||
      rma_targets_init(&seg->rma_targets, team->size) != 0) {
    /* Cannot take part in the exchange: the others will hang in it, as
     * with any collective one member cannot enter. Say so loudly. */
    free(all);
    segment_id_return(&team->segments, seg->id);
    segment_free_memory(team, seg);
    return report_error(DART_ERR_NOMEM, call,
                        "out of memory for the segment table entry");
  }
  err = MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all,
                      (int)sizeof mine, MPI_BYTE, team->comm);
  if (err != MPI_SUCCESS && ret == DART_OK) {
    ret = report_mpi_error(call, "MPI_Allgather", err);
  }
  for (int u = 0; ret == DART_OK && u < team->size; ++u) {
    if (all[u].error == DART_ERR_NOMEM) {
      /* The others say what the unit short of memory said. */
      ret = report_error(DART_ERR_NOMEM, call,
                         "unit %d of team %d is short of memory for its "
                         "portion", u, (int)team->id);
    } else if (all[u].segid != seg->id) {
      ret = report_error(DART_ERR_OTHER, call,
                         "unit %d of team %d holds segment id %lld, I hold "
                         "%d (failed allocation or diverged calls)", u,
                         (int)team->id, (long long)all[u].segid,
                         (int)seg->id);
    }
    seg->disps[u] = all[u].disp;
    seg->sizes[u] = (size_t)all[u].size;
  }
  free(all);
  if (ret == DART_OK && segment_insert(&team->segments, seg) != 0) {
    ret = report_error(DART_ERR_NOMEM, call, "out of memory for segment "
                       "table");
  }
  if (ret != DART_OK) {
    segment_id_return(&team->segments, seg->id);
    segment_free_memory(team, seg);
    return ret;
  }
  *gptr = (dart_gptr_t){ .unitid = 0, .flags = 0, .segid = seg->id,
                         .teamid = team->id, .addr_or_offs.offset = 0 };
  return DART_OK;
}

/* My own arguments of an allocation or registration (`addr`: the
 * registered buffer, NULL for an allocation): DART_OK and the portion's
 * bytes, or DART_ERR_INVAL after one log line. */
static dart_ret_t check_portion(const char *call, size_t nelem,
                                dart_datatype_t dtype, bool registered,
                                const void *addr, dart_gptr_t *gptr,
                                size_t *bytes)
{
  *bytes = 0;
  if (gptr == NULL) {
    return report_error(DART_ERR_INVAL, call, "gptr is NULL");
  }
  if (!datatype_is_basic_id(dtype)) {
    return report_error(DART_ERR_INVAL, call,
                        "type %ld is not a basic type", (long)dtype);
  }
  /* Bounded so that the portion, its padding and every displacement in
   * it are valid MPI_Aint values. */
  size_t elem = basic_type_size(dtype);
  if (nelem > (DATATYPE_MAX_SPAN - 2 * PORTION_ALIGN) / elem) {
    return report_error(DART_ERR_INVAL, call, "%zu elements of %zu bytes "
                        "exceed the largest portion", nelem, elem);
  }
  size_t size = nelem * elem;
  if (registered && size > 0 &&
      (addr == NULL || (uintptr_t)addr > UINTPTR_MAX - size)) {
    return report_error(DART_ERR_INVAL, call, "addr %p cannot hold %zu "
                        "elements of %zu bytes", addr, nelem, elem);
  }
  *bytes = size;
  return DART_OK;
}

/* Common part of allocation and registration: a fresh segment with its
 * id taken. Only an unknown team returns at once (there is no one to
 * tell). A member whose own arguments are bad goes on with an empty
 * portion and *local_err set, so that it takes part in the collective
 * steps and the call fails on every member instead of leaving the
 * others waiting for it. */
static dart_ret_t begin_segment(const char *call, dart_team_t teamid,
                                size_t nelem, dart_datatype_t dtype,
                                bool registered, const void *addr,
                                dart_gptr_t *gptr, struct team **team,
                                struct segment **seg, dart_ret_t *local_err)
{
  if (gptr != NULL) {
    *gptr = DART_GPTR_NULL;
  }
  if ((*team = team_lookup_or_report(call, teamid)) == NULL) {
    return DART_ERR_INVAL;
  }
  /* Polled gate in front of the blocking window calls (progress.h). */
  int gate_err = progress_gate((*team)->comm);
  if (gate_err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Ibarrier", gate_err);
  }
  size_t bytes = 0;
  *local_err = check_portion(call, nelem, dtype, registered, addr, gptr,
                             &bytes);
  *seg = calloc(1, sizeof **seg);
  if (*seg == NULL) {
    return report_error(DART_ERR_NOMEM, call, "out of memory");
  }
  (*seg)->shm_win = MPI_WIN_NULL;
  (*seg)->win = MPI_WIN_NULL;
  (*seg)->registered = registered;
  (*seg)->my_size = bytes;
  /* Every member has freed the same segments by now (collective calls
   * are ordered), so the deferred window frees line up; the gate above
   * keeps lock requests served while they run. */
  free_in_id_order(*team);
  (*seg)->id = segment_id_take(&(*team)->segments, registered);
  if ((*seg)->id == 0) {
    free(*seg);
    return report_error(DART_ERR_OTHER, call, "segment ids of team %d are "
                        "exhausted", (int)teamid);
  }
  return DART_OK;
}

/* Collective: the node-shared memory of a new segment (its id set),
 * exposed for RMA by publish_segment. */
static dart_ret_t allocate_shared(const char *call, struct team *team,
                                  struct segment *seg, dart_gptr_t *gptr,
                                  dart_ret_t local_err)
{
  struct node_shm shm;
  seg->padded = true;
  dart_ret_t ret = node_shm_alloc(call, team->node_comm,
                                  segment_window_size(seg, seg->my_size),
                                  &shm);
  if (ret != DART_OK) {
    /* Members on other nodes are on their way to the exchange: go there
     * with an empty portion and make the allocation fail everywhere. */
    seg->my_base = NULL;
    seg->my_size = 0;
    return publish_segment(call, team, seg, gptr,
                           local_err != DART_OK ? local_err : ret);
  }
  seg->shm_win = shm.win;
  seg->node_bases = shm.bases;
  seg->mapped_bytes = shm.mapped;
  seg->my_base = seg->node_bases[team->node_rank];
  return publish_segment(call, team, seg, gptr, local_err);
}

dart_ret_t team_publish_local_pool(const char *call, struct team *team,
                                   char **node_bases, size_t reserve,
                                   size_t exposed, MPI_Win win,
                                   bool attached,
                                   const struct segment_watch *watch)
{
  struct segment *seg = calloc(1, sizeof *seg);
  if (seg == NULL) {
    if (win != MPI_WIN_NULL) {
      if (attached) {
        MPI_Win_detach(win, node_bases[team->node_rank]);
      }
      MPI_Win_unlock_all(win);
      MPI_Win_free(&win);
    }
    pool_memory_unmap(node_bases, team->node_size, reserve);
    return report_error(DART_ERR_NOMEM, call, "out of memory");
  }
  seg->shm_win = MPI_WIN_NULL;
  seg->id = DART_SEGMENT_LOCAL;
  seg->node_bases = node_bases;
  seg->mapped_bytes = reserve;
  seg->my_base = node_bases[team->node_rank];
  /* Every unit's portion is what it exposes; it changes with the pool. */
  seg->my_size = exposed;
  seg->win = win;
  seg->owns_win = win != MPI_WIN_NULL;
  seg->attached = attached; /* else a window created over it */
  seg->watch = watch;
  dart_gptr_t gptr;
  return publish_segment(call, team, seg, &gptr, DART_OK);
}

dart_ret_t dart_team_memalloc_aligned(dart_team_t teamid, size_t nelem,
                                      dart_datatype_t dtype,
                                      dart_gptr_t *gptr)
{
  REQUIRE_INIT();
  struct team *team = NULL;
  struct segment *seg = NULL;
  dart_ret_t local_err = DART_OK;
  dart_ret_t ret = begin_segment(__func__, teamid, nelem, dtype, false, NULL,
                                 gptr, &team, &seg, &local_err);
  if (ret != DART_OK) {
    return ret;
  }
  return allocate_shared(__func__, team, seg, gptr, local_err);
}

dart_ret_t dart_team_memregister(dart_team_t teamid, size_t nlelem,
                                 dart_datatype_t dtype, void *addr,
                                 dart_gptr_t *gptr)
{
  REQUIRE_INIT();
  struct team *team = NULL;
  struct segment *seg = NULL;
  dart_ret_t local_err = DART_OK;
  dart_ret_t ret = begin_segment(__func__, teamid, nlelem, dtype, true, addr,
                                 gptr, &team, &seg, &local_err);
  if (ret != DART_OK) {
    return ret;
  }
  seg->my_base = local_err == DART_OK ? addr : NULL;
  return publish_segment(__func__, team, seg, gptr, local_err);
}

dart_ret_t dart_team_memregister_aligned(dart_team_t teamid, size_t nelem,
                                         dart_datatype_t dtype, void *addr,
                                         dart_gptr_t *gptr)
{
  return dart_team_memregister(teamid, nelem, dtype, addr, gptr);
}

/* Common part of memfree and deregister. */
static dart_ret_t free_segment(const char *call, dart_gptr_t gptr,
                               bool registered)
{
  if (DART_GPTR_ISNULL(gptr)) {
    return DART_OK;
  }
  struct team *team = team_lookup_or_report(call, gptr.teamid);
  if (team == NULL) {
    return DART_ERR_INVAL;
  }
  /* Segment 0 is the local pool: dart_memfree's business, never freed
   * as a whole by the application. */
  struct segment *seg = gptr.segid == DART_SEGMENT_LOCAL
                          ? NULL
                          : segment_lookup(&team->segments, gptr.segid);
  if (seg == NULL || seg->registered != registered) {
    return report_error(DART_ERR_INVAL, call,
                        "no live %s segment %d on team %d",
                        registered ? "registered" : "allocated",
                        (int)gptr.segid, (int)gptr.teamid);
  }
  /* Local: the blocking window frees wait for the team's next
   * allocation or teardown, behind their polled gates (progress.h). */
  segment_remove(&team->segments, seg->id);
  if (!seg->owns_win && seg->shm_win == MPI_WIN_NULL) {
    segment_free_memory(team, seg); /* nothing collective left */
  } else {
    /* MPI_Win_free is collective, and members may free their segments in
     * different orders: defer it to the next point where all agree. */
    segment_retire(team, seg);
  }
  return DART_OK;
}

dart_ret_t dart_team_memfree(dart_gptr_t gptr)
{
  REQUIRE_INIT();
  return free_segment(__func__, gptr, false);
}

dart_ret_t dart_team_memderegister(dart_gptr_t gptr)
{
  REQUIRE_INIT();
  return free_segment(__func__, gptr, true);
}

/* My portion of the gptr's segment, or NULL after logging. */
static struct segment *my_segment(const char *call, dart_gptr_t gptr,
                                  struct team **team)
{
  if ((*team = team_lookup_or_report(call, gptr.teamid)) == NULL) {
    return NULL;
  }
  struct segment *seg = segment_lookup(&(*team)->segments, gptr.segid);
  if (seg == NULL) {
    report_error(DART_ERR_INVAL, call, "unknown segment %d on team %d",
                 (int)gptr.segid, (int)gptr.teamid);
  }
  return seg;
}

dart_ret_t dart_gptr_getaddr(const dart_gptr_t gptr, void **addr)
{
  REQUIRE_INIT();
  if (addr == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "addr is NULL");
  }
  *addr = NULL;
  struct team *team = NULL;
  struct segment *seg = my_segment(__func__, gptr, &team);
  if (seg == NULL) {
    return DART_ERR_INVAL;
  }
  if (gptr.unitid == team->my_rank) {
    *addr = seg->my_base + gptr.addr_or_offs.offset;
  }
  return DART_OK;
}

dart_ret_t dart_gptr_setaddr(dart_gptr_t *gptr, void *addr)
{
  REQUIRE_INIT();
  if (gptr == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "gptr is NULL");
  }
  struct team *team = NULL;
  struct segment *seg = my_segment(__func__, *gptr, &team);
  if (seg == NULL) {
    return DART_ERR_INVAL;
  }
  char *p = addr;
  /* The local pool's portion grows and shrinks under other threads
   * (pool_exposure.c, set_own_size). */
  size_t size = __atomic_load_n(&seg->my_size, __ATOMIC_RELAXED);
  if (p < seg->my_base || p > seg->my_base + size) {
    return report_error(DART_ERR_INVAL, __func__,
                        "address %p is outside my portion of segment %d",
                        addr, (int)seg->id);
  }
  gptr->addr_or_offs.offset = (uint64_t)(p - seg->my_base);
  return DART_OK;
}

dart_ret_t dart_gptr_getflags(dart_gptr_t gptr, uint16_t *flags)
{
  REQUIRE_INIT();
  if (flags == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "flags is NULL");
  }
  *flags = 0;
  struct team *team = NULL;
  struct segment *seg = my_segment(__func__, gptr, &team);
  if (seg == NULL) {
    return DART_ERR_INVAL;
  }
  *flags = seg->flags;
  return DART_OK;
}

dart_ret_t dart_gptr_setflags(dart_gptr_t *gptr, uint16_t flags)
{
  REQUIRE_INIT();
  if (gptr == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "gptr is NULL");
  }
  struct team *team = NULL;
  struct segment *seg = my_segment(__func__, *gptr, &team);
  if (seg == NULL) {
    return DART_ERR_INVAL;
  }
  seg->flags = flags;
  gptr->flags = flags & 0xff;
  return DART_OK;
}
