/* bench-latency: one-sided latency and bandwidth of DART next to the plain
 * MPI RMA it sits on and to a raw shared-memory copy, measured in one run.
 *
 * Two units: unit 0 is the origin and does all the timing, unit 1 is the
 * target and waits in MPI_Recv for the whole run (a blocking receive keeps
 * it inside MPI, so RMA that needs the target's progress is served). Any
 * further units take part in the collective set-up only and then idle.
 *
 * Message sizes: every power of two from 1 B to --max-bytes (4 MiB). For
 * every size the kernels below are warmed up once, then run in `reps`
 * interleaved rounds of `n` operations each (n = --iters, fewer for large
 * sizes, fewer for a kernel whose warm-up showed that n operations
 * would take longer than ROUND_BUDGET_NS, more for one whose n operations
 * took less than ROUND_MIN_NS), each preceded by one untimed
 * operation; a kernel's result is the median over the rounds of the time
 * per operation, in ns, on unit 0's CLOCK_MONOTONIC.
 *
 *   DART        dart_put_blocking, dart_get_blocking, dart_put + dart_flush,
 *               dart_get + dart_flush_local on a dart_team_memalloc_aligned
 *               segment of DART_TEAM_ALL; at 8 B also dart_fetch_and_op
 *               (SUM, long) and dart_compare_and_swap (long), each followed
 *               by dart_flush_local, and dart_accumulate (BXOR, one long)
 *               followed by dart_flush, the flush that completes it.
 *   MPI         the same on an MPI_Win_allocate window and on a dynamic
 *               window (MPI_Win_create_dynamic + MPI_Win_attach), both in a
 *               lock_all epoch: MPI_Put + MPI_Win_flush, MPI_Get +
 *               MPI_Win_flush (or MPI_Win_flush_local where DART's row uses
 *               dart_flush_local), MPI_Fetch_and_op / MPI_Compare_and_swap +
 *               MPI_Win_flush_local, MPI_Accumulate + MPI_Win_flush.
 *   raw         memcpy into the peer's MPI_Win_allocate_shared memory plus a
 *               seq_cst fence (put), memcpy out of it (get), GCC __atomic
 *               builtins on it (atomics: fetch_add, compare_exchange_n,
 *               fetch_xor); only when unit 1 shares unit 0's
 *               node, as DART sees nodes (MPI's shared-memory split, cut by
 *               DART_UNITS_PER_NODE when that is set). A local memcpy of the
 *               same size is the bandwidth reference.
 *
 * Every atomic kernel's target is checked after the 8 B round (counter,
 * swap chain, xor of all operands); a model whose target is wrong reports
 * n/a instead of a time, and the program fails.
 *
 * Usage: bench-latency [--reps R] [--iters K] [--max-bytes B] [--csv FILE] */
#include "bench_args.h"

#include <dash/dart/if/dart.h>

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Layout of every target buffer: three longs for the atomics, in one cache
 * line, then the data. Keeping them apart lets the put kernels run between
 * the atomic ones without overwriting the values checked afterwards. */
enum {
  FAO_OFFSET  = 0,
  CAS_OFFSET  = 8,
  ACC_OFFSET  = 16,
  DATA_OFFSET = 64,
  SLACK       = 4096, /* room to page-align the peer's shared memory, as
                         DART's portions and MPI_Win_allocate's are */
};

enum { TAG_STOP = 4711 };

/* Message sizes: 1 B << s for s in [0, MAX_SIZE_LOG2]. */
enum { MAX_SIZE_LOG2 = 22 };

/* Size of the atomic kernels' rounds (one long). */
enum { ATOMIC_BYTES = 8 };

/* Above this size a round shrinks so that it moves about as many bytes as
 * a round at this size, but never below MIN_LARGE_ITERS operations. */
enum { FULL_ITERS_UP_TO = 16384, MIN_LARGE_ITERS = 8 };

/* A kernel whose warm-up (n operations) took longer than this runs
 * rounds of proportionally fewer operations, at least MIN_LARGE_ITERS:
 * the MPI dynamic window takes microseconds per operation here, and at
 * full rounds it alone would take most of the run at every small size.
 * The DART, raw and Win_allocate kernels stay well below it. */
#define ROUND_BUDGET_NS 2e6

/* A kernel whose warm-up (n operations) took less than this runs rounds
 * of proportionally more operations, at most ROUND_STRETCH_MAX times n.
 * A cost paid once per round then weighs on a round as it does on a
 * steady loop of the same operation: the clock reads, and DART's
 * occasional MPI probe on the direct path (at most one per 200 us, see
 * TARGET_PROBE_INTERVAL_NS in dart-impl/mpi/model/target.h). The MPI
 * kernels that run between two DART rounds make that probe due at the
 * start of every round, and in a 2 us round of 1000 gets its 1.6 us
 * (Open MPI, osc ucx) nearly doubled the 8 B get. */
#define ROUND_MIN_NS 250e3
enum { ROUND_STRETCH_MAX = 1000 };

/* Busy time on unit 0 before the first measurement, in ns. */
#define SPIN_UP_NS 300e6

/* Sizes from which the table gets a bandwidth column. */
enum { BANDWIDTH_FROM = 64 * 1024 };

#define MISSING (-1.0)

struct bench {
  size_t      bytes;      /* message size of the current round */
  char       *src, *dst;  /* origin buffers, DATA_OFFSET-free */
  dart_gptr_t data;       /* unit 1's data area in the DART segment */
  dart_gptr_t fao, cas, acc; /* unit 1's three atomic longs */
  MPI_Win     win_alloc, win_dyn;
  MPI_Aint    dyn_base;   /* address of unit 1's attached block */
  char       *peer;       /* unit 1's shared-window memory, or NULL */
  /* Running state of the atomic kernels, per model (ON_*): calls made
   * (fetch-and-op adds 1 each time), the value the next compare-and-swap
   * expects, accumulates made and the xor of all their operands. */
  long        fao_calls[4];
  long        cas_value[4];
  long        acc_calls[4];
  long        acc_value[4];
  long        sink;       /* keeps fetched values alive */
};

