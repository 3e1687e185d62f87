/* The application starts MPI itself: DART borrows it, leaves it running
 * at exit, and can be started and stopped again and again. */
#include "test.h"

#include <mpi.h>

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

static const struct test_case cases[] = {
  { "init_exit_cycles", init_exit_cycles },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
