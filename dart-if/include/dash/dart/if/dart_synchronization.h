/**
 * \file dash/dart/if/dart_synchronization.h
 *
 * \brief Team locks: mutual exclusion among the units of a team and the
 *        threads of each unit.
 */
#ifndef DASH__DART__IF__DART_SYNCHRONIZATION_H_
#define DASH__DART__IF__DART_SYNCHRONIZATION_H_

#include "dart_util.h"
#include "dart_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \defgroup DartSync Team locks
 * \brief Locks shared by the units of a team.
 *
 * A team lock is held by at most one thread of one unit at a time. Locks
 * are not recursive. With the default `DART_LOCK_MODE=hybrid`, a lock
 * used by the units of its home node only costs CPU atomics; units on
 * other nodes reach it through MPI atomics. A unit waiting in any DART call
 * serves the lock requests of other units for locks homed at it; a unit
 * that computes for long outside DART delays them unless
 * `DART_PROGRESS_THREAD=on`.
 * @{
 */

/** \brief Handle of a team lock. */
typedef struct dart_lock_struct *dart_lock_t;

/** \brief The null lock handle. */
#define DART_LOCK_NULL ((dart_lock_t)NULL)

/**
 * \brief Creates a lock on a team; it starts released.
 *
 * Every member gets its own handle of the same lock.
 *
 * Collective over `teamid`. Thread safety: MT-none.
 *
 * \param[in]  teamid The team.
 * \param[out] lock   Receives the lock; #DART_LOCK_NULL on failure.
 * \retval DART_OK          Created.
 * \retval DART_ERR_INVAL   `lock` is NULL or `teamid` is not a team of
 *                          the caller.
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_team_lock_init(
  dart_team_t   teamid,
  dart_lock_t * lock)   DART_NOTHROW;

/**
 * \brief Destroys a lock.
 *
 * A lock whose team was destroyed is destroyed locally, without
 * communication.
 *
 * Collective over the lock's team. Thread safety: MT-none.
 *
 * \param[in,out] lock The lock; set to #DART_LOCK_NULL. A NULL pointer or
 *                     #DART_LOCK_NULL is a no-op.
 * \retval DART_OK          Destroyed, or nothing to do.
 * \retval DART_ERR_INVAL   The lock was destroyed already; or this unit
 *                          holds it (refused at once, the lock unchanged;
 *                          the other members wait in their call until
 *                          this unit, having released it, calls again);
 *                          or the members passed different locks of the
 *                          team (every member refused, none destroyed).
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_team_lock_destroy(
  dart_lock_t * lock)   DART_NOTHROW;

/**
 * \brief Waits until the calling thread holds the lock.
 *
 * Other threads of the same unit wait as other units do.
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in] lock The lock.
 * \retval DART_OK          Acquired.
 * \retval DART_ERR_INVAL   `lock` is #DART_LOCK_NULL or destroyed, its
 *                          team was destroyed, or the calling thread
 *                          holds it already.
 * \retval DART_ERR_OTHER   An MPI call failed, or Open MPI `osc/rdma`
 *                          refuses the atomics a lock across nodes needs.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_lock_acquire(
  dart_lock_t   lock)   DART_NOTHROW;

/**
 * \brief Tries to acquire the lock without waiting.
 *
 * A failed try lets MPI make progress, so that a loop of tries does not
 * hold up the holder.
 *
 * Between nodes a lock of the default mode (hybrid) may sit in the shared
 * memory of its home node, which only the units of that node can hand
 * over; they do so from inside any DART call. A try from another node
 * that finds it there asks for it and waits up to 100 ms for that; if the
 * home node's units stay outside DART calls for longer, the try gets 0
 * even though nobody holds the lock, and so do the tries after it, at
 * once, until the home node has answered (then a try gets it).
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in]  lock   The lock.
 * \param[out] result Receives 1 if the lock was obtained, 0 if another
 *                    unit or thread holds it; 1 if the calling thread
 *                    holds it already (with #DART_ERR_INVAL).
 * \retval DART_OK          Tried; see `result`.
 * \retval DART_ERR_INVAL   `result` is NULL, `lock` is #DART_LOCK_NULL or
 *                          destroyed, its team was destroyed, or the
 *                          calling thread holds it already.
 * \retval DART_ERR_OTHER   An MPI call failed, or Open MPI `osc/rdma`
 *                          refuses the atomics a lock across nodes needs.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_lock_try_acquire(
  dart_lock_t   lock,
  int32_t     * result) DART_NOTHROW;

/**
 * \brief Releases the lock, handing it to a waiting unit if there is
 *        one.
 *
 * Must be called by the thread that acquired the lock.
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in] lock The lock.
 * \retval DART_OK          Released.
 * \retval DART_ERR_INVAL   `lock` is #DART_LOCK_NULL or destroyed, its
 *                          team was destroyed, or the calling thread does
 *                          not hold it.
 * \retval DART_ERR_OTHER   An MPI call failed. The calling thread does
 *                          not hold the lock afterwards (do not release it
 *                          again); whether the next waiter got it is not
 *                          known.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_lock_release(
  dart_lock_t   lock)   DART_NOTHROW;

/**
 * \brief Tells whether a lock handle can be used.
 *
 * Local. Thread safety: MT-none.
 *
 * \param[in] lock The lock handle.
 * \return true if `lock` is a live lock whose team still exists and DART
 *         is initialized; false for NULL, a destroyed lock, or a lock
 *         whose team was destroyed.
 */
bool dart_lock_initialized(
    struct dart_lock_struct const *lock) DART_NOTHROW;

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DASH__DART__IF__DART_SYNCHRONIZATION_H_ */
