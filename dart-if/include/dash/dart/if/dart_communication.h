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
 * ---------------------------------------------------------------------- */

dart_ret_t dart_accumulate(
  dart_gptr_t      gptr,
  const void     * values,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_operation_t op) DART_NOTHROW;

dart_ret_t dart_accumulate_blocking_local(
  dart_gptr_t      gptr,
  const void     * values,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_operation_t op) DART_NOTHROW;

/* *result is valid only after a flush on the same target. */
dart_ret_t dart_fetch_and_op(
  dart_gptr_t      gptr,
  const void *     value,
  void *           result,
  dart_datatype_t  dtype,
  dart_operation_t op) DART_NOTHROW;

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