enum { ON_DART, ON_ALLOC, ON_DYN, ON_RAW };

typedef void (*kernel_fn)(struct bench *b, int n);

/* Operand of the i-th accumulate (xor): distinct bit patterns, so that a
 * lost or a repeated update leaves a wrong value at the target. */
static long acc_operand(long i)
{
  return (long)(((uint64_t)i + 1) * UINT64_C(0x9E3779B97F4A7C15));
}

static void die(const char *what)
{
  fprintf(stderr, "bench-latency: %s failed\n", what);
  dart_abort(DART_EXIT_ABORT);
}
#define CHECK(call) do { if ((call) != DART_OK) die(#call); } while (0)

/* ---- DART kernels ------------------------------------------------------ */

static void dart_put_blocking_k(struct bench *b, int n)
{
  for (int i = 0; i < n; ++i) {
    CHECK(dart_put_blocking(b->data, b->src, b->bytes, DART_TYPE_BYTE,
                            DART_TYPE_BYTE));
  }
}

static void dart_get_blocking_k(struct bench *b, int n)
{
  for (int i = 0; i < n; ++i) {
    CHECK(dart_get_blocking(b->dst, b->data, b->bytes, DART_TYPE_BYTE,
                            DART_TYPE_BYTE));
  }
}

static void dart_put_flush_k(struct bench *b, int n)
{
  for (int i = 0; i < n; ++i) {
    CHECK(dart_put(b->data, b->src, b->bytes, DART_TYPE_BYTE,
                   DART_TYPE_BYTE));
    CHECK(dart_flush(b->data));
  }
}

static void dart_get_flush_local_k(struct bench *b, int n)
{
  for (int i = 0; i < n; ++i) {
    CHECK(dart_get(b->dst, b->data, b->bytes, DART_TYPE_BYTE,
                   DART_TYPE_BYTE));
    CHECK(dart_flush_local(b->data));
  }
}

static void dart_fetch_add_k(struct bench *b, int n)
{
  const long one = 1;
  long old = 0;
  for (int i = 0; i < n; ++i) {
    CHECK(dart_fetch_and_op(b->fao, &one, &old, DART_TYPE_LONG, DART_OP_SUM));
    CHECK(dart_flush_local(b->fao));
    b->sink += old;
  }
  b->fao_calls[ON_DART] += n;
}

/* Every compare-and-swap is meant to succeed: it expects the value the
 * previous one stored and stores that plus one. */
static void dart_cas_k(struct bench *b, int n)
{
  long expect = b->cas_value[ON_DART];
  for (int i = 0; i < n; ++i) {
    long next = expect + 1, old = 0;
    CHECK(dart_compare_and_swap(b->cas, &next, &expect, &old,
                                DART_TYPE_LONG));
    CHECK(dart_flush_local(b->cas));
    expect = old == expect ? next : old;
  }
  b->cas_value[ON_DART] = expect;
}

/* dart_flush, not dart_flush_local: only it makes an accumulate visible
 * at the target (dart_accumulate in dart_communication.h). */
static void dart_acc_k(struct bench *b, int n)
{
  long done = b->acc_calls[ON_DART], value = b->acc_value[ON_DART];
  for (int i = 0; i < n; ++i) {
    long operand = acc_operand(done + i);
    CHECK(dart_accumulate(b->acc, &operand, 1, DART_TYPE_LONG,
                          DART_OP_BXOR));
    CHECK(dart_flush(b->acc));
    value ^= operand;
  }
  b->acc_calls[ON_DART] = done + n;
  b->acc_value[ON_DART] = value;
}

/* ---- plain MPI RMA kernels (target rank 1) ----------------------------- */

static void rma_put_flush(struct bench *b, MPI_Win win, MPI_Aint disp, int n)
{
  int count = (int)b->bytes;
  for (int i = 0; i < n; ++i) {
    MPI_Put(b->src, count, MPI_BYTE, 1, disp, count, MPI_BYTE, win);
    MPI_Win_flush(1, win);
  }
}

static void rma_get_flush(struct bench *b, MPI_Win win, MPI_Aint disp, int n,
                          int local)
{
  int count = (int)b->bytes;
  for (int i = 0; i < n; ++i) {
    MPI_Get(b->dst, count, MPI_BYTE, 1, disp, count, MPI_BYTE, win);
    if (local) {
      MPI_Win_flush_local(1, win);
    } else {
      MPI_Win_flush(1, win);
    }
  }
}

static void rma_fetch_add(struct bench *b, MPI_Win win, MPI_Aint disp, int n,
                          int which)
{
  const long one = 1;
  long old = 0;
  for (int i = 0; i < n; ++i) {
    MPI_Fetch_and_op(&one, &old, MPI_LONG, 1, disp, MPI_SUM, win);
    MPI_Win_flush_local(1, win);
    b->sink += old;
  }
  b->fao_calls[which] += n;
}

static void rma_cas(struct bench *b, MPI_Win win, MPI_Aint disp, int n,
                    int which)
{
  long expect = b->cas_value[which];
  for (int i = 0; i < n; ++i) {
    long next = expect + 1, old = 0;
    MPI_Compare_and_swap(&next, &expect, &old, MPI_LONG, 1, disp, win);
    MPI_Win_flush_local(1, win);
    expect = old == expect ? next : old;
  }
  b->cas_value[which] = expect;
}

static void rma_acc(struct bench *b, MPI_Win win, MPI_Aint disp, int n,
                    int which)
{
  long done = b->acc_calls[which], value = b->acc_value[which];
  for (int i = 0; i < n; ++i) {
    long operand = acc_operand(done + i);
    MPI_Accumulate(&operand, 1, MPI_LONG, 1, disp, 1, MPI_LONG, MPI_BXOR,
                   win);
    MPI_Win_flush(1, win);
    value ^= operand;
  }
  b->acc_calls[which] = done + n;
  b->acc_value[which] = value;
}

