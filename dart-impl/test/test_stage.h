/* Staged checks for the larger test programs: a failure also prints the
 * stage being checked; expected errors can run with the log muted;
 * poisoned bytes prove what a call must not write. */
#ifndef DART_TEST_STAGE_H
#define DART_TEST_STAGE_H

#include "test_assert.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static char stage[256];
#define STAGE(...) snprintf(stage, sizeof stage, __VA_ARGS__)

#define S_RET(call, code)                                                 \
  do {                                                                    \
    dart_ret_t s_ret_ = (call);                                           \
    if (s_ret_ != (code)) {                                               \
      fprintf(stderr, "unit %d, stage: %s\n", test_unit(), stage);        \
      TEST_RET(s_ret_, code);                                             \
    }                                                                     \
  } while (0)
#define S_OK(call) S_RET(call, DART_OK)

__attribute__((noreturn, format(printf, 2, 3), unused)) static void
stage_fail(int line, const char *fmt, ...)
{
  va_list args;
  va_start(args, fmt);
  fprintf(stderr, "unit %d, stage: %s: ", test_unit(), stage);
  vfprintf(stderr, fmt, args);
  fprintf(stderr, "\n");
  va_end(args);
  test_fail(__FILE__, line, "value check", 0, 0, 0);
}

/* The runtime logs every error it returns; expected ones are muted. */
static inline int mute_log(void)
{
  dart_config_t *config = NULL;
  dart_config(&config);
  int saved = config->log_enabled;
  config->log_enabled = 0;
  return saved;
}

static inline void restore_log(int saved)
{
  dart_config_t *config = NULL;
  dart_config(&config);
  config->log_enabled = saved;
}

static inline void *xmalloc(size_t bytes)
{
  void *p = malloc(bytes > 0 ? bytes : 1);
  TEST_ASSERT(p != NULL);
  return p;
}

#define POISON 0x5c

static inline void check_poison(int line, const void *buf, size_t from,
                                size_t nbytes)
{
  const unsigned char *b = buf;
  for (size_t i = from; i < from + nbytes; ++i) {
    if (b[i] != POISON) {
      stage_fail(line, "byte %zu was written but must stay untouched", i);
    }
  }
}

#endif
