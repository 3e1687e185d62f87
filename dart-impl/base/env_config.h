/* Run-time switches from the environment, read once at dart_init.
 * Each switch exists so a design choice can be measured against its
 * alternative inside one build; the README documents them all. */
#ifndef DART_BASE_ENV_CONFIG_H
#define DART_BASE_ENV_CONFIG_H

#include "base/logging.h"
#include "base/rw_lock_2n.h"

#include <stdbool.h>
#include <stddef.h>

enum bootstrap_mode {
  BOOTSTRAP_NODE_ROOTS,  /* node roots exchange node tables (default) */
  BOOTSTRAP_NAIVE,       /* every unit allgathers every record */
  BOOTSTRAP_ON_DEMAND    /* remote records fetched on first use */
};

enum lock_mode {
  LOCK_MODE_HYBRID,      /* CPU atomics in a node, MPI across (default) */
  LOCK_MODE_CPU,         /* CPU atomics only (single-node teams) */
  LOCK_MODE_MPI_MCS,     /* MCS queue lock on MPI atomics */
  LOCK_MODE_MPI_WIN_LOCK /* MPI_Win_lock(MPI_LOCK_EXCLUSIVE) */
};

enum lock_policy {
  LOCK_POLICY_SEED,      /* remote request -> network, local -> CPU */
  LOCK_POLICY_HISTORY    /* stay in network mode while remotes keep coming */
};

/* How atomics reach units on other nodes (rma/am_atomics.h). */
enum remote_atomics {
  REMOTE_ATOMICS_MPI,     /* MPI atomics on the segment's window (default) */
  REMOTE_ATOMICS_MESSAGE  /* messages applied by the target unit */
};

/* What of the local pool RMA reaches (memory/pool_exposure.h). */
enum pool_exposure {
  POOL_EXPOSE_AUTO,   /* prefix, except whole under an MPI whose dynamic
                         windows are slow on a node without RDMA devices */
  POOL_EXPOSE_PREFIX, /* the committed prefix, re-attached as it grows */
  POOL_EXPOSE_WHOLE   /* the whole reservation, in one window at init */
};

struct env_config {
  enum log_level      log_level;         /* DART_LOG_LEVEL */
  bool                shared_memory_path;/* DART_SHM_PATH */
  bool                shm_sync;          /* DART_SHM_SYNC */
  int                 units_per_node;    /* DART_UNITS_PER_NODE, 0 = real */
  enum bootstrap_mode bootstrap;         /* DART_BOOTSTRAP */
  enum lock_mode      lock_mode;         /* DART_LOCK_MODE */
  enum lock_policy    lock_policy;       /* DART_LOCK_POLICY */
  bool                progress_thread;   /* DART_PROGRESS_THREAD */
  int                 mpi_count_limit;   /* DART_MPI_COUNT_LIMIT */
  int                 local_pool_mib;    /* DART_LOCAL_POOL_MIB */
  int                 local_pool_max_mib;/* DART_LOCAL_POOL_MAX_MIB, 0 =
                                            default */
  enum shared_rw_lock_kind nodedb_lock;  /* DART_NODEDB_LOCK */
  int                 accumulate_batch;  /* DART_ACCUMULATE_BATCH, 0 = off */
  enum remote_atomics remote_atomics;    /* DART_REMOTE_ATOMICS */
  int                 pool_grace_us;     /* DART_POOL_GRACE_US, -1 = the
                                            model (memory/pool_exposure.c) */
  enum pool_exposure  pool_exposure;     /* DART_POOL_EXPOSURE */
  int                 pool_shrink_ms;    /* DART_POOL_SHRINK_MS: how long a
                                            chunk stays empty before it is
                                            released, -1 = never */
  int                 stall_warn_ms;     /* DART_STALL_WARN_MS: after how
                                            long a wait for another unit
                                            to serve says so, 0 = never */
  int                 rma_piece_kib;     /* DART_RMA_PIECE_KIB: pieces of
                                            large MPI transfers, 0 = none,
                                            -1 = as the MPI needs
                                            (core/quirks.h) */
  int                 reduce_gather_units; /* DART_REDUCE_GATHER_UNITS:
                                            teams of at most this many
                                            units exchange a reduction's
                                            calls by allgather, larger
                                            ones by a reduction
                                            (collective/collectives.c) */
  bool                check_reductions;  /* DART_CHECK_REDUCTIONS: members
                                            of teams that reduce through
                                            MPI compare their calls first
                                            (collective/collectives.c) */
};

/* Fills `cfg` from the environment. Returns 0, or -1 with a message in
 * `why` naming the variable and the values it accepts. Unknown DART_*
 * variables are reported as warnings (likely typos), not errors. */
int env_config_read(struct env_config *cfg, char *why, size_t why_len);

#endif
