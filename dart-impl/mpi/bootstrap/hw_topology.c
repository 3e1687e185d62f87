#include "mpi/bootstrap/hw_topology.h"
#include "mpi/core/runtime.h"

#include <hwloc/shmem.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Where every unit of a node maps the shared topology. It has to be the
 * same virtual address in all of them; this one lies far from where
 * Linux puts heaps, stacks and libraries (and above ASan's shadow), so
 * it is normally free. When it is not, adoption fails and the unit
 * falls back to loading its own copy. ThreadSanitizer lets programs map
 * only its application ranges, and this address lies outside them (the
 * mapping failed with EBUSY, so every unit loaded its own): under it, 256
 * GiB, inside the lowest of them in every layout GCC's TSan has used
 * (below 512 GiB) and far above a program's image. */
#if defined(__SANITIZE_THREAD__)
#define SHARED_TOPOLOGY_ADDRESS ((void *)0x004000000000ull)
#else
#define SHARED_TOPOLOGY_ADDRESS ((void *)0x3e0000000000ull)
#endif

static bool load_private(const char *call, struct hw_topology *out)
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

/* A copy of the topology in a fresh /dev/shm file. */
static void publish(const char *call, hwloc_topology_t topology,
                    struct hw_topology_note *note)
{
  size_t length = 0;
  if (hwloc_shmem_topology_get_length(topology, &length, 0) != 0) {
    return;
  }
  int fd = shm_file_create("dart-hwloc", length, note->path);
  if (fd < 0) {
    LOG_DEBUG(call, "cannot create %s: %s", note->path, strerror(errno));
    return;
  }
  if (hwloc_shmem_topology_write(topology, fd, 0, SHARED_TOPOLOGY_ADDRESS,
                                 length, 0) != 0) {
    LOG_DEBUG(call, "cannot share the hwloc topology: %s", strerror(errno));
    unlink(note->path);
  } else {
    note->ok = 1;
    note->length = length;
  }
  close(fd);
}

void hw_topology_load(const char *call, bool share, struct hw_topology *out,
                      struct hw_topology_note *note)
{
  memset(out, 0, sizeof *out);
  memset(note, 0, sizeof *note);
  if (load_private(call, out) && share) {
    publish(call, out->topology, note);
    if (note->ok) {
      memcpy(out->shared_file, note->path, sizeof out->shared_file);
    }
  }
}

void hw_topology_adopt(const char *call, const struct hw_topology_note *note,
                       struct hw_topology *out)
{
  memset(out, 0, sizeof *out);
  if (note->ok) {
    int fd = open(note->path, O_RDONLY);
    int rc = -1, saved = errno;
    if (fd >= 0) {
      rc = hwloc_shmem_topology_adopt(&out->topology, fd, 0,
                                      SHARED_TOPOLOGY_ADDRESS,
                                      (size_t)note->length, 0);
      saved = errno;
      close(fd);
    }
    if (rc == 0) {
      out->adopted = true;
      return;
    }
    out->topology = NULL;
    LOG_DEBUG(call, "cannot adopt the node's hwloc topology (%s); loading "
              "a private copy", strerror(saved));
  }
  load_private(call, out);
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
