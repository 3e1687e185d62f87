/* The lock tests' proof of mutual exclusion: a counter in global memory
 * incremented with a plain get / add / put inside the critical section,
 * so two holders at once lose an update and the final value is short. */
#ifndef DART_TEST_LOCK_COUNTER_H
#define DART_TEST_LOCK_COUNTER_H

#include "test.h"

/* The critical section: one unprotected read-modify-write of the
 * counter, completed before the lock is released. */
static inline void counter_increment(dart_gptr_t counter)
{
  long long value = -1;
  ASSERT_OK(dart_get_blocking(&value, counter, 1, DART_TYPE_LONGLONG,
                              DART_TYPE_LONGLONG));
  ++value;
  ASSERT_OK(dart_put_blocking(counter, &value, 1, DART_TYPE_LONGLONG,
                              DART_TYPE_LONGLONG));
  ASSERT_OK(dart_flush(counter));
}

static inline void locked_increments(dart_lock_t lock, dart_gptr_t counter,
                                     int iters)
{
  for (int i = 0; i < iters; ++i) {
    ASSERT_OK(dart_lock_acquire(lock));
    counter_increment(counter);
    ASSERT_OK(dart_lock_release(lock));
  }
}

#endif
