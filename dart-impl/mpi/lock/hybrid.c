/* Hybrid team lock (docs/design.md, "Locks"). On the home node a ticket lock
 * in shared memory (CPU atomics only) and the mode word; in an MPI window at
 * the home unit the 64-bit network word (changed by MPI atomics only; the home
 * also reads its own with loads, hybrid_serve_request). In CPU mode the ticket
 * decides the holder and the network word reads NET_CPU_MODE(_REQ); in network
 * mode the network word holds the holder's id or NET_UNLOCKED. Only a unit
 * holding the ticket and owning the network word (its value is not
 * NET_UNLOCKED and not another holder) changes the mode, so one mechanism
 * decides at every moment. Units on the home node always take the ticket
 * first; in network mode they also take the network word (and, by policy,
 * migrate the lock back to CPU mode). Remote units only use the network word;
 * finding CPU mode they mark it NET_CPU_MODE_REQ, and the home unit (poll from
 * DART calls or the progress thread) or the current ticket holder migrates the
 * lock to network mode. DART_LOCK_MODE=cpu: the same on a one-node team, which
 * has no network word at all. The shared line and the network word are a slot
 * of the team's lock arena (lock/arena.c); the uncontended CPU-mode acquire
 * and release are inlined in lock/api.c. */
#include "mpi/lock/hybrid.h"
#include "base/cache_line.h"
#include "mpi/core/progress.h"
#include "mpi/core/quirks.h"
#include "mpi/core/runtime.h"
#include "mpi/core/serialize.h"
#include "mpi/lock/arena.h"
#include "mpi/lock/lock.h"
#include "mpi/lock/polling.h"

#include <stdlib.h>

/* History policy: local acquisitions in network mode, none of which saw a
 * remote holder, before a local unit migrates the lock back. */
#define HISTORY_LOCAL_RUN 8

static dart_ret_t net_cas(const char *call, struct dart_lock_struct *l,
                          int64_t compare, int64_t value, int64_t *old)
{
  mpi_serial_enter(); /* core/serialize.h */
  int err = MPI_Compare_and_swap(&value, &compare, old, MPI_INT64_T, l->home,
                                 l->net_disp, l->net_win);
  if (err == MPI_SUCCESS) {
    err = mpi_win_flush_settled(l->home, l->net_win, l->net_disp,
                                true);
  }
  mpi_serial_leave();
  return err == MPI_SUCCESS ? DART_OK
                            : report_mpi_error(call, "MPI_Compare_and_swap",
                                               err);
}

static dart_ret_t net_read(const char *call, struct dart_lock_struct *l,
                           int64_t *value)
{
  mpi_serial_enter(); /* core/serialize.h */
  int err = MPI_Fetch_and_op(NULL, value, MPI_INT64_T, l->home,
                             l->net_disp, MPI_NO_OP, l->net_win);
  if (err == MPI_SUCCESS) {
    err = mpi_win_flush_settled(l->home, l->net_win, l->net_disp,
                                true);
  }
  mpi_serial_leave();
  return err == MPI_SUCCESS ? DART_OK
                            : report_mpi_error(call, "MPI_Fetch_and_op", err);
}

static bool ticket_try(struct lock_shm *s, uint64_t *ticket)
{
  uint64_t now = atomic_load_explicit(&s->serving, memory_order_acquire);
  uint64_t expect = now;
  if (atomic_compare_exchange_strong_explicit(&s->next, &expect, now + 1,
                                              memory_order_acquire,
                                              memory_order_relaxed)) {
    *ticket = now;
    return true;
  }
  return false;
}

static void ticket_release(struct lock_shm *s, uint64_t ticket)
{
  atomic_store_explicit(&s->serving, ticket + 1, memory_order_release);
}

/* Holding the ticket after a remote unit asked: hand the lock to the
 * network. A stale request (already served) changes nothing. *done (may
 * be NULL) tells whether the lock is in network mode now. */
