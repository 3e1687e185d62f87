/* dart_group_locality_split (dart_locality.h): the members of a group
 * split along the domains of one scope. Domain unit lists hold global ids,
 * as group members do, so any group and any team's tree combine. */
#include "mpi/core/runtime.h"
#include "mpi/locality/domain.h"
#include "mpi/model/group.h"

#include <dash/dart/if/dart_locality.h>

#include <limits.h>
#include <stdlib.h>

static int compare_unit(const void *a, const void *b)
{
  dart_unit_t x = *(const dart_unit_t *)a, y = *(const dart_unit_t *)b;
  return (x > y) - (x < y);
}

/* The members of g inside domains[0..count-1] as a new group. */
static dart_group_t members_in(const struct dart_group_struct *g,
                               dart_domain_locality_t **domains, int count)
{
  size_t units = 0;
  for (int i = 0; i < count; ++i) {
    units += domains[i]->num_units > 0 ? (size_t)domains[i]->num_units : 0;
  }
  dart_unit_t *in_part = malloc((units + 1) * sizeof *in_part);
  dart_unit_t *chosen = malloc((g->size + 1) * sizeof *chosen);
  dart_group_t out = NULL;
  if (in_part != NULL && chosen != NULL) {
    size_t at = 0, n = 0;
    for (int i = 0; i < count; ++i) {
      for (int u = 0; domains[i]->unit_ids != NULL &&
                      u < domains[i]->num_units; ++u) {
        in_part[at++] = domains[i]->unit_ids[u].id;
      }
    }
    qsort(in_part, at, sizeof *in_part, compare_unit);
    for (size_t m = 0; m < g->size; ++m) {
      if (bsearch(&g->members[m], in_part, at, sizeof *in_part,
                  compare_unit) != NULL) {
        chosen[n++] = g->members[m];
      }
    }
    out = group_new(chosen, n);
  }
  free(in_part);
  free(chosen);
  return out;
}

dart_ret_t dart_group_locality_split(const dart_group_t g,
                                     dart_domain_locality_t *domain,
                                     dart_locality_scope_t scope, size_t n,
                                     size_t *nout, dart_group_t *gout)
{
  REQUIRE_INIT();
  if (g == NULL || domain == NULL || nout == NULL || gout == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "%s is NULL",
                        g == NULL ? "group" : domain == NULL ? "domain"
                        : nout == NULL ? "nout" : "gout");
  }
  *nout = 0;
  if (n == 0 || n > INT_MAX) {
    return report_error(DART_ERR_INVAL, __func__, "invalid group count %zu",
                        n);
  }
  dart_domain_locality_t **found = NULL;
  int count = 0;
  dart_ret_t ret = domain_scope_list(__func__, domain, scope, true, &count,
                                     &found);
  if (ret != DART_OK) {
    return ret;
  }
  /* n >= count: one group per domain; else consecutive chunks. */
  int chunk = n >= (size_t)count ? 1 : (count + (int)n - 1) / (int)n;
  int groups = (count + chunk - 1) / chunk;
  for (int k = 0; k < groups; ++k) {
    int first = k * chunk;
    int last = first + chunk < count ? first + chunk : count;
    gout[k] = members_in(g, found + first, last - first);
    if (gout[k] == NULL) {
      for (int j = 0; j < k; ++j) {
        dart_group_destroy(&gout[j]);
      }
      ret = report_error(DART_ERR_NOMEM, __func__, "out of memory");
      break;
    }
  }
  free(found);
  if (ret == DART_OK) {
    *nout = (size_t)groups;
  }
  return ret;
}
