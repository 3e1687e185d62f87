/**
 * \file dash/dart/if/dart_communication.h
 *
 * \brief Collective operations, atomics, one-sided and two-sided
 *        communication.
 */
#ifndef DASH__DART__IF__DART_COMMUNICATION_H_
#define DASH__DART__IF__DART_COMMUNICATION_H_

#include "dart_types.h"
#include "dart_util.h"
#include "dart_globmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \defgroup DartCommunication Communication
 * \brief Collectives, atomics, put and get, completion, two-sided
 *        messages.
 *
 * \par Completion of one-sided operations
 * An operation is *locally complete* when its origin buffer may be reused
 * (put, accumulate) or holds the result (get, fetch-and-op,
 * compare-and-swap); it is *remotely complete* when its effect is visible
 * to every later access of any unit. Non-blocking calls guarantee neither
 * on return: dart_flush_local() and dart_flush_local_all() give local
 * completion, dart_flush() and dart_flush_all() both, for all operations
 * the unit (any of its threads) issued to the segment. An operation may
 * complete earlier, for example when the target is reached through shared
 * memory. Stores a unit makes through a native pointer before a
 * dart_barrier() are visible to the other members' gets and atomics after
 * it; data put and flushed before a barrier is visible to the target's
 * loads after it. dart_barrier() itself completes no RMA.
 *
 * \par Validity of a target
 * Every one-sided call checks its global pointer: a live team and
 * segment, a unit in [0, team size), and the whole access inside that
 * unit's portion. Otherwise it returns #DART_ERR_INVAL and touches no
 * byte; a call with `nelem` 0 checks the pointer too.
 *
 * \par Overlapping buffers
 * A put or get of one basic type whose local buffer overlaps the target
 * range in the caller's own portion copies as memmove() does. With
 * derived types, or through MPI (`DART_SHM_PATH=off`), overlapping
 * ranges are undefined, as in MPI.
 * @{
 */

/* ----------------------------------------------------------------------
 * Collectives
 * ---------------------------------------------------------------------- */

/**
 * \name Collectives
 *
 * All collective over the team given, blocking, thread safety MT-team.
 * Element counts, `root` (team-relative) and `dtype` must be the same on
 * every member; blocks of a buffer that holds one block per member are in
 * team unit order. `dtype` must be a basic or custom type unless stated.
 * Counts beyond `INT_MAX` are allowed. While waiting, a unit keeps
 * serving the team locks homed at it. Members that disagree are an
 * erroneous program. In a reduction of a team on one node every member
 * detects it and returns #DART_ERR_INVAL; in one of a team across nodes
 * they do so under `DART_CHECK_REDUCTIONS=on`, which costs one more
 * small collective for reductions above 256 bytes. Elsewhere MPI decides
 * what happens.
 * @{
 */

/**
 * \brief Waits until every member of the team has entered the barrier.
 *
 * Also orders memory: see "Completion of one-sided operations" above.
 *
 * \param[in] team The team.
 * \retval DART_OK          Every member arrived.
 * \retval DART_ERR_INVAL   `team` is not a team of the caller.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_barrier(
  dart_team_t team) DART_NOTHROW;

/**
 * \brief Copies `nelem` elements from `buf` of the root into `buf` of
 *        every member.
 *
 * \param[in,out] buf   Source at the root, destination elsewhere.
 * \param[in]     nelem Number of elements.
 * \param[in]     dtype Type of the elements.
 * \param[in]     root  Team-relative id of the sending unit.
 * \param[in]     team  The team.
 * \retval DART_OK          Done.
 * \retval DART_ERR_INVAL   Unknown team, invalid type, `root` out of
 *                          range, a size that overflows, or `buf` NULL
 *                          with `nelem` > 0.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_bcast(
  void              * buf,
  size_t              nelem,
  dart_datatype_t     dtype,
  dart_team_unit_t    root,
  dart_team_t         team) DART_NOTHROW;

/**
 * \brief Sends block `i` of the root's `sendbuf` to member `i`.
 *
 * \param[in]  sendbuf Team size times `nelem` elements at the root;
 *                     ignored elsewhere.
 * \param[out] recvbuf Receives the caller's block of `nelem` elements.
 * \param[in]  nelem   Elements per block.
 * \param[in]  dtype   Type of the elements.
 * \param[in]  root    Team-relative id of the sending unit.
 * \param[in]  team    The team.
 * \retval DART_OK          Done.
 * \retval DART_ERR_INVAL   Unknown team, invalid type, `root` out of
 *                          range, a size that overflows, or a needed
 *                          buffer NULL.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_scatter(
  const void         * sendbuf,
  void               * recvbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  dart_team_unit_t     root,
  dart_team_t          team) DART_NOTHROW;

/**
 * \brief Collects `nelem` elements of every member at the root, member
 *        `i`'s at block `i`.
 *
 * \param[in]  sendbuf The caller's `nelem` elements.
 * \param[out] recvbuf Team size times `nelem` elements at the root;
 *                     ignored elsewhere.
 * \param[in]  nelem   Elements per member.
 * \param[in]  dtype   Type of the elements.
 * \param[in]  root    Team-relative id of the receiving unit.
 * \param[in]  team    The team.
 * \retval DART_OK          Done.
 * \retval DART_ERR_INVAL   Unknown team, invalid type, `root` out of
 *                          range, a size that overflows, or a needed
 *                          buffer NULL.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_gather(
  const void        * sendbuf,
  void              * recvbuf,
  size_t              nelem,
  dart_datatype_t     dtype,
  dart_team_unit_t    root,
  dart_team_t         team) DART_NOTHROW;

/**
 * \brief Collects `nelem` elements of every member on every member,
 *        member `i`'s at block `i`.
 *
 * In place if `sendbuf` is `recvbuf` or NULL: the caller's contribution
 * is then already at its own block of `recvbuf`.
 *
 * \param[in]  sendbuf The caller's `nelem` elements, or NULL / `recvbuf`
 *                     for the in-place form.
 * \param[out] recvbuf Team size times `nelem` elements.
 * \param[in]  nelem   Elements per member.
 * \param[in]  dtype   Type of the elements.
 * \param[in]  team    The team.
 * \retval DART_OK          Done.
 * \retval DART_ERR_INVAL   Unknown team, invalid type, a size that
 *                          overflows, or `recvbuf` NULL.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_allgather(
  const void      * sendbuf,
  void            * recvbuf,
  size_t            nelem,
  dart_datatype_t   dtype,
  dart_team_t       team) DART_NOTHROW;

/**
 * \brief Collects a varying number of elements of every member on every
 *        member, member `i`'s at element displacement `recvdispls[i]`.
 *
 * `nrecvelem` and `recvdispls` have one entry per member and must be the
 * same on all members. In place if `sendbuf` is NULL, `recvbuf`, or the
 * caller's own block in `recvbuf`.
 *
 * \param[in]  sendbuf    The caller's elements, or an in-place value.
 * \param[in]  nsendelem  The caller's element count; must equal
 *                        `nrecvelem` of the caller.
 * \param[in]  dtype      Type of the elements.
 * \param[out] recvbuf    Receives every member's block.
 * \param[in]  nrecvelem  Element count of each member.
 * \param[in]  recvdispls Element displacement of each member's block.
 * \param[in]  teamid     The team.
 * \retval DART_OK          Done.
 * \retval DART_ERR_INVAL   Unknown team, invalid type, an array NULL,
 *                          `nsendelem` different from the caller's
 *                          entry, a block past the largest buffer, or a
 *                          needed buffer NULL.
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_allgatherv(
  const void      * sendbuf,
  size_t            nsendelem,
  dart_datatype_t   dtype,
  void            * recvbuf,
  const size_t    * nrecvelem,
  const size_t    * recvdispls,
  dart_team_t       teamid) DART_NOTHROW;

/**
 * \brief Reduces the members' `sendbuf` element-wise with `op` and
 *        leaves the result in every member's `recvbuf`.
 *
 * Predefined operations on basic types: #DART_OP_MIN, #DART_OP_MAX,
 * #DART_OP_SUM and #DART_OP_PROD on the integer and floating types;
 * #DART_OP_BAND, #DART_OP_BOR and #DART_OP_BXOR on the integer types and
 * #DART_TYPE_BYTE; #DART_OP_LAND, #DART_OP_LOR and #DART_OP_LXOR on the
 * integer types; #DART_OP_MINMAX on every basic type, with an even
 * `nelem`: the buffer holds (minimum, maximum) pairs (indices
 * #DART_OP_MINMAX_MIN and #DART_OP_MINMAX_MAX), and the result holds the
 * smallest first and the largest second component. An operation from
 * dart_op_create() works with the type it was made for, custom types
 * included. `sendbuf` may equal `recvbuf` (in place).
 *
 * \param[in]  sendbuf The caller's `nelem` elements.
 * \param[out] recvbuf Receives the `nelem` reduced elements.
 * \param[in]  nelem   Number of elements.
 * \param[in]  dtype   Type of the elements.
 * \param[in]  op      The operation.
 * \param[in]  team    The team.
 * \retval DART_OK          Done.
 * \retval DART_ERR_INVAL   Unknown team, invalid type, an operation not
 *                          valid for the type (a user operation made for
 *                          another type, a destroyed one, #DART_OP_MINMAX
 *                          with an odd count), a size that overflows, or
 *                          a buffer NULL.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_allreduce(
  const void     * sendbuf,
  void           * recvbuf,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_operation_t op,
  dart_team_t      team) DART_NOTHROW;

/**
 * \brief Sends block `j` of member `i`'s `sendbuf` to block `i` of
 *        member `j`'s `recvbuf`.
 *
 * In place if `sendbuf` is `recvbuf` or NULL.
 *
 * \param[in]  sendbuf Team size times `nelem` elements, or an in-place
 *                     value.
 * \param[out] recvbuf Team size times `nelem` elements.
 * \param[in]  nelem   Elements per block.
 * \param[in]  dtype   Basic type of the elements.
 * \param[in]  team    The team.
 * \retval DART_OK          Done.
 * \retval DART_ERR_INVAL   Unknown team, `dtype` not basic, a size that
 *                          overflows, or `recvbuf` NULL.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_alltoall(
  const void     * sendbuf,
  void           * recvbuf,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_team_t      team) DART_NOTHROW;

/**
 * \brief Reduces as dart_allreduce() does, with the result at the root
 *        only.
 *
 * \param[in]  sendbuf The caller's `nelem` elements.
 * \param[out] recvbuf Receives the result at the root; ignored elsewhere.
 * \param[in]  nelem   Number of elements.
 * \param[in]  dtype   Type of the elements.
 * \param[in]  op      The operation (see dart_allreduce()).
 * \param[in]  root    Team-relative id of the receiving unit.
 * \param[in]  team    The team.
 * \retval DART_OK          Done.
 * \retval DART_ERR_INVAL   As for dart_allreduce(), or `root` out of
 *                          range.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_reduce(
  const void        * sendbuf,
  void              * recvbuf,
  size_t              nelem,
  dart_datatype_t     dtype,
  dart_operation_t    op,
  dart_team_unit_t    root,
  dart_team_t         team) DART_NOTHROW;

/** @} */

/* ----------------------------------------------------------------------
 * Atomic operations
 * ---------------------------------------------------------------------- */

/**
 * \name Atomic operations
 *
 * Local, one-sided calls. Atomicity holds per element among the atomic
 * calls (accumulate, fetch-and-op, compare-and-swap) that use the same
 * basic type on the same location, from any units and threads; not
 * against put, get or plain loads and stores.
 *
 * Valid operations and types: #DART_OP_MIN, #DART_OP_MAX, #DART_OP_SUM and
 * #DART_OP_PROD on the integer and floating types; #DART_OP_BAND,
 * #DART_OP_BOR and #DART_OP_BXOR on the integer types and #DART_TYPE_BYTE;
 * #DART_OP_LAND, #DART_OP_LOR and #DART_OP_LXOR on the integer types;
 * #DART_OP_REPLACE and #DART_OP_NO_OP on every basic type. Anything else
 * (#DART_OP_MINMAX, user operations, derived or custom types) is
 * #DART_ERR_INVAL.
 *
 * Alignment: the target must be naturally aligned, its offset
 * (`gptr.addr_or_offs.offset`) a multiple of the element size of `dtype`
 * (for dart_accumulate() with `nelem` > 1: of the first element; the
 * others follow contiguously). Memory DART allocates starts each unit's
 * portion on a 64-byte boundary; for memory registered with
 * dart_team_memregister() the registered address of the target unit must
 * be aligned too. Any other target is rejected with #DART_ERR_INVAL
 * before anything is read, written or sent, whichever path (load/store on
 * a node, MPI across nodes) the call would take: hardware and network
 * atomics are defined on aligned elements only.
 *
 * Where Open MPI serves DART's windows with its `osc/rdma` component
 * (an application that starts MPI itself on one host), the operations
 * that component gets wrong (compare-and-swap, the logical operations,
 * unsigned #DART_OP_MIN / #DART_OP_MAX) are refused with #DART_ERR_OTHER
 * when they would go through MPI, instead of giving wrong results.
 * @{
 */

/**
 * \brief Atomically sets `target[i] = target[i] op values[i]` for every
 *        `i` in [0, `nelem`).
 *
 * Non-blocking: `values` must stay unchanged until local completion, and
 * the update is visible at the target after dart_flush() or
 * dart_flush_all(). One-element integer updates that go through MPI may
 * wait in a batch per target until the next flush
 * (`DART_ACCUMULATE_BATCH`); updates of one location keep their order.
 *
 * Local, one-sided. Thread safety: MT-safe.
 *
 * \param[in] gptr   The first target element.
 * \param[in] values `nelem` operands.
 * \param[in] nelem  Number of elements; 0 does nothing.
 * \param[in] dtype  Basic type of the elements.
 * \param[in] op     The operation.
 * \retval DART_OK          Issued.
 * \retval DART_ERR_INVAL   Invalid target, misaligned target, operation
 *                          not valid for the type, `values` NULL, or a
 *                          size that overflows.
 * \retval DART_ERR_OTHER   The operation is refused under Open MPI
 *                          `osc/rdma`, or an MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_accumulate(
  dart_gptr_t      gptr,
  const void     * values,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_operation_t op) DART_NOTHROW;

/**
 * \brief Atomically updates the target as dart_accumulate() does and
 *        returns once `values` may be reused.
 *
 * Remote visibility still needs dart_flush() or dart_flush_all().
 *
 * Local, one-sided. Thread safety: MT-safe.
 *
 * \param[in] gptr   The first target element.
 * \param[in] values `nelem` operands.
 * \param[in] nelem  Number of elements; 0 does nothing.
 * \param[in] dtype  Basic type of the elements.
 * \param[in] op     The operation.
 * \retval DART_OK          Issued; `values` may be reused.
 * \retval DART_ERR_INVAL   As for dart_accumulate().
 * \retval DART_ERR_OTHER   As for dart_accumulate().
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_accumulate_blocking_local(
  dart_gptr_t      gptr,
  const void     * values,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_operation_t op) DART_NOTHROW;

/**
 * \brief Atomically fetches one target element into `*result` and sets
 *        it to `target op *value`.
 *
 * With #DART_OP_NO_OP it is an atomic read, with #DART_OP_REPLACE an
 * atomic swap. `*result` is defined only after dart_flush_local(),
 * dart_flush() or their `_all` forms on the same target.
 *
 * Local, one-sided. Thread safety: MT-safe.
 *
 * \param[in]  gptr   The target element.
 * \param[in]  value  The operand (read even for #DART_OP_NO_OP: pass a
 *                    valid pointer).
 * \param[out] result Receives the target's previous value; untouched on
 *                    failure.
 * \param[in]  dtype  Basic type of the element.
 * \param[in]  op     The operation.
 * \retval DART_OK          Issued.
 * \retval DART_ERR_INVAL   Invalid or misaligned target, operation not
 *                          valid for the type, or `value` or `result`
 *                          NULL.
 * \retval DART_ERR_OTHER   The operation is refused under Open MPI
 *                          `osc/rdma`, or an MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_fetch_and_op(
  dart_gptr_t      gptr,
  const void *     value,
  void *           result,
  dart_datatype_t  dtype,
  dart_operation_t op) DART_NOTHROW;

/**
 * \brief Atomically replaces one target element by `*value` if it equals
 *        `*compare`; `*result` receives the previous value either way.
 *
 * The swap happened if and only if `*result` equals `*compare`. `*result`
 * is defined only after dart_flush_local(), dart_flush() or their `_all`
 * forms on the same target. With Open MPI 4 across nodes a 1- or 2-byte
 * swap goes through the aligned 4-byte word holding the element (its
 * `osc/ucx` has no narrower atomics): on the last 1 to 3 bytes of a
 * portion whose size is not a multiple of 4 that word is not all inside
 * the portion, and the swap is refused with #DART_ERR_OTHER.
 *
 * Local, one-sided. Thread safety: MT-safe.
 *
 * \param[in]  gptr    The target element.
 * \param[in]  value   The new value.
 * \param[in]  compare The value the target must hold for the swap.
 * \param[out] result  Receives the target's previous value; untouched on
 *                     failure.
 * \param[in]  dtype   An integral basic type, #DART_TYPE_BYTE to
 *                     #DART_TYPE_ULONGLONG.
 * \retval DART_OK          Issued.
 * \retval DART_ERR_INVAL   Invalid or misaligned target, `dtype` not
 *                          integral, or a pointer NULL.
 * \retval DART_ERR_OTHER   Refused (Open MPI `osc/rdma`, or a narrow swap
 *                          at a portion's tail as described above), or an
 *                          MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_compare_and_swap(
  dart_gptr_t      gptr,
  const void     * value,
  const void     * compare,
  void           * result,
  dart_datatype_t  dtype) DART_NOTHROW;

/** @} */

/* ----------------------------------------------------------------------
 * Non-blocking one-sided transfers and flush
 * ---------------------------------------------------------------------- */

/**
 * \name Put, get and flush
 *
 * Local, one-sided calls, thread safety MT-safe. A transfer moves
 * `nelem` elements laid out by `src_type` at the source to the positions
 * `dst_type` gives at the destination. Both types must have the same
 * basic type (there is no conversion); strided and indexed types require
 * `nelem` to be a multiple of their block count; #DART_TYPE_UNDEFINED is
 * never valid. Derived types are valid on either side, to node peers and
 * across nodes alike, except that `dst_type`, which lays out the memory
 * the transfer writes, must not have overlapping blocks.
 * @{
 */

/**
 * \brief Starts copying `nelem` elements from global memory into `dest`.
 *
 * Non-blocking: `dest` holds the data after dart_flush_local(),
 * dart_flush() or their `_all` forms on the same segment (and unit).
 *
 * \param[out] dest     Local destination buffer.
 * \param[in]  gptr     The source in global memory.
 * \param[in]  nelem    Number of elements; 0 does nothing.
 * \param[in]  src_type Layout at the source.
 * \param[in]  dst_type Layout in `dest`.
 * \retval DART_OK          Started.
 * \retval DART_ERR_INVAL   Invalid target or access past the portion,
 *                          types that do not match or a count that is not
 *                          a multiple of a block count, a `dst_type` with
 *                          overlapping blocks (dart_type_create_indexed()),
 *                          `dest` NULL, or a size that overflows.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_get(
  void            * dest,
  dart_gptr_t       gptr,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type) DART_NOTHROW;

/**
 * \brief Starts copying `nelem` elements from `src` into global memory.
 *
 * Non-blocking: `src` may be changed after dart_flush_local(), and the
 * data is visible at the target after dart_flush() or dart_flush_all().
 *
 * \param[in] gptr     The destination in global memory.
 * \param[in] src      Local source buffer.
 * \param[in] nelem    Number of elements; 0 does nothing.
 * \param[in] src_type Layout in `src`.
 * \param[in] dst_type Layout at the destination.
 * \retval DART_OK          Started.
 * \retval DART_ERR_INVAL   As for dart_get(), with `src` for `dest`.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_put(
  dart_gptr_t       gptr,
  const void      * src,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type) DART_NOTHROW;

/**
 * \brief Completes, locally and remotely, every operation the calling
 *        unit issued to unit `gptr.unitid` in the segment of `gptr`.
 *
 * Covers puts, gets, accumulates, fetch-and-ops and compare-and-swaps of
 * all threads of the unit; the offset is ignored. Blocks until done.
 *
 * \param[in] gptr Names the team, segment and unit.
 * \retval DART_OK          Complete.
 * \retval DART_ERR_INVAL   Unknown team or segment, or unit out of range.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_flush(
  dart_gptr_t gptr) DART_NOTHROW;

/**
 * \brief Completes, locally and remotely, every operation the calling
 *        unit issued to any unit in the segment of `gptr`.
 *
 * `unitid` and offset are ignored. Blocks until done.
 *
 * \param[in] gptr Names the team and segment.
 * \retval DART_OK          Complete.
 * \retval DART_ERR_INVAL   Unknown team or segment.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_flush_all(
  dart_gptr_t gptr) DART_NOTHROW;

/**
 * \brief Completes locally every operation the calling unit issued to
 *        unit `gptr.unitid` in the segment of `gptr`.
 *
 * Afterwards origin buffers may be reused and get and fetch results are
 * available; puts and accumulates need not be visible at the target yet.
 *
 * \param[in] gptr Names the team, segment and unit.
 * \retval DART_OK          Complete.
 * \retval DART_ERR_INVAL   Unknown team or segment, or unit out of range.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_flush_local(
  dart_gptr_t gptr) DART_NOTHROW;

/**
 * \brief Completes locally every operation the calling unit issued to
 *        any unit in the segment of `gptr`.
 *
 * \param[in] gptr Names the team and segment.
 * \retval DART_OK          Complete.
 * \retval DART_ERR_INVAL   Unknown team or segment.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_flush_local_all(
  dart_gptr_t gptr) DART_NOTHROW;

/** @} */

/* ----------------------------------------------------------------------
 * Handle-based one-sided transfers
 * ---------------------------------------------------------------------- */

/**
 * \name Transfers with handles
 *
 * Local, one-sided calls. Thread safety: MT-safe, as long as two threads
 * do not use the same handle. A handle names one transfer; it is consumed
 * by a wait, by a test that reports completion, or by dart_handle_free(),
 * after which it is #DART_HANDLE_NULL. Flushes complete the transfer but
 * do not consume its handle.
 * @{
 */

/** \brief Handle of one transfer started by dart_get_handle() or
 *         dart_put_handle(). */
typedef struct dart_handle_struct * dart_handle_t;

/** \brief The null handle: no transfer, or one that is complete. */
#define DART_HANDLE_NULL (dart_handle_t)NULL

/**
 * \brief Starts a get as dart_get() does and gives a handle for it.
 *
 * \param[out] dest     Local destination buffer.
 * \param[in]  gptr     The source in global memory.
 * \param[in]  nelem    Number of elements.
 * \param[in]  src_type Layout at the source.
 * \param[in]  dst_type Layout in `dest`.
 * \param[out] handle   Receives the handle; #DART_HANDLE_NULL if the
 *                      transfer completed during the call (a target
 *                      reached through shared memory, `nelem` 0) or on
 *                      failure.
 * \retval DART_OK          Started, or done.
 * \retval DART_ERR_INVAL   `handle` NULL, or as for dart_get().
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_get_handle(
  void            * dest,
  dart_gptr_t       gptr,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type,
  dart_handle_t   * handle) DART_NOTHROW;

/**
 * \brief Starts a put as dart_put() does and gives a handle for it.
 *
 * \param[in]  gptr     The destination in global memory.
 * \param[in]  src      Local source buffer.
 * \param[in]  nelem    Number of elements.
 * \param[in]  src_type Layout in `src`.
 * \param[in]  dst_type Layout at the destination.
 * \param[out] handle   Receives the handle; #DART_HANDLE_NULL if the
 *                      transfer completed during the call or on failure.
 * \retval DART_OK          Started, or done.
 * \retval DART_ERR_INVAL   `handle` NULL, or as for dart_put().
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_put_handle(
  dart_gptr_t       gptr,
  const void      * src,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type,
  dart_handle_t   * handle) DART_NOTHROW;

/**
 * \brief Waits until a transfer is complete locally and remotely, then
 *        consumes its handle.
 *
 * \param[in,out] handle The handle; set to #DART_HANDLE_NULL. A NULL
 *                       pointer or #DART_HANDLE_NULL returns at once.
 * \retval DART_OK          Complete.
 * \retval DART_ERR_INVAL   `*handle` is not a live handle.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_wait(
  dart_handle_t * handle) DART_NOTHROW;

/**
 * \brief Waits as dart_wait() does for every handle of an array.
 *
 * \param[in,out] handles `n` handles, #DART_HANDLE_NULL entries allowed;
 *                        all set to #DART_HANDLE_NULL on success. NULL
 *                        returns at once.
 * \param[in]     n       Number of entries.
 * \retval DART_OK          All complete.
 * \retval DART_ERR_INVAL   An entry is not a live handle (nothing is
 *                          waited for).
 * \retval DART_ERR_OTHER   An MPI call failed for some entry.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_waitall(
  dart_handle_t handles[],
  size_t        n) DART_NOTHROW;

/**
 * \brief Waits until a transfer is locally complete (get: data in
 *        `dest`; put: `src` reusable), then consumes its handle.
 *
 * \param[in,out] handle The handle; set to #DART_HANDLE_NULL. A NULL
 *                       pointer or #DART_HANDLE_NULL returns at once.
 * \retval DART_OK          Locally complete.
 * \retval DART_ERR_INVAL   `*handle` is not a live handle.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_wait_local(
  dart_handle_t * handle) DART_NOTHROW;

/**
 * \brief Waits as dart_wait_local() does for every handle of an array.
 *
 * \param[in,out] handles `n` handles, #DART_HANDLE_NULL entries allowed;
 *                        all set to #DART_HANDLE_NULL on success. NULL
 *                        returns at once.
 * \param[in]     n       Number of entries.
 * \retval DART_OK          All locally complete.
 * \retval DART_ERR_INVAL   An entry is not a live handle (nothing is
 *                          waited for).
 * \retval DART_ERR_OTHER   An MPI call failed for some entry.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_waitall_local(
  dart_handle_t handles[],
  size_t        n) DART_NOTHROW;

/**
 * \brief Tests without blocking whether a transfer is locally complete;
 *        if so, consumes its handle.
 *
 * \param[in,out] handle The handle; set to #DART_HANDLE_NULL when
 *                       complete. A NULL pointer or #DART_HANDLE_NULL
 *                       counts as complete.
 * \param[out]    result Receives 1 if locally complete, else 0.
 * \retval DART_OK          Tested.
 * \retval DART_ERR_INVAL   `result` is NULL or `*handle` is not a live
 *                          handle.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_test_local(
  dart_handle_t * handle,
  int32_t       * result) DART_NOTHROW;

/**
 * \brief Tests whether a transfer is locally complete; if so, also
 *        completes it remotely (a put is flushed) and consumes its
 *        handle.
 *
 * \param[in,out] handleptr   The handle; set to #DART_HANDLE_NULL when
 *                            complete. A NULL pointer or
 *                            #DART_HANDLE_NULL counts as complete.
 * \param[out]    is_finished Receives 1 if complete, else 0.
 * \retval DART_OK          Tested.
 * \retval DART_ERR_INVAL   `is_finished` is NULL or `*handleptr` is not a
 *                          live handle.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_test(
  dart_handle_t * handleptr,
  int32_t       * is_finished);

/**
 * \brief Tests without blocking whether all transfers of an array are
 *        locally complete; if so, consumes all handles, otherwise none.
 *
 * \param[in,out] handles `n` handles, #DART_HANDLE_NULL entries allowed;
 *                        NULL or `n` 0 counts as complete.
 * \param[in]     n       Number of entries.
 * \param[out]    result  Receives 1 if all are locally complete, else 0.
 * \retval DART_OK          Tested.
 * \retval DART_ERR_INVAL   `result` is NULL or an entry is not a live
 *                          handle.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_testall_local(
  dart_handle_t   handles[],
  size_t          n,
  int32_t       * result) DART_NOTHROW;

/**
 * \brief Tests as dart_testall_local() does; if all are locally complete,
 *        also completes them remotely and consumes all handles.
 *
 * \param[in,out] handles     `n` handles, #DART_HANDLE_NULL entries
 *                            allowed; NULL or `n` 0 counts as complete.
 * \param[in]     n           Number of entries.
 * \param[out]    is_finished Receives 1 if all are complete, else 0.
 * \retval DART_OK          Tested.
 * \retval DART_ERR_INVAL   `is_finished` is NULL or an entry is not a live
 *                          handle.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_testall(
  dart_handle_t   handles[],
  size_t          n,
  int32_t       * is_finished);

/**
 * \brief Consumes a handle without waiting for remote completion.
 *
 * The transfer still completes; a later flush of its target makes it
 * remotely complete.
 *
 * \param[in,out] handle The handle; set to #DART_HANDLE_NULL. A NULL
 *                       pointer or #DART_HANDLE_NULL is a no-op.
 * \retval DART_OK          Released.
 * \retval DART_ERR_INVAL   `*handle` is not a live handle.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_handle_free(
  dart_handle_t * handle) DART_NOTHROW;

/** @} */

/* ----------------------------------------------------------------------
 * Blocking one-sided transfers
 * ---------------------------------------------------------------------- */

/**
 * \name Blocking put and get
 *
 * Local, one-sided calls, thread safety MT-safe. They return once their
 * own transfer is complete locally and remotely; they do not complete
 * other pending operations.
 * @{
 */

/**
 * \brief Copies `nelem` elements from global memory into `dest` and
 *        returns when they are there.
 *
 * \param[out] dest     Local destination buffer.
 * \param[in]  gptr     The source in global memory.
 * \param[in]  nelem    Number of elements; 0 does nothing.
 * \param[in]  src_type Layout at the source.
 * \param[in]  dst_type Layout in `dest`.
 * \retval DART_OK          Done.
 * \retval DART_ERR_INVAL   As for dart_get().
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_get_blocking(
  void         *  dest,
  dart_gptr_t     gptr,
  size_t          nelem,
  dart_datatype_t src_type,
  dart_datatype_t dst_type) DART_NOTHROW;

/**
 * \brief Copies `nelem` elements from `src` into global memory and
 *        returns when they are visible at the target.
 *
 * \param[in] gptr     The destination in global memory.
 * \param[in] src      Local source buffer.
 * \param[in] nelem    Number of elements; 0 does nothing.
 * \param[in] src_type Layout in `src`.
 * \param[in] dst_type Layout at the destination.
 * \retval DART_OK          Done.
 * \retval DART_ERR_INVAL   As for dart_put().
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_put_blocking(
  dart_gptr_t       gptr,
  const void      * src,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type) DART_NOTHROW;

/** @} */

/* ----------------------------------------------------------------------
 * Two-sided messaging (units identified by global id)
 * ---------------------------------------------------------------------- */

/**
 * \name Two-sided messages
 *
 * Local, blocking calls, thread safety MT-safe. Units are named by global
 * id; messages match by (sender, receiver, tag), and messages with the
 * same triple do not overtake each other. They never match DART's own
 * traffic (collectives, locks). `dtype` must be a basic or custom type;
 * tags run from 0 to MPI's `MPI_TAG_UB` (at least 32767). While waiting,
 * a unit keeps serving the team locks homed at it.
 * @{
 */

/**
 * \brief Sends `nelem` elements to a unit; returns when `sendbuf` may be
 *        reused (which may or may not wait for the matching receive).
 *
 * \param[in] sendbuf The elements.
 * \param[in] nelem   Number of elements.
 * \param[in] dtype   Type of the elements.
 * \param[in] tag     Message tag.
 * \param[in] unit    Global id of the receiver.
 * \retval DART_OK          Sent.
 * \retval DART_ERR_INVAL   Invalid type, a size that overflows, `sendbuf`
 *                          NULL with `nelem` > 0, `tag` or `unit` out of
 *                          range.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_send(
  const void         * sendbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  int                  tag,
  dart_global_unit_t   unit) DART_NOTHROW;

/**
 * \brief Receives a message of at most `nelem` elements from a unit;
 *        returns when it is in `recvbuf`.
 *
 * \param[out] recvbuf Receives the elements.
 * \param[in]  nelem   Largest number of elements.
 * \param[in]  dtype   Type of the elements.
 * \param[in]  tag     Message tag.
 * \param[in]  unit    Global id of the sender.
 * \retval DART_OK          Received.
 * \retval DART_ERR_INVAL   As for dart_send(), or the message holds more
 *                          than `nelem` elements.
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_recv(
  void               * recvbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  int                  tag,
  dart_global_unit_t   unit) DART_NOTHROW;

/**
 * \brief Sends to one unit and receives from another (or the same) in
 *        one call that cannot deadlock against its partner's
 *        dart_sendrecv().
 *
 * \param[in]  sendbuf    The elements to send.
 * \param[in]  send_nelem Number of elements to send.
 * \param[in]  send_dtype Type of the elements sent.
 * \param[in]  send_tag   Tag of the message sent.
 * \param[in]  dest       Global id of the receiver.
 * \param[out] recvbuf    Receives the elements.
 * \param[in]  recv_nelem Largest number of elements to receive.
 * \param[in]  recv_dtype Type of the elements received.
 * \param[in]  recv_tag   Tag of the message received.
 * \param[in]  src        Global id of the sender.
 * \retval DART_OK          Done.
 * \retval DART_ERR_INVAL   As for dart_send() and dart_recv().
 * \retval DART_ERR_OTHER   An MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_sendrecv(
  const void         * sendbuf,
  size_t               send_nelem,
  dart_datatype_t      send_dtype,
  int                  send_tag,
  dart_global_unit_t   dest,
  void               * recvbuf,
  size_t               recv_nelem,
  dart_datatype_t      recv_dtype,
  int                  recv_tag,
  dart_global_unit_t   src) DART_NOTHROW;

/** @} */

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DASH__DART__IF__DART_COMMUNICATION_H_ */
