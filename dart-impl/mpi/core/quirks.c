/* Detection of the MPI library's quirks (see the header). */
#include "mpi/core/quirks.h"
#include "mpi/core/progress.h"
#include "mpi/core/runtime.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct mpi_quirks mpi_quirks;

static MPI_Datatype minmax_type[DART_TYPE_LAST];

/* Whether MPI_MIN and MPI_MAX on `type` (`bytes` wide, 4 or 8) order as
 * unsigned: max(UMAX, 1) = UMAX and min(UMAX, 1) = 1. */
static bool orders_unsigned(MPI_Datatype type, size_t bytes)
{
  unsigned char big[8], one[8], out[8];
  uint64_t big64 = bytes == 4 ? UINT32_MAX : UINT64_MAX, one64 = 1;
  uint32_t big32 = UINT32_MAX, one32 = 1;
  memcpy(big, bytes == 4 ? (void *)&big32 : (void *)&big64, bytes);
  memcpy(one, bytes == 4 ? (void *)&one32 : (void *)&one64, bytes);
  memcpy(out, one, bytes);
  MPI_Reduce_local(big, out, 1, type, MPI_MAX);
  bool ok = memcmp(out, big, bytes) == 0;
  memcpy(out, big, bytes);
  MPI_Reduce_local(one, out, 1, type, MPI_MIN);
  return ok && memcmp(out, one, bytes) == 0;
}

/* For each unsigned type the same-width stand-ins, tried in order. */
static void probe_minmax_types(void)
{
#define OWN_TYPE(name, id, T, U, mpi, class) minmax_type[id] = mpi;
  BASIC_TYPES(OWN_TYPE)
#undef OWN_TYPE
  const struct {
    dart_datatype_t type;
    MPI_Datatype    candidates[3];
  } unsigned_types[] = {
    { DART_TYPE_UINT, { MPI_UNSIGNED, MPI_UINT32_T, MPI_UINT32_T } },
    { DART_TYPE_ULONG,
      { MPI_UNSIGNED_LONG, MPI_UNSIGNED_LONG_LONG, MPI_UINT64_T } },
    { DART_TYPE_ULONGLONG,
      { MPI_UNSIGNED_LONG_LONG, MPI_UINT64_T, MPI_UNSIGNED_LONG } },
  };
  for (size_t i = 0; i < sizeof unsigned_types / sizeof *unsigned_types;
       ++i) {
    dart_datatype_t t = unsigned_types[i].type;
    size_t bytes = basic_type_size(t);
    minmax_type[t] = MPI_DATATYPE_NULL;
    for (int k = 0; k < 3 && minmax_type[t] == MPI_DATATYPE_NULL; ++k) {
      MPI_Datatype candidate = unsigned_types[i].candidates[k];
      int size = 0;
      MPI_Type_size(candidate, &size);
      if ((size_t)size == bytes && orders_unsigned(candidate, bytes)) {
        minmax_type[t] = candidate;
      }
    }
  }
}

MPI_Datatype mpi_minmax_type(dart_datatype_t type)
{
  return minmax_type[type];
}

/* Whether the library is Open MPI, and its major version (0 where the
 * version string does not say). MPI_Get_library_version may be called
 * before MPI_Init. */
static bool library_is_open_mpi_major(int *major)
{
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  MPI_Get_library_version(version, &len);
  *major = 0;
  if (strncmp(version, "Open MPI", 8) != 0) {
    return false;
  }
  if (sscanf(version, "Open MPI v%d.", major) != 1) {
    *major = 0;
  }
  return true;
}

static bool library_is_open_mpi(void)
{
  int major;
  return library_is_open_mpi_major(&major);
}

bool mpi_quirks_serialize_rma(int thread_level)
{
  int major;
  return thread_level >= MPI_THREAD_MULTIPLE &&
         library_is_open_mpi_major(&major) && major > 0 && major < 5;
}

/* Whether Open MPI's launcher placed this job on more than one host: it
 * sets both sizes in every process's environment before MPI_Init. */
static bool open_mpi_job_spans_hosts(void)
{
  const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const char *world = getenv("OMPI_COMM_WORLD_SIZE");
  if (local == NULL || world == NULL) {
    return false;
  }
  char *end_local = NULL, *end_world = NULL;
  long l = strtol(local, &end_local, 10), w = strtol(world, &end_world, 10);
  return *end_local == '\0' && *end_world == '\0' && l > 0 && l < w;
}

