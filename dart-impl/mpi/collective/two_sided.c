/* dart_send / dart_recv / dart_sendrecv on a communicator of their own,
 * so user messages never match collectives or internal traffic. */
#include "mpi/core/large_count.h"
#include "mpi/core/progress.h"
#include "mpi/core/runtime.h"
#include "mpi/model/datatype.h"

#include <dash/dart/if/dart_communication.h>

#include <stdint.h>
#include <stdlib.h>

static dart_ret_t check_message(const char *call, const char *what,
                                const void *buf, size_t nelem,
                                dart_datatype_t dtype, int tag,
                                dart_global_unit_t unit,
                                const struct datatype **type)
{
  if ((*type = datatype_contiguous_or_report(call, dtype)) == NULL) {
    return DART_ERR_INVAL;
  }
  size_t bytes;
  if (datatype_check_bytes(call, what, nelem, (*type)->base_size, 1, &bytes) !=
      DART_OK) {
    return DART_ERR_INVAL;
  }
  if (buf == NULL && nelem > 0) {
    return report_error(DART_ERR_INVAL, call, "%s buffer is NULL with nelem "
                        "%zu", what, nelem);
  }
  if (tag < 0 || tag > runtime.tag_ub) {
    return report_error(DART_ERR_INVAL, call, "%s tag %d is not in [0, %d]",
                        what, tag, runtime.tag_ub);
  }
  if (unit.id < 0 || unit.id >= runtime.size) {
    return report_error(DART_ERR_INVAL, call, "%s unit %d is not in [0, %d)",
                        what, (int)unit.id, runtime.size);
  }
  return DART_OK;
}

/* Receives the message from `src` with `tag` into `buf`, which holds
 * `bytes` bytes laid out as `c`, after a polled wait for it (progress.h).
 * The message is matched first (MPI_Mprobe) and its size checked: a
 * longer one is received into scratch memory and dropped, and the call
 * fails having written nothing. MPI's own truncation error is not enough:
 * Open MPI 4.1's ob1 wrote past the receive buffer of a truncated message
 * above its eager limit (about 4 KiB), DART's promise is to touch no byte
 * outside the nelem elements. */
static dart_ret_t receive(const char *call, void *buf, size_t bytes,
                          const struct mpi_count *c, int src, int tag)
{
  MPI_Comm comm = runtime.user_p2p_comm;
  MPI_Message message;
  MPI_Status status;
  int err = progress_await_message(src, tag, comm);
  if (err == MPI_SUCCESS) {
    err = MPI_Mprobe(src, tag, comm, &message, &status);
  }
  MPI_Count sent = 0;
  if (err == MPI_SUCCESS) {
    err = MPI_Get_elements_x(&status, MPI_BYTE, &sent);
  }
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Mprobe", err);
  }
  if (sent >= 0 && (uint64_t)sent <= bytes) {
    err = MPI_Mrecv(buf, c->count, c->type, &message, MPI_STATUS_IGNORE);
    return err == MPI_SUCCESS ? DART_OK
                              : report_mpi_error(call, "MPI_Mrecv", err);
  }
  /* Too long: received whole elsewhere (a matched message must be
   * received), then dropped. */
  struct mpi_count whole;
  void *scratch = malloc(sent > 0 ? (size_t)sent : 1);
  if (scratch == NULL) {
    return report_error(DART_ERR_NOMEM, call, "message from unit %d holds "
                        "%lld bytes, more than the %zu of nelem elements, "
                        "and there is no memory to drop it", src,
                        (long long)sent, bytes);
  }
  err = mpi_count_make((size_t)sent, MPI_BYTE, &whole);
  if (err == MPI_SUCCESS) {
    MPI_Mrecv(scratch, whole.count, whole.type, &message, MPI_STATUS_IGNORE);
    mpi_count_release(&whole);
  }
  free(scratch);
  return report_error(DART_ERR_INVAL, call, "message from unit %d holds "
                      "%lld bytes, more than the %zu of nelem elements: "
                      "dropped, nothing received", src, (long long)sent,
                      bytes);
}

