/* Atomic read-modify-write on memory that several processes map (DART's
 * shared-memory path): CPU atomics for every basic type up to 8 bytes.
 * Validity of (type, op) is checked by the caller. */
#ifndef DART_BASE_CPU_ATOMICS_H
#define DART_BASE_CPU_ATOMICS_H

#include <dash/dart/if/dart_types.h>

#include <stdbool.h>
#include <stddef.h>

/* Whether the type has lock-free CPU atomics here (every basic type but
 * DART_TYPE_LONG_DOUBLE). */
bool cpu_atomic_supported(dart_datatype_t type);

/* target[i] = target[i] op values[i], each element atomically. */
void cpu_atomic_accumulate(void *target, const void *values, size_t nelem,
                           dart_datatype_t type, dart_operation_t op);

/* *result = old *target; *target = old op *value, atomically.
 * DART_OP_NO_OP reads, DART_OP_REPLACE swaps. */
void cpu_atomic_fetch_and_op(void *target, const void *value, void *result,
                             dart_datatype_t type, dart_operation_t op);

/* *result = old *target; if old == *compare then *target = *value.
 * Integral types (BYTE .. ULONGLONG) only. */
void cpu_atomic_compare_and_swap(void *target, const void *value,
                                 const void *compare, void *result,
                                 dart_datatype_t type);

#endif
