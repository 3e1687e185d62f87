#include "mpi/locality/tree.h"
#include "mpi/locality/domain.h"

#include "base/logging.h"

#include <stdlib.h>
#include <string.h>

struct tree_build {
  const struct unit_record *records;
  dart_team_t               team;
  char                    (*leaf_tags)[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
};

/* A unit's position below the module, one entry per level. */
struct level_key {
  int scope;
  int index;     /* sort key: hardware index, team unit for leaves */
  int hw_index;  /* the scope's hardware index (global_index) */
  int leaf_unit; /* team unit for a leaf, -1 for an inner domain */
  int unit;      /* team unit, keeps the sort stable */
};

static bool has_scopes(const dart_hwinfo_t *hw)
{
  return hw->num_scopes >= 1 &&
         hw->num_scopes <= DART_LOCALITY_MAX_DOMAIN_SCOPES;
}

static int levels_below_module(const struct unit_record *r)
{
  return has_scopes(&r->hwinfo) ? r->hwinfo.num_scopes : 1;
}

/* Level t below the module (0 = coarsest). Without scopes in the record
 * the unit is a CORE leaf right below its module (the minimal
 * shape). */
static dart_locality_scope_pos_t level_pos(const struct unit_record *r,
                                           int t)
{
  const dart_hwinfo_t *hw = &r->hwinfo;
  if (!has_scopes(hw)) {
    dart_locality_scope_pos_t pos = {
      DART_LOCALITY_SCOPE_CORE, hw->core_id >= 0 ? hw->core_id
                                                 : r->node_rank };
    return pos;
  }
  return hw->scopes[hw->num_scopes - 1 - t];
}

static int compare_keys(const void *a, const void *b)
{
  const struct level_key *x = a, *y = b;
  if (x->scope != y->scope) {
    return x->scope < y->scope ? -1 : 1;
  }
  if (x->index != y->index) {
    return x->index < y->index ? -1 : 1;
  }
  if (x->leaf_unit != y->leaf_unit) {
    return x->leaf_unit < y->leaf_unit ? -1 : 1;
  }
  return (x->unit > y->unit) - (x->unit < y->unit);
}

static bool same_domain(const struct level_key *x, const struct level_key *y)
{
  return x->scope == y->scope && x->index == y->index &&
         x->leaf_unit == y->leaf_unit;
}

static dart_ret_t too_deep(const char *parent_tag)
{
  return report_error(DART_ERR_OTHER, "dart_team_locality_init",
                      "domain tags below '%s' exceed %d characters",
                      parent_tag, (int)TAG_SIZE - 1);
}

/* Appends a child to d (whose array has room) with what it inherits. */
static dart_ret_t add_child(dart_domain_locality_t *d,
                            dart_locality_scope_t scope, int global_index,
                            dart_domain_locality_t **child_out)
{
  dart_domain_locality_t *c = malloc(sizeof *c);
  if (c == NULL) {
    return report_error(DART_ERR_NOMEM, "dart_team_locality_init",
                        "out of memory");
  }
  domain_set_defaults(c);
  c->parent         = d;
  c->relative_index = d->num_domains;
  d->children[d->num_domains++] = c;
  if (!tag_child(c->domain_tag, d->domain_tag, c->relative_index)) {
    return too_deep(d->domain_tag);
  }
  memcpy(c->host, d->host, sizeof c->host);
  c->scope        = scope;
  c->level        = d->level + 1;
  c->global_index = global_index;
  c->team         = d->team;
  c->num_nodes    = d->num_nodes;
  c->node_id      = d->node_id;
  *child_out = c;
  return DART_OK;
}

static dart_ret_t make_leaf(const struct tree_build *b,
                            dart_domain_locality_t *leaf, int unit)
{
  leaf->unit_ids = malloc(sizeof *leaf->unit_ids);
  if (leaf->unit_ids == NULL) {
    return report_error(DART_ERR_NOMEM, "dart_team_locality_init",
                        "out of memory");
  }
  leaf->unit_ids[0].id = b->records[unit].unit;
  leaf->num_units   = 1;
  leaf->num_cores   = 1;
  leaf->is_symmetric = 1;
  memcpy(b->leaf_tags[unit], leaf->domain_tag, TAG_SIZE);
  return DART_OK;
}

/* Builds the children of d at level t below the module from the units
 * (team unit ids, `n` of them) that lie in d. */
static dart_ret_t build_level(const struct tree_build *b,
                              dart_domain_locality_t *d, const int *units,
                              int n, int t)
{
  struct level_key *keys = malloc((size_t)n * sizeof *keys);
  int *group = malloc((size_t)n * sizeof *group);
  d->children = malloc((size_t)n * sizeof *d->children);
  dart_ret_t ret = DART_OK;
  if (keys == NULL || group == NULL || d->children == NULL) {
    ret = report_error(DART_ERR_NOMEM, "dart_team_locality_init",
                       "out of memory");
    goto out;
  }
  for (int i = 0; i < n; ++i) {
    const struct unit_record *r = &b->records[units[i]];
    dart_locality_scope_pos_t pos = level_pos(r, t);
    keys[i].scope     = (int)pos.scope;
    keys[i].hw_index  = pos.index;
    keys[i].leaf_unit = t + 1 >= levels_below_module(r) ? units[i] : -1;
    /* Leaves in team order, so a node's unit list ascends. */
    keys[i].index     = keys[i].leaf_unit >= 0 ? units[i] : pos.index;
    keys[i].unit      = units[i];
  }
  qsort(keys, (size_t)n, sizeof *keys, compare_keys);
  for (int first = 0; first < n && ret == DART_OK;) {
    int last = first;
    while (last < n && same_domain(&keys[first], &keys[last])) {
      group[last - first] = keys[last].unit;
      ++last;
    }
    dart_domain_locality_t *c = NULL;
    ret = add_child(d, (dart_locality_scope_t)keys[first].scope,
                    keys[first].hw_index, &c);
    if (ret == DART_OK && keys[first].leaf_unit >= 0) {
      ret = make_leaf(b, c, keys[first].leaf_unit);
    } else if (ret == DART_OK) {
      const dart_hwinfo_t *hw = &b->records[keys[first].unit].hwinfo;
      if (c->scope == DART_LOCALITY_SCOPE_NUMA) {
        c->shared_mem_bytes = hw->numa_memory_bytes > 0
                                ? hw->numa_memory_bytes : -1;
      }
      ret = build_level(b, c, group, last - first, t + 1);
    }
    first = last;
  }
  if (ret == DART_OK) {
    ret = domain_aggregate(d);
  }
out:
  free(keys);
  free(group);
  return ret;
}

/* Node and module domains of node k, then everything below. */
static dart_ret_t build_node(const struct tree_build *b,
                             dart_domain_locality_t *root, int k,
                             const int *units, int n)
{
  const dart_hwinfo_t *hw = &b->records[units[0]].hwinfo;
  dart_domain_locality_t *node = NULL, *module = NULL;
  dart_ret_t ret = add_child(root, DART_LOCALITY_SCOPE_NODE, k, &node);
  if (ret != DART_OK) {
    return ret;
  }
  memcpy(node->host, hw->host, sizeof node->host);
  node->host[sizeof node->host - 1] = '\0';
  node->num_nodes        = 1;
  node->node_id          = k;
  node->shared_mem_bytes = hw->system_memory_bytes > 0
                             ? hw->system_memory_bytes : -1;
  node->children = malloc(sizeof *node->children);
  if (node->children == NULL) {
    return report_error(DART_ERR_NOMEM, "dart_team_locality_init",
                        "out of memory");
  }
  /* One module per node: the host CPUs (no accelerators are modelled). */
  ret = add_child(node, DART_LOCALITY_SCOPE_MODULE, k, &module);
  if (ret == DART_OK) {
    module->shared_mem_bytes = node->shared_mem_bytes;
    ret = build_level(b, module, units, n, 0);
  }
  return ret != DART_OK ? ret : domain_aggregate(node);
}

/* Team-local node index of every unit, numbered by first appearance. */
static int number_nodes(const struct unit_record *records, int count,
                        int *node_of)
{
  int nodes = 0;
  for (int i = 0; i < count; ++i) {
    node_of[i] = -1;
    for (int j = 0; j < i && node_of[i] < 0; ++j) {
      if (records[j].node_id == records[i].node_id) {
        node_of[i] = node_of[j];
      }
    }
    if (node_of[i] < 0) {
      node_of[i] = nodes++;
    }
  }
  return nodes;
}

static dart_ret_t build_tree(const struct tree_build *b,
                             dart_domain_locality_t *root, int count)
{
  int *node_of = malloc((size_t)count * sizeof *node_of);
  int *units = malloc((size_t)count * sizeof *units);
  dart_ret_t ret = DART_OK;
  if (node_of == NULL || units == NULL) {
    ret = report_error(DART_ERR_NOMEM, "dart_team_locality_init",
                       "out of memory");
    goto out;
  }
  int nodes = number_nodes(b->records, count, node_of);
  root->children = malloc((size_t)nodes * sizeof *root->children);
  if (root->children == NULL) {
    ret = report_error(DART_ERR_NOMEM, "dart_team_locality_init",
                       "out of memory");
    goto out;
  }
  for (int k = 0; k < nodes && ret == DART_OK; ++k) {
    int n = 0;
    for (int i = 0; i < count; ++i) {
      if (node_of[i] == k) {
        units[n++] = i;
      }
    }
    ret = build_node(b, root, k, units, n);
  }
  if (ret == DART_OK) {
    ret = domain_aggregate(root);
  }
out:
  free(node_of);
  free(units);
  return ret;
}

dart_ret_t locality_tree_build(const struct unit_record *records, int count,
                               dart_team_t team,
                               dart_domain_locality_t **root_out,
                               char (*leaf_tags)[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE])
{
  *root_out = NULL;
  if (count < 1) {
    return report_error(DART_ERR_INVAL, "dart_team_locality_init",
                        "a team without units has no locality");
  }
  dart_domain_locality_t *root = malloc(sizeof *root);
  if (root == NULL) {
    return report_error(DART_ERR_NOMEM, "dart_team_locality_init",
                        "out of memory");
  }
  domain_set_defaults(root);
  strcpy(root->domain_tag, ".");
  root->scope        = DART_LOCALITY_SCOPE_GLOBAL;
  root->global_index = 0;
  root->team         = team;
  struct tree_build b = { records, team, leaf_tags };
  dart_ret_t ret = build_tree(&b, root, count);
  if (ret != DART_OK) {
    domain_release(root);
    free(root);
    return ret;
  }
  *root_out = root;
  return DART_OK;
}
