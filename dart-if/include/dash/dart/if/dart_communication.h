/**
 * \file dash/dart/if/dart_communication.h
 *
 * Collective operations, atomics, one-sided and two-sided communication.
 */
#ifndef DASH__DART__IF__DART_COMMUNICATION_H_
#define DASH__DART__IF__DART_COMMUNICATION_H_

#include "dart_types.h"
#include "dart_util.h"
#include "dart_globmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------------
 * Collectives
 * ---------------------------------------------------------------------- */

dart_ret_t dart_barrier(
  dart_team_t team) DART_NOTHROW;

dart_ret_t dart_bcast(
  void              * buf,
  size_t              nelem,
  dart_datatype_t     dtype,
  dart_team_unit_t    root,
  dart_team_t         team) DART_NOTHROW;

dart_ret_t dart_scatter(
  const void         * sendbuf,
  void               * recvbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  dart_team_unit_t     root,
  dart_team_t          team) DART_NOTHROW;

dart_ret_t dart_gather(
  const void        * sendbuf,
  void              * recvbuf,
  size_t              nelem,
  dart_datatype_t     dtype,
  dart_team_unit_t    root,
  dart_team_t         team) DART_NOTHROW;

/* In place if sendbuf == recvbuf or sendbuf == NULL. */
dart_ret_t dart_allgather(
  const void      * sendbuf,
  void            * recvbuf,
  size_t            nelem,
  dart_datatype_t   dtype,
  dart_team_t       team) DART_NOTHROW;

dart_ret_t dart_allgatherv(
  const void      * sendbuf,
  size_t            nsendelem,
  dart_datatype_t   dtype,
  void            * recvbuf,
  const size_t    * nrecvelem,
  const size_t    * recvdispls,
  dart_team_t       teamid) DART_NOTHROW;

dart_ret_t dart_allreduce(
  const void     * sendbuf,
  void           * recvbuf,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_operation_t op,
  dart_team_t      team) DART_NOTHROW;

dart_ret_t dart_alltoall(
  const void     * sendbuf,
  void           * recvbuf,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_team_t      team) DART_NOTHROW;

dart_ret_t dart_reduce(
  const void        * sendbuf,
  void              * recvbuf,
  size_t              nelem,
  dart_datatype_t     dtype,
  dart_operation_t    op,
  dart_team_unit_t    root,
  dart_team_t         team) DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Atomic operations
 *
 * Alignment: the target of every atomic call below must be naturally
 * aligned, i.e. its offset (gptr.addr_or_offs.offset) a multiple of the
 * element size of dtype (for dart_accumulate with nelem > 1: of the first
 * element; the others follow contiguously). Memory DART allocates starts
 * each unit's portion on a 64-byte boundary; for memory registered with
 * dart_team_memregister[_aligned] the registered address of the target
 * unit must be aligned too. Any other target is rejected with
 * DART_ERR_INVAL and one log line before anything is read, written or
 * sent, whichever path (load/store on a node, MPI across nodes) the
 * call would take: hardware and network atomics are defined on aligned
 * elements only.
 * ---------------------------------------------------------------------- */

/* target[i] = target[i] op values[i] for i in [0, nelem), each element
 * atomically. The target must be aligned (above): else DART_ERR_INVAL. */
dart_ret_t dart_accumulate(
  dart_gptr_t      gptr,
  const void     * values,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_operation_t op) DART_NOTHROW;

/* As dart_accumulate, returning once values may be reused. The target
 * must be aligned (above): else DART_ERR_INVAL. */
dart_ret_t dart_accumulate_blocking_local(
  dart_gptr_t      gptr,
  const void     * values,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_operation_t op) DART_NOTHROW;

/* *result is valid only after a flush on the same target. The target
 * must be aligned (above): else DART_ERR_INVAL, result untouched. */
