/* dart_send / dart_recv / dart_sendrecv on a communicator of their own,
 * so user messages never match collectives or internal traffic. */
#include "mpi/core/large_count.h"
#include "mpi/core/progress.h"
#include "mpi/core/runtime.h"
#include "mpi/model/datatype.h"

#include <dash/dart/if/dart_communication.h>

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

static dart_ret_t report_receive_error(const char *call, int err,
                                       dart_unit_t from)
{
  int error_class = err;
  MPI_Error_class(err, &error_class);
  if (error_class == MPI_ERR_TRUNCATE) {
    return report_error(DART_ERR_INVAL, call,
                        "message from unit %d holds more than nelem "
                        "elements", (int)from);
  }
  return report_mpi_error(call, "receive", err);
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
  /* Polled wait for the message (progress.h), then the receive. */
  err = progress_await_message(unit.id, tag, runtime.user_p2p_comm);
  if (err == MPI_SUCCESS) {
    err = MPI_Recv(recvbuf, c.count, c.type, unit.id, tag,
                   runtime.user_p2p_comm, MPI_STATUS_IGNORE);
  }
  mpi_count_release(&c);
  return err == MPI_SUCCESS ? DART_OK
                            : report_receive_error(__func__, err, unit.id);
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
  /* The send started, a polled wait for the message, the receive, a
   * polled wait for the send (progress.h). */
  MPI_Request rq;
  err = MPI_Isend(sendbuf, sc.count, sc.type, dest.id, send_tag,
                  runtime.user_p2p_comm, &rq);
  if (err == MPI_SUCCESS) {
    err = progress_await_message(src.id, recv_tag, runtime.user_p2p_comm);
    if (err == MPI_SUCCESS) {
      err = MPI_Recv(recvbuf, rc.count, rc.type, src.id, recv_tag,
                     runtime.user_p2p_comm, MPI_STATUS_IGNORE);
    }
    int send_err = err == MPI_SUCCESS ? progress_wait(&rq)
                                      : MPI_Wait(&rq, MPI_STATUS_IGNORE);
    err = err != MPI_SUCCESS ? err : send_err;
  }
  mpi_count_release(&sc);
  mpi_count_release(&rc);
  return err == MPI_SUCCESS ? DART_OK
                            : report_receive_error(__func__, err, src.id);
}
