/* The per-unit locality records the bootstrap gathers at dart_init (node
 * database, docs/design.md "Locality and bootstrap"), as the
 * locality API reads them. */
#ifndef DART_MPI_UNIT_RECORDS_H
#define DART_MPI_UNIT_RECORDS_H

#include <dash/dart/if/dart_types.h>

#include <stdint.h>

/* Fixed size so records can live in a shared-memory table and travel
 * between node roots as plain bytes. */
struct unit_record {
  int32_t       unit;       /* global unit id (rank in DART_TEAM_ALL) */
  int32_t       node_id;    /* 0..num_nodes-1, numbered like team ALL's my_node */
  int32_t       node_rank;  /* rank among the units of its node */
  int32_t       node_size;  /* units on its node */
  dart_hwinfo_t hwinfo;     /* hwinfo.host differs between (simulated) nodes */
};

/* Copies the record of global unit `unit` (0 <= unit < number of units)
 * into *out. Reads the node database under its reader lock; in on-demand
 * mode a record of another node is fetched on first use. Returns
 * DART_ERR_INVAL for a unit out of range, DART_ERR_NOTINIT before init. */
dart_ret_t unit_record_get(int32_t unit, struct unit_record *out);

/* Number of (simulated) nodes the job runs on. */
int32_t unit_records_num_nodes(void);

/* Node-shared entries besides the unit records, for data a higher layer
 * computes once per node (team-level facts): values of
 * UNIT_RECORDS_ENTRY_BYTES bytes under 64-bit keys, visible to every unit
 * of the node at once, UNIT_RECORDS_MAX_ENTRIES per node. Put inserts or
 * replaces (DART_ERR_NOMEM when the node's entries are all taken); get
 * returns DART_ERR_NOTFOUND for a key nobody put. Both need the node
 * table, so DART_BOOTSTRAP=naive answers DART_ERR_OTHER. */
#define UNIT_RECORDS_ENTRY_BYTES sizeof(struct unit_record)
#define UNIT_RECORDS_MAX_ENTRIES 64
dart_ret_t unit_records_entry_put(uint64_t key, const void *value);
dart_ret_t unit_records_entry_get(uint64_t key, void *value);

#endif