static void alloc_put_k(struct bench *b, int n)
{ rma_put_flush(b, b->win_alloc, DATA_OFFSET, n); }
static void alloc_get_k(struct bench *b, int n)
{ rma_get_flush(b, b->win_alloc, DATA_OFFSET, n, 0); }
static void alloc_get_local_k(struct bench *b, int n)
{ rma_get_flush(b, b->win_alloc, DATA_OFFSET, n, 1); }
static void alloc_fao_k(struct bench *b, int n)
{ rma_fetch_add(b, b->win_alloc, FAO_OFFSET, n, ON_ALLOC); }
static void alloc_cas_k(struct bench *b, int n)
{ rma_cas(b, b->win_alloc, CAS_OFFSET, n, ON_ALLOC); }
static void alloc_acc_k(struct bench *b, int n)
{ rma_acc(b, b->win_alloc, ACC_OFFSET, n, ON_ALLOC); }

static void dyn_put_k(struct bench *b, int n)
{ rma_put_flush(b, b->win_dyn, b->dyn_base + DATA_OFFSET, n); }
static void dyn_get_k(struct bench *b, int n)
{ rma_get_flush(b, b->win_dyn, b->dyn_base + DATA_OFFSET, n, 0); }
static void dyn_get_local_k(struct bench *b, int n)
{ rma_get_flush(b, b->win_dyn, b->dyn_base + DATA_OFFSET, n, 1); }
static void dyn_fao_k(struct bench *b, int n)
{ rma_fetch_add(b, b->win_dyn, b->dyn_base + FAO_OFFSET, n, ON_DYN); }
static void dyn_cas_k(struct bench *b, int n)
{ rma_cas(b, b->win_dyn, b->dyn_base + CAS_OFFSET, n, ON_DYN); }
static void dyn_acc_k(struct bench *b, int n)
{ rma_acc(b, b->win_dyn, b->dyn_base + ACC_OFFSET, n, ON_DYN); }

/* ---- raw shared memory and local copies -------------------------------- */

/* Tells the compiler that memory may have been read or changed, so no copy
 * is merged with the next one or dropped as dead. Costs no instruction. */
#define COMPILER_BARRIER() __asm__ __volatile__("" ::: "memory")

static void raw_put_k(struct bench *b, int n)
{
  for (int i = 0; i < n; ++i) {
    memcpy(b->peer + DATA_OFFSET, b->src, b->bytes);
    atomic_thread_fence(memory_order_seq_cst);
  }
}

static void raw_get_k(struct bench *b, int n)
{
  for (int i = 0; i < n; ++i) {
    memcpy(b->dst, b->peer + DATA_OFFSET, b->bytes);
    COMPILER_BARRIER();
  }
}

static void raw_fao_k(struct bench *b, int n)
{
  long *target = (long *)(void *)(b->peer + FAO_OFFSET);
  for (int i = 0; i < n; ++i) {
    b->sink += __atomic_fetch_add(target, 1L, __ATOMIC_SEQ_CST);
  }
  b->fao_calls[ON_RAW] += n;
}

