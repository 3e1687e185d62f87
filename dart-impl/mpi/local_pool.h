/* The local pool behind dart_memalloc, and dart_allocator_* state. */
#ifndef DART_MPI_LOCAL_POOL_H
#define DART_MPI_LOCAL_POOL_H

#include <dash/dart/if/dart_types.h>

#include <stddef.h>

/* Collective over DART_TEAM_ALL at init: `bytes` per unit (rounded down
 * to a power of two). */
dart_ret_t local_pool_init(const char *call, size_t bytes);
void local_pool_finalize(void);
/* Forgets allocators the application did not destroy. */
void allocators_finalize(void);

#endif