void mpi_quirks_before_init(int requested)
{
  /* Open MPI's default one-sided component crashes the target in
   * MPI_Compare_and_swap (ompi #11349) and pays a system call per
   * dynamic-window transfer; its UCX component does neither. A choice
   * the user made in the environment wins. UCX alone has no shared
   * windows: sm serves MPI_Win_allocate_shared, the other one the rest. */
  int major = 0;
  if (!library_is_open_mpi_major(&major)) {
    return;
  }
  /* Between hosts without RDMA devices (TCP) osc/pt2pt serves DART
   * faster than osc/ucx, RandomAccess most (the README, "Running on a
   * cluster"): it moves a batch of accumulates as one message where
   * osc/ucx locks, reads and writes every location. It refuses
   * MPI_THREAD_MULTIPLE and is gone from Open MPI 5. */
  bool pt2pt = major == 4 && requested < MPI_THREAD_MULTIPLE &&
               open_mpi_job_spans_hosts() && !mpi_node_has_rdma_devices();
  setenv("OMPI_MCA_osc", pt2pt ? "sm,pt2pt" : "sm,ucx", 0);
}

/* Whether the library is MPICH on its ch4:ucx device, and its version. */
static bool library_is_mpich_ucx(int *major, int *minor)
{
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  MPI_Get_library_version(version, &len);
  return sscanf(version, "MPICH Version: %d.%d", major, minor) == 2 &&
         strstr(version, "ch4:ucx") != NULL;
}

/* MPICH before 4.2 on its ch4:ucx device (quiet_before_finalize). */
static bool mpich_ucx_finalize_waits(void)
{
  int major = 0, minor = 0;
  return library_is_mpich_ucx(&major, &minor) &&
         (major < 4 || (major == 4 && minor < 2));
}

bool mpi_node_has_rdma_devices(void)
{
  DIR *dir = opendir("/sys/class/infiniband");
  bool any = false;
  if (dir != NULL) {
    for (struct dirent *e; !any && (e = readdir(dir)) != NULL;) {
      any = e->d_name[0] != '.';
    }
    closedir(dir);
  }
  return any;
}

/* rma_piece_bytes: the user's choice, else pieces where the header says
 * they pay. */
static size_t rma_piece_bytes(void)
{
  int major = 0, minor = 0;
  if (runtime.env.rma_piece_kib >= 0) {
    return (size_t)runtime.env.rma_piece_kib << 10;
  }
  return library_is_mpich_ucx(&major, &minor) &&
                 !mpi_node_has_rdma_devices()
             ? (size_t)32 << 10
             : 0;
}

void mpi_quirks_before_finalize(void)
{
  if (!mpi_quirks.quiet_before_finalize) {
    return;
  }
  int size = 0, me = 0, node_size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm node = MPI_COMM_NULL;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                          MPI_INFO_NULL, &node) != MPI_SUCCESS) {
    return;
  }
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  /* On one host MPICH's own shared memory carries everything. */
  if (node_size == size) {
    return;
  }
  MPI_Comm comm = MPI_COMM_NULL;
  if (MPI_Comm_dup(MPI_COMM_WORLD, &comm) != MPI_SUCCESS) {
    return;
  }
  /* Every endpoint between hosts then carries a message both ways, so
   * each side of a pair waits for the other's acknowledgement in its
   * finalize: neither leaves before it has answered the other. */
  for (int d = 1; d < size; ++d) {
    int to = (me + d) % size, from = (me - d + size) % size;
    char out = 0, in = 0;
    MPI_Sendrecv(&out, 1, MPI_CHAR, to, 0, &in, 1, MPI_CHAR, from, 0, comm,
                 MPI_STATUS_IGNORE);
  }
  MPI_Barrier(comm);
  MPI_Comm_free(&comm);
  /* Units leave the barrier at slightly different times; one that still
   * progressed MPI when an earlier one's finalize flush arrived would
   * acknowledge it before sending its own, and the earlier one could be
   * gone by then. No MPI call for 100 ms: all are in MPI_Finalize before
   * anyone answers. */
  struct timespec pause = { 0, 100 * 1000 * 1000 };
  nanosleep(&pause, NULL);
}

/* MPI_Finalize deletes the attributes of MPI_COMM_SELF before anything
 * else, with every MPI call still allowed (MPI-3.1 section 8.7.1): the
 * one place where DART can run the teardown above inside an application's
 * own MPI_Finalize. */
static int quiet_at_user_finalize(MPI_Comm comm, int keyval, void *value,
                                  void *extra)
{
  (void)comm;
  (void)keyval;
  (void)value;
  (void)extra;
  mpi_quirks_before_finalize();
  return MPI_SUCCESS;
}

void mpi_quirks_before_user_finalize(void)
{
  /* Once per process: a program that runs dart_init and dart_exit twice
   * still finalizes MPI once. */
  static bool registered;
  if (!mpi_quirks.quiet_before_finalize || registered) {
    return;
  }
  int keyval = MPI_KEYVAL_INVALID;
  int err = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
                                   quiet_at_user_finalize, &keyval, NULL);
  if (err == MPI_SUCCESS) {
    err = MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL);
    registered = err == MPI_SUCCESS;
    MPI_Comm_free_keyval(&keyval); /* the attribute keeps it alive */
  }
  if (err != MPI_SUCCESS) {
    LOG_WARN("dart_exit", "cannot hook into the application's MPI_Finalize "
             "(MPI error %d): it may hang across hosts (README, known "
             "problems)", err);
  }
}

