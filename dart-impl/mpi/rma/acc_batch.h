/* One-element accumulates through MPI, gathered per target and sent as
 * one MPI_Accumulate with an indexed target type when the application
 * flushes (or the batch is full).
 *
 * Why: RandomAccess-style codes issue many single-word accumulates to
 * units on other nodes and flush now and then. Open MPI 4.1's osc/ucx
 * runs every MPI_Accumulate as lock, get, compute, put and unlock at the
 * target, so each update cost four network round trips (1 ms between the
 * virtual cluster's hosts) where one accumulate of a whole batch costs
 * about the same; MPICH sends one active message per call instead of one
 * per update. Everything still goes through MPI's accumulate, so updates
 * stay atomic with every other MPI atomic on the same memory, whoever
 * issues it. Where atomics go by message (am_atomics.h) a batch is one
 * message instead, which the target applies.
 *
 * Ordering: the updates of one origin to one location keep their order:
 * before any other MPI atomic to a target (fetch-and-op, compare-and-swap,
 * a multi-element accumulate) the target's batch is sent, and within a
 * batch the updates of one location are combined in issue order (every
 * operation a batch accepts is associative; REPLACE keeps the last).
 * Completion: a flush of the target (or of all units) sends the batch
 * first; freeing the segment sends what is left, with a warning (the API
 * asks for flush and barrier before a free). The operand is copied at
 * once, so the caller's buffer is free on return. Integer types only:
 * combining floating-point operands could round differently from
 * applying them one by one. */
#ifndef DART_MPI_ACC_BATCH_H
#define DART_MPI_ACC_BATCH_H

#include <dash/dart/if/dart_types.h>

#include <mpi.h>
#include <stdbool.h>

struct segment;
struct target;
struct team;

/* Entries per target and segment before a batch is sent by itself; 0
 * turns batching off (DART_ACCUMULATE_BATCH). Set at dart_init. */
void acc_batch_setup(int max_entries);

/* Takes one element of `dtype` (`mpi_type` on the wire) into the batch of
 * t's unit, sending that batch first when it holds another type or
 * operation or is full. `single_as_fetch`: a batch of one element goes
 * as MPI_Fetch_and_op (atomics.c accumulate_as_fetch). `at_target`: the
 * batch goes as one message that t's unit applies (am_atomics.h) instead
 * of MPI_Accumulate; flushes then wait for its acknowledgement
 * (rma/onesided.c). Returns false
 * (nothing taken) when batching is off or out of memory, with `*mpi_err`
 * MPI_SUCCESS, or when sending the previous batch failed (`*mpi_err`). */
bool acc_batch_add(const struct target *t, const void *value,
                   dart_datatype_t dtype, MPI_Datatype mpi_type,
                   dart_operation_t op, bool single_as_fetch, bool at_target,
                   int *mpi_err);

/* Sends the batch of `unit` (-1: of every unit) of `seg` and completes it
 * locally. Returns the MPI error code. */
int acc_batch_send(struct segment *seg, int unit);

/* The operands of batches sent for a flush (acc_batch_send_for_flush). */
struct acc_batch_sent;

/* Sends the batch of `unit` (-1: of every unit) of `seg` for a flush the
 * caller makes next, without completing it: an MPI_Win_flush (or
 * MPI_Win_flush_local) of that unit, or of every unit marked in the
 * segment's rma_targets, which holds the unit's mark. Completing each
 * batch locally first would cost a second flush (a round trip under
 * osc/pt2pt, where a local flush is a full one). Batches applied by
 * their targets (at_target) complete as acc_batch_send's. *sent collects
 * the operands, which acc_batch_release frees after that flush (MPI may
 * read them until then). Returns the MPI error code. */
int acc_batch_send_for_flush(struct segment *seg, int unit,
                             struct acc_batch_sent **sent);
void acc_batch_release(struct acc_batch_sent *sent);

/* Sends the batches of every segment (dart_exit, before its last
 * barrier); *waiting receives how many accumulates they held, which the
 * program did not flush. Returns the first MPI error code. */
int acc_batch_send_every_segment(int *waiting);

/* Sends what is left (saying so), completes it at the targets, and
 * frees the segment's batches. */
void acc_batch_free(struct segment *seg);

#endif
