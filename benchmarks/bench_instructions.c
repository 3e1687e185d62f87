/* Instructions per operation of DART's shared-memory fast paths next to the
 * raw copy or CPU atomic they stand for: the kernels of bench-latency's
 * node-peer rows, one unit on its own portion (the same mapped fast path a
 * node peer takes), each in a function of its own so that
 * benchmarks/count_instructions.sh can read per-kernel counts from
 * valgrind --tool=callgrind.
 *
 * Why: at 1 B to 1 KiB an operation takes 2-15 ns, and this VM moves
 * whole launches of bench-latency by 15-20 % (the same binary twice in
 * alternating launches); an instruction count is the same in every run
 * (to within half an instruction per operation: the progress probe of
 * model/target.c reads the clock and enters MPI only when it is due),
 * so a change to the fast path of one or two instructions shows. It is
 * not a time: valgrind runs the AVX2 variant of the copy entries
 * (rma/onesided.c) whatever the CPU, and says nothing of stalls.
 *
 * Run alone (no valgrind) it checks what every kernel left in memory, so
 * the ctest smoke run fails if a kernel stops doing its work.
 *
 * Usage: bench-instructions [--bytes B] [--iters K] */
#include "bench_args.h"

#include <dash/dart/if/dart.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The portion: three longs for the atomics in one cache line, then the
 * data (as in bench-latency). */
enum { FAO_OFFSET = 0, CAS_OFFSET = 8, ACC_OFFSET = 16, DATA_OFFSET = 64 };
enum { MAX_BYTES = 1 << 20 };

struct bench {
  dart_gptr_t data, fao, cas, acc; /* in the portion */
  char       *mine;                /* the portion, as this unit maps it */
  char       *buf;                 /* local buffer */
  size_t      bytes;
  long        sink;
};

static void die(const char *what)
{
  fprintf(stderr, "bench-instructions: %s failed\n", what);
  dart_abort(DART_EXIT_ABORT);
}

