/* Groups: local, ascending sets of global unit ids. */
#ifndef DART_MPI_GROUP_H
#define DART_MPI_GROUP_H

#include <dash/dart/if/dart_team_group.h>

struct dart_group_struct {
  size_t       size;
  size_t       capacity;
  dart_unit_t *members; /* ascending, no duplicates */
};

/* A new group holding `count` ascending ids (copied); NULL if out of
 * memory. */
dart_group_t group_new(const dart_unit_t *members, size_t count);

#endif
