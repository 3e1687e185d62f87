/* Node-shared memory from MPI, or from DART's own files (see the header). */
#include "mpi/memory/node_shm.h"
#include "base/cache_line.h"
#include "mpi/core/progress.h"
#include "mpi/core/quirks.h"
#include "mpi/core/runtime.h"
#include "mpi/memory/pool_memory.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include <unistd.h>


static char *line_up(char *p)
{
  uintptr_t mask = (uintptr_t)(CACHE_LINE - 1);
  return (char *)(((uintptr_t)p + mask) & ~mask);
}

/* MPI's shared window; false (nothing left behind) if any member failed. */
static bool from_mpi(MPI_Comm node_comm, int node_size, size_t bytes,
                     struct node_shm *shm, int *mpi_err)
{
  /* The spare line lets every piece be realigned (some MPIs hand out 4- or
   * 8-byte aligned shared memory) and keeps zero-byte members from getting
   * a NULL base. */
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  char *mine = NULL;
  *mpi_err = MPI_Win_allocate_shared((MPI_Aint)(bytes + CACHE_LINE), 1, info,
                                     node_comm, &mine, &shm->win);
  MPI_Info_free(&info);
  if (*mpi_err != MPI_SUCCESS) {
    shm->win = MPI_WIN_NULL;
  }
  shm->bases = malloc((size_t)node_size * sizeof(char *));
  int ok = shm->win != MPI_WIN_NULL && shm->bases != NULL, all_ok = 0;
  MPI_Request request;
  if (progress_complete(MPI_Iallreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN,
                                       node_comm, &request),
                        &request) != MPI_SUCCESS ||
      !all_ok) {
    node_shm_free(shm, node_size);
    return false;
  }
  MPI_Win_set_errhandler(shm->win, MPI_ERRORS_RETURN);
  for (int r = 0; r < node_size; ++r) {
    MPI_Aint size;
    int disp_unit;
    char *base = NULL;
    MPI_Win_shared_query(shm->win, r, &size, &disp_unit, &base);
    shm->bases[r] = line_up(base);
  }
  return true;
}

/* Said once per process: which memory node peers share, and why. */
static void say_own_mapping(const char *call, int mpi_err)
{
  static atomic_flag said = ATOMIC_FLAG_INIT;
  if (atomic_flag_test_and_set(&said)) {
    return;
  }
  char text[MPI_MAX_ERROR_STRING] = "out of memory";
  int len = 0;
  if (mpi_err != MPI_SUCCESS) {
    MPI_Error_string(mpi_err, text, &len);
  }
  LOG_DEBUG(call, "MPI_Win_allocate_shared failed (%s): DART maps "
            "node-shared memory itself", text);
}

/* Bytes of node-shared memory left: what /dev/shm (where MPI's shared
 * windows and DART's own mappings keep their files) takes and the memory
 * behind it (a tmpfs as large as the memory lets the kernel kill a
 * process before a file grows past what is left); UINT64_MAX if neither
 * can be read. */
static uint64_t shm_bytes_left(void)
{
  uint64_t left = UINT64_MAX;
  struct statvfs fs;
  if (statvfs("/dev/shm", &fs) == 0) {
    left = (uint64_t)fs.f_bavail * fs.f_frsize;
  }
  FILE *meminfo = fopen("/proc/meminfo", "r");
  if (meminfo != NULL) {
    char line[128];
    unsigned long long kib;
    while (fgets(line, sizeof line, meminfo) != NULL) {
      if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
        if (kib * 1024 < left) {
          left = kib * 1024;
        }
        break;
      }
    }
    fclose(meminfo);
  }
  return left;
}

dart_ret_t node_shm_alloc(const char *call, MPI_Comm node_comm, size_t bytes,
                          struct node_shm *shm)
{
  *shm = (struct node_shm){ .win = MPI_WIN_NULL };
  int node_size = 0, node_rank = 0;
  MPI_Comm_size(node_comm, &node_size);
  MPI_Comm_rank(node_comm, &node_rank);
  /* Before MPI is asked, the members agree that all pieces fit: Open
   * MPI's MPI_Win_allocate_shared that fails on one member (its file does
   * not fit) leaves the others waiting in it for ever, and a tmpfs file
   * filled past the memory gets a unit killed. Every member sends its
   * piece in whole pages, the first also what is left, so all decide
   * alike. */
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  uint64_t mine[2] = { ((uint64_t)bytes + page - 1) / page * page,
                       node_rank == 0 ? shm_bytes_left() : UINT64_MAX };
  if (mine[0] == 0) {
    mine[0] = page;
  }
  uint64_t *all = malloc(2 * (size_t)node_size * sizeof *all);
  if (all == NULL) {
    return report_error(DART_ERR_NOMEM, call, "out of memory");
  }
  MPI_Request request;
  int err = progress_complete(MPI_Iallgather(mine, 2, MPI_UINT64_T, all, 2,
                                             MPI_UINT64_T, node_comm,
                                             &request),
                              &request);
  uint64_t largest = 0, total = 0, left = all[1];
  for (int r = 0; err == MPI_SUCCESS && r < node_size; ++r) {
    uint64_t piece = all[2 * r] + CACHE_LINE;
    largest = all[2 * r] > largest ? all[2 * r] : largest;
    total = total > UINT64_MAX - piece ? UINT64_MAX : total + piece;
  }
  free(all);
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Iallgather", err);
  }
  if (total > left) {
    return report_error(DART_ERR_NOMEM, call,
                        "the %d units of this node would share %llu bytes, "
                        "%llu are left (/dev/shm, memory)", node_size,
                        (unsigned long long)total,
                        (unsigned long long)left);
  }
  int mpi_err = MPI_SUCCESS;
  /* Where MPI's blocking calls spin on a host with more units than
   * cores (core/quirks.h, rma_waits_spin), MPI_Win_allocate_shared costs
   * tens of milliseconds; DART's own mapping needs only polled
   * collectives. */
  if (mpi_rma_waits_yield()) {
    LOG_DEBUG(call, "MPI's shared windows spin on this oversubscribed "
              "host: DART maps node-shared memory itself");
  } else if (from_mpi(node_comm, node_size, bytes, shm, &mpi_err)) {
    return DART_OK;
  } else {
    say_own_mapping(call, mpi_err);
  }
  /* Every member maps every file with one size: the largest piece. Only
   * my own piece is backed by memory. */
  int fd = -1;
  dart_ret_t ret = pool_memory_map(call, node_comm, (size_t)largest,
                                   (size_t)mine[0], &fd, &shm->bases);
  if (ret != DART_OK) {
    return ret;
  }
  close(fd); /* the mappings stay; nothing is committed later */
  shm->mapped = (size_t)largest;
  return DART_OK;
}

void node_shm_free(struct node_shm *shm, int node_size)
{
  if (shm->win != MPI_WIN_NULL) {
    MPI_Win_free(&shm->win);
  }
  if (shm->mapped > 0) {
    pool_memory_unmap(shm->bases, node_size, shm->mapped);
  } else {
    free(shm->bases);
  }
  shm->bases = NULL;
  shm->mapped = 0;
}
