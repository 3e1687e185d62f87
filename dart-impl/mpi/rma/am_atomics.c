/* Atomics applied by the target unit (see the header). */
#include "mpi/rma/am_atomics.h"
#include "base/basic_types.h"
#include "base/cpu_atomics.h"
#include "mpi/core/progress.h"
#include "mpi/core/runtime.h"
#include "mpi/model/target.h"
#include "mpi/model/team.h"

#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum am_kind { AM_ACCUMULATE = 1, AM_FETCH_AND_OP, AM_COMPARE_AND_SWAP };

/* Tags on the module's own communicator; replies to fetching requests
 * take the tags from TAG_FIRST_REPLY up, one per request in flight. */
enum { TAG_REQUEST = 1, TAG_ACK = 2, TAG_FIRST_REPLY = 3 };

/* Fixed-width, so that both ends read it alike whatever their compiler.
 * An accumulate is followed by `count` offsets when `scattered`, then by
 * `count` operands; a fetch-and-op by one operand, a compare-and-swap by
 * the new value and the value compared. */
struct am_request {
  uint8_t  kind;
  uint8_t  dtype;
  uint8_t  op;
  uint8_t  scattered;
  int32_t  reply_tag;
  int16_t  teamid;
  int16_t  segid;
  int32_t  unit;   /* the target, relative to the team */
  uint64_t offset; /* contiguous accumulate, fetch, swap: bytes into the
                      target's portion */
  uint64_t count;
};

/* A reply to a fetching request (status 0: `value` holds the old
 * value), or an acknowledgement (status only). */
struct am_reply {
  int32_t       status;
  int32_t       unused;
  unsigned char value[8]; /* every type with CPU atomics fits */
};

/* Elements per accumulate message: keeps any message far below MPI's
 * int count and the receiver's buffer small. */
#define CHUNK_ELEMENTS 65536
/* The inbox's size from the start: any fetching request fits, so only
 * an accumulate can meet a failed enlargement (serve). */
#define INBOX_BYTES 4096

static bool     active;
static bool     holds_thread; /* the progress thread (core/progress.h) */
static MPI_Comm comm = MPI_COMM_NULL;
static int      units;
/* Requests sent to each unit of DART_TEAM_ALL that wait for an
 * acknowledgement, the acknowledgements received, and the first refusal
 * since the last completion. */
static atomic_ulong *sent;
static atomic_ulong *acked;
static atomic_int   *refused;
static atomic_uint   next_reply_tag;

/* The serving side: one thread at a time (serve_lock), which keeps the
 * issue order of each origin. */
static pthread_mutex_t serve_lock = PTHREAD_MUTEX_INITIALIZER;
static char           *inbox;
static size_t          inbox_size;
/* Replies on their way out: requests and their buffers. */
static MPI_Request     *outgoing;
static struct am_reply **outgoing_bufs;
static int              noutgoing, outgoing_cap;

bool am_atomics_active(void) { return active; }

/* --- the target's side --- */

/* Tests the replies on their way out and forgets the finished ones.
 * Called with serve_lock held. */
static void reap_replies(void)
{
  int kept = 0;
  for (int i = 0; i < noutgoing; ++i) {
    int done = 0;
    MPI_Test(&outgoing[i], &done, MPI_STATUS_IGNORE);
    if (done) {
      free(outgoing_bufs[i]);
      continue;
    }
    outgoing[kept] = outgoing[i];
    outgoing_bufs[kept] = outgoing_bufs[i];
    ++kept;
  }
  noutgoing = kept;
}

/* Sends `reply` to `dest` with `tag` without waiting. Called with
 * serve_lock held. */
