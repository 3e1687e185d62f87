/* Collective allocation and registration of team memory. */
#ifndef DART_MPI_GLOBMEM_H
#define DART_MPI_GLOBMEM_H

#include <dash/dart/if/dart_types.h>

#include <stddef.h>

struct team;

/* Collective over DART_TEAM_ALL at init: enters the local pool as
 * segment 0, each unit's reservation of `reserve` bytes (mapped from
 * pool_memory_map; the segment owns the mappings from here on, also on
 * failure) exposed in a window of its own. */
dart_ret_t team_publish_local_pool(const char *call, struct team *team,
                                   char **node_bases, size_t reserve);

/* Collective over the team: frees every segment it still holds (at team
 * destroy and dart_exit), in the same order on every member. */
void team_segments_free(struct team *team);

#endif
