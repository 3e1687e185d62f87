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

/* What the node's members need together: `sizes` holds a member's piece
 * plus its alignment line and, on node rank 0, what is left (others
 * send 0); it returns with the node's total and what is left. `largest`
 * returns with the largest piece. Two reductions of fixed size rather
 * than an all-gather, which needed an array of node-size entries that,
 * when its malloc failed on one member, left the others waiting in the
 * all-gather. MPI's error code. */
static int sum_demand(MPI_Comm node_comm, int node_size, uint64_t sizes[2],
                      uint64_t *largest)
{
  /* No sum can wrap: a piece clamped here makes the total at least
   * UINT64_MAX / node_size, more than any node has left, which is all
   * the check needs to know. */
  uint64_t cap = UINT64_MAX / (uint64_t)node_size;
  uint64_t mine[2] = { sizes[0] < cap ? sizes[0] : cap, sizes[1] },
           piece = *largest;
  /* Both are started before either is waited for: a member whose first
   * call fails still joins the second, so nobody waits for it there. */
  MPI_Request requests[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
  int err = MPI_Iallreduce(mine, sizes, 2, MPI_UINT64_T, MPI_SUM, node_comm,
                           &requests[0]);
  int err_max = MPI_Iallreduce(&piece, largest, 1, MPI_UINT64_T, MPI_MAX,
                               node_comm, &requests[1]);
  err = progress_complete(err, &requests[0]);
  err_max = progress_complete(err_max, &requests[1]);
  if (err == MPI_SUCCESS) {
    err = err_max;
  }
  return err;
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
  /* Beyond half the address space nothing fits anyway; the cap keeps
   * the rounding and the alignment line from wrapping. */
  uint64_t piece = (uint64_t)bytes < UINT64_MAX / 2
                     ? ((uint64_t)bytes + page - 1) / page * page
                     : UINT64_MAX / 2;
  if (piece == 0) {
    piece = page;
  }
  uint64_t sizes[2] = { piece + CACHE_LINE,
                        node_rank == 0 ? shm_bytes_left() : 0 },
           largest = piece;
  int err = sum_demand(node_comm, node_size, sizes, &largest);
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Iallreduce", err);
  }
  uint64_t total = sizes[0], left = sizes[1];
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
                                   (size_t)piece, &fd, &shm->bases);
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