static void send_reply(const struct am_reply *reply, int dest, int tag)
{
  if (noutgoing == outgoing_cap) {
    int cap = outgoing_cap == 0 ? 16 : 2 * outgoing_cap;
    MPI_Request *r = realloc(outgoing, (size_t)cap * sizeof *r);
    if (r != NULL) {
      outgoing = r;
    }
    struct am_reply **b = realloc(outgoing_bufs, (size_t)cap * sizeof *b);
    if (b != NULL) {
      outgoing_bufs = b;
    }
    if (r == NULL || b == NULL) {
      /* Out of memory: a blocking send of these few bytes, which MPI
       * delivers eagerly. */
      MPI_Send(reply, (int)sizeof *reply, MPI_BYTE, dest, tag, comm);
      return;
    }
    outgoing_cap = cap;
  }
  struct am_reply *copy = malloc(sizeof *copy);
  if (copy == NULL) {
    MPI_Send(reply, (int)sizeof *reply, MPI_BYTE, dest, tag, comm);
    return;
  }
  *copy = *reply;
  if (MPI_Isend(copy, (int)sizeof *copy, MPI_BYTE, dest, tag, comm,
                &outgoing[noutgoing]) != MPI_SUCCESS) {
    free(copy);
    return;
  }
  outgoing_bufs[noutgoing++] = copy;
}

/* The address of `bytes` at `offset` of this unit's portion of the
 * request's segment, checked as the origin checked it (the segment may
 * have gone since, or the origin may run another program); NULL with a
 * log line if it does not resolve or is misaligned for `elem`. */
static char *resolve_here(const struct am_request *rq, int origin,
                          uint64_t offset, size_t bytes, size_t elem)
{
  const char *call = "serving atomics of another node";
  dart_gptr_t gptr = DART_GPTR_NULL;
  gptr.teamid = rq->teamid;
  gptr.segid = rq->segid;
  gptr.unitid = rq->unit;
  gptr.addr_or_offs.offset = offset;
  struct team *team = team_lookup(rq->teamid);
  struct target t = { 0 };
  if (team == NULL || rq->unit != team->my_rank) {
    report_error(DART_ERR_INVAL, call, "unit %d sent atomics for unit %d "
                 "of team %d, which this unit is not", origin,
                 (int)rq->unit, (int)rq->teamid);
    return NULL;
  }
  if (target_resolve(call, gptr, bytes, &t) != DART_OK) {
    return NULL;
  }
  char *at = t.direct != NULL ? t.direct : t.segment->my_base + offset;
  if ((uintptr_t)at % elem != 0) {
    report_error(DART_ERR_INVAL, call, "unit %d sent an atomic at offset "
                 "%llu, not aligned to its %zu-byte type", origin,
                 (unsigned long long)offset, elem);
    return NULL;
  }
  return at;
}

/* Applies one request of `len` bytes from `origin`; returns its status
 * (0 or a dart_ret_t) and, for a fetching request, the old value. */
static int32_t apply(const char *msg, size_t len, int origin,
                     const struct am_request *rq, unsigned char *old)
{
  const char *call = "serving atomics of another node";
  dart_datatype_t dtype = (dart_datatype_t)rq->dtype;
  dart_operation_t op = (dart_operation_t)rq->op;
  if (dtype >= DART_TYPE_LAST || !cpu_atomic_supported(dtype) ||
      !basic_op_applies(op, dtype, true)) {
    return report_error(DART_ERR_INVAL, call, "unit %d sent operation %d "
                        "on type %d", origin, (int)op, (int)dtype);
  }
  size_t elem = basic_type_size(dtype);
  const char *body = msg + sizeof *rq;
  size_t body_len = len - sizeof *rq;
  switch (rq->kind) {
  case AM_ACCUMULATE: {
    size_t per = rq->scattered ? sizeof(uint64_t) + elem : elem;
    if (rq->count > CHUNK_ELEMENTS || body_len != rq->count * per) {
      break;
    }
    if (!rq->scattered) {
      char *at = resolve_here(rq, origin, rq->offset, rq->count * elem,
                              elem);
      if (at == NULL) {
        return DART_ERR_INVAL;
      }
      cpu_atomic_accumulate(at, body, rq->count, dtype, op);
      return 0;
    }
    const char *values = body + rq->count * sizeof(uint64_t);
    int32_t status = 0;
    for (uint64_t i = 0; i < rq->count; ++i) {
      uint64_t offset;
      memcpy(&offset, body + i * sizeof offset, sizeof offset);
      char *at = resolve_here(rq, origin, offset, elem, elem);
      if (at == NULL) {
        status = DART_ERR_INVAL;
        continue;
      }
      cpu_atomic_accumulate(at, values + i * elem, 1, dtype, op);
    }
    return status;
  }
  case AM_FETCH_AND_OP:
  case AM_COMPARE_AND_SWAP: {
    size_t operands = rq->kind == AM_FETCH_AND_OP ? 1 : 2;
    if (body_len != operands * elem ||
        (rq->kind == AM_COMPARE_AND_SWAP && !basic_type_is_integral(dtype))) {
      break;
    }
    char *at = resolve_here(rq, origin, rq->offset, elem, elem);
    if (at == NULL) {
      return DART_ERR_INVAL;
    }
    if (rq->kind == AM_FETCH_AND_OP) {
      cpu_atomic_fetch_and_op(at, body, old, dtype, op);
    } else {
      cpu_atomic_compare_and_swap(at, body, body + elem, old, dtype);
    }
    return 0;
  }
  default:
    break;
  }
  return report_error(DART_ERR_INVAL, call, "unit %d sent a malformed "
                      "request (kind %d, %zu bytes)", origin, (int)rq->kind,
                      len);
}

