/* Baseline DART_LOCK_MODE=mpi-mcs: an MCS queue lock on MPI atomics only.
 * Each unit's slot of the team's MCS arena (a window shared by up to 64
 * locks) holds { tail, next, blocked } as 64-bit words; the home unit's
 * tail is the queue's end. Every word is written with
 * MPI_Compare_and_swap and read with MPI_Fetch_and_op(MPI_NO_OP), so the
 * window's default accumulate_ops (same op or no-op) holds. */
#include "mpi/core/progress.h"
#include "mpi/core/quirks.h"
#include "mpi/core/runtime.h"
#include "mpi/core/serialize.h"
#include "mpi/lock/arena.h"
#include "mpi/lock/lock.h"
#include "mpi/lock/polling.h"

enum { MCS_TAIL = 0, MCS_NEXT = 1, MCS_BLOCKED = 2 };
#define MCS_NONE INT64_C(-1)

static dart_ret_t mcs_cas(const char *call, struct dart_lock_struct *l,
                          int unit, int word, int64_t compare, int64_t value,
                          int64_t *old)
{
  mpi_serial_enter(); /* core/serialize.h */
  int err = MPI_Compare_and_swap(&value, &compare, old, MPI_INT64_T, unit,
                                 l->net_disp + word, l->win);
  if (err == MPI_SUCCESS) {
    err = mpi_win_flush_settled(unit, l->win, l->net_disp + word,
                                true);
  }
  mpi_serial_leave();
  return err == MPI_SUCCESS ? DART_OK
                            : report_mpi_error(call, "MPI_Compare_and_swap",
                                               err);
}

static dart_ret_t mcs_read(const char *call, struct dart_lock_struct *l,
                           int word, int64_t *value)
{
  mpi_serial_enter(); /* core/serialize.h */
  int err = MPI_Fetch_and_op(NULL, value, MPI_INT64_T, l->me,
                             l->net_disp + word, MPI_NO_OP, l->win);
  if (err == MPI_SUCCESS) {
    err = mpi_win_flush_settled(l->me, l->win, l->net_disp + word,
                                true);
  }
  mpi_serial_leave();
  return err == MPI_SUCCESS ? DART_OK
                            : report_mpi_error(call, "MPI_Fetch_and_op", err);
}

/* Sets a word whose current value is known (only its owner-to-be writes
 * it at this point of the protocol). */
static dart_ret_t mcs_set(const char *call, struct dart_lock_struct *l,
                          int unit, int word, int64_t expect, int64_t value)
{
  int64_t old;
  dart_ret_t ret = mcs_cas(call, l, unit, word, expect, value, &old);
  if (ret == DART_OK && old != expect) {
    ret = report_error(DART_ERR_OTHER, call, "MCS word %d of unit %d is "
                       "%lld, expected %lld", word, unit, (long long)old,
                       (long long)expect);
  }
  return ret;
}

/* Waits until my word differs from (want_equal=false) or equals `value`. */
static dart_ret_t mcs_wait(const char *call, struct dart_lock_struct *l,
                           int word, int64_t value, bool want_equal,
                           int64_t *seen)
{
  struct lock_backoff backoff = { 0 };
  for (;;) {
    dart_ret_t ret = mcs_read(call, l, word, seen);
    if (ret != DART_OK || (*seen == value) == want_equal) {
      return ret;
    }
    lock_backoff_wait(&backoff, l->team->comm);
  }
}

static dart_ret_t mcs_acquire(const char *call, struct dart_lock_struct *l)
{
  pthread_mutex_lock(&l->mutex);
  /* Swap myself into the tail (a CAS loop keeps to one op). */
  int64_t guess = MCS_NONE, pred;
  dart_ret_t ret;
  for (;;) {
    ret = mcs_cas(call, l, l->home, MCS_TAIL, guess, l->me, &pred);
    if (ret != DART_OK || pred == guess) {
      break;
    }
    guess = pred;
  }
  if (ret == DART_OK && pred != MCS_NONE) {
    /* Blocked before linking: the predecessor can grant only after it
     * sees the link. */
    int64_t seen;
    ret = mcs_set(call, l, l->me, MCS_BLOCKED, 0, 1);
    if (ret == DART_OK) {
      ret = mcs_set(call, l, (int)pred, MCS_NEXT, MCS_NONE, l->me);
    }
    if (ret == DART_OK) {
      ret = mcs_wait(call, l, MCS_BLOCKED, 0, true, &seen);
    }
  }
  if (ret != DART_OK) {
    pthread_mutex_unlock(&l->mutex);
  }
  return ret;
}

