/* Progress for locks homed at this unit (lock/polling.c has the
 * liveness argument): the registry the polls walk and the waits'
 * back-off; the optional progress thread (core/progress.h) is held while
 * locks are homed here. */
#ifndef DART_MPI_LOCK_PROGRESS_H
#define DART_MPI_LOCK_PROGRESS_H

#include "mpi/lock/lock.h"

#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>

/* Waiting with back-off: spins briefly, then yields and sleeps longer,
 * and enters MPI (progress for MPICH's RMA) and the migration poll. */
struct lock_backoff {
  unsigned rounds;
};
void lock_backoff_wait(struct lock_backoff *b, MPI_Comm comm);

/* Serves pending migration requests of the hybrid locks homed at this
 * unit. Cheap when there are none; safe from any thread. */
void locks_poll(void);
/* Whether this unit is home of a hybrid lock reachable from other nodes
 * (then waits should poll). Inline: the lock fast path asks. */
extern _Atomic int lock_home_count;
static inline bool locks_need_polling(void)
{
  return atomic_load_explicit(&lock_home_count, memory_order_relaxed) > 0;
}

/* Home units serve migration requests every LOCK_POLL_EVERY lock calls
 * (and in every wait): reading a network word costs an MPI atomic, about
 * 1 us on MPICH, which a 6 ns acquire+release must not pay often.
 * Relaxed load and store, no read-modify-write: that would cost as much
 * as the whole CPU-mode acquire (a count lost to a race is harmless). */
#define LOCK_POLL_EVERY 128
extern _Atomic unsigned lock_poll_countdown;
static inline void lock_maybe_poll(void)
{
  if (!locks_need_polling()) {
    return;
  }
  unsigned left = atomic_load_explicit(&lock_poll_countdown,
                                       memory_order_relaxed);
  if (left > 1) {
    atomic_store_explicit(&lock_poll_countdown, left - 1,
                          memory_order_relaxed);
    return;
  }
  atomic_store_explicit(&lock_poll_countdown, LOCK_POLL_EVERY,
                        memory_order_relaxed);
  locks_poll();
}

/* Registers a lock homed here for polling (its ops->serve_home) /
 * removes it. The first registration holds the progress thread
 * (core/progress.h, where DART_PROGRESS_THREAD=on); the last removal
 * releases it. */
void locks_home_add(const char *call, struct dart_lock_struct *lock);
void locks_home_remove(struct dart_lock_struct *lock);

#endif
