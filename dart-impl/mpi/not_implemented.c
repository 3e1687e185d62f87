/* API calls that later work items implement (global memory and one-sided
 * communication, team locks, locality). Until then each one fails loudly
 * with DART_ERR_OTHER; none of them ever reports a silent success. When a
 * call is implemented, delete it here and from test_not_implemented.c. */
#include "runtime.h"

#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_locality.h>

#pragma GCC diagnostic ignored "-Wunused-parameter"

static dart_ret_t not_implemented(const char *call)
{
  return report_error(DART_ERR_OTHER, call,
                      "not implemented yet in this runtime");
}

#define NOT_IMPLEMENTED return not_implemented(__func__)



/* --- locality (dart_locality.h, dart_team_group.h) --- */
dart_ret_t dart_team_locality_init(dart_team_t team)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_team_locality_finalize(dart_team_t team)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_domain_team_locality(dart_team_t team, const char *domain_tag,
                                     dart_domain_locality_t **team_domain_out)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_domain_create(dart_domain_locality_t **domain_out)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_domain_clone(const dart_domain_locality_t *domain_in,
                             dart_domain_locality_t **domain_out)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_domain_destroy(dart_domain_locality_t *domain)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_domain_assign(dart_domain_locality_t *domain_lhs,
                              const dart_domain_locality_t *domain_rhs)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_domain_find(const dart_domain_locality_t *domain_in,
                            const char *domain_tag,
                            dart_domain_locality_t **subdomain_out)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_domain_select(dart_domain_locality_t *domain_in,
                              int num_subdomain_tags,
                              const char **subdomain_tags)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_domain_exclude(dart_domain_locality_t *domain_in,
                               int num_subdomain_tags,
                               const char **subdomain_tags)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_domain_add_subdomain(dart_domain_locality_t *domain,
                                     dart_domain_locality_t *subdomain,
                                     int subdomain_rel_id)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_domain_move_subdomain(dart_domain_locality_t *domain,
                                      dart_domain_locality_t *new_parent_domain,
                                      int new_domain_rel_id)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_domain_split_scope(const dart_domain_locality_t *domain_in,
                                   dart_locality_scope_t scope, int num_parts,
                                   dart_domain_locality_t *split_domain_out)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_domain_scope_tags(const dart_domain_locality_t *domain_in,
                                  dart_locality_scope_t scope,
                                  int *num_domains_out,
                                  char ***domain_tags_out)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_domain_scope_domains(const dart_domain_locality_t *domain_in,
                                     dart_locality_scope_t scope,
                                     int *num_domains_out,
                                     dart_domain_locality_t ***domains_out)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_domain_group(dart_domain_locality_t *domain_in,
                             int num_group_subdomains,
                             const char **group_subdomain_tags,
                             char *group_domain_tag_out)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_unit_locality(dart_team_t team, dart_team_unit_t unit,
                              dart_unit_locality_t **loc)
{ NOT_IMPLEMENTED; }
dart_ret_t dart_group_locality_split(const dart_group_t g,
                                     dart_domain_locality_t *domain,
                                     dart_locality_scope_t scope, size_t n,
                                     size_t *nout, dart_group_t *gout)
{ NOT_IMPLEMENTED; }
