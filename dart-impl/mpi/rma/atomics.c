/* Atomics (dart_communication.h; docs/design.md, "One-sided operations
 * and atomics through MPI"). CPU atomics and MPI atomics are not atomic
 * with respect to each other, so for one segment and one type every unit
 * takes the same path: CPU atomics when the segment's team lives on one
 * node and the segment is mapped there (every target is then reached by
 * load/store); on a multi-node team with atomics by message
 * (am_atomics.h) CPU atomics on every target mapped here and a message
 * to the others, which apply it with CPU atomics; MPI atomics otherwise,
 * for local targets too. Results are
 * complete on return (the MPI path flushes locally), which the API
 * allows and which keeps MPI from reading the caller's operands late;
 * one-element accumulates through MPI are copied into a batch per target
 * instead (acc_batch.h), sent by the next flush. */
#include "mpi/rma/atomics.h"
#include "base/basic_types.h"
#include "base/cpu_atomics.h"
#include "mpi/core/large_count.h"
#include "mpi/core/progress.h"
#include "mpi/core/quirks.h"
#include "mpi/core/runtime.h"
#include "mpi/core/serialize.h"
#include "mpi/model/datatype.h"
#include "mpi/model/operation.h"
#include "mpi/model/target.h"
#include "mpi/rma/acc_batch.h"
#include "mpi/rma/am_atomics.h"

#include <dash/dart/if/dart_communication.h>

#include <pthread.h>
#include <string.h>

enum atomic_path { PATH_CPU, PATH_PROCESS_LOCK, PATH_MESSAGE, PATH_MPI };

/* MPI element types for atomics, and whether MIN/MAX must be emulated:
 * where MPI orders an unsigned type as signed, a same-width type that
 * orders right stands in, or MIN/MAX become compare-and-swap loops
 * (core/quirks.h, mpi_minmax_type). */
static MPI_Datatype atomic_type[DART_TYPE_LAST];
static bool emulate_minmax[DART_TYPE_LAST];

void atomics_module_init(void)
{
  for (dart_datatype_t t = DART_TYPE_BYTE; t < DART_TYPE_LAST; ++t) {
    MPI_Datatype ordered = mpi_minmax_type(t);
    emulate_minmax[t] = ordered == MPI_DATATYPE_NULL;
    atomic_type[t] = emulate_minmax[t] ? datatype_get(t)->mpi_base : ordered;
  }
}

static enum atomic_path choose_path(const struct target *t,
                                    dart_datatype_t type)
{
  bool mapped = t->segment->node_bases != NULL || t->team->size == 1;
  bool cpu = cpu_atomic_supported(type);
  if (t->team->dynamic_win == MPI_WIN_NULL) {
    /* A one-unit team: only threads of this process can race. */
    return cpu ? PATH_CPU : PATH_PROCESS_LOCK;
  }
  if (cpu && mapped && t->team->num_nodes == 1 &&
      runtime.env.shared_memory_path) {
    return PATH_CPU;
  }
  if (cpu && t->team->num_nodes > 1 && am_atomics_active()) {
    return PATH_MESSAGE; /* load/store where mapped, else a message */
  }
  return PATH_MPI;
}

/* Types without CPU atomics in a one-unit team (long double): a process
 * lock suffices, every accessor is a thread of this process. */
static pthread_mutex_t process_lock = PTHREAD_MUTEX_INITIALIZER;

static void apply_long_double(long double *target, long double value,
                              dart_operation_t op)
{
  switch (op) {
  case DART_OP_MIN:     *target = *target < value ? *target : value; break;
  case DART_OP_MAX:     *target = *target > value ? *target : value; break;
  case DART_OP_SUM:     *target += value; break;
  case DART_OP_PROD:    *target *= value; break;
  case DART_OP_REPLACE: *target = value; break;
  default:              break; /* NO_OP */
  }
}

static void locked_fetch_and_op(void *target, const void *values,
                                void *result, size_t nelem,
                                dart_operation_t op)
{
  pthread_mutex_lock(&process_lock);
  for (size_t i = 0; i < nelem; ++i) {
    long double value;
    memcpy(&value, (const char *)values + i * sizeof value, sizeof value);
    long double *slot = (long double *)target + i;
    if (result != NULL) {
      memcpy(result, slot, sizeof *slot);
    }
    apply_long_double(slot, value, op);
  }
  pthread_mutex_unlock(&process_lock);
}