dart_ret_t dart_fetch_and_op(
  dart_gptr_t      gptr,
  const void *     value,
  void *           result,
  dart_datatype_t  dtype,
  dart_operation_t op) DART_NOTHROW;

/* Integral basic types. The target must be aligned (above): else
 * DART_ERR_INVAL, result untouched. With Open MPI 4 across nodes a 1- or
 * 2-byte swap goes through the aligned 4-byte word holding the element
 * (its osc/ucx has no narrower atomics): on the last 1-3 bytes of a unit's
 * portion whose size is not a multiple of 4 that word is not all inside
 * the portion, and the swap is refused with DART_ERR_OTHER. */
dart_ret_t dart_compare_and_swap(
  dart_gptr_t      gptr,
  const void     * value,
  const void     * compare,
  void           * result,
  dart_datatype_t  dtype) DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Non-blocking one-sided transfers and flush
 * ---------------------------------------------------------------------- */

dart_ret_t dart_get(
  void            * dest,
  dart_gptr_t       gptr,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type) DART_NOTHROW;

dart_ret_t dart_put(
  dart_gptr_t       gptr,
  const void      * src,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type) DART_NOTHROW;

dart_ret_t dart_flush(
  dart_gptr_t gptr) DART_NOTHROW;

dart_ret_t dart_flush_all(
  dart_gptr_t gptr) DART_NOTHROW;

dart_ret_t dart_flush_local(
  dart_gptr_t gptr) DART_NOTHROW;

dart_ret_t dart_flush_local_all(
  dart_gptr_t gptr) DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Handle-based one-sided transfers
 * ---------------------------------------------------------------------- */

typedef struct dart_handle_struct * dart_handle_t;

#define DART_HANDLE_NULL (dart_handle_t)NULL

dart_ret_t dart_get_handle(
  void            * dest,
  dart_gptr_t       gptr,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type,
  dart_handle_t   * handle) DART_NOTHROW;

dart_ret_t dart_put_handle(
  dart_gptr_t       gptr,
  const void      * src,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type,
  dart_handle_t   * handle) DART_NOTHROW;

dart_ret_t dart_wait(
  dart_handle_t * handle) DART_NOTHROW;

dart_ret_t dart_waitall(
  dart_handle_t handles[],
  size_t        n) DART_NOTHROW;

dart_ret_t dart_wait_local(
  dart_handle_t * handle) DART_NOTHROW;

dart_ret_t dart_waitall_local(
  dart_handle_t handles[],
  size_t        n) DART_NOTHROW;

dart_ret_t dart_test_local(
  dart_handle_t * handle,
  int32_t       * result) DART_NOTHROW;

dart_ret_t dart_test(
  dart_handle_t * handleptr,
  int32_t       * is_finished);

dart_ret_t dart_testall_local(
  dart_handle_t   handles[],
  size_t          n,
  int32_t       * result) DART_NOTHROW;

dart_ret_t dart_testall(
  dart_handle_t   handles[],
  size_t          n,
  int32_t       * is_finished);

dart_ret_t dart_handle_free(
  dart_handle_t * handle) DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Blocking one-sided transfers
 * ---------------------------------------------------------------------- */

dart_ret_t dart_get_blocking(
  void         *  dest,
  dart_gptr_t     gptr,
  size_t          nelem,
  dart_datatype_t src_type,
  dart_datatype_t dst_type) DART_NOTHROW;

dart_ret_t dart_put_blocking(
  dart_gptr_t       gptr,
  const void      * src,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type) DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Two-sided messaging (units identified by global id)
 * ---------------------------------------------------------------------- */

dart_ret_t dart_send(
  const void         * sendbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  int                  tag,
  dart_global_unit_t   unit) DART_NOTHROW;

dart_ret_t dart_recv(
  void               * recvbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  int                  tag,
  dart_global_unit_t   unit) DART_NOTHROW;

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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DASH__DART__IF__DART_COMMUNICATION_H_ */
