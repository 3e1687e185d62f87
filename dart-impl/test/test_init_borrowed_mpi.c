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
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) { /* finalize_before_exit did */
    MPI_Finalize();
  }
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

static void add_ints(const void *in, void *inout, size_t len, void *data)
{
  (void)data;
  for (size_t i = 0; i < len; ++i) {
    ((int *)inout)[i] += ((const int *)in)[i];
  }
}

/* Ids a program still holds from an earlier run of DART (a type, a user
 * operation, a transfer's handle) are refused in the next run, also where
 * that run made new objects of the same kind in the same order, and they
 * leave those alone (base/handle_table.h: a clear at dart_exit keeps ids
 * dead). */
static void ids_of_an_earlier_run(void)
{
  dart_datatype_t old_type = DART_TYPE_UNDEFINED;
  dart_operation_t old_op = DART_OP_UNDEFINED;
  dart_handle_t old_handle = DART_HANDLE_NULL;
  int buf[4] = { 0 };
  for (int run = 0; run < 2; ++run) {
    ASSERT_OK(dart_init(&test_argc, &test_argv));
    dart_datatype_t type = DART_TYPE_UNDEFINED;
    ASSERT_OK(dart_type_create_strided(DART_TYPE_INT, 2, 1, &type));
    dart_operation_t op = DART_OP_UNDEFINED;
    ASSERT_OK(dart_op_create(add_ints, NULL, true, DART_TYPE_INT, false,
                             &op));
    /* Registered memory goes through MPI also inside a node: the get
     * to another unit has a handle of its own. */
    int words[4] = { rank, rank, rank, rank };
    dart_gptr_t g;
    ASSERT_OK(dart_team_memregister(DART_TEAM_ALL, 4, DART_TYPE_INT, words,
                                    &g));
    int from = (rank + 1) % size;
    dart_handle_t handle = DART_HANDLE_NULL;
    ASSERT_OK(dart_get_handle(buf, gptr_at(g, from, 0), 4, DART_TYPE_INT,
                              DART_TYPE_INT, &handle));
    ASSERT(size == 1 || handle != DART_HANDLE_NULL);
    if (run == 0) { /* kept past dart_exit, which ends them */
      old_type = type;
      old_op = op;
      old_handle = handle;
      ASSERT_OK(dart_barrier(DART_TEAM_ALL));
      ASSERT_OK(dart_team_memderegister(g));
      ASSERT_OK(dart_exit());
      continue;
    }
    dart_datatype_t stale_type = old_type;
    dart_operation_t stale_op = old_op;
    dart_handle_t stale_handle = old_handle;
    ASSERT_RET(dart_type_destroy(&stale_type), DART_ERR_INVAL);
    ASSERT_RET(dart_op_destroy(&stale_op), DART_ERR_INVAL);
    if (stale_handle != DART_HANDLE_NULL) {
      ASSERT_RET(dart_wait(&stale_handle), DART_ERR_INVAL);
    }
    /* This run's objects are still alive and usable. */
    ASSERT_OK(dart_wait(&handle));
    ASSERT(handle == DART_HANDLE_NULL);
    for (int i = 0; i < 4; ++i) {
      ASSERT_EQ(buf[i], from);
    }
    int x = rank + 1, sum = -1;
    ASSERT_OK(dart_allreduce(&x, &sum, 1, DART_TYPE_INT, op, DART_TEAM_ALL));
    ASSERT_EQ(sum, size * (size + 1) / 2);
    ASSERT_OK(dart_op_destroy(&op));
    ASSERT_OK(dart_type_destroy(&type));
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
    ASSERT_OK(dart_team_memderegister(g));
    ASSERT_OK(dart_exit());
  }
}

/* Settings every unit must share (init.c, settings_agree), here set per
 * unit by the program before dart_init: with different values every unit
 * fails at once (they hung in dart_init, or later in a lock or a large
 * reduction); with equal ones, DART starts. */
