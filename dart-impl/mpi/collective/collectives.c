/* Collectives on a team's communicator. Counts of any size: blocks go as
 * one large-count datatype, reductions are cut into chunks. */
#include "mpi/collective/team_sync.h"
#include "mpi/core/large_count.h"
#include "mpi/core/progress.h"
#include "mpi/core/runtime.h"
#include "mpi/model/datatype.h"
#include "mpi/model/local_reduce.h"
#include "mpi/model/operation.h"
#include "mpi/model/team.h"

#include <dash/dart/if/dart_communication.h>

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static dart_ret_t check_root(const char *call, const struct team *team,
                             dart_team_unit_t root)
{
  if (root.id < 0 || root.id >= team->size) {
    return report_error(DART_ERR_INVAL, call,
                        "root %d is not in [0, %d) of team %d", (int)root.id,
                        team->size, (int)team->id);
  }
  return DART_OK;
}

static dart_ret_t check_buffer(const char *call, const char *name,
                               const void *buf, size_t nelem)
{
  if (buf == NULL && nelem > 0) {
    return report_error(DART_ERR_INVAL, call, "%s is NULL with nelem %zu",
                        name, nelem);
  }
  return DART_OK;
}

/* Whether `blocks` blocks of `nelem` elements of `type` fit in one
 * buffer (and so in MPI's displacements); counts and types agree on all
 * members, so every member comes to the same verdict. */
static dart_ret_t check_count(const char *call, const char *what,
                              size_t nelem, const struct datatype *type,
                              size_t blocks)
{
  size_t bytes;
  return datatype_check_bytes(call, what, nelem, type->base_size, blocks,
                              &bytes);
}

/* Every collective is a non-blocking MPI collective completed by a
 * polled wait: a unit waiting in it keeps serving the hybrid locks homed
 * at it (progress.h, lock/polling.c); MPI_Wait when there are none. */
#define polled progress_complete

/* Runs an MPI call with `n` elements of `elem` packed as (count, type);
 * a failure returns through MPI_TRY (core/runtime.h). */
#define WITH_MPI_COUNT(call, n, elem, c, mpi_name, expr)                  \
  do {                                                                    \
    struct mpi_count c;                                                   \
    MPI_TRY(call, "building a large-count type",                          \
            mpi_count_make((n), (elem), &c));                             \
    int with_count_err_ = (expr);                                         \
    mpi_count_release(&c);                                                \
    MPI_TRY(call, mpi_name, with_count_err_);                             \
  } while (0)

/* Validates a rooted block collective: `every_buf` is significant on all
 * units, `root_buf` on the root only; `root_buf_blocked`: it holds one
 * block of `nelem` per member. */
static dart_ret_t check_rooted(const char *call, dart_team_t teamid,
                               dart_datatype_t dtype, dart_team_unit_t root,
                               const void *every_buf, const char *every_name,
                               const void *root_buf, const char *root_name,
                               size_t nelem, bool root_buf_blocked,
                               struct team **team,
                               const struct datatype **type)
{
  if ((*team = team_lookup_or_report(call, teamid)) == NULL ||
      (*type = datatype_contiguous_or_report(call, dtype)) == NULL ||
      check_root(call, *team, root) != DART_OK ||
      check_count(call, root_name, nelem, *type,
                  root_buf_blocked ? (size_t)(*team)->size : 1) !=
        DART_OK ||
      check_buffer(call, every_name, every_buf, nelem) != DART_OK ||
      ((*team)->my_rank == root.id &&
       check_buffer(call, root_name, root_buf, nelem) != DART_OK)) {
    return DART_ERR_INVAL;
  }
  return DART_OK;
}

dart_ret_t dart_barrier(dart_team_t teamid)
{
  REQUIRE_INIT();
  if (team_lookup_or_report(__func__, teamid) == NULL) {
    return DART_ERR_INVAL;
  }
  int err = team_barrier(teamid);
  return err == MPI_SUCCESS ? DART_OK
                            : report_mpi_error(__func__, "MPI_Barrier", err);
}

