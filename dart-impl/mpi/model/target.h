/* Where a global pointer points: resolved once per one-sided call, inline
 * because it is the whole cost of a put or get between node peers. */
#ifndef DART_MPI_TARGET_H
#define DART_MPI_TARGET_H

#include "mpi/core/runtime.h"
#include "mpi/model/segment.h"
#include "mpi/model/team.h"

#include <dash/dart/if/dart_globmem.h>

#include <string.h>

struct target {
  struct team    *team;
  struct segment *segment;
  int             unit;    /* team-relative */
  char           *direct;  /* load/store address, or NULL: use RMA */
  MPI_Win         win;     /* RMA: the segment's window */
  MPI_Aint        disp;    /* RMA: displacement of the first byte */
};

/* Logs why `gptr` does not resolve for `span` bytes; DART_ERR_INVAL. */
dart_ret_t target_report_invalid(const char *call, dart_gptr_t gptr,
                                 size_t span);

/* Whether `span` bytes from `offset` lie in `unit`'s portion of a watched
 * segment (segment.h, struct segment_watch): refreshes the portion's size
 * when its change flag is up or the span runs past the size known. */
bool target_watch_ok(struct segment *seg, int unit, uint64_t offset,
                     size_t span);

/* Resolves `gptr` for an access of `span` bytes from its offset. Unknown
 * team or segment, unit out of range, or a span running past the end of
 * the unit's portion: DART_ERR_INVAL with a log line on behalf of `call`.
 * O(1), no allocation. */
static inline dart_ret_t target_resolve(const char *call, dart_gptr_t gptr,
                                        size_t span, struct target *t)
{
  struct team *team = team_lookup(gptr.teamid);
  struct segment *seg =
    team == NULL ? NULL : segment_lookup(&team->segments, gptr.segid);
  int unit = gptr.unitid;
  uint64_t offset = gptr.addr_or_offs.offset;
  if (seg == NULL || unit < 0 || unit >= team->size ||
      !(seg->watch == NULL
          ? offset <= seg->sizes[unit] && span <= seg->sizes[unit] - offset
          : target_watch_ok(seg, unit, offset, span))) {
    return target_report_invalid(call, gptr, span);
  }
  t->team = team;
  t->segment = seg;
  t->unit = unit;
  t->direct = NULL;
  t->win = seg->win;
  t->disp = seg->disps[unit] + (MPI_Aint)offset;
  if (runtime.env.shared_memory_path || t->win == MPI_WIN_NULL) {
    int node_rank = team->node_rank_of[unit];
    if (seg->node_bases != NULL && node_rank >= 0) {
      t->direct = seg->node_bases[node_rank] + offset;
    } else if (unit == team->my_rank) {
      t->direct = seg->my_base + offset;
    }
  }
  return DART_OK;
}

/* One unit's portion mapped here, as a cache remembers it. */
struct mapped_portion {
  uint64_t key;        /* team, segment and unit of the gptr */
  uint64_t generation; /* 64 bits: never wraps back to a kept entry's */
  char    *base;       /* the unit's portion, mapped here */
  size_t   size;
};

/* The last directly mapped target of this thread: repeated accesses to
 * one unit's portion skip the table walk. Any segment removal bumps
 * `segment_generation`, which invalidates every thread's entry. Portions
 * that may shrink are kept in watched_target_cache instead (below). */
struct direct_target_cache {
  struct mapped_portion portion;
  struct segment *segment; /* for flushes */
  /* Direct reads and atomics left before target_direct_progress calls
   * target_progress_probe, which sets it again; here rather than in a TLS
   * variable of its own because the fast path has this struct's address
   * at hand already. */
  int direct_ops_left;
  /* Whether this thread stored to a mapped target since its last full
   * fence: a remote completion (dart_flush) fences only then, on x86
   * (rma/onesided.c, direct_stores_order). Stores by a locked
   * instruction, which orders everything before it, leave it down. */
  bool stores_unfenced;
};
extern __thread struct direct_target_cache target_cache
  __attribute__((tls_model("initial-exec")));
/* Hidden: read by every fast path, which then loads it directly instead
 * of its address from the GOT first. */
extern _Atomic uint64_t segment_generation
  __attribute__((visibility("hidden")));

/* The gptr's first 8 bytes without the flags byte: unit (24 bits),
 * segment and team, one AND instead of three bit-field extractions (the
 * bit-field layout is checked once at init, target_key_layout_ok). */
static inline uint64_t target_cache_key(dart_gptr_t gptr)
{
  uint64_t head;
  memcpy(&head, &gptr, sizeof head);
  return head & ~((uint64_t)0xff << 24);
}

/* Whether target_cache_key sees exactly unit, segment and team. */
bool target_key_layout_ok(void);

/* Whether `p` holds the `span` bytes at `gptr`; then sets `direct` to
 * their address. */