static void raw_cas_k(struct bench *b, int n)
{
  long *target = (long *)(void *)(b->peer + CAS_OFFSET);
  long expect = b->cas_value[ON_RAW];
  for (int i = 0; i < n; ++i) {
    long seen = expect;
    if (__atomic_compare_exchange_n(target, &seen, expect + 1, 0,
                                    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
      expect = expect + 1;
    } else {
      expect = seen;
    }
  }
  b->cas_value[ON_RAW] = expect;
}

/* The result is unused, so GCC emits a plain `lock xor`. */
static void raw_acc_k(struct bench *b, int n)
{
  long *target = (long *)(void *)(b->peer + ACC_OFFSET);
  long done = b->acc_calls[ON_RAW], value = b->acc_value[ON_RAW];
  for (int i = 0; i < n; ++i) {
    long operand = acc_operand(done + i);
    __atomic_fetch_xor(target, operand, __ATOMIC_SEQ_CST);
    value ^= operand;
  }
  b->acc_calls[ON_RAW] = done + n;
  b->acc_value[ON_RAW] = value;
}

static void local_memcpy_k(struct bench *b, int n)
{
  for (int i = 0; i < n; ++i) {
    memcpy(b->dst, b->src, b->bytes);
    COMPILER_BARRIER();
  }
}

/* ---- kernel and row tables --------------------------------------------- */

enum kernel_id {
  K_DART_PUT_BLOCKING, K_DART_GET_BLOCKING, K_DART_PUT_FLUSH,
  K_DART_GET_FLUSH_LOCAL, K_DART_FAO, K_DART_CAS, K_DART_ACC,
  K_ALLOC_PUT, K_ALLOC_GET, K_ALLOC_GET_LOCAL, K_ALLOC_FAO, K_ALLOC_CAS,
  K_ALLOC_ACC,
  K_DYN_PUT, K_DYN_GET, K_DYN_GET_LOCAL, K_DYN_FAO, K_DYN_CAS, K_DYN_ACC,
  K_RAW_PUT, K_RAW_GET, K_RAW_FAO, K_RAW_CAS, K_RAW_ACC, K_LOCAL_MEMCPY,
  NUM_KERNELS,
  K_NONE = -1
};

/* Kernel needs: only at 8 B, unit 1 on my node, a working
 * MPI_Compare_and_swap. */
enum { ATOMIC = 1, PEER = 2, MPI_CAS = 4 };

static const struct {
  kernel_fn fn;
  int       needs;
} kernels[NUM_KERNELS] = {
  [K_DART_PUT_BLOCKING]    = { dart_put_blocking_k, 0 },
  [K_DART_GET_BLOCKING]    = { dart_get_blocking_k, 0 },
  [K_DART_PUT_FLUSH]       = { dart_put_flush_k, 0 },
  [K_DART_GET_FLUSH_LOCAL] = { dart_get_flush_local_k, 0 },
  [K_DART_FAO]             = { dart_fetch_add_k, ATOMIC },
  [K_DART_CAS]             = { dart_cas_k, ATOMIC },
  [K_DART_ACC]             = { dart_acc_k, ATOMIC },
  [K_ALLOC_PUT]            = { alloc_put_k, 0 },
  [K_ALLOC_GET]            = { alloc_get_k, 0 },
  [K_ALLOC_GET_LOCAL]      = { alloc_get_local_k, 0 },
  [K_ALLOC_FAO]            = { alloc_fao_k, ATOMIC },
  [K_ALLOC_CAS]            = { alloc_cas_k, ATOMIC | MPI_CAS },
  [K_ALLOC_ACC]            = { alloc_acc_k, ATOMIC },
  [K_DYN_PUT]              = { dyn_put_k, 0 },
  [K_DYN_GET]              = { dyn_get_k, 0 },
  [K_DYN_GET_LOCAL]        = { dyn_get_local_k, 0 },
  [K_DYN_FAO]              = { dyn_fao_k, ATOMIC },
  [K_DYN_CAS]              = { dyn_cas_k, ATOMIC | MPI_CAS },
  [K_DYN_ACC]              = { dyn_acc_k, ATOMIC },
  [K_RAW_PUT]              = { raw_put_k, PEER },
  [K_RAW_GET]              = { raw_get_k, PEER },
  [K_RAW_FAO]              = { raw_fao_k, ATOMIC | PEER },
  [K_RAW_CAS]              = { raw_cas_k, ATOMIC | PEER },
  [K_RAW_ACC]              = { raw_acc_k, ATOMIC | PEER },
  [K_LOCAL_MEMCPY]         = { local_memcpy_k, 0 },
};

/* One table row: a DART operation and what it is compared with. */
static const struct {
  const char *name;
  int         dart, alloc, dyn, raw;
} rows[] = {
  { "dart_put_blocking", K_DART_PUT_BLOCKING, K_ALLOC_PUT, K_DYN_PUT,
    K_RAW_PUT },
  { "dart_get_blocking", K_DART_GET_BLOCKING, K_ALLOC_GET, K_DYN_GET,
    K_RAW_GET },
  { "dart_put + dart_flush", K_DART_PUT_FLUSH, K_ALLOC_PUT, K_DYN_PUT,
    K_RAW_PUT },
  { "dart_get + dart_flush_local", K_DART_GET_FLUSH_LOCAL, K_ALLOC_GET_LOCAL,
    K_DYN_GET_LOCAL, K_RAW_GET },
  { "dart_fetch_and_op SUM long + dart_flush_local", K_DART_FAO, K_ALLOC_FAO,
    K_DYN_FAO, K_RAW_FAO },
  { "dart_compare_and_swap long + dart_flush_local", K_DART_CAS, K_ALLOC_CAS,
    K_DYN_CAS, K_RAW_CAS },
  { "dart_accumulate BXOR long + dart_flush", K_DART_ACC, K_ALLOC_ACC,
    K_DYN_ACC, K_RAW_ACC },
  { "local memcpy (reference)", K_NONE, K_NONE, K_NONE, K_LOCAL_MEMCPY },
};
enum { NUM_ROWS = sizeof rows / sizeof rows[0] };

/* ---- measuring --------------------------------------------------------- */

static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int iters_for(size_t bytes, int iters)
{
  if (bytes <= FULL_ITERS_UP_TO) {
    return iters;
  }
  long long n = (long long)iters * FULL_ITERS_UP_TO / (long long)bytes;
  int floor = iters < MIN_LARGE_ITERS ? iters : MIN_LARGE_ITERS;
  return n < floor ? floor : (int)n;
}

/* Runs every active kernel once to warm up (n operations, timed to size
 * its rounds: ROUND_BUDGET_NS), then `reps` rounds in which each active
 * kernel runs one untimed and its n timed operations, and stores per
 * kernel the median time per operation (MISSING for inactive kernels).
 * Interleaving the kernels inside a round exposes all of them to the same
 * drift. Returns how many kernels ran rounds shorter than n. */
static int measure_size(struct bench *b, const int *active, int reps, int n,
                        double *samples, double *result)
{
  int iters[NUM_KERNELS], shortened = 0;
  for (int k = 0; k < NUM_KERNELS; ++k) {
    iters[k] = n;
    if (active[k]) {
      double start = now_ns();
      kernels[k].fn(b, n);
      double took = now_ns() - start;
      if (took > ROUND_BUDGET_NS) {
        int floor = n < MIN_LARGE_ITERS ? n : MIN_LARGE_ITERS;
        int fit = (int)(n * (ROUND_BUDGET_NS / took));
        iters[k] = fit < floor ? floor : fit;
        shortened += iters[k] < n;
      } else if (took < ROUND_MIN_NS) {
        double stretch = took > 0 ? ROUND_MIN_NS / took : ROUND_STRETCH_MAX;
        if (stretch > ROUND_STRETCH_MAX) {
          stretch = ROUND_STRETCH_MAX;
        }
        double more = n * stretch;
        iters[k] = more < 1 << 26 ? (int)more : 1 << 26;
      }
    }
  }
  for (int r = 0; r < reps; ++r) {
    for (int k = 0; k < NUM_KERNELS; ++k) {
      if (active[k]) {
        /* One untimed operation first, so that every kernel starts its
         * round with its buffers as warm as the others' (large messages
         * share the caches, and the kernels run interleaved). */
        kernels[k].fn(b, 1);
        double start = now_ns();
        kernels[k].fn(b, iters[k]);
        samples[k * reps + r] = (now_ns() - start) / iters[k];
      }
    }
  }
  for (int k = 0; k < NUM_KERNELS; ++k) {
    result[k] = MISSING;
    if (active[k]) {
      qsort(samples + k * reps, (size_t)reps, sizeof(double),
            compare_doubles);
      result[k] = samples[k * reps + reps / 2];
    }
  }
  return shortened;
}

/* DART round trip: what a put stored, a get must bring back. */
static int check_put_get(struct bench *b, unsigned salt)
{
  for (size_t i = 0; i < b->bytes; ++i) {
    b->src[i] = (char)(i * 31u + salt);
  }
  CHECK(dart_put_blocking(b->data, b->src, b->bytes, DART_TYPE_BYTE,
                          DART_TYPE_BYTE));
  memset(b->dst, 0, b->bytes);
  CHECK(dart_get_blocking(b->dst, b->data, b->bytes, DART_TYPE_BYTE,
                          DART_TYPE_BYTE));
  if (memcmp(b->src, b->dst, b->bytes) != 0) {
    fprintf(stderr, "bench-latency: %zu B: dart_get_blocking did not return "
                    "what dart_put_blocking stored\n", b->bytes);
    return 1;
  }
  return 0;
}

/* After the atomic kernels: unit 1's three longs of every model must show
 * every call (fetch-and-op: the count; compare-and-swap: the end of the
 * chain of swaps; accumulate: the xor of all operands). A kernel whose
 * target is wrong gets MISSING as its result, so that no time is reported
 * for it. Returns 1 when any was wrong. */
static int check_atomics(struct bench *b, double *result)
{
  static const struct {
    const char *name;
    int         model, fao, cas, acc;
  } models[] = {
    { "DART", ON_DART, K_DART_FAO, K_DART_CAS, K_DART_ACC },
    { "MPI Win_allocate", ON_ALLOC, K_ALLOC_FAO, K_ALLOC_CAS, K_ALLOC_ACC },
    { "MPI dynamic window", ON_DYN, K_DYN_FAO, K_DYN_CAS, K_DYN_ACC },
    { "raw", ON_RAW, K_RAW_FAO, K_RAW_CAS, K_RAW_ACC },
  };
  int bad = 0;
  for (size_t i = 0; i < sizeof models / sizeof models[0]; ++i) {
    int m = models[i].model;
    long seen[3] = { 0, 0, 0 };
    switch (m) {
    case ON_DART:
      CHECK(dart_get_blocking(seen, b->fao, 3, DART_TYPE_LONG,
                              DART_TYPE_LONG));
      break;
    case ON_ALLOC:
      MPI_Get(seen, 3, MPI_LONG, 1, FAO_OFFSET, 3, MPI_LONG, b->win_alloc);
      MPI_Win_flush(1, b->win_alloc);
      break;
    case ON_DYN:
      MPI_Get(seen, 3, MPI_LONG, 1, b->dyn_base + FAO_OFFSET, 3, MPI_LONG,
              b->win_dyn);
      MPI_Win_flush(1, b->win_dyn);
      break;
    default:
      if (b->peer == NULL) {
        continue;
      }
      for (int j = 0; j < 3; ++j) {
        seen[j] = __atomic_load_n((long *)(void *)(b->peer + FAO_OFFSET) + j,
                                  __ATOMIC_SEQ_CST);
      }
      break;
    }
    const long want[3] = { b->fao_calls[m], b->cas_value[m],
                           b->acc_value[m] };
    const int kernel[3] = { models[i].fao, models[i].cas, models[i].acc };
    static const char *what[3] = { "fetch-and-op (count of +1)",
                                   "compare-and-swap (end of the chain)",
                                   "accumulate (xor of the operands)" };
    for (int j = 0; j < 3; ++j) {
      if (seen[j] != want[j]) {
        fprintf(stderr, "bench-latency: %s %s: target holds %ld, origin "
                        "expected %ld; no time reported for it\n",
                models[i].name, what[j], seen[j], want[j]);
        result[kernel[j]] = MISSING;
        bad = 1;
      }
    }
  }
  return bad;
}

/* ---- output ------------------------------------------------------------ */

static const char *fmt_ns(double v, char *buf, size_t cap)
{
  if (v < 0) {
    snprintf(buf, cap, "n/a");
  } else {
    snprintf(buf, cap, "%.1f", v);
  }
  return buf;
}

static const char *fmt_ratio(double a, double b, char *buf, size_t cap)
{
  if (a < 0 || b <= 0) {
    snprintf(buf, cap, "n/a");
  } else {
    /* Small ratios keep two significant digits. */
    snprintf(buf, cap, a / b < 0.1 ? "%.2g" : "%.2f", a / b);
  }
  return buf;
}

static void csv_value(FILE *csv, double v, int last)
{
  if (v >= 0) {
    fprintf(csv, "%.3f", v);
  }
  fputc(last ? '\n' : ',', csv);
}

static double pick(const double *result, int k)
{
  return k == K_NONE ? MISSING : result[k];
}

static void report_size(struct bench *b, int n, int shortened,
                        const double *result, int same_node, FILE *csv)
{
  char label[32], c[7][32];
  int bandwidth = b->bytes >= BANDWIDTH_FROM;
  printf("\n### %s (median of rounds of %d operations",
         bench_size_label(b->bytes, label, sizeof label), n);
  if (shortened > 0) {
    printf("; fewer for the %d kernels slower than %.0f ms a round",
           shortened, ROUND_BUDGET_NS * 1e-6);
  }
  printf(")\n\n");
  printf("| operation | DART ns | best plain MPI ns (Win_allocate) | "
         "MPI dynamic-window ns | raw shm copy ns | DART / raw | "
         "DART / MPI-allocate | DART / MPI-dynamic |%s\n",
         bandwidth ? " DART GB/s |" : "");
  printf("|---|---:|---:|---:|---:|---:|---:|---:|%s\n",
         bandwidth ? "---:|" : "");
  for (int r = 0; r < NUM_ROWS; ++r) {
    double d = pick(result, rows[r].dart), a = pick(result, rows[r].alloc),
           y = pick(result, rows[r].dyn), w = pick(result, rows[r].raw);
    if (d < 0 && a < 0 && y < 0 && w < 0) {
      continue; /* an atomic row at a size without atomics */
    }
    /* The reference row's bandwidth is memcpy's. */
    double ns_for_bw = rows[r].dart == K_NONE ? w : d;
    double gbs = ns_for_bw > 0 ? (double)b->bytes / ns_for_bw : MISSING;
    printf("| %s | %s | %s | %s | %s | %s | %s | %s |", rows[r].name,
           fmt_ns(d, c[0], 32), fmt_ns(a, c[1], 32), fmt_ns(y, c[2], 32),
           fmt_ns(w, c[3], 32), fmt_ratio(d, w, c[4], 32),
           fmt_ratio(d, a, c[5], 32), fmt_ratio(d, y, c[6], 32));
    if (bandwidth) {
      if (gbs < 0) {
        printf(" n/a |");
      } else {
        printf(" %.2f |", gbs);
      }
    }
    printf("\n");
    if (csv != NULL) {
      fprintf(csv, "%zu,%s,%d,%d,", b->bytes, rows[r].name, n, same_node);
      csv_value(csv, d, 0);
      csv_value(csv, a, 0);
      csv_value(csv, y, 0);
      csv_value(csv, w, 0);
      csv_value(csv, d >= 0 && w > 0 ? d / w : MISSING, 0);
      csv_value(csv, d >= 0 && a > 0 ? d / a : MISSING, 0);
      csv_value(csv, d >= 0 && y > 0 ? d / y : MISSING, 0);
      csv_value(csv, gbs, 1);
    }
  }
  fflush(stdout);
  if (csv != NULL) {
    fflush(csv);
  }
}

/* First line of MPI_Get_library_version, tabs made spaces. */
static void mpi_library(char *out, size_t cap)
{
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  text[len < (int)sizeof text ? len : (int)sizeof text - 1] = '\0';
  size_t cut = strcspn(text, "\n");
  text[cut] = '\0';
  while (cut > 0 && (text[cut - 1] == ' ' || text[cut - 1] == ',')) {
    text[--cut] = '\0';
  }
  for (char *p = text; *p != '\0'; ++p) {
    if (*p == '\t') {
      *p = ' ';
    }
  }
  snprintf(out, cap, "%s", text);
}

/* ---- set-up ------------------------------------------------------------ */

/* The shared-memory communicator as DART cuts it: MPI's node split, cut
 * further into simulated nodes of DART_UNITS_PER_NODE units when set
 * (same rule as the runtime: node-local rank / units per node). */
static MPI_Comm node_comm_of(MPI_Comm comm, int me)
{
  MPI_Comm shared, node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &shared);
  const char *per_node = getenv("DART_UNITS_PER_NODE");
  long p = per_node != NULL ? strtol(per_node, NULL, 10) : 0;
  if (p <= 0) {
    return shared;
  }
  int rank;
  MPI_Comm_rank(shared, &rank);
  MPI_Comm_split(shared, (int)(rank / p), me, &node);
  MPI_Comm_free(&shared);
  return node;
}

