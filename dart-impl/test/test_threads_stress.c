/* Threads across units under the thread level dart_init_thread grants.
 *
 * Four threads per unit (argv[2]: fewer), each doing N iterations
 * (argv[1], default 10000) of: a blocking put of 64 bytes with a pattern of its own for the
 * iteration into its own slot of the next unit's memory, a blocking get
 * of the same slot and an exact comparison, and a fetch-and-op SUM of 1
 * on one counter at unit 0. At the end the counter must equal
 * units * threads * N exactly, and every slot must hold its thread's last
 * pattern. Across simulated nodes every call goes through MPI RMA: with
 * Open MPI 4.1's osc/ucx, concurrent RMA calls without the runtime's
 * serialization failed with MPI_ERR_OTHER and read back wrong data
 * (dart-impl/mpi/core/serialize.h).
 *
 * A second case runs the other MT-safe one-sided calls from the same
 * threads, a tenth as many iterations: single-element accumulates (SUM
 * and BXOR) into every unit, which go through the per-target batches of
 * rma/acc_batch.c between nodes, flushed now and then by whichever thread
 * (dart_flush_all); a compare-and-swap loop on one counter; and puts and
 * gets through handles (dart_put_handle + dart_wait, dart_get_handle +
 * dart_test / dart_wait_local). Every total is checked exactly.
 *
 * dart_init_thread documents DART_THREAD_MULTIPLE when MPI grants
 * MPI_THREAD_MULTIPLE (init.c); if it grants DART_THREAD_SINGLE the
 * test checks that MPI did not offer MPI_THREAD_MULTIPLE and runs the
 * same work from one thread. */
#include "test.h"

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define SLOT 64
#define COUNTER_BYTES 64 /* the counter, alone on its cache line */

static int me, n, threads;
static long iters = 10000;
static dart_gptr_t seg;

struct worker {
  int  id;
  long failures; /* mismatched read-backs: reported by the main thread */
  long first_bad_iter;
};

static unsigned char pattern(int unit, int thread, long iter, int k)
{
  return (unsigned char)(unit * 131 + thread * 37 + iter * 7 + k * 13 +
                         (iter >> 8));
}

static dart_gptr_t at(int unit, uint64_t offset)
{
  dart_gptr_t g = seg;
  ASSERT_OK(dart_gptr_setunit(&g, DART_TEAM_UNIT_ID(unit)));
  g.addr_or_offs.offset = offset;
  return g;
}

static void *work(void *arg)
{
  struct worker *w = arg;
  int next = (me + 1) % n;
  dart_gptr_t slot = at(next, COUNTER_BYTES + (uint64_t)w->id * SLOT);
  dart_gptr_t counter = at(0, 0);
  unsigned char out[SLOT], back[SLOT];
  long long one = 1, old = -1;
  for (long i = 0; i < iters; ++i) {
    for (int k = 0; k < SLOT; ++k) {
      out[k] = pattern(me, w->id, i, k);
    }
    memset(back, 0, sizeof back);
    ASSERT_OK(dart_put_blocking(slot, out, SLOT, DART_TYPE_BYTE,
                                DART_TYPE_BYTE));
    ASSERT_OK(dart_get_blocking(back, slot, SLOT, DART_TYPE_BYTE,
                                DART_TYPE_BYTE));
    if (memcmp(out, back, SLOT) != 0 && w->failures++ == 0) {
      w->first_bad_iter = i;
    }
    ASSERT_OK(dart_fetch_and_op(counter, &one, &old, DART_TYPE_LONGLONG,
                                DART_OP_SUM));
    ASSERT_OK(dart_flush_local(counter));
    ASSERT(old >= 0 && old < (long long)n * threads * iters);
  }
  return NULL;
}

static dart_thread_support_level_t level = DART_THREAD_SINGLE;

static void setup(int *argc, char ***argv)
{
  ASSERT_OK(dart_init_thread(argc, argv, &level));
}

/* Reads the arguments and the granted thread level into me, n, iters and
 * threads. */
static void configure(void)
{
  int argc = test_argc;
  char **argv = test_argv;
  test_team_position(DART_TEAM_ALL, &me, &n);
  int want_threads = THREADS;
  if (argc > 1) {
    iters = strtol(argv[1], NULL, 10);
    ASSERT(iters > 0);
  }
  if (argc > 2) { /* fewer threads: to time the serialization alone */
    want_threads = (int)strtol(argv[2], NULL, 10);
    ASSERT(want_threads >= 1 && want_threads <= THREADS);
  }
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (level == DART_THREAD_MULTIPLE) {
    ASSERT_EQ(provided, MPI_THREAD_MULTIPLE);
    threads = want_threads;
  } else {
    /* The documented reason for a lower level: MPI offered less. */
    ASSERT_EQ(level, DART_THREAD_SINGLE);
    ASSERT(provided < MPI_THREAD_MULTIPLE);
    threads = 1;
  }
}

