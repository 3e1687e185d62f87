/* Atomics by message (DART_REMOTE_ATOMICS=message, rma/am_atomics.h):
 * the target serves them while it waits in any DART call, one origin's
 * requests apply in issue order, and updates of one word from the CPU
 * path (node peers) and by message (other nodes) are atomic together.
 * With the progress thread (DART_PROGRESS_THREAD=on) a unit blocked in
 * an MPI call of the program's own serves them too. Valid in every mode;
 * registered with the switch on and several nodes
 * (dart-impl/test/robust_atomics.cmake). */
#include "test_nodes.h"
#include "test.h"

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 300 };

static dart_thread_support_level_t thread_level;

/* The lowest unit on another node than unit 0, -1 if none (test_nodes.h,
 * read at setup: it is collective). */
static int far_unit = -1;

/* The threshold of DART_STALL_WARN_MS this program runs with: short,
 * for stall_said (setup sets it unless the environment does). */
static const char *const STALL_MS = "200";

static dart_gptr_t words; /* per unit: counter, sum, then one per unit */

static dart_gptr_t word_at(int unit, int index)
{
  return gptr_at(words, unit, (uint64_t)index * sizeof(int64_t));
}

static void alloc_words(void)
{
  int count = 2 + test_units;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, (size_t)count,
                                       DART_TYPE_LONGLONG, &words));
  int64_t zero[64] = { 0 };
  ASSERT(count <= 64);
  ASSERT_OK(dart_put_blocking(word_at(test_me, 0), zero, (size_t)count,
                              DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

static void free_words(void)
{
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(words));
}

static int64_t read_word(int unit, int index)
{
  int64_t v = -1;
  ASSERT_OK(dart_get_blocking(&v, word_at(unit, index), 1,
                              DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
  return v;
}

/* Every unit but 0: fetch-and-adds and accumulates into unit 0, each
 * fetched value above the one before, then a flush. */
static void update_unit0(void)
{
  int64_t one = 1, mine = test_me + 1, prev = -1, got = -1;
  for (int i = 0; i < ROUNDS; ++i) {
    ASSERT_OK(dart_fetch_and_op(word_at(0, 0), &one, &got,
                                DART_TYPE_LONGLONG, DART_OP_SUM));
    ASSERT_MSG(got > prev, "fetched %lld after %lld", (long long)got,
               (long long)prev);
    prev = got;
    ASSERT_OK(dart_accumulate(word_at(0, 1), &mine, 1, DART_TYPE_LONGLONG,
                              DART_OP_SUM));
  }
  ASSERT_OK(dart_flush(word_at(0, 1)));
}

static void check_unit0(void)
{
  if (test_me != 0) {
    return;
  }
  int64_t sum = 0;
  for (int u = 1; u < test_units; ++u) {
    sum += (int64_t)(u + 1) * ROUNDS;
  }
  ASSERT_EQ(read_word(0, 0), (int64_t)(test_units - 1) * ROUNDS);
  ASSERT_EQ(read_word(0, 1), sum);
}

/* Unit 0 goes straight into a DART call that waits for the others, which
 * first send it atomics: it must serve them from inside that call. */
static void served_in_barrier(void)
{
  alloc_words();
  if (test_me != 0) {
    update_unit0();
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  check_unit0();
  free_words();
}

static void served_in_allreduce(void)
{
  alloc_words();
  if (test_me != 0) {
    update_unit0();
  }
  int in = 1, out = 0;
  ASSERT_OK(dart_allreduce(&in, &out, 1, DART_TYPE_INT, DART_OP_SUM,
                           DART_TEAM_ALL));
  ASSERT_EQ(out, test_units);
  check_unit0();
  free_words();
}

static void served_in_recv(void)
{
  alloc_words();
  int token = 0;
  if (test_me != 0) {
    update_unit0();
    token = test_me;
    ASSERT_OK(dart_send(&token, 1, DART_TYPE_INT, 7,
                        (dart_global_unit_t){ 0 }));
  } else {
    for (int u = 1; u < test_units; ++u) {
      ASSERT_OK(dart_recv(&token, 1, DART_TYPE_INT, 7,
                          (dart_global_unit_t){ u }));
      ASSERT_EQ(token, u);
    }
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  check_unit0();
  free_words();
}

static bool progress_thread_on(void)
{
  const char *thread = getenv("DART_PROGRESS_THREAD");
  return thread != NULL && strcmp(thread, "on") == 0 &&
         thread_level == DART_THREAD_MULTIPLE;
}

/* Unit 0 blocks in MPI_Barrier while the others' atomics target it:
 * served by the progress thread where it runs; without it the program
 * meets in a DART barrier first, as rma/am_atomics.h asks. */
static void served_in_mpi_call(void)
{
  bool by_thread = progress_thread_on();
  alloc_words();
  if (test_me != 0) {
    update_unit0();
  }
  if (!by_thread) {
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  }
  ASSERT_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  check_unit0();
  free_words();
}

/* Accumulates of one origin, not flushed, come before its next atomic to
 * the same word: a fetch sees every one of them. */
static void issue_order(void)
{
  alloc_words();
  int target = (test_me + 1) % test_units;
  int slot = 2 + test_me;
  int64_t one = 1, none = 0, got = -1;
  for (int k = 1; k <= 50; ++k) {
    ASSERT_OK(dart_accumulate(word_at(target, slot), &one, 1,
                              DART_TYPE_LONGLONG, DART_OP_SUM));
    ASSERT_OK(dart_fetch_and_op(word_at(target, slot), &none, &got,
                                DART_TYPE_LONGLONG, DART_OP_NO_OP));
    ASSERT_EQ(got, (int64_t)k);
  }
  int64_t replace = 1000;
  ASSERT_OK(dart_accumulate(word_at(target, slot), &replace, 1,
                            DART_TYPE_LONGLONG, DART_OP_REPLACE));
  ASSERT_OK(dart_accumulate(word_at(target, slot), &one, 1,
                            DART_TYPE_LONGLONG, DART_OP_SUM));
  ASSERT_OK(dart_fetch_and_op(word_at(target, slot), &none, &got,
                              DART_TYPE_LONGLONG, DART_OP_NO_OP));
  ASSERT_EQ(got, 1001);
  free_words();
}

/* Every unit, the owner and its node peers included, adds to one word of
 * the last unit: no update lost, each fetched value seen once (their sum
 * is that of 0 .. total-1), so the CPU atomics and the target's are one
 * kind. Then a compare-and-swap counter the same way. */
static void one_word_all_paths(void)
{
  alloc_words();
  int owner = test_units - 1;
  int64_t one = 1, got = -1, prev = -1, fetched_sum = 0;
  for (int i = 0; i < ROUNDS; ++i) {
    ASSERT_OK(dart_fetch_and_op(word_at(owner, 0), &one, &got,
                                DART_TYPE_LONGLONG, DART_OP_SUM));
    ASSERT(got > prev);
    prev = got;
    fetched_sum += got;
  }
  int64_t cas_wins = 0;
  while (cas_wins < ROUNDS) {
    int64_t seen = -1, expect = read_word(owner, 1);
    int64_t next = expect + 1;
    ASSERT_OK(dart_compare_and_swap(word_at(owner, 1), &next, &expect,
                                    &seen, DART_TYPE_LONGLONG));
    cas_wins += seen == expect;
  }
  int64_t all = 0;
  ASSERT_OK(dart_allreduce(&fetched_sum, &all, 1, DART_TYPE_LONGLONG,
                           DART_OP_SUM, DART_TEAM_ALL));
  int64_t total = (int64_t)test_units * ROUNDS;
  ASSERT_EQ(all, total * (total - 1) / 2);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_EQ(read_word(owner, 0), total);
  ASSERT_EQ(read_word(owner, 1), total);
  free_words();
}

/* A unit on another node computes (sleeps) outside DART for five times
 * DART_STALL_WARN_MS while unit 0 fetches from it by message: unit 0's
 * wait says once, in one log line, which unit it waits for and why,
 * then completes when that unit enters dart_barrier. With the progress
 * thread that unit serves while it sleeps: no such line. */
static void stall_said(void)
{
  const char *mode = getenv("DART_REMOTE_ATOMICS");
  if (far_unit < 0 || mode == NULL || strcmp(mode, "message") != 0) {
    return; /* no atomics by message here: nothing to wait for */
  }
  long stall_ms = strtol(getenv("DART_STALL_WARN_MS"), NULL, 10);
  ASSERT(stall_ms > 0);
  alloc_words();
  test_nap_outside_dart(test_me == far_unit, 0, 5 * stall_ms);
  if (test_me == 0) {
    int64_t one = 1, got = -1;
    struct test_capture capture;
    test_capture_begin(&capture);
    dart_ret_t ret = dart_fetch_and_op(word_at(far_unit, 0), &one, &got,
                                       DART_TYPE_LONGLONG, DART_OP_SUM);
    char *log = test_capture_end(&capture);
    ASSERT_OK(ret);
    ASSERT_EQ(got, 0);
    char expect[64];
    snprintf(expect, sizeof expect, "for unit %d to apply atomics",
             far_unit);
    int said = test_occurrences(log, expect);
    if (progress_thread_on()) {
      ASSERT_MSG(said == 0, "the wait was long with the progress "
                 "thread on: \"%s\"", log);
    } else {
      ASSERT_MSG(said == 1 && strstr(log, "dart_fetch_and_op") != NULL,
                 "not one line about the wait for unit %d (%d): \"%s\"",
                 far_unit, said, log);
    }
    free(log);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_EQ(read_word(far_unit, 0), 1);
  free_words();
}

static const struct test_case cases[] = {
  { "served_in_barrier", served_in_barrier },
  { "served_in_allreduce", served_in_allreduce },
  { "served_in_recv", served_in_recv },
  { "served_in_mpi_call", served_in_mpi_call },
  { "issue_order", issue_order },
  { "one_word_all_paths", one_word_all_paths },
  { "stall_said", stall_said },
};

/* dart_init_thread: the progress thread needs MPI_THREAD_MULTIPLE. */
static void setup(int *argc, char ***argv)
{
  setenv("DART_STALL_WARN_MS", STALL_MS, 0);
  ASSERT_OK(dart_init_thread(argc, argv, &thread_level));
  test_team_position(DART_TEAM_ALL, &test_me, &test_units);
  long long *keys = test_node_keys(test_units);
  far_unit = test_first_unit_off_node0(keys, test_units);
  free(keys);
}

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup,
                       test_dart_teardown);
}