/* Rank of `world_rank` (of comm) in node_comm, or MPI_UNDEFINED. */
static int rank_in(MPI_Comm comm, MPI_Comm node_comm, int world_rank)
{
  MPI_Group g_comm, g_node;
  int rank = MPI_UNDEFINED;
  MPI_Comm_group(comm, &g_comm);
  MPI_Comm_group(node_comm, &g_node);
  MPI_Group_translate_ranks(g_comm, 1, &world_rank, g_node, &rank);
  MPI_Group_free(&g_comm);
  MPI_Group_free(&g_node);
  return rank;
}

static void *aligned_buffer(size_t bytes)
{
  void *p = NULL;
  if (posix_memalign(&p, 4096, bytes) != 0) {
    die("posix_memalign");
  }
  memset(p, 0, bytes);
  return p;
}

/* ---- arguments --------------------------------------------------------- */

static void usage(FILE *to)
{
  fprintf(to,
          "usage: bench-latency [--reps R] [--iters K] [--max-bytes B] "
          "[--csv FILE]\n"
          "  --reps R       rounds per size; the median is reported "
          "(default 21)\n"
          "  --iters K      operations per round up to 16 KiB; fewer above "
          "(default 1000)\n"
          "  --max-bytes B  largest message (default 4194304: every power "
          "of two\n"
          "                 from 1 B to 4 MiB; atomics run when it is at "
          "least 8)\n"
          "  --csv FILE     also write the numbers as CSV (unit 0)\n"
          "Run with 2 units: unit 0 measures, unit 1 is the target.\n");
}