/* Whether a message with `tag` has arrived; then it is matched to
 * `message` alone (MPI_Improbe: no other thread can take it). */
static bool arrived(int tag, MPI_Message *message, MPI_Status *status)
{
  int found = 0;
  return MPI_Improbe(MPI_ANY_SOURCE, tag, comm, &found, message, status) ==
             MPI_SUCCESS &&
         found;
}

/* Receives and applies the requests that have arrived, answering each.
 * Returns at once while another thread serves. */
static void serve(void)
{
  if (pthread_mutex_trylock(&serve_lock) != 0) {
    return;
  }
  reap_replies();
  MPI_Message message;
  MPI_Status status;
  while (arrived(TAG_REQUEST, &message, &status)) {
    int len = 0;
    MPI_Get_count(&status, MPI_BYTE, &len);
    if ((size_t)len > inbox_size) {
      char *bigger = realloc(inbox, (size_t)len);
      if (bigger == NULL) {
        /* Only accumulates outgrow the inbox's first size (INBOX_BYTES),
         * so the acknowledgement is the answer the origin waits for:
         * take the message into nothing and refuse it. */
        MPI_Mrecv(NULL, 0, MPI_BYTE, &message, MPI_STATUS_IGNORE);
        struct am_reply no = { .status = DART_ERR_OTHER };
        send_reply(&no, status.MPI_SOURCE, TAG_ACK);
        continue;
      }
      inbox = bigger;
      inbox_size = (size_t)len;
    }
    MPI_Mrecv(inbox, len, MPI_BYTE, &message, MPI_STATUS_IGNORE);
    struct am_request rq;
    struct am_reply reply = { 0 };
    if ((size_t)len < sizeof rq) {
      reply.status = report_error(DART_ERR_INVAL, "serving atomics of "
                                  "another node", "unit %d sent a request "
                                  "of %d bytes", status.MPI_SOURCE, len);
      send_reply(&reply, status.MPI_SOURCE, TAG_ACK);
      continue;
    }
    memcpy(&rq, inbox, sizeof rq);
    reply.status = apply(inbox, (size_t)len, status.MPI_SOURCE, &rq,
                         reply.value);
    bool fetching = rq.kind == AM_FETCH_AND_OP ||
                    rq.kind == AM_COMPARE_AND_SWAP;
    send_reply(&reply, status.MPI_SOURCE,
               fetching ? rq.reply_tag : TAG_ACK);
  }
  pthread_mutex_unlock(&serve_lock);
}

/* Takes in the acknowledgements that have arrived (any thread). */
static void receive_acks(void)
{
  MPI_Message message;
  MPI_Status status;
  while (arrived(TAG_ACK, &message, &status)) {
    struct am_reply ack;
    MPI_Mrecv(&ack, (int)sizeof ack, MPI_BYTE, &message, MPI_STATUS_IGNORE);
    int src = status.MPI_SOURCE;
    if (ack.status != 0) {
      int none = 0;
      atomic_compare_exchange_strong(&refused[src], &none, ack.status);
    }
    atomic_fetch_add_explicit(&acked[src], 1, memory_order_release);
  }
}

