/* The process-wide runtime state and MPI error reporting: the bottom of
 * dart-impl/mpi that every other module may use (runtime.h). */
#define _GNU_SOURCE /* sched_getaffinity and the CPU_* macros */
#include "mpi/core/runtime.h"

#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

struct runtime runtime;

dart_ret_t report_mpi_error(const char *call, const char *mpi_function,
                            int mpi_error)
{
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(mpi_error, text, &len) != MPI_SUCCESS) {
    snprintf(text, sizeof text, "MPI error %d", mpi_error);
  }
  return report_error(DART_ERR_OTHER, call, "%s failed: %s", mpi_function,
                      text);
}

/* FNV-1a of `text`, from `seed` (two seeds give two independent hashes). */
static uint32_t text_hash(const char *text, uint32_t seed)
{
  uint32_t h = seed;
  for (const unsigned char *c = (const unsigned char *)text; *c; ++c) {
    h = (h ^ *c) * 16777619u;
  }
  return h;
}

/* What names the CPUs this process competes for: the running kernel's
 * boot id, which every process under one kernel shares, whatever its
 * host name (containers and network namespaces acting as hosts, like
 * scripts/cluster.sh's, share the machine's CPUs), else the host name. */
static void cpu_owner_name(char *name, size_t size)
{
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
  bool got = f != NULL && fgets(name, (int)size, f) != NULL &&
              name[0] != '\0' && name[0] != '\n';
  if (f != NULL) {
    fclose(f);
  }
  if (!got) {
    gethostname(name, size);
    name[size - 1] = '\0';
  }
}

bool runtime_host_oversubscribed(MPI_Comm world)
{
  /* The kernel (or host name) rather than MPI_COMM_TYPE_SHARED, which
   * MPICH's cliques (the tests' simulated nodes) cut below the host. */
  char host[HOST_NAME_MAX + 1] = "";
  cpu_owner_name(host, sizeof host);
  int me = 0;
  MPI_Comm_rank(world, &me);
  MPI_Comm peers = MPI_COMM_NULL;
  if (MPI_Comm_split(world, (int)(text_hash(host, 2166136261u) & INT_MAX),
                     me, &peers) != MPI_SUCCESS) {
    return false;
  }
  /* A second hash tells two hosts that share the first apart: then the
   * answer is no, the cheap default. */
  int check = (int)(text_hash(host, 0x9e3779b9u) & INT_MAX);
  int bounds[2] = { check, -check }, seen[2] = { 0, 0 };
  cpu_set_t mine, all;
  CPU_ZERO(&mine);
  CPU_ZERO(&all);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (long cpu = 0; cpu < online && cpu < CPU_SETSIZE; ++cpu) {
      CPU_SET((int)cpu, &mine);
    }
  }
  int units = 0;
  MPI_Comm_size(peers, &units);
  /* Unbound units count every CPU they may use, bound ones their own. */
  bool ok = MPI_Allreduce(bounds, seen, 2, MPI_INT, MPI_MIN, peers) ==
              MPI_SUCCESS &&
            MPI_Allreduce(&mine, &all, (int)sizeof mine, MPI_BYTE, MPI_BOR,
                          peers) == MPI_SUCCESS;
  MPI_Comm_free(&peers);
  return ok && seen[0] == -seen[1] && units > CPU_COUNT(&all);
}