dart_ret_t dart_bcast(void *buf, size_t nelem, dart_datatype_t dtype,
                      dart_team_unit_t root, dart_team_t teamid)
{
  REQUIRE_INIT();
  struct team *team;
  const struct datatype *type;
  if (check_rooted(__func__, teamid, dtype, root, buf, "buf", buf, "buf",
                   nelem, false, &team, &type) != DART_OK) {
    return DART_ERR_INVAL;
  }
  /* MPICH 4.0's MPI_Ibcast fails ("Invalid communicator" from its
   * schedule) on 2 GiB and more in one call (test_large_count): larger
   * broadcasts go in pieces below that, the same on every member. */
  size_t piece = (size_t)INT_MAX / type->base_size;
  for (size_t done = 0; done < nelem; done += piece) {
    size_t n = nelem - done < piece ? nelem - done : piece;
    char *at = (char *)buf + done * type->base_size;
    MPI_Request rq;
    WITH_MPI_COUNT(__func__, n, type->mpi_base, c, "MPI_Ibcast",
                   polled(MPI_Ibcast(at, c.count, c.type, root.id,
                                     team->comm, &rq), &rq));
  }
  return DART_OK;
}

dart_ret_t dart_scatter(const void *sendbuf, void *recvbuf, size_t nelem,
                        dart_datatype_t dtype, dart_team_unit_t root,
                        dart_team_t teamid)
{
  REQUIRE_INIT();
  struct team *team;
  const struct datatype *type;
  if (check_rooted(__func__, teamid, dtype, root, recvbuf, "recvbuf",
                   sendbuf, "sendbuf", nelem, true, &team, &type) != DART_OK) {
    return DART_ERR_INVAL;
  }
  MPI_Request rq;
  WITH_MPI_COUNT(__func__, nelem, type->mpi_base, c, "MPI_Iscatter",
                 polled(MPI_Iscatter(sendbuf, c.count, c.type, recvbuf,
                                     c.count, c.type, root.id, team->comm,
                                     &rq), &rq));
  return DART_OK;
}

dart_ret_t dart_gather(const void *sendbuf, void *recvbuf, size_t nelem,
                       dart_datatype_t dtype, dart_team_unit_t root,
                       dart_team_t teamid)
{
  REQUIRE_INIT();
  struct team *team;
  const struct datatype *type;
  if (check_rooted(__func__, teamid, dtype, root, sendbuf, "sendbuf",
                   recvbuf, "recvbuf", nelem, true, &team, &type) != DART_OK) {
    return DART_ERR_INVAL;
  }
  MPI_Request rq;
  WITH_MPI_COUNT(__func__, nelem, type->mpi_base, c, "MPI_Igather",
                 polled(MPI_Igather(sendbuf, c.count, c.type, recvbuf,
                                    c.count, c.type, root.id, team->comm,
                                    &rq), &rq));
  return DART_OK;
}

dart_ret_t dart_allgather(const void *sendbuf, void *recvbuf, size_t nelem,
                          dart_datatype_t dtype, dart_team_t teamid)
{
  REQUIRE_INIT();
  struct team *team = team_lookup_or_report(__func__, teamid);
  const struct datatype *type;
  if (team == NULL ||
      (type = datatype_contiguous_or_report(__func__, dtype)) == NULL ||
      check_count(__func__, "recvbuf", nelem, type, (size_t)team->size) !=
        DART_OK ||
      check_buffer(__func__, "recvbuf", recvbuf, nelem) != DART_OK) {
    return DART_ERR_INVAL;
  }
  bool in_place = sendbuf == NULL || sendbuf == recvbuf;
  MPI_Request rq;
  WITH_MPI_COUNT(__func__, nelem, type->mpi_base, c, "MPI_Iallgather",
                 polled(MPI_Iallgather(in_place ? MPI_IN_PLACE : sendbuf,
                                       c.count, c.type, recvbuf, c.count,
                                       c.type, team->comm, &rq), &rq));
  return DART_OK;
}

/* allgatherv whose counts or displacements do not fit MPI's ints: one
 * broadcast per member, each of any size. */
