/* The application starts MPI itself: DART borrows it, leaves it running
 * at exit, and can be started and stopped again and again. Since MPI and
 * the application's memory outlive dart_exit here, this is also where
 * what dart_exit does with accumulates the program did not flush is
 * seen. */
#include "test.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void setup(int *argc, char ***argv)
{
  int provided;
  MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
}

static void teardown(void)
{
  MPI_Finalize();
}

static void init_exit_cycles(void)
{
  for (int cycle = 0; cycle < 3; ++cycle) {
    ASSERT(!dart_initialized());
    dart_thread_support_level_t level;
    ASSERT_OK(dart_init_thread(&test_argc, &test_argv, &level));
    /* MPI was started with SINGLE, so that is all DART can offer. */
    ASSERT_EQ(level, DART_THREAD_SINGLE);
    ASSERT(dart_initialized());
    dart_global_unit_t me;
    size_t units;
    ASSERT_OK(dart_myid(&me));
    ASSERT_OK(dart_size(&units));
    ASSERT_EQ(me.id, rank);
    ASSERT_EQ(units, size);

    /* Teams start from id 1 again in every cycle. */
    dart_team_t clone;
    ASSERT_OK(dart_team_clone(DART_TEAM_ALL, &clone));
    ASSERT_EQ(clone, 1);
    int x = cycle * 100 + rank, sum = -1;
    ASSERT_OK(dart_allreduce(&x, &sum, 1, DART_TYPE_INT, DART_OP_SUM, clone));
    ASSERT_EQ(sum, cycle * 100 * size + size * (size - 1) / 2);
    /* Left for dart_exit to clean up. */
    (void)clone;

    /* DART's traffic does not disturb the application's own MPI use. */
    int token = rank, got = -1;
    MPI_Allreduce(&token, &got, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    ASSERT_EQ(got, size - 1);

    ASSERT_OK(dart_exit());
    int finalized = 1;
    MPI_Finalized(&finalized);
    ASSERT(!finalized); /* MPI belongs to the application */
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* An accumulate into another unit that the program never flushes still
 * reaches it: dart_exit sends what is batched (rma/acc_batch.c) before
 * its last barrier, and says that the program broke the rule. The
 * target's memory is the application's, registered, so it is read after
 * dart_exit. */
static void exit_sends_unflushed(void)
{
  ASSERT_OK(dart_init(&test_argc, &test_argv));
  long words[2] = { 0, 0 };
  dart_gptr_t g;
  ASSERT_OK(dart_team_memregister(DART_TEAM_ALL, 2, DART_TYPE_LONG, words,
                                  &g));
  int next = (rank + 1) % size;
  long add = rank + 1;
  ASSERT_OK(dart_accumulate(gptr_at(g, next, 0), &add, 1, DART_TYPE_LONG,
                            DART_OP_SUM));
  long more = 10 * add;
  ASSERT_OK(dart_accumulate(gptr_at(g, next, sizeof(long)), &more, 1,
                            DART_TYPE_LONG, DART_OP_SUM));
  struct test_capture capture;
  test_capture_begin(&capture);
  dart_ret_t ret = dart_exit();
  char *log = test_capture_end(&capture);
  ASSERT_OK(ret);
  MPI_Barrier(MPI_COMM_WORLD);
  long from = (rank + size - 1) % size + 1;
  ASSERT_EQ(words[0], from);
  ASSERT_EQ(words[1], 10 * from);
  /* One unit updates its own memory directly; to another unit the
   * accumulates wait in a batch (the registered segment goes through MPI
   * even inside a node). */
  if (size > 1) {
    ASSERT_MSG(strstr(log, "dart_exit") != NULL &&
                 strstr(log, "2 accumulates not flushed") != NULL,
               "dart_exit did not say that 2 accumulates were not "
               "flushed; it wrote: \"%s\"", log);
  }
  free(log);
}

static const struct test_case cases[] = {
  { "init_exit_cycles", init_exit_cycles },
  { "exit_sends_unflushed", exit_sends_unflushed },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
