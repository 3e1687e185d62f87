/* The calling process's hardware facts (dart_hwinfo_t) from an hwloc
 * topology, however it was obtained (loaded, or adopted from the node's
 * shared copy). No MPI here. */
#ifndef DART_BASE_HWINFO_PROBE_H
#define DART_BASE_HWINFO_PROBE_H

#include <dash/dart/if/dart_types.h>

#include <hwloc.h>

/* Every integer -1 (unknown), no scopes, empty host. */
void hwinfo_set_unknown(dart_hwinfo_t *hw);

/* Fills `hw` for the calling process: host name, the PU it is bound to
 * (or last ran on), its core, NUMA node and package, caches per level
 * (sizes in bytes, ids = hwloc logical indexes, data/unified caches),
 * threads per core, cores it may run on, memory sizes in MiB (as DASH
 * stores them, so they fit an int), and its ancestor scopes from CORE up
 * to NUMA. cpu_id is the OS index of the PU, other ids logical indexes. */
void hwinfo_probe(hwloc_topology_t topology, dart_hwinfo_t *hw);

/* Appends "-n<node_id>" to hw->host (truncating the host name if
 * needed), for a physical host that holds several DART nodes. */
void hwinfo_mark_node(dart_hwinfo_t *hw, int node_id);

#endif
