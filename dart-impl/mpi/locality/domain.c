#include "mpi/locality/domain.h"

#include "base/logging.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The copy-root registry (domain.h): a small chained hash set keyed by
 * address, one lock for all trees (entries are few, lookups short). */
struct copy_root {
  const dart_domain_locality_t *domain;
  /* The parent value the copy got; a domain whose parent changed since
   * (relinked by the caller) is not treated as that copy any more. */
  const dart_domain_locality_t *parent;
  struct copy_root             *next;
};

#define COPY_ROOT_BUCKETS 64

static struct copy_root *copy_roots[COPY_ROOT_BUCKETS];
static pthread_mutex_t   copy_roots_lock = PTHREAD_MUTEX_INITIALIZER;

/* The link that points at d's entry, or the bucket's terminating NULL
 * link if d has none. Caller holds copy_roots_lock. */
static struct copy_root **copy_root_link(const dart_domain_locality_t *d)
{
  uintptr_t a = (uintptr_t)d;
  struct copy_root **link = &copy_roots[((a >> 4) ^ (a >> 12)) %
                                        COPY_ROOT_BUCKETS];
  while (*link != NULL && (*link)->domain != d) {
    link = &(*link)->next;
  }
  return link;
}

dart_ret_t domain_mark_copy_root(const dart_domain_locality_t *d,
                                 const dart_domain_locality_t *parent)
{
  if (parent == NULL) {
    domain_forget_copy_root(d);
    return DART_OK;
  }
  pthread_mutex_lock(&copy_roots_lock);
  struct copy_root **link = copy_root_link(d);
  if (*link == NULL && (*link = malloc(sizeof **link)) != NULL) {
    (*link)->domain = d;
    (*link)->next   = NULL;
  }
  bool marked = *link != NULL;
  if (marked) {
    (*link)->parent = parent;
  }
  pthread_mutex_unlock(&copy_roots_lock);
  return marked ? DART_OK : DART_ERR_NOMEM;
}

void domain_forget_copy_root(const dart_domain_locality_t *d)
{
  pthread_mutex_lock(&copy_roots_lock);
  struct copy_root **link = copy_root_link(d);
  struct copy_root *entry = *link;
  if (entry != NULL) {
    *link = entry->next;
    free(entry);
  }
  pthread_mutex_unlock(&copy_roots_lock);
}

static bool is_copy_root(const dart_domain_locality_t *d)
{
  pthread_mutex_lock(&copy_roots_lock);
  const struct copy_root *entry = *copy_root_link(d);
  bool copy = entry != NULL && entry->parent == d->parent;
  pthread_mutex_unlock(&copy_roots_lock);
  return copy;
}

void domain_set_defaults(dart_domain_locality_t *d)
{
  memset(d, 0, sizeof *d);
  d->scope            = DART_LOCALITY_SCOPE_UNDEFINED;
  d->global_index     = -1;
  d->team             = DART_TEAM_NULL;
  d->num_units        = -1;
  d->num_nodes        = -1;
  d->node_id          = -1;
  d->num_cores        = -1;
  d->shared_mem_bytes = -1;
}

void domain_release(dart_domain_locality_t *d)
{
  /* Its address may come back as an unrelated domain. */
  domain_forget_copy_root(d);
  for (int i = 0; i < d->num_domains; ++i) {
    domain_release(d->children[i]);
    free(d->children[i]);
  }
  free(d->children);
  free(d->unit_ids);
  free(d->aliases);
  domain_set_defaults(d);
}

dart_ret_t domain_copy(dart_domain_locality_t *dst,
                       const dart_domain_locality_t *src)
{
  *dst = *src;
  dst->aliases     = NULL;
  dst->num_aliases = 0;
  dst->unit_ids    = NULL;
  dst->children    = NULL;
  dst->num_domains = 0;
  if (src->num_units > 0 && src->unit_ids != NULL) {
    size_t bytes = (size_t)src->num_units * sizeof *src->unit_ids;
    dst->unit_ids = malloc(bytes);
    if (dst->unit_ids == NULL) {
      goto nomem;
    }
    memcpy(dst->unit_ids, src->unit_ids, bytes);
  }
  if (src->num_domains > 0) {
    dst->children = calloc((size_t)src->num_domains, sizeof *dst->children);
    if (dst->children == NULL) {
      goto nomem;
    }
    for (int i = 0; i < src->num_domains; ++i) {
      dart_domain_locality_t *child = malloc(sizeof *child);
      if (child == NULL) {
        goto nomem;
      }
      /* Count it before copying, so a failure below frees it too. */
      dst->children[i] = child;
      dst->num_domains = i + 1;
      if (domain_copy(child, src->children[i]) != DART_OK) {
        goto nomem;
      }
      child->parent = dst;
      domain_forget_copy_root(child);
    }
  }
  return DART_OK;

nomem:
  domain_release(dst);
  return DART_ERR_NOMEM;
}

