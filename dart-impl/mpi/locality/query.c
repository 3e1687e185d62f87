/* dart_domain_* calls that create, copy, free and query domain objects
 * (dart_locality.h). Restructuring calls live in locality/restructure.c. */
#include "mpi/locality/domain.h"

#include "base/logging.h"

#include <dash/dart/if/dart_locality.h>

#include <stdlib.h>
#include <string.h>

dart_ret_t dart_domain_create(dart_domain_locality_t **domain_out)
{
  if (domain_out == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "domain_out is NULL");
  }
  *domain_out = malloc(sizeof **domain_out);
  if (*domain_out == NULL) {
    return report_error(DART_ERR_NOMEM, __func__, "out of memory");
  }
  domain_set_defaults(*domain_out);
  return DART_OK;
}

dart_ret_t dart_domain_clone(const dart_domain_locality_t *domain_in,
                             dart_domain_locality_t **domain_out)
{
  if (domain_out == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "domain_out is NULL");
  }
  *domain_out = NULL;
  if (domain_in == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "domain_in is NULL");
  }
  dart_domain_locality_t *copy = malloc(sizeof *copy);
  if (copy == NULL || domain_copy(copy, domain_in) != DART_OK) {
    free(copy);
    return report_error(DART_ERR_NOMEM, __func__,
                        "out of memory copying domain '%s'",
                        domain_in->domain_tag);
  }
  /* The copy keeps domain_in's parent, which may be freed before it. */
  if (domain_mark_copy_root(copy, copy->parent) != DART_OK) {
    dart_domain_destroy(copy);
    return report_error(DART_ERR_NOMEM, __func__,
                        "out of memory registering the copy of '%s'",
                        domain_in->domain_tag);
  }
  *domain_out = copy;
  return DART_OK;
}

dart_ret_t dart_domain_destroy(dart_domain_locality_t *domain)
{
  if (domain != NULL) {
    domain_release(domain);
    free(domain);
  }
  return DART_OK;
}

dart_ret_t dart_domain_assign(dart_domain_locality_t *domain_lhs,
                              const dart_domain_locality_t *domain_rhs)
{
  if (domain_lhs == NULL || domain_rhs == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "%s is NULL",
                        domain_lhs == NULL ? "domain_lhs" : "domain_rhs");
  }
  if (domain_lhs == domain_rhs) {
    return DART_OK;
  }
  /* Copy first: rhs may lie inside lhs's subtree. */
  dart_domain_locality_t copy;
  if (domain_copy(&copy, domain_rhs) != DART_OK) {
    return report_error(DART_ERR_NOMEM, __func__,
                        "out of memory copying domain '%s'",
                        domain_rhs->domain_tag);
  }
  /* lhs gets rhs's parent, which may be freed before lhs; registering
   * can fail, so it comes before lhs changes. */
  if (domain_mark_copy_root(domain_lhs, copy.parent) != DART_OK) {
    domain_release(&copy);
    return report_error(DART_ERR_NOMEM, __func__,
                        "out of memory registering the copy of '%s'",
                        domain_rhs->domain_tag);
  }
  /* Release the old contents through a stand-in: releasing domain_lhs
   * itself would drop the registration made above. */
  dart_domain_locality_t old = *domain_lhs;
  *domain_lhs = copy;
  for (int i = 0; i < domain_lhs->num_domains; ++i) {
    domain_lhs->children[i]->parent = domain_lhs;
  }
  domain_release(&old);
  return DART_OK;
}

dart_ret_t dart_domain_find(const dart_domain_locality_t *domain_in,
                            const char *domain_tag,
                            dart_domain_locality_t **subdomain_out)
{
  if (subdomain_out == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "subdomain_out is NULL");
  }
  *subdomain_out = NULL;
  if (domain_in == NULL || domain_tag == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "%s is NULL",
                        domain_in == NULL ? "domain_in" : "domain_tag");
  }
  *subdomain_out = domain_lookup(domain_in, domain_tag);
  if (*subdomain_out == NULL) {
    return report_error(DART_ERR_NOTFOUND, __func__,
                        "no domain '%.*s' below '%s'", (int)TAG_SIZE,
                        domain_tag, domain_in->domain_tag);
  }
  return DART_OK;
}

dart_ret_t dart_domain_scope_domains(const dart_domain_locality_t *domain_in,
                                     dart_locality_scope_t scope,
                                     int *num_domains_out,
                                     dart_domain_locality_t ***domains_out)
{
  /* DASH asks for scopes that may be absent and carries on: no error
   * line for those. */
  return domain_scope_list(__func__, domain_in, scope, false,
                           num_domains_out, domains_out);
}

dart_ret_t dart_domain_scope_tags(const dart_domain_locality_t *domain_in,
                                  dart_locality_scope_t scope,
                                  int *num_domains_out,
                                  char ***domain_tags_out)
{
  /* The count reads 0 on failure even when the list pointer is missing. */
  if (num_domains_out != NULL) {
    *num_domains_out = 0;
  }
  if (domain_tags_out == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "domain_tags_out is NULL");
  }
  *domain_tags_out = NULL;
  dart_domain_locality_t **found = NULL;
  dart_ret_t ret = domain_scope_list(__func__, domain_in, scope, false,
                                     num_domains_out, &found);
  if (ret != DART_OK) {
    return ret;
  }
  int count = *num_domains_out;
  char **tags = calloc((size_t)count, sizeof *tags);
  for (int i = 0; tags != NULL && i < count; ++i) {
    tags[i] = strdup(found[i]->domain_tag);
    if (tags[i] == NULL) {
      for (int j = 0; j < i; ++j) {
        free(tags[j]);
      }
      free(tags);
      tags = NULL;
    }
  }
  free(found);
  if (tags == NULL) {
    *num_domains_out = 0;
    return report_error(DART_ERR_NOMEM, __func__, "out of memory");
  }
  *domain_tags_out = tags;
  return DART_OK;
}
