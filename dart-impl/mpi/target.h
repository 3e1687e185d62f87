/* Where a global pointer points: resolved once per one-sided call. */
#ifndef DART_MPI_TARGET_H
#define DART_MPI_TARGET_H

#include "segment.h"
#include "team.h"

#include <dash/dart/if/dart_globmem.h>

struct target {
  struct team    *team;
  struct segment *segment;
  int             unit;    /* team-relative */
  char           *direct;  /* load/store address, or NULL: use RMA */
  MPI_Win         win;     /* RMA: the team's dynamic window */
  MPI_Aint        disp;    /* RMA: displacement of the first byte */
};

/* Resolves `gptr` for an access of `span` bytes from its offset. Unknown
 * team or segment, unit out of range, or a span running past the end of
 * the unit's portion: DART_ERR_INVAL with a log line on behalf of `call`.
 * O(1), no allocation. */
dart_ret_t target_resolve(const char *call, dart_gptr_t gptr, size_t span,
                          struct target *t);

/* Called on every direct (shared-memory) access: now and then it enters
 * MPI, so a unit that only copies through shared memory still lets MPI
 * make progress for others. */
void target_direct_progress(void);

#endif