static bool hook_needed(void) { return active; }

static void hook_poll(void)
{
  serve();
  receive_acks();
}

static const struct progress_hook hook = {
  .needed = hook_needed,
  .poll = hook_poll,
  /* Two MPI_Improbe when nothing came: at every test, since a fetching
   * atomic's origin waits for the reply. */
  .every = 1,
};

/* --- the origin's side --- */

/* An origin's wait for global unit `unit` to serve it. */
struct stall_watch {
  const char           *call;
  int                   unit;
  struct progress_stall stall;
};

static void watch_stall(struct stall_watch *w)
{
  long long waited_ms;
  if (progress_stalled(&w->stall, &waited_ms)) {
    LOG_WARN(w->call, "waited %lld ms for unit %d to apply atomics sent "
             "to it by message: it does so only inside DART calls, or "
             "with DART_PROGRESS_THREAD=on under dart_init_thread (a unit "
             "in a long computation or in MPI calls of the program's own "
             "serves nothing: flush and dart_barrier before them)",
             waited_ms, w->unit);
  }
}

/* One round of an origin's wait: serves requests and takes in
 * acknowledgements at once, polls the other services as a wait in
 * core/progress.c would (every 64 rounds; a lock's poll costs an MPI
 * atomic), and yields now and then: the target may share this core. */
static void keep_going(unsigned round, struct stall_watch *w)
{
  hook_poll();
  if (round % 64 == 0) {
    progress_poll();
  }
  if (round % 16 == 0) {
    sched_yield(); /* which may take a time slice: the clock too */
    watch_stall(w);
  }
}

/* Completes `n` requests to or from global unit `unit` while serving
 * others (and every other service that waits need, core/progress.h):
 * this unit's target may be waiting for this unit in turn. */
static int wait_serving(const char *call, int unit, int n,
                        MPI_Request *requests)
{
  struct stall_watch watch = {
    .call = call, .unit = unit, .stall.since_ns = progress_clock_ns(),
  };
  for (unsigned round = 1;; ++round) {
    /* One MPI_Test each (a completed request becomes MPI_REQUEST_NULL,
     * which tests as done): MPICH's MPI_Testall, with a status array
     * argument annotated for GCC, fails the build with
     * MPI_STATUSES_IGNORE. */
    int all = 1, err = MPI_SUCCESS;
    for (int i = 0; i < n && err == MPI_SUCCESS; ++i) {
      int done = 0;
      err = MPI_Test(&requests[i], &done, MPI_STATUS_IGNORE);
      all &= done;
    }
    if (err != MPI_SUCCESS || all) {
      return err;
    }
    keep_going(round, &watch);
  }
}

static int next_tag(void)
{
  unsigned span = (unsigned)(runtime.tag_ub - TAG_FIRST_REPLY);
  return TAG_FIRST_REPLY +
         (int)(atomic_fetch_add(&next_reply_tag, 1) % span);
}

static dart_ret_t check_open(const char *call)
{
  return active ? DART_OK
                : report_error(DART_ERR_OTHER, call, "atomics by message "
                               "are off (DART_REMOTE_ATOMICS)");
}

