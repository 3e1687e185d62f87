/* Shared-memory synchronisation of a single-node team: a barrier and
 * small reductions through one MPI_Win_allocate_shared block on the
 * team's node communicator, instead of MPI's collectives. Teams on
 * several nodes, one-unit teams and DART_SHM_SYNC=off keep MPI's.
 * Registered with the teams as a team service (team.h) by init.c. */
#ifndef DART_MPI_TEAM_SYNC_H
#define DART_MPI_TEAM_SYNC_H

#include <dash/dart/if/dart_types.h>

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

struct team;

/* Largest reduction payload (bytes per unit) that goes through shared
 * memory: a 1 KiB slot stays within a few cache lines per unit, which is
 * where MPI's fixed cost dominates; beyond it MPI's algorithms scale
 * better than every unit reading every slot. */
#define TEAM_SYNC_MAX_BYTES 1024

/* Collective over the team, from team_build once its node structure is
 * known: sets team->sync where the team qualifies (NULL otherwise). All
 * members take the same decision; a failure leaves them all on MPI. */
dart_ret_t team_sync_create(const char *call, struct team *team);

/* Collective: frees the block (a no-op without one). */
void team_sync_free(struct team *team);

/* The team's barrier (team_sync_barrier where the team has a block,
 * else a polled MPI barrier) plus the memory synchronisation the unified
 * RMA model needs. Returns an MPI error code. */
int team_barrier(dart_team_t id);

/* The barrier: every store before it on any member (plain or into shared
 * memory) is visible to every load after it on any member. Returns an
 * MPI error code, as MPI_Barrier would. */
int team_sync_barrier(struct team *team);

/* Whether a reduction with `op` over `bytes` (> 0) of basic `type` per
 * unit goes through shared memory on this team. */
bool team_sync_reduces(const struct team *team, dart_operation_t op,
                       dart_datatype_t type, size_t bytes);

/* Reduces `nelem` elements (`bytes` in all) over the team; `root` < 0
 * means every member receives the result. Only for calls that
 * team_sync_reduces accepted. Where the members' counts, types, ops or
 * roots differ, every member logs the difference on behalf of `call` and
 * returns DART_ERR_INVAL, no recvbuf touched. */
dart_ret_t team_sync_reduce(const char *call, struct team *team,
                            const void *sendbuf, void *recvbuf, size_t nelem,
                            size_t bytes, dart_datatype_t type,
                            dart_operation_t op, int root);

/* For every reduction team_sync_reduces turned away, before it goes to
 * MPI: where the team has a block, every member must be on its way to
 * MPI too, with the same root and the same `record` (`bytes` of at most
 * TEAM_SYNC_MAX_BYTES that say what it called), else all return
 * DART_ERR_INVAL with one line, as team_sync_reduce does; `*compared`
 * then says that the records were compared. DART_OK at once without a
 * block, `*compared` false. */
dart_ret_t team_sync_reduce_elsewhere(const char *call, struct team *team,
                                      int root, const void *record,
                                      size_t bytes, bool *compared);

#endif
