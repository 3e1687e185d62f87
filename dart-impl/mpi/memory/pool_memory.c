/* Sparse node-shared reservations for the local pool (see the header).
 * Each unit's reservation is a /dev/shm file truncated to the full size:
 * pages exist only where the pool commits them (fallocate), so reserving
 * costs address space, not memory. The files are unlinked
 * as soon as every node peer has mapped them, so a crashed job leaves
 * nothing behind in /dev/shm. */
#define _GNU_SOURCE /* fallocate */
#include "mpi/memory/pool_memory.h"
#include "base/shm_file.h"
#include "mpi/core/progress.h"
#include "mpi/core/runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int pool_memory_commit(int fd, size_t offset, size_t bytes)
{
  /* fallocate (not posix_fallocate, which may fall back to writing) so
   * that a full tmpfs reports ENOSPC here instead of SIGBUS later. */
  if (fallocate(fd, 0, (off_t)offset, (off_t)bytes) != 0) {
    return errno;
  }
  return 0;
}

void pool_memory_release(int fd, size_t offset, size_t bytes)
{
  /* Best effort: a kernel without hole punching on tmpfs keeps the
   * pages until the file goes at dart_exit. */
  if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                (off_t)offset, (off_t)bytes) != 0) {
    LOG_DEBUG("dart_memalloc", "cannot return %zu pool bytes: %s", bytes,
              strerror(errno));
  }
}

void pool_memory_unmap(char **node_bases, int count, size_t reserve)
{
  if (node_bases == NULL) {
    return;
  }
  for (int r = 0; r < count; ++r) {
    if (node_bases[r] != NULL) {
      munmap(node_bases[r], reserve);
    }
  }
  free(node_bases);
}

size_t pool_memory_default_reserve(int node_size)
{
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  size_t phys = pages > 0 && page > 0 ? (size_t)pages * (size_t)page
                                      : (size_t)1 << 34;
  /* A node's reservations all live in every member's address space: keep
   * them within 32 TiB of the 128 TiB user space of x86-64 and AArch64. */
  size_t cap = ((size_t)1 << 45) / (size_t)(node_size > 0 ? node_size : 1);
  return phys < cap ? phys : cap;
}

/* Every node member's verdict: the worst (largest) errno of all. */
static int node_agree(MPI_Comm node_comm, int my_err)
{
  int worst = my_err;
  MPI_Request request;
  if (progress_complete(MPI_Iallreduce(&my_err, &worst, 1, MPI_INT, MPI_MAX,
                                       node_comm, &request),
                        &request) != MPI_SUCCESS) {
    return EIO;
  }
  return worst;
}

dart_ret_t pool_memory_map(const char *call, MPI_Comm node_comm,
                           size_t reserve, size_t commit, int *fd,
                           char ***node_bases)
{
  *node_bases = NULL;
  int node_rank, node_size;
  MPI_Comm_rank(node_comm, &node_rank);
  MPI_Comm_size(node_comm, &node_size);
  char mine[SHM_FILE_PATH_MAX] = "";
  *fd = shm_file_create("dart-pool", reserve, mine);
  int err = *fd < 0 ? errno : pool_memory_commit(*fd, 0, commit);
  const char *step = "create";
  char (*paths)[SHM_FILE_PATH_MAX] = malloc((size_t)node_size * sizeof *paths);
  char **bases = calloc((size_t)node_size, sizeof *bases);
  if (err == 0 && (paths == NULL || bases == NULL)) {
    err = ENOMEM;
  }
  int agreed = node_agree(node_comm, err);
  if (agreed == 0) {
    step = "map";
    MPI_Request request;
    if (progress_complete(MPI_Iallgather(mine, SHM_FILE_PATH_MAX, MPI_CHAR,
                                         paths, SHM_FILE_PATH_MAX, MPI_CHAR,
                                         node_comm, &request),
                          &request) != MPI_SUCCESS) {
      err = EIO;
    }
    for (int r = 0; err == 0 && r < node_size; ++r) {
      bases[r] = r == node_rank ? shm_file_map_fd(*fd, reserve)
                                : shm_file_map(paths[r], reserve);
      err = bases[r] == NULL ? errno : 0;
    }
    /* The agreement doubles as the barrier after which nobody opens a
     * file by name any more. */
    agreed = node_agree(node_comm, err);
  }
  free(paths);
  if (*fd >= 0) {
    unlink(mine);
  }
  if (agreed != 0) {
    pool_memory_unmap(bases, node_size, reserve);
    if (*fd >= 0) {
      close(*fd);
      *fd = -1;
    }
    return report_error(agreed == ENOSPC || agreed == ENOMEM
                          ? DART_ERR_NOMEM : DART_ERR_OTHER, call,
                        "cannot %s node-shared memory (%zu bytes backed of "
                        "%zu reserved per unit): %s%s", step,
                        commit, reserve, strerror(err ? err : agreed),
                        err ? "" : " (on a node peer)");
  }
  *node_bases = bases;
  return DART_OK;
}