dart_ret_t am_accumulate(const char *call, const struct team *team,
                         int16_t segid, int unit, const uint64_t *offsets,
                         uint64_t offset, const void *values, size_t count,
                         dart_datatype_t dtype, dart_operation_t op)
{
  if (check_open(call) != DART_OK) {
    return DART_ERR_OTHER;
  }
  size_t elem = basic_type_size(dtype);
  size_t per = (offsets != NULL ? sizeof(uint64_t) : 0) + elem;
  size_t chunk = count < CHUNK_ELEMENTS ? count : CHUNK_ELEMENTS;
  char *msg = malloc(sizeof(struct am_request) + chunk * per);
  if (msg == NULL) {
    return report_error(DART_ERR_OTHER, call, "out of memory for a "
                        "message of %zu atomics", chunk);
  }
  int dest = team->global_of[unit];
  int err = MPI_SUCCESS;
  for (size_t done = 0; done < count && err == MPI_SUCCESS; done += chunk) {
    size_t n = count - done < chunk ? count - done : chunk;
    struct am_request rq = {
      .kind = AM_ACCUMULATE, .dtype = (uint8_t)dtype, .op = (uint8_t)op,
      .scattered = offsets != NULL, .teamid = team->id, .segid = segid,
      .unit = unit, .offset = offset + done * elem, .count = n,
    };
    char *body = msg + sizeof rq;
    memcpy(msg, &rq, sizeof rq);
    if (offsets != NULL) {
      memcpy(body, offsets + done, n * sizeof *offsets);
      body += n * sizeof *offsets;
    }
    memcpy(body, (const char *)values + done * elem, n * elem);
    MPI_Request request;
    err = MPI_Isend(msg, (int)(sizeof rq + n * per), MPI_BYTE, dest,
                    TAG_REQUEST, comm, &request);
    if (err == MPI_SUCCESS) {
      atomic_fetch_add_explicit(&sent[dest], 1, memory_order_relaxed);
      err = wait_serving(call, dest, 1, &request);
    }
  }
  free(msg);
  return err == MPI_SUCCESS ? DART_OK
                            : report_mpi_error(call, "MPI_Isend", err);
}

/* One fetching request and its reply. */
static dart_ret_t fetch(const char *call, const struct team *team,
                        struct am_request *rq, const void *operands,
                        size_t operand_bytes, void *result)
{
  if (check_open(call) != DART_OK) {
    return DART_ERR_OTHER;
  }
  size_t elem = basic_type_size((dart_datatype_t)rq->dtype);
  unsigned char msg[sizeof *rq + 16];
  rq->teamid = team->id;
  rq->reply_tag = next_tag();
  memcpy(msg, rq, sizeof *rq);
  memcpy(msg + sizeof *rq, operands, operand_bytes);
  int dest = team->global_of[rq->unit];
  struct am_reply reply;
  MPI_Request requests[2];
  int err = MPI_Irecv(&reply, (int)sizeof reply, MPI_BYTE, dest,
                      rq->reply_tag, comm, &requests[0]);
  if (err == MPI_SUCCESS) {
    err = MPI_Isend(msg, (int)(sizeof *rq + operand_bytes), MPI_BYTE, dest,
                    TAG_REQUEST, comm, &requests[1]);
    if (err != MPI_SUCCESS) {
      MPI_Cancel(&requests[0]);
      MPI_Request_free(&requests[0]);
    }
  }
  if (err == MPI_SUCCESS) {
    err = wait_serving(call, dest, 2, requests);
  }
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Isend", err);
  }
  if (reply.status != 0) {
    return report_error(DART_ERR_INVAL, call, "unit %d refused the atomic "
                        "(its log says why)", dest);
  }
  memcpy(result, reply.value, elem);
  return DART_OK;
}

dart_ret_t am_fetch_and_op(const char *call, const struct team *team,
                           int16_t segid, int unit, uint64_t offset,
                           const void *value, void *result,
                           dart_datatype_t dtype, dart_operation_t op)
{
  struct am_request rq = {
    .kind = AM_FETCH_AND_OP, .dtype = (uint8_t)dtype, .op = (uint8_t)op,
    .segid = segid, .unit = unit, .offset = offset, .count = 1,
  };
  return fetch(call, team, &rq, value, basic_type_size(dtype), result);
}

dart_ret_t am_compare_and_swap(const char *call, const struct team *team,
                               int16_t segid, int unit, uint64_t offset,
                               const void *value, const void *compare,
                               void *result, dart_datatype_t dtype)
{
  size_t elem = basic_type_size(dtype);
  unsigned char operands[16];
  memcpy(operands, value, elem);
  memcpy(operands + elem, compare, elem);
  struct am_request rq = {
    .kind = AM_COMPARE_AND_SWAP, .dtype = (uint8_t)dtype,
    .op = (uint8_t)DART_OP_REPLACE, .segid = segid, .unit = unit,
    .offset = offset, .count = 1,
  };
  return fetch(call, team, &rq, operands, 2 * elem, result);
}

/* Waits for the acknowledgements of everything sent to global unit `g`
 * before the call. */
