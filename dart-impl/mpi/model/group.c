#include "mpi/model/group.h"
#include "mpi/core/runtime.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

dart_group_t group_new(const dart_unit_t *members, size_t count)
{
  dart_group_t group = calloc(1, sizeof *group);
  if (group == NULL) {
    return NULL;
  }
  if (count > 0) {
    group->members = malloc(count * sizeof(dart_unit_t));
    if (group->members == NULL) {
      free(group);
      return NULL;
    }
    memcpy(group->members, members, count * sizeof(dart_unit_t));
  }
  group->size = group->capacity = count;
  return group;
}

static void group_free(dart_group_t group)
{
  free(group->members);
  free(group);
}

/* Index of the first member >= unit. */
static size_t lower_bound(const struct dart_group_struct *g, dart_unit_t unit)
{
  size_t lo = 0, hi = g->size;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g->members[mid] < unit) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

static dart_ret_t report_nomem(const char *call)
{
  return report_error(DART_ERR_NOMEM, call, "out of memory");
}

#define REQUIRE_NONNULL(g, name)                                         \
  do {                                                                 \
    if ((g) == NULL) {                                                 \
      return report_error(DART_ERR_INVAL, __func__, "%s is NULL", name); \
    }                                                                  \
  } while (0)

dart_ret_t dart_group_create(dart_group_t *group)
{
  REQUIRE_INIT();
  REQUIRE_NONNULL(group, "group pointer");
  *group = group_new(NULL, 0);
  return *group == NULL ? report_nomem(__func__) : DART_OK;
}

dart_ret_t dart_group_destroy(dart_group_t *group)
{
  REQUIRE_INIT();
  REQUIRE_NONNULL(group, "group pointer");
  if (*group != NULL) {
    group_free(*group);
    *group = DART_GROUP_NULL;
  }
  return DART_OK;
}

dart_ret_t dart_group_clone(const dart_group_t gin, dart_group_t *gout)
{
  REQUIRE_INIT();
  REQUIRE_NONNULL(gout, "gout");
  *gout = DART_GROUP_NULL;
  REQUIRE_NONNULL(gin, "gin");
  *gout = group_new(gin->members, gin->size);
  return *gout == NULL ? report_nomem(__func__) : DART_OK;
}

/* Merges two ascending lists; `keep_both_only` selects intersection. */
static dart_ret_t merge(const char *call, const dart_group_t g1,
                        const dart_group_t g2, dart_group_t *gout,
                        int keep_both_only)
{
  *gout = DART_GROUP_NULL;
  size_t cap = g1->size + g2->size;
  dart_unit_t *out = malloc((cap > 0 ? cap : 1) * sizeof(dart_unit_t));
  if (out == NULL) {
    return report_nomem(call);
  }
  size_t i = 0, j = 0, n = 0;
  while (i < g1->size || j < g2->size) {
    if (j == g2->size ||
        (i < g1->size && g1->members[i] < g2->members[j])) {
      if (!keep_both_only) {
        out[n++] = g1->members[i];
      }
      ++i;
    } else if (i == g1->size || g2->members[j] < g1->members[i]) {
      if (!keep_both_only) {
        out[n++] = g2->members[j];
      }
      ++j;
    } else {
      out[n++] = g1->members[i];
      ++i;
      ++j;
    }
  }
  *gout = group_new(out, n);
  free(out);
  return *gout == NULL ? report_nomem(call) : DART_OK;
}

dart_ret_t dart_group_union(const dart_group_t g1, const dart_group_t g2,
                            dart_group_t *gout)
{
  REQUIRE_INIT();
  REQUIRE_NONNULL(gout, "gout");
  *gout = DART_GROUP_NULL;
  REQUIRE_NONNULL(g1, "g1");
  REQUIRE_NONNULL(g2, "g2");
  return merge(__func__, g1, g2, gout, 0);
}

