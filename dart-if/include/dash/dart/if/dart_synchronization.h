/**
 * \file dash/dart/if/dart_synchronization.h
 *
 * Team locks: mutual exclusion among the units of a team and the threads
 * of each unit.
 */
#ifndef DASH__DART__IF__DART_SYNCHRONIZATION_H_
#define DASH__DART__IF__DART_SYNCHRONIZATION_H_

#include "dart_util.h"
#include "dart_types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dart_lock_struct *dart_lock_t;

#define DART_LOCK_NULL ((dart_lock_t)NULL)

/* Collective on teamid; the lock starts released. */
dart_ret_t dart_team_lock_init(
  dart_team_t   teamid,
  dart_lock_t * lock)   DART_NOTHROW;

/* Collective on the lock's team; DART_LOCK_NULL is a no-op. */
dart_ret_t dart_team_lock_destroy(
  dart_lock_t * lock)   DART_NOTHROW;

dart_ret_t dart_lock_acquire(
  dart_lock_t   lock)   DART_NOTHROW;

/* *result is 1 if the lock was obtained, 0 otherwise. */
dart_ret_t dart_lock_try_acquire(
  dart_lock_t   lock,
  int32_t     * result) DART_NOTHROW;

dart_ret_t dart_lock_release(
  dart_lock_t   lock)   DART_NOTHROW;

/* false for NULL and for locks whose team was destroyed. */
bool dart_lock_initialized(
    struct dart_lock_struct const *lock) DART_NOTHROW;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DASH__DART__IF__DART_SYNCHRONIZATION_H_ */
