/* Batched one-element accumulates (see the header). */
#include "mpi/rma/acc_batch.h"
#include "mpi/rma/am_atomics.h"
#include "mpi/core/quirks.h"
#include "mpi/core/serialize.h"
#include "mpi/model/datatype.h"
#include "mpi/model/local_reduce.h"
#include "mpi/model/operation.h"
#include "mpi/model/target.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct acc_batch {
  dart_datatype_t  dtype;
  MPI_Datatype     mpi_type;
  dart_operation_t op;
  bool             single_as_fetch;
  bool             at_target; /* sent as a message (am_atomics.h), `disps`
                                 then hold offsets into the portion */
  bool             listed; /* in acc_batches.pending */
  size_t           elem;
  int              count, capacity;
  MPI_Aint        *disps;  /* target displacements in issue order */
  char            *values; /* count * elem bytes */
  long double      unused; /* a fetch-and-op's result, written by MPI
                              until the flush after it (any basic type
                              fits) */
};

struct acc_batches {
  struct segment    *seg;
  const struct team *team;
  struct acc_batches *next; /* every segment's batches, for dart_exit */
  MPI_Win            win;
  int                units;
  struct acc_batch **by_unit; /* allocated on first use */
  int               *pending; /* units whose batch may hold entries */
  int                npending;
};

/* What sending a batch leaves done: the batch complete locally, with
 * `remote` at its target too; or, with `deferred`, only sent: its
 * operands go on that list, and the flush the caller makes next
 * completes it (acc_batch_send_for_flush). */
struct completion {
  bool                    remote;
  struct acc_batch_sent **deferred;
};

static const struct completion complete_locally = { false, NULL };
static const struct completion complete_remotely = { true, NULL };

/* The operands of a batch sent for a flush, kept until it completes. */
struct acc_batch_sent {
  struct acc_batch_sent *next;
  char                  *values;
};

static int max_entries;
/* One lock for all batches: only accumulates that go through MPI come
 * here, each worth microseconds. Taken before mpi_serial's lock. */
static pthread_mutex_t batch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct acc_batches *all_batches;

void acc_batch_setup(int entries) { max_entries = entries; }

/* Sorting the entries of one batch: by displacement, then issue order. */
struct entry_ref {
  MPI_Aint disp;
  int      index;
};

/* Sorts `refs` (in issue order) by displacement, keeping issue order
 * among equal ones: a stable radix sort on the distance from the lowest
 * displacement, a byte per pass, as many passes as that distance has
 * bytes (two for RandomAccess's 32 KiB portions). qsort with a
 * comparison callback took a third of RandomAccess's time across hosts
 * under osc/pt2pt (perf, 512 entries per batch). `tmp` holds n more. */
static void sort_by_disp(struct entry_ref *refs, struct entry_ref *tmp, int n)
{
  uint64_t low = (uint64_t)refs[0].disp, high = low;
  for (int i = 1; i < n; ++i) {
    uint64_t d = (uint64_t)refs[i].disp;
    low = d < low ? d : low;
    high = d > high ? d : high;
  }
  struct entry_ref *from = refs, *to = tmp;
  for (unsigned shift = 0; shift < 64 && ((high - low) >> shift) != 0;
       shift += 8) {
    int start[257] = { 0 };
    for (int i = 0; i < n; ++i) {
      ++start[(((uint64_t)from[i].disp - low) >> shift & 0xff) + 1];
    }
    for (int digit = 0; digit < 256; ++digit) {
      start[digit + 1] += start[digit];
    }
    for (int i = 0; i < n; ++i) {
      to[start[((uint64_t)from[i].disp - low) >> shift & 0xff]++] = from[i];
    }
    struct entry_ref *swap = from;
    from = to;
    to = swap;
  }
  if (from != refs) {
    memcpy(refs, from, (size_t)n * sizeof *refs);
  }
}

/* Combines the entries of one location in issue order: `into` holds the
 * earlier value(s), `value` the later one. */
