/* What units reaching my local pool by RMA see of it, and how it changes
 * while they run (docs/design.md, "The local pool"). Only the committed
 * prefix of my reservation is attached to the pool's dynamic window (and
 * so registered with the network), one region per unit; it is re-attached
 * when the pool grows. Every such change follows one protocol: mark my
 * exposure as changing, raise my flag at every unit that reaches me by
 * RMA, wait the grace time, change, publish the new size. A unit that
 * finds my flag up, or that would access past the size it knows, reads
 * my exposure again before it touches my memory (struct segment_watch).
 * Node peers reach the pool by load/store through their mapping of the
 * whole reservation: growth does not concern them (an access past the
 * size they know reads it again), a shrink raises their flags too, which
 * their cached targets look at (model/target.h). */
#ifndef DART_MPI_POOL_EXPOSURE_H
#define DART_MPI_POOL_EXPOSURE_H

#include "mpi/model/segment.h"
#include "mpi/model/team.h"

#include <dash/dart/if/dart_types.h>

#include <mpi.h>
#include <stddef.h>

/* The grace time of one change and its parts: t_delay = t_maxdata +
 * t_rrsched * runnable (pool_exposure.c says why). */
struct pool_grace {
  long long maxdata_ns;  /* largest transfer into the pool / bandwidth */
  long long rrsched_ns;  /* the scheduler's round-robin time slice */
  int       runnable;    /* processes runnable on this node */
  long long total_ns;    /* what a change waits (DART_POOL_GRACE_US
                            replaces the model when set) */
};

struct pool_exposure_stats {
  bool             whole;        /* the whole reservation is in the pool's
                                    window (DART_POOL_EXPOSURE) */
  size_t           exposed;      /* bytes of my reservation in the pool's
                                    window (what is registered) */
  unsigned long    changes;      /* exposure changes so far */
  unsigned long    guarded;      /* of those, with flags and grace */
  unsigned long    shrinks;      /* of those, to a smaller size */
  long long        last_change_ns; /* wall time of the last change */
  struct pool_grace last_grace;  /* of the last guarded change */
};

/* Collective over DART_TEAM_ALL (`all`) at init: the flag window and the
 * pool's window: a dynamic one with the first `extent` bytes at `base`
 * attached (*attached), or, where DART_POOL_EXPOSURE says so (by default
 * under an MPI whose dynamic windows are slow, on a node without RDMA
 * devices), one created over the whole `reserve` bytes, which never
 * changes. Either way peers may reach only the first `extent` bytes, and
 * the protocol below tells them when that changes. *win: the pool's
 * window (MPI_WIN_NULL for a team of one), owned by segment 0 from then
 * on; *watch: what segment 0's accesses check (NULL for a team of one). */
dart_ret_t pool_exposure_init(const char *call, struct team *all,
                              char *base, size_t extent, size_t reserve,
                              MPI_Win *win, bool *attached,
                              const struct segment_watch **watch);

/* Exposes the first `extent` bytes (more than now) under the protocol
 * above (with the whole reservation in its window: publishes the size),
 * and updates segment 0's record of my portion. Not thread-safe: the
 * pool's lock serializes the calls. */
dart_ret_t pool_exposure_grow(const char *call, size_t extent);

/* Whether the exposure can shrink: among several units (a unit alone
 * has no flag window, and its threads no flags). */
bool pool_exposure_shrinks(void);

/* Exposes only the first `extent` bytes (fewer than now) under the
 * protocol above, with the flags raised at every other unit and at
 * myself, since node peers and my threads keep the old size in their
 * caches (with the whole reservation in its window nothing is
 * re-attached); after it returns no unit touches the bytes past `extent`,
 * and the caller may give their pages back. DART_OK once the exposure is
 * smaller (an MPI error after the grace time is logged: the smaller size
 * is safe then); an error when the flags could not be raised, and the
 * exposure stays as it was. The pool's lock serializes the calls. */
dart_ret_t pool_exposure_shrink(const char *call, size_t extent);

/* The grace time a change of an `extent`-byte exposure would wait. */
void pool_exposure_grace(size_t extent, struct pool_grace *grace);

void pool_exposure_stats(struct pool_exposure_stats *stats);

/* Collective at dart_exit: frees the flag window (the pool's window goes
 * with segment 0). */
void pool_exposure_finalize(void);

#endif
