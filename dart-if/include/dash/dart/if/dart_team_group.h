/**
 * \file dash/dart/if/dart_team_group.h
 *
 * \brief Groups (local sets of global unit ids), teams and unit id
 *        translation.
 */
#ifndef DASH__DART__IF__DART_TEAM_GROUP_H_
#define DASH__DART__IF__DART_TEAM_GROUP_H_

#include "dart_types.h"
#include "dart_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \defgroup DartTeamGroup Groups and teams
 * \brief Groups of units, teams made from them, and unit ids.
 *
 * A group is a local, ordered set of global unit ids (always ascending);
 * group calls never communicate. A team is a set of units with its own
 * collective operations and memory; its members are numbered 0 to size - 1
 * in ascending order of their global ids. #DART_TEAM_ALL holds every unit.
 * @{
 */

/* ----------------------------------------------------------------------
 * Groups
 * ---------------------------------------------------------------------- */

/**
 * \brief Handle of a group.
 *
 * Opaque; note that `const dart_group_t` is a constant pointer, not a
 * pointer to a constant group.
 */
typedef struct dart_group_struct* dart_group_t;

/** \brief The null group handle. */
#define DART_GROUP_NULL ((struct dart_group_struct*)NULL)

/**
 * \brief Creates an empty group.
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[out] group Receives the new group; destroy it with
 *                   dart_group_destroy().
 * \retval DART_OK          Created.
 * \retval DART_ERR_INVAL   `group` is NULL.
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_group_create(dart_group_t *group) DART_NOTHROW;

/**
 * \brief Destroys a group.
 *
 * Local. Thread safety: MT-safe for distinct groups.
 *
 * \param[in,out] group The group; set to #DART_GROUP_NULL. A group that
 *                      is #DART_GROUP_NULL already is left alone.
 * \retval DART_OK          Destroyed, or nothing to do.
 * \retval DART_ERR_INVAL   `group` is NULL.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_group_destroy(
  dart_group_t *group) DART_NOTHROW;

/**
 * \brief Copies a group.
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in]  gin  The group to copy.
 * \param[out] gout Receives a new group with the same members;
 *                  #DART_GROUP_NULL on failure.
 * \retval DART_OK          Copied.
 * \retval DART_ERR_INVAL   `gin` or `gout` is NULL.
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_group_clone(
  const dart_group_t   gin,
  dart_group_t       * gout) DART_NOTHROW;

/**
 * \brief Makes the union of two groups.
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in]  g1   First group.
 * \param[in]  g2   Second group.
 * \param[out] gout Receives a new group with the members of both, each
 *                  once; #DART_GROUP_NULL on failure.
 * \retval DART_OK          Done.
 * \retval DART_ERR_INVAL   An argument is NULL.
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_group_union(
  const dart_group_t   g1,
  const dart_group_t   g2,
  dart_group_t       * gout) DART_NOTHROW;

/**
 * \brief Makes the intersection of two groups.
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in]  g1   First group.
 * \param[in]  g2   Second group.
 * \param[out] gout Receives a new group with the members common to both;
 *                  #DART_GROUP_NULL on failure.
 * \retval DART_OK          Done.
 * \retval DART_ERR_INVAL   An argument is NULL.
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_group_intersect(
  const dart_group_t   g1,
  const dart_group_t   g2,
  dart_group_t       * gout) DART_NOTHROW;

/**
 * \brief Adds a unit to a group.
 *
 * Adding a member again leaves the group as it is.
 *
 * Local. Thread safety: MT-safe for distinct groups.
 *
 * \param[in,out] g      The group.
 * \param[in]     unitid Global id of the unit, 0 to dart_size() - 1.
 * \retval DART_OK          Added, or a member already.
 * \retval DART_ERR_INVAL   `g` is NULL or `unitid` is out of range.
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_group_addmember(
  dart_group_t       g,
  dart_global_unit_t unitid) DART_NOTHROW;

/**
 * \brief Removes a unit from a group, if it is a member.
 *
 * Local. Thread safety: MT-safe for distinct groups.
 *
 * \param[in,out] g      The group.
 * \param[in]     unitid Global id of the unit.
 * \retval DART_OK          Removed, or not a member.
 * \retval DART_ERR_INVAL   `g` is NULL.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_group_delmember(
  dart_group_t        g,
  dart_global_unit_t  unitid) DART_NOTHROW;

/**
 * \brief Tells whether a unit is a member of a group.
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in]  g        The group.
 * \param[in]  unitid   Global id of the unit.
 * \param[out] ismember Receives 1 if the unit is a member, else 0.
 * \retval DART_OK          Answered.
 * \retval DART_ERR_INVAL   `g` or `ismember` is NULL.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_group_ismember(
  const dart_group_t   g,
  dart_global_unit_t   unitid,
  int32_t            * ismember) DART_NOTHROW;

/**
 * \brief Gives the number of members of a group.
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in]  g    The group.
 * \param[out] size Receives the number of members (0 for an empty group).
 * \retval DART_OK          Answered.
 * \retval DART_ERR_INVAL   `g` or `size` is NULL.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_group_size(
  const dart_group_t   g,
  size_t             * size) DART_NOTHROW;

/**
 * \brief Lists the members of a group in ascending order.
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in]  g       The group.
 * \param[out] unitids Receives the global ids; must have room for
 *                     dart_group_size() entries (may be NULL for an empty
 *                     group).
 * \retval DART_OK          Listed.
 * \retval DART_ERR_INVAL   `g` is NULL, or `unitids` is NULL for a
 *                          non-empty group.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_group_getmembers(
  const dart_group_t   g,
  dart_global_unit_t * unitids) DART_NOTHROW;

/**
 * \brief Splits a group into `n` groups of consecutive members.
 *
 * With `L` = ceil(size / n), group `i` receives the members at positions
 * `i * L` to `(i + 1) * L - 1` of the ascending member list. All `n`
 * groups are created, trailing ones possibly empty; the caller destroys
 * all of them.
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in]  g    The group to split.
 * \param[in]  n    Number of groups, 1 to `INT_MAX`.
 * \param[out] nout Receives the number of groups made (`n`).
 * \param[out] gout Array of `n` group handles that receive the groups.
 * \retval DART_OK          Split.
 * \retval DART_ERR_INVAL   A pointer is NULL or `n` is out of range.
 * \retval DART_ERR_NOMEM   Out of memory (no group is left behind).
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_group_split(
  const dart_group_t    g,
  size_t                n,
  size_t              * nout,
  dart_group_t        * gout) DART_NOTHROW;

/**
 * \brief Splits a group along the locality domains of one scope.
 *
 * Takes the domains of scope `scope` below `domain` in depth-first order
 * (as dart_domain_scope_tags() lists them). If `n` is at least their
 * number, makes one group per domain; otherwise gives consecutive chunks
 * of ceil(domains / n) domains to each group. Each group holds the members
 * of `g` located in its domains, possibly none. Needs dart_locality.h
 * for the domain; `domain` usually comes from
 * dart_domain_team_locality(team, ".").
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in]  g      The group to split.
 * \param[in]  domain Domain whose subtree is split.
 * \param[in]  scope  Scope of the domains that define the parts.
 * \param[in]  n      Largest number of groups, 1 to `INT_MAX`.
 * \param[out] nout   Receives the number of groups made.
 * \param[out] gout   Array of `n` group handles; the first `*nout`
 *                    receive new groups, which the caller destroys.
 * \retval DART_OK           Split.
 * \retval DART_ERR_INVAL    A pointer is NULL, `n` is out of range, or
 *                           `scope` is not a valid scope.
 * \retval DART_ERR_NOTFOUND No domain of that scope lies below `domain`.
 * \retval DART_ERR_NOMEM    Out of memory.
 * \retval DART_ERR_NOTINIT  DART is not initialized.
 */
dart_ret_t dart_group_locality_split(
  const dart_group_t        g,
  dart_domain_locality_t  * domain,
  dart_locality_scope_t     scope,
  size_t                    n,
  size_t                  * nout,
  dart_group_t            * gout) DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Teams
 * ---------------------------------------------------------------------- */

/** \brief The team of all units, created by dart_init(); ids relative to
 *         it are the global unit ids. */
#define DART_TEAM_ALL   ((dart_team_t)0)
/** \brief The id of no team (a non-member's result of
 *         dart_team_create()). */
#define DART_TEAM_NULL  ((dart_team_t)-1)

/**
 * \brief Gives the members of a team as a new group.
 *
 * Local. Thread safety: MT-none.
 *
 * \param[in]  teamid A team the caller belongs to.
 * \param[out] group  Receives a new group of the members' global ids,
 *                    which the caller destroys; #DART_GROUP_NULL on
 *                    failure.
 * \retval DART_OK          Done.
 * \retval DART_ERR_INVAL   `group` is NULL or `teamid` is not a team of
 *                          the caller.
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_team_get_group(
  dart_team_t    teamid,
  dart_group_t * group) DART_NOTHROW;

/**
 * \brief Creates a team of the members of `group`, a subset of team
 *        `teamid`.
 *
 * Every member of `teamid` makes the call with an equal group; members
 * of the group receive the new team's id, the other units
 * #DART_TEAM_NULL, all with #DART_OK. A unit may pass `group` NULL to say
 * it is not a member. An empty group gives #DART_TEAM_NULL everywhere.
 * The new id is the same on all members and differs from every team id
 * any member of the parent team knows. Ids are handed out in ascending
 * order; after the 32767th team those of destroyed teams come back round
 * robin. The new team has no locality data until
 * dart_team_locality_init().
 *
 * Collective over `teamid`. Thread safety: MT-none.
 *
 * \param[in]  teamid  The parent team.
 * \param[in]  group   Units of the new team (global ids), the same on
 *                     every member of the parent; NULL on a non-member.
 * \param[out] newteam Receives the new team's id, or #DART_TEAM_NULL.
 * \retval DART_OK          Created (or not a member).
 * \retval DART_ERR_INVAL   `newteam` is NULL or `teamid` is not a team of
 *                          the caller (this unit returns without taking
 *                          part), or, on every member, a group holds a
 *                          unit outside the parent or the members passed
 *                          different groups.
 * \retval DART_ERR_OTHER   All 32767 team ids are in use by members of
 *                          the parent team, or an MPI call failed.
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_team_create(
  dart_team_t          teamid,
  const dart_group_t   group,
  dart_team_t        * newteam) DART_NOTHROW;

/**
 * \brief Destroys a team.
 *
 * Releases the team's communicators, its segments and its locality data.
 * Locks of the team stay destroyable with dart_team_lock_destroy().
 * Memory of the team should have been freed, and all RMA on it
 * completed, before.
 *
 * Collective over `*teamid`. Thread safety: MT-none.
 *
 * \param[in,out] teamid The team; set to #DART_TEAM_NULL.
 *                       #DART_TEAM_NULL is a no-op.
 * \retval DART_OK          Destroyed, or nothing to do.
 * \retval DART_ERR_INVAL   `teamid` is NULL, `*teamid` is #DART_TEAM_ALL
 *                          (it goes with dart_exit()), or not a team of
 *                          the caller.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_team_destroy(
  dart_team_t * teamid) DART_NOTHROW;

/**
 * \brief Creates a new team with the same members as `team`.
 *
 * Equivalent to dart_team_create() with the group of `team`.
 *
 * Collective over `team`. Thread safety: MT-none.
 *
 * \param[in]  team    The team to copy.
 * \param[out] newteam Receives the new team's id; #DART_TEAM_NULL on
 *                     failure.
 * \retval DART_OK          Created.
 * \retval DART_ERR_INVAL   `newteam` is NULL or `team` is not a team of
 *                          the caller.
 * \retval DART_ERR_OTHER   All 32767 team ids are in use by members of
 *                          `team`, or an MPI call failed.
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_team_clone(
  dart_team_t   team,
  dart_team_t * newteam) DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Unit ids
 * ---------------------------------------------------------------------- */

/**
 * \brief Gives the calling unit's id in a team.
 *
 * Local, no communication. Thread safety: MT-none.
 *
 * \param[in]  teamid A team the caller belongs to.
 * \param[out] myid   Receives the team-relative id;
 *                    #DART_UNDEFINED_UNIT_ID on failure.
 * \retval DART_OK          Answered.
 * \retval DART_ERR_INVAL   `myid` is NULL or `teamid` is not a team of
 *                          the caller.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_team_myid(
  dart_team_t        teamid,
  dart_team_unit_t * myid) DART_NOTHROW;

/**
 * \brief Gives the number of members of a team.
 *
 * Local, no communication. Thread safety: MT-none.
 *
 * \param[in]  teamid A team the caller belongs to.
 * \param[out] size   Receives the number of members; unchanged on
 *                    failure.
 * \retval DART_OK          Answered.
 * \retval DART_ERR_INVAL   `size` is NULL or `teamid` is not a team of
 *                          the caller.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_team_size(
  dart_team_t   teamid,
  size_t      * size) DART_NOTHROW;

/**
 * \brief Gives the calling unit's global id (its id in #DART_TEAM_ALL).
 *
 * Local, no communication. Thread safety: MT-none.
 *
 * \param[out] myid Receives the global id; #DART_UNDEFINED_UNIT_ID when
 *                  DART is not initialized.
 * \retval DART_OK          Answered.
 * \retval DART_ERR_INVAL   `myid` is NULL.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_myid(dart_global_unit_t *myid) DART_NOTHROW;

/**
 * \brief Gives the number of units (the size of #DART_TEAM_ALL).
 *
 * Local, no communication. Thread safety: MT-none.
 *
 * \param[out] size Receives the number of units; 0 when DART is not
 *                  initialized.
 * \retval DART_OK          Answered.
 * \retval DART_ERR_INVAL   `size` is NULL.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_size(size_t *size) DART_NOTHROW;

/**
 * \brief Translates a team-relative unit id into the global id.
 *
 * Local, no communication. Thread safety: MT-none.
 *
 * \param[in]  team     A team the caller belongs to.
 * \param[in]  localid  Id in `team`, 0 to team size - 1.
 * \param[out] globalid Receives the global id;
 *                      #DART_UNDEFINED_UNIT_ID on failure.
 * \retval DART_OK          Translated.
 * \retval DART_ERR_INVAL   `globalid` is NULL, `team` is not a team of
 *                          the caller, or `localid` is out of range.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_team_unit_l2g(
  dart_team_t          team,
  dart_team_unit_t     localid,
  dart_global_unit_t * globalid) DART_NOTHROW;

/**
 * \brief Translates a global unit id into the id in a team.
 *
 * Local, no communication. Thread safety: MT-none.
 *
 * \param[in]  team     A team the caller belongs to.
 * \param[in]  globalid Global id of a unit.
 * \param[out] localid  Receives the id in `team`, or a negative id when
 *                      the unit is not a member (still #DART_OK).
 * \retval DART_OK          Translated, or not a member.
 * \retval DART_ERR_INVAL   `localid` is NULL or `team` is not a team of
 *                          the caller.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_team_unit_g2l(
  dart_team_t          team,
  dart_global_unit_t   globalid,
  dart_team_unit_t   * localid) DART_NOTHROW;

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DASH__DART__IF__DART_TEAM_GROUP_H_ */
