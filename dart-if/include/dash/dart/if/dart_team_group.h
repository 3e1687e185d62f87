/**
 * \file dash/dart/if/dart_team_group.h
 *
 * Groups (local sets of global unit ids), teams and unit id translation.
 */
#ifndef DASH__DART__IF__DART_TEAM_GROUP_H_
#define DASH__DART__IF__DART_TEAM_GROUP_H_

#include "dart_types.h"
#include "dart_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------------
 * Groups
 * ---------------------------------------------------------------------- */

/* Opaque group handle; note that const dart_group_t is a const pointer. */
typedef struct dart_group_struct* dart_group_t;

#define DART_GROUP_NULL ((struct dart_group_struct*)NULL)

dart_ret_t dart_group_create(dart_group_t *group) DART_NOTHROW;

dart_ret_t dart_group_destroy(
  dart_group_t *group) DART_NOTHROW;

dart_ret_t dart_group_clone(
  const dart_group_t   gin,
  dart_group_t       * gout) DART_NOTHROW;

dart_ret_t dart_group_union(
  const dart_group_t   g1,
  const dart_group_t   g2,
  dart_group_t       * gout) DART_NOTHROW;

dart_ret_t dart_group_intersect(
  const dart_group_t   g1,
  const dart_group_t   g2,
  dart_group_t       * gout) DART_NOTHROW;

dart_ret_t dart_group_addmember(
  dart_group_t       g,
  dart_global_unit_t unitid) DART_NOTHROW;

dart_ret_t dart_group_delmember(
  dart_group_t        g,
  dart_global_unit_t  unitid) DART_NOTHROW;

dart_ret_t dart_group_ismember(
  const dart_group_t   g,
  dart_global_unit_t   unitid,
  int32_t            * ismember) DART_NOTHROW;

dart_ret_t dart_group_size(
  const dart_group_t   g,
  size_t             * size) DART_NOTHROW;

/* unitids must have room for dart_group_size() entries. */
dart_ret_t dart_group_getmembers(
  const dart_group_t   g,
  dart_global_unit_t * unitids) DART_NOTHROW;

/* gout must have room for n groups; the caller destroys all of them. */
dart_ret_t dart_group_split(
  const dart_group_t    g,
  size_t                n,
  size_t              * nout,
  dart_group_t        * gout) DART_NOTHROW;

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

#define DART_TEAM_ALL   ((dart_team_t)0)
#define DART_TEAM_NULL  ((dart_team_t)-1)

dart_ret_t dart_team_get_group(
  dart_team_t    teamid,
  dart_group_t * group) DART_NOTHROW;

/* Collective on teamid; non-members of group receive DART_TEAM_NULL. */
dart_ret_t dart_team_create(
  dart_team_t          teamid,
  const dart_group_t   group,
  dart_team_t        * newteam) DART_NOTHROW;

dart_ret_t dart_team_destroy(
  dart_team_t * teamid) DART_NOTHROW;

dart_ret_t dart_team_clone(
  dart_team_t   team,
  dart_team_t * newteam) DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Unit ids
 * ---------------------------------------------------------------------- */

dart_ret_t dart_team_myid(
  dart_team_t        teamid,
  dart_team_unit_t * myid) DART_NOTHROW;

dart_ret_t dart_team_size(
  dart_team_t   teamid,
  size_t      * size) DART_NOTHROW;

dart_ret_t dart_myid(dart_global_unit_t *myid) DART_NOTHROW;

dart_ret_t dart_size(size_t *size) DART_NOTHROW;

dart_ret_t dart_team_unit_l2g(
  dart_team_t          team,
  dart_team_unit_t     localid,
  dart_global_unit_t * globalid) DART_NOTHROW;

dart_ret_t dart_team_unit_g2l(
  dart_team_t          team,
  dart_global_unit_t   globalid,
  dart_team_unit_t   * localid) DART_NOTHROW;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DASH__DART__IF__DART_TEAM_GROUP_H_ */
