#include "config_store.h"

#include "logging.h"

#include <dash/dart/if/dart_config.h>

static dart_config_t process_config = { .log_enabled = 1 };

dart_config_t *config_store_get(void) { return &process_config; }

void dart_config(dart_config_t **config_out)
{
  if (config_out == NULL) {
    report_error(DART_ERR_INVAL, __func__, "config_out is NULL");
    return;
  }
  *config_out = &process_config;
}