dart_domain_locality_t *domain_owner(const dart_domain_locality_t *d)
{
  dart_domain_locality_t *p = d->parent;
  if (p == NULL || is_copy_root(d) || d->relative_index < 0 ||
      d->relative_index >= p->num_domains ||
      p->children[d->relative_index] != d) {
    return NULL;
  }
  return p;
}

dart_domain_locality_t *domain_top(dart_domain_locality_t *d)
{
  for (dart_domain_locality_t *p; (p = domain_owner(d)) != NULL; d = p) {
  }
  return d;
}

/* Appends the node ids of d's subtree to ids (room for `cap`): a domain
 * of NODE scope or finer names its node, coarser ones delegate. */
static void collect_node_ids(const dart_domain_locality_t *d, int *ids,
                             int *count, int cap)
{
  if (d->scope >= DART_LOCALITY_SCOPE_NODE) {
    if (d->node_id >= 0 && *count < cap) {
      ids[(*count)++] = d->node_id;
    }
    return;
  }
  for (int i = 0; i < d->num_domains; ++i) {
    collect_node_ids(d->children[i], ids, count, cap);
  }
}

static int count_subtree(const dart_domain_locality_t *d)
{
  int n = 1;
  for (int i = 0; i < d->num_domains; ++i) {
    n += count_subtree(d->children[i]);
  }
  return n;
}

