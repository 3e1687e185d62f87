/* Which units of a segment have RMA operations that no flush of all
 * units has completed yet, so that such a flush can complete them one
 * target at a time.
 *
 * Why: MPI_Win_flush_all can return before every put is visible at its
 * target, on both MPIs of this platform. Open MPI 4.1 with osc/ucx
 * returns while UCX still queues puts for a target whose FIFO was full
 * (MPI_Win_create memory goes through UCX's active-message emulation of
 * RMA); seen with plain MPI: the last puts of a 1024-put burst, 4 ranks
 * on 2 cores. MPICH 4.0.2 does the same on the local pool's window once
 * no MPI_Barrier (whose messages queue behind the puts) follows. A
 * MPI_Win_flush of each target is correct on both. */
#ifndef DART_MPI_RMA_TARGETS_H
#define DART_MPI_RMA_TARGETS_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct rma_targets {
  atomic_uint_least64_t *remote; /* bit u: unit u awaits MPI_Win_flush */
  atomic_uint_least64_t *local;  /* bit u: awaits MPI_Win_flush_local */
  int words;
  bool ready; /* initialized: a zeroed struct is safe to free */
  pthread_mutex_t lock; /* one flush of all units at a time: a second
                           thread must not return before the first one's
                           flushes of the bits it took are done */
};

/* Sets up an empty set for `units` units; -1 if out of memory. */
int rma_targets_init(struct rma_targets *t, int units);
void rma_targets_free(struct rma_targets *t);

/* Records an RMA operation to `unit`, after it was issued (a concurrent
 * flush of all units that misses the mark did not have to complete it). */
static inline void rma_targets_mark(struct rma_targets *t, int unit)
{
  if (t->remote == NULL) {
    return;
  }
  uint_least64_t bit = (uint_least64_t)1 << (unit % 64);
  int w = unit / 64;
  if ((atomic_load_explicit(&t->remote[w], memory_order_relaxed) & bit) ==
      0) {
    atomic_fetch_or_explicit(&t->remote[w], bit, memory_order_release);
  }
  if ((atomic_load_explicit(&t->local[w], memory_order_relaxed) & bit) ==
      0) {
    atomic_fetch_or_explicit(&t->local[w], bit, memory_order_release);
  }
}

struct segment;

/* Completes every operation marked before the call: MPI_Win_flush (or,
 * with `local_only`, MPI_Win_flush_local) of each marked unit of `seg`,
 * whose set `t` is, on its window. Returns the MPI error code. */
int rma_targets_flush_all(struct rma_targets *t, const struct segment *seg,
                          bool local_only);

#endif
