/* Barrier and small reductions of a single-node team in shared memory.
 *
 * The block (allocated by node rank 0, mapped by all members):
 *   arrive[u]  one 64-byte line per unit: how many synchronisation
 *              episodes unit u has entered (monotonic, never wraps);
 *   slots[p][u] TEAM_SYNC_MAX_BYTES per unit and parity p = reduction
 *              count mod 2: unit u's contribution; its call word (count,
 *              type, op, root) sits in u's arrival line, call[p].
 * An episode: unit u bumps its own epoch with a release store, then
 * waits (acquire loads) until every other unit's epoch has reached its
 * own. Everything u wrote before the release is then visible to every
 * unit that saw the new epoch; a unit running ahead into the next
 * episode only raises its epoch further, which still satisfies a peer
 * that waits for the previous one. Each unit writes only its own line,
 * so arrivals do not contend. */
#include "mpi/collective/team_sync.h"
#include "base/cache_line.h"
#include "mpi/core/progress.h"
#include "mpi/core/runtime.h"
#include "mpi/memory/node_shm.h"
#include "mpi/model/local_reduce.h"
#include "mpi/model/team.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


/* The call words ride in the line every peer loads anyway while it waits
 * for the epoch: comparing them costs no extra cache miss. */
struct arrival {
  _Atomic uint64_t epoch;
  _Atomic uint64_t call[2];
  char pad[CACHE_LINE - 3 * sizeof(uint64_t)];
};
_Static_assert(sizeof(struct arrival) == CACHE_LINE, "an arrival is one line");
_Static_assert(TEAM_SYNC_MAX_BYTES % CACHE_LINE == 0, "slots start on lines");

struct team_sync {
  struct node_shm shm;        /* holds the block below */
  struct arrival *arrive;     /* [size] */
  char           *slots;      /* [2][size][TEAM_SYNC_MAX_BYTES] */
  uint64_t        epoch;      /* episodes this unit entered */
  uint64_t        reductions; /* reductions this unit entered */
};

/* Waiting backs off in three stages, by time spent: pause-spin first, long
 * enough to ride out a peer's short delay (a yield on a loaded core hands
 * it to another process for a whole time slice), then yield the core
 * (oversubscribed runs), then sleep (a peer busy for long). Past the
 * first polls it enters MPI now and then: MPICH's RMA progresses only
 * when the target does, and a peer may be in a flush that waits for this
 * unit. */
enum {
  CHECK_EVERY = 64,     /* polls between clock reads and MPI probes */
  SPIN_NS     = 50000,
  YIELD_NS    = 1000000,
  SLEEP_NS    = 20000
};

struct waiter {
  unsigned long polls;
  long long     start_ns;
  long long     waited_ns;
};

static inline void cpu_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#else
  atomic_signal_fence(memory_order_seq_cst);
#endif
}

static long long now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void back_off(struct waiter *w, MPI_Comm comm)
{
  unsigned long p = w->polls++;
  if (p % CHECK_EVERY == CHECK_EVERY - 1 ||
      (w->waited_ns >= SPIN_NS && p % 8 == 0)) {
    long long t = now_ns();
    if (w->start_ns == 0) {
      w->start_ns = t;
    }
    w->waited_ns = t - w->start_ns;
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, MPI_STATUS_IGNORE);
    /* A lock homed here may be what a late member waits for. */
    progress_poll();
  }
  if (w->waited_ns < SPIN_NS) {
    cpu_pause();
  } else if (w->waited_ns < YIELD_NS) {
    sched_yield();
  } else {
    struct timespec pause = { 0, SLEEP_NS };
    nanosleep(&pause, NULL);
  }
}

/* One episode: arrive, then wait for every other member to arrive. */
static void arrive_and_wait(struct team *team)
{
  struct team_sync *s = team->sync;
  uint64_t epoch = ++s->epoch;
  atomic_store_explicit(&s->arrive[team->my_rank].epoch, epoch,
                        memory_order_release);
  struct waiter w = { 0, 0, 0 };
  for (int u = 0; u < team->size; ++u) {
    while (atomic_load_explicit(&s->arrive[u].epoch, memory_order_acquire) <
           epoch) {
      back_off(&w, team->comm);
    }
  }
}

static size_t block_bytes(int size)
{
  return (size_t)size * sizeof(struct arrival) +
         2 * (size_t)size * TEAM_SYNC_MAX_BYTES;
}

