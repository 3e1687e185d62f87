#define _DEFAULT_SOURCE /* O_CLOEXEC with strict POSIX headers */
#include "hw_topology.h"
#include "runtime.h"

#include <hwloc/shmem.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Where every unit of a node maps the shared topology. It has to be the
 * same virtual address in all of them; this one lies far from where
 * Linux puts heaps, stacks and libraries (and above ASan's shadow), so
 * it is normally free. When it is not, adoption fails and the unit
 * falls back to loading its own copy. */
#define SHARED_TOPOLOGY_ADDRESS ((uintptr_t)0x3e0000000000ull)

struct shared_topology_note {
  int      ok;
  uint64_t length;
  char     path[64];
};

static bool load_local(const char *call, struct hw_topology *out)
{
  if (hwloc_topology_init(&out->topology) != 0) {
    out->topology = NULL;
    LOG_DEBUG(call, "hwloc_topology_init failed; hardware facts unknown");
    return false;
  }
  if (hwloc_topology_load(out->topology) != 0) {
    hwloc_topology_destroy(out->topology);
    out->topology = NULL;
    LOG_DEBUG(call, "hwloc_topology_load failed; hardware facts unknown");
    return false;
  }
  out->loaded = true;
  return true;
}

/* Node root: a copy of the topology in a fresh /dev/shm file. */
static void publish(const char *call, hwloc_topology_t topology,
                    struct shared_topology_note *note)
{
  static unsigned serial;
  size_t length = 0;
  note->ok = 0;
  if (hwloc_shmem_topology_get_length(topology, &length, 0) != 0) {
    return;
  }
  snprintf(note->path, sizeof note->path, "/dev/shm/dart-hwloc-%ld-%u",
           (long)getpid(), serial++);
  int fd = open(note->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    LOG_DEBUG(call, "cannot create %s: %s", note->path, strerror(errno));
    return;
  }
  if (ftruncate(fd, (off_t)length) != 0 ||
      hwloc_shmem_topology_write(topology, fd, 0,
                                 (void *)SHARED_TOPOLOGY_ADDRESS, length,
                                 0) != 0) {
    LOG_DEBUG(call, "cannot share the hwloc topology: %s", strerror(errno));
    unlink(note->path);
  } else {
    note->ok = 1;
    note->length = length;
  }
  close(fd);
}

static bool adopt(const char *call, const struct shared_topology_note *note,
                  struct hw_topology *out)
{
  int fd = open(note->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    LOG_DEBUG(call, "cannot open %s: %s", note->path, strerror(errno));
    return false;
  }
  int rc = hwloc_shmem_topology_adopt(&out->topology, fd, 0,
                                      (void *)SHARED_TOPOLOGY_ADDRESS,
                                      (size_t)note->length, 0);
  int saved = errno;
  close(fd);
  if (rc != 0) {
    out->topology = NULL;
    LOG_DEBUG(call, "cannot adopt the node's hwloc topology (%s); loading "
              "a private copy", strerror(saved));
    return false;
  }
  out->adopted = true;
  return true;
}

void hw_topology_open(const char *call, MPI_Comm node_comm,
                      struct hw_topology *out)
{
  memset(out, 0, sizeof *out);
  int node_rank = 0, node_size = 1;
  MPI_Comm_rank(node_comm, &node_rank);
  MPI_Comm_size(node_comm, &node_size);
  if (node_size == 1) {
    load_local(call, out);
    return;
  }
  struct shared_topology_note note;
  memset(&note, 0, sizeof note);
  if (node_rank == 0 && load_local(call, out)) {
    publish(call, out->topology, &note);
  }
  MPI_Bcast(&note, (int)sizeof note, MPI_BYTE, 0, node_comm);
  if (node_rank != 0 && !(note.ok && adopt(call, &note, out))) {
    load_local(call, out);
  }
  if (node_rank == 0 && note.ok) {
    memcpy(out->shared_file, note.path, sizeof out->shared_file);
  }
}

void hw_topology_remove_file(struct hw_topology *topo)
{
  if (topo->shared_file[0] != '\0') {
    unlink(topo->shared_file);
    topo->shared_file[0] = '\0';
  }
}

void hw_topology_close(struct hw_topology *topo)
{
  if (topo->topology != NULL) {
    hwloc_topology_destroy(topo->topology);
    topo->topology = NULL;
  }
}