int mpi_win_flush_settled(int unit, MPI_Win win, MPI_Aint probe,
                          bool remote)
{
  if (mpi_rma_waits_yield() && probe != MPI_NO_PROBE) {
    unsigned char seen;
    MPI_Request request;
    int err = MPI_Rget_accumulate(NULL, 0, MPI_BYTE, &seen, 1, MPI_BYTE,
                                  unit, probe, 1, MPI_BYTE, MPI_NO_OP, win,
                                  &request);
    err = err == MPI_SUCCESS ? progress_wait_yielding(&request) : err;
    if (err != MPI_SUCCESS) {
      return err;
    }
  }
  return remote ? MPI_Win_flush(unit, win) : mpi_win_flush_local(unit, win);
}

/* Open MPI names a window "<component> window <n>": an empty probe window
 * made as DART's segments are (MPI_Win_create) tells which one-sided
 * component serves them. `component` stays empty under other MPIs. */
static int probe_window(MPI_Comm world, bool open_mpi, char *component,
                        size_t size)
{
  MPI_Win probe = MPI_WIN_NULL;
  int err = MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, world, &probe);
  if (err != MPI_SUCCESS) {
    return err;
  }
  char name[MPI_MAX_OBJECT_NAME] = "";
  int len = 0;
  if (open_mpi) {
    MPI_Win_get_name(probe, name, &len);
  }
  MPI_Win_free(&probe);
  size_t n = strcspn(name, " ");
  n = n < size - 1 ? n : size - 1;
  memcpy(component, name, n);
  component[n] = '\0';
  return MPI_SUCCESS;
}

dart_ret_t mpi_quirks_detect(const char *call, MPI_Comm world)
{
  /* Nothing carried over from an earlier dart_init on a borrowed MPI. */
  probe_minmax_types();
  bool open_mpi = library_is_open_mpi();
  mpi_quirks = (struct mpi_quirks){
    .narrow_atomics_broken = open_mpi,
    .get_accumulate_replace_races = open_mpi,
    .request_rma_broken = open_mpi,
    .window_per_segment = open_mpi,
    .accumulate_by_fetch = open_mpi,
    .quiet_before_finalize = !open_mpi && mpich_ucx_finalize_waits(),
    .rma_waits_spin = !open_mpi,
    .rma_piece_bytes = rma_piece_bytes(),
  };
  int size = 0;
  MPI_Comm_size(world, &size);
  if (size == 1) {
    /* One unit makes no windows (its teams are all of one unit), and
     * Open MPI 4.1 under its default components cannot make one there. */
    return DART_OK;
  }
  char osc[32] = "";
  /* Collective: every member learns the same outcome. */
  int err = probe_window(world, open_mpi, osc, sizeof osc);
  int ok = err == MPI_SUCCESS, all_ok = 0;
  if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, world) !=
        MPI_SUCCESS || !all_ok) {
    char text[MPI_MAX_ERROR_STRING] = "on another unit";
    int len = 0;
    if (err != MPI_SUCCESS) {
      MPI_Error_string(err, text, &len);
    }
    return report_error(DART_ERR_OTHER, call, "MPI cannot create a window "
                        "(%s): DART's memory would be unreachable. Open "
                        "MPI's osc/pt2pt refuses windows at "
                        "MPI_THREAD_MULTIPLE and osc/rdma needs an RDMA "
                        "network between hosts; OMPI_MCA_osc=sm,ucx serves "
                        "both", text);
  }
  bool rdma = strcmp(osc, "rdma") == 0;
  mpi_quirks.atomics_partly_wrong = rdma;
  mpi_quirks.flush_local_is_flush = strcmp(osc, "pt2pt") == 0;
  if (osc[0] != '\0') {
    LOG_DEBUG(call, "Open MPI serves DART's windows with osc/%s", osc);
  }
  int me = 0;
  MPI_Comm_rank(world, &me);
  if (rdma && me == 0) {
    LOG_WARN(call, "Open MPI serves DART's windows with osc/rdma: "
             "compare-and-swap, logical operations and unsigned MIN/MAX "
             "that go through MPI (on registered memory, and between "
             "nodes) will fail with DART_ERR_OTHER, since osc/rdma gets "
             "them wrong or crashes; start MPI with OMPI_MCA_osc=sm,ucx");
  }
  return DART_OK;
}

bool mpi_atomic_works(dart_operation_t op, dart_datatype_t dtype)
{
  if (!mpi_quirks.atomics_partly_wrong) {
    return true;
  }
  switch (op) {
  case DART_OP_LAND: case DART_OP_LOR: case DART_OP_LXOR:
    return false;
  case DART_OP_MIN: case DART_OP_MAX:
    /* BYTE has no defined signedness: treated as the unsigned ones. */
    return dtype != DART_TYPE_UINT && dtype != DART_TYPE_ULONG &&
           dtype != DART_TYPE_ULONGLONG && dtype != DART_TYPE_BYTE;
  default:
    return true;
  }
}