static dart_ret_t allgatherv_by_bcast(const char *call, struct team *team,
                                      const struct datatype *type,
                                      char *recvbuf, const size_t *counts,
                                      const size_t *displs)
{
  for (int unit = 0; unit < team->size; ++unit) {
    MPI_Request rq;
    WITH_MPI_COUNT(call, counts[unit], type->mpi_base, c, "MPI_Ibcast",
                   polled(MPI_Ibcast(recvbuf + displs[unit] * type->base_size,
                                     c.count, c.type, unit, team->comm, &rq),
                          &rq));
  }
  return DART_OK;
}

dart_ret_t dart_allgatherv(const void *sendbuf, size_t nsendelem,
                           dart_datatype_t dtype, void *recvbuf,
                           const size_t *nrecvelem, const size_t *recvdispls,
                           dart_team_t teamid)
{
  REQUIRE_INIT();
  struct team *team = team_lookup_or_report(__func__, teamid);
  const struct datatype *type;
  if (team == NULL ||
      (type = datatype_contiguous_or_report(__func__, dtype)) == NULL) {
    return DART_ERR_INVAL;
  }
  if (nrecvelem == NULL || recvdispls == NULL) {
    return report_error(DART_ERR_INVAL, __func__,
                        "nrecvelem or recvdispls is NULL");
  }
  if (nrecvelem[team->my_rank] != nsendelem) {
    return report_error(DART_ERR_INVAL, __func__,
                        "nsendelem %zu differs from nrecvelem[%d] = %zu",
                        nsendelem, team->my_rank, nrecvelem[team->my_rank]);
  }
  /* Every block must lie inside one buffer: displacement plus count,
   * in bytes, without overflow (the arrays agree on all members). */
  size_t total = 0;
  bool fits_int = true;
  for (int u = 0; u < team->size; ++u) {
    size_t end, bytes;
    if (__builtin_add_overflow(recvdispls[u], nrecvelem[u], &end) ||
        datatype_check_bytes(__func__, "recvbuf", end, type->base_size, 1,
                             &bytes) != DART_OK) {
      return report_error(DART_ERR_INVAL, __func__,
                          "block of unit %d (displacement %zu, %zu "
                          "elements) lies past the largest buffer", u,
                          recvdispls[u], nrecvelem[u]);
    }
    total = end > total ? end : total;
    fits_int = fits_int && nrecvelem[u] <= mpi_count_limit() &&
               recvdispls[u] <= INT_MAX;
  }
  if (check_buffer(__func__, "recvbuf", recvbuf, total) != DART_OK ||
      check_buffer(__func__, "sendbuf", sendbuf == NULL ? recvbuf : sendbuf,
                   nsendelem) != DART_OK) {
    return DART_ERR_INVAL;
  }
  char *own_block = (char *)recvbuf +
                   recvdispls[team->my_rank] * type->base_size;
  bool in_place = sendbuf == NULL || sendbuf == recvbuf ||
                  sendbuf == own_block;
  /* A single-unit team takes the local copy too: MPICH 4.0.2's
   * MPI_Allgatherv on one process ignores the displacement. */
  if (!fits_int || team->size == 1) {
    if (!in_place && nsendelem > 0) {
      memmove(own_block, sendbuf, nsendelem * type->base_size);
    }
    return allgatherv_by_bcast(__func__, team, type, recvbuf, nrecvelem,
                               recvdispls);
  }
  int *counts = malloc(2 * (size_t)team->size * sizeof(int));
  if (counts == NULL) {
    return report_error(DART_ERR_NOMEM, __func__, "out of memory");
  }
  int *displs = counts + team->size;
  for (int u = 0; u < team->size; ++u) {
    counts[u] = (int)nrecvelem[u];
    displs[u] = (int)recvdispls[u];
  }
  MPI_Request rq;
  int err = polled(MPI_Iallgatherv(in_place ? MPI_IN_PLACE : sendbuf,
                                   (int)nsendelem, type->mpi_base, recvbuf,
                                   counts, displs, type->mpi_base, team->comm,
                                   &rq), &rq);
  free(counts);
  return err == MPI_SUCCESS ? DART_OK
                            : report_mpi_error(__func__, "MPI_Allgatherv",
                                               err);
}