dart_ret_t team_sync_create(const char *call, struct team *team)
{
  team->sync = NULL;
  /* Every input is equal on all members (environment, node structure),
   * so they all take the same branch. */
  if (!runtime.env.shm_sync || team->num_nodes != 1 || team->size < 2 ||
      team->node_size != team->size) {
    return DART_OK;
  }
  struct team_sync *s = calloc(1, sizeof *s);
  /* Node rank 0 provides everything. */
  size_t bytes = team->node_rank == 0 ? block_bytes(team->size) : 0;
  struct node_shm shm;
  bool mapped = node_shm_alloc(call, team->node_comm, bytes, &shm) == DART_OK;
  char *base = mapped ? shm.bases[0] : NULL;
  if (base != NULL && team->node_rank == 0) {
    memset(base, 0, block_bytes(team->size));
  }
  /* Agrees on success; also orders the zeroing before any use. */
  int ok = s != NULL && base != NULL;
  int all_ok = 0;
  MPI_Request request;
  int agree = progress_complete(MPI_Iallreduce(&ok, &all_ok, 1, MPI_INT,
                                               MPI_MIN, team->comm, &request),
                                &request);
  if (agree != MPI_SUCCESS || !all_ok) {
    if (mapped) {
      node_shm_free(&shm, team->node_size);
    }
    free(s);
    if (agree != MPI_SUCCESS) {
      return report_mpi_error(call, "MPI_Iallreduce", agree);
    }
    LOG_WARN(call, "team %d: no shared block for barrier and reductions "
             "(%s), using MPI's", (int)team->id,
             mapped ? "out of memory" : "no node-shared memory");
    return DART_OK;
  }
  s->shm = shm;
  s->arrive = (struct arrival *)base;
  s->slots = base + (size_t)team->size * sizeof(struct arrival);
  team->sync = s;
  return DART_OK;
}

void team_sync_free(struct team *team)
{
  struct team_sync *s = team->sync;
  if (s == NULL) {
    return;
  }
  node_shm_free(&s->shm, team->node_size);
  free(s);
  team->sync = NULL;
}

int team_sync_barrier(struct team *team)
{
  arrive_and_wait(team);
  return MPI_SUCCESS;
}

bool team_sync_reduces(const struct team *team, dart_operation_t op,
                       dart_datatype_t type, size_t bytes)
{
  return team->sync != NULL && bytes > 0 && bytes <= TEAM_SYNC_MAX_BYTES &&
         local_reduce_supports(op, type);
}

/* One word says what a unit called. Through shared memory: the count
 * (at most TEAM_SYNC_MAX_BYTES, one byte per element at least), the
 * basic type, the predefined op and root + 1 (0: dart_allreduce). Through
 * MPI: CALL_BY_MPI and root + 1 only, because equal calls may name their
 * derived types and their own ops by different handles on each unit. */
_Static_assert(TEAM_SYNC_MAX_BYTES < 1 << 16, "the count takes 16 bits");
_Static_assert(DART_TYPE_LAST <= 1 << 8 && DART_OP_LAST <= 1 << 8,
               "type and op take 8 bits each");
#define CALL_BY_MPI ((uint64_t)1 << 63)

static uint64_t call_word(size_t nelem, dart_datatype_t type,
                          dart_operation_t op, int root)
{
  return (uint64_t)nelem | (uint64_t)type << 16 | (uint64_t)op << 24 |
         (uint64_t)(uint32_t)(root + 1) << 32;
}

/* The call a word describes, for the log; `buf` holds any of them. */
static void call_text(char *buf, size_t size, uint64_t word)
{
  int root = (int)(uint32_t)(word >> 32 & ~(CALL_BY_MPI >> 32)) - 1;
  char to[32] = "";
  if (root >= 0) {
    snprintf(to, sizeof to, " to unit %d", root);
  }
  const char *name = root < 0 ? "dart_allreduce" : "dart_reduce";
  if (word & CALL_BY_MPI) {
    snprintf(buf, size, "%s%s of more than %d bytes or of a type or op of "
             "its own (through MPI)", name, to, TEAM_SYNC_MAX_BYTES);
  } else {
    snprintf(buf, size, "%s%s of %u elements of type %u with op %u", name,
             to, (unsigned)(word & 0xffff), (unsigned)(word >> 16 & 0xff),
             (unsigned)(word >> 24 & 0xff));
  }
}

/* The slots of every member for reductions of `parity`. */
static char *parity_slots(const struct team *team, unsigned parity)
{
  return team->sync->slots +
         parity * (size_t)team->size * TEAM_SYNC_MAX_BYTES;
}

/* Publishes my call word of the next reduction, waits for every member
 * and compares every word with unit 0's; the parity used, or -1 after a
 * mismatch (logged on behalf of `call`). Every unit sees the same words,
 * so all come to the same verdict. The episode and the reduction count
 * advance on all, so the team stays usable after a refusal.
 *
 * Why two parities suffice: a unit writes its slot and call word of
 * reduction k+2 only after the episode of reduction k+1 completed, i.e.
 * after every member arrived there, and each arrives only once it has
 * finished reading the slots and words of reduction k. Reduction k+1
 * uses the other parity. */
