/* Reader/writer lock that lives in memory shared by processes of one node
 * (the 2N-lock; docs/design.md, "Locality and bootstrap"). One interface,
 * three implementations, chosen when the lock is formatted so they can be
 * measured side by side:
 *
 *  - 2N-lock: reader i owns the pair (mu_i, nu_i) on its own cache lines.
 *    Reader: lock mu_i, try-lock nu_i; on success release nu_i and read;
 *    otherwise release mu_i, wait for nu_i (writer preference) and retry.
 *    Writer (writers serialized by one more lock): lock every nu_i, then
 *    every mu_i. A try-lock of nu_i that is released at once only tells
 *    whether nu_i is free, so the reader tests it with a load, and waits
 *    for it to become free without taking it. The uncontended read path
 *    is one atomic exchange, one load and one store on the reader's own
 *    line: no shared counter, no syscall.
 *  - a process-shared pthread rwlock (the usual baseline);
 *  - no lock at all (readers may see torn data; for measurement only).
 *
 * The lock words are address-free C11 atomics; waiting spins briefly,
 * then yields, then sleeps. No MPI inside. */
#ifndef DART_BASE_RW_LOCK_2N_H
#define DART_BASE_RW_LOCK_2N_H

#include <stddef.h>

enum shared_rw_lock_kind {
  SHARED_RW_LOCK_2N,      /* the 2N-lock (default) */
  SHARED_RW_LOCK_PTHREAD, /* pthread_rwlock_t, PTHREAD_PROCESS_SHARED */
  SHARED_RW_LOCK_NONE     /* no locking */
};

struct shared_rw_lock;

/* Bytes a lock for `readers` readers needs (a multiple of 64; place it at
 * a 64-byte aligned address). */
size_t shared_rw_lock_bytes(int readers);

/* Formats the lock in `mem` (one process, before any other uses it).
 * Returns 0, or an errno value (EINVAL for readers < 1 or an unknown
 * kind, or what pthread returned). */
int shared_rw_lock_format(void *mem, enum shared_rw_lock_kind kind,
                          int readers);

/* Destroys a formatted lock (one process, when nobody uses it any more). */
void shared_rw_lock_destroy(struct shared_rw_lock *lock);

enum shared_rw_lock_kind shared_rw_lock_kind(const struct shared_rw_lock *lock);
int shared_rw_lock_readers(const struct shared_rw_lock *lock);

/* Reader `reader` (0 <= reader < readers, each used by one process or
 * thread at a time) takes and drops the lock for reading. */
void shared_rw_lock_read_acquire(struct shared_rw_lock *lock, int reader);
void shared_rw_lock_read_release(struct shared_rw_lock *lock, int reader);

/* Any process takes and drops the lock for writing. A reader must not
 * hold its read side while it writes. */
void shared_rw_lock_write_acquire(struct shared_rw_lock *lock);
void shared_rw_lock_write_release(struct shared_rw_lock *lock);

/* 2N-lock only: non-zero while a writer holds every nu_i, i.e. new
 * readers wait for it (lets tests check writer preference). */
int shared_rw_lock_readers_shut_out(const struct shared_rw_lock *lock);

#endif
