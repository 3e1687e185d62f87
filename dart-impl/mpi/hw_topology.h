/* The hwloc topology, loaded once per (simulated) node and shared with
 * the node's units through hwloc's shared-memory topology support. */
#ifndef DART_MPI_HW_TOPOLOGY_H
#define DART_MPI_HW_TOPOLOGY_H

#include <hwloc.h>
#include <mpi.h>
#include <stdbool.h>

struct hw_topology {
  hwloc_topology_t topology;    /* NULL if hwloc failed entirely */
  bool             adopted;     /* mapped from the node root's copy */
  bool             loaded;      /* this process loaded it itself */
  char             shared_file[64]; /* node root: the file to remove */
};

/* Collective over `node_comm` (one broadcast): its rank 0 loads the
 * topology and writes it into a file in /dev/shm mapped at an address
 * every unit maps too; the others adopt it. A unit that cannot adopt it
 * (address taken, file gone) loads its own and says so at debug level. */
void hw_topology_open(const char *call, MPI_Comm node_comm,
                      struct hw_topology *out);

/* Node root, after any later node barrier (all units have adopted by
 * then): removes the file; the mappings stay valid. No-op elsewhere. */
void hw_topology_remove_file(struct hw_topology *topo);

void hw_topology_close(struct hw_topology *topo);

#endif