static void combine(const struct acc_batch *b, void *into, const void *value)
{
  if (b->op == DART_OP_REPLACE) {
    memcpy(into, value, b->elem);
  } else {
    local_reduce(into, value, 1, b->dtype, b->op);
  }
}

/* Sends a batch of `n` distinct locations in increasing order: one MPI
 * call. Locations next to each other go as one block of the target type,
 * since Open MPI's osc/ucx moves each block of an accumulate with a get
 * and a put of its own. The RandomAccess app across 2 hosts (512 updates
 * per target and flush into 4096 words) sends about 12 % fewer blocks
 * than with one block per location. */
static int send_distinct(struct acc_batch *b, int unit, MPI_Win win,
                         const MPI_Aint *disps, const char *values, int n)
{
  MPI_Op op = operation_mpi_op(b->op);
  if (n == 1) {
    if (b->single_as_fetch) {
      return MPI_Fetch_and_op(values, &b->unused, b->mpi_type, unit,
                              disps[0], op, win);
    }
    return MPI_Accumulate(values, 1, b->mpi_type, unit, disps[0], 1,
                          b->mpi_type, op, win);
  }
  /* Blocks of adjacent locations, displaced relative to the first. */
  MPI_Aint *rel = malloc((size_t)n * sizeof *rel);
  int *lengths = malloc((size_t)n * sizeof *lengths);
  if (rel == NULL || lengths == NULL) {
    free(rel);
    free(lengths);
    return MPI_ERR_NO_MEM;
  }
  int blocks = 0;
  for (int i = 0; i < n; ++i) {
    MPI_Aint at = disps[i] - disps[0];
    if (blocks > 0 &&
        at == rel[blocks - 1] + (MPI_Aint)lengths[blocks - 1] *
                                    (MPI_Aint)b->elem) {
      ++lengths[blocks - 1];
    } else {
      rel[blocks] = at;
      lengths[blocks] = 1;
      ++blocks;
    }
  }
  int err;
  if (blocks == 1) {
    err = MPI_Accumulate(values, n, b->mpi_type, unit, disps[0], n,
                         b->mpi_type, op, win);
  } else {
    MPI_Datatype scattered;
    err = MPI_Type_create_hindexed(blocks, lengths, rel, b->mpi_type,
                                   &scattered);
    if (err == MPI_SUCCESS) {
      err = MPI_Type_commit(&scattered);
      if (err == MPI_SUCCESS) {
        err = MPI_Accumulate(values, n, b->mpi_type, unit, disps[0], 1,
                             scattered, op, win);
      }
      MPI_Type_free(&scattered); /* MPI keeps it while the call needs it */
    }
  }
  free(rel);
  free(lengths);
  return err;
}

/* The same batch as a message the target applies (am_atomics.h): its
 * `disps` are offsets into the target's portion. */
static int send_message(const struct acc_batches *s, struct acc_batch *b,
                        int unit, const MPI_Aint *disps, const char *values,
                        int n, bool remote)
{
  _Static_assert(sizeof(MPI_Aint) == sizeof(uint64_t),
                 "offsets go on the wire as they are kept");
  const char *call = "sending accumulates to another node";
  dart_ret_t ret = am_accumulate(call, s->team, s->seg->id, unit,
                                 (const uint64_t *)(const void *)disps, 0,
                                 values, (size_t)n, b->dtype, b->op);
  if (ret == DART_OK && remote) {
    ret = am_atomics_complete(call, s->team, unit);
  }
  /* Logged already; the callers expect an MPI code. */
  return ret == DART_OK ? MPI_SUCCESS : MPI_ERR_OTHER;
}

