/* Segments: the memory a team exposes, one entry per allocation or
 * registration, found in O(1) from (team, segid) on the put/get path. */
#ifndef DART_MPI_SEGMENT_H
#define DART_MPI_SEGMENT_H

#include "mpi/core/quirks.h"
#include "mpi/model/rma_targets.h"

struct acc_batches;
struct segment;

/* A segment whose portions change size while other units run (the local
 * pool, memory/pool_exposure.c): its owner raises a flag here before it
 * changes what others may reach, and an access that finds its flag up,
 * or that runs past the size this unit knows, re-reads the portion's
 * size first (target_watch_ok). */
struct segment_watch {
  const unsigned char *changed; /* unit -> its portion changed since this
                                   unit last read its size */
  /* Refreshes under way in this process. A refresh takes a flag down
   * before it reads the size (a change raising it again meanwhile is then
   * seen), so for that moment a flag is down over a size not yet read:
   * a thread that finds the flag down looks here next, and while this is
   * not zero it refreshes too (target_watch_ok, target_remember). */
  int refreshing;
  /* Re-reads `unit`'s portion size into seg->sizes, one refresh at a
   * time, after it dropped every thread's cached targets and took the
   * flag down; false (logged) when it cannot. */
  bool (*refresh)(struct segment *seg, int unit);
};

#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct segment {
  int16_t    id;
  bool       registered; /* user memory: RMA path except for oneself */
  bool       padded;     /* every portion's memory and window run on to
                            the next multiple of SEGMENT_PAD bytes */
  uint16_t   flags;      /* dart_gptr_setflags */
  size_t    *sizes;      /* team unit -> bytes of its portion */
  MPI_Aint  *disps;      /* team unit -> displacement of its portion in
                            `win`: the address in a dynamic window, the
                            offset from the 64-byte boundary below in a
                            window of its own (globmem.c) */
  char     **node_bases; /* node-local rank -> that peer's portion, mapped
                            here; NULL for registered segments */
  MPI_Win    shm_win;    /* MPI's shared window of an allocation, else
                            MPI_WIN_NULL */
  size_t     mapped_bytes; /* DART's own mapping (the local pool, or an
                              allocation where MPI has no shared windows,
                              node_shm.h): each node_bases entry is a
                              mapping of this size, unmapped with it */
  char      *my_base;
  size_t     my_size;
  MPI_Win    win;        /* window exposing my portion: the team's
                            dynamic window, or the segment's own
                            (owns_win); MPI_WIN_NULL in one-unit teams */
  bool       owns_win;
  bool       attached;   /* my portion is attached to `win` */
  /* RMA operations issued on `win` for this segment, and how many of
   * them the last flushes of all units completed: a flush with nothing
   * outstanding (the usual case inside a node) skips MPI. */
  atomic_ulong rma_issued;
  atomic_ulong rma_flushed;
  atomic_ulong rma_flushed_local;
  struct rma_targets rma_targets; /* which units those went to */
  struct acc_batches *batches;    /* accumulates not sent yet
                                     (acc_batch.h), NULL until the first */
  const struct segment_watch *watch; /* NULL: portions never change */
  struct segment    *next_retired;
};

/* A DART allocation's portions are backed and exposed up to the next
 * multiple of this many bytes, so that the aligned 4-byte word around
 * every 1- or 2-byte element lies in the window: the word a narrow atomic
 * goes through where MPI's own are broken (rma/atomics.c, narrow_swap).
 * The padding is never addressed otherwise: spans are checked against
 * seg->sizes (target.h). */
#define SEGMENT_PAD 8

/* Bytes of memory behind, and of window over, a portion of `bytes`. */
static inline size_t segment_window_size(const struct segment *seg,
                                         size_t bytes)
{
  return seg->padded
           ? (bytes + (SEGMENT_PAD - 1)) & ~(size_t)(SEGMENT_PAD - 1)
           : bytes;
}

/* Bytes of `unit`'s portion that seg->win exposes, from its start (a
 * watched segment's sizes change under other threads: read atomically). */
static inline size_t segment_exposed_size(const struct segment *seg,
                                          int unit)
{
  return segment_window_size(
    seg, __atomic_load_n(&seg->sizes[unit], __ATOMIC_RELAXED));
}

/* A byte of `unit`'s portion in seg->win for mpi_win_flush_settled
 * (core/quirks.h), or MPI_NO_PROBE: the portion is empty, or its size may
 * have changed since this unit read it (a watched segment). */
static inline MPI_Aint segment_probe(const struct segment *seg, int unit)
{
  return seg->watch == NULL && seg->sizes[unit] > 0 ? seg->disps[unit]
                                                    : MPI_NO_PROBE;
}

/* Ids agree across members without messages: every member runs the same
 * collective allocations, and between two of them frees the same set of
 * segments, though not necessarily in the same order (a container library
 * frees in the order of its local addresses). So the next id depends only
 * on that set: the freed id with the oldest epoch (allocations taken
 * before it was freed), the smallest one among equals. Old ids come back
 * first, so a stale gptr rarely meets a new segment. */
struct freed_id {
  int16_t  id;
  uint32_t epoch;
};

struct id_pool {
  int              next;   /* magnitude of the next never-used id */
  struct freed_id *freed;  /* unordered; taken by (epoch, magnitude) */
  int              count, capacity;
};

/* The segments of one sign by id magnitude. A larger copy replaces it
 * while threads may read it (an MT-safe call on a segment of a team on
 * which another thread allocates, MT-team): the replaced arrays stay
 * until the table is freed, and readers load the array, its capacity and
 * the slot atomically. */
struct segment_slots {
  struct segment_slots *replaced; /* the smaller one before, or NULL */
  int                   cap;
  struct segment       *slot[];
};

struct segment_table {
  struct segment       *local_pool; /* segid 0 (DART_TEAM_ALL only) */
  struct segment_slots *positive;   /* index segid (> 0) */
  struct segment_slots *negative;   /* index -segid (< 0) */
  struct id_pool   positive_ids, negative_ids;
  uint32_t         epoch;    /* ids taken so far */
  /* Freed segments whose MPI windows still wait for their collective
   * MPI_Win_free: it runs at the team's next collective allocation or
   * teardown, in id order on every member (globmem.c). */
  struct segment  *retired;
};

/* The live segment `segid` of the table, or NULL. */
static inline struct segment *segment_lookup(const struct segment_table *t,
                                             int16_t segid)
{
  if (segid == 0) {
    return t->local_pool;
  }
  const struct segment_slots *s =
    __atomic_load_n(segid > 0 ? &t->positive : &t->negative,
                    __ATOMIC_ACQUIRE);
  int index = segid > 0 ? segid : -segid;
  return s != NULL && index < s->cap
           ? __atomic_load_n(&s->slot[index], __ATOMIC_ACQUIRE)
           : NULL;
}

/* Ids of one sign the table has room for (every live one is below). */
int segment_table_span(const struct segment_table *t, bool positive);

/* Reserves the next id of the sign asked for; 0 when ids are exhausted
 * or memory is short. */
int16_t segment_id_take(struct segment_table *t, bool registered);
/* Gives an id back, unused or after its segment was removed. */
void segment_id_return(struct segment_table *t, int16_t segid);
/* Enters a segment under its id (taken above); -1 if out of memory. */
int segment_insert(struct segment_table *t, struct segment *seg);
/* Removes the segment from the table (its id returns to the pool). */
void segment_remove(struct segment_table *t, int16_t segid);
/* Frees the table's own memory (segments must be gone). */
void segment_table_free(struct segment_table *t);

#endif
