/* The DART lock API: handle validation, home placement and the choice of
 * implementation (DART_LOCK_MODE); the modes live in lock_*.c. */
#include "base/tombstone_slab.h"
#include "mpi/core/progress.h"
#include "mpi/core/runtime.h"
#include "mpi/lock/arena.h"
#include "mpi/lock/hybrid.h"
#include "mpi/lock/lock.h"
#include "mpi/lock/polling.h"

#include <stdlib.h>

#define LOCK_MAGIC_LIVE 0x4c4f434bu /* "LOCK" */
#define LOCK_MAGIC_DEAD 0x44454144u /* "DEAD" */

/* Every live handle in creation order (teardown frees collectively in
 * that order on every member). Handles come from a slab whose addresses
 * are never reused: a stale copy of a destroyed handle reads a dead or a
 * zero magic and is reported, not read after free nor taken for a newer
 * lock, and destroyed handles give their memory back (a graveyard of
 * them grew by 190 bytes per init/destroy). Under registry_mutex. */
static struct dart_lock_struct *live_locks;
static struct tombstone_slab    lock_slab =
  TOMBSTONE_SLAB_INITIALIZER(sizeof(struct dart_lock_struct));
static pthread_mutex_t          registry_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Per team: locks created so far (the same sequence on every member,
 * init being collective, so all agree on each lock's home). */
struct team_lock_count {
  dart_team_t             team_id;
  unsigned                created; /* wraps, alike everywhere */
  struct team_lock_count *next;
};
static struct team_lock_count *lock_counts;

/* initial-exec: the default model for a shared library calls
 * __tls_get_addr, a tenth of an uncontended acquire+release. */
static _Thread_local char thread_token __attribute__((tls_model("initial-exec")));

static uintptr_t my_token(void) { return (uintptr_t)&thread_token; }

static struct team_lock_count *team_count(const char *call,
                                          struct team *team)
{
  struct team_lock_count *c = lock_counts;
  while (c != NULL && c->team_id != team->id) {
    c = c->next;
  }
  if (c != NULL) {
    return c;
  }
  c = calloc(1, sizeof *c);
  if (c == NULL) {
    report_error(DART_ERR_NOMEM, call, "out of memory");
    return NULL;
  }
  c->team_id = team->id;
  c->next = lock_counts;
  lock_counts = c;
  return c;
}

/* Home of the k-th lock: nodes in turn first, then the units of that
 * node in turn, so many locks spread over nodes and units. */
static void choose_home(const struct team *team, unsigned k, int *home)
{
  int node = (int)(k % (unsigned)team->num_nodes), on_node = 0;
  for (int u = 0; u < team->size; ++u) {
    on_node += team->node_of[u] == node;
  }
  int pick = (int)(k / (unsigned)team->num_nodes % (unsigned)on_node);
  for (int u = 0; u < team->size; ++u) {
    if (team->node_of[u] == node && pick-- == 0) {
      *home = u;
      break;
    }
  }
}

static bool warned_cpu_mode;

static const struct lock_ops *ops_for_mode(const char *call,
                                           const struct team *team)
{
  switch (runtime.env.lock_mode) {
  case LOCK_MODE_MPI_MCS:
    return &lock_ops_mcs;
  case LOCK_MODE_MPI_WIN_LOCK:
    return &lock_ops_win_lock;
  case LOCK_MODE_CPU:
    if (team->num_nodes > 1 && !warned_cpu_mode) {
      warned_cpu_mode = true;
      LOG_WARN(call, "DART_LOCK_MODE=cpu needs a team on one node; team %d "
               "spans %d nodes, using hybrid (warned once)", (int)team->id,
               team->num_nodes);
    }
    return &lock_ops_hybrid;
  case LOCK_MODE_HYBRID:
  default:
    return &lock_ops_hybrid;
  }
}

static void registry_unlink(struct dart_lock_struct *lock)
{
  for (struct dart_lock_struct **p = &live_locks; *p != NULL;
       p = &(*p)->next_live) {
    if (*p == lock) {
      *p = lock->next_live;
      break;
    }
  }
  lock->magic = LOCK_MAGIC_DEAD;
  tombstone_slab_retire(&lock_slab, lock);
}

/* Lifecycle: before dart_init and after dart_exit every lock call returns
 * DART_ERR_NOTINIT (checked first; the memory of a handle is never
 * unmapped, so reading it is safe). A destroyed handle (a stale
 * copy) or a lock whose team was destroyed: DART_ERR_INVAL from acquire,
 * try and release; destroy of the latter succeeds locally
 * (dart_synchronization.h). */
dart_ret_t dart_team_lock_init(dart_team_t teamid, dart_lock_t *lock)
{
  if (lock != NULL) {
    *lock = DART_LOCK_NULL;
  }
  REQUIRE_INIT();
  if (lock == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "lock is NULL");
  }
  struct team *team = team_lookup_or_report(__func__, teamid);
  if (team == NULL) {
    return DART_ERR_INVAL;
  }
  struct team_lock_count *count = team_count(__func__, team);
  if (count == NULL) {
    return DART_ERR_NOMEM;
  }
  pthread_mutex_lock(&registry_mutex);
  struct dart_lock_struct *l = tombstone_slab_alloc(&lock_slab);
  pthread_mutex_unlock(&registry_mutex);
  if (l == NULL) {
    return report_error(DART_ERR_NOMEM, __func__,
                        "out of memory for a lock handle");
  }
  unsigned k = count->created++;
  l->ops = ops_for_mode(__func__, team);
  l->team_id = teamid;
  l->index = k;
  l->team = team;
  l->me = team->my_rank;
  l->net_win = MPI_WIN_NULL;
  l->win = MPI_WIN_NULL;
  pthread_mutex_init(&l->mutex, NULL);
  choose_home(team, k, &l->home);
  l->on_home_node = team->node_rank_of[l->home] >= 0;
  dart_ret_t ret = l->ops->create(__func__, l);
  if (ret != DART_OK) {
    pthread_mutex_destroy(&l->mutex);
    pthread_mutex_lock(&registry_mutex);
    tombstone_slab_retire(&lock_slab, l);
    pthread_mutex_unlock(&registry_mutex);
    return ret;
  }
  l->magic = LOCK_MAGIC_LIVE;
  l->fast_local = l->ops == &lock_ops_hybrid && l->on_home_node;
  pthread_mutex_lock(&registry_mutex);
  struct dart_lock_struct **tail = &live_locks;
  while (*tail != NULL) {
    tail = &(*tail)->next_live;
  }
  *tail = l;
  pthread_mutex_unlock(&registry_mutex);
  LOG_DEBUG(__func__, "team %d lock %u: %s, home unit %d", (int)teamid, k,
            l->ops->name, l->home);
  *lock = l;
  return DART_OK;
}

