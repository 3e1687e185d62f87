/* Bootstrap at dart_init (docs/design.md, "Locality and bootstrap"): every
 * unit's record (hwloc facts and node placement, struct unit_record) made
 * readable to every unit. Modes (DART_BOOTSTRAP):
 *
 *  - node-roots (default): units write their records into their node's
 *    shared segment (a /dev/shm file the node root creates); node roots
 *    allgather the node tables over the node-roots communicator straight
 *    into the shared table. Work and traffic per node are O(P).
 *  - naive: every unit allgathers every record into private memory, as
 *    the DASH runtime does: O(P x units per node) per node.
 *  - on-demand: only the job map (unit -> node, 4 bytes per unit) is
 *    exchanged; a record of another node is fetched one-sided from that
 *    node's table on first use and inserted under the 2N-lock's write side.
 *
 * The unit_records.h interface reads the result. */
#ifndef DART_MPI_BOOTSTRAP_H
#define DART_MPI_BOOTSTRAP_H

#include "base/env_config.h"

#include <stdint.h>

/* What one unit did during init (and lookups since). Per-node figures are
 * the sums over the node's units. Bytes are payload handed to or
 * delivered by MPI collectives; shared-memory stores are not traffic. */
struct bootstrap_counters {
  uint64_t records_written;   /* records stored into node or own memory */
  uint64_t records_read;      /* records read back at init (index, hosts) */
  uint64_t records_received;  /* records MPI delivered from other units */
  uint64_t bytes_sent;        /* this unit's contribution to exchanges */
  uint64_t bytes_received;    /* bytes MPI delivered from other units */
  uint64_t lookups;           /* unit_record_get calls answered */
  uint64_t fetches;           /* on-demand records fetched from a node */
  uint64_t topology_loads;    /* hwloc topologies loaded by this unit */
  uint64_t topology_adoptions;/* ... adopted from the node's shared copy */
  uint64_t slot_bytes;        /* bytes one record occupies in exchanges */
  uint64_t init_ns;           /* time this unit spent in bootstrap_init */
};

/* Collective over DART_TEAM_ALL, which must exist. */
dart_ret_t bootstrap_init(const char *call);
/* Collective over DART_TEAM_ALL, before the teams go. */
void bootstrap_finalize(void);

/* This unit's counters (white-box tests, benchmark). */
void bootstrap_counters_get(struct bootstrap_counters *out);
enum bootstrap_mode bootstrap_mode_in_use(void);

#endif
