/* Builds a team's locality domain tree (docs/design.md, "Locality and
 * bootstrap") from the members' unit records: "." GLOBAL -> ".n" NODE ->
 * ".n.0" MODULE -> one level per entry of hwinfo.scopes, coarsest first,
 * down to one leaf per unit. MPI-free: the pure test feeds it synthetic
 * records. */
#ifndef DART_MPI_LOCALITY_TREE_H
#define DART_MPI_LOCALITY_TREE_H

#include "mpi/bootstrap/unit_records.h"

#include <dash/dart/if/dart_types.h>

/* records[i] belongs to team unit i (ascending global ids). Nodes are
 * numbered in the order their first member appears. On success *root_out
 * is a new tree (free with dart_domain_destroy) and leaf_tags[i] (room
 * for `count` tags) names the leaf of team unit i. */
dart_ret_t locality_tree_build(const struct unit_record *records, int count,
                               dart_team_t team,
                               dart_domain_locality_t **root_out,
                               char (*leaf_tags)[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE]);

#endif