static void settings_differ(void)
{
  static const char *const names[] = { "DART_LOCK_MODE",
                                       "DART_MPI_COUNT_LIMIT",
                                       "DART_SHM_SYNC" };
  static const char *const values[][2] = { { "hybrid", "mpi-mcs" },
                                            { "7", "9" },
                                            { "on", "off" } };
  for (int i = 0; i < 3; ++i) {
    STAGE("%s differs between units", names[i]);
    ASSERT_EQ(setenv(names[i], values[i][rank % 2], 1), 0);
    dart_ret_t ret = dart_init(&test_argc, &test_argv);
    if (size > 1) {
      ASSERT_RET(ret, DART_ERR_INVAL);
      ASSERT(!dart_initialized());
    } else {
      ASSERT_OK(ret);
      ASSERT_OK(dart_exit());
    }
    ASSERT_EQ(setenv(names[i], values[i][0], 1), 0);
    ASSERT_OK(dart_init(&test_argc, &test_argv));
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
    ASSERT_OK(dart_exit());
    ASSERT_EQ(unsetenv(names[i]), 0);
  }
}

/* An invalid DART_* value on unit 0 only: every unit fails dart_init with
 * DART_ERR_INVAL (unit 0 returned alone before, and the others waited for
 * it in dart_init's collectives, or paired them with its next dart_init);
 * with the value gone, DART starts on all. */
static void invalid_on_one_unit(void)
{
  static const char *const settings[][2] = {
    { "DART_LOCK_MODE", "spinning" },
    { "DART_LOCAL_POOL_MIB", "0" },
    { "DART_LOG_LEVEL", "loud" },
  };
  for (int i = 0; i < 3; ++i) {
    STAGE("%s=%s on unit 0 only", settings[i][0], settings[i][1]);
    if (rank == 0) {
      ASSERT_EQ(setenv(settings[i][0], settings[i][1], 1), 0);
    }
    ASSERT_RET(dart_init(&test_argc, &test_argv), DART_ERR_INVAL);
    ASSERT(!dart_initialized());
    ASSERT_EQ(unsetenv(settings[i][0]), 0);
    ASSERT_OK(dart_init(&test_argc, &test_argv));
    int x = rank + 1, sum = -1;
    ASSERT_OK(dart_allreduce(&x, &sum, 1, DART_TYPE_INT, DART_OP_SUM,
                             DART_TEAM_ALL));
    ASSERT_EQ(sum, size * (size + 1) / 2);
    ASSERT_OK(dart_exit());
  }
}

/* The application finalizes MPI while DART runs, with segments and a
 * team still live: MPI_Finalize stops DART first (init.c,
 * at_mpi_finalize), and dart_exit says so (MPICH's MPI_Finalize aborted
 * on DART's open windows; after Open MPI's, dart_exit crashed in its
 * barrier, whose shared memory MPI had unmapped). The last case: MPI is
 * gone afterwards (teardown). */
static void finalize_before_exit(void)
{
  ASSERT_OK(dart_init(&test_argc, &test_argv));
  dart_team_t team = DART_TEAM_NULL;
  ASSERT_OK(dart_team_clone(DART_TEAM_ALL, &team));
  dart_gptr_t seg, block;
  ASSERT_OK(dart_team_memalloc_aligned(team, 64, DART_TYPE_LONG, &seg));
  ASSERT_OK(dart_memalloc(64, DART_TYPE_LONG, &block));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_EQ(MPI_Finalize(), MPI_SUCCESS);
  ASSERT(!dart_initialized());
  ASSERT_RET(dart_exit(), DART_ERR_OTHER);
  ASSERT_RET(dart_exit(), DART_ERR_NOTINIT);
  ASSERT_RET(dart_init(&test_argc, &test_argv), DART_ERR_OTHER);
}

static const struct test_case cases[] = {
  { "init_exit_cycles", init_exit_cycles },
  { "ids_of_an_earlier_run", ids_of_an_earlier_run },
  { "exit_sends_unflushed", exit_sends_unflushed },
  { "settings_differ", settings_differ },
  { "invalid_on_one_unit", invalid_on_one_unit },
  { "finalize_before_exit", finalize_before_exit },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
