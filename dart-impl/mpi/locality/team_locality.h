/* A team's locality data: its domain tree and one unit-locality record
 * per member (dart_locality.h), built from the node database's unit records. */
#ifndef DART_MPI_LOCALITY_TEAM_H
#define DART_MPI_LOCALITY_TEAM_H

#include "mpi/model/team.h"

#include <dash/dart/if/dart_types.h>

struct team_locality {
  dart_domain_locality_t *root;
  dart_unit_locality_t   *units; /* indexed by team unit */
};

/* Frees the team's locality data, if any (team destroy, dart_exit,
 * dart_team_locality_finalize). */
void team_locality_free(struct team *team);

#endif