static inline bool portion_holds(const struct mapped_portion *p,
                                 dart_gptr_t gptr, size_t span, char **direct)
{
  uint64_t offset = gptr.addr_or_offs.offset;
  if (p->key == target_cache_key(gptr) &&
      p->generation == atomic_load_explicit(&segment_generation,
                                            memory_order_relaxed) &&
      offset <= p->size && span <= p->size - offset) {
    *direct = p->base + offset;
    return true;
  }
  return false;
}

/* Fills `p` as of `generation`, read before anything else it holds. */
static inline void portion_remember_as_of(struct mapped_portion *p,
                                          dart_gptr_t gptr,
                                          const struct target *t,
                                          uint64_t generation)
{
  p->key = target_cache_key(gptr);
  p->generation = generation;
  p->base = t->direct - gptr.addr_or_offs.offset;
  /* A watched segment's sizes change under other threads
   * (memory/pool_exposure.c). */
  p->size = __atomic_load_n(&t->segment->sizes[t->unit], __ATOMIC_RELAXED);
}

static inline void portion_remember(struct mapped_portion *p,
                                    dart_gptr_t gptr, const struct target *t)
{
  portion_remember_as_of(
    p, gptr, t,
    atomic_load_explicit(&segment_generation, memory_order_acquire));
}

/* Whether this thread's cache holds the portion of `span` bytes at
 * `gptr`; then sets `direct` to their address (else resolve the slow
 * way). */
static inline bool target_cached(dart_gptr_t gptr, size_t span,
                                 char **direct)
{
  return portion_holds(&target_cache.portion, gptr, span, direct);
}

/* The last directly mapped target of this thread in a segment whose
 * portions may shrink while mapped (a local pool, segment.h's struct
 * segment_watch): valid while the unit's change flag is down. Kept apart
 * from target_cache, and looked at only after it missed, so that the
 * accesses to every other segment load nothing more (the flag's load
 * there cost 0.3 ns per 8-byte put, waiting behind the put's fence). */
struct watched_target_cache {
  struct mapped_portion portion;
  const unsigned char  *changed; /* the unit's change flag, here */
};
extern __thread struct watched_target_cache watched_target_cache
  __attribute__((tls_model("initial-exec")));

static inline bool target_cached_watched(dart_gptr_t gptr, size_t span,
                                         char **direct)
{
  const struct watched_target_cache *c = &watched_target_cache;
  /* The generation, the flag, the generation again. Another thread's
   * refresh drops every entry before it takes the flag down (segment.h),
   * so a flag seen down by that refresh comes with the entry seen dropped
   * by the second look. The first spares the flag's load where the entry
   * is not valid: after dart_exit the flag's memory is gone. */
  return portion_holds(&c->portion, gptr, span, direct) &&
         __atomic_load_n(c->changed, __ATOMIC_ACQUIRE) == 0 &&
         c->portion.generation ==
           atomic_load_explicit(&segment_generation, memory_order_relaxed);
}

/* Notes direct stores that no fence has ordered yet (see
 * stores_unfenced). */
static inline void target_stores_unfenced(void)
{
  target_cache.stores_unfenced = true;
}

/* Remembers a resolved direct target for the next access. */
static inline void target_remember(dart_gptr_t gptr, const struct target *t)
{
  const struct segment_watch *watch = t->segment->watch;
  if (watch != NULL) {
    /* The generation, then the refreshes, then the size: an entry made
     * while another thread's refresh is under way would keep a size that
     * refresh has not read yet; it is not made. */
    uint64_t generation =
      atomic_load_explicit(&segment_generation, memory_order_acquire);
    if (__atomic_load_n(&watch->refreshing, __ATOMIC_ACQUIRE) == 0) {
      portion_remember_as_of(&watched_target_cache.portion, gptr, t,
                             generation);
      watched_target_cache.changed = &watch->changed[t->unit];
    }
    return;
  }
  portion_remember(&target_cache.portion, gptr, t);
  target_cache.segment = t->segment;
}

/* The last segment this thread updated with CPU atomics: its team lives
 * on one node, so every portion is mapped here, indexed by team unit
 * (node ranks follow team ranks, team.c). Random updates, as in
 * RandomAccess, hop from unit to unit, so this entry keeps the whole
 * segment rather than one portion, flattened to two loads per access.
 * Invalidated with the entry above. */
struct atomic_target_cache {
  uint64_t      key;   /* team and segment of the gptr */
  uint64_t      generation;
  int           units;
  const size_t *sizes; /* team unit -> bytes of its portion */
  char *const  *bases; /* team unit -> its portion, mapped here */
  struct segment *segment; /* for flushes */
};
extern __thread struct atomic_target_cache atomic_target_cache
  __attribute__((tls_model("initial-exec")));

/* A target_cache_key without its unit (the low 24 bits, checked at init
 * by target_key_layout_ok): team and segment. */
static inline uint64_t key_without_unit(uint64_t key)
{
  return key & ~(uint64_t)0xffffff;
}

static inline uint64_t atomic_target_key(dart_gptr_t gptr)
{
  return key_without_unit(target_cache_key(gptr));
}