/* Reduces in chunks of at most the MPI count limit; `root` < 0 means all. */
static dart_ret_t reduce_chunked(const char *call, const struct team *team,
                                 const void *sendbuf, void *recvbuf,
                                 const struct reduction *red, int root)
{
  bool in_place = sendbuf == recvbuf;
  bool at_root = root < 0 || team->my_rank == root;
  size_t limit = mpi_count_limit();
  /* nelem agrees on all units, so a zero count skips on all of them. */
  for (size_t done = 0; done < red->count; done += limit) {
    size_t n = red->count - done < limit ? red->count - done : limit;
    size_t offset = done * red->elem_bytes;
    const void *src = in_place && at_root
                        ? MPI_IN_PLACE
                        : (const char *)sendbuf + offset;
    void *dst = at_root ? (char *)recvbuf + offset : NULL;
    MPI_Request rq;
    int err = polled(root < 0
                       ? MPI_Iallreduce(src, dst, (int)n, red->type, red->op,
                                        team->comm, &rq)
                       : MPI_Ireduce(src, dst, (int)n, red->type, red->op,
                                     root, team->comm, &rq), &rq);
    if (err != MPI_SUCCESS) {
      return report_mpi_error(call, root < 0 ? "MPI_Allreduce" : "MPI_Reduce",
                              err);
    }
  }
  return DART_OK;
}

/* Whether the reduced buffers fit (see check_count). */
static dart_ret_t check_reduction_count(const char *call,
                                        const struct reduction *red)
{
  size_t bytes;
  return datatype_check_bytes(call, "sendbuf/recvbuf", red->count,
                              red->elem_bytes, 1, &bytes);
}

/* Reductions that team_sync does not serve: teams across nodes, any
 * team under DART_SHM_SYNC=off, and more than TEAM_SYNC_MAX_BYTES.
 *
 * Members that disagree on count, type, op or root are an erroneous
 * program. MPI's reduction aborted on one (Open MPI 4.1) or wrote garbage
 * (MPICH 4.0). A single-node team compares the calls in its shared-memory
 * episode anyway (team_sync_reduce_elsewhere). Elsewhere a comparison
 * costs an exchange of the calls through MPI (struct reduction_call,
 * operation.h), so it is made under DART_CHECK_REDUCTIONS=on only; then
 * all members refuse together and the team goes on working. Measured
 * between the 2 hosts of scripts/cluster.sh (Open MPI, 1 unit each, two
 * runs), allreduce of 8 B / 256 B / 2 KiB: 11.5-12.0 / 11.6-12.0 /
 * 18.8-19.2 us unchecked, 11.8-12.0 / 12.0-12.6 / 33.8-36.4 us checked.
 *
 * The exchange carries small reductions with a predefined op on a basic
 * type (reduction_call_local), so they cost about as much as unchecked:
 * - teams of at most DART_REDUCE_GATHER_UNITS (8): an MPI_Iallgather of
 *   the calls, then every member reduces the contributions in unit order;
 * - larger teams: an MPI_Iallreduce of the calls with
 *   operation_agree_op, which compares and reduces on the way.
 * Anything else goes to MPI's reduction after the exchange.
 *
 * Unchecked, small allreductions of small teams are the same allgather
 * of the contributions alone (bitwise equal results everywhere, as
 * team_sync_reduce). Why: Open MPI 4.1's MPI_Iallreduce (libnbc) reduces
 * in a tree, ~20 us for 8 B between 2 hosts of scripts/cluster.sh where
 * MPI_Iallgather takes ~14 us (MPICH: 12.8 and 10.5 us). */

static bool exchanges_by_gather(const struct team *team)
{
  return team->size <= runtime.env.reduce_gather_units;
}

static dart_ret_t report_disagreement(const char *call,
                                      const struct team *team,
                                      const struct reduction_call *mine)
{
  return report_error(DART_ERR_INVAL, call,
                      "team %d: members disagree on the reduction; this "
                      "unit (%d) called it with %llu elements, %llu bytes, "
                      "type %lld, op %lld, root %lld",
                      (int)team->id, team->my_rank,
                      (unsigned long long)mine->words[0],
                      (unsigned long long)mine->words[1],
                      (long long)mine->words[2], (long long)mine->words[3],
                      (long long)mine->words[4]);
}