static dart_ret_t check_op(const char *call, dart_datatype_t dtype,
                           dart_operation_t op)
{
  if (!datatype_is_basic_id(dtype)) {
    return report_error(DART_ERR_INVAL, call,
                        "atomics need a basic type, got %ld", (long)dtype);
  }
  if (!basic_op_applies(op, dtype, true)) {
    return report_error(DART_ERR_INVAL, call,
                        "operation %lu is not valid in atomics on type %ld",
                        (unsigned long)op, (long)dtype);
  }
  return DART_OK;
}

/* A one-element SUM or REPLACE as MPI_Fetch_and_op, its result unused,
 * where that is one network atomic and MPI_Accumulate a locked
 * read-modify-write (core/quirks.h, accumulate_by_fetch). */
static bool accumulate_as_fetch(size_t nelem, dart_datatype_t dtype,
                                dart_operation_t op)
{
  return mpi_quirks.accumulate_by_fetch && nelem == 1 &&
         (op == DART_OP_SUM || op == DART_OP_REPLACE) &&
         mpi_fetch_and_op_works(dtype, op);
}

static int flush_local(const struct target *t)
{
  return mpi_win_flush_settled(t->unit, t->win, t->disp, false);
}

/* One MPI_Fetch_and_op, locally complete (its result here) on return.
 * Under osc/pt2pt a local flush is a full one (core/quirks.h,
 * flush_local_is_flush): a second round trip after the one that brings
 * the result. The request of an MPI_Rget_accumulate completes when the
 * result has arrived, one round trip. */
static int fetch_and_op_complete(const struct target *t, MPI_Aint disp,
                                 const void *origin, void *result,
                                 MPI_Datatype type, MPI_Op op)
{
  if (mpi_quirks.flush_local_is_flush) {
    MPI_Request request;
    int err = MPI_Rget_accumulate(origin, origin == NULL ? 0 : 1, type,
                                  result, 1, type, t->unit, disp, 1, type,
                                  op, t->win, &request);
    return err == MPI_SUCCESS ? progress_wait_yielding(&request) : err;
  }
  int err = MPI_Fetch_and_op(origin, result, type, t->unit, disp, op,
                             t->win);
  return err == MPI_SUCCESS ? flush_local(t) : err;
}

/* A 1- or 2-byte swap where MPI gets them wrong (core/quirks.h,
 * narrow_atomics_broken) goes through the aligned 4-byte word holding the
 * element: read the word, compare the element (`compare` NULL: swap
 * unconditionally, a fetch-and-replace), swap the whole word in, and
 * retry if a neighbouring byte changed meanwhile. */
static int narrow_swap(const char *call, const struct target *t,
                       const void *value, const void *compare, void *result,
                       size_t bytes, dart_ret_t *ret)
{
  /* The aligned-down 4-byte word holding the element: with the element
   * naturally aligned (checked by the caller), shift + bytes <= 4 for
   * every offset (0-3 for a byte, 0 or 2 for a short), so the element
   * never straddles two words and `seen` below is never overrun. */
  MPI_Aint word = t->disp & ~(MPI_Aint)3;
  size_t shift = (size_t)(t->disp - word);
  if (shift + bytes > sizeof(uint32_t)) {
    *ret = report_error(DART_ERR_INVAL, call, "a %zu-byte element at "
                        "displacement %#llx straddles two 4-byte words",
                        bytes, (unsigned long long)t->disp);
    return MPI_SUCCESS;
  }
  /* Portions DART allocates start 64-byte aligned and are exposed up to
   * a multiple of 8 bytes (model/segment.h, SEGMENT_PAD), so there the
   * word always lies in the window. A registered portion may start and
   * end anywhere: a word reaching past it is memory MPI does not expose
   * (and the user may not own), refused. */
  MPI_Aint lo = t->segment->disps[t->unit];
  MPI_Aint hi = lo + (MPI_Aint)segment_exposed_size(t->segment, t->unit);
  if (word < lo || word + 4 > hi) {
    *ret = report_error(DART_ERR_OTHER, call,
                        "a %zu-byte %s needs the aligned 4-byte word "
                        "around its element inside the target's "
                        "registered portion with this MPI (Open MPI "
                        "osc/ucx)", bytes,
                        compare != NULL ? "compare-and-swap"
                                        : "fetch-and-replace");
    return MPI_SUCCESS;
  }
  uint32_t seen = 0, now = 0, want;
  int err = fetch_and_op_complete(t, word, NULL, &seen, MPI_UINT32_T,
                                  MPI_NO_OP);
  while (err == MPI_SUCCESS &&
         (compare == NULL ||
          memcmp((char *)&seen + shift, compare, bytes) == 0)) {
    want = seen;
    memcpy((char *)&want + shift, value, bytes);
    err = MPI_Compare_and_swap(&want, &seen, &now, MPI_UINT32_T, t->unit,
                               word, t->win);
    err = err == MPI_SUCCESS ? flush_local(t) : err;
    if (err != MPI_SUCCESS || now == seen) {
      break; /* swapped: the old element is in `seen` */
    }
    seen = now;
  }
  memcpy(result, (char *)&seen + shift, bytes);
  return err;
}

