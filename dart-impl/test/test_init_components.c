/* Which of Open MPI's one-sided components DART picks when it starts MPI
 * (core/quirks.h, mpi_quirks_before_init), and that its windows work
 * under them. Each case starts MPI, so a launch runs one case:
 *   single    dart_init (MPI_THREAD_SINGLE)
 *   multiple  dart_init_thread (MPI_THREAD_MULTIPLE)
 * Expected, where the environment chose nothing: sm,pt2pt when Open MPI 4
 * runs the job on more than one host (the virtual cluster's layout,
 * test_cluster.h) without RDMA devices and the level is below MULTIPLE;
 * sm,ucx otherwise (one host, simulated nodes included, and MULTIPLE).
 * A choice in the environment stays as it was; other MPIs get none.
 * White-box only for the runtime's RDMA-device probe (core/quirks.h). */
#include "mpi/core/quirks.h"
#include "test.h"
#include "test_cluster.h"

#include <mpi.h>
#include <stdbool.h>

static void check_components(bool multiple)
{
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  MPI_Get_library_version(version, &len);
  bool open_mpi = strncmp(version, "Open MPI", 8) == 0;
  bool open_mpi_4 = strncmp(version, "Open MPI v4.", 12) == 0;

  const char *before = getenv("OMPI_MCA_osc");
  char user[64] = "";
  if (before != NULL) {
    ASSERT(strlen(before) < sizeof user);
    strcpy(user, before);
  }
  struct test_cluster cluster;
  int hosts = test_cluster_get(&cluster);

  if (multiple) {
    dart_thread_support_level_t level;
    ASSERT_OK(dart_init_thread(&test_argc, &test_argv, &level));
  } else {
    ASSERT_OK(dart_init(&test_argc, &test_argv));
  }
  dart_global_unit_t me;
  size_t units = 0;
  ASSERT_OK(dart_myid(&me));
  ASSERT_OK(dart_size(&units));
  if (hosts > 0) {
    test_cluster_check_self(&cluster, me.id, (int)units);
  }

  const char *after = getenv("OMPI_MCA_osc");
  STAGE("%s, %d hosts, OMPI_MCA_osc before '%s', after '%s'",
        multiple ? "MPI_THREAD_MULTIPLE" : "MPI_THREAD_SINGLE", hosts,
        before != NULL ? user : "(unset)", after != NULL ? after : "(unset)");
  if (before != NULL) {
    ASSERT(after != NULL && strcmp(after, user) == 0);
  } else if (!open_mpi) {
    ASSERT(after == NULL);
  } else {
    bool pt2pt = open_mpi_4 && !multiple && hosts > 1 && !mpi_node_has_rdma_devices();
    ASSERT(after != NULL &&
           strcmp(after, pt2pt ? "sm,pt2pt" : "sm,ucx") == 0);
  }

  /* The windows work under them: every unit writes its id into the next
   * one's memory, on the other host where there is one, and adds to a
   * counter on unit 0. */
  dart_gptr_t slots = DART_GPTR_NULL;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 2, DART_TYPE_LONG,
                                       &slots));
  long *mine = NULL;
  dart_gptr_t here = slots;
  ASSERT_OK(dart_gptr_setunit(&here, DART_TEAM_UNIT_ID(me.id)));
  ASSERT_OK(dart_gptr_getaddr(here, (void **)&mine));
  mine[0] = -1;
  mine[1] = 0;
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  dart_gptr_t next = slots, counter = slots;
  ASSERT_OK(dart_gptr_setunit(&next,
                              DART_TEAM_UNIT_ID((me.id + 1) % (int)units)));
  long id = me.id, one = 1;
  ASSERT_OK(dart_put_blocking(next, &id, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  ASSERT_OK(dart_gptr_setunit(&counter, DART_TEAM_UNIT_ID(0)));
  ASSERT_OK(dart_gptr_incaddr(&counter, (int64_t)sizeof(long)));
  ASSERT_OK(dart_accumulate(counter, &one, 1, DART_TYPE_LONG, DART_OP_SUM));
  ASSERT_OK(dart_flush(counter));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_EQ(mine[0], ((long)me.id + (long)units - 1) % (long)units);
  if (me.id == 0) {
    ASSERT_EQ(mine[1], (long)units);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(slots));
  ASSERT_OK(dart_exit());
}

static void single(void) { check_components(false); }
static void multiple(void) { check_components(true); }

static const struct test_case cases[] = {
  { "single", single },
  { "multiple", multiple },
};

int main(int argc, char **argv)
{
  return test_run(argc, argv, TEST_CASES(cases));
}