static dart_ret_t migrate_to_net(const char *call, struct dart_lock_struct *l,
                                 bool *done)
{
  struct lock_shm *s = l->shm;
  int before = atomic_load_explicit(&s->mode, memory_order_relaxed);
  atomic_store_explicit(&s->mode, HYBRID_MODE_NET, memory_order_relaxed);
  int64_t old;
  dart_ret_t ret = net_cas(call, l, NET_CPU_MODE_REQ, NET_UNLOCKED, &old);
  LOG_DEBUG(call, "migration to network mode: %s",
            old == NET_CPU_MODE_REQ ? "done" : "request was stale");
  bool migrated = ret == DART_OK && old == NET_CPU_MODE_REQ;
  if (!migrated) {
    /* Back to what it was: CPU mode, or network mode when a request in
     * the word was served there (hybrid_serve_request) and a holder took
     * the word meanwhile. */
    atomic_store_explicit(&s->mode, before, memory_order_relaxed);
  } else {
    atomic_fetch_add_explicit(&s->to_net, 1, memory_order_relaxed);
  }
  atomic_store_explicit(&s->migrate_pending, 0, memory_order_relaxed);
  if (done != NULL) {
    *done = migrated;
  }
  return ret;
}

/* Holding the ticket in network mode: take the network word too, either
 * as holder or (by policy) turning it back into CPU mode. */
static dart_ret_t local_take_net(const char *call, struct dart_lock_struct *l,
                                 bool blocking, bool *got)
{
  struct lock_shm *s = l->shm;
  int streak = atomic_load_explicit(&s->local_streak, memory_order_relaxed);
  bool back_to_cpu = runtime.env.lock_policy == LOCK_POLICY_SEED ||
                     streak >= HISTORY_LOCAL_RUN;
  int64_t want = back_to_cpu ? NET_CPU_MODE : l->me;
  bool saw_remote = false;
  struct lock_backoff backoff = { 0 };
  for (;;) {
    int64_t old;
    dart_ret_t ret = net_cas(call, l, NET_UNLOCKED, want, &old);
    if (ret != DART_OK) {
      return ret;
    }
    if (old == NET_UNLOCKED) {
      break;
    }
    if (old == NET_CPU_MODE || old == NET_CPU_MODE_REQ) {
      /* The word says CPU mode although the line says network mode. A
       * ticket holder leaves network mode only with the word turned into
       * NET_CPU_MODE first, so this is a disagreement left behind (the
       * two never change together); with the ticket held nobody else can
       * move the word out of these two values (a remote only turns
       * CPU_MODE into CPU_MODE_REQ), so the ticket decides: this unit
       * holds the lock in CPU mode, and a request in the word is served
       * at release. Without this, every local unit would wait for
       * NET_UNLOCKED and every remote for a migration forever. */
      LOG_DEBUG(call, "network word %lld in network mode: back to CPU mode",
                (long long)old);
      atomic_store_explicit(&s->mode, HYBRID_MODE_CPU, memory_order_relaxed);
      if (old == NET_CPU_MODE_REQ) {
        atomic_store_explicit(&s->migrate_pending, 1, memory_order_relaxed);
      }
      *got = true;
      return DART_OK;
    }
    if (old >= 0 && old < l->team->size &&
        l->team->node_rank_of[old] < 0) {
      saw_remote = true;
    }
    if (!blocking) {
      *got = false;
      return DART_OK;
    }
    lock_backoff_wait(&backoff, l->team->comm);
  }
  if (back_to_cpu) {
    atomic_store_explicit(&s->mode, HYBRID_MODE_CPU, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->to_cpu, 1, memory_order_relaxed);
    atomic_store_explicit(&s->local_streak, 0, memory_order_relaxed);
  } else {
    l->net_held = true;
    atomic_store_explicit(&s->local_streak, saw_remote ? 0 : streak + 1,
                          memory_order_relaxed);
  }
  *got = true;
  return DART_OK;
}

dart_ret_t hybrid_local_wait(const char *call, struct dart_lock_struct *l,
                             uint64_t ticket)
{
  struct lock_shm *s = l->shm;
  struct lock_backoff backoff = { 0 };
  while (atomic_load_explicit(&s->serving, memory_order_acquire) != ticket) {
    lock_backoff_wait(&backoff, l->team->comm);
  }
  l->ticket = ticket;
  if (l->net_win == MPI_WIN_NULL ||
      atomic_load_explicit(&s->mode, memory_order_relaxed) ==
          HYBRID_MODE_CPU) {
    return DART_OK;
  }
  bool got;
  dart_ret_t ret = local_take_net(call, l, true, &got);
  if (ret != DART_OK) {
    ticket_release(s, ticket);
  }
  return ret;
}

