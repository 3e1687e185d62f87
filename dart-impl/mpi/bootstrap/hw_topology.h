/* The hwloc topology, loaded once per (simulated) node and shared with
 * the node's units through hwloc's shared-memory topology support: the
 * node root loads it and copies it into a /dev/shm file mapped at an
 * address every unit maps too; the others adopt that copy. The root tells
 * them where it is with a note the caller broadcasts (together with
 * whatever else it sends its node at that moment). */
#ifndef DART_MPI_HW_TOPOLOGY_H
#define DART_MPI_HW_TOPOLOGY_H

#include "base/shm_file.h"

#include <hwloc.h>
#include <stdbool.h>
#include <stdint.h>

struct hw_topology {
  hwloc_topology_t topology; /* NULL if hwloc failed entirely */
  bool             adopted;  /* mapped from the node root's copy */
  bool             loaded;   /* this process loaded it itself */
  char             shared_file[SHM_FILE_PATH_MAX]; /* root: to remove */
};

/* Plain bytes, so it can travel in a broadcast. */
struct hw_topology_note {
  int32_t  ok;
  uint64_t length;
  char     path[SHM_FILE_PATH_MAX];
};

/* Node root: loads the topology and, if `share`, writes the shared copy
 * and fills `note` (note->ok = 0 if that failed). */
void hw_topology_load(const char *call, bool share, struct hw_topology *out,
                      struct hw_topology_note *note);

/* Other units: adopt the root's copy, or load a private one if there is
 * none or it cannot be mapped (said at debug level). */
void hw_topology_adopt(const char *call, const struct hw_topology_note *note,
                       struct hw_topology *out);

/* Node root, after a node barrier that follows every unit's adoption:
 * removes the file (mappings stay valid). No-op elsewhere. */
void hw_topology_remove_file(struct hw_topology *topo);

void hw_topology_close(struct hw_topology *topo);

#endif
