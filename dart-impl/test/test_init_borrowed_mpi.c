/* The application starts MPI itself: DART borrows it, leaves it running
 * at exit, and can be started and stopped again and again. */
#include "test_assert.h"

#include <mpi.h>

int main(int argc, char **argv)
{
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  for (int cycle = 0; cycle < 3; ++cycle) {
    TEST_ASSERT(!dart_initialized());
    dart_thread_support_level_t level;
    TEST_OK(dart_init_thread(&argc, &argv, &level));
    /* MPI was started with SINGLE, so that is all DART can offer. */
    TEST_EQ(level, DART_THREAD_SINGLE);
    TEST_ASSERT(dart_initialized());
    dart_global_unit_t me;
    size_t units;
    TEST_OK(dart_myid(&me));
    TEST_OK(dart_size(&units));
    TEST_EQ(me.id, rank);
    TEST_EQ(units, size);

    /* Teams start from id 1 again in every cycle. */
    dart_team_t clone;
    TEST_OK(dart_team_clone(DART_TEAM_ALL, &clone));
    TEST_EQ(clone, 1);
    int x = cycle * 100 + rank, sum = -1;
    TEST_OK(dart_allreduce(&x, &sum, 1, DART_TYPE_INT, DART_OP_SUM, clone));
    TEST_EQ(sum, cycle * 100 * size + size * (size - 1) / 2);
    /* Left for dart_exit to clean up. */
    (void)clone;

    /* DART's traffic does not disturb the application's own MPI use. */
    int token = rank, got = -1;
    MPI_Allreduce(&token, &got, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    TEST_EQ(got, size - 1);

    TEST_OK(dart_exit());
    int finalized = 1;
    MPI_Finalized(&finalized);
    TEST_ASSERT(!finalized); /* MPI belongs to the application */
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    printf("test_init_borrowed_mpi: %d units passed\n", size);
  }
  MPI_Finalize();
  return 0;
}