/* MPI_Compare_and_swap, or a clear error where it would crash. */
static int mpi_compare_and_swap(const char *call, const struct target *t,
                                const void *value, const void *compare,
                                void *result, dart_datatype_t dtype,
                                dart_ret_t *ret)
{
  if (!mpi_cas_works()) {
    *ret = report_error(DART_ERR_OTHER, call,
                        "compare-and-swap through MPI is disabled: Open "
                        "MPI serves DART's windows with osc/rdma, which "
                        "crashes in it (ompi #11349); start MPI with "
                        "OMPI_MCA_osc=sm,ucx");
    return MPI_SUCCESS;
  }
  size_t bytes = datatype_get(dtype)->base_size;
  /* The caller may pass one buffer as operand and result (the CPU and
   * message paths read it first); MPI wants them apart. */
  uint64_t desired = 0, expected = 0;
  memcpy(&desired, value, bytes);
  memcpy(&expected, compare, bytes);
  if (mpi_quirks.narrow_atomics_broken && bytes < 4) {
    return narrow_swap(call, t, &desired, &expected, result, bytes, ret);
  }
  int err = MPI_Compare_and_swap(&desired, &expected, result,
                                 atomic_type[dtype], t->unit, t->disp,
                                 t->win);
  return err == MPI_SUCCESS ? flush_local(t) : err;
}

/* A fetch-and-replace of a 1- or 2-byte element goes through its 4-byte
 * word where MPI_Fetch_and_op cannot take it and MPI_Get_accumulate may
 * return the new value instead of the old one (core/quirks.h,
 * get_accumulate_replace_races). */
static bool narrow_replace_by_swap(dart_datatype_t dtype)
{
  return mpi_quirks.narrow_atomics_broken &&
         mpi_quirks.get_accumulate_replace_races && mpi_cas_works() &&
         datatype_get(dtype)->base_size < 4;
}

/* A LONG_DOUBLE fetch-and-replace where MPI_Fetch_and_op cannot take it
 * and MPI_Get_accumulate with MPI_REPLACE races (core/quirks.h,
 * get_accumulate_replace_races): as MPI_MAX or MPI_MIN, which Open MPI
 * computes with a flush between read and write. Its predefined MAX is
 * target = target > operand ? target : operand, MIN the same with <
 * (ompi/mca/op/base/op_base_functions.c, applied with the target as
 * `out`), so the operand is written exactly when the comparison is
 * false: ties, signed zeros and NaNs included. A MAX whose fetched value
 * is above the operand (a MIN: below) changed nothing and is tried again
 * the other way; each try either replaced atomically, returning the old
 * value, or learnt that someone else changed the element since.
 * test_atomics_pairs.c (replace_edges) checks signed zeros and NaNs. */
static bool replace_by_minmax(dart_datatype_t dtype)
{
  return mpi_quirks.get_accumulate_replace_races &&
         dtype == DART_TYPE_LONG_DOUBLE &&
         !mpi_fetch_and_op_works(dtype, DART_OP_REPLACE);
}

