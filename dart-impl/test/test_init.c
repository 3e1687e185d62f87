/* dart_init / dart_exit and the process-level queries; DART owns MPI. */
#include "test_assert.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static void check_not_initialized(void)
{
  TEST_ASSERT(!dart_initialized());
  dart_global_unit_t me = { 42 };
  size_t size = 42;
  TEST_RET(dart_myid(&me), DART_ERR_NOTINIT);
  TEST_EQ(me.id, DART_UNDEFINED_UNIT_ID);
  TEST_RET(dart_size(&size), DART_ERR_NOTINIT);
  TEST_EQ(size, 0);
  TEST_RET(dart_barrier(DART_TEAM_ALL), DART_ERR_NOTINIT);
  dart_team_unit_t tu;
  TEST_RET(dart_team_myid(DART_TEAM_ALL, &tu), DART_ERR_NOTINIT);
  dart_group_t g = DART_GROUP_NULL;
  TEST_RET(dart_group_create(&g), DART_ERR_NOTINIT);
  TEST_ASSERT(g == DART_GROUP_NULL);
  int x = 0;
  TEST_RET(dart_bcast(&x, 1, DART_TYPE_INT, DART_TEAM_UNIT_ID(0),
                      DART_TEAM_ALL), DART_ERR_NOTINIT);
  dart_datatype_t t;
  TEST_RET(dart_type_create_custom(4, &t), DART_ERR_NOTINIT);
  TEST_RET(dart_exit(), DART_ERR_NOTINIT);
}

int main(int argc, char **argv)
{
  /* dart_config works before init and gives one process-wide object. */
  dart_config_t *config = NULL, *again = NULL;
  dart_config(&config);
  dart_config(&again);
  TEST_ASSERT(config != NULL && config == again);
  TEST_ASSERT(config->log_enabled != 0);

  check_not_initialized();

  /* A bad switch stops init with a clear error; MPI is not started. */
  setenv("DART_LOG_LEVEL", "chatty", 1);
  TEST_RET(dart_init(&argc, &argv), DART_ERR_INVAL);
  TEST_ASSERT(!dart_initialized());
  int mpi_started = 1;
  MPI_Initialized(&mpi_started);
  TEST_ASSERT(!mpi_started);
  unsetenv("DART_LOG_LEVEL");

  dart_thread_support_level_t level = (dart_thread_support_level_t)-5;
  TEST_RET(dart_init_thread(&argc, &argv, NULL), DART_ERR_INVAL);
  TEST_OK(dart_init_thread(&argc, &argv, &level));
  TEST_ASSERT(level == DART_THREAD_SINGLE || level == DART_THREAD_MULTIPLE);
  int provided;
  MPI_Query_thread(&provided);
  TEST_EQ(level == DART_THREAD_MULTIPLE, provided == MPI_THREAD_MULTIPLE);
  TEST_ASSERT(dart_initialized());

  /* A second init while running fails and changes nothing. */
  TEST_RET(dart_init(&argc, &argv), DART_ERR_OTHER);
  TEST_ASSERT(dart_initialized());

  dart_global_unit_t me;
  size_t size;
  int mpi_rank, mpi_size;
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
  TEST_OK(dart_myid(&me));
  TEST_OK(dart_size(&size));
  TEST_EQ(me.id, mpi_rank);
  TEST_EQ(size, mpi_size);

  /* DART_TEAM_ALL mirrors the global numbering. */
  dart_team_unit_t tme;
  size_t tsize;
  TEST_OK(dart_team_myid(DART_TEAM_ALL, &tme));
  TEST_OK(dart_team_size(DART_TEAM_ALL, &tsize));
  TEST_EQ(tme.id, me.id);
  TEST_EQ(tsize, size);

  /* dart_config's log switch silences the log and can be restored. */
  config->log_enabled = 0;
  TEST_RET(dart_team_size(DART_TEAM_NULL, &tsize), DART_ERR_INVAL);
  config->log_enabled = 1;

  TEST_OK(dart_barrier(DART_TEAM_ALL));
  TEST_OK(dart_exit());
  check_not_initialized();

  /* DART started MPI, so its exit finalized MPI: no restart possible. */
  int finalized = 0;
  MPI_Finalized(&finalized);
  TEST_ASSERT(finalized);
  TEST_RET(dart_init(&argc, &argv), DART_ERR_OTHER);
  TEST_ASSERT(!dart_initialized());
  if (me.id == 0) {
    printf("test_init: %zu units passed\n", size);
  }
  return 0;
}