static dart_ret_t local_try(const char *call, struct dart_lock_struct *l,
                            bool *got)
{
  struct lock_shm *s = l->shm;
  uint64_t ticket;
  if (!ticket_try(s, &ticket)) {
    *got = false;
    return DART_OK;
  }
  l->ticket = ticket;
  *got = true;
  if (l->net_win == MPI_WIN_NULL) {
    return DART_OK;
  }
  dart_ret_t ret = DART_OK;
  if (atomic_load_explicit(&s->mode, memory_order_relaxed) ==
      HYBRID_MODE_CPU) {
    if (!atomic_load_explicit(&s->migrate_pending, memory_order_relaxed)) {
      return DART_OK;
    }
    /* A remote unit waits for the lock: a try loop on this node must not
     * keep it in CPU mode forever (each successful local try would leave
     * the request to the next release, which the next try precedes).
     * Serve the request and leave the free lock to the network this
     * time; a stale request changes nothing and the try succeeds. */
    bool migrated = false;
    ret = migrate_to_net(call, l, &migrated);
    if (ret == DART_OK && !migrated) {
      return DART_OK;
    }
    *got = false;
  } else {
    ret = local_take_net(call, l, false, got);
  }
  if (ret != DART_OK || !*got) {
    *got = false;
    ticket_release(s, ticket);
  }
  return ret;
}

/* How long a remote try waits for the home node to hand over a lock in
 * CPU mode (see remote_take): several of the scheduler's time slices, for
 * a home unit that shares its core with others. 20 ms failed
 * test_locks_trylock free_lock_tried in a CI run whose 2 cores also ran
 * other programs (with two busy loops beside 4 units on 2 cores the
 * handover took 64-255 ms); a try costs this only while the home unit
 * stays outside DART, once per standing request. */
#define TRY_HANDOVER_NS (100 * 1000 * 1000LL)
#define TRY_HANDOVER_LOOKS 4

/* The network word protocol of a remote unit (l->mutex held). */
static dart_ret_t remote_take(const char *call, struct dart_lock_struct *l,
                              bool blocking, bool *got)
{
  struct lock_backoff backoff = { 0 };
  /* From the start: an MPI atomic may itself wait for the home (MPIs
   * whose RMA needs the target inside MPI). */
  struct progress_stall stall = { .since_ns = progress_clock_ns() };
  long long asked_ns = -1; /* when this try's request was in place */
  int looks = 0;           /* at the word since then */
  for (;;) {
    int64_t old, ignored;
    dart_ret_t ret = net_cas(call, l, NET_UNLOCKED, l->me, &old);
    if (ret != DART_OK) {
      return ret;
    }
    if (old == NET_UNLOCKED) {
      l->net_held = true;
      *got = true;
      return DART_OK;
    }
    if (old == NET_CPU_MODE) {
      ret = net_cas(call, l, NET_CPU_MODE, NET_CPU_MODE_REQ, &ignored);
      if (ret != DART_OK) {
        return ret;
      }
      if (ignored == NET_CPU_MODE && asked_ns < 0) {
        asked_ns = progress_clock_ns();
      }
    }
    bool cpu_mode = old == NET_CPU_MODE || old == NET_CPU_MODE_REQ;
    if (!blocking) {
      /* In CPU mode the lock is in the home node's memory, free or held
       * there, and only that node can hand it over, which it does within
       * microseconds from inside any DART call (or on the release). The
       * try that asks for it waits that long, so that a free lock is not
       * refused just for being in CPU mode; up to TRY_HANDOVER_NS after
       * asking, and at least TRY_HANDOVER_LOOKS looks at the word (which
       * can take milliseconds each on an overloaded machine), for a home
       * node outside DART (dart_synchronization.h). A
       * request that stands already says the home node is not answering:
       * no wait, so that a loop of tries does not wait in every one. */
      if (cpu_mode && asked_ns >= 0 &&
          (looks++ < TRY_HANDOVER_LOOKS ||
           progress_clock_ns() - asked_ns < TRY_HANDOVER_NS)) {
        /* Sleeps between the looks: each is an MPI atomic on the home's
         * word, which osc/ucx serializes with the home's own migration;
         * spinning on it held the handover up 70-90 ms at 4 units on 2
         * cores, 50 us naps 0.3 ms. */
        progress_sleep(50 * 1000);
        continue;
      }
      *got = false;
      return DART_OK;
    }
    lock_backoff_wait(&backoff, l->team->comm);
    if (!cpu_mode) {
      /* Waits for a holder: the wait for the home starts again. */
      stall = (struct progress_stall){ .since_ns = progress_clock_ns() };
      continue;
    }
    /* In CPU mode only the home node can hand the lock over. */
    long long waited_ms;
    if (progress_stalled(&stall, &waited_ms)) {
      LOG_WARN(call, "waited %lld ms for the node of unit %d, home of "
               "the lock, to hand it to this node: it is held there, or "
               "the units there are outside DART calls, where they serve "
               "no requests (unless the home runs DART_PROGRESS_THREAD=on "
               "under dart_init_thread)",
               waited_ms, (int)l->team->global_of[l->home]);
    }
  }
}