/* send_distinct, then the completion `how` asks for. */
static int send_complete(const struct acc_batches *s, struct acc_batch *b,
                         int unit, MPI_Win win, const MPI_Aint *disps,
                         const char *values, int n,
                         const struct completion *how)
{
  if (b->at_target) {
    return send_message(s, b, unit, disps, values, n, how->remote);
  }
  int err;
  MPI_SERIALIZED(
    err = send_distinct(b, unit, win, disps, values, n);
    if (err == MPI_SUCCESS && how->deferred == NULL) {
      err = mpi_win_flush_settled(unit, win, disps[0], how->remote);
    });
  if (err == MPI_SUCCESS && !how->remote) {
    /* Not complete at the target: the unit awaits a remote flush again.
     * Its mark from acc_batch_add may have been taken by a flush of all
     * units that ran before this send (another thread's), or may come
     * only after the flush that sends it takes the marks. A flush that
     * takes this mark completes the batch: a caller deferring completion
     * to its own flush of all units either takes it itself or waits for
     * the flush that did (rma_targets.h, one at a time). */
    rma_targets_mark(&s->seg->rma_targets, unit);
  }
  return err;
}

/* Sends one batch and completes it as `how` asks; empty afterwards
 * whatever happened. Called with batch_lock held. */
static int send_batch(const struct acc_batches *s, struct acc_batch *b,
                      int unit, MPI_Win win, const struct completion *how)
{
  int n = b->count;
  b->count = 0;
  if (n == 0) {
    return MPI_SUCCESS;
  }
  /* Operands kept past the call need a buffer of their own (the batch's
   * takes the next entries); without one the batch completes now. */
  struct acc_batch_sent *kept = NULL;
  struct completion now = { how->remote, NULL };
  if (how->deferred != NULL && !b->at_target) {
    kept = malloc(sizeof *kept);
    how = kept != NULL ? how : &now;
  }
  if (n == 1 && kept == NULL) { /* nothing to sort, combine or keep */
    return send_complete(s, b, unit, win, b->disps, b->values, 1, how);
  }
  struct entry_ref *refs = malloc(2 * (size_t)n * sizeof *refs);
  MPI_Aint *disps = malloc((size_t)n * sizeof *disps);
  char *values = malloc((size_t)n * b->elem);
  if (refs == NULL || disps == NULL || values == NULL) {
    free(refs);
    free(disps);
    free(values);
    free(kept);
    return MPI_ERR_NO_MEM;
  }
  for (int i = 0; i < n; ++i) {
    refs[i] = (struct entry_ref){ b->disps[i], i };
  }
  sort_by_disp(refs, refs + n, n);
  int distinct = 0;
  for (int i = 0; i < n; ++i) {
    const char *value = b->values + (size_t)refs[i].index * b->elem;
    if (distinct > 0 && disps[distinct - 1] == refs[i].disp) {
      combine(b, values + (size_t)(distinct - 1) * b->elem, value);
      continue;
    }
    disps[distinct] = refs[i].disp;
    memcpy(values + (size_t)distinct * b->elem, value, b->elem);
    ++distinct;
  }
  int err = send_complete(s, b, unit, win, disps, values, distinct, how);
  free(refs);
  free(disps);
  if (kept != NULL) { /* MPI may read them until the caller's flush */
    kept->values = values;
    kept->next = *how->deferred;
    *how->deferred = kept;
  } else {
    free(values);
  }
  return err;
}

/* The segment's batch set and unit's batch, made on first use; NULL when
 * out of memory. Called with batch_lock held. */
static struct acc_batch *batch_of(struct segment *seg,
                                  const struct team *team, int unit)
{
  int units = team->size;
  struct acc_batches *s = seg->batches;
  if (s == NULL) {
    s = calloc(1, sizeof *s);
    if (s == NULL) {
      return NULL;
    }
    s->by_unit = calloc((size_t)units, sizeof *s->by_unit);
    s->pending = malloc((size_t)units * sizeof *s->pending);
    if (s->by_unit == NULL || s->pending == NULL) {
      free(s->by_unit);
      free(s->pending);
      free(s);
      return NULL;
    }
    s->units = units;
    s->win = seg->win;
    s->seg = seg;
    s->team = team;
    s->next = all_batches;
    all_batches = s;
    seg->batches = s;
  }
  if (s->by_unit[unit] == NULL) {
    s->by_unit[unit] = calloc(1, sizeof **s->by_unit);
  }
  return s->by_unit[unit];
}