static int minmax_replace(const struct target *t, const void *value,
                          void *result)
{
  long double operand, now;
  memcpy(&operand, value, sizeof operand);
  bool down = false; /* MAX first: no read ahead of the first try */
  for (;;) {
    int err = MPI_Get_accumulate(&operand, 1, MPI_LONG_DOUBLE, &now, 1,
                                 MPI_LONG_DOUBLE, t->unit, t->disp, 1,
                                 MPI_LONG_DOUBLE, down ? MPI_MIN : MPI_MAX,
                                 t->win);
    err = err == MPI_SUCCESS ? flush_local(t) : err;
    if (err != MPI_SUCCESS) {
      return err;
    }
    if (down ? !(now < operand) : !(now > operand)) {
      memcpy(result, &now, sizeof now); /* replaced: `now` was the old */
      return MPI_SUCCESS;
    }
    down = now > operand;
  }
}

/* MIN/MAX on one element where MPI orders the type wrongly: read, pick,
 * swap in, until no one changed the element in between. */
static int emulated_minmax(const char *call, struct target *t,
                           const void *value, void *result,
                           dart_datatype_t dtype, dart_operation_t op,
                           dart_ret_t *ret)
{
  uint64_t seen = 0, want, now = 0, mine = 0;
  size_t bytes = datatype_get(dtype)->base_size;
  memcpy(&mine, value, bytes);
  int err = fetch_and_op_complete(t, t->disp, NULL, &seen,
                                  atomic_type[dtype], MPI_NO_OP);
  while (err == MPI_SUCCESS && *ret == DART_OK) {
    bool take = op == DART_OP_MIN ? mine < seen : mine > seen;
    want = take ? mine : seen;
    if (want == seen) {
      break;
    }
    err = mpi_compare_and_swap(call, t, &want, &seen, &now, dtype, ret);
    if (now == seen) {
      break;
    }
    seen = now;
  }
  if (result != NULL) {
    memcpy(result, &seen, bytes);
  }
  return err;
}

/* The alignment rule of every atomic (dart_communication.h): the target
 * offset a multiple of the element size, checked before anything else
 * touches the target. Hardware atomics on a split element are not atomic
 * (or fault), and UCX refuses them without an error code reaching MPI's
 * caller: the update was lost and the fetched value garbage. */
static dart_ret_t report_misaligned(const char *call, dart_gptr_t gptr,
                                    const char *what, uint64_t where,
                                    size_t elem)
{
  return report_error(DART_ERR_INVAL, call,
                      "target of unit %d: %s %#llx is not a multiple of the "
                      "%zu-byte element (atomics need naturally aligned "
                      "elements)", (int)gptr.unitid, what,
                      (unsigned long long)where, elem);
}

static inline bool offset_misaligned(dart_gptr_t gptr, size_t elem)
{
  return gptr.addr_or_offs.offset % elem != 0;
}

/* A resolved target's address (the mapped address, or the window
 * displacement: the address itself in a dynamic window, an offset from a
 * 64-byte boundary otherwise, globmem.c) must be aligned too: a
 * registered portion may start anywhere. */
static inline bool target_misaligned(const struct target *t, size_t elem)
{
  uintptr_t where = t->direct != NULL ? (uintptr_t)t->direct
                                      : (uintptr_t)t->disp;
  return where % elem != 0;
}

static dart_ret_t check_target_aligned(const char *call, dart_gptr_t gptr,
                                       const struct target *t, size_t elem)
{
  if (!target_misaligned(t, elem)) {
    return DART_OK;
  }
  return report_misaligned(call, gptr,
                           t->direct != NULL ? "address" : "displacement",
                           t->direct != NULL ? (uintptr_t)t->direct
                                             : (uint64_t)t->disp, elem);
}

/* Accumulate (`result` NULL) or fetch-and-op with CPU atomics. */
static void cpu_update(char *direct, const void *values, void *result,
                       size_t nelem, dart_datatype_t dtype,
                       dart_operation_t op)
{
  if (result != NULL) {
    cpu_atomic_fetch_and_op(direct, values, result, dtype, op);
  } else {
    cpu_atomic_accumulate(direct, values, nelem, dtype, op);
  }
  target_direct_progress();
}