dart_ret_t dart_group_intersect(const dart_group_t g1, const dart_group_t g2,
                                dart_group_t *gout)
{
  REQUIRE_INIT();
  REQUIRE_NONNULL(gout, "gout");
  *gout = DART_GROUP_NULL;
  REQUIRE_NONNULL(g1, "g1");
  REQUIRE_NONNULL(g2, "g2");
  return merge(__func__, g1, g2, gout, 1);
}

dart_ret_t dart_group_addmember(dart_group_t g, dart_global_unit_t unitid)
{
  REQUIRE_INIT();
  REQUIRE_NONNULL(g, "group");
  if (unitid.id < 0 || unitid.id >= runtime.size) {
    return report_error(DART_ERR_INVAL, __func__,
                        "unit %d is not in [0, %d)", (int)unitid.id,
                        runtime.size);
  }
  size_t pos = lower_bound(g, unitid.id);
  if (pos < g->size && g->members[pos] == unitid.id) {
    return DART_OK;
  }
  if (g->size == g->capacity) {
    size_t cap = g->capacity < 4 ? 8 : 2 * g->capacity;
    dart_unit_t *grown = realloc(g->members, cap * sizeof(dart_unit_t));
    if (grown == NULL) {
      return report_nomem(__func__);
    }
    g->members = grown;
    g->capacity = cap;
  }
  memmove(&g->members[pos + 1], &g->members[pos],
          (g->size - pos) * sizeof(dart_unit_t));
  g->members[pos] = unitid.id;
  g->size++;
  return DART_OK;
}

dart_ret_t dart_group_delmember(dart_group_t g, dart_global_unit_t unitid)
{
  REQUIRE_INIT();
  REQUIRE_NONNULL(g, "group");
  size_t pos = lower_bound(g, unitid.id);
  if (pos < g->size && g->members[pos] == unitid.id) {
    memmove(&g->members[pos], &g->members[pos + 1],
            (g->size - pos - 1) * sizeof(dart_unit_t));
    g->size--;
  }
  return DART_OK;
}

dart_ret_t dart_group_ismember(const dart_group_t g, dart_global_unit_t unitid,
                               int32_t *ismember)
{
  REQUIRE_INIT();
  REQUIRE_NONNULL(ismember, "ismember");
  *ismember = 0;
  REQUIRE_NONNULL(g, "group");
  size_t pos = lower_bound(g, unitid.id);
  *ismember = pos < g->size && g->members[pos] == unitid.id;
  return DART_OK;
}

dart_ret_t dart_group_size(const dart_group_t g, size_t *size)
{
  REQUIRE_INIT();
  REQUIRE_NONNULL(size, "size");
  REQUIRE_NONNULL(g, "group");
  *size = g->size;
  return DART_OK;
}

dart_ret_t dart_group_getmembers(const dart_group_t g,
                                 dart_global_unit_t *unitids)
{
  REQUIRE_INIT();
  REQUIRE_NONNULL(g, "group");
  if (g->size > 0 && unitids == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "unitids is NULL");
  }
  for (size_t i = 0; i < g->size; ++i) {
    unitids[i].id = g->members[i];
  }
  return DART_OK;
}

dart_ret_t dart_group_split(const dart_group_t g, size_t n, size_t *nout,
                            dart_group_t *gout)
{
  REQUIRE_INIT();
  REQUIRE_NONNULL(g, "group");
  REQUIRE_NONNULL(nout, "nout");
  REQUIRE_NONNULL(gout, "gout");
  if (n == 0 || n > INT_MAX) {
    return report_error(DART_ERR_INVAL, __func__,
                        "n = %zu is not in [1, INT_MAX]", n);
  }
  size_t chunk = (g->size + n - 1) / n;
  for (size_t i = 0; i < n; ++i) {
    size_t begin = i * chunk < g->size ? i * chunk : g->size;
    size_t end = begin + chunk < g->size ? begin + chunk : g->size;
    gout[i] = group_new(g->members + begin, end - begin);
    if (gout[i] == NULL) {
      for (size_t k = 0; k < i; ++k) {
        group_free(gout[k]);
        gout[k] = DART_GROUP_NULL;
      }
      return report_nomem(__func__);
    }
  }
  *nout = n;
  return DART_OK;
}
