/* Assertions for the C test programs: every failure names file, line and
 * unit, then takes the whole job down so no unit hangs in a collective. */
#ifndef DART_TEST_ASSERT_H
#define DART_TEST_ASSERT_H

#include <dash/dart/if/dart.h>

#include <stdio.h>
#include <stdlib.h>

static inline int test_unit(void)
{
  dart_global_unit_t me;
  if (dart_initialized() && dart_myid(&me) == DART_OK) {
    return me.id;
  }
  return -1;
}

__attribute__((noreturn)) static inline void
test_fail(const char *file, int line, const char *what, long long actual,
          long long expected, int show_values)
{
  if (show_values) {
    fprintf(stderr, "FAIL %s:%d unit %d: %s (got %lld, expected %lld)\n",
            file, line, test_unit(), what, actual, expected);
  } else {
    fprintf(stderr, "FAIL %s:%d unit %d: %s\n", file, line, test_unit(),
            what);
  }
  fflush(stderr);
  dart_abort(1);
}

/* One line from unit 0 once every check has passed (call before exit). */
static inline void test_report_pass(const char *name)
{
  size_t units = 0;
  if (test_unit() == 0 && dart_size(&units) == DART_OK) {
    printf("%s: %zu units passed\n", name, units);
    fflush(stdout);
  }
}

#define TEST_ASSERT(cond)                                                  \
  do {                                                                     \
    if (!(cond)) {                                                         \
      test_fail(__FILE__, __LINE__, #cond, 0, 0, 0);                       \
    }                                                                      \
  } while (0)

#define TEST_EQ(actual, expected)                                          \
  do {                                                                     \
    long long test_a_ = (long long)(actual);                               \
    long long test_e_ = (long long)(expected);                             \
    if (test_a_ != test_e_) {                                              \
      test_fail(__FILE__, __LINE__, #actual " == " #expected, test_a_,     \
                test_e_, 1);                                               \
    }                                                                      \
  } while (0)

#define TEST_RET(call, code) TEST_EQ(call, code)
#define TEST_OK(call) TEST_EQ(call, DART_OK)

#endif
