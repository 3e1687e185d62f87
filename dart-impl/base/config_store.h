/* The process-wide dart_config_t behind dart_config(): static storage,
 * usable before dart_init, written by clients at run time. */
#ifndef DART_BASE_CONFIG_STORE_H
#define DART_BASE_CONFIG_STORE_H

#include <dash/dart/if/dart_types.h>

dart_config_t *config_store_get(void);

#endif
