/**
 * \file dash/dart/if/dart_locality.h
 *
 * Locality domain hierarchy of teams and locality of units.
 * Not included by dart.h.
 */
#ifndef DASH__DART__IF__DART_LOCALITY_H_
#define DASH__DART__IF__DART_LOCALITY_H_

#include "dart_types.h"
#include "dart_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------------
 * Team locality data
 * ---------------------------------------------------------------------- */

/* Collective on team; builds its domain hierarchy and unit table. */
dart_ret_t dart_team_locality_init(
  dart_team_t                     team)                 DART_NOTHROW;

dart_ret_t dart_team_locality_finalize(
  dart_team_t                     team)                 DART_NOTHROW;

/* Result is owned by DART; "." yields the root domain. */
dart_ret_t dart_domain_team_locality(
  dart_team_t                     team,
  const char                    * domain_tag,
  dart_domain_locality_t       ** team_domain_out)      DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Domain objects (caller-owned unless noted)
 * ---------------------------------------------------------------------- */

dart_ret_t dart_domain_create(
  dart_domain_locality_t       ** domain_out)           DART_NOTHROW;

dart_ret_t dart_domain_clone(
  const dart_domain_locality_t  * domain_in,
  dart_domain_locality_t       ** domain_out)           DART_NOTHROW;

dart_ret_t dart_domain_destroy(
  dart_domain_locality_t        * domain)               DART_NOTHROW;

dart_ret_t dart_domain_assign(
  dart_domain_locality_t        * domain_lhs,
  const dart_domain_locality_t  * domain_rhs)           DART_NOTHROW;

/* Result points into the tree of domain_in. */
dart_ret_t dart_domain_find(
  const dart_domain_locality_t  * domain_in,
  const char                    * domain_tag,
  dart_domain_locality_t       ** subdomain_out)        DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Hierarchy manipulation
 * ---------------------------------------------------------------------- */

dart_ret_t dart_domain_select(
  dart_domain_locality_t        * domain_in,
  int                             num_subdomain_tags,
  const char                   ** subdomain_tags)       DART_NOTHROW;

dart_ret_t dart_domain_exclude(
  dart_domain_locality_t        * domain_in,
  int                             num_subdomain_tags,
  const char                   ** subdomain_tags)       DART_NOTHROW;

dart_ret_t dart_domain_add_subdomain(
  dart_domain_locality_t        * domain,
  dart_domain_locality_t        * subdomain,
  int                             subdomain_rel_id)     DART_NOTHROW;

/* Moves domain below new_parent_domain. */
dart_ret_t dart_domain_move_subdomain(
  dart_domain_locality_t        * domain,
  dart_domain_locality_t        * new_parent_domain,
  int                             new_domain_rel_id)    DART_NOTHROW;

/* split_domain_out is an array of num_parts domain structs. */
dart_ret_t dart_domain_split_scope(
  const dart_domain_locality_t  * domain_in,
  dart_locality_scope_t           scope,
  int                             num_parts,
  dart_domain_locality_t        * split_domain_out)     DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Scope queries and grouping
 * ---------------------------------------------------------------------- */

/* Caller frees each tag string and the array. */
dart_ret_t dart_domain_scope_tags(
  const dart_domain_locality_t  * domain_in,
  dart_locality_scope_t           scope,
  int                           * num_domains_out,
  char                        *** domain_tags_out)      DART_NOTHROW;

/* Caller frees only the array. */
dart_ret_t dart_domain_scope_domains(
  const dart_domain_locality_t  * domain_in,
  dart_locality_scope_t           scope,
  int                           * num_domains_out,
  dart_domain_locality_t      *** domains_out)          DART_NOTHROW;

/* group_domain_tag_out holds DART_LOCALITY_DOMAIN_TAG_MAX_SIZE chars. */
dart_ret_t dart_domain_group(
  dart_domain_locality_t        * domain_in,
  int                             num_group_subdomains,
  const char                   ** group_subdomain_tags,
  char                          * group_domain_tag_out) DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Unit locality
 * ---------------------------------------------------------------------- */

/* Result is owned by DART. */
dart_ret_t dart_unit_locality(
  dart_team_t                     team,
  dart_team_unit_t                unit,
  dart_unit_locality_t         ** loc)                  DART_NOTHROW;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DASH__DART__IF__DART_LOCALITY_H_ */
