/**
 * \file dash/dart/if/dart_globmem.h
 *
 * Global pointers, global memory allocation and registration.
 */
#ifndef DASH__DART__IF__DART_GLOBMEM_H_
#define DASH__DART__IF__DART_GLOBMEM_H_

#include "dart_util.h"
#include "dart_types.h"
#include "dart_team_group.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------------
 * Global pointer
 * ---------------------------------------------------------------------- */

/* 16 bytes; unitid is a signed 24-bit field relative to teamid. */
typedef struct {
  dart_unit_t  unitid : 24;
  unsigned int flags  :  8;
  int16_t      segid;
  int16_t      teamid;
  union {
    uint64_t offset;
    void*    addr;
  } addr_or_offs;
} dart_gptr_t;

#ifdef __cplusplus
#define DART_GPTR_NULL \
  (dart_gptr_t { -1, 0, 0, DART_TEAM_NULL, { 0 } })
#else
#define DART_GPTR_NULL                \
  ((dart_gptr_t){ .unitid = -1,       \
                  .flags  = 0,        \
                  .segid  = 0,        \
                  .teamid = DART_TEAM_NULL, \
                  .addr_or_offs = { .offset = 0 } })
#endif

/* The argument must be an expression of type dart_gptr_t. */
#define DART_GPTR_ISNULL(gptr)                 \
  ((gptr).unitid < 0 &&                        \
   (gptr).segid == 0 &&                        \
   (gptr).teamid == DART_TEAM_NULL &&          \
   (gptr).addr_or_offs.addr == 0)

/* Compares unit, segment, team and offset; flags are ignored. */
#define DART_GPTR_EQUAL(gptr1, gptr2)                              \
  ((gptr1).unitid == (gptr2).unitid &&                             \
   (gptr1).segid  == (gptr2).segid  &&                             \
   (gptr1).teamid == (gptr2).teamid &&                             \
   (gptr1).addr_or_offs.offset == (gptr2).addr_or_offs.offset)

/* Segment id of memory allocated with dart_memalloc. */
#define DART_SEGMENT_LOCAL ((int16_t)0)

/* ----------------------------------------------------------------------
 * Address and flag helpers
 * ---------------------------------------------------------------------- */

/* Native address of gptr if it refers to the calling unit, NULL otherwise. */
dart_ret_t dart_gptr_getaddr(
  const dart_gptr_t    gptr,
        void        ** addr) DART_NOTHROW;

/* Sets the offset of gptr from a native address of the calling unit. */
dart_ret_t dart_gptr_setaddr(
  dart_gptr_t * gptr,
  void        * addr) DART_NOTHROW;

/* Adds offs bytes (may be negative) to the offset of gptr. */
DART_INLINE DART_NOTHROW
dart_ret_t dart_gptr_incaddr(
  dart_gptr_t * gptr,
  int64_t       offs)
{
  gptr->addr_or_offs.offset += (uint64_t)offs;
  return DART_OK;
}

/* Sets the (team-relative) unit of gptr. */
DART_INLINE DART_NOTHROW
dart_ret_t dart_gptr_setunit(
  dart_gptr_t      * gptr,
  dart_team_unit_t   unit)
{
  gptr->unitid = unit.id;
  return DART_OK;
}

dart_ret_t dart_gptr_getflags(
  dart_gptr_t   gptr,
  uint16_t    * flags) DART_NOTHROW;

dart_ret_t dart_gptr_setflags(
  dart_gptr_t * gptr,
  uint16_t      flags) DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Pool allocator on a collective segment
 * ---------------------------------------------------------------------- */

typedef struct dart_allocator_struct * dart_allocator_t;

dart_ret_t dart_allocator_new(
  size_t             pool_size,
  dart_team_t        team,
  dart_allocator_t * new_allocator);

dart_ret_t dart_allocator_alloc(
  size_t             nelem,
  dart_datatype_t    dtype,
  dart_gptr_t      * gptr,
  dart_allocator_t   allocator);

dart_ret_t dart_allocator_free(
  dart_gptr_t      * gptr,
  dart_allocator_t   allocator);

dart_ret_t dart_allocator_destroy(dart_allocator_t *allocator);

/* ----------------------------------------------------------------------
 * Local (non-collective) global memory
 * ---------------------------------------------------------------------- */

dart_ret_t dart_memalloc(
  size_t            nelem,
  dart_datatype_t   dtype,
  dart_gptr_t     * gptr) DART_NOTHROW;

dart_ret_t dart_memfree(dart_gptr_t gptr) DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Collective allocation and registration
 *
 * dart_team_memalloc_aligned, dart_team_memregister(_aligned),
 * dart_team_memfree and dart_team_memderegister are collective over the
 * team: every member makes the call, and every member gets the same
 * segment id back from an allocation or registration.
 *
 * Ordering freedom: between two allocations or registrations on a team,
 * members may free or deregister that team's segments in different
 * orders (a container that keeps its segments sorted by local address
 * does). A free returns without waiting for the other members; the MPI
 * windows behind the segment are released at the team's next allocation,
 * registration or destruction (or dart_exit), in the same order on every
 * member. The set of segments freed before each allocation must be the
 * same on every member. After a free, every call with a gptr of the
 * segment returns DART_ERR_INVAL.
 * ---------------------------------------------------------------------- */

dart_ret_t dart_team_memalloc_aligned(
  dart_team_t       teamid,
  size_t            nelem,
  dart_datatype_t   dtype,
  dart_gptr_t     * gptr) DART_NOTHROW;

dart_ret_t dart_team_memfree(
  dart_gptr_t gptr) DART_NOTHROW;

dart_ret_t dart_team_memregister_aligned(
  dart_team_t       teamid,
  size_t            nelem,
  dart_datatype_t   dtype,
  void            * addr,
  dart_gptr_t     * gptr) DART_NOTHROW;

dart_ret_t dart_team_memregister(
  dart_team_t       teamid,
  size_t            nlelem,
  dart_datatype_t   dtype,
  void            * addr,
  dart_gptr_t     * gptr) DART_NOTHROW;

dart_ret_t dart_team_memderegister(dart_gptr_t gptr) DART_NOTHROW;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DASH__DART__IF__DART_GLOBMEM_H_ */
