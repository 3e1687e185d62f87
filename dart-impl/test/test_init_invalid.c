/* Invalid DART_* values with DART starting MPI itself (init.c,
 * settings_agree): every unit's dart_init fails with DART_ERR_INVAL and
 * leaves MPI finalized, whether all units have the value or only the
 * launcher's rank 0. Before, each such unit returned at once without
 * starting MPI, and the others waited for it in MPI_Init or in dart_init's
 * first collectives. One case per launch: MPI starts once per process.
 *   everywhere  DART_LOG_LEVEL=chatty on every unit
 *   one_unit    DART_BOOTSTRAP=gossip on rank 0 only */
#include "test.h"

#include <mpi.h>

static void fails_alike(void)
{
  ASSERT_RET(dart_init(&test_argc, &test_argv), DART_ERR_INVAL);
  ASSERT(!dart_initialized());
  int finalized = 0;
  ASSERT_EQ(MPI_Finalized(&finalized), MPI_SUCCESS);
  ASSERT(finalized);
  ASSERT_RET(dart_exit(), DART_ERR_NOTINIT);
}

static void everywhere(void)
{
  ASSERT_EQ(setenv("DART_LOG_LEVEL", "chatty", 1), 0);
  fails_alike();
}

static void one_unit(void)
{
  if (test_is_printer()) {
    ASSERT_EQ(setenv("DART_BOOTSTRAP", "gossip", 1), 0);
  }
  fails_alike();
}

static const struct test_case cases[] = {
  { "everywhere", everywhere },
  { "one_unit", one_unit },
};

int main(int argc, char **argv)
{
  return test_run(argc, argv, TEST_CASES(cases));
}