static dart_ret_t mcs_try(const char *call, struct dart_lock_struct *l,
                          bool *got)
{
  *got = false;
  if (pthread_mutex_trylock(&l->mutex) != 0) {
    return DART_OK;
  }
  int64_t old;
  dart_ret_t ret = mcs_cas(call, l, l->home, MCS_TAIL, MCS_NONE, l->me, &old);
  *got = ret == DART_OK && old == MCS_NONE;
  if (!*got) {
    pthread_mutex_unlock(&l->mutex);
  }
  return ret;
}

static dart_ret_t mcs_release(const char *call, struct dart_lock_struct *l)
{
  int64_t succ, old;
  dart_ret_t ret = mcs_read(call, l, MCS_NEXT, &succ);
  if (ret == DART_OK && succ == MCS_NONE) {
    ret = mcs_cas(call, l, l->home, MCS_TAIL, l->me, MCS_NONE, &old);
    if (ret == DART_OK && old == l->me) {
      pthread_mutex_unlock(&l->mutex);
      return DART_OK;
    }
    /* Someone swapped in behind me: wait for the link. */
    if (ret == DART_OK) {
      ret = mcs_wait(call, l, MCS_NEXT, MCS_NONE, false, &succ);
    }
  }
  if (ret == DART_OK) {
    ret = mcs_set(call, l, l->me, MCS_NEXT, succ, MCS_NONE);
  }
  if (ret == DART_OK) {
    ret = mcs_set(call, l, (int)succ, MCS_BLOCKED, 1, 0);
  }
  pthread_mutex_unlock(&l->mutex);
  return ret;
}

static void mcs_free(struct dart_lock_struct *l)
{
  lock_arena_give_back(l->team, LOCK_ARENA_MCS, l->slot);
  l->win = MPI_WIN_NULL;
}

/* My words of a slot that may have served a destroyed lock get their
 * initial values (before the creation barrier, nobody else reads them). */
static dart_ret_t mcs_reset(const char *call, struct dart_lock_struct *l)
{
  static const int64_t initial[] = { [MCS_TAIL] = MCS_NONE,
                                     [MCS_NEXT] = MCS_NONE,
                                     [MCS_BLOCKED] = 0 };
  dart_ret_t ret = DART_OK;
  for (int w = 0; w < 3 && ret == DART_OK; ++w) {
    int64_t now, old;
    ret = mcs_read(call, l, w, &now);
    if (ret == DART_OK && now != initial[w]) {
      ret = mcs_cas(call, l, l->me, w, now, initial[w], &old);
    }
  }
  return ret;
}

static dart_ret_t mcs_create(const char *call, struct dart_lock_struct *l)
{
  if (!mpi_cas_works()) {
    return report_error(DART_ERR_OTHER, call, "the MCS lock needs "
                        "MPI_Compare_and_swap, unsafe with this Open MPI "
                        "one-sided component (set OMPI_MCA_osc=sm,ucx)");
  }
  struct lock_slot where;
  dart_ret_t ret = lock_arena_take(call, l->team, LOCK_ARENA_MCS, &l->slot,
                                   &where);
  if (ret != DART_OK) {
    return ret;
  }
  l->win = where.net_win;
  l->net_disp = where.net_disp;
  ret = mcs_reset(call, l);
  int err = progress_gate(l->team->comm);
  if (ret == DART_OK && err != MPI_SUCCESS) {
    ret = report_mpi_error(call, "MPI_Ibarrier", err);
  }
  if (ret != DART_OK) {
    mcs_free(l);
  }
  return ret;
}

const struct lock_ops lock_ops_mcs = {
  .name = "mpi-mcs",
  .create = mcs_create,
  .free = mcs_free,
  .acquire = mcs_acquire,
  .try_acquire = mcs_try,
  .release = mcs_release,
};