dart_ret_t dart_team_lock_destroy(dart_lock_t *lock)
{
  REQUIRE_INIT();
  if (lock == NULL || *lock == DART_LOCK_NULL) {
    return DART_OK;
  }
  struct dart_lock_struct *l = *lock;
  if (l->magic != LOCK_MAGIC_LIVE) {
    return report_error(DART_ERR_INVAL, __func__,
                        "lock was already destroyed");
  }
  dart_ret_t ret = DART_OK;
  if (l->team != NULL) {
    /* Refused here, before the members meet: a unit that waits for the
     * lock is in dart_lock_acquire and would never come. */
    if (atomic_load(&l->holder) != 0) {
      return report_error(DART_ERR_INVAL, __func__,
                          "team %d lock %u is held by this unit: release "
                          "it first (the other members wait in this call "
                          "until this unit calls it again)",
                          (int)l->team_id, l->index);
    }
    /* The members agree that they destroy the same lock (they free the
     * same arena slot, arena.h), and only then free it. Hybrid and MCS:
     * the next init may hand the slot to a new lock and reset it, so every
     * member must be done with this one (a late release would write into
     * the new lock), as MPI_Win_free once guaranteed. mpi-win-lock: the
     * same meeting comes before MPI_Win_free. */
    int mine[2] = { (int)l->index, -(int)l->index }, all[2] = { 0, 0 };
    MPI_Request agreed = MPI_REQUEST_NULL;
    int err = progress_complete(MPI_Iallreduce(mine, all, 2, MPI_INT,
                                               MPI_MAX, l->team->comm,
                                               &agreed),
                                &agreed);
    if (err != MPI_SUCCESS) {
      return report_mpi_error(__func__, "MPI_Iallreduce", err);
    }
    if (all[0] != mine[0] || all[1] != mine[1]) {
      return report_error(DART_ERR_INVAL, __func__,
                          "the members of team %d destroy different locks "
                          "(created %d-th to %d-th; this unit's the %u-th): "
                          "none destroyed", (int)l->team_id, -all[1] + 1,
                          all[0] + 1, l->index + 1);
    }
  }
  l->fast_local = false;
  if (l->team != NULL) {
    l->ops->free(l);
  }
  pthread_mutex_destroy(&l->mutex);
  pthread_mutex_lock(&registry_mutex);
  registry_unlink(l); /* l may read as zeros from here on */
  pthread_mutex_unlock(&registry_mutex);
  *lock = DART_LOCK_NULL;
  return ret;
}

/* The checks every acquire/try/release starts with. */
static dart_ret_t check_usable(const char *call, struct dart_lock_struct *l)
{
  REQUIRE_INIT_IN(call);
  if (l == DART_LOCK_NULL) {
    return report_error(DART_ERR_INVAL, call, "lock is DART_LOCK_NULL");
  }
  if (l->magic != LOCK_MAGIC_LIVE) {
    return report_error(DART_ERR_INVAL, call, "lock was destroyed");
  }
  if (l->team == NULL) {
    return report_error(DART_ERR_INVAL, call,
                        "the lock's team %d was destroyed", (int)l->team_id);
  }
  return DART_OK;
}