/* Whether a batch may take (op, dtype): integer operations, whose
 * repeated application to one location combines exactly into one
 * (REPLACE keeps the last operand); NO_OP changes nothing and never comes
 * here. */
static bool batchable(dart_operation_t op, dart_datatype_t dtype)
{
  /* Not floating point: (x + a) + b, applied one by one in issue order,
   * can round differently from x + (a + b). */
  if (dtype == DART_TYPE_FLOAT || dtype == DART_TYPE_DOUBLE ||
      dtype == DART_TYPE_LONG_DOUBLE) {
    return false;
  }
  return op == DART_OP_REPLACE ||
         (op != DART_OP_NO_OP && op != DART_OP_MINMAX &&
          local_reduce_supports(op, dtype));
}

/* Room for one more entry; false when out of memory. */
static bool reserve(struct acc_batch *b)
{
  if (b->count < b->capacity) {
    return true;
  }
  int cap = b->capacity == 0 ? 16 : 2 * b->capacity;
  cap = cap < max_entries ? cap : max_entries;
  MPI_Aint *disps = realloc(b->disps, (size_t)cap * sizeof *disps);
  if (disps != NULL) {
    b->disps = disps;
  }
  char *values = realloc(b->values, (size_t)cap * b->elem);
  if (values != NULL) {
    b->values = values;
  }
  if (disps == NULL || values == NULL) {
    return false;
  }
  b->capacity = cap;
  return true;
}

bool acc_batch_add(const struct target *t, const void *value,
                   dart_datatype_t dtype, MPI_Datatype mpi_type,
                   dart_operation_t op, bool single_as_fetch, bool at_target,
                   int *mpi_err)
{
  *mpi_err = MPI_SUCCESS;
  if (max_entries < 1 || !batchable(op, dtype)) {
    return false;
  }
  size_t elem = datatype_get(dtype)->base_size;
  pthread_mutex_lock(&batch_lock);
  struct acc_batch *b = batch_of(t->segment, t->team, t->unit);
  if (b == NULL) {
    pthread_mutex_unlock(&batch_lock);
    return false;
  }
  struct acc_batches *s = t->segment->batches;
  if (b->count > 0 && (b->dtype != dtype || b->op != op ||
                       b->at_target != at_target ||
                       b->count >= max_entries)) {
    *mpi_err = send_batch(s, b, t->unit, s->win, &complete_locally);
  }
  if (b->count == 0 && b->capacity > 0 && b->elem != elem) {
    b->capacity = 0; /* another element size: regrow the value room */
  }
  b->elem = elem;
  bool taken = *mpi_err == MPI_SUCCESS && reserve(b);
  if (taken) {
    if (!b->listed) {
      b->listed = true;
      s->pending[s->npending++] = t->unit;
    }
    b->dtype = dtype;
    b->mpi_type = mpi_type;
    b->op = op;
    b->single_as_fetch = single_as_fetch;
    b->at_target = at_target;
    /* A message names the place by its offset, which stays valid where a
     * local pool's portion moves to another window displacement. */
    b->disps[b->count] =
        at_target ? t->disp - t->segment->disps[t->unit] : t->disp;
    memcpy(b->values + (size_t)b->count * elem, value, elem);
    b->count++;
  }
  pthread_mutex_unlock(&batch_lock);
  if (taken) {
    target_rma_issued(t); /* a flush of t's unit now sends the batch */
  }
  return taken;
}

/* Called with batch_lock held. */
static int send_unit(struct acc_batches *s, int unit,
                     const struct completion *how)
{
  struct acc_batch *b = s->by_unit[unit];
  return b == NULL ? MPI_SUCCESS : send_batch(s, b, unit, s->win, how);
}

/* A batch's entries were checked against the target when they were
 * queued, maybe long before: a unit that has since flagged a change of
 * what it exposes (segment.h, struct segment_watch) gets the batch only
 * once the change is done. */
