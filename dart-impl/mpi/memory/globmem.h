/* Collective allocation and registration of team memory. */
#ifndef DART_MPI_GLOBMEM_H
#define DART_MPI_GLOBMEM_H

#include <dash/dart/if/dart_types.h>

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

struct team;
struct segment_watch;

/* Collective over DART_TEAM_ALL at init: enters the local pool as
 * segment 0: each unit's reservation of `reserve` bytes (mapped from
 * pool_memory_map), of which peers reach the first `exposed` through
 * `win` (memory/pool_exposure.h): attached to it (`attached`), or in a
 * window created over the whole reservation; `watch` follows the changes.
 * The segment owns the mappings and the window from here on, also on
 * failure. */
dart_ret_t team_publish_local_pool(const char *call, struct team *team,
                                   char **node_bases, size_t reserve,
                                   size_t exposed, MPI_Win win,
                                   bool attached,
                                   const struct segment_watch *watch);

/* Collective over the team: frees every segment it still holds (at team
 * destroy and dart_exit), in the same order on every member. */
void team_segments_free(struct team *team);

#endif