dart_ret_t dart_send(const void *sendbuf, size_t nelem, dart_datatype_t dtype,
                     int tag, dart_global_unit_t unit)
{
  REQUIRE_INIT();
  const struct datatype *type;
  if (check_message(__func__, "send", sendbuf, nelem, dtype, tag, unit,
                    &type) != DART_OK) {
    return DART_ERR_INVAL;
  }
  struct mpi_count c;
  int err = mpi_count_make(nelem, type->mpi_base, &c);
  if (err == MPI_SUCCESS) {
    MPI_Request rq; /* polled wait: progress.h */
    err = progress_complete(MPI_Isend(sendbuf, c.count, c.type, unit.id,
                                       tag, runtime.user_p2p_comm, &rq), &rq);
    mpi_count_release(&c);
  }
  return err == MPI_SUCCESS ? DART_OK
                            : report_mpi_error(__func__, "MPI_Send", err);
}

dart_ret_t dart_recv(void *recvbuf, size_t nelem, dart_datatype_t dtype,
                     int tag, dart_global_unit_t unit)
{
  REQUIRE_INIT();
  const struct datatype *type;
  if (check_message(__func__, "receive", recvbuf, nelem, dtype, tag, unit,
                    &type) != DART_OK) {
    return DART_ERR_INVAL;
  }
  struct mpi_count c;
  int err = mpi_count_make(nelem, type->mpi_base, &c);
  if (err != MPI_SUCCESS) {
    return report_mpi_error(__func__, "building a large-count type", err);
  }
  dart_ret_t ret = receive(__func__, recvbuf, nelem * type->base_size, &c,
                           unit.id, tag);
  mpi_count_release(&c);
  return ret;
}

dart_ret_t dart_sendrecv(const void *sendbuf, size_t send_nelem,
                         dart_datatype_t send_dtype, int send_tag,
                         dart_global_unit_t dest, void *recvbuf,
                         size_t recv_nelem, dart_datatype_t recv_dtype,
                         int recv_tag, dart_global_unit_t src)
{
  REQUIRE_INIT();
  const struct datatype *stype, *rtype;
  if (check_message(__func__, "send", sendbuf, send_nelem, send_dtype,
                    send_tag, dest, &stype) != DART_OK ||
      check_message(__func__, "receive", recvbuf, recv_nelem, recv_dtype,
                    recv_tag, src, &rtype) != DART_OK) {
    return DART_ERR_INVAL;
  }
  struct mpi_count sc, rc;
  int err = mpi_count_make(send_nelem, stype->mpi_base, &sc);
  if (err != MPI_SUCCESS) {
    return report_mpi_error(__func__, "building a large-count type", err);
  }
  err = mpi_count_make(recv_nelem, rtype->mpi_base, &rc);
  if (err != MPI_SUCCESS) {
    mpi_count_release(&sc);
    return report_mpi_error(__func__, "building a large-count type", err);
  }
  /* The send started, the receive (a polled wait for the message), a
   * polled wait for the send (progress.h). */
  MPI_Request rq;
  dart_ret_t ret = DART_OK;
  err = MPI_Isend(sendbuf, sc.count, sc.type, dest.id, send_tag,
                  runtime.user_p2p_comm, &rq);
  if (err != MPI_SUCCESS) {
    ret = report_mpi_error(__func__, "MPI_Isend", err);
  } else {
    ret = receive(__func__, recvbuf, recv_nelem * rtype->base_size, &rc,
                  src.id, recv_tag);
    err = ret == DART_OK ? progress_wait(&rq)
                         : MPI_Wait(&rq, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS && ret == DART_OK) {
      ret = report_mpi_error(__func__, "MPI_Isend", err);
    }
  }
  mpi_count_release(&sc);
  mpi_count_release(&rc);
  return ret;
}