/* An MPI_Iallgather of every member's whole call (`with_words`) or of
 * its contribution alone (a local call of which all members agree);
 * then, where the words agree and the call is local, the result in
 * `recvbuf` (at the root, or everywhere). `*agree` says whether they do;
 * returns an MPI error code. */
static int exchange_by_gather(const struct team *team,
                              const struct reduction_call *mine,
                              bool with_words, void *recvbuf, int root,
                              bool *agree)
{
  size_t stride = with_words ? sizeof *mine : (size_t)mine->words[1];
  const void *send = with_words ? (const void *)mine
                                : (const void *)mine->data;
  char *all = malloc((size_t)team->size * stride);
  if (all == NULL) {
    return MPI_ERR_NO_MEM;
  }
  MPI_Request rq;
  int err = polled(MPI_Iallgather(send, (int)stride, MPI_BYTE, all,
                                  (int)stride, MPI_BYTE, team->comm, &rq),
                   &rq);
  *agree = err == MPI_SUCCESS;
  for (int u = 0; with_words && *agree && u < team->size; ++u) {
    *agree = memcmp(all + (size_t)u * stride, mine->words,
                    sizeof mine->words) == 0;
  }
  if (*agree && reduction_call_local(mine) &&
      (root < 0 || team->my_rank == root)) {
    size_t data = with_words ? offsetof(struct reduction_call, data) : 0;
    local_reduce_slots(recvbuf, all + data, stride, team->size,
                       (size_t)mine->words[0], (size_t)mine->words[1],
                       (dart_datatype_t)mine->words[2],
                       (dart_operation_t)mine->words[3]);
  }
  free(all);
  return err;
}

/* The exchange of a larger team, as exchange_by_gather with words. */
static int exchange_by_reduction(const struct team *team,
                                 const struct reduction_call *mine,
                                 void *recvbuf, int root, bool *agree)
{
  struct reduction_call result;
  MPI_Request rq;
  int err = polled(MPI_Iallreduce(mine, &result, 1, operation_call_type(),
                                  operation_agree_op(), team->comm, &rq),
                   &rq);
  *agree = err == MPI_SUCCESS && !result.disagree;
  if (*agree && reduction_call_local(mine) &&
      (root < 0 || team->my_rank == root)) {
    memcpy(recvbuf, result.data, (size_t)mine->words[1]);
  }
  return err;
}

/* Compares the calls by an exchange and reduces there where it can. */
static dart_ret_t reduce_checked(const char *call, const struct team *team,
                                 const void *sendbuf, void *recvbuf,
                                 const struct reduction *red, int root,
                                 const struct reduction_call *mine)
{
  bool agree = false;
  bool by_gather = exchanges_by_gather(team);
  int err = by_gather
              ? exchange_by_gather(team, mine, true, recvbuf, root, &agree)
              : exchange_by_reduction(team, mine, recvbuf, root, &agree);
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, by_gather ? "MPI_Iallgather (the calls)"
                                            : "MPI_Iallreduce (the calls)",
                            err);
  }
  if (!agree) {
    return report_disagreement(call, team, mine);
  }
  if (reduction_call_local(mine)) {
    return DART_OK;
  }
  return reduce_chunked(call, team, sendbuf, recvbuf, red, root);
}

/* Small reductions of single-node teams in shared memory; else through
 * MPI, checked or not (above). */
