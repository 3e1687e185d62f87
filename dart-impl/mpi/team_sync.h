/* Shared-memory synchronisation of a single-node team: a barrier and
 * small reductions through one MPI_Win_allocate_shared block on the
 * team's node communicator, instead of MPI's collectives. Teams on
 * several nodes, one-unit teams and DART_SHM_SYNC=off keep MPI's.
 *
 * Also the waits of every DART call that waits for other units
 * (collectives, team and memory management, two-sided): they complete
 * MPI requests through team_sync_wait, which keeps a service above
 * (the hybrid locks: lock_progress.c registers it) polling while this
 * unit waits. Why: a unit waiting for a lock homed here may be what the
 * others wait for; see lock_progress.c for the liveness argument. */
#ifndef DART_MPI_TEAM_SYNC_H
#define DART_MPI_TEAM_SYNC_H

#include <dash/dart/if/dart_types.h>

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

/* What a waiting unit must keep doing for others: `needed` is cheap and
 * says whether `poll` has anything to do (checked again and again, so a
 * wait costs nothing extra while it says no); `poll` is safe from any
 * thread. Registered once by the module above (lock_progress.c), never
 * removed: lower modules do not know the locks, only this table. */
struct team_sync_poll_hook {
  bool (*needed)(void);
  void (*poll)(void);
};
void team_sync_set_poll_hook(const struct team_sync_poll_hook *hook);

/* Whether the hook has work now (false before registration). */
bool team_sync_poll_needed(void);
/* Runs the hook's poll if it has work. */
void team_sync_poll(void);

/* Completes a request: MPI_Wait while the hook has nothing to do, else
 * an MPI_Test loop that polls and yields. Returns the MPI error code
 * (that of the request itself, e.g. MPI_ERR_TRUNCATE). */
int team_sync_wait(MPI_Request *request);
/* team_sync_wait after a call that started `request` and returned `err`. */
static inline int team_sync_complete(int err, MPI_Request *request)
{
  return err == MPI_SUCCESS ? team_sync_wait(request) : err;
}

/* Returns once a message from `source` with `tag` can be received on
 * `comm` (MPI_Iprobe, polling); at once while the hook has nothing to
 * do. For blocking receives: an error such as truncation then comes from
 * the receive itself, under the communicator's error handler. */
int team_sync_await_message(int source, int tag, MPI_Comm comm);

/* Collective over `comm`: MPI_Ibarrier completed by team_sync_wait.
 * Blocking MPI calls that cannot be made non-blocking (communicator and
 * window creation and destruction) come after it: then every member is
 * already inside the same DART call, so the blocking part waits for no
 * unit that might be waiting for this one. */
int team_sync_gate(MPI_Comm comm);

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
 * team_sync_reduces accepted. */
int team_sync_reduce(struct team *team, const void *sendbuf, void *recvbuf,
                     size_t nelem, size_t bytes, dart_datatype_t type,
                     dart_operation_t op, int root);

#endif