/* atomic_update on a target that applies atomics itself (am_atomics.h):
 * a CPU atomic where it is mapped here; else a one-element accumulate
 * joins the target's batch, anything else is a message of its own after
 * that batch. */
static dart_ret_t message_update(const char *call, const struct target *t,
                                 const void *values, void *result,
                                 size_t nelem, dart_datatype_t dtype,
                                 dart_operation_t op)
{
  if (t->direct != NULL) {
    cpu_update(t->direct, values, result, nelem, dtype, op);
    return DART_OK;
  }
  if (result == NULL && op == DART_OP_NO_OP) {
    return DART_OK; /* changes nothing */
  }
  int err = MPI_SUCCESS;
  if (result == NULL && nelem == 1 &&
      acc_batch_add(t, values, dtype, MPI_DATATYPE_NULL, op, false, true,
                    &err)) {
    return DART_OK; /* sent by the next flush */
  }
  if (err == MPI_SUCCESS) {
    err = acc_batch_send(t->segment, t->unit);
  }
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Isend", err);
  }
  uint64_t offset = (uint64_t)(t->disp - t->segment->disps[t->unit]);
  dart_ret_t ret =
      result != NULL
          ? am_fetch_and_op(call, t->team, t->segment->id, t->unit, offset,
                            values, result, dtype, op)
          : am_accumulate(call, t->team, t->segment->id, t->unit, NULL,
                          offset, values, nelem, dtype, op);
  target_rma_issued(t); /* a flush waits for the target */
  return ret;
}

/* The common body of accumulate and fetch-and-op (`result` non-NULL:
 * one element, old value fetched). */