/* Whether this thread's atomic cache holds the segment of `gptr` and the
 * `span` bytes at it lie within the unit's portion; then sets `direct`. */
static inline bool target_cached_atomic(dart_gptr_t gptr, size_t span,
                                        char **direct)
{
  const struct atomic_target_cache *c = &atomic_target_cache;
  if (c->key != atomic_target_key(gptr) ||
      c->generation != atomic_load_explicit(&segment_generation,
                                            memory_order_relaxed)) {
    return false;
  }
  int unit = gptr.unitid;
  uint64_t offset = gptr.addr_or_offs.offset;
  if (unit < 0 || unit >= c->units) {
    return false;
  }
  size_t size = c->sizes[unit];
  if (offset > size || span > size - offset) {
    return false;
  }
  *direct = c->bases[unit] + offset;
  return true;
}

/* Remembers the segment of a resolved target whose atomics take the CPU
 * path, if its team lives on this node alone, the segment is mapped and
 * its portions never change. */
static inline void target_remember_atomic(dart_gptr_t gptr,
                                          const struct target *t)
{
  /* Not a segment whose portions may shrink: this entry covers every
   * unit's portion at once and has no change flag to look at. */
  if (t->segment->node_bases == NULL || t->segment->watch != NULL ||
      t->team->num_nodes != 1 || t->team->node_size != t->team->size) {
    return;
  }
  struct atomic_target_cache *c = &atomic_target_cache;
  c->key = atomic_target_key(gptr);
  c->generation = atomic_load_explicit(&segment_generation,
                                       memory_order_relaxed);
  c->units = t->team->size;
  c->sizes = t->segment->sizes;
  c->bases = t->segment->node_bases;
  c->segment = t->segment;
}

/* The segment of `gptr` if either cache of this thread holds it and the
 * unit is in range (all_units: any unit), else NULL. */
static inline struct segment *target_cached_segment(dart_gptr_t gptr,
                                                    bool all_units)
{
  uint64_t generation = atomic_load_explicit(&segment_generation,
                                             memory_order_relaxed);
  const struct direct_target_cache *d = &target_cache;
  /* Likely: a flush mostly follows a put or get through this cache, and
   * as the fall-through its hit path takes no jump. (The condition stays
   * inside __builtin_expect: through a bool variable GCC lost the hint.) */
  if (__builtin_expect(d->portion.generation == generation &&
                           (all_units ? key_without_unit(d->portion.key) ==
                                          atomic_target_key(gptr)
                                      : d->portion.key ==
                                          target_cache_key(gptr)),
                       1)) {
    return d->segment;
  }
  const struct atomic_target_cache *a = &atomic_target_cache;
  int unit = gptr.unitid;
  if (a->generation == generation && a->key == atomic_target_key(gptr) &&
      (all_units || (unit >= 0 && unit < a->units))) {
    return a->segment;
  }
  return NULL;
}

/* Invalidates every thread's cached target (a segment goes away). */
static inline void target_forget_all(void)
{
  /* Release: what the caller wrote before (a refresh's count, segment.h)
   * is seen by whoever sees the new generation. */
  atomic_fetch_add_explicit(&segment_generation, 1, memory_order_release);
}

/* Enters MPI now and then, so a unit that waits on shared memory still
 * lets MPI make progress for others: every TARGET_PROBE_EVERY-th direct
 * read or atomic looks at the clock and probes MPI if
 * TARGET_PROBE_INTERVAL_NS have passed since the last probe. Not the
 * count alone: a probe runs every progress engine of the MPI (one-sided,
 * collectives, point-to-point), about 10 us under Open MPI after
 * one-sided traffic through MPI, which every 1024 reads added 9 ns to a
 * 4 ns get (bench-latency). */
#define TARGET_PROBE_INTERVAL_NS 200000
dart_ret_t target_progress_probe(void); /* DART_OK: fast paths tail-call it */

/* Direct operations between two calls of target_progress_probe. */
#define TARGET_PROBE_EVERY 1024

/* Counts one direct operation and probes when due (the first operation
 * of a thread, then every TARGET_PROBE_EVERY-th); returns DART_OK, so
 * that a fast path can end in it. A count down to below zero is one
 * decrement of memory and a branch on its sign; the count up and modulo
 * it replaced took five instructions of a 42-instruction 8-byte get. */
static inline dart_ret_t target_direct_progress(void)
{
  if (__builtin_expect(--target_cache.direct_ops_left < 0, 0)) {
    return target_progress_probe();
  }
  return DART_OK;
}

/* Records an RMA operation just issued to the target, for the next
 * flush: the unit first, then the count that flushes check (release: a
 * flush that sees the count sees the unit). */
static inline void target_rma_issued(const struct target *t)
{
  rma_targets_mark(&t->segment->rma_targets, t->unit);
  atomic_fetch_add_explicit(&t->segment->rma_issued, 1,
                            memory_order_release);
}

#endif
