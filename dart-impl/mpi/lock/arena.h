/* Per-team lock arena: the shared-memory lines and network words of the
 * team's hybrid locks, in chunks of LOCK_ARENA_CHUNK slots, so creating a
 * lock makes no MPI window. Every member creates and destroys the team's
 * locks in the same order (both calls are collective), so the free list
 * evolves identically everywhere and members agree on slot numbers
 * without messages. */
#ifndef DART_MPI_LOCK_ARENA_H
#define DART_MPI_LOCK_ARENA_H

#include "mpi/lock/lock.h"

enum { LOCK_ARENA_CHUNK = 64 };

/* A team has one arena per kind. HYBRID: a shared line per slot on every
 * node and, on multi-node teams, one network word per slot and unit.
 * MCS: LOCK_ARENA_MCS_WORDS network words per slot and unit (a cache
 * line: MPICH 4.0's shared-memory windows misplace RMA on smaller
 * members), on every team. */
enum lock_arena_kind { LOCK_ARENA_HYBRID, LOCK_ARENA_MCS, LOCK_ARENA_KINDS };
enum { LOCK_ARENA_MCS_WORDS = 8 };

/* Slot s: line s of each node's shared block (units of the lock's home
 * node use the home node's), word s of every unit's network window (the
 * lock uses the home unit's). */
struct lock_slot {
  struct lock_shm *shm;      /* this node's line (HYBRID) */
  MPI_Win          net_win;  /* MPI_WIN_NULL: a one-node HYBRID team */
  MPI_Aint         net_disp; /* the slot's first word in net_win */
  _Atomic int64_t *net_mine; /* that word in my own part of net_win, for
                                the home's loads (NULL without net_win) */
};

/* Takes the lowest free slot of the team's arena (created at the team's
 * first lock, grown by a chunk when full; collective then). */
dart_ret_t lock_arena_take(const char *call, struct team *team,
                           enum lock_arena_kind kind, int *slot,
                           struct lock_slot *where);
/* Returns a slot for reuse. Not collective itself, but called by every
 * member in the same order. */
void lock_arena_give_back(const struct team *team, enum lock_arena_kind kind,
                          int slot);
/* Frees the team's arenas (team teardown, after its locks). */
void lock_arena_team_destroyed(const struct team *team);

#endif
