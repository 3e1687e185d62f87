/* One-element accumulates that go through MPI are gathered per target and
 * sent at the next flush (dart-impl/mpi/rma/acc_batch.h). Checked exactly,
 * on allocated and registered segments:
 * - random scatter: every unit sends many updates (BXOR on unsigned long
 *   long, SUM on int, BOR on char) to random words of every unit, with
 *   repeats of a word in one batch; each unit recomputes all units'
 *   sequences (fixed seeds) and checks its portion;
 * - issue order of one origin: accumulates followed, without a flush, by
 *   a fetch-and-op, a compare-and-swap and a multi-element accumulate on
 *   the same word; REPLACE keeps the last operand; changing operation or
 *   type inside a batch;
 * - my own portion freed with accumulates nobody flushed: they land
 *   first.
 * Run across (simulated) nodes so the MPI path is taken, with the batch
 * limit small (DART_ACCUMULATE_BATCH=7: full batches go out by
 * themselves) and with batching off. */
#include "test.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WORDS   64
#define UPDATES 2000

static uint64_t next(uint64_t *state)
{
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return *state >> 17;
}

struct portion {
  unsigned long long x[WORDS];
  int                sum[WORDS];
  char               bits[WORDS];
};

/* The updates unit `from` sends: target unit, word and operands. */
static void scatter(dart_gptr_t seg, int from, int n, bool send,
                    struct portion *expect, int me)
{
  uint64_t state = 1000003ull * (uint64_t)(from + 1);
  for (int i = 0; i < UPDATES; ++i) {
    int to = (int)(next(&state) % (uint64_t)n);
    int w = (int)(next(&state) % WORDS);
    unsigned long long x = next(&state);
    int add = (int)(next(&state) % 1000) - 500;
    char bit = (char)(1 << (next(&state) % 7));
    if (send) {
      dart_gptr_t g = gptr_at(seg, to, offsetof(struct portion, x) +
                                       (uint64_t)w * sizeof x);
      ASSERT_OK(dart_accumulate(g, &x, 1, DART_TYPE_ULONGLONG, DART_OP_BXOR));
      g = gptr_at(seg, to, offsetof(struct portion, sum) +
                           (uint64_t)w * sizeof add);
      ASSERT_OK(dart_accumulate(g, &add, 1, DART_TYPE_INT, DART_OP_SUM));
      g = gptr_at(seg, to, offsetof(struct portion, bits) + (uint64_t)w);
      ASSERT_OK(dart_accumulate_blocking_local(g, &bit, 1, DART_TYPE_BYTE,
                                               DART_OP_BOR));
    }
    if (expect != NULL && to == me) {
      expect->x[w] ^= x;
      expect->sum[w] += add;
      expect->bits[w] |= bit;
    }
  }
}