static dart_ret_t atomic_update(const char *call, dart_gptr_t gptr,
                                const void *values, void *result,
                                size_t nelem, dart_datatype_t dtype,
                                dart_operation_t op)
{
  if (check_op(call, dtype, op) != DART_OK) {
    return DART_ERR_INVAL;
  }
  if (nelem == 0) {
    /* Nothing changes, but the pointer must name a live portion all the
     * same (dart_communication.h, "Validity of a target"). */
    struct target t = { 0 };
    return target_resolve(call, gptr, 0, &t);
  }
  if (values == NULL) {
    return report_error(DART_ERR_INVAL, call, "operand buffer is NULL");
  }
  size_t elem = datatype_get(dtype)->base_size;
  if (nelem > SIZE_MAX / elem) {
    return report_error(DART_ERR_INVAL, call, "%zu elements overflow",
                        nelem);
  }
  if (offset_misaligned(gptr, elem)) {
    return report_misaligned(call, gptr, "offset",
                             gptr.addr_or_offs.offset, elem);
  }
  char *direct;
  if (cpu_atomic_supported(dtype) &&
      target_cached_atomic(gptr, nelem * elem, &direct)) {
    cpu_update(direct, values, result, nelem, dtype, op);
    return DART_OK;
  }
  struct target t = { 0 };
  if (target_resolve(call, gptr, nelem * elem, &t) != DART_OK ||
      check_target_aligned(call, gptr, &t, elem) != DART_OK) {
    return DART_ERR_INVAL;
  }
  switch (choose_path(&t, dtype)) {
  case PATH_CPU:
    /* Every type with CPU atomics takes this path on this segment,
     * whatever the unit (choose_path): cache the segment. */
    target_remember_atomic(gptr, &t);
    cpu_update(t.direct, values, result, nelem, dtype, op);
    return DART_OK;
  case PATH_PROCESS_LOCK:
    locked_fetch_and_op(t.direct, values, result, nelem, op);
    /* Plain stores under the lock: a remote flush must fence. */
    target_stores_unfenced();
    return DART_OK;
  case PATH_MESSAGE:
    return message_update(call, &t, values, result, nelem, dtype, op);
  case PATH_MPI:
    break;
  }
  bool emulated = emulate_minmax[dtype] &&
                  (op == DART_OP_MIN || op == DART_OP_MAX);
  if (!mpi_atomic_works(op, dtype) || (emulated && !mpi_cas_works())) {
    /* Open MPI's osc/rdma (core/quirks.h) gets these wrong. Refused,
     * never silently wrong. */
    return report_error(DART_ERR_OTHER, call,
                        "operation %ld on type %ld through MPI is "
                        "disabled: Open MPI serves DART's windows with "
                        "osc/rdma, which gets it wrong (logical operations, "
                        "unsigned MIN/MAX); start MPI with "
                        "OMPI_MCA_osc=sm,ucx", (long)op, (long)dtype);
  }
  if (result == NULL && op == DART_OP_NO_OP) {
    /* MPI_NO_OP is valid in MPI_Fetch_and_op / MPI_Get_accumulate only
     * (MPI_Accumulate rejects it with MPI_ERR_OP); it changes nothing. */
    return DART_OK;
  }
  int err = MPI_SUCCESS;
  if (result == NULL && nelem == 1 && !emulated &&
      acc_batch_add(&t, values, dtype, atomic_type[dtype], op,
                    accumulate_as_fetch(1, dtype, op), false, &err)) {
    return DART_OK; /* sent by the next flush (acc_batch.h) */
  }
  /* Any other atomic to this unit comes after its batched accumulates. */
  if (err == MPI_SUCCESS) {
    err = acc_batch_send(t.segment, t.unit);
  }
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Accumulate", err);
  }
  /* A fetching call may name one buffer as operand and result (the CPU
   * and message paths read the operand first); MPI_Fetch_and_op and
   * MPI_Get_accumulate want them apart: MPI may write the result before
   * it reads the operand (osc/ucx does). */
  long double operand; /* room for any basic type */
  if (result != NULL) {
    memcpy(&operand, values, elem); /* one element: dart_fetch_and_op */
    values = &operand;
  }
  dart_ret_t ret = DART_OK;
  mpi_serial_enter(); /* the MPI calls up to the flush (core/serialize.h) */
  if (emulated) {
    for (size_t i = 0; i < nelem && err == MPI_SUCCESS && ret == DART_OK;
         ++i) {
      err = emulated_minmax(call, &t, (const char *)values + i * elem,
                            result, dtype, op, &ret);
      t.disp += (MPI_Aint)elem;
    }
  } else if (result != NULL && op == DART_OP_REPLACE &&
             narrow_replace_by_swap(dtype)) {
    err = narrow_swap(call, &t, values, NULL, result,
                      datatype_get(dtype)->base_size, &ret);
  } else if (result != NULL && op == DART_OP_REPLACE &&
             replace_by_minmax(dtype)) {
    err = minmax_replace(&t, values, result);
  } else if (result != NULL && !mpi_fetch_and_op_works(dtype, op)) {
    err = MPI_Get_accumulate(values, 1, atomic_type[dtype], result, 1,
                             atomic_type[dtype], t.unit, t.disp, 1,
                             atomic_type[dtype], operation_mpi_op(op), t.win);
    err = err == MPI_SUCCESS ? flush_local(&t) : err;
  } else if (result != NULL || accumulate_as_fetch(nelem, dtype, op)) {
    long double unused; /* room for any basic type's result */
    err = fetch_and_op_complete(&t, t.disp, values,
                                result != NULL ? result : &unused,
                                atomic_type[dtype], operation_mpi_op(op));
  } else {
    struct mpi_count c;
    err = mpi_count_make(nelem, atomic_type[dtype], &c);
    if (err == MPI_SUCCESS) {
      err = MPI_Accumulate(values, c.count, c.type, t.unit, t.disp, c.count,
                           c.type, operation_mpi_op(op), t.win);
      mpi_count_release(&c);
    }
    err = err == MPI_SUCCESS ? flush_local(&t) : err;
  }
  mpi_serial_leave();
  target_rma_issued(&t); /* locally complete: a flush makes it visible */
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI atomic", err);
  }
  return ret;
}

/* --- the cached CPU path ---
 * Tried before anything else (the caches are empty unless DART is up):
 * a target whose segment this thread updated with CPU atomics before
 * skips the resolution, the (type, op) check of the common cases and the
 * choice of path. Anything else, errors included, goes the slow way. */

/* An 8-byte integer update through one GCC atomic builtin (on x86 a
 * single locked instruction, except a fetched AND/OR/XOR, which is a
 * compare-and-swap loop); false for the other operations. */
