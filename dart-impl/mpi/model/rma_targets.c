#include "mpi/model/rma_targets.h"
#include "mpi/core/quirks.h"
#include "mpi/core/serialize.h"
#include "mpi/model/segment.h"

#include <stdlib.h>

int rma_targets_init(struct rma_targets *t, int units)
{
  t->remote = t->local = NULL;
  t->words = 0;
  t->ready = false;
  if (pthread_mutex_init(&t->lock, NULL) != 0) {
    return -1;
  }
  t->ready = true;
  if (units <= 0) {
    return 0;
  }
  int words = (units + 63) / 64;
  t->remote = calloc((size_t)words, sizeof *t->remote);
  t->local = calloc((size_t)words, sizeof *t->local);
  if (t->remote == NULL || t->local == NULL) {
    rma_targets_free(t);
    return -1;
  }
  t->words = words;
  return 0;
}

void rma_targets_free(struct rma_targets *t)
{
  free((void *)t->remote);
  free((void *)t->local);
  t->remote = t->local = NULL;
  t->words = 0;
  if (t->ready) {
    pthread_mutex_destroy(&t->lock);
    t->ready = false;
  }
}

/* Flushes the units whose bits are set in `bits`, word `w`; on failure
 * the bits not yet flushed are put back for the next attempt. */
static int flush_word(struct rma_targets *t, const struct segment *seg,
                      bool local_only, int w, uint_least64_t bits)
{
  while (bits != 0) {
    int b = __builtin_ctzll(bits);
    int unit = w * 64 + b;
    int err;
    MPI_SERIALIZED(err = mpi_win_flush_settled(unit, seg->win,
                                               segment_probe(seg, unit),
                                               !local_only));
    if (err != MPI_SUCCESS) {
      atomic_fetch_or_explicit(local_only ? &t->local[w] : &t->remote[w],
                               bits, memory_order_relaxed);
      return err;
    }
    bits &= bits - 1;
  }
  return MPI_SUCCESS;
}

int rma_targets_flush_all(struct rma_targets *t, const struct segment *seg,
                          bool local_only)
{
  MPI_Win win = seg->win;
  if (t->remote == NULL) { /* never set up: nothing better to do */
    int err;
    MPI_SERIALIZED(err = local_only ? MPI_Win_flush_local_all(win)
                                    : MPI_Win_flush_all(win));
    return err;
  }
  int err = MPI_SUCCESS;
  pthread_mutex_lock(&t->lock);
  for (int w = 0; w < t->words && err == MPI_SUCCESS; ++w) {
    uint_least64_t bits;
    if (local_only) {
      bits = atomic_exchange_explicit(&t->local[w], 0, memory_order_acquire);
    } else {
      /* A flush completes locally too. */
      bits = atomic_exchange_explicit(&t->remote[w], 0, memory_order_acquire);
      bits |= atomic_exchange_explicit(&t->local[w], 0,
                                       memory_order_acquire);
    }
    err = flush_word(t, seg, local_only, w, bits);
  }
  pthread_mutex_unlock(&t->lock);
  return err;
}