/* Only one unit reports a bad command line when the launcher says which
 * one is first (MPI is not running yet). */
static int first_unit_by_environment(void)
{
  const char *vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK" };
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i) {
    const char *v = getenv(vars[i]);
    if (v != NULL) {
      return strcmp(v, "0") == 0;
    }
  }
  return 1;
}

int main(int argc, char **argv)
{
  long long reps = 21, iters = 1000, max_bytes = 4194304;
  const char *csv_path = NULL;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    int has_value = i + 1 < argc;
    int ok = 0;
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      if (first_unit_by_environment()) {
        usage(stdout);
      }
      return 0;
    } else if (strcmp(arg, "--reps") == 0 && has_value) {
      ok = bench_parse_count(argv[++i], 1000000, &reps) == 0;
    } else if (strcmp(arg, "--iters") == 0 && has_value) {
      ok = bench_parse_count(argv[++i], 100000000, &iters) == 0;
    } else if (strcmp(arg, "--max-bytes") == 0 && has_value) {
      ok = bench_parse_count(argv[++i], (long long)1 << 40, &max_bytes) == 0;
    } else if (strcmp(arg, "--csv") == 0 && has_value) {
      csv_path = argv[++i];
      ok = csv_path[0] != '\0';
    }
    if (!ok) {
      if (first_unit_by_environment()) {
        fprintf(stderr, "bench-latency: bad argument: %s%s%s\n", arg,
                i < argc && argv[i] != arg ? " " : "",
                i < argc && argv[i] != arg ? argv[i] : "");
        usage(stderr);
      }
      return 2;
    }
  }

  CHECK(dart_init(&argc, &argv));
  dart_global_unit_t myid;
  size_t units;
  CHECK(dart_myid(&myid));
  CHECK(dart_size(&units));
  int me = myid.id;
  if (units < 2) {
    if (me == 0) {
      printf("bench-latency: needs 2 units (unit 0 measures, unit 1 is the "
             "target); with %zu unit there is nothing to measure\n", units);
    }
    CHECK(dart_exit());
    return 0;
  }

  /* Sizes to run, and the largest, which sizes every buffer. */
  int num_sizes = 0;
  while (num_sizes <= MAX_SIZE_LOG2 &&
         ((size_t)1 << num_sizes) <= (size_t)max_bytes) {
    ++num_sizes;
  }
  size_t top = (size_t)1 << (num_sizes - 1);
  size_t region = DATA_OFFSET + top;

  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);

  /* Which osc is in effect: dart_init started MPI (and may have chosen
   * it); the MPI windows below are created under the same setting. */
  const char *osc = getenv("OMPI_MCA_osc");
  int mpi_cas_ok = 1;
