/**
 * \file dash/dart/if/dart_config.h
 *
 * \brief Access to the process-wide DART configuration record.
 */
#ifndef DASH__DART__IF__DART_CONFIG_H_
#define DASH__DART__IF__DART_CONFIG_H_

#include "dart_types.h"
#include "dart_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \defgroup DartConfig Configuration
 * \brief The runtime configuration record (dart_config_t).
 * @{
 */

/**
 * \brief Gives access to the process-wide configuration record.
 *
 * Stores a pointer to the single, static and writable dart_config_t of
 * the process in `*config_out`; changes through it take effect at once.
 * The record is never freed.
 *
 * Local; may be called before dart_init() and after dart_exit(). Thread
 * safety: MT-safe (writes to the record itself are the caller's to
 * order).
 *
 * \param[out] config_out Receives the pointer. If it is NULL, the call
 *                        only logs an error (there is no return code).
 */
void dart_config(
  dart_config_t ** config_out) DART_NOTHROW;

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DASH__DART__IF__DART_CONFIG_H_ */
