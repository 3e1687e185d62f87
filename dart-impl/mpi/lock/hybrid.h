/* The hybrid lock's fast paths on its home node (the lock itself:
 * hybrid.c), inline so that the API entries (api.c) take and give a free
 * CPU-mode lock without a call: a ticket from the shared line, served at
 * once. Anything else (not yet served, network mode, a pending migration)
 * continues in hybrid.c. */
#ifndef DART_MPI_LOCK_HYBRID_H
#define DART_MPI_LOCK_HYBRID_H

#include "mpi/lock/lock.h"
#include "mpi/lock/polling.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Finishes an acquire on the home node that drew `ticket` (waits for it,
 * takes the network word in network mode). */
dart_ret_t hybrid_local_wait(const char *call, struct dart_lock_struct *l,
                             uint64_t ticket);

/* Acquire on the home node (l->fast_local); the caller does not hold it. */
static inline dart_ret_t hybrid_fast_acquire(const char *call,
                                             struct dart_lock_struct *l)
{
  lock_maybe_poll();
  struct lock_shm *s = l->shm;
  uint64_t ticket = atomic_fetch_add_explicit(&s->next, 1,
                                              memory_order_relaxed);
  if (atomic_load_explicit(&s->serving, memory_order_acquire) == ticket &&
      (l->net_win == MPI_WIN_NULL ||
       atomic_load_explicit(&s->mode, memory_order_relaxed) ==
           HYBRID_MODE_CPU)) {
    l->ticket = ticket;
    return DART_OK;
  }
  return hybrid_local_wait(call, l, ticket);
}

/* Whether the caller's release of a lock it holds on the home node is
 * only the ticket's: no network word held, no migration pending. */
static inline bool hybrid_fast_release_ok(const struct dart_lock_struct *l)
{
  return l->fast_local && !l->net_held &&
         (l->net_win == MPI_WIN_NULL ||
          !atomic_load_explicit(&l->shm->migrate_pending,
                                memory_order_relaxed));
}

/* That release (after hybrid_fast_release_ok). */
static inline void hybrid_fast_release(struct dart_lock_struct *l)
{
  atomic_store_explicit(&l->shm->serving, l->ticket + 1,
                        memory_order_release);
  lock_maybe_poll();
}

#endif
