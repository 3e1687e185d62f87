#define _GNU_SOURCE /* glibc's writer-preferring rwlock kind */
#include "base/rw_lock_2n.h"
#include "base/cache_line.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>


/* One reader's pair, alone on its cache line: the read path writes only
 * here, so readers never bounce lines between each other. */
struct reader_pair {
  alignas(CACHE_LINE) atomic_uint mu;
  atomic_uint nu;
};

struct shared_rw_lock {
  alignas(CACHE_LINE) uint32_t kind;
  int32_t readers;
  alignas(CACHE_LINE) atomic_uint writer;  /* serializes 2N writers */
  atomic_uint readers_shut_out;            /* writer holds every nu_i */
  alignas(CACHE_LINE) pthread_rwlock_t rwlock;
  struct reader_pair pairs[];
};

_Static_assert(sizeof(struct reader_pair) == CACHE_LINE, "one pair per line");
_Static_assert(sizeof(struct shared_rw_lock) % CACHE_LINE == 0, "aligned");

size_t shared_rw_lock_bytes(int readers)
{
  return sizeof(struct shared_rw_lock) +
         (size_t)(readers > 0 ? readers : 0) * sizeof(struct reader_pair);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* Waiting: a few spins (the holder is usually running), then yield (we
 * may share a core with it), then sleep so a descheduled holder runs. */
static void backoff(unsigned round)
{
  if (round < 16) {
    cpu_relax();
  } else if (round < 256) {
    sched_yield();
  } else {
    struct timespec pause = { 0, 20000 };
    nanosleep(&pause, NULL);
  }
}

/* Sequentially consistent exchanges: the reader takes mu_i and then
 * looks at nu_i, the writer takes nu_i and then mu_i, and one single
 * order of those accesses makes one of the two see the other. */
static inline int word_try_lock(atomic_uint *word)
{
  return atomic_load_explicit(word, memory_order_relaxed) == 0 &&
         atomic_exchange_explicit(word, 1, memory_order_seq_cst) == 0;
}

static void __attribute__((noinline)) word_lock_contended(atomic_uint *word)
{
  for (unsigned round = 0; !word_try_lock(word); ++round) {
    backoff(round);
  }
}

static inline void word_lock(atomic_uint *word)
{
  if (!word_try_lock(word)) {
    word_lock_contended(word);
  }
}

static inline void word_unlock(atomic_uint *word)
{
  atomic_store_explicit(word, 0, memory_order_release);
}

/* The reader's try-lock of nu_i, released at once when it succeeds,
 * changes nothing but tells whether nu_i is free: a load says the same. */
static inline bool word_free(atomic_uint *word)
{
  return atomic_load_explicit(word, memory_order_seq_cst) == 0;
}

int shared_rw_lock_format(void *mem, enum shared_rw_lock_kind kind,
                          int readers)
{
  if (mem == NULL || readers < 1 ||
      (kind != SHARED_RW_LOCK_2N && kind != SHARED_RW_LOCK_PTHREAD &&
       kind != SHARED_RW_LOCK_NONE)) {
    return EINVAL;
  }
  struct shared_rw_lock *lock = mem;
  memset(lock, 0, shared_rw_lock_bytes(readers));
  lock->kind = (uint32_t)kind;
  lock->readers = readers;
  atomic_init(&lock->writer, 0);
  atomic_init(&lock->readers_shut_out, 0);
  for (int i = 0; i < readers; ++i) {
    atomic_init(&lock->pairs[i].mu, 0);
    atomic_init(&lock->pairs[i].nu, 0);
  }
  if (kind == SHARED_RW_LOCK_PTHREAD) {
    pthread_rwlockattr_t attr;
    int err = pthread_rwlockattr_init(&attr);
    if (err == 0) {
      err = pthread_rwlockattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
#ifdef __GLIBC__
      /* glibc prefers readers by default, and a stream of readers then
       * starves the writer; compare like with like (writer preference). */
      if (err == 0) {
        err = pthread_rwlockattr_setkind_np(
            &attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
      }
#endif
      if (err == 0) {
        err = pthread_rwlock_init(&lock->rwlock, &attr);
      }
      pthread_rwlockattr_destroy(&attr);
    }
    return err;
  }
  return 0;
}

void shared_rw_lock_destroy(struct shared_rw_lock *lock)
{
  if (lock != NULL && lock->kind == SHARED_RW_LOCK_PTHREAD) {
    pthread_rwlock_destroy(&lock->rwlock);
  }
}

enum shared_rw_lock_kind shared_rw_lock_kind(const struct shared_rw_lock *lock)
{
  return (enum shared_rw_lock_kind)lock->kind;
}

int shared_rw_lock_readers(const struct shared_rw_lock *lock)
{
  return lock->readers;
}

int shared_rw_lock_readers_shut_out(const struct shared_rw_lock *lock)
{
  return (int)atomic_load_explicit(
      &((struct shared_rw_lock *)lock)->readers_shut_out,
      memory_order_acquire);
}

/* The two baselines share one shape: the rwlock call, or nothing.
 * Returns false for the 2N-lock, which the caller then handles. */
static inline bool baseline(struct shared_rw_lock *lock,
                            int (*rwlock_op)(pthread_rwlock_t *))
{
  if (lock->kind == SHARED_RW_LOCK_2N) {
    return false;
  }
  if (lock->kind == SHARED_RW_LOCK_PTHREAD) {
    rwlock_op(&lock->rwlock);
  }
  return true;
}

/* The reader's slow path, out of line so that the uncontended path needs
 * no stack frame: take mu_i if the first try failed; while a writer holds
 * nu_i, release mu_i, block until the writer lets go of nu_i (without
 * taking it, which would hold up the next writer) and take mu_i again. */
static void __attribute__((noinline))
read_acquire_contended(struct reader_pair *pair, bool holding_mu)
{
  if (!holding_mu) {
    word_lock(&pair->mu);
  }
  while (!word_free(&pair->nu)) {
    word_unlock(&pair->mu);
    for (unsigned round = 0; !word_free(&pair->nu); ++round) {
      backoff(round);
    }
    word_lock(&pair->mu);
  }
}

void shared_rw_lock_read_acquire(struct shared_rw_lock *lock, int reader)
{
  if (baseline(lock, pthread_rwlock_rdlock)) {
    return;
  }
  struct reader_pair *pair = &lock->pairs[reader];
  bool holding_mu = word_try_lock(&pair->mu);
  if (!holding_mu || !word_free(&pair->nu)) {
    read_acquire_contended(pair, holding_mu);
  }
  /* holding mu_i keeps every writer out */
}

void shared_rw_lock_read_release(struct shared_rw_lock *lock, int reader)
{
  if (!baseline(lock, pthread_rwlock_unlock)) {
    word_unlock(&lock->pairs[reader].mu);
  }
}

void shared_rw_lock_write_acquire(struct shared_rw_lock *lock)
{
  if (baseline(lock, pthread_rwlock_wrlock)) {
    return;
  }
  word_lock(&lock->writer);
  for (int i = 0; i < lock->readers; ++i) {
    word_lock(&lock->pairs[i].nu);
  }
  atomic_store_explicit(&lock->readers_shut_out, 1, memory_order_release);
  for (int i = 0; i < lock->readers; ++i) {
    word_lock(&lock->pairs[i].mu);
  }
}

void shared_rw_lock_write_release(struct shared_rw_lock *lock)
{
  if (baseline(lock, pthread_rwlock_unlock)) {
    return;
  }
  for (int i = 0; i < lock->readers; ++i) {
    word_unlock(&lock->pairs[i].mu);
  }
  atomic_store_explicit(&lock->readers_shut_out, 0, memory_order_release);
  for (int i = 0; i < lock->readers; ++i) {
    word_unlock(&lock->pairs[i].nu);
  }
  word_unlock(&lock->writer);
}
