/**
 * \file dash/dart/if/dart_globmem.h
 *
 * \brief Global pointers, global memory allocation and registration.
 */
#ifndef DASH__DART__IF__DART_GLOBMEM_H_
#define DASH__DART__IF__DART_GLOBMEM_H_

#include "dart_util.h"
#include "dart_types.h"
#include "dart_team_group.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \defgroup DartGlobMem Global memory
 * \brief Global pointers and the memory they point to.
 *
 * Global memory is made of segments. A segment belongs to a team and has
 * one portion per member; a global pointer names (team, segment, unit,
 * byte offset in that unit's portion). Segments come in three kinds:
 *
 * - the local pool (segment #DART_SEGMENT_LOCAL of #DART_TEAM_ALL):
 *   blocks of dart_memalloc(), made by one unit without communication and
 *   reachable by every unit at once;
 * - collective segments (positive ids): dart_team_memalloc_aligned(), and
 *   the pools of dart_allocator_new();
 * - registered segments (negative ids): memory of the program exposed
 *   with dart_team_memregister().
 *
 * Segment ids are unique among the live segments of a team and may come
 * back after a free. A client moves a pointer to another unit's portion
 * by setting `unitid` (dart_gptr_setunit()) and within a portion by
 * changing the offset (dart_gptr_incaddr()); DART checks team, segment,
 * unit range and the portion's bounds on every access.
 * @{
 */

/* ----------------------------------------------------------------------
 * Global pointer
 * ---------------------------------------------------------------------- */

/**
 * \brief A global pointer: one byte of global memory.
 *
 * 16 bytes; `unitid` and `flags` share the first 32 bits. Clients read and
 * write the fields directly.
 */
typedef struct {
  /** Unit whose portion is addressed, relative to `teamid`; a signed
   *  24-bit value, -1 for no unit. */
  dart_unit_t  unitid : 24;
  /** Low 8 bits of the segment's flags (dart_gptr_setflags());
   *  informational, ignored by communication and by #DART_GPTR_EQUAL. */
  unsigned int flags  :  8;
  /** Segment id: 0 for the local pool, positive for collective,
   *  negative for registered segments. */
  int16_t      segid;
  /** Team the segment belongs to. */
  int16_t      teamid;
  /** Position inside the unit's portion. */
  union {
    /** Byte offset from the start of the unit's portion. */
    uint64_t offset;
    /** Kept for the layout and for #DART_GPTR_ISNULL; DART does not
     *  store addresses in global pointers. */
    void*    addr;
  } addr_or_offs;
} dart_gptr_t;

/**
 * \def DART_GPTR_NULL
 * \brief The null global pointer: unit -1, flags 0, segment 0, team
 *        #DART_TEAM_NULL, offset 0.
 *
 * An rvalue of type dart_gptr_t (a compound literal in C, a braced
 * functional cast in C++).
 */
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

/**
 * \brief True if `gptr` is the null global pointer.
 *
 * The argument must be an expression of type dart_gptr_t (it is used with
 * `.`), and is evaluated more than once.
 */
#define DART_GPTR_ISNULL(gptr)                 \
  ((gptr).unitid < 0 &&                        \
   (gptr).segid == 0 &&                        \
   (gptr).teamid == DART_TEAM_NULL &&          \
   (gptr).addr_or_offs.addr == 0)

/**
 * \brief True if two global pointers name the same unit, segment, team
 *        and offset; flags are ignored.
 *
 * Both arguments must be expressions of type dart_gptr_t, and are
 * evaluated more than once.
 */
#define DART_GPTR_EQUAL(gptr1, gptr2)                              \
  ((gptr1).unitid == (gptr2).unitid &&                             \
   (gptr1).segid  == (gptr2).segid  &&                             \
   (gptr1).teamid == (gptr2).teamid &&                             \
   (gptr1).addr_or_offs.offset == (gptr2).addr_or_offs.offset)

/** \brief Segment id of the local pool, the memory of dart_memalloc(). */
#define DART_SEGMENT_LOCAL ((int16_t)0)

/* ----------------------------------------------------------------------
 * Address and flag helpers
 * ---------------------------------------------------------------------- */

/**
 * \brief Converts a global pointer to the calling unit's memory into a
 *        native pointer.
 *
 * Memory reached through the native pointer is ordinary memory of the
 * caller: loads and stores need no DART call (see dart_barrier() and
 * dart_flush() for when other units' accesses become visible).
 *
 * Local, no communication. Thread safety: MT-safe.
 *
 * \param[in]  gptr Global pointer into a live segment.
 * \param[out] addr Receives the address of the byte if `gptr.unitid` is
 *                  the caller's id in `gptr.teamid`, else NULL (also on
 *                  failure).
 * \retval DART_OK          Converted, or NULL for another unit's memory.
 * \retval DART_ERR_INVAL   `addr` is NULL, or the team or segment of
 *                          `gptr` is unknown (#DART_GPTR_NULL included).
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_gptr_getaddr(
  const dart_gptr_t    gptr,
        void        ** addr) DART_NOTHROW;

/**
 * \brief Sets the offset of a global pointer from a native address in
 *        the calling unit's portion of its segment.
 *
 * `unitid` is not changed; point it at the caller for the result to
 * designate `addr`.
 *
 * Local, no communication. Thread safety: MT-safe for distinct pointers.
 *
 * \param[in,out] gptr Global pointer whose team and segment are used and
 *                     whose offset is set.
 * \param[in]     addr Address inside the caller's portion (its end
 *                     included).
 * \retval DART_OK          Set.
 * \retval DART_ERR_INVAL   `gptr` is NULL, its team or segment is
 *                          unknown, or `addr` lies outside the caller's
 *                          portion.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_gptr_setaddr(
  dart_gptr_t * gptr,
  void        * addr) DART_NOTHROW;

/**
 * \brief Adds a number of bytes to the offset of a global pointer.
 *
 * Inline, no check and no runtime needed; the offset wraps around as an
 * unsigned 64-bit number.
 *
 * \param[in,out] gptr The global pointer.
 * \param[in]     offs Bytes to add; may be negative.
 * \return #DART_OK.
 */
DART_INLINE DART_NOTHROW
dart_ret_t dart_gptr_incaddr(
  dart_gptr_t * gptr,
  int64_t       offs)
{
  gptr->addr_or_offs.offset += (uint64_t)offs;
  return DART_OK;
}

/**
 * \brief Sets the unit of a global pointer.
 *
 * Inline, no check and no runtime needed.
 *
 * \param[in,out] gptr The global pointer.
 * \param[in]     unit Unit relative to the pointer's team.
 * \return #DART_OK.
 */
DART_INLINE DART_NOTHROW
dart_ret_t dart_gptr_setunit(
  dart_gptr_t      * gptr,
  dart_team_unit_t   unit)
{
  gptr->unitid = unit.id;
  return DART_OK;
}

/**
 * \brief Reads the flags of the segment a global pointer points into.
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in]  gptr  Global pointer into a live segment.
 * \param[out] flags Receives the segment's 16-bit flags (0 unless set
 *                   with dart_gptr_setflags()); 0 on failure.
 * \retval DART_OK          Read.
 * \retval DART_ERR_INVAL   `flags` is NULL, or the team or segment of
 *                          `gptr` is unknown.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_gptr_getflags(
  dart_gptr_t   gptr,
  uint16_t    * flags) DART_NOTHROW;

/**
 * \brief Stores flags with the calling unit's record of a segment and in
 *        a global pointer.
 *
 * The flags have no effect on communication.
 *
 * Local. Thread safety: MT-safe for distinct segments.
 *
 * \param[in,out] gptr  Global pointer into a live segment; its `flags`
 *                      field receives the low 8 bits.
 * \param[in]     flags The flags.
 * \retval DART_OK          Stored.
 * \retval DART_ERR_INVAL   `gptr` is NULL, or its team or segment is
 *                          unknown.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_gptr_setflags(
  dart_gptr_t * gptr,
  uint16_t      flags) DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Pool allocator on a collective segment
 * ---------------------------------------------------------------------- */

/** \brief Handle of a pool allocator (dart_allocator_new()). */
typedef struct dart_allocator_struct * dart_allocator_t;

/**
 * \brief Creates a pool allocator: a collective segment on `team` in
 *        which every member owns a pool for allocations without
 *        communication.
 *
 * Collective over `team`. Thread safety: MT-team.
 *
 * \param[in]  pool_size     Bytes of each member's pool; rounded up to
 *                           a power of two.
 * \param[in]  team          The team.
 * \param[out] new_allocator Receives the allocator; NULL on failure.
 * \retval DART_OK          Created.
 * \retval DART_ERR_INVAL   `new_allocator` is NULL, `pool_size` is 0 or
 *                          too large, or `team` is not a team of the
 *                          caller.
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_OTHER   The segment could not be allocated (see
 *                          dart_team_memalloc_aligned()).
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_allocator_new(
  size_t             pool_size,
  dart_team_t        team,
  dart_allocator_t * new_allocator);

/**
 * \brief Allocates a block from the calling unit's pool of an allocator.
 *
 * The block is a power of two of at least 16 bytes, aligned to its size.
 * The returned pointer names the caller (its id in the allocator's team)
 * and may be passed to other units, which reach the block with put, get
 * and atomics.
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in]  nelem     Number of elements.
 * \param[in]  dtype     Basic or custom type of the elements.
 * \param[out] gptr      Receives the block's global pointer;
 *                       #DART_GPTR_NULL on failure.
 * \param[in]  allocator The allocator.
 * \retval DART_OK          Allocated.
 * \retval DART_ERR_INVAL   `gptr` is NULL, the allocator is not live, its
 *                          team was destroyed, or `dtype` or the size is
 *                          invalid.
 * \retval DART_ERR_NOMEM   The pool has no free block that large.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_allocator_alloc(
  size_t             nelem,
  dart_datatype_t    dtype,
  dart_gptr_t      * gptr,
  dart_allocator_t   allocator);

/**
 * \brief Returns a block to the calling unit's pool of an allocator.
 *
 * Only the unit that allocated a block frees it.
 *
 * Local. Thread safety: MT-safe for distinct blocks.
 *
 * \param[in,out] gptr      The block; set to #DART_GPTR_NULL.
 * \param[in]     allocator The allocator it came from.
 * \retval DART_OK          Freed.
 * \retval DART_ERR_INVAL   `gptr` is NULL, the allocator is not live, or
 *                          `gptr` is not a live block the caller took
 *                          from it.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_allocator_free(
  dart_gptr_t      * gptr,
  dart_allocator_t   allocator);

/**
 * \brief Destroys an allocator and its segment; all its blocks become
 *        invalid.
 *
 * Collective over the allocator's team (its segment is freed as by
 * dart_team_memfree()); local once that team was destroyed (its segment
 * went with it). Thread safety: MT-team.
 *
 * \param[in,out] allocator The allocator; set to NULL.
 * \retval DART_OK          Destroyed.
 * \retval DART_ERR_INVAL   `allocator` is NULL or not live.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_allocator_destroy(dart_allocator_t *allocator);

/* ----------------------------------------------------------------------
 * Local (non-collective) global memory
 * ---------------------------------------------------------------------- */

/**
 * \brief Allocates global memory from the calling unit's local pool,
 *        without communication.
 *
 * The block is reachable by every unit with put, get, atomics and locks
 * from the moment the call returns. It is a power of two of at least 16
 * bytes, aligned to its size. The returned pointer is (unit = caller's
 * global id, segment #DART_SEGMENT_LOCAL, team #DART_TEAM_ALL, offset of
 * the block in the pool). The pool grows on demand up to its reservation
 * (`DART_LOCAL_POOL_MIB`, `DART_LOCAL_POOL_MAX_MIB`).
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in]  nelem Number of elements (0 gives a smallest block).
 * \param[in]  dtype Basic or custom type of the elements.
 * \param[out] gptr  Receives the block's global pointer;
 *                   #DART_GPTR_NULL on failure.
 * \retval DART_OK          Allocated.
 * \retval DART_ERR_INVAL   `gptr` is NULL, `dtype` is not a basic or
 *                          custom type, or the size overflows.
 * \retval DART_ERR_NOMEM   The pool is exhausted and cannot grow.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_memalloc(
  size_t            nelem,
  dart_datatype_t   dtype,
  dart_gptr_t     * gptr) DART_NOTHROW;

/**
 * \brief Frees a block of dart_memalloc().
 *
 * Only the unit that allocated the block frees it.
 *
 * Local. Thread safety: MT-safe for distinct blocks.
 *
 * \param[in] gptr The block's global pointer as dart_memalloc() returned
 *                 it.
 * \retval DART_OK          Freed.
 * \retval DART_ERR_INVAL   `gptr` is not from dart_memalloc()
 *                          (#DART_GPTR_NULL included), belongs to another
 *                          unit, or is not a live block (a double free).
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_memfree(dart_gptr_t gptr) DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Collective allocation and registration
 * ---------------------------------------------------------------------- */

/**
 * \name Collective allocation and registration
 *
 * dart_team_memalloc_aligned(), dart_team_memregister(),
 * dart_team_memregister_aligned(), dart_team_memfree() and
 * dart_team_memderegister() are collective over the team: every member
 * makes the call, and every member gets the same segment id back from an
 * allocation or registration. A member whose own arguments are invalid
 * still takes part, and the call then fails on every member (the others
 * get #DART_ERR_OTHER).
 *
 * Ordering freedom: between two allocations or registrations on a team,
 * members may free or deregister that team's segments in different
 * orders (a container that keeps its segments sorted by local address
 * does). A free returns without waiting for the other members; the MPI
 * windows behind the segment are released at the team's next allocation,
 * registration or destruction (or dart_exit()), in the same order on every
 * member. The set of segments freed before each allocation must be the
 * same on every member. After a free, every call with a global pointer
 * into the segment returns #DART_ERR_INVAL.
 * @{
 */

/**
 * \brief Allocates a collective segment: every member contributes a
 *        portion of `nelem` elements.
 *
 * `nelem` may differ between members, 0 included. Each portion starts at
 * offset 0 of its unit and on a 64-byte boundary; its contents are
 * undefined. Units on one node can reach each other's portions directly
 * through shared memory.
 *
 * Collective over `teamid`. Thread safety: MT-team.
 *
 * \param[in]  teamid The team.
 * \param[in]  nelem  Elements of the caller's portion.
 * \param[in]  dtype  Basic type of the elements.
 * \param[out] gptr   Receives (unit 0, new positive segment id, `teamid`,
 *                    offset 0), the same on every member;
 *                    #DART_GPTR_NULL on failure.
 * \retval DART_OK          Allocated.
 * \retval DART_ERR_INVAL   `teamid` is not a team of the caller (this
 *                          unit returns without taking part), or
 *                          `gptr` is NULL, `dtype` is not basic or the
 *                          size is too large (on this member; the others
 *                          fail with #DART_ERR_OTHER).
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_OTHER   Another member failed, segment ids are
 *                          exhausted, or an MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_team_memalloc_aligned(
  dart_team_t       teamid,
  size_t            nelem,
  dart_datatype_t   dtype,
  dart_gptr_t     * gptr) DART_NOTHROW;

/**
 * \brief Frees a collective segment.
 *
 * Only the team and segment of `gptr` are used. All RMA on the segment
 * must be complete (flushed, then a barrier) before any member frees it.
 * Returns without waiting for the other members (see the ordering freedom
 * above).
 *
 * Collective over `gptr.teamid`. Thread safety: MT-team.
 *
 * \param[in] gptr A global pointer into the segment; #DART_GPTR_NULL is a
 *                 no-op.
 * \retval DART_OK          Freed, or nothing to do.
 * \retval DART_ERR_INVAL   The team is unknown, or the segment is not a
 *                          live allocated segment of it.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_team_memfree(
  dart_gptr_t gptr) DART_NOTHROW;

/**
 * \brief Registers memory of every member as a segment; the same as
 *        dart_team_memregister().
 *
 * Collective over `teamid`. Thread safety: MT-team.
 *
 * \param[in]  teamid The team.
 * \param[in]  nelem  Elements of the caller's buffer.
 * \param[in]  dtype  Basic type of the elements.
 * \param[in]  addr   The caller's buffer.
 * \param[out] gptr   As for dart_team_memregister().
 * \retval DART_OK          Registered.
 * \retval DART_ERR_INVAL   As for dart_team_memregister().
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_OTHER   As for dart_team_memregister().
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_team_memregister_aligned(
  dart_team_t       teamid,
  size_t            nelem,
  dart_datatype_t   dtype,
  void            * addr,
  dart_gptr_t     * gptr) DART_NOTHROW;

/**
 * \brief Registers an existing buffer of every member as the portions of
 *        a new segment.
 *
 * Each member exposes `[addr, addr + nlelem * size of dtype)`; sizes may
 * differ, 0 included (then `addr` may be NULL). DART neither owns nor
 * frees the memory. Offsets in global pointers to unit `u` count from
 * `u`'s `addr`; atomics need `addr` aligned as well as the offset.
 *
 * Collective over `teamid`. Thread safety: MT-none.
 *
 * \param[in]  teamid The team.
 * \param[in]  nlelem Elements of the caller's buffer.
 * \param[in]  dtype  Basic type of the elements.
 * \param[in]  addr   The caller's buffer.
 * \param[out] gptr   Receives (unit 0, new negative segment id,
 *                    `teamid`, offset 0), the same on every member;
 *                    #DART_GPTR_NULL on failure.
 * \retval DART_OK          Registered.
 * \retval DART_ERR_INVAL   `teamid` is not a team of the caller (this
 *                          unit returns without taking part), or
 *                          `gptr` is NULL, `dtype` is not basic, or
 *                          `addr` cannot hold the buffer (on this member;
 *                          the others fail with #DART_ERR_OTHER).
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_OTHER   Another member failed, segment ids are
 *                          exhausted, or an MPI call failed.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_team_memregister(
  dart_team_t       teamid,
  size_t            nlelem,
  dart_datatype_t   dtype,
  void            * addr,
  dart_gptr_t     * gptr) DART_NOTHROW;

/**
 * \brief Deregisters a registered segment; the memory stays with the
 *        program.
 *
 * All RMA on the segment must be complete before. Returns without
 * waiting for the other members (see the ordering freedom above).
 *
 * Collective over `gptr.teamid`. Thread safety: MT-none.
 *
 * \param[in] gptr A global pointer into the segment; #DART_GPTR_NULL is a
 *                 no-op.
 * \retval DART_OK          Deregistered, or nothing to do.
 * \retval DART_ERR_INVAL   The team is unknown, or the segment is not a
 *                          live registered segment of it.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_team_memderegister(dart_gptr_t gptr) DART_NOTHROW;

/** @} */

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DASH__DART__IF__DART_GLOBMEM_H_ */
