/**
 * \file dash/dart/if/dart_config.h
 *
 * Access to the process-wide DART configuration record.
 */
#ifndef DASH__DART__IF__DART_CONFIG_H_
#define DASH__DART__IF__DART_CONFIG_H_

#include "dart_types.h"
#include "dart_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Stores a pointer to the static, writable configuration in *config_out.
 * May be called before dart_init. */
void dart_config(
  dart_config_t ** config_out) DART_NOTHROW;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DASH__DART__IF__DART_CONFIG_H_ */