static inline __attribute__((always_inline)) bool
word_fetch_and_op(char *direct, const void *value, void *result,
                  dart_operation_t op)
{
  uint64_t *word = (uint64_t *)(void *)direct, operand, old;
  memcpy(&operand, value, sizeof operand);
  switch (op) {
  case DART_OP_SUM:
    old = __atomic_fetch_add(word, operand, __ATOMIC_SEQ_CST);
    break;
  case DART_OP_BAND:
    old = __atomic_fetch_and(word, operand, __ATOMIC_SEQ_CST);
    break;
  case DART_OP_BOR:
    old = __atomic_fetch_or(word, operand, __ATOMIC_SEQ_CST);
    break;
  case DART_OP_BXOR:
    old = __atomic_fetch_xor(word, operand, __ATOMIC_SEQ_CST);
    break;
  case DART_OP_REPLACE:
    old = __atomic_exchange_n(word, operand, __ATOMIC_SEQ_CST);
    break;
  default:
    return false;
  }
  if (result != NULL) {
    memcpy(result, &old, sizeof old);
  }
  return true;
}

/* The types the inlined cached paths handle: 8-byte integers. */
static inline bool is_integer_word(dart_datatype_t dtype)
{
  return basic_type_is_integral(dtype) &&
         basic_type_size(dtype) == sizeof(uint64_t);
}

/* The alignment rule on the inlined paths: a misaligned 8-byte target
 * takes the slow path, which rejects it. A cached segment's portions
 * start on 64 bytes (globmem.c), so the offset decides. */
static inline bool word_aligned(dart_gptr_t gptr)
{
  return gptr.addr_or_offs.offset % sizeof(uint64_t) == 0;
}

/* Accumulate (`result` NULL) or fetch-and-op of one 8-byte integer on a
 * cached target with an operation that has its own instruction; true
 * when done. */
static inline __attribute__((always_inline)) bool
cached_word_update(dart_gptr_t gptr, const void *value, void *result,
                   size_t nelem, dart_datatype_t dtype, dart_operation_t op)
{
  char *direct;
  return value != NULL && nelem == 1 && is_integer_word(dtype) &&
         word_aligned(gptr) &&
         target_cached_atomic(gptr, sizeof(uint64_t), &direct) &&
         word_fetch_and_op(direct, value, result, op);
}

/* The out-of-line parts of the calls below, taking the public call's
 * arguments in its order, so that the fast path tail-calls them and
 * needs no stack frame. */
#define ACCUMULATE_SLOW_PATH(name, call)                                    \
  static __attribute__((noinline)) dart_ret_t name(                        \
    dart_gptr_t gptr, const void *values, size_t nelem,                    \
    dart_datatype_t dtype, dart_operation_t op)                            \
  {                                                                        \
    REQUIRE_INIT_IN(call);                                                 \
    return atomic_update(call, gptr, values, NULL, nelem, dtype, op);      \
  }
ACCUMULATE_SLOW_PATH(accumulate_slow, "dart_accumulate")
ACCUMULATE_SLOW_PATH(accumulate_blocking_local_slow,
                     "dart_accumulate_blocking_local")

static __attribute__((noinline)) dart_ret_t
fetch_and_op_slow(dart_gptr_t gptr, const void *value, void *result,
                  dart_datatype_t dtype, dart_operation_t op)
{
  REQUIRE_INIT_IN("dart_fetch_and_op");
  if (result == NULL) {
    return report_error(DART_ERR_INVAL, "dart_fetch_and_op",
                        "result is NULL");
  }
  return atomic_update("dart_fetch_and_op", gptr, value, result, 1, dtype,
                       op);
}

static __attribute__((noinline)) dart_ret_t
compare_and_swap_slow(dart_gptr_t gptr, const void *value,
                      const void *compare, void *result,
                      dart_datatype_t dtype);

DART_HOT_ENTRY
dart_ret_t dart_accumulate(dart_gptr_t gptr, const void *values, size_t nelem,
                           dart_datatype_t dtype, dart_operation_t op)
{
  if (cached_word_update(gptr, values, NULL, nelem, dtype, op)) {
    return target_direct_progress();
  }
  return accumulate_slow(gptr, values, nelem, dtype, op);
}