/* Runs `fn` on `threads` threads (on this one when there is one). */
static void run_threads(void *(*fn)(void *), struct worker w[])
{
  pthread_t tid[THREADS];
  for (int t = 0; t < threads; ++t) {
    w[t] = (struct worker){ t, 0, -1 };
    if (threads > 1) {
      ASSERT_EQ(pthread_create(&tid[t], NULL, fn, &w[t]), 0);
    }
  }
  if (threads == 1) {
    fn(&w[0]);
  } else {
    for (int t = 0; t < threads; ++t) {
      ASSERT_EQ(pthread_join(tid[t], NULL), 0);
    }
  }
  for (int t = 0; t < threads; ++t) {
    ASSERT_MSG(w[t].failures == 0, "thread %d: %ld read-backs differed, "
               "first at iteration %ld", t, w[t].failures,
               w[t].first_bad_iter);
  }
}

/* Allocates `seg`, `bytes` per unit, zero everywhere once this returns. */
static void alloc_zeroed(size_t bytes)
{
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, bytes, DART_TYPE_BYTE,
                                       &seg));
  unsigned char *zero = calloc(1, bytes);
  ASSERT(zero != NULL);
  ASSERT_OK(dart_put_blocking(at(me, 0), zero, bytes, DART_TYPE_BYTE,
                              DART_TYPE_BYTE));
  free(zero);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

static void put_get_fetch_op(void)
{
  configure();
  if (me == 0) {
    printf("test_threads_stress: %d units, thread level %d, %d threads, "
           "%ld iterations each\n", n, (int)level, threads, iters);
    fflush(stdout);
  }
  alloc_zeroed(COUNTER_BYTES + THREADS * SLOT);

  double start = MPI_Wtime();
  struct worker w[THREADS];
  run_threads(work, w);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  double elapsed = MPI_Wtime() - start;
  if (me == 0) {
    printf("test_threads_stress: %.3f s, %.2f us per iteration of a "
           "thread\n", elapsed, elapsed * 1e6 / (double)iters);
  }

  /* Every update is in: the counter, and the last pattern of each slot
   * written into this unit by the previous unit's threads. */
  long long total = -1;
  ASSERT_OK(dart_get_blocking(&total, at(0, 0), 1, DART_TYPE_LONGLONG,
                              DART_TYPE_LONGLONG));
  ASSERT_EQ(total, (long long)n * threads * iters);
  int prev = (me + n - 1) % n;
  for (int t = 0; t < threads; ++t) {
    unsigned char got[SLOT];
    ASSERT_OK(dart_get_blocking(got, at(me, COUNTER_BYTES + (uint64_t)t * SLOT),
                                SLOT, DART_TYPE_BYTE, DART_TYPE_BYTE));
    for (int k = 0; k < SLOT; ++k) {
      ASSERT_EQ(got[k], pattern(prev, t, iters - 1, k));
    }
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(seg));
}

/* The second case's segment, per unit: a SUM counter, a BXOR word and a
 * compare-and-swap counter on a line of their own, then one slot per
 * thread for the handle transfers. */
enum { SUM_AT = 0, XOR_AT = 8, CAS_AT = 16, HANDLE_SLOTS_AT = 64 };
static long iters2; /* iterations of a thread in the second case */

static uint64_t xor_operand(int unit, int thread, long iter)
{
  uint64_t x = (uint64_t)unit << 48 ^ (uint64_t)thread << 40 ^
               (uint64_t)iter * 0x9e3779b97f4a7c15ull;
  return x | 1; /* never 0, so every update changes the word */
}