static dart_ret_t complete_global(const char *call, int g)
{
  unsigned long goal = atomic_load_explicit(&sent[g], memory_order_relaxed);
  if (atomic_load_explicit(&acked[g], memory_order_acquire) < goal) {
    /* The clock only where there is a wait: a flush of a whole team
     * asks every unit. */
    struct stall_watch watch = {
      .call = call, .unit = g, .stall.since_ns = progress_clock_ns(),
    };
    for (unsigned round = 1;
         atomic_load_explicit(&acked[g], memory_order_acquire) < goal;
         ++round) {
      keep_going(round, &watch);
    }
  }
  int status = atomic_exchange(&refused[g], 0);
  if (status != 0) {
    return report_error((dart_ret_t)status, call, "unit %d refused "
                        "accumulates sent to it (its log says why)", g);
  }
  return DART_OK;
}

dart_ret_t am_atomics_complete(const char *call, const struct team *team,
                               int unit)
{
  if (!active) {
    return DART_OK;
  }
  if (unit >= 0) {
    return complete_global(call, team->global_of[unit]);
  }
  dart_ret_t ret = DART_OK;
  for (int u = 0; u < team->size; ++u) {
    dart_ret_t r = complete_global(call, team->global_of[u]);
    ret = ret == DART_OK ? r : ret;
  }
  return ret;
}

dart_ret_t am_atomics_quiesce(const char *call)
{
  dart_ret_t ret = DART_OK;
  for (int g = 0; active && g < units; ++g) {
    dart_ret_t r = complete_global(call, g);
    ret = ret == DART_OK ? r : ret;
  }
  return ret;
}

/* --- set-up --- */

dart_ret_t am_atomics_init(const char *call, const struct team *all)
{
  active = false;
  if (runtime.env.remote_atomics != REMOTE_ATOMICS_MESSAGE ||
      all->num_nodes < 2) {
    return DART_OK; /* every team lives on one node: CPU atomics */
  }
  units = all->size;
  sent = calloc((size_t)units, sizeof *sent);
  acked = calloc((size_t)units, sizeof *acked);
  refused = calloc((size_t)units, sizeof *refused);
  inbox = malloc(INBOX_BYTES);
  inbox_size = inbox != NULL ? INBOX_BYTES : 0;
  int ok = sent != NULL && acked != NULL && refused != NULL &&
           inbox != NULL, all_ok = 0;
  int err = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, all->comm);
  if (err == MPI_SUCCESS && all_ok) {
    err = MPI_Comm_dup(all->comm, &comm);
  }
  if (err != MPI_SUCCESS || !all_ok) {
    am_atomics_finalize();
    return err != MPI_SUCCESS
               ? report_mpi_error(call, "MPI_Comm_dup", err)
               : report_error(DART_ERR_OTHER, call, "out of memory for the "
                              "atomics of other nodes");
  }
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  atomic_store(&next_reply_tag, 0);
  active = true;
  progress_add_hook(&hook);
  /* Where DART_PROGRESS_THREAD=on, it serves while this unit computes
   * or blocks in MPI calls of its own. */
  progress_thread_hold(call);
  holds_thread = true;
  LOG_DEBUG(call, "atomics across nodes go by message to the target unit");
  return DART_OK;
}

void am_atomics_finalize(void)
{
  if (holds_thread) {
    progress_thread_release();
    holds_thread = false;
  }
  active = false; /* the hook has nothing more to do */
  pthread_mutex_lock(&serve_lock);
  for (int i = 0; i < noutgoing; ++i) {
    MPI_Wait(&outgoing[i], MPI_STATUS_IGNORE);
    free(outgoing_bufs[i]);
  }
  free(outgoing);
  free(outgoing_bufs);
  outgoing = NULL;
  outgoing_bufs = NULL;
  noutgoing = outgoing_cap = 0;
  free(inbox);
  inbox = NULL;
  inbox_size = 0;
  pthread_mutex_unlock(&serve_lock);
  if (comm != MPI_COMM_NULL) {
    MPI_Comm_free(&comm);
  }
  free(sent);
  free(acked);
  free(refused);
  sent = acked = NULL;
  refused = NULL;
  units = 0;
}
