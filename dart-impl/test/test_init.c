/* dart_init / dart_exit and the process-level queries; DART owns MPI. */
#include "test.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static void check_not_initialized(void)
{
  ASSERT(!dart_initialized());
  dart_global_unit_t me = { 42 };
  size_t size = 42;
  ASSERT_RET(dart_myid(&me), DART_ERR_NOTINIT);
  ASSERT_EQ(me.id, DART_UNDEFINED_UNIT_ID);
  ASSERT_RET(dart_size(&size), DART_ERR_NOTINIT);
  ASSERT_EQ(size, 0);
  ASSERT_RET(dart_barrier(DART_TEAM_ALL), DART_ERR_NOTINIT);
  dart_team_unit_t tu;
  ASSERT_RET(dart_team_myid(DART_TEAM_ALL, &tu), DART_ERR_NOTINIT);
  dart_group_t g = DART_GROUP_NULL;
  ASSERT_RET(dart_group_create(&g), DART_ERR_NOTINIT);
  ASSERT(g == DART_GROUP_NULL);
  int x = 0;
  ASSERT_RET(dart_bcast(&x, 1, DART_TYPE_INT, DART_TEAM_UNIT_ID(0),
                        DART_TEAM_ALL), DART_ERR_NOTINIT);
  dart_datatype_t t;
  ASSERT_RET(dart_type_create_custom(4, &t), DART_ERR_NOTINIT);
  ASSERT_RET(dart_exit(), DART_ERR_NOTINIT);
}

static void init_exit(void)
{
  /* dart_config works before init and gives one process-wide object. */
  dart_config_t *config = NULL, *again = NULL;
  dart_config(&config);
  dart_config(&again);
  ASSERT(config != NULL && config == again);
  ASSERT(config->log_enabled != 0);

  check_not_initialized();

  /* An invalid switch fails dart_init on every unit and leaves MPI
   * finalized: test_init_invalid.c. */

  dart_thread_support_level_t level = (dart_thread_support_level_t)-5;
  ASSERT_RET(dart_init_thread(&test_argc, &test_argv, NULL), DART_ERR_INVAL);
  ASSERT_OK(dart_init_thread(&test_argc, &test_argv, &level));
  ASSERT(level == DART_THREAD_SINGLE || level == DART_THREAD_MULTIPLE);
  int provided;
  MPI_Query_thread(&provided);
  ASSERT_EQ(level == DART_THREAD_MULTIPLE, provided == MPI_THREAD_MULTIPLE);
  ASSERT(dart_initialized());

  /* A second init while running fails and changes nothing. */
  ASSERT_RET(dart_init(&test_argc, &test_argv), DART_ERR_OTHER);
  ASSERT(dart_initialized());

  dart_global_unit_t me;
  size_t size;
  int mpi_rank, mpi_size;
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
  ASSERT_OK(dart_myid(&me));
  ASSERT_OK(dart_size(&size));
  ASSERT_EQ(me.id, mpi_rank);
  ASSERT_EQ(size, mpi_size);

  /* DART_TEAM_ALL mirrors the global numbering. */
  dart_team_unit_t tme;
  size_t tsize;
  ASSERT_OK(dart_team_myid(DART_TEAM_ALL, &tme));
  ASSERT_OK(dart_team_size(DART_TEAM_ALL, &tsize));
  ASSERT_EQ(tme.id, me.id);
  ASSERT_EQ(tsize, size);

  /* dart_config's log switch silences the log and can be restored. */
  config->log_enabled = 0;
  ASSERT_RET(dart_team_size(DART_TEAM_NULL, &tsize), DART_ERR_INVAL);
  config->log_enabled = 1;

  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_exit());
  check_not_initialized();

  /* DART started MPI, so its exit finalized MPI: no restart possible. */
  int finalized = 0;
  MPI_Finalized(&finalized);
  ASSERT(finalized);
  ASSERT_RET(dart_init(&test_argc, &test_argv), DART_ERR_OTHER);
  ASSERT(!dart_initialized());
  if (me.id == 0) {
    printf("test_init: %zu units passed\n", size);
  }
}

static const struct test_case cases[] = {
  { "init_exit", init_exit },
};

int main(int argc, char **argv)
{
  return test_run(argc, argv, TEST_CASES(cases));
}