static int agree_on_call(const char *call, struct team *team,
                         const void *sendbuf, size_t bytes, uint64_t word)
{
  struct team_sync *s = team->sync;
  unsigned parity = (unsigned)(s->reductions++ & 1);
  if (bytes > 0) {
    memcpy(parity_slots(team, parity) +
             (size_t)team->my_rank * TEAM_SYNC_MAX_BYTES,
           sendbuf, bytes);
  }
  atomic_store_explicit(&s->arrive[team->my_rank].call[parity], word,
                        memory_order_relaxed);
  arrive_and_wait(team);
  uint64_t first = atomic_load_explicit(&s->arrive[0].call[parity],
                                        memory_order_relaxed);
  for (int u = 1; u < team->size; ++u) {
    uint64_t theirs = atomic_load_explicit(&s->arrive[u].call[parity],
                                           memory_order_relaxed);
    if (theirs != first) {
      char text[128], unit0[128];
      call_text(text, sizeof text, theirs);
      call_text(unit0, sizeof unit0, first);
      report_error(DART_ERR_INVAL, call,
                   "team %d: members disagree: unit %d called %s, unit 0 %s",
                   (int)team->id, u, text, unit0);
      return -1;
    }
  }
  return (int)parity;
}

/* Members that disagree on the call would read stale or partial slots:
 * agree_on_call makes all of them refuse instead. */
dart_ret_t team_sync_reduce(const char *call, struct team *team,
                            const void *sendbuf, void *recvbuf, size_t nelem,
                            size_t bytes, dart_datatype_t type,
                            dart_operation_t op, int root)
{
  int parity = agree_on_call(call, team, sendbuf, bytes,
                             call_word(nelem, type, op, root));
  if (parity < 0) {
    return DART_ERR_INVAL;
  }
  if (root < 0 || root == team->my_rank) {
    /* Same order (unit 0, 1, ...) on every unit: bitwise equal results,
     * floating point included. */
    local_reduce_slots(recvbuf, parity_slots(team, (unsigned)parity),
                       TEAM_SYNC_MAX_BYTES, team->size, nelem, bytes, type,
                       op);
  }
  return DART_OK;
}

/* A member whose call goes to MPI while another's goes through shared
 * memory (a count on either side of TEAM_SYNC_MAX_BYTES) would wait in
 * MPI for ever while the other waits in the episode: both take part in
 * the episode first. It costs one episode next to MPI's reduction of
 * more than TEAM_SYNC_MAX_BYTES. */
dart_ret_t team_sync_reduce_elsewhere(const char *call, struct team *team,
                                      int root, const void *record,
                                      size_t bytes, bool *compared)
{
  *compared = false;
  if (team->sync == NULL) {
    return DART_OK;
  }
  uint64_t word = CALL_BY_MPI | (uint64_t)(uint32_t)(root + 1) << 32;
  int parity = agree_on_call(call, team, record, bytes, word);
  if (parity < 0) {
    return DART_ERR_INVAL;
  }
  /* The records sit in the slots, readable until the next episode of
   * this parity (agree_on_call); every member compares all of them with
   * unit 0's, so all come to the same verdict. */
  const char *slots = parity_slots(team, (unsigned)parity);
  for (int u = 1; u < team->size; ++u) {
    if (memcmp(slots + (size_t)u * TEAM_SYNC_MAX_BYTES, slots,
               bytes) != 0) {
      return report_error(DART_ERR_INVAL, call,
                          "team %d: members disagree: unit %d called a "
                          "reduction through MPI with another count, type "
                          "or op than unit 0", (int)team->id, u);
    }
  }
  *compared = true;
  return DART_OK;
}

int team_barrier(dart_team_t id)
{
  struct team *team = team_lookup(id);
  /* Stores before the barrier, plain or RMA, happen before any access
   * after it on any unit: fences for plain loads and stores in shared
   * memory (free on x86), MPI_Win_sync for the unified RMA model where
   * the team's window exposes my memory (under Open MPI segments have
   * windows of their own and the team's stays empty: the sync would be
   * most of a shared-memory barrier's cost for nothing). */
  bool win_sync = team->dynamic_win_exposes; /* implies a window */
  atomic_thread_fence(memory_order_release);
  if (win_sync) {
    MPI_Win_sync(team->dynamic_win);
  }
  /* A unit may wait in a lock for a migration that only a home unit in
   * this barrier can do: both forms poll (team_sync.h); every member
   * makes the same choice (a blocking and a non-blocking barrier do not
   * match). */
  int err = team->sync != NULL ? team_sync_barrier(team)
                               : progress_gate(team->comm);
  if (win_sync) {
    MPI_Win_sync(team->dynamic_win);
  }
  atomic_thread_fence(memory_order_acquire);
  return err;
}