static void check_scatter(dart_gptr_t seg, struct portion *mine, int me,
                          int n)
{
  memset(mine, 0, sizeof *mine);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  scatter(seg, me, n, true, NULL, me);
  ASSERT_OK(dart_flush_all(seg));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  struct portion expect;
  memset(&expect, 0, sizeof expect);
  for (int from = 0; from < n; ++from) {
    scatter(seg, from, n, false, &expect, me);
  }
  for (int w = 0; w < WORDS; ++w) {
    ASSERT_EQ(__atomic_load_n(&mine->x[w], __ATOMIC_SEQ_CST), expect.x[w]);
    ASSERT_EQ(__atomic_load_n(&mine->sum[w], __ATOMIC_SEQ_CST),
              expect.sum[w]);
    ASSERT_EQ(__atomic_load_n(&mine->bits[w], __ATOMIC_SEQ_CST),
              expect.bits[w]);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* One origin, one word of the next unit's portion (nobody else touches
 * it): the operations apply in issue order. */
static void check_order(dart_gptr_t seg, int me, int n)
{
  int to = (me + 1) % n;
  dart_gptr_t g = gptr_at(seg, to, offsetof(struct portion, x) +
                                   (uint64_t)me * sizeof(long long));
  unsigned long long zero = 0, old = 1;
  ASSERT_OK(dart_fetch_and_op(g, &zero, &old, DART_TYPE_ULONGLONG,
                              DART_OP_REPLACE));
  ASSERT_OK(dart_flush(g));

  unsigned long long v;
  for (v = 1; v <= 5; ++v) {
    ASSERT_OK(dart_accumulate(g, &v, 1, DART_TYPE_ULONGLONG, DART_OP_SUM));
  }
  /* 15 so far, fetched without a flush in between */
  unsigned long long none = 0, seen = 0;
  ASSERT_OK(dart_fetch_and_op(g, &none, &seen, DART_TYPE_ULONGLONG,
                              DART_OP_NO_OP));
  ASSERT_OK(dart_flush(g));
  ASSERT_EQ(seen, 15);

  for (v = 7; v <= 9; ++v) { /* the last one stays */
    ASSERT_OK(dart_accumulate(g, &v, 1, DART_TYPE_ULONGLONG,
                              DART_OP_REPLACE));
  }
  unsigned long long nine = 9, hundred = 100;
  ASSERT_OK(dart_compare_and_swap(g, &hundred, &nine, &seen,
                                  DART_TYPE_ULONGLONG));
  ASSERT_OK(dart_flush(g));
  ASSERT_EQ(seen, 9);

  /* The same among entries for other words, which sorting the batch
   * puts in between: words within 256 bytes (a one-byte distance), then
   * 256 bytes away (two). The other words are this origin's alone. */
  ASSERT(2 * n <= 32);
  const int near = n + me, far = 32 + me;
  for (int spread = 0; spread < 2; ++spread) {
    int other = spread == 0 ? near : far;
    dart_gptr_t o = gptr_at(seg, to, offsetof(struct portion, x) +
                                     (uint64_t)other * sizeof(long long));
    for (v = 7; v <= 9; ++v) {
      unsigned long long w = v * 10 + (unsigned long long)spread;
      ASSERT_OK(dart_accumulate(o, &w, 1, DART_TYPE_ULONGLONG,
                                DART_OP_REPLACE));
      ASSERT_OK(dart_accumulate(g, &v, 1, DART_TYPE_ULONGLONG,
                                DART_OP_REPLACE));
    }
    ASSERT_OK(dart_flush(g));
    ASSERT_OK(dart_fetch_and_op(o, &none, &seen, DART_TYPE_ULONGLONG,
                                DART_OP_NO_OP));
    ASSERT_OK(dart_flush(o));
    ASSERT_EQ(seen, 90 + (unsigned long long)spread);
    ASSERT_OK(dart_fetch_and_op(g, &none, &seen, DART_TYPE_ULONGLONG,
                                DART_OP_NO_OP));
    ASSERT_OK(dart_flush(g));
    ASSERT_EQ(seen, 9);
  }
  unsigned long long reset = 100;
  ASSERT_OK(dart_fetch_and_op(g, &reset, &seen, DART_TYPE_ULONGLONG,
                              DART_OP_REPLACE));
  ASSERT_OK(dart_flush(g));

  /* 100, then +1, ^6, +3 (operation changes inside a batch) */
  unsigned long long one = 1, six = 6, three = 3;
  ASSERT_OK(dart_accumulate(g, &one, 1, DART_TYPE_ULONGLONG, DART_OP_SUM));
  ASSERT_OK(dart_accumulate(g, &six, 1, DART_TYPE_ULONGLONG, DART_OP_BXOR));
  ASSERT_OK(dart_accumulate(g, &three, 1, DART_TYPE_ULONGLONG, DART_OP_SUM));
  /* then a multi-element accumulate over this word and the next */
  unsigned long long pair[2] = { 1000, 0 };
  ASSERT_OK(dart_accumulate(g, pair, 2, DART_TYPE_ULONGLONG, DART_OP_SUM));
  ASSERT_OK(dart_fetch_and_op(g, &none, &seen, DART_TYPE_ULONGLONG,
                              DART_OP_NO_OP));
  ASSERT_OK(dart_flush_all(seg));
  ASSERT_EQ(seen, (((100ull + 1) ^ 6) + 3) + 1000);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* Accumulates into my own portion (through MPI: registered memory in a
 * team of several units) that I free without a flush, against the rule
 * of dart_team_memfree (dart-if/include/dash/dart/if/dart_globmem.h):
 * the free sends them (with a warning), so they land before the memory
 * goes. Registered memory stays readable afterwards. (Into other
 * units' portions the outcome would depend on who frees first.) */
static void check_free_sends(int me, int n)
{
  struct portion *mem = calloc(1, sizeof *mem);
  ASSERT(mem != NULL);
  dart_gptr_t seg;
  ASSERT_OK(dart_team_memregister(DART_TEAM_ALL, sizeof *mem, DART_TYPE_BYTE,
                                  mem, &seg));
  (void)n;
  dart_gptr_t g = gptr_at(seg, me, offsetof(struct portion, sum));
  int add = 7;
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(dart_accumulate(g, &add, 1, DART_TYPE_INT, DART_OP_SUM));
  }
  ASSERT_OK(dart_team_memderegister(seg));
  ASSERT_EQ(__atomic_load_n(&mem->sum[0], __ATOMIC_SEQ_CST), 21);
  free(mem);
}

static void allocated_segment(void)
{
  dart_gptr_t seg;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, sizeof(struct portion),
                                       DART_TYPE_BYTE, &seg));
  void *addr = NULL;
  ASSERT_OK(dart_gptr_getaddr(gptr_at(seg, test_me, 0), &addr));
  check_scatter(seg, addr, test_me, test_units);
  check_order(seg, test_me, test_units);
  ASSERT_OK(dart_team_memfree(seg));
}

static void registered_segment(void)
{
  dart_gptr_t seg;
  struct portion *mem = calloc(1, sizeof *mem);
  ASSERT(mem != NULL);
  ASSERT_OK(dart_team_memregister(DART_TEAM_ALL, sizeof *mem, DART_TYPE_BYTE,
                                  mem, &seg));
  check_scatter(seg, mem, test_me, test_units);
  check_order(seg, test_me, test_units);
  ASSERT_OK(dart_team_memderegister(seg));
  free(mem);
}

static void sends_at_free(void)
{
  if (test_units > 1) {
    check_free_sends(test_me, test_units);
  }
}

static const struct test_case cases[] = {
  { "allocated_segment", allocated_segment },
  { "registered_segment", registered_segment },
  { "sends_at_free", sends_at_free },
};

int main(int argc, char **argv)
{
  return test_run_dart(argc, argv, TEST_CASES(cases));
}