/* Off the home node. The threads of this unit share one identity (the
 * unit id in the network word) and one net_held flag, so only the one
 * holding l->mutex takes part in the protocol, from its acquire to its
 * release: two threads can never both think they hold the word. Waiting
 * for the mutex backs off like any lock wait (it polls). */
static dart_ret_t remote_acquire(const char *call, struct dart_lock_struct *l,
                                 bool blocking, bool *got)
{
  struct lock_backoff backoff = { 0 };
  while (pthread_mutex_trylock(&l->mutex) != 0) {
    if (!blocking) {
      *got = false;
      return DART_OK;
    }
    lock_backoff_wait(&backoff, l->team->comm);
  }
  dart_ret_t ret = remote_take(call, l, blocking, got);
  if (ret != DART_OK || !*got) {
    pthread_mutex_unlock(&l->mutex);
  }
  return ret;
}

_Atomic unsigned lock_poll_countdown = LOCK_POLL_EVERY;

static dart_ret_t hybrid_try(const char *call, struct dart_lock_struct *l,
                             bool *got)
{
  lock_maybe_poll();
  return l->on_home_node ? local_try(call, l, got)
                         : remote_acquire(call, l, false, got);
}

static dart_ret_t hybrid_acquire(const char *call, struct dart_lock_struct *l)
{
  lock_maybe_poll();
  if (l->on_home_node) {
    return hybrid_local_wait(call, l,
                             atomic_fetch_add_explicit(&l->shm->next, 1,
                                                       memory_order_relaxed));
  }
  bool got = false;
  return remote_acquire(call, l, true, &got);
}

/* Gives the network word back (net_held cleared first: once the word is
 * free another holder may set it; off the home node l->mutex, on it the
 * ticket, keeps the other threads of this unit out until we are done). */
static dart_ret_t net_release(const char *call, struct dart_lock_struct *l)
{
  l->net_held = false;
  int64_t old;
  dart_ret_t ret = net_cas(call, l, l->me, NET_UNLOCKED, &old);
  if (ret == DART_OK && old != l->me) {
    ret = report_error(DART_ERR_OTHER, call, "network lock word is %lld, "
                       "expected this unit (%d)", (long long)old, l->me);
  }
  return ret;
}

static dart_ret_t hybrid_release(const char *call, struct dart_lock_struct *l)
{
  dart_ret_t ret = DART_OK;
  if (!l->on_home_node) {
    /* No shared line here (l->shm is NULL): only the word. */
    if (l->net_held) {
      ret = net_release(call, l);
    }
    pthread_mutex_unlock(&l->mutex);
    lock_maybe_poll();
    return ret;
  }
  if (l->net_held) {
    ret = net_release(call, l);
  } else if (l->net_win != MPI_WIN_NULL &&
             atomic_load_explicit(&l->shm->migrate_pending,
                                  memory_order_relaxed)) {
    ret = migrate_to_net(call, l, NULL);
  }
  ticket_release(l->shm, l->ticket);
  lock_maybe_poll();
  return ret;
}

/* Called by locks_poll for a lock homed here: a pending request is served
 * now if the ticket is free, else by the ticket holder's release. */
