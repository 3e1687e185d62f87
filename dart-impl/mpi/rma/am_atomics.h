/* Atomics on the memory of units on other nodes as messages that the
 * target unit applies itself.
 *
 * Why: Open MPI 4.1's osc/ucx runs every MPI_Accumulate as lock, get,
 * compute, put and unlock at the target, four network round trips for a
 * batch of updates (core/quirks.h); one message carrying the batch and
 * its acknowledgement are one. RandomAccess across hosts is made of such
 * batches (docs/benchmarks.md has the numbers).
 *
 * Atomicity: the target applies a request with CPU atomics on its own
 * portion, the same instructions its node peers use on their mapping of
 * it. So on a segment of a multi-node team and a type with CPU atomics
 * every unit either maps the target (CPU atomic) or sends it a message,
 * and every update of one location is a CPU atomic; no MPI atomic touches
 * such a segment (rma/atomics.c, choose_path).
 *
 * Ordering and completion: one origin's requests to one target are
 * applied in issue order (MPI keeps the order of messages between two
 * processes on one communicator, and one thread at a time serves them).
 * A fetching request returns with its reply; every other one gets an
 * acknowledgement, which dart_flush waits for (am_atomics_complete).
 *
 * Liveness: a unit serves requests whenever one of its DART calls waits
 * (the progress hook, core/progress.h) and at each of its own requests.
 * A unit that computes outside DART delays the atomics aimed at it until
 * its next DART call; one that blocks in an MPI call of its own while
 * others still target it never serves them, which is why this is a
 * choice (DART_REMOTE_ATOMICS=message) and not the default: the program
 * must flush and meet in a DART barrier before it calls MPI itself, or
 * run the progress thread (DART_PROGRESS_THREAD=on with
 * dart_init_thread), which serves them every 50 us. */
#ifndef DART_MPI_AM_ATOMICS_H
#define DART_MPI_AM_ATOMICS_H

#include <dash/dart/if/dart_types.h>

#include <stdbool.h>
#include <stdint.h>

struct team;

/* Collective over all units: with DART_REMOTE_ATOMICS=message and
 * DART_TEAM_ALL on several nodes, opens the module's communicator. */
dart_ret_t am_atomics_init(const char *call, const struct team *all);
/* After the last barrier of dart_exit: completes the replies still
 * going out and frees the communicator. */
void am_atomics_finalize(void);

/* Whether atomics of multi-node teams go by message (same answer at
 * every unit). */
bool am_atomics_active(void);

/* Sends `count` elements of `dtype` to be combined by `op` into `unit`'s
 * portion of segment `segid` of `team`: at `offsets[i]` (bytes into the
 * portion) or, with `offsets` NULL, contiguously from `offset`. Returns
 * once `values` may be reused; am_atomics_complete waits for the
 * target. */
dart_ret_t am_accumulate(const char *call, const struct team *team,
                         int16_t segid, int unit, const uint64_t *offsets,
                         uint64_t offset, const void *values, size_t count,
                         dart_datatype_t dtype, dart_operation_t op);

/* One element: *result = old value, new = old op *value (DART_OP_NO_OP
 * reads, REPLACE swaps). Complete at the target on return. */
dart_ret_t am_fetch_and_op(const char *call, const struct team *team,
                           int16_t segid, int unit, uint64_t offset,
                           const void *value, void *result,
                           dart_datatype_t dtype, dart_operation_t op);

/* One element: *result = old value, replaced by *value if it equalled
 * *compare. Complete at the target on return. */
dart_ret_t am_compare_and_swap(const char *call, const struct team *team,
                               int16_t segid, int unit, uint64_t offset,
                               const void *value, const void *compare,
                               void *result, dart_datatype_t dtype);

/* Waits until `unit` of `team` (-1: every unit of it) has applied every
 * request this process sent it; a request it refused is an error here. */
dart_ret_t am_atomics_complete(const char *call, const struct team *team,
                               int unit);

/* am_atomics_complete for every unit this process sent requests to. */
dart_ret_t am_atomics_quiesce(const char *call);

#endif