/* check_usable, and the calling thread must not hold the lock already
 * (*held tells which of the two failed). */
static dart_ret_t check_not_held(const char *call, struct dart_lock_struct *l,
                                 bool *held)
{
  *held = false;
  dart_ret_t ret = check_usable(call, l);
  if (ret == DART_OK &&
      atomic_load_explicit(&l->holder, memory_order_relaxed) == my_token()) {
    *held = true;
    ret = report_error(DART_ERR_INVAL, call, "the calling thread already "
                       "holds this lock (locks are not recursive)");
  }
  return ret;
}

/* The fast paths below serve a hybrid lock on its home node: fast_local
 * stands for every check of check_usable (it is set only on a live lock
 * and cleared when the lock or its team goes, and dart_exit destroys all
 * teams), so one load replaces four. The lock's own part is hybrid.h's;
 * errors and everything else take the general path. */
dart_ret_t dart_lock_acquire(dart_lock_t lock)
{
  if (lock != DART_LOCK_NULL && lock->fast_local &&
      atomic_load_explicit(&lock->holder, memory_order_relaxed) !=
          my_token()) {
    dart_ret_t ret = hybrid_fast_acquire(__func__, lock);
    if (ret == DART_OK) {
      atomic_store_explicit(&lock->holder, my_token(), memory_order_relaxed);
    }
    return ret;
  }
  bool held;
  dart_ret_t ret = check_not_held(__func__, lock, &held);
  if (ret != DART_OK) {
    return ret;
  }
  ret = lock->ops->acquire(__func__, lock);
  if (ret == DART_OK) {
    atomic_store_explicit(&lock->holder, my_token(), memory_order_relaxed);
  }
  return ret;
}

dart_ret_t dart_lock_try_acquire(dart_lock_t lock, int32_t *result)
{
  if (result != NULL) {
    *result = 0;
  }
  REQUIRE_INIT();
  if (result == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "result is NULL");
  }
  *result = 0;
  bool held;
  dart_ret_t ret = check_not_held(__func__, lock, &held);
  if (ret != DART_OK) {
    *result = held ? 1 : 0;
    return ret;
  }
  bool got = false;
  ret = lock->ops->try_acquire(__func__, lock, &got);
  if (ret == DART_OK && got) {
    atomic_store_explicit(&lock->holder, my_token(), memory_order_relaxed);
    *result = 1;
  } else if (ret == DART_OK) {
    /* A failed try enters MPI's progress: a loop of tries is a spin-wait,
     * and the holder's RMA in its critical section may need this unit's
     * progress (Open MPI osc/ucx, MPICH's active messages; seen as a
     * try livelock across nodes: the holder stuck in MPI_Get while the
     * others' compare-and-swaps went through osc/sm only). */
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, lock->team->comm, &flag,
               MPI_STATUS_IGNORE);
  }
  return ret;
}

dart_ret_t dart_lock_release(dart_lock_t lock)
{
  if (lock != DART_LOCK_NULL && hybrid_fast_release_ok(lock) &&
      atomic_load_explicit(&lock->holder, memory_order_relaxed) ==
          my_token()) {
    atomic_store_explicit(&lock->holder, 0, memory_order_relaxed);
    hybrid_fast_release(lock);
    return DART_OK;
  }
  dart_ret_t ret = check_usable(__func__, lock);
  if (ret != DART_OK) {
    return ret;
  }
  uintptr_t holder = atomic_load_explicit(&lock->holder,
                                          memory_order_relaxed);
  if (holder == 0) {
    return report_error(DART_ERR_INVAL, __func__,
                        "lock is not held by this unit");
  }
  if (holder != my_token()) {
    return report_error(DART_ERR_INVAL, __func__,
                        "lock is held by another thread of this unit");
  }
  atomic_store_explicit(&lock->holder, 0, memory_order_relaxed);
  /* Not held afterwards even if an MPI call inside failed: every mode
   * gives up this unit's part (its mutex, the ticket) whatever MPI says,
   * so a second release would hand on a lock nobody holds. */
  return lock->ops->release(__func__, lock);
}

bool dart_lock_initialized(struct dart_lock_struct const *lock)
{
  return lock != NULL && lock->magic == LOCK_MAGIC_LIVE &&
         lock->team != NULL && runtime.initialized;
}

void locks_team_destroyed(struct team *team)
{
  pthread_mutex_lock(&registry_mutex);
  for (struct dart_lock_struct *l = live_locks; l != NULL; l = l->next_live) {
    if (l->team == team) {
      l->fast_local = false;
      l->ops->free(l);
      l->team = NULL;
    }
  }
  pthread_mutex_unlock(&registry_mutex);
  lock_arena_team_destroyed(team);
  for (struct team_lock_count **p = &lock_counts; *p != NULL;
       p = &(*p)->next) {
    if ((*p)->team_id == team->id) {
      struct team_lock_count *gone = *p;
      *p = gone->next;
      free(gone);
      break;
    }
  }
}
