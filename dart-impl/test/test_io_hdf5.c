/* dart__io__hdf5__prep_mpio (dart_io.h): files written and read back
 * through HDF5's MPI-IO driver over a team, as DASH's HDF5 storage driver
 * uses it.
 *
 * - team_all: every unit writes its own slice of one dataset collectively;
 *   the file, opened again with a second property list, reads back whole
 *   on every unit, word for word. The list's communicator has the team's
 *   size and this unit's team id as its rank.
 * - subteam: the same over the tests' usual sub-team (team ids differ from
 *   global ids there), with the team destroyed before the file is even
 *   created: HDF5 keeps a duplicate of the communicator, so the list
 *   outlives the team.
 * - bad_input: an unknown team, a property list that is not a file-access
 *   one, an id that is none: DART_ERR_INVAL, with one line from DART and
 *   nothing from HDF5's own error printing; where only unit 0's list is
 *   none, every unit is refused (none waits in HDF5's duplication of the
 *   communicator for the one that left). Before dart_init and after
 *   dart_exit (main, teardown): DART_ERR_NOTINIT.
 * Files go to the working directory, which every host of the virtual
 * cluster shares (scripts/cluster.sh), under a name unit 0 picks. */
#include "test.h"

#include <hdf5.h>

#include <dash/dart/if/dart_io.h>

#include <mpi.h>

/* Words each unit writes. */
#define SLICE 1000

static long word_of(int unit, int i)
{
  return (long)unit * 1000003L + i * 7L + 1;
}

/* A file name all members of `team` agree on (its unit 0 picks it). */
static void file_name(dart_team_t team, const char *what, char *name,
                      size_t size)
{
  snprintf(name, size, "test_io_hdf5-%ld-%s.h5", (long)getpid(), what);
  ASSERT_OK(dart_bcast(name, size, DART_TYPE_BYTE, DART_TEAM_UNIT_ID(0),
                       team));
}

/* A file-access property list for `team`'s MPI-IO; checks what HDF5 keeps
 * of the team. */
static hid_t fapl_for(dart_team_t team, int me, int n)
{
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  ASSERT(fapl >= 0);
  ASSERT_OK(dart__io__hdf5__prep_mpio(fapl, team));
  ASSERT(H5Pget_driver(fapl) == H5FD_MPIO);
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Info info = MPI_INFO_NULL;
  ASSERT(H5Pget_fapl_mpio(fapl, &comm, &info) >= 0);
  int size = -1, rank = -1;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  ASSERT_EQ(size, n);
  ASSERT_EQ(rank, me);
  MPI_Comm_free(&comm);
  if (info != MPI_INFO_NULL) {
    MPI_Info_free(&info);
  }
  return fapl;
}

/* Collective over the members of `fapl`'s team (this unit is `me` of
 * `n`): writes every member's slice of one dataset into a new file. */
static void write_slices(const char *name, hid_t fapl, int me, int n)
{
  hid_t file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  ASSERT(file >= 0);
  hsize_t total = (hsize_t)n * SLICE;
  hid_t space = H5Screate_simple(1, &total, NULL);
  ASSERT(space >= 0);
  hid_t set = H5Dcreate2(file, "words", H5T_NATIVE_LONG, space, H5P_DEFAULT,
                         H5P_DEFAULT, H5P_DEFAULT);
  ASSERT(set >= 0);
  hsize_t start = (hsize_t)me * SLICE, count = SLICE;
  ASSERT(H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &count,
                             NULL) >= 0);
  hid_t mine = H5Screate_simple(1, &count, NULL);
  ASSERT(mine >= 0);
  long *words = xmalloc(SLICE * sizeof *words);
  for (int i = 0; i < SLICE; ++i) {
    words[i] = word_of(me, i);
  }
  hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
  ASSERT(xfer >= 0);
  ASSERT(H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE) >= 0);
  ASSERT(H5Dwrite(set, H5T_NATIVE_LONG, mine, space, xfer, words) >= 0);
  free(words);
  ASSERT(H5Pclose(xfer) >= 0);
  ASSERT(H5Sclose(mine) >= 0);
  ASSERT(H5Sclose(space) >= 0);
  ASSERT(H5Dclose(set) >= 0);
  ASSERT(H5Fclose(file) >= 0);
}

/* Opens the file again (collective like write_slices) and checks every
 * member's words. */
static void read_all(const char *name, hid_t fapl, int n)
{
  hid_t file = H5Fopen(name, H5F_ACC_RDONLY, fapl);
  ASSERT(file >= 0);
  hid_t set = H5Dopen2(file, "words", H5P_DEFAULT);
  ASSERT(set >= 0);
  hid_t space = H5Dget_space(set);
  ASSERT(space >= 0);
  hsize_t total = 0;
  ASSERT_EQ(H5Sget_simple_extent_dims(space, &total, NULL), 1);
  ASSERT_EQ((long)total, (long)n * SLICE);
  long *words = xmalloc((size_t)total * sizeof *words);
  ASSERT(H5Dread(set, H5T_NATIVE_LONG, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                 words) >= 0);
  for (int u = 0; u < n; ++u) {
    for (int i = 0; i < SLICE; ++i) {
      STAGE("word %d of unit %d's slice", i, u);
      ASSERT_EQ(words[u * SLICE + i], word_of(u, i));
    }
  }
  test_stage[0] = '\0';
  free(words);
  ASSERT(H5Sclose(space) >= 0);
  ASSERT(H5Dclose(set) >= 0);
  ASSERT(H5Fclose(file) >= 0);
}

