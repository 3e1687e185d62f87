/* Logging: one line per event on stderr, tagged with the unit id.
 * The level comes from DART_LOG_LEVEL (read once at init); the DART
 * config flag log_enabled (dart_config, whose record lives in logging.c)
 * switches output off entirely. */
#ifndef DART_BASE_LOGGING_H
#define DART_BASE_LOGGING_H

#include <dash/dart/if/dart_types.h>

enum log_level {
  LOG_LEVEL_ERROR = 0,
  LOG_LEVEL_WARN  = 1,
  LOG_LEVEL_INFO  = 2,
  LOG_LEVEL_DEBUG = 3,
  LOG_LEVEL_TRACE = 4
};

void log_set_level(enum log_level level);
void log_set_unit(int unit);          /* -1: unit not known (before init) */
int  log_enabled_for(enum log_level level);

void log_write(enum log_level level, const char *call, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

/* Logs one error line naming the API call and returns `code`, so that
 * validation reads as `return report_error(DART_ERR_INVAL, __func__, ...)`. */
dart_ret_t report_error(dart_ret_t code, const char *call, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

#define LOG_WARN(call, ...)  log_write(LOG_LEVEL_WARN, call, __VA_ARGS__)
#define LOG_INFO(call, ...)  log_write(LOG_LEVEL_INFO, call, __VA_ARGS__)
#define LOG_DEBUG(call, ...) log_write(LOG_LEVEL_DEBUG, call, __VA_ARGS__)

#endif