DART_HOT_ENTRY
dart_ret_t dart_accumulate_blocking_local(dart_gptr_t gptr, const void *values,
                                          size_t nelem, dart_datatype_t dtype,
                                          dart_operation_t op)
{
  if (cached_word_update(gptr, values, NULL, nelem, dtype, op)) {
    return target_direct_progress();
  }
  return accumulate_blocking_local_slow(gptr, values, nelem, dtype, op);
}

DART_HOT_ENTRY
dart_ret_t dart_fetch_and_op(dart_gptr_t gptr, const void *value,
                             void *result, dart_datatype_t dtype,
                             dart_operation_t op)
{
  if (result != NULL && cached_word_update(gptr, value, result, 1, dtype, op)) {
    return target_direct_progress();
  }
  return fetch_and_op_slow(gptr, value, result, dtype, op);
}

DART_HOT_ENTRY
dart_ret_t dart_compare_and_swap(dart_gptr_t gptr, const void *value,
                                 const void *compare, void *result,
                                 dart_datatype_t dtype)
{
  char *direct;
  if (value != NULL && compare != NULL && result != NULL &&
      is_integer_word(dtype) && word_aligned(gptr) &&
      target_cached_atomic(gptr, sizeof(uint64_t), &direct)) {
    uint64_t expected, desired;
    memcpy(&expected, compare, sizeof expected);
    memcpy(&desired, value, sizeof desired);
    /* On failure `expected` becomes the value found: the old value either
     * way. */
    __atomic_compare_exchange_n((uint64_t *)(void *)direct, &expected,
                                desired, false, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
    memcpy(result, &expected, sizeof expected);
    return target_direct_progress();
  }
  return compare_and_swap_slow(gptr, value, compare, result, dtype);
}

static dart_ret_t compare_and_swap_slow(dart_gptr_t gptr, const void *value,
                                        const void *compare, void *result,
                                        dart_datatype_t dtype)
{
  const char *call = "dart_compare_and_swap";
  REQUIRE_INIT_IN(call);
  if (!basic_type_is_integral(dtype)) {
    return report_error(DART_ERR_INVAL, call,
                        "compare-and-swap needs an integral basic type, "
                        "got %ld", (long)dtype);
  }
  if (value == NULL || compare == NULL || result == NULL) {
    return report_error(DART_ERR_INVAL, call,
                        "value, compare or result is NULL");
  }
  size_t bytes = basic_type_size(dtype);
  if (offset_misaligned(gptr, bytes)) {
    return report_misaligned(call, gptr, "offset",
                             gptr.addr_or_offs.offset, bytes);
  }
  char *direct;
  if (target_cached_atomic(gptr, bytes, &direct)) {
    cpu_atomic_compare_and_swap(direct, value, compare, result, dtype);
    target_direct_progress();
    return DART_OK;
  }
  struct target t = { 0 };
  if (target_resolve(call, gptr, bytes, &t) != DART_OK ||
      check_target_aligned(call, gptr, &t, bytes) != DART_OK) {
    return DART_ERR_INVAL;
  }
  enum atomic_path path = choose_path(&t, dtype);
  if (path == PATH_CPU || (path == PATH_MESSAGE && t.direct != NULL)) {
    if (path == PATH_CPU) {
      /* Every type with CPU atomics takes this path on this segment,
       * whatever the unit (choose_path): cache the segment. */
      target_remember_atomic(gptr, &t);
    }
    cpu_atomic_compare_and_swap(t.direct, value, compare, result, dtype);
    target_direct_progress();
    return DART_OK;
  }
  /* After this unit's batched accumulates (acc_batch.h). */
  int err = acc_batch_send(t.segment, t.unit);
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Accumulate", err);
  }
  if (path == PATH_MESSAGE) {
    dart_ret_t ret = am_compare_and_swap(
        call, t.team, t.segment->id, t.unit,
        (uint64_t)(t.disp - t.segment->disps[t.unit]), value, compare,
        result, dtype);
    target_rma_issued(&t);
    return ret;
  }
  dart_ret_t ret = DART_OK;
  MPI_SERIALIZED(err = mpi_compare_and_swap(call, &t, value, compare, result,
                                            dtype, &ret));
  target_rma_issued(&t);
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Compare_and_swap", err);
  }
  return ret;
}