/* Unit 0 of the file's team (`me` there) removes it once every unit of
 * `team`, which holds that team, is done with it. */
static void remove_file(const char *name, dart_team_t team, int me)
{
  ASSERT_OK(dart_barrier(team));
  if (me == 0) {
    ASSERT_EQ(unlink(name), 0);
  }
}

static void team_all(void)
{
  char name[256];
  file_name(DART_TEAM_ALL, "all", name, sizeof name);
  hid_t fapl = fapl_for(DART_TEAM_ALL, test_me, test_units);
  write_slices(name, fapl, test_me, test_units);
  ASSERT(H5Pclose(fapl) >= 0);
  fapl = fapl_for(DART_TEAM_ALL, test_me, test_units);
  read_all(name, fapl, test_units);
  ASSERT(H5Pclose(fapl) >= 0);
  remove_file(name, DART_TEAM_ALL, test_me);
}

static void subteam(void)
{
  dart_team_t sub = test_subteam_create(test_units);
  if (sub == DART_TEAM_NULL) {
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
    return;
  }
  int me, n;
  test_team_position(sub, &me, &n);
  char name[256];
  file_name(sub, "sub", name, sizeof name);
  hid_t fapl = fapl_for(sub, me, n);
  ASSERT_OK(dart_team_destroy(&sub));
  write_slices(name, fapl, me, n);
  read_all(name, fapl, n);
  ASSERT(H5Pclose(fapl) >= 0);
  remove_file(name, DART_TEAM_ALL, me);
}

/* One refused call: DART_ERR_INVAL, and the log holds exactly one line
 * of DART's about it and nothing of HDF5's error printing. */
static void refused(hid_t plist, dart_team_t team, const char *says)
{
  struct test_capture capture;
  test_capture_begin(&capture);
  dart_ret_t ret = dart__io__hdf5__prep_mpio(plist, team);
  char *log = test_capture_end(&capture);
  ASSERT_RET(ret, DART_ERR_INVAL);
  ASSERT_EQ(test_occurrences(log, "dart__io__hdf5__prep_mpio"), 1);
  ASSERT_MSG(strstr(log, says) != NULL, "log \"%s\" lacks \"%s\"", log,
             says);
  ASSERT_EQ(test_occurrences(log, "HDF5-DIAG"), 0);
  free(log);
}

static void bad_input(void)
{
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  ASSERT(fapl >= 0);
  STAGE("unknown teams");
  refused(fapl, DART_TEAM_NULL, "team");
  refused(fapl, 4711, "team");
  STAGE("not a file-access list");
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  ASSERT(dcpl >= 0);
  refused(dcpl, DART_TEAM_ALL, "not an HDF5 file-access property list");
  ASSERT(H5Pclose(dcpl) >= 0);
  STAGE("no list at all");
  refused(H5P_DEFAULT, DART_TEAM_ALL, "not an HDF5 file-access");
  refused((hid_t)-1, DART_TEAM_ALL, "not an HDF5 file-access");
  STAGE("a closed list");
  hid_t closed = H5Pcreate(H5P_FILE_ACCESS);
  ASSERT(closed >= 0);
  ASSERT(H5Pclose(closed) >= 0);
  refused(closed, DART_TEAM_ALL, "not an HDF5 file-access");
  STAGE("only unit 0's list is none");
  /* The call is collective (HDF5 duplicates the communicator): the
   * others must not wait for unit 0 in it, nor set their lists. */
  if (test_me == 0) {
    refused(H5P_DEFAULT, DART_TEAM_ALL, "not an HDF5 file-access");
  } else {
    refused(fapl, DART_TEAM_ALL, "another unit of team 0 passed no HDF5");
  }
  test_stage[0] = '\0';
  /* The refusals touched nothing: the list still takes the team. */
  ASSERT(H5Pget_driver(fapl) != H5FD_MPIO);
  ASSERT_OK(dart__io__hdf5__prep_mpio(fapl, DART_TEAM_ALL));
  ASSERT(H5Pget_driver(fapl) == H5FD_MPIO);
  ASSERT(H5Pclose(fapl) >= 0);
}

static const struct test_case cases[] = {
  { "team_all", team_all },
  { "subteam", subteam },
  { "bad_input", bad_input },
};

/* Outside dart_init .. dart_exit: refused (HDF5 needs no MPI for the
 * list itself). */
static void refused_uninitialized(void)
{
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  ASSERT(fapl >= 0);
  int saved = mute_log();
  ASSERT_RET(dart__io__hdf5__prep_mpio(fapl, DART_TEAM_ALL),
             DART_ERR_NOTINIT);
  restore_log(saved);
  ASSERT(H5Pget_driver(fapl) != H5FD_MPIO);
  ASSERT(H5Pclose(fapl) >= 0);
}

static void teardown(void)
{
  ASSERT_OK(dart_exit());
  refused_uninitialized();
}

int main(int argc, char **argv)
{
  refused_uninitialized();
  return test_run_with(argc, argv, TEST_CASES(cases), test_dart_setup,
                       teardown);
}
