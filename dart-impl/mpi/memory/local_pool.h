/* The local pool behind dart_memalloc, and dart_allocator_* state. */
#ifndef DART_MPI_LOCAL_POOL_H
#define DART_MPI_LOCAL_POOL_H

#include "mpi/memory/pool_exposure.h"

#include <dash/dart/if/dart_types.h>

#include <stddef.h>

/* Collective over DART_TEAM_ALL at init: reserves `reserve` bytes per
 * unit (0: the default, about the machine's memory) and commits the first
 * `initial` (rounded down to a power of two). */
dart_ret_t local_pool_init(const char *call, size_t initial, size_t reserve);
void local_pool_finalize(void);

/* What the pool holds now, for tests and debugging: address space
 * reserved, memory committed (the chunks), and what RMA can reach. */
struct local_pool_stats {
  size_t                     reserved;
  size_t                     committed;
  size_t                     backed;    /* bytes the system holds for my
                                           reservation's file (/dev/shm) */
  int                        chunks;
  struct pool_exposure_stats exposure;
};
void local_pool_stats(struct local_pool_stats *stats);
/* Forgets allocators the application did not destroy. */
void allocators_finalize(void);

#endif
