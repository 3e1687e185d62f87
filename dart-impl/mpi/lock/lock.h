/* Team locks (docs/design.md, "Locks"): the handle behind dart_lock_t and
 * the operations each DART_LOCK_MODE provides. */
#ifndef DART_MPI_LOCK_H
#define DART_MPI_LOCK_H

#include "mpi/model/team.h"

#include <dash/dart/if/dart_synchronization.h>

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Values of the 64-bit network word besides a holder's team unit id.
 * The word is only ever touched through MPI atomics. */
#define NET_UNLOCKED     INT64_C(-1)
#define NET_CPU_MODE     INT64_C(-2)  /* the CPU lock decides the holder */
#define NET_CPU_MODE_REQ INT64_C(-3)  /* CPU mode, a remote unit waits for
                                         migration to network mode */

enum { HYBRID_MODE_CPU = 0, HYBRID_MODE_NET = 1 };

/* On the home node, in shared memory, touched only by CPU atomics. One
 * cache line: an uncontended acquire+release touches nothing else. */
struct lock_shm {
  _Atomic uint64_t next;            /* ticket dispenser */
  _Atomic uint64_t serving;         /* ticket now holding the CPU lock */
  _Atomic int      mode;            /* HYBRID_MODE_*; changed only by a
                                       unit holding both locks */
  _Atomic int      migrate_pending; /* home saw NET_CPU_MODE_REQ: the CPU
                                       lock holder migrates on release */
  _Atomic int      local_streak;    /* history policy: local acquisitions
                                       in network mode without a remote */
  _Atomic uint32_t to_net, to_cpu;  /* migrations done (tests, benchmark) */
};

struct lock_ops;

struct dart_lock_struct {
  uint32_t               magic;       /* LOCK_MAGIC_LIVE or _DEAD */
  const struct lock_ops *ops;
  dart_team_t            team_id;
  unsigned               index;       /* creation order in its team: the
                                         same on every member */
  struct team           *team;        /* NULL once the team is gone */
  int                    me;          /* my team unit id */
  int                    home;        /* team unit id of the home */
  bool                   on_home_node;
  bool                   fast_local;  /* hybrid on the home node, live,
                                         team alive: API fast path */
  _Atomic uintptr_t      holder;      /* holding thread's token, 0 = none */

  /* hybrid / cpu / mpi-mcs: slot `slot` of the team's lock arena */
  int                    slot;
  struct lock_shm       *shm;         /* the home node's line (or NULL) */
  MPI_Win                net_win;     /* MPI_WIN_NULL on one-node teams */
  MPI_Aint               net_disp;    /* the slot's words in net_win
                                         (hybrid) or win (mpi-mcs) */
  _Atomic int64_t       *net_mine;    /* hybrid: the word in my own part
                                         of net_win (the home's loads) */
  uint64_t               ticket;      /* CPU lock ticket I hold */
  bool                   net_held;    /* I hold the network word */

  /* mpi-mcs (the arena's) / mpi-win-lock (its own) */
  MPI_Win                win;
  pthread_mutex_t        mutex;       /* one thread of this unit at a time */

  struct dart_lock_struct *next_live; /* all live locks, creation order */
  struct dart_lock_struct *next_home; /* hybrid locks homed at me */
};

/* What a mode implements. acquire/try/release run with the handle
 * validated and the caller known not to hold it (acquire, try) or to
 * hold it (release). */
struct lock_ops {
  const char *name;
  dart_ret_t (*create)(const char *call, struct dart_lock_struct *lock);
  void       (*free)(struct dart_lock_struct *lock);
  dart_ret_t (*acquire)(const char *call, struct dart_lock_struct *lock);
  dart_ret_t (*try_acquire)(const char *call, struct dart_lock_struct *lock,
                            bool *got);
  dart_ret_t (*release)(const char *call, struct dart_lock_struct *lock);
  /* For a lock homed here (lock/polling.h): serves a pending request
   * of a remote unit. NULL for modes that home no lock. */
  void       (*serve_home)(struct dart_lock_struct *lock);
};

extern const struct lock_ops lock_ops_hybrid;
extern const struct lock_ops lock_ops_mcs;
extern const struct lock_ops lock_ops_win_lock;

/* Called by team teardown (collective over the team): frees the MPI
 * resources of the team's remaining locks; their handles stay valid for
 * dart_team_lock_destroy and report not initialized. */
void locks_team_destroyed(struct team *team);

#endif
