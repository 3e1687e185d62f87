/* Baseline DART_LOCK_MODE=mpi-win-lock: the lock is an owner word at the
 * home unit, read and set inside MPI_Win_lock(MPI_LOCK_EXCLUSIVE) epochs.
 * (Holding the MPI lock across the user's critical section would leave no
 * way to implement dart_lock_try_acquire; each acquire, try and release
 * here is one exclusive epoch, retried with back-off while owned.) */
#include "mpi/core/progress.h"
#include "mpi/core/quirks.h"
#include "mpi/core/runtime.h"
#include "mpi/core/serialize.h"
#include "mpi/lock/lock.h"
#include "mpi/lock/polling.h"

#define WIN_LOCK_FREE INT64_C(-1)

/* One exclusive epoch: reads the owner and, if it equals `expect`, sets
 * it to `value`. */
static dart_ret_t owner_update(const char *call, struct dart_lock_struct *l,
                               int64_t expect, int64_t value, int64_t *old)
{
  const char *what = "MPI_Win_lock";
  mpi_serial_enter(); /* the whole epoch (core/serialize.h) */
  int err = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, l->home, 0, l->win);
  if (err == MPI_SUCCESS) {
    what = "MPI_Get";
    err = MPI_Get(old, 1, MPI_INT64_T, l->home, 0, 1, MPI_INT64_T, l->win);
    if (err == MPI_SUCCESS) {
      err = mpi_win_flush_settled(l->home, l->win, 0, true);
    }
    if (err == MPI_SUCCESS && *old == expect) {
      what = "MPI_Put";
      err = MPI_Put(&value, 1, MPI_INT64_T, l->home, 0, 1, MPI_INT64_T,
                    l->win);
    }
    int unlock_err = MPI_Win_unlock(l->home, l->win);
    if (err == MPI_SUCCESS && unlock_err != MPI_SUCCESS) {
      what = "MPI_Win_unlock";
      err = unlock_err;
    }
  }
  mpi_serial_leave();
  return err == MPI_SUCCESS ? DART_OK : report_mpi_error(call, what, err);
}

static dart_ret_t win_lock_try(const char *call, struct dart_lock_struct *l,
                               bool *got)
{
  *got = false;
  if (pthread_mutex_trylock(&l->mutex) != 0) {
    return DART_OK;
  }
  int64_t old;
  dart_ret_t ret = owner_update(call, l, WIN_LOCK_FREE, l->me, &old);
  *got = ret == DART_OK && old == WIN_LOCK_FREE;
  if (!*got) {
    pthread_mutex_unlock(&l->mutex);
  }
  return ret;
}

static dart_ret_t win_lock_acquire(const char *call,
                                   struct dart_lock_struct *l)
{
  pthread_mutex_lock(&l->mutex);
  struct lock_backoff backoff = { 0 };
  for (;;) {
    int64_t old;
    dart_ret_t ret = owner_update(call, l, WIN_LOCK_FREE, l->me, &old);
    if (ret != DART_OK) {
      pthread_mutex_unlock(&l->mutex);
      return ret;
    }
    if (old == WIN_LOCK_FREE) {
      return DART_OK;
    }
    lock_backoff_wait(&backoff, l->team->comm);
  }
}

static dart_ret_t win_lock_release(const char *call,
                                   struct dart_lock_struct *l)
{
  int64_t old;
  dart_ret_t ret = owner_update(call, l, l->me, WIN_LOCK_FREE, &old);
  if (ret == DART_OK && old != l->me) {
    ret = report_error(DART_ERR_OTHER, call, "lock owner word is %lld, "
                       "expected this unit (%d)", (long long)old, l->me);
  }
  pthread_mutex_unlock(&l->mutex);
  return ret;
}

static void win_lock_free(struct dart_lock_struct *l)
{
  if (l->win != MPI_WIN_NULL) {
    MPI_Win_free(&l->win);
  }
}

static dart_ret_t win_lock_create(const char *call,
                                  struct dart_lock_struct *l)
{
  int64_t *owner = NULL;
  MPI_Aint bytes = l->me == l->home ? (MPI_Aint)sizeof(int64_t) : 0;
  /* Polled gate in front of the blocking allocation (progress.h). */
  int err = progress_gate(l->team->comm);
  if (err != MPI_SUCCESS) {
    l->win = MPI_WIN_NULL;
    return report_mpi_error(call, "MPI_Ibarrier", err);
  }
  err = MPI_Win_allocate(bytes, sizeof(int64_t), MPI_INFO_NULL,
                             l->team->comm, &owner, &l->win);
  if (err != MPI_SUCCESS) {
    l->win = MPI_WIN_NULL;
    return report_mpi_error(call, "MPI_Win_allocate", err);
  }
  MPI_Win_set_errhandler(l->win, MPI_ERRORS_RETURN);
  if (l->me == l->home) {
    *owner = WIN_LOCK_FREE;
  }
  err = progress_gate(l->team->comm);
  if (err != MPI_SUCCESS) {
    win_lock_free(l);
    return report_mpi_error(call, "MPI_Ibarrier", err);
  }
  return DART_OK;
}

const struct lock_ops lock_ops_win_lock = {
  .name = "mpi-win-lock",
  .create = win_lock_create,
  .free = win_lock_free,
  .acquire = win_lock_acquire,
  .try_acquire = win_lock_try,
  .release = win_lock_release,
};