static void settle(struct segment *seg, int unit)
{
  if (seg->watch != NULL &&
      __atomic_load_n(&seg->watch->changed[unit], __ATOMIC_ACQUIRE)) {
    seg->watch->refresh(seg, unit);
  }
}

/* Sends every pending batch of `s`. Called with batch_lock held. */
static int send_pending(struct acc_batches *s, const struct completion *how)
{
  int err = MPI_SUCCESS;
  for (int i = 0; i < s->npending; ++i) {
    settle(s->seg, s->pending[i]);
    int e = send_unit(s, s->pending[i], how);
    s->by_unit[s->pending[i]]->listed = false;
    err = err == MPI_SUCCESS ? e : err;
  }
  s->npending = 0;
  return err;
}

static int send_all(struct segment *seg, int unit,
                    const struct completion *how)
{
  int err = MPI_SUCCESS;
  pthread_mutex_lock(&batch_lock);
  struct acc_batches *s = seg->batches;
  if (s != NULL && unit >= 0) {
    settle(seg, unit);
    err = send_unit(s, unit, how);
  } else if (s != NULL) {
    err = send_pending(s, how);
  }
  pthread_mutex_unlock(&batch_lock);
  return err;
}

/* Accumulates in the batches of `s` not sent yet; under batch_lock. */
static int count_waiting(const struct acc_batches *s)
{
  int waiting = 0;
  for (int i = 0; i < s->npending; ++i) {
    waiting += s->by_unit[s->pending[i]]->count;
  }
  return waiting;
}

int acc_batch_send_every_segment(int *waiting)
{
  int err = MPI_SUCCESS;
  *waiting = 0;
  pthread_mutex_lock(&batch_lock);
  for (struct acc_batches *s = all_batches; s != NULL; s = s->next) {
    *waiting += count_waiting(s);
    int e = send_pending(s, &complete_locally);
    err = err == MPI_SUCCESS ? e : err;
  }
  pthread_mutex_unlock(&batch_lock);
  return err;
}

int acc_batch_send(struct segment *seg, int unit)
{
  return send_all(seg, unit, &complete_locally);
}

int acc_batch_send_for_flush(struct segment *seg, int unit,
                             struct acc_batch_sent **sent)
{
  return send_all(seg, unit, &(struct completion){ false, sent });
}

void acc_batch_release(struct acc_batch_sent *sent)
{
  while (sent != NULL) {
    struct acc_batch_sent *next = sent->next;
    free(sent->values);
    free(sent);
    sent = next;
  }
}

void acc_batch_free(struct segment *seg)
{
  if (seg->batches == NULL) {
    return;
  }
  /* Freeing with RMA not flushed breaks the API's rule (flush, barrier,
   * free), and a target that freed first may have detached its memory
   * already: said once per segment. What is left still goes out, complete
   * at the targets, so that the unit's own portion, at least, gets it. */
  pthread_mutex_lock(&batch_lock);
  int waiting = count_waiting(seg->batches);
  pthread_mutex_unlock(&batch_lock);
  if (waiting > 0) {
    LOG_WARN("dart_team_memfree", "segment %d is freed with %d accumulates "
             "not flushed: sent now (flush and barrier before a free)",
             (int)seg->id, waiting);
  }
  int err = send_all(seg, -1, &complete_remotely);
  if (err != MPI_SUCCESS) {
    report_mpi_error("freeing a segment", "MPI_Accumulate", err);
  }
  struct acc_batches *s = seg->batches;
  pthread_mutex_lock(&batch_lock);
  for (struct acc_batches **p = &all_batches; *p != NULL; p = &(*p)->next) {
    if (*p == s) {
      *p = s->next;
      break;
    }
  }
  pthread_mutex_unlock(&batch_lock);
  for (int u = 0; u < s->units; ++u) {
    if (s->by_unit[u] != NULL) {
      free(s->by_unit[u]->disps);
      free(s->by_unit[u]->values);
      free(s->by_unit[u]);
    }
  }
  free(s->by_unit);
  free(s->pending);
  free(s);
  seg->batches = NULL;
}