static void *work_atomics_handles(void *arg)
{
  struct worker *w = arg;
  int next = (me + 1) % n;
  dart_gptr_t slot = at(next, HANDLE_SLOTS_AT + (uint64_t)w->id * SLOT);
  dart_gptr_t cas = at(n - 1, CAS_AT);
  unsigned char out[SLOT], back[SLOT];
  long long one = 1;
  long long guess = 0;
  for (long i = 0; i < iters2; ++i) {
    uint64_t x = xor_operand(me, w->id, i);
    for (int u = 0; u < n; ++u) {
      ASSERT_OK(dart_accumulate(at(u, SUM_AT), &one, 1, DART_TYPE_LONGLONG,
                                DART_OP_SUM));
      ASSERT_OK(dart_accumulate(at(u, XOR_AT), &x, 1, DART_TYPE_ULONGLONG,
                                DART_OP_BXOR));
    }
    if (i % 8 == (long)w->id) { /* threads flush at different times */
      ASSERT_OK(dart_flush_all(seg));
    }
    /* Increment by compare-and-swap: retry with the value seen. */
    for (;;) {
      long long want = guess + 1, seen = -1;
      ASSERT_OK(dart_compare_and_swap(cas, &want, &guess, &seen,
                                      DART_TYPE_LONGLONG));
      ASSERT_OK(dart_flush_local(cas));
      if (seen == guess) {
        guess = want;
        break;
      }
      ASSERT(seen > guess); /* the counter only grows */
      guess = seen;
    }
    for (int k = 0; k < SLOT; ++k) {
      out[k] = pattern(me, w->id, i, k);
    }
    memset(back, 0, sizeof back);
    dart_handle_t put = DART_HANDLE_NULL, get = DART_HANDLE_NULL;
    ASSERT_OK(dart_put_handle(slot, out, SLOT, DART_TYPE_BYTE, DART_TYPE_BYTE,
                              &put));
    ASSERT_OK(dart_wait(&put));
    ASSERT(put == DART_HANDLE_NULL);
    ASSERT_OK(dart_get_handle(back, slot, SLOT, DART_TYPE_BYTE,
                              DART_TYPE_BYTE, &get));
    int32_t done = 0;
    ASSERT_OK(dart_test(&get, &done)); /* either answer; consumed if 1 */
    if (!done) {
      ASSERT_OK(dart_wait_local(&get));
    }
    ASSERT(get == DART_HANDLE_NULL);
    if (memcmp(out, back, SLOT) != 0 && w->failures++ == 0) {
      w->first_bad_iter = i;
    }
  }
  return NULL;
}

static void atomics_handles(void)
{
  configure();
  iters2 = iters / 10 > 0 ? iters / 10 : 1;
  if (me == 0) {
    printf("test_threads_stress: %d units, %d threads, %ld iterations each "
           "of accumulates, compare-and-swap and handles\n", n, threads,
           iters2);
    fflush(stdout);
  }
  alloc_zeroed(HANDLE_SLOTS_AT + THREADS * SLOT);

  struct worker w[THREADS];
  run_threads(work_atomics_handles, w);
  ASSERT_OK(dart_flush_all(seg));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  /* Every unit's threads updated every unit once per iteration. */
  long long updates = (long long)n * threads * iters2;
  long long sum = -1, count = -1;
  uint64_t xor_word = 0, xor_expected = 0;
  ASSERT_OK(dart_get_blocking(&sum, at(me, SUM_AT), 1, DART_TYPE_LONGLONG,
                              DART_TYPE_LONGLONG));
  ASSERT_EQ(sum, updates);
  ASSERT_OK(dart_get_blocking(&xor_word, at(me, XOR_AT), 1,
                              DART_TYPE_ULONGLONG, DART_TYPE_ULONGLONG));
  for (int u = 0; u < n; ++u) {
    for (int t = 0; t < threads; ++t) {
      for (long i = 0; i < iters2; ++i) {
        xor_expected ^= xor_operand(u, t, i);
      }
    }
  }
  ASSERT_EQ(xor_word, xor_expected);
  ASSERT_OK(dart_get_blocking(&count, at(n - 1, CAS_AT), 1,
                              DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
  ASSERT_EQ(count, updates);
  int prev = (me + n - 1) % n;
  for (int t = 0; t < threads; ++t) {
    unsigned char got[SLOT];
    ASSERT_OK(dart_get_blocking(got,
                                at(me, HANDLE_SLOTS_AT + (uint64_t)t * SLOT),
                                SLOT, DART_TYPE_BYTE, DART_TYPE_BYTE));
    for (int k = 0; k < SLOT; ++k) {
      ASSERT_EQ(got[k], pattern(prev, t, iters2 - 1, k));
    }
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(seg));
}

static const struct test_case cases[] = {
  { "put_get_fetch_op", put_get_fetch_op },
  { "atomics_handles", atomics_handles },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup,
                       test_dart_teardown);
}