#ifdef OPEN_MPI
  /* Open MPI's default osc/rdma crashes in MPI_Compare_and_swap. */
  mpi_cas_ok = osc != NULL && osc[0] != '^' && strstr(osc, "ucx") != NULL;
#endif

  /* Node structure as DART sees it. */
  MPI_Comm node_comm = node_comm_of(comm, me);
  int peer_node_rank = rank_in(comm, node_comm, 1);
  int same_node = me <= 1 && peer_node_rank != MPI_UNDEFINED &&
                  rank_in(comm, node_comm, 0) != MPI_UNDEFINED;

  struct bench b;
  memset(&b, 0, sizeof b);
  b.src = aligned_buffer(top);
  b.dst = aligned_buffer(top);

  /* DART segment: one portion per unit; unit 1's is the target. */
  dart_gptr_t segment, mine;
  CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, region + SLACK,
                                   DART_TYPE_BYTE, &segment));
  mine = segment;
  CHECK(dart_gptr_setunit(&mine, DART_TEAM_UNIT_ID(me)));
  void *my_portion = NULL;
  CHECK(dart_gptr_getaddr(mine, &my_portion));
  if (my_portion == NULL) {
    die("dart_gptr_getaddr (own portion)");
  }
  memset(my_portion, 0, region + SLACK);
  /* The target's data starts at the same offset within a page as the raw
   * kernel's (page start + DATA_OFFSET): copies whose source and target
   * agree in the low 12 address bits stall on 4K aliasing, so a different
   * page offset alone can double an 8-byte copy's time. */
  uint64_t page_shift = (uint64_t)(SLACK - (uintptr_t)my_portion % SLACK) %
                        SLACK;
  MPI_Bcast(&page_shift, 1, MPI_UINT64_T, 1, comm);
  b.fao = segment;
  CHECK(dart_gptr_setunit(&b.fao, DART_TEAM_UNIT_ID(1)));
  CHECK(dart_gptr_incaddr(&b.fao, (int64_t)page_shift));
  b.cas = b.fao;
  CHECK(dart_gptr_incaddr(&b.cas, CAS_OFFSET));
  b.acc = b.fao;
  CHECK(dart_gptr_incaddr(&b.acc, ACC_OFFSET));
  b.data = b.fao;
  CHECK(dart_gptr_incaddr(&b.data, DATA_OFFSET));

  /* MPI_Win_allocate window. */
  void *alloc_mem = NULL;
  MPI_Win_allocate((MPI_Aint)region, 1, MPI_INFO_NULL, comm, &alloc_mem,
                   &b.win_alloc);
  memset(alloc_mem, 0, region);

  /* Dynamic window with malloc'd memory attached. */
  void *dyn_mem = aligned_buffer(region);
  MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &b.win_dyn);
  MPI_Win_attach(b.win_dyn, dyn_mem, (MPI_Aint)region);
  MPI_Aint my_addr, *addrs = malloc(units * sizeof(MPI_Aint));
  if (addrs == NULL) {
    die("malloc");
  }
  MPI_Get_address(dyn_mem, &my_addr);
  MPI_Allgather(&my_addr, 1, MPI_AINT, addrs, 1, MPI_AINT, comm);
  b.dyn_base = addrs[1];
  free(addrs);

  /* Shared window on the (possibly simulated) node, each member's part
   * allocated on its own as DART allocates its segments. */
  void *shm_mem = NULL;
  MPI_Win win_shm;
  MPI_Info shm_info;
  MPI_Info_create(&shm_info);
  MPI_Info_set(shm_info, "alloc_shared_noncontig", "true");
  MPI_Win_allocate_shared((MPI_Aint)(region + SLACK), 1, shm_info, node_comm,
                          &shm_mem, &win_shm);
  MPI_Info_free(&shm_info);
  if (shm_mem != NULL) {
    memset(shm_mem, 0, region + SLACK);
  }
  if (me == 0 && same_node) {
    MPI_Aint peer_size;
    int peer_disp;
    void *peer_mem = NULL;
    MPI_Win_shared_query(win_shm, peer_node_rank, &peer_size, &peer_disp,
                         &peer_mem);
    uintptr_t p = ((uintptr_t)peer_mem + SLACK - 1) & ~(uintptr_t)(SLACK - 1);
    b.peer = (char *)p;
  }

  MPI_Win_lock_all(MPI_MODE_NOCHECK, b.win_alloc);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, b.win_dyn);
  CHECK(dart_barrier(DART_TEAM_ALL));
  MPI_Barrier(comm);

  int failed = 0;
  if (me == 0) {
    char library[MPI_MAX_LIBRARY_VERSION_STRING];
    mpi_library(library, sizeof library);
    const char *cliques = getenv("MPIR_CVAR_NUM_CLIQUES");
    const char *per_node = getenv("DART_UNITS_PER_NODE");
    printf("bench-latency: %zu units (unit 0 origin, unit 1 target%s); "
           "MPI: %s; OMPI_MCA_osc=%s; target on the same node: %s",
           units, units > 2 ? ", the rest idle" : "", library,
           osc != NULL ? osc : "(not set)", same_node ? "yes" : "no");
    if (per_node != NULL) {
      printf(" (DART_UNITS_PER_NODE=%s)", per_node);
    }
    if (cliques != NULL) {
      printf(" (MPIR_CVAR_NUM_CLIQUES=%s)", cliques);
    }
    printf("\n");
    printf("Times: ns per operation on unit 0, median of %lld rounds after "
           "a warm-up, all kernels interleaved per round, each kernel's "
           "timed operations preceded by one untimed one; a round lasts "
           "at least about %.0f us (more operations than the iters "
           "column where they are fast) and at most about %.0f ms. "
           "MPI columns: "
           "MPI_Put + MPI_Win_flush for puts, MPI_Get + MPI_Win_flush for "
           "dart_get_blocking, MPI_Get + MPI_Win_flush_local for dart_get + "
           "dart_flush_local, MPI_Fetch_and_op / MPI_Compare_and_swap + "
           "MPI_Win_flush_local and MPI_Accumulate + MPI_Win_flush for "
           "atomics. raw: memcpy + seq_cst fence into the peer's "
           "MPI_Win_allocate_shared memory (put), memcpy from it (get), "
           "__atomic builtins on it (atomics: fetch_add, "
           "compare_exchange_n, fetch_xor); n/a across nodes. Atomic "
           "results are checked after the 8 B round; a wrong one is n/a.%s "
           "GB/s = 1e9 bytes/s (DART; memcpy for the reference row).\n",
           reps, ROUND_MIN_NS * 1e-3, ROUND_BUDGET_NS * 1e-6,
           mpi_cas_ok ? ""
                            : " MPI_Compare_and_swap skipped: this osc "
                              "crashes in it (set OMPI_MCA_osc=ucx).");
    fflush(stdout);

    FILE *csv = NULL;
    if (csv_path != NULL) {
      csv = fopen(csv_path, "w");
      if (csv == NULL) {
        fprintf(stderr, "bench-latency: cannot write %s\n", csv_path);
      } else {
        fprintf(csv, "bytes,operation,iters,same_node,dart_ns,"
                     "mpi_allocate_ns,mpi_dynamic_ns,raw_shm_ns,"
                     "dart_over_raw,dart_over_mpi_allocate,"
                     "dart_over_mpi_dynamic,gb_per_s\n");
      }
    }

    double *samples = malloc((size_t)NUM_KERNELS * (size_t)reps *
                             sizeof(double));
    double result[NUM_KERNELS];
    if (samples == NULL) {
      die("malloc");
    }
    /* Keep the core busy for a moment first, so that the first (and
     * shortest) measurements do not meet a core that was idle. */
    b.bytes = 1;
    double t0 = now_ns();
    while (now_ns() - t0 < SPIN_UP_NS) {
      local_memcpy_k(&b, 1000);
    }
    t0 = now_ns();
    for (int s = 0; s < num_sizes; ++s) {
      b.bytes = (size_t)1 << s;
      int n = iters_for(b.bytes, (int)iters);
      int active[NUM_KERNELS], count = 0;
      for (int k = 0; k < NUM_KERNELS; ++k) {
        int needs = kernels[k].needs;
        active[k] = !((needs & ATOMIC) && b.bytes != ATOMIC_BYTES) &&
                    !((needs & PEER) && b.peer == NULL) &&
                    !((needs & MPI_CAS) && !mpi_cas_ok);
        count += active[k];
      }
      char label[32];
      fprintf(stderr, "bench-latency: %s: %d kernels x %lld rounds x %d "
                      "ops (%.1f s so far)\n",
              bench_size_label(b.bytes, label, sizeof label), count, reps, n,
              (now_ns() - t0) * 1e-9);
      int put_get_bad = check_put_get(&b, (unsigned)s * 17u + 3u);
      int shortened = measure_size(&b, active, (int)reps, n, samples,
                                   result);
      if (put_get_bad) {
        /* No times for DART transfers that move the wrong bytes. */
        for (int k = K_DART_PUT_BLOCKING; k <= K_DART_GET_FLUSH_LOCAL; ++k) {
          result[k] = MISSING;
        }
      }
      failed |= put_get_bad;
      if (b.bytes == ATOMIC_BYTES) {
        failed |= check_atomics(&b, result);
      }
      report_size(&b, n, shortened, result, same_node, csv);
    }
    fprintf(stderr, "bench-latency: done in %.1f s%s\n",
            (now_ns() - t0) * 1e-9, failed ? " (CHECKS FAILED)" : "");
    free(samples);
    if (csv != NULL) {
      fclose(csv);
    }
    int stop = 1;
    CHECK(dart_send(&stop, 1, DART_TYPE_INT, TAG_STOP,
                    (dart_global_unit_t){ 1 }));
  } else if (me == 1) {
    /* Stay inside DART until unit 0 is done: the blocking receive drives
     * MPI's progress engine, which RMA on some MPIs needs at the target,
     * and serves DART's atomics by message (DART_REMOTE_ATOMICS). */
    int stop = 0;
    CHECK(dart_recv(&stop, 1, DART_TYPE_INT, TAG_STOP,
                    (dart_global_unit_t){ 0 }));
  }

  MPI_Barrier(comm);
  MPI_Win_unlock_all(b.win_alloc);
  MPI_Win_unlock_all(b.win_dyn);
  MPI_Win_free(&win_shm);
  MPI_Win_detach(b.win_dyn, dyn_mem);
  MPI_Win_free(&b.win_dyn);
  MPI_Win_free(&b.win_alloc);
  CHECK(dart_barrier(DART_TEAM_ALL));
  CHECK(dart_team_memfree(segment));
  free(dyn_mem);
  free(b.src);
  free(b.dst);
  MPI_Comm_free(&node_comm);
  MPI_Comm_free(&comm);
  CHECK(dart_exit());
  return failed ? 1 : 0;
}
