#include "base/logging.h"

#include <dash/dart/if/dart_config.h>

#include <stdarg.h>
#include <stdio.h>

/* The record behind dart_config(): static, so usable before dart_init;
 * clients write it at run time. Its one setting switches this log. */
static dart_config_t process_config = { .log_enabled = 1 };

static enum log_level current_level = LOG_LEVEL_WARN;
static int current_unit = -1;

static const char *const level_names[] = {
  "ERROR", "WARN", "INFO", "DEBUG", "TRACE"
};

void log_set_level(enum log_level level) { current_level = level; }

void log_set_unit(int unit) { current_unit = unit; }

int log_enabled_for(enum log_level level)
{
  return process_config.log_enabled && level <= current_level;
}

static void log_vwrite(enum log_level level, const char *call,
                       const char *fmt, va_list args)
{
  if (!log_enabled_for(level)) {
    return;
  }
  /* Format the whole line first: one fputs keeps lines of different
   * threads and processes from interleaving mid-line. */
  char line[1024];
  int used;
  if (current_unit >= 0) {
    used = snprintf(line, sizeof line, "[dart %d] %s %s: ", current_unit,
                    level_names[level], call);
  } else {
    used = snprintf(line, sizeof line, "[dart -] %s %s: ",
                    level_names[level], call);
  }
  if (used < 0 || (size_t)used >= sizeof line - 2) {
    used = 0;
  }
  int body = vsnprintf(line + used, sizeof line - (size_t)used - 1, fmt, args);
  size_t end = (size_t)used + (body < 0 ? 0 : (size_t)body);
  if (end > sizeof line - 2) {
    end = sizeof line - 2;
  }
  line[end] = '\n';
  line[end + 1] = '\0';
  fputs(line, stderr);
}

void log_write(enum log_level level, const char *call, const char *fmt, ...)
{
  va_list args;
  va_start(args, fmt);
  log_vwrite(level, call, fmt, args);
  va_end(args);
}

dart_ret_t report_error(dart_ret_t code, const char *call, const char *fmt, ...)
{
  va_list args;
  va_start(args, fmt);
  log_vwrite(LOG_LEVEL_ERROR, call, fmt, args);
  va_end(args);
  return code;
}

void dart_config(dart_config_t **config_out)
{
  if (config_out == NULL) {
    report_error(DART_ERR_INVAL, __func__, "config_out is NULL");
    return;
  }
  *config_out = &process_config;
}
