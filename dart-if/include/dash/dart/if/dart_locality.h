/**
 * \file dash/dart/if/dart_locality.h
 *
 * \brief Locality domain hierarchy of teams and locality of units.
 *
 * Not included by dart.h.
 */
#ifndef DASH__DART__IF__DART_LOCALITY_H_
#define DASH__DART__IF__DART_LOCALITY_H_

#include "dart_types.h"
#include "dart_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \defgroup DartLocality Locality
 * \brief Where units run: a tree of locality domains per team.
 *
 * The hierarchy of a team has the root "." (scope
 * #DART_LOCALITY_SCOPE_GLOBAL), one domain per node below it, the node's
 * module below that, then one level per ancestor scope in the units'
 * hardware records (NUMA domain, package, cache, ... down to the core),
 * with a leaf domain per unit. Domains are found by tag
 * (dart_domain_find()); scope queries list domains depth-first in child
 * order. Domains returned by dart_domain_team_locality() and
 * dart_unit_locality() belong to DART and stay valid until the team's
 * locality data is finalized; domains from dart_domain_create() and
 * dart_domain_clone() belong to the caller, who releases them with
 * dart_domain_destroy().
 *
 * The dart_domain_* calls that take a domain object work on that object
 * alone: they need no runtime (no #DART_ERR_NOTINIT), and are MT-safe for
 * distinct trees.
 * @{
 */

/* ----------------------------------------------------------------------
 * Team locality data
 * ---------------------------------------------------------------------- */

/**
 * \brief Builds the locality hierarchy and unit records of a team.
 *
 * #DART_TEAM_ALL's are built on first use; every other team needs this
 * call before its locality is queried. A team that has its data already
 * keeps it. The members' hardware records are known to every unit since
 * dart_init(), so the call needs no communication.
 *
 * Collective over `team`. Thread safety: MT-none.
 *
 * \param[in] team The team.
 * \retval DART_OK          Built, or present already.
 * \retval DART_ERR_INVAL   `team` is not a team of the caller.
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_team_locality_init(
  dart_team_t                     team)                 DART_NOTHROW;

/**
 * \brief Frees the locality data of a team; every DART-owned domain and
 *        unit record of the team becomes invalid.
 *
 * Harmless if the team has none. Done by dart_team_destroy() and
 * dart_exit() as well.
 *
 * Local. Thread safety: MT-none.
 *
 * \param[in] team The team.
 * \retval DART_OK          Freed, or nothing to free.
 * \retval DART_ERR_INVAL   `team` is not a team of the caller.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_team_locality_finalize(
  dart_team_t                     team)                 DART_NOTHROW;

/**
 * \brief Looks up a domain of a team's hierarchy by tag.
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in]  team            The team.
 * \param[in]  domain_tag      Tag of the domain; "." is the root.
 * \param[out] team_domain_out Receives the DART-owned domain; NULL on
 *                             failure.
 * \retval DART_OK           Found.
 * \retval DART_ERR_INVAL    A pointer is NULL, `team` is not a team of the
 *                           caller, or the team has no locality data
 *                           (dart_team_locality_init()).
 * \retval DART_ERR_NOTFOUND No domain has that tag.
 * \retval DART_ERR_NOMEM    Out of memory building #DART_TEAM_ALL's data.
 * \retval DART_ERR_NOTINIT  DART is not initialized.
 */
dart_ret_t dart_domain_team_locality(
  dart_team_t                     team,
  const char                    * domain_tag,
  dart_domain_locality_t       ** team_domain_out)      DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Domain objects (caller-owned unless noted)
 * ---------------------------------------------------------------------- */

/**
 * \brief Allocates a caller-owned domain in its default state.
 *
 * Empty tag and host, no aliases, parent or children, scope
 * #DART_LOCALITY_SCOPE_UNDEFINED, team #DART_TEAM_NULL, no units, unknown
 * (-1) counts.
 *
 * Local, no runtime needed. Thread safety: MT-safe.
 *
 * \param[out] domain_out Receives the domain.
 * \retval DART_OK        Created.
 * \retval DART_ERR_INVAL `domain_out` is NULL.
 * \retval DART_ERR_NOMEM Out of memory.
 */
dart_ret_t dart_domain_create(
  dart_domain_locality_t       ** domain_out)           DART_NOTHROW;

/**
 * \brief Copies a domain with its whole subtree.
 *
 * Parent pointers inside the copy point into the copy; the copy's own
 * `parent` keeps the source's value; aliases are not copied.
 *
 * Local, no runtime needed. Thread safety: MT-safe.
 *
 * \param[in]  domain_in  The domain to copy.
 * \param[out] domain_out Receives the caller-owned copy; NULL on failure.
 * \retval DART_OK        Copied.
 * \retval DART_ERR_INVAL A pointer is NULL.
 * \retval DART_ERR_NOMEM Out of memory.
 */
dart_ret_t dart_domain_clone(
  const dart_domain_locality_t  * domain_in,
  dart_domain_locality_t       ** domain_out)           DART_NOTHROW;

/**
 * \brief Frees a caller-owned domain with its subtree.
 *
 * Never pass a DART-owned domain.
 *
 * Local, no runtime needed. Thread safety: MT-safe.
 *
 * \param[in] domain The domain; NULL is a no-op.
 * \return #DART_OK.
 */
dart_ret_t dart_domain_destroy(
  dart_domain_locality_t        * domain)               DART_NOTHROW;

/**
 * \brief Replaces the contents of a domain by a deep copy of another.
 *
 * Local, no runtime needed. Thread safety: MT-safe.
 *
 * \param[in,out] domain_lhs An initialized domain; its old contents are
 *                           released (not the object itself).
 * \param[in]     domain_rhs The domain to copy; may lie in `domain_lhs`'s
 *                           subtree.
 * \retval DART_OK        Assigned.
 * \retval DART_ERR_INVAL A pointer is NULL.
 * \retval DART_ERR_NOMEM Out of memory (`domain_lhs` is unchanged).
 */
dart_ret_t dart_domain_assign(
  dart_domain_locality_t        * domain_lhs,
  const dart_domain_locality_t  * domain_rhs)           DART_NOTHROW;

/**
 * \brief Finds the domain with a given tag in a subtree (the domain
 *        itself included).
 *
 * Local, no runtime needed. Thread safety: MT-safe.
 *
 * \param[in]  domain_in     Root of the subtree.
 * \param[in]  domain_tag    The tag, matched exactly.
 * \param[out] subdomain_out Receives a pointer into the tree of
 *                           `domain_in`; NULL on failure.
 * \retval DART_OK           Found.
 * \retval DART_ERR_INVAL    A pointer is NULL.
 * \retval DART_ERR_NOTFOUND No domain has that tag.
 */
dart_ret_t dart_domain_find(
  const dart_domain_locality_t  * domain_in,
  const char                    * domain_tag,
  dart_domain_locality_t       ** subdomain_out)        DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Hierarchy manipulation
 * ---------------------------------------------------------------------- */

/**
 * \brief Prunes a subtree in place to the listed domains, their
 *        descendants and their ancestors.
 *
 * Every other domain is removed. Surviving children are renumbered
 * (`relative_index`) but keep their tags; unit lists and counts are
 * recomputed up to the top of the tree.
 *
 * Local, no runtime needed. Thread safety: MT-safe.
 *
 * \param[in,out] domain_in          Root of the subtree.
 * \param[in]     num_subdomain_tags Number of tags.
 * \param[in]     subdomain_tags     Tags of the domains to keep.
 * \retval DART_OK           Pruned.
 * \retval DART_ERR_INVAL    `domain_in` is NULL, the count is negative,
 *                           or a tag pointer is NULL.
 * \retval DART_ERR_NOTFOUND A tag names no domain of the subtree.
 * \retval DART_ERR_NOMEM    Out of memory.
 */
dart_ret_t dart_domain_select(
  dart_domain_locality_t        * domain_in,
  int                             num_subdomain_tags,
  const char                   ** subdomain_tags)       DART_NOTHROW;

/**
 * \brief Removes the listed domains with their subtrees from a subtree,
 *        in place.
 *
 * The remaining siblings are renumbered (tags unchanged) and unit lists
 * and counts are recomputed up to the top of the tree.
 *
 * Local, no runtime needed. Thread safety: MT-safe.
 *
 * \param[in,out] domain_in          Root of the subtree.
 * \param[in]     num_subdomain_tags Number of tags.
 * \param[in]     subdomain_tags     Tags of the domains to remove.
 * \retval DART_OK           Removed.
 * \retval DART_ERR_INVAL    As for dart_domain_select(), or a tag names
 *                           `domain_in` itself.
 * \retval DART_ERR_NOTFOUND A tag names no domain of the subtree.
 * \retval DART_ERR_NOMEM    Out of memory.
 */
dart_ret_t dart_domain_exclude(
  dart_domain_locality_t        * domain_in,
  int                             num_subdomain_tags,
  const char                   ** subdomain_tags)       DART_NOTHROW;

/**
 * \brief Inserts a domain that belongs to no hierarchy as a child.
 *
 * The inserted subtree is retagged below its new parent and its units
 * are added to all ancestors; they must not be in the hierarchy yet.
 * Ownership passes to the tree.
 *
 * Local, no runtime needed. Thread safety: MT-safe.
 *
 * \param[in,out] domain           The new parent.
 * \param[in]     subdomain        The domain to insert.
 * \param[in]     subdomain_rel_id Child position; negative appends.
 * \retval DART_OK        Inserted.
 * \retval DART_ERR_INVAL A pointer is NULL, `domain` is a leaf that holds
 *                        units (a unit's domain: its units are its own,
 *                        not its children's, so it takes no children),
 *                        `subdomain` is part of a hierarchy, one of its
 *                        units is in the hierarchy already, the position
 *                        is past the children, or a tag would grow too
 *                        long. The tree is unchanged.
 * \retval DART_ERR_NOMEM Out of memory.
 */
dart_ret_t dart_domain_add_subdomain(
  dart_domain_locality_t        * domain,
  dart_domain_locality_t        * subdomain,
  int                             subdomain_rel_id)     DART_NOTHROW;

/**
 * \brief Moves a domain below another parent of the same hierarchy.
 *
 * The moved subtree is retagged below its new parent; unit lists of both
 * the old and the new ancestors are updated.
 *
 * Local, no runtime needed. Thread safety: MT-safe.
 *
 * \param[in,out] domain            The domain to move.
 * \param[in,out] new_parent_domain Its new parent.
 * \param[in]     new_domain_rel_id Child position; negative appends.
 * \retval DART_OK        Moved.
 * \retval DART_ERR_INVAL A pointer is NULL, `domain` has no parent, the
 *                        new parent is a leaf that holds units (as for
 *                        dart_domain_add_subdomain()), lies below `domain`
 *                        or in another hierarchy, the position is past the
 *                        children, or a tag would grow too long. The tree
 *                        is unchanged.
 * \retval DART_ERR_NOMEM Out of memory.
 */
dart_ret_t dart_domain_move_subdomain(
  dart_domain_locality_t        * domain,
  dart_domain_locality_t        * new_parent_domain,
  int                             new_domain_rel_id)    DART_NOTHROW;

/**
 * \brief Splits a subtree into `num_parts` copies, each pruned to a
 *        consecutive chunk of the domains of one scope.
 *
 * The domains of scope `scope` below `domain_in` (depth-first) are
 * grouped into chunks of ceil(domains / `num_parts`); part `p` is a deep
 * copy of `domain_in` pruned as by dart_domain_select() to chunk `p`.
 * Parts past the last domain come out empty.
 *
 * Local, no runtime needed. Thread safety: MT-safe.
 *
 * \param[in]  domain_in        Root of the subtree.
 * \param[in]  scope            Scope of the domains that are split.
 * \param[in]  num_parts        Number of parts, at least 1.
 * \param[out] split_domain_out Array of `num_parts` domain structs (not
 *                              pointers; contents may be uninitialized)
 *                              that receive the parts, owned by the
 *                              caller.
 * \retval DART_OK           Split.
 * \retval DART_ERR_INVAL    A pointer is NULL, `num_parts` < 1, or
 *                           `scope` is not a valid scope.
 * \retval DART_ERR_NOTFOUND No domain of that scope lies below
 *                           `domain_in`.
 * \retval DART_ERR_NOMEM    Out of memory.
 */
dart_ret_t dart_domain_split_scope(
  const dart_domain_locality_t  * domain_in,
  dart_locality_scope_t           scope,
  int                             num_parts,
  dart_domain_locality_t        * split_domain_out)     DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Scope queries and grouping
 * ---------------------------------------------------------------------- */

/**
 * \brief Lists the tags of the domains of exactly one scope in a subtree,
 *        depth-first.
 *
 * An absent scope is logged at debug level only: callers probe for
 * scopes.
 *
 * Local, no runtime needed. Thread safety: MT-safe.
 *
 * \param[in]  domain_in       Root of the subtree.
 * \param[in]  scope           The scope.
 * \param[out] num_domains_out Receives the number of tags; 0 on failure.
 * \param[out] domain_tags_out Receives a `malloc`ed array of `malloc`ed
 *                             strings; the caller frees each string and
 *                             the array. NULL on failure.
 * \retval DART_OK           Listed.
 * \retval DART_ERR_INVAL    A pointer is NULL or `scope` is not valid.
 * \retval DART_ERR_NOTFOUND No domain of that scope.
 * \retval DART_ERR_NOMEM    Out of memory.
 */
dart_ret_t dart_domain_scope_tags(
  const dart_domain_locality_t  * domain_in,
  dart_locality_scope_t           scope,
  int                           * num_domains_out,
  char                        *** domain_tags_out)      DART_NOTHROW;

/**
 * \brief Lists the domains of exactly one scope in a subtree,
 *        depth-first.
 *
 * An absent scope is logged at debug level only: callers probe for
 * scopes.
 *
 * Local, no runtime needed. Thread safety: MT-safe.
 *
 * \param[in]  domain_in       Root of the subtree.
 * \param[in]  scope           The scope.
 * \param[out] num_domains_out Receives the number of domains; 0 on
 *                             failure.
 * \param[out] domains_out     Receives a `malloc`ed array of pointers
 *                             into the tree; the caller frees only the
 *                             array. NULL on failure.
 * \retval DART_OK           Listed.
 * \retval DART_ERR_INVAL    A pointer is NULL or `scope` is not valid.
 * \retval DART_ERR_NOTFOUND No domain of that scope.
 * \retval DART_ERR_NOMEM    Out of memory.
 */
dart_ret_t dart_domain_scope_domains(
  const dart_domain_locality_t  * domain_in,
  dart_locality_scope_t           scope,
  int                           * num_domains_out,
  dart_domain_locality_t      *** domains_out)          DART_NOTHROW;

/**
 * \brief Groups sibling or cousin domains under a new domain of scope
 *        #DART_LOCALITY_SCOPE_GROUP.
 *
 * The group becomes the last child of the lowest common ancestor of the
 * listed domains, which move below it (retagged); unit lists and counts
 * are updated, and the group lists its parent as alias. Tags outside the
 * group stay valid.
 *
 * Local, no runtime needed. Thread safety: MT-safe.
 *
 * \param[in,out] domain_in            Root of the subtree.
 * \param[in]     num_group_subdomains Number of tags, at least 1.
 * \param[in]     group_subdomain_tags Tags of the domains to group.
 * \param[out]    group_domain_tag_out Receives the group's tag; a buffer
 *                                     of #DART_LOCALITY_DOMAIN_TAG_MAX_SIZE
 *                                     characters.
 * \retval DART_OK           Grouped.
 * \retval DART_ERR_INVAL    A pointer is NULL, the count is below 1, the
 *                           listed domains overlap or include
 *                           `domain_in`, or a tag would grow too long.
 * \retval DART_ERR_NOTFOUND A tag names no domain of the subtree.
 * \retval DART_ERR_NOMEM    Out of memory.
 */
dart_ret_t dart_domain_group(
  dart_domain_locality_t        * domain_in,
  int                             num_group_subdomains,
  const char                   ** group_subdomain_tags,
  char                          * group_domain_tag_out) DART_NOTHROW;

/* ----------------------------------------------------------------------
 * Unit locality
 * ---------------------------------------------------------------------- */

/**
 * \brief Gives the locality record of a team member.
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in]  team The team (#DART_TEAM_ALL, or a team with locality data
 *                  from dart_team_locality_init()).
 * \param[in]  unit Team-relative id of the member.
 * \param[out] loc  Receives the DART-owned record; NULL on failure.
 * \retval DART_OK          Found.
 * \retval DART_ERR_INVAL   `loc` is NULL, `team` is not a team of the
 *                          caller or has no locality data, or `unit` is
 *                          out of range.
 * \retval DART_ERR_NOMEM   Out of memory building #DART_TEAM_ALL's data.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_unit_locality(
  dart_team_t                     team,
  dart_team_unit_t                unit,
  dart_unit_locality_t         ** loc)                  DART_NOTHROW;

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DASH__DART__IF__DART_LOCALITY_H_ */
