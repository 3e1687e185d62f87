/* The local pool behind dart_memalloc, and dart_allocator_* state. */
#ifndef DART_MPI_LOCAL_POOL_H
#define DART_MPI_LOCAL_POOL_H

#include <dash/dart/if/dart_types.h>

#include <stddef.h>

/* Collective over DART_TEAM_ALL at init: reserves `reserve` bytes per
 * unit (0: the default, about the machine's memory) and commits the first
 * `initial` (rounded down to a power of two). */
dart_ret_t local_pool_init(const char *call, size_t initial, size_t reserve);
void local_pool_finalize(void);
/* Forgets allocators the application did not destroy. */
void allocators_finalize(void);

#endif
