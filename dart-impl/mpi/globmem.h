/* Collective allocation and registration of team memory. */
#ifndef DART_MPI_GLOBMEM_H
#define DART_MPI_GLOBMEM_H

#include <dash/dart/if/dart_types.h>

#include <stddef.h>

struct team;

/* Collective over DART_TEAM_ALL at init: the local pool (segment 0),
 * `bytes` per unit, node-shared and in the dynamic window. */
dart_ret_t team_allocate_local_pool(const char *call, struct team *team,
                                    size_t bytes);

/* Collective over the team: frees every segment it still holds (at team
 * destroy and dart_exit), in the same order on every member. */
void team_segments_free(struct team *team);

#endif