static void hybrid_serve_request(struct dart_lock_struct *l)
{
  struct lock_shm *s = l->shm;
  /* The word is read in either mode: a request standing in network mode
   * (a disagreement, see local_take_net) is served the same way. It is
   * the home's own memory, so a load after MPI_Win_sync (the unified
   * model) reads it: a request shows up at the latest at the next poll,
   * and only the migration below changes the word, with MPI atomics. An
   * MPI atomic on oneself instead holds the home up under Open MPI's
   * osc/ucx while a remote unit works the word: 2.6 ms per read across
   * hosts, so that every remote acquire took 4 ms. */
  if (l->net_mine == NULL) {
    return; /* a one-node team: nobody remote to ask */
  }
  MPI_Win_sync(l->net_win);
  if (atomic_load_explicit(l->net_mine, memory_order_acquire) !=
      NET_CPU_MODE_REQ) {
    return;
  }
  atomic_store_explicit(&s->migrate_pending, 1, memory_order_relaxed);
  uint64_t ticket;
  if (ticket_try(s, &ticket)) {
    /* With the ticket, CPU_MODE_REQ in the word means nobody holds the
     * lock: migrate (a stale request changes nothing). */
    migrate_to_net("locks_poll", l, NULL);
    ticket_release(s, ticket);
  }
}

_Static_assert(sizeof(struct lock_shm) <= CACHE_LINE,
               "lock_shm spans one line");

/* Run by the home unit before the creation barrier: the slot may have
 * served a destroyed lock, so every word gets its initial value; the
 * line with CPU stores, the network word with MPI atomics (its only way
 * of access) - nobody else touches either before the barrier. */
static dart_ret_t reset_slot(const char *call, struct dart_lock_struct *l)
{
  struct lock_shm *s = l->shm;
  atomic_store(&s->next, 0);
  atomic_store(&s->serving, 0);
  atomic_store(&s->mode, HYBRID_MODE_CPU);
  atomic_store(&s->migrate_pending, 0);
  atomic_store(&s->local_streak, 0);
  atomic_store(&s->to_net, 0);
  atomic_store(&s->to_cpu, 0);
  if (l->net_win == MPI_WIN_NULL) {
    return DART_OK;
  }
  int64_t word, old;
  dart_ret_t ret = net_read(call, l, &word);
  if (ret == DART_OK && word != NET_CPU_MODE) {
    ret = net_cas(call, l, word, NET_CPU_MODE, &old);
  }
  return ret;
}

static void hybrid_free(struct dart_lock_struct *l)
{
  if (l->net_win != MPI_WIN_NULL && l->me == l->home) {
    locks_home_remove(l);
  }
  lock_arena_give_back(l->team, LOCK_ARENA_HYBRID, l->slot);
  l->shm = NULL;
  l->net_win = MPI_WIN_NULL;
}

static dart_ret_t hybrid_create(const char *call, struct dart_lock_struct *l)
{
  struct team *team = l->team;
  bool multi_node = team->num_nodes > 1;
  if (multi_node && !mpi_cas_works()) {
    return report_error(DART_ERR_OTHER, call, "hybrid locks across nodes "
                        "need MPI_Compare_and_swap, unsafe with this Open MPI "
                        "one-sided component (set OMPI_MCA_osc=sm,ucx)");
  }
  struct lock_slot where;
  dart_ret_t ret = lock_arena_take(call, team, LOCK_ARENA_HYBRID, &l->slot,
                                   &where);
  if (ret != DART_OK) {
    return ret;
  }
  /* Only the home node's units use their node's line. */
  l->shm = l->on_home_node ? where.shm : NULL;
  l->net_win = where.net_win;
  l->net_disp = where.net_disp;
  l->net_mine = where.net_mine;
  if (l->me == l->home) {
    ret = reset_slot(call, l);
  }
  int err = progress_gate(team->comm);
  if (ret == DART_OK && err != MPI_SUCCESS) {
    ret = report_mpi_error(call, "MPI_Ibarrier", err);
  }
  if (ret != DART_OK) {
    lock_arena_give_back(team, LOCK_ARENA_HYBRID, l->slot);
    return ret;
  }
  if (multi_node && l->me == l->home) {
    locks_home_add(call, l);
  }
  return DART_OK;
}

const struct lock_ops lock_ops_hybrid = {
  .name = "hybrid",
  .create = hybrid_create,
  .free = hybrid_free,
  .acquire = hybrid_acquire,
  .try_acquire = hybrid_try,
  .release = hybrid_release,
  .serve_home = hybrid_serve_request,
};