static int compare_int(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static dart_ret_t aggregate_nodes(dart_domain_locality_t *d)
{
  int cap = count_subtree(d);
  int *ids = malloc((size_t)cap * sizeof *ids);
  if (ids == NULL) {
    return DART_ERR_NOMEM;
  }
  int count = 0;
  collect_node_ids(d, ids, &count, cap);
  qsort(ids, (size_t)count, sizeof *ids, compare_int);
  int distinct = 0;
  for (int i = 0; i < count; ++i) {
    if (i == 0 || ids[i] != ids[i - 1]) {
      ++distinct;
    }
  }
  d->num_nodes = distinct;
  d->node_id   = distinct == 1 ? ids[0] : -1;
  free(ids);
  return DART_OK;
}

dart_ret_t domain_aggregate(dart_domain_locality_t *d)
{
  int units = 0, cores = 0;
  d->is_symmetric = 1;
  for (int i = 0; i < d->num_domains; ++i) {
    dart_domain_locality_t *c = d->children[i];
    c->relative_index = i;
    c->parent = d;
    /* A child in a tree is nobody's copy root, whatever lived at its
     * address before. */
    domain_forget_copy_root(c);
    units += c->num_units > 0 && c->unit_ids != NULL ? c->num_units : 0;
    cores += c->num_cores > 0 ? c->num_cores : 0;
    if (i > 0 && (c->num_units != d->children[0]->num_units ||
                  c->num_domains != d->children[0]->num_domains ||
                  c->scope != d->children[0]->scope)) {
      d->is_symmetric = 0;
    }
  }
  if (d->num_domains == 0) {
    free(d->children);
    d->children = NULL;
  }
  dart_global_unit_t *ids = NULL;
  if (units > 0) {
    ids = malloc((size_t)units * sizeof *ids);
    if (ids == NULL) {
      return DART_ERR_NOMEM;
    }
    int at = 0;
    for (int i = 0; i < d->num_domains; ++i) {
      dart_domain_locality_t *c = d->children[i];
      for (int u = 0; c->unit_ids != NULL && u < c->num_units; ++u) {
        ids[at++] = c->unit_ids[u];
      }
    }
  }
  free(d->unit_ids);
  d->unit_ids  = ids;
  d->num_units = units;
  d->num_cores = cores;
  if (d->scope < DART_LOCALITY_SCOPE_NODE) {
    return aggregate_nodes(d);
  }
  return DART_OK;
}

dart_ret_t domain_update_upwards(dart_domain_locality_t *d)
{
  for (; d != NULL; d = domain_owner(d)) {
    dart_ret_t ret = domain_aggregate(d);
    if (ret != DART_OK) {
      return ret;
    }
  }
  return DART_OK;
}

bool tag_within(const char *tag, const char *prefix)
{
  if (strcmp(prefix, ".") == 0) {
    return tag[0] == '.';
  }
  size_t len = strlen(prefix);
  return strncmp(tag, prefix, len) == 0 &&
         (tag[len] == '\0' || tag[len] == '.');
}

dart_domain_locality_t *domain_lookup(const dart_domain_locality_t *d,
                                      const char *tag)
{
  if (strcmp(d->domain_tag, tag) == 0) {
    return (dart_domain_locality_t *)d;
  }
  for (int i = 0; i < d->num_domains; ++i) {
    /* Tags extend their parent's, so only one branch can hold it. */
    if (tag_within(tag, d->children[i]->domain_tag)) {
      dart_domain_locality_t *found = domain_lookup(d->children[i], tag);
      if (found != NULL) {
        return found;
      }
    }
  }
  return NULL;
}

static void collect_scope(const dart_domain_locality_t *d,
                          dart_locality_scope_t scope,
                          dart_domain_locality_t **out, int *count)
{
  if (d->scope == scope) {
    if (out != NULL) {
      out[*count] = (dart_domain_locality_t *)d;
    }
    ++*count;
  }
  for (int i = 0; i < d->num_domains; ++i) {
    collect_scope(d->children[i], scope, out, count);
  }
}

int domain_collect_scope(const dart_domain_locality_t *d,
                         dart_locality_scope_t scope,
                         dart_domain_locality_t ***out)
{
  int count = 0;
  collect_scope(d, scope, NULL, &count);
  if (out == NULL) {
    return count;
  }
  *out = NULL;
  if (count == 0) {
    return 0;
  }
  *out = malloc((size_t)count * sizeof **out);
  if (*out == NULL) {
    return -1;
  }
  count = 0;
  collect_scope(d, scope, *out, &count);
  return count;
}

dart_ret_t domain_scope_list(const char *call,
                             const dart_domain_locality_t *d,
                             dart_locality_scope_t scope, bool log_absent,
                             int *count, dart_domain_locality_t ***out)
{
  /* Outputs read 0 and NULL on every failure, a NULL partner included. */
  if (count != NULL) {
    *count = 0;
  }
  if (out != NULL) {
    *out = NULL;
  }
  if (count == NULL || out == NULL) {
    return report_error(DART_ERR_INVAL, call, "%s is NULL",
                        count == NULL ? "count output" : "list output");
  }
  if (d == NULL) {
    return report_error(DART_ERR_INVAL, call, "domain is NULL");
  }
  if (!scope_is_valid(scope)) {
    return report_error(DART_ERR_INVAL, call, "invalid scope %d",
                        (int)scope);
  }
  int found = domain_collect_scope(d, scope, out);
  if (found < 0) {
    return report_error(DART_ERR_NOMEM, call, "out of memory");
  }
  if (found == 0) {
    if (log_absent) {
      return report_error(DART_ERR_NOTFOUND, call,
                          "no domain of scope %d below '%s'", (int)scope,
                          d->domain_tag);
    }
    LOG_DEBUG(call, "no domain of scope %d below '%s'", (int)scope,
              d->domain_tag);
    return DART_ERR_NOTFOUND;
  }
  *count = found;
  return DART_OK;
}

bool scope_is_valid(dart_locality_scope_t scope)
{
  switch (scope) {
  case DART_LOCALITY_SCOPE_GLOBAL:
  case DART_LOCALITY_SCOPE_GROUP:
  case DART_LOCALITY_SCOPE_NETWORK:
  case DART_LOCALITY_SCOPE_NODE:
  case DART_LOCALITY_SCOPE_MODULE:
  case DART_LOCALITY_SCOPE_NUMA:
  case DART_LOCALITY_SCOPE_UNIT:
  case DART_LOCALITY_SCOPE_PACKAGE:
  case DART_LOCALITY_SCOPE_UNCORE:
  case DART_LOCALITY_SCOPE_CACHE:
  case DART_LOCALITY_SCOPE_CORE:
  case DART_LOCALITY_SCOPE_CPU:
    return true;
  default:
    return false;
  }
}

bool tag_child(char *out, const char *parent_tag, int component)
{
  const char *base = strcmp(parent_tag, ".") == 0 ? "" : parent_tag;
  int len = snprintf(out, TAG_SIZE, "%s.%d", base, component);
  return len > 0 && (size_t)len < TAG_SIZE;
}

int tag_last_component(const char *tag)
{
  const char *dot = strrchr(tag, '.');
  if (dot == NULL || dot[1] < '0' || dot[1] > '9') {
    return -1;
  }
  return atoi(dot + 1);
}