#define CHECK(call)                                                         \
  do {                                                                      \
    if ((call) != DART_OK) {                                                \
      die(#call);                                                           \
    }                                                                       \
  } while (0)

/* Keeps the compiler from merging or dropping copies. */
#define COMPILER_BARRIER() __asm__ __volatile__("" ::: "memory")

/* The kernels: noinline, named kernel_<row>_<model>, which is what
 * count_instructions.sh looks for. */
#define KERNEL __attribute__((noinline)) static void

KERNEL kernel_get_dart(struct bench *b, int n)
{
  for (int i = 0; i < n; ++i) {
    CHECK(dart_get_blocking(b->buf, b->data, b->bytes, DART_TYPE_BYTE,
                            DART_TYPE_BYTE));
    COMPILER_BARRIER();
  }
}

KERNEL kernel_get_raw(struct bench *b, int n)
{
  for (int i = 0; i < n; ++i) {
    memcpy(b->buf, b->mine + DATA_OFFSET, b->bytes);
    COMPILER_BARRIER();
  }
}

KERNEL kernel_put_dart(struct bench *b, int n)
{
  for (int i = 0; i < n; ++i) {
    CHECK(dart_put_blocking(b->data, b->buf, b->bytes, DART_TYPE_BYTE,
                            DART_TYPE_BYTE));
    COMPILER_BARRIER();
  }
}

KERNEL kernel_put_raw(struct bench *b, int n)
{
  for (int i = 0; i < n; ++i) {
    memcpy(b->mine + DATA_OFFSET, b->buf, b->bytes);
    atomic_thread_fence(memory_order_seq_cst);
  }
}

KERNEL kernel_getflush_dart(struct bench *b, int n)
{
  for (int i = 0; i < n; ++i) {
    CHECK(dart_get(b->buf, b->data, b->bytes, DART_TYPE_BYTE,
                   DART_TYPE_BYTE));
    CHECK(dart_flush_local(b->data));
    COMPILER_BARRIER();
  }
}

KERNEL kernel_putflush_dart(struct bench *b, int n)
{
  for (int i = 0; i < n; ++i) {
    CHECK(dart_put(b->data, b->buf, b->bytes, DART_TYPE_BYTE,
                   DART_TYPE_BYTE));
    CHECK(dart_flush(b->data));
  }
}

KERNEL kernel_fao_dart(struct bench *b, int n)
{
  const long one = 1;
  for (int i = 0; i < n; ++i) {
    long old = 0;
    CHECK(dart_fetch_and_op(b->fao, &one, &old, DART_TYPE_LONG, DART_OP_SUM));
    CHECK(dart_flush_local(b->fao));
    b->sink += old;
  }
}

KERNEL kernel_fao_raw(struct bench *b, int n)
{
  long *target = (long *)(void *)(b->mine + FAO_OFFSET);
  for (int i = 0; i < n; ++i) {
    b->sink += __atomic_fetch_add(target, 1L, __ATOMIC_SEQ_CST);
  }
}

KERNEL kernel_cas_dart(struct bench *b, int n)
{
  long expect = *(long *)(void *)(b->mine + CAS_OFFSET);
  for (int i = 0; i < n; ++i) {
    long next = expect + 1, old = 0;
    CHECK(dart_compare_and_swap(b->cas, &next, &expect, &old,
                                DART_TYPE_LONG));
    CHECK(dart_flush_local(b->cas));
    expect = old == expect ? next : old;
  }
}

KERNEL kernel_cas_raw(struct bench *b, int n)
{
  long *target = (long *)(void *)(b->mine + CAS_OFFSET);
  long expect = *target;
  for (int i = 0; i < n; ++i) {
    long seen = expect;
    if (__atomic_compare_exchange_n(target, &seen, expect + 1, false,
                                    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
      ++expect;
    } else {
      expect = seen;
    }
  }
}

KERNEL kernel_acc_dart(struct bench *b, int n)
{
  for (int i = 0; i < n; ++i) {
    long operand = (long)(i + 1);
    CHECK(dart_accumulate(b->acc, &operand, 1, DART_TYPE_LONG,
                          DART_OP_BXOR));
    CHECK(dart_flush(b->acc));
  }
}

KERNEL kernel_acc_raw(struct bench *b, int n)
{
  long *target = (long *)(void *)(b->mine + ACC_OFFSET);
  for (int i = 0; i < n; ++i) {
    __atomic_fetch_xor(target, (long)(i + 1), __ATOMIC_SEQ_CST);
  }
}

static void expect_long(const struct bench *b, int offset, long want,
                        const char *what)
{
  long got;
  memcpy(&got, b->mine + offset, sizeof got);
  if (got != want) {
    fprintf(stderr, "bench-instructions: %s left %ld, expected %ld\n", what,
            got, want);
    dart_abort(DART_EXIT_ABORT);
  }
}

static void expect_data(const struct bench *b, unsigned char value,
                        const char *what)
{
  for (size_t i = 0; i < b->bytes; ++i) {
    if ((unsigned char)b->mine[DATA_OFFSET + i] != value ||
        (unsigned char)b->buf[i] != value) {
      fprintf(stderr, "bench-instructions: %s: byte %zu differs\n", what, i);
      dart_abort(DART_EXIT_ABORT);
    }
  }
}

/* Each DART operation once before its kernel (the first access to a
 * target resolves it and fills the thread's cache, which is not what is
 * counted), then every kernel once with `iters` operations; the data and
 * atomic targets are checked after them. */
static void run(struct bench *b, int iters)
{
  const long one = 1;
  long old = 0, zero = 0;
  char *target = b->mine + DATA_OFFSET;
  CHECK(dart_put_blocking(b->data, b->buf, b->bytes, DART_TYPE_BYTE,
                          DART_TYPE_BYTE));
  CHECK(dart_get_blocking(b->buf, b->data, b->bytes, DART_TYPE_BYTE,
                          DART_TYPE_BYTE));
  /* Each pair of kernels: the put moves `value` from the buffer into the
   * portion, the get back into the cleared buffer. */
  memset(b->buf, 0x5a, b->bytes);
  memset(target, 0, b->bytes);
  kernel_put_dart(b, iters);
  memset(b->buf, 0, b->bytes);
  kernel_get_dart(b, iters);
  expect_data(b, 0x5a, "put, get");
  memset(b->buf, 0x3c, b->bytes);
  kernel_putflush_dart(b, iters);
  memset(b->buf, 0, b->bytes);
  kernel_getflush_dart(b, iters);
  expect_data(b, 0x3c, "put + flush, get + flush_local");
  memset(b->buf, 0x77, b->bytes);
  kernel_put_raw(b, iters);
  memset(b->buf, 0, b->bytes);
  kernel_get_raw(b, iters);
  expect_data(b, 0x77, "raw copies");

  CHECK(dart_fetch_and_op(b->fao, &one, &old, DART_TYPE_LONG, DART_OP_SUM));
  kernel_fao_dart(b, iters);
  kernel_fao_raw(b, iters);
  expect_long(b, FAO_OFFSET, 2L * iters + 1, "fetch-and-op");
  CHECK(dart_compare_and_swap(b->cas, &one, &zero, &old, DART_TYPE_LONG));
  kernel_cas_dart(b, iters);
  kernel_cas_raw(b, iters);
  expect_long(b, CAS_OFFSET, 2L * iters + 1, "compare-and-swap");
  CHECK(dart_accumulate(b->acc, &one, 1, DART_TYPE_LONG, DART_OP_BXOR));
  kernel_acc_dart(b, iters);
  kernel_acc_raw(b, iters);
  /* 1, then 1 to iters twice, which cancel out. */
  expect_long(b, ACC_OFFSET, 1, "accumulate");
  CHECK(dart_flush_all(b->data));
}

static void usage(FILE *to)
{
  fprintf(to, "usage: bench-instructions [--bytes B] [--iters K]\n"
              "  --bytes B  size of the put and get kernels (default 8,"
              " at most %d)\n"
              "  --iters K  operations in each counted call (default"
              " 1000)\n"
              "Run with 1 unit, under valgrind --tool=callgrind:"
              " benchmarks/count_instructions.sh.\n",
              MAX_BYTES);
}

int main(int argc, char **argv)
{
  long long bytes = 8, iters = 1000;
  for (int i = 1; i < argc; ++i) {
    long long *out = NULL, max = 0;
    if (strcmp(argv[i], "--bytes") == 0) {
      out = &bytes;
      max = MAX_BYTES;
    } else if (strcmp(argv[i], "--iters") == 0) {
      out = &iters;
      max = 1 << 24;
    } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      usage(stdout);
      return 0;
    }
    if (out == NULL || i + 1 == argc ||
        bench_parse_count(argv[++i], max, out) != 0) {
      usage(stderr);
      return 2;
    }
  }
  if (dart_init(&argc, &argv) != DART_OK) {
    fprintf(stderr, "bench-instructions: dart_init failed\n");
    return 1;
  }
  size_t units = 0;
  CHECK(dart_size(&units));
  if (units != 1) {
    fprintf(stderr, "bench-instructions: run with 1 unit, not %zu\n", units);
    dart_exit();
    return 2;
  }
  struct bench b = { .bytes = (size_t)bytes };
  size_t total = DATA_OFFSET + (size_t)bytes;
  dart_gptr_t base;
  /* A segment of DART_TEAM_ALL, as bench-latency's (the local pool of
   * dart_memalloc takes the path of portions that may shrink). */
  CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, total, DART_TYPE_BYTE,
                                   &base));
  void *mine = NULL;
  CHECK(dart_gptr_getaddr(base, &mine));
  b.mine = mine;
  memset(b.mine, 0, total);
  b.fao = b.cas = b.acc = b.data = base;
  CHECK(dart_gptr_incaddr(&b.cas, CAS_OFFSET));
  CHECK(dart_gptr_incaddr(&b.acc, ACC_OFFSET));
  CHECK(dart_gptr_incaddr(&b.data, DATA_OFFSET));
  b.buf = malloc((size_t)bytes);
  if (b.buf == NULL) {
    die("malloc");
  }
  run(&b, (int)iters);
  printf("bench-instructions: %lld B, %lld operations per counted call:"
         " every kernel left the expected values\n",
         bytes, iters);
  free(b.buf);
  CHECK(dart_team_memfree(base));
  CHECK(dart_exit());
  return 0;
}