static dart_ret_t reduce(const char *call, struct team *team,
                         const void *sendbuf, void *recvbuf, size_t nelem,
                         dart_datatype_t dtype, dart_operation_t op,
                         const struct reduction *red, int root)
{
  size_t bytes = red->count * red->elem_bytes;
  if (team_sync_reduces(team, op, dtype, bytes)) {
    return team_sync_reduce(call, team, sendbuf, recvbuf, nelem, bytes,
                            dtype, op, root);
  }
  struct reduction_call mine;
  reduction_call_fill(&mine, sendbuf, nelem, bytes, dtype, op, root);
  /* In the episode: 2 KiB allreduce, 2 units, 4.0 us without the
   * comparison of the calls, 4.2 us with it. */
  bool compared = false;
  if (team_sync_reduce_elsewhere(call, team, root, mine.words,
                                 sizeof mine.words, &compared) != DART_OK) {
    return DART_ERR_INVAL;
  }
  if (!compared && runtime.env.check_reductions) {
    return reduce_checked(call, team, sendbuf, recvbuf, red, root, &mine);
  }
  if (root < 0 && reduction_call_local(&mine) && exchanges_by_gather(team)) {
    bool agree;
    int err = exchange_by_gather(team, &mine, false, recvbuf, root, &agree);
    return err == MPI_SUCCESS ? DART_OK
                              : report_mpi_error(call, "MPI_Iallgather", err);
  }
  return reduce_chunked(call, team, sendbuf, recvbuf, red, root);
}

dart_ret_t dart_allreduce(const void *sendbuf, void *recvbuf, size_t nelem,
                          dart_datatype_t dtype, dart_operation_t op,
                          dart_team_t teamid)
{
  REQUIRE_INIT();
  struct team *team = team_lookup_or_report(__func__, teamid);
  struct reduction red;
  if (team == NULL ||
      reduction_resolve(__func__, op, dtype, nelem, &red) != DART_OK ||
      check_reduction_count(__func__, &red) != DART_OK ||
      check_buffer(__func__, "sendbuf", sendbuf, nelem) != DART_OK ||
      check_buffer(__func__, "recvbuf", recvbuf, nelem) != DART_OK) {
    return DART_ERR_INVAL;
  }
  return reduce(__func__, team, sendbuf, recvbuf, nelem, dtype, op, &red, -1);
}

dart_ret_t dart_reduce(const void *sendbuf, void *recvbuf, size_t nelem,
                       dart_datatype_t dtype, dart_operation_t op,
                       dart_team_unit_t root, dart_team_t teamid)
{
  REQUIRE_INIT();
  struct team *team = team_lookup_or_report(__func__, teamid);
  struct reduction red;
  if (team == NULL || check_root(__func__, team, root) != DART_OK ||
      reduction_resolve(__func__, op, dtype, nelem, &red) != DART_OK ||
      check_reduction_count(__func__, &red) != DART_OK ||
      check_buffer(__func__, "sendbuf", sendbuf, nelem) != DART_OK ||
      (team->my_rank == root.id &&
       check_buffer(__func__, "recvbuf", recvbuf, nelem) != DART_OK)) {
    return DART_ERR_INVAL;
  }
  return reduce(__func__, team, sendbuf, recvbuf, nelem, dtype, op, &red,
                root.id);
}

dart_ret_t dart_alltoall(const void *sendbuf, void *recvbuf, size_t nelem,
                         dart_datatype_t dtype, dart_team_t teamid)
{
  REQUIRE_INIT();
  struct team *team = team_lookup_or_report(__func__, teamid);
  if (team == NULL) {
    return DART_ERR_INVAL;
  }
  if (!datatype_is_basic_id(dtype)) {
    return report_error(DART_ERR_INVAL, __func__,
                        "dart_alltoall needs a basic type, got %ld",
                        (long)dtype);
  }
  const struct datatype *type = datatype_get(dtype);
  if (check_count(__func__, "sendbuf/recvbuf", nelem, type,
                  (size_t)team->size) != DART_OK ||
      check_buffer(__func__, "recvbuf", recvbuf, nelem) != DART_OK) {
    return DART_ERR_INVAL;
  }
  bool in_place = sendbuf == NULL || sendbuf == recvbuf;
  MPI_Datatype elem = datatype_get(dtype)->mpi_base;
  MPI_Request rq;
  WITH_MPI_COUNT(__func__, nelem, elem, c, "MPI_Ialltoall",
                 polled(MPI_Ialltoall(in_place ? MPI_IN_PLACE : sendbuf,
                                      c.count, c.type, recvbuf, c.count,
                                      c.type, team->comm, &rq), &rq));
  return DART_OK;
}
