/* The locality tree builder and every dart_domain_* call on synthetic unit
 * records (no MPI): exact tags, unit lists and counts, and error paths. */
#include "mpi/locality/domain.h"
#include "mpi/locality/tree.h"
#include "test.h"

#include <dash/dart/if/dart_locality.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_UNITS 16
typedef char tag_t[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];

/* `nodes` nodes of `per_node` units each, `numa` NUMA domains per node
 * (0: records without scopes). node_ids may be permuted by `node_perm`. */
static void make_records(struct unit_record *r, int nodes, int per_node,
                         int numa, const int *node_perm)
{
  memset(r, 0, sizeof *r * (size_t)(nodes * per_node));
  for (int u = 0; u < nodes * per_node; ++u) {
    int node = node_perm != NULL ? node_perm[u] : u / per_node;
    r[u].unit      = u;
    r[u].node_id   = node;
    r[u].node_rank = u % per_node;
    r[u].node_size = per_node;
    dart_hwinfo_t *hw = &r[u].hwinfo;
    snprintf(hw->host, sizeof hw->host, "host%d", node);
    hw->core_id = u % per_node;
    hw->system_memory_bytes = 1000;
    hw->numa_memory_bytes = 500;
    if (numa > 0) {
      hw->num_scopes = 2;
      hw->scopes[0].scope = DART_LOCALITY_SCOPE_CORE;
      hw->scopes[0].index = u % per_node;
      hw->scopes[1].scope = DART_LOCALITY_SCOPE_NUMA;
      hw->scopes[1].index = (u % per_node) * numa / per_node;
    }
  }
}

/* The invariants of dart_domain_locality_t (dart-if/include/dash/dart/
 * if/dart_locality.h) over the whole subtree; returns 0 if they hold. */
static int check_tree(const dart_domain_locality_t *root,
                      const dart_domain_locality_t *d)
{
  dart_domain_locality_t *found = NULL;
  ASSERT(dart_domain_find(root, d->domain_tag, &found) == DART_OK);
  ASSERT(found == d);
  ASSERT((d->num_domains == 0) == (d->children == NULL));
  if (d->num_domains == 0) {
    return 0;
  }
  ASSERT((d->num_units == 0) == (d->unit_ids == NULL));
  int at = 0;
  for (int i = 0; i < d->num_domains; ++i) {
    const dart_domain_locality_t *c = d->children[i];
    ASSERT(c->relative_index == i);
    ASSERT(c->parent == d);
    ASSERT(c->level == d->level + 1);
    ASSERT(c->team == d->team);
    ASSERT(c->scope > d->scope || c->scope == DART_LOCALITY_SCOPE_GROUP ||
           d->scope == DART_LOCALITY_SCOPE_GROUP);
    for (int u = 0; u < c->num_units; ++u) {
      ASSERT(at < d->num_units);
      ASSERT(d->unit_ids[at++].id == c->unit_ids[u].id);
    }
    ASSERT(check_tree(root, c) == 0);
  }
  ASSERT(at == d->num_units);
  return 0;
}

static int units_are(const dart_domain_locality_t *d, int n,
                     const int *expected)
{
  ASSERT(d->num_units == n);
  for (int i = 0; i < n; ++i) {
    ASSERT(d->unit_ids[i].id == expected[i]);
  }
  return 0;
}

static dart_domain_locality_t *find(const dart_domain_locality_t *root,
                                    const char *tag)
{
  dart_domain_locality_t *d = NULL;
  return dart_domain_find(root, tag, &d) == DART_OK ? d : NULL;
}

static dart_domain_locality_t *build(int nodes, int per_node, int numa,
                                     const int *perm, tag_t *leaf_tags)
{
  struct unit_record r[MAX_UNITS];
  make_records(r, nodes, per_node, numa, perm);
  dart_domain_locality_t *root = NULL;
  if (locality_tree_build(r, nodes * per_node, 7, &root, leaf_tags) !=
      DART_OK) {
    return NULL;
  }
  return root;
}

static int test_one_node(void)
{
  tag_t leaf[MAX_UNITS];
  dart_domain_locality_t *root = build(1, 4, 2, NULL, leaf);
  ASSERT(root != NULL);
  ASSERT(check_tree(root, root) == 0);
  ASSERT(strcmp(root->domain_tag, ".") == 0);
  ASSERT(root->scope == DART_LOCALITY_SCOPE_GLOBAL && root->level == 0);
  ASSERT(root->num_nodes == 1 && root->node_id == 0 && root->team == 7);
  ASSERT(root->num_domains == 1 && root->parent == NULL);
  ASSERT(units_are(root, 4, (int[]){0, 1, 2, 3}) == 0);
  dart_domain_locality_t *node = find(root, ".0");
  ASSERT(node != NULL && node->scope == DART_LOCALITY_SCOPE_NODE);
  ASSERT(strcmp(node->host, "host0") == 0 && node->shared_mem_bytes == 1000);
  dart_domain_locality_t *module = find(root, ".0.0");
  ASSERT(module != NULL && module->scope == DART_LOCALITY_SCOPE_MODULE);
  ASSERT(module->level == 2 && module->num_domains == 2);
  dart_domain_locality_t *numa1 = find(root, ".0.0.1");
  ASSERT(numa1 != NULL && numa1->scope == DART_LOCALITY_SCOPE_NUMA);
  ASSERT(numa1->global_index == 1 && numa1->shared_mem_bytes == 500);
  ASSERT(units_are(numa1, 2, (int[]){2, 3}) == 0);
  ASSERT(numa1->num_cores == 2 && numa1->is_symmetric);
  const char *expect[] = {".0.0.0.0", ".0.0.0.1", ".0.0.1.0", ".0.0.1.1"};
  for (int u = 0; u < 4; ++u) {
    ASSERT(strcmp(leaf[u], expect[u]) == 0);
    dart_domain_locality_t *l = find(root, leaf[u]);
    ASSERT(l != NULL && l->scope == DART_LOCALITY_SCOPE_CORE);
    ASSERT(l->level == 4 && l->num_domains == 0 && l->num_cores == 1);
    ASSERT(units_are(l, 1, &u) == 0);
    ASSERT(l->node_id == 0 && l->num_nodes == 1);
    ASSERT(strcmp(l->host, "host0") == 0);
  }
  ASSERT(root->num_cores == 4);
  ASSERT(dart_domain_destroy(root) == DART_OK);
  return 0;
}

static int test_nodes_and_scopes(void)
{
  tag_t leaf[MAX_UNITS];
  /* Records of node 3 come first: nodes number by first appearance. */
  int perm[4] = {3, 1, 3, 1};
  dart_domain_locality_t *root = build(2, 2, 0, perm, leaf);
  ASSERT(root != NULL && check_tree(root, root) == 0);
  ASSERT(root->num_nodes == 2 && root->node_id == -1);
  ASSERT(strcmp(find(root, ".0")->host, "host3") == 0);
  ASSERT(units_are(find(root, ".0"), 2, (int[]){0, 2}) == 0);
  ASSERT(units_are(find(root, ".1"), 2, (int[]){1, 3}) == 0);
  /* The unit list is the children's concatenation. */
  ASSERT(units_are(root, 4, (int[]){0, 2, 1, 3}) == 0);
  ASSERT(strcmp(leaf[1], ".1.0.0") == 0 && strcmp(leaf[2], ".0.0.1") == 0);
  ASSERT(find(root, ".1.0.0")->scope == DART_LOCALITY_SCOPE_CORE);
  ASSERT(dart_domain_destroy(root) == DART_OK);

  root = build(4, 1, 0, NULL, leaf);
  ASSERT(root != NULL && check_tree(root, root) == 0);
  ASSERT(root->num_nodes == 4 && root->num_domains == 4 && root->is_symmetric);
  for (int u = 0; u < 4; ++u) {
    char want[16];
    snprintf(want, sizeof want, ".%d.0.0", u);
    ASSERT(strcmp(leaf[u], want) == 0);
    ASSERT(find(root, want)->node_id == u);
  }
  int n = -1;
  char **tags = NULL;
  ASSERT(dart_domain_scope_tags(root, DART_LOCALITY_SCOPE_NODE, &n, &tags) ==
         DART_OK);
  ASSERT(n == 4 && strcmp(tags[3], ".3") == 0);
  for (int i = 0; i < n; ++i) {
    free(tags[i]);
  }
  free(tags);
  ASSERT(dart_domain_scope_tags(root, DART_LOCALITY_SCOPE_NUMA, &n, &tags) ==
         DART_ERR_NOTFOUND);
  ASSERT(n == 0 && tags == NULL);
  ASSERT(dart_domain_scope_tags(root, (dart_locality_scope_t)123, &n, &tags)
         == DART_ERR_INVAL);
  ASSERT(dart_domain_scope_tags(NULL, DART_LOCALITY_SCOPE_NODE, &n, &tags) ==
         DART_ERR_INVAL);
  dart_domain_locality_t **ds = NULL;
  ASSERT(dart_domain_scope_domains(root, DART_LOCALITY_SCOPE_CORE, &n, &ds) ==
         DART_OK);
  ASSERT(n == 4 && ds[2] == find(root, ".2.0.0"));
  free(ds);
  ASSERT(dart_domain_scope_domains(root, DART_LOCALITY_SCOPE_UNDEFINED, &n,
                                   &ds) == DART_ERR_INVAL);
  ASSERT(dart_domain_scope_domains(root, DART_LOCALITY_SCOPE_CORE, &n, NULL)
         == DART_ERR_INVAL);
  ASSERT(dart_domain_destroy(root) == DART_OK);
  return 0;
}

static int test_create_clone_find(void)
{
  dart_domain_locality_t *d = NULL;
  ASSERT(dart_domain_create(&d) == DART_OK);
  ASSERT(d->domain_tag[0] == '\0' && d->host[0] == '\0');
  ASSERT(d->scope == DART_LOCALITY_SCOPE_UNDEFINED && d->level == 0);
  ASSERT(d->global_index == -1 && d->relative_index == 0);
  ASSERT(d->parent == NULL && d->children == NULL && d->num_domains == 0);
  ASSERT(d->aliases == NULL && d->num_aliases == 0);
  ASSERT(d->team == DART_TEAM_NULL && d->unit_ids == NULL);
  ASSERT(d->num_units == -1 && d->num_nodes == -1 && d->num_cores == -1 &&
         d->shared_mem_bytes == -1);
  ASSERT(dart_domain_create(NULL) == DART_ERR_INVAL);

  tag_t leaf[MAX_UNITS];
  dart_domain_locality_t *root = build(2, 4, 2, NULL, leaf);
  ASSERT(root != NULL && check_tree(root, root) == 0);
  dart_domain_locality_t *copy = NULL;
  ASSERT(dart_domain_clone(root, &copy) == DART_OK);
  ASSERT(copy != root && check_tree(copy, copy) == 0);
  ASSERT(find(copy, ".1.0.1.1") != find(root, ".1.0.1.1"));
  ASSERT(units_are(find(copy, ".1.0.1"), 2, (int[]){6, 7}) == 0);
  dart_domain_destroy(copy);
  /* A clone of a subdomain keeps the source's parent pointer. */
  dart_domain_locality_t *sub = NULL;
  ASSERT(dart_domain_clone(find(root, ".1"), &sub) == DART_OK);
  ASSERT(sub->parent == root && check_tree(sub, sub) == 0);
  ASSERT(dart_domain_assign(d, sub) == DART_OK);
  ASSERT(strcmp(d->domain_tag, ".1") == 0 && check_tree(d, d) == 0);
  ASSERT(units_are(d, 4, (int[]){4, 5, 6, 7}) == 0);
  ASSERT(dart_domain_assign(d, find(d, ".1.0")) == DART_OK);
  ASSERT(strcmp(d->domain_tag, ".1.0") == 0 && d->num_domains == 2);
  ASSERT(dart_domain_assign(NULL, sub) == DART_ERR_INVAL);
  ASSERT(dart_domain_clone(NULL, &copy) == DART_ERR_INVAL && copy == NULL);

  dart_domain_locality_t *out = root;
  ASSERT(dart_domain_find(root, ".2", &out) == DART_ERR_NOTFOUND);
  ASSERT(out == NULL);
  ASSERT(dart_domain_find(root, ".0.0.2", &out) == DART_ERR_NOTFOUND);
  ASSERT(dart_domain_find(root, NULL, &out) == DART_ERR_INVAL);
  ASSERT(dart_domain_find(NULL, ".", &out) == DART_ERR_INVAL);
  ASSERT(dart_domain_find(root, ".", NULL) == DART_ERR_INVAL);
  ASSERT(dart_domain_find(root, ".", &out) == DART_OK && out == root);
  ASSERT(dart_domain_destroy(NULL) == DART_OK);
  dart_domain_destroy(sub);
  dart_domain_destroy(d);
  dart_domain_destroy(root);
  return 0;
}

static int test_select_exclude(dart_domain_locality_t *root)
{
  const char *keep[] = {".0.0.1", ".1"};
  ASSERT(dart_domain_select(root, 2, keep) == DART_OK);
  ASSERT(check_tree(root, root) == 0);
  ASSERT(units_are(root, 6, (int[]){2, 3, 4, 5, 6, 7}) == 0);
  ASSERT(root->num_nodes == 2 && find(root, ".0.0.0") == NULL);
  dart_domain_locality_t *numa = find(root, ".0.0.1");
  ASSERT(numa != NULL && numa->relative_index == 0 && numa->num_domains == 2);
  ASSERT(find(root, ".1.0.1.1") != NULL);
  const char *unknown[] = {".1", ".5"};
  ASSERT(dart_domain_select(root, 2, unknown) == DART_ERR_NOTFOUND);
  ASSERT(root->num_units == 6);
  const char *null_tag[] = {NULL};
  ASSERT(dart_domain_select(root, 1, null_tag) == DART_ERR_INVAL);
  ASSERT(dart_domain_select(root, -1, keep) == DART_ERR_INVAL);
  ASSERT(dart_domain_select(NULL, 1, keep) == DART_ERR_INVAL);

  /* Selecting inside a subdomain updates the ancestors too. */
  const char *core[] = {".1.0.1.0"};
  ASSERT(dart_domain_select(find(root, ".1.0.1"), 1, core) == DART_OK);
  ASSERT(check_tree(root, root) == 0);
  ASSERT(units_are(root, 5, (int[]){2, 3, 4, 5, 6}) == 0);

  const char *drop[] = {".0"};
  ASSERT(dart_domain_exclude(root, 1, drop) == DART_OK);
  ASSERT(check_tree(root, root) == 0);
  ASSERT(root->num_domains == 1 && find(root, ".0") == NULL);
  ASSERT(find(root, ".1")->relative_index == 0);
  ASSERT(root->num_nodes == 1 && root->node_id == 1);
  ASSERT(units_are(root, 3, (int[]){4, 5, 6}) == 0);
  const char *self[] = {"."};
  ASSERT(dart_domain_exclude(root, 1, self) == DART_ERR_INVAL);
  ASSERT(dart_domain_exclude(root, 1, drop) == DART_ERR_NOTFOUND);
  return 0;
}

/* ".1" must not match ".10" or ".11". */
static int test_tag_components(void)
{
  tag_t leaf[MAX_UNITS];
  dart_domain_locality_t *root = build(12, 1, 0, NULL, leaf);
  ASSERT(root != NULL);
  const char *one[] = {".1"};
  ASSERT(dart_domain_exclude(root, 1, one) == DART_OK);
  ASSERT(root->num_domains == 11 && find(root, ".10") != NULL);
  ASSERT(find(root, ".11")->relative_index == 10);
  ASSERT(check_tree(root, root) == 0);
  const char *ten[] = {".10"};
  ASSERT(dart_domain_select(root, 1, ten) == DART_OK);
  ASSERT(root->num_domains == 1 && units_are(root, 1, (int[]){10}) == 0);
  dart_domain_destroy(root);
  return 0;
}

static int test_split(dart_domain_locality_t *root)
{
  dart_domain_locality_t parts[10];
  ASSERT(dart_domain_split_scope(root, DART_LOCALITY_SCOPE_NUMA, 2, parts) ==
         DART_OK);
  for (int p = 0; p < 2; ++p) {
    ASSERT(check_tree(&parts[p], &parts[p]) == 0);
    ASSERT(parts[p].num_domains == 1 && parts[p].num_nodes == 1);
    ASSERT(units_are(&parts[p], 4,
                     (int[]){4 * p, 4 * p + 1, 4 * p + 2, 4 * p + 3}) == 0);
    domain_release(&parts[p]);
  }
  ASSERT(dart_domain_split_scope(root, DART_LOCALITY_SCOPE_CORE, 3, parts) ==
         DART_OK);
  ASSERT(units_are(&parts[0], 3, (int[]){0, 1, 2}) == 0);
  ASSERT(units_are(&parts[1], 3, (int[]){3, 4, 5}) == 0);
  ASSERT(units_are(&parts[2], 2, (int[]){6, 7}) == 0);
  ASSERT(parts[1].num_nodes == 2 && parts[1].node_id == -1);
  for (int p = 0; p < 3; ++p) {
    ASSERT(check_tree(&parts[p], &parts[p]) == 0);
    domain_release(&parts[p]);
  }
  ASSERT(dart_domain_split_scope(root, DART_LOCALITY_SCOPE_CORE, 10, parts) ==
         DART_OK);
  for (int p = 0; p < 10; ++p) {
    ASSERT(parts[p].num_units == (p < 8 ? 1 : 0));
    ASSERT(p >= 8 || parts[p].unit_ids[0].id == p);
    domain_release(&parts[p]);
  }
  ASSERT(dart_domain_split_scope(root, DART_LOCALITY_SCOPE_PACKAGE, 2, parts)
         == DART_ERR_NOTFOUND);
  ASSERT(dart_domain_split_scope(root, DART_LOCALITY_SCOPE_CORE, 0, parts) ==
         DART_ERR_INVAL);
  ASSERT(dart_domain_split_scope(root, (dart_locality_scope_t)7, 2, parts) ==
         DART_ERR_INVAL);
  ASSERT(dart_domain_split_scope(root, DART_LOCALITY_SCOPE_CORE, 2, NULL) ==
         DART_ERR_INVAL);
  ASSERT(root->num_units == 8);
  return 0;
}

static int test_group(dart_domain_locality_t *root)
{
  tag_t tag;
  const char *across[] = {".0.0.1", ".1.0.0"};
  ASSERT(dart_domain_group(root, 2, across, tag) == DART_OK);
  ASSERT(strcmp(tag, ".2") == 0 && check_tree(root, root) == 0);
  dart_domain_locality_t *g = find(root, ".2");
  ASSERT(g->scope == DART_LOCALITY_SCOPE_GROUP && g->level == 1);
  ASSERT(g->num_aliases == 1 && g->aliases[0] == root);
  ASSERT(g->num_nodes == 2 && g->node_id == -1 && g->global_index == 0);
  ASSERT(units_are(g, 4, (int[]){2, 3, 4, 5}) == 0);
  ASSERT(find(root, ".2.0")->scope == DART_LOCALITY_SCOPE_NUMA);
  ASSERT(units_are(find(root, ".2.1.1"), 1, (int[]){5}) == 0);
  ASSERT(find(root, ".0.0.1") == NULL && find(root, ".1.0.0") == NULL);
  ASSERT(units_are(root, 8, (int[]){0, 1, 6, 7, 2, 3, 4, 5}) == 0);
  ASSERT(units_are(find(root, ".0"), 2, (int[]){0, 1}) == 0);

  const char *inside[] = {".0.0.0.0", ".0.0.0.1"};
  ASSERT(dart_domain_group(root, 2, inside, tag) == DART_OK);
  ASSERT(strcmp(tag, ".0.0.0.2") == 0 && check_tree(root, root) == 0);
  g = find(root, tag);
  ASSERT(g->num_nodes == 1 && g->node_id == 0 && g->global_index == 1);
  ASSERT(units_are(g, 2, (int[]){0, 1}) == 0);

  const char *overlap[] = {".1", ".1.0"};
  ASSERT(dart_domain_group(root, 2, overlap, tag) == DART_ERR_INVAL);
  const char *unknown[] = {".7"};
  ASSERT(dart_domain_group(root, 1, unknown, tag) == DART_ERR_NOTFOUND);
  const char *self[] = {"."};
  ASSERT(dart_domain_group(root, 1, self, tag) == DART_ERR_INVAL);
  ASSERT(dart_domain_group(root, 0, self, tag) == DART_ERR_INVAL);
  ASSERT(dart_domain_group(root, 1, self, NULL) == DART_ERR_INVAL);
  ASSERT(root->num_units == 8);
  return 0;
}

/* A caller-made CORE domain holding one unit. */
static dart_domain_locality_t *new_leaf(int unit)
{
  dart_domain_locality_t *d = NULL;
  if (dart_domain_create(&d) != DART_OK) {
    return NULL;
  }
  d->scope = DART_LOCALITY_SCOPE_CORE;
  d->num_units = 1;
  d->unit_ids = malloc(sizeof *d->unit_ids);
  d->unit_ids[0].id = unit;
  return d;
}

static int test_add_move(dart_domain_locality_t *root)
{
  dart_domain_locality_t *extra = new_leaf(99);
  ASSERT(extra != NULL);
  dart_domain_locality_t *numa = find(root, ".0.0.0");
  ASSERT(dart_domain_add_subdomain(numa, extra, 0) == DART_OK);
  ASSERT(check_tree(root, root) == 0);
  ASSERT(strcmp(extra->domain_tag, ".0.0.0.2") == 0);
  ASSERT(extra->relative_index == 0 && extra->level == 4 && extra->team == 7);
  ASSERT(units_are(numa, 3, (int[]){99, 0, 1}) == 0 && root->num_units == 9);

  dart_domain_locality_t *dup = new_leaf(5);
  ASSERT(dup != NULL);
  ASSERT(dart_domain_add_subdomain(numa, dup, -1) == DART_ERR_INVAL);
  dup->unit_ids[0].id = 100;
  ASSERT(dart_domain_add_subdomain(numa, dup, 4) == DART_ERR_INVAL);
  ASSERT(dart_domain_add_subdomain(numa, extra, -1) == DART_ERR_INVAL);
  ASSERT(dart_domain_add_subdomain(NULL, dup, 0) == DART_ERR_INVAL);
  ASSERT(dart_domain_add_subdomain(numa, dup, -1) == DART_OK);
  ASSERT(numa->children[3] == dup && strcmp(dup->domain_tag, ".0.0.0.3") == 0);

  dart_domain_locality_t *core6 = find(root, ".1.0.1.0");
  ASSERT(dart_domain_move_subdomain(core6, numa, 1) == DART_OK);
  ASSERT(check_tree(root, root) == 0);
  ASSERT(strcmp(core6->domain_tag, ".0.0.0.4") == 0 && numa->children[1] ==
         core6);
  ASSERT(units_are(find(root, ".1"), 3, (int[]){4, 5, 7}) == 0);
  ASSERT(units_are(numa, 5, (int[]){99, 6, 0, 1, 100}) == 0);
  ASSERT(find(root, ".0")->num_units == 7 && root->num_units == 10);
  /* A whole node below one of its own NUMA domains is a cycle. */
  ASSERT(dart_domain_move_subdomain(find(root, ".0"), numa, 0) ==
         DART_ERR_INVAL);
  ASSERT(dart_domain_move_subdomain(root, numa, 0) == DART_ERR_INVAL);
  ASSERT(dart_domain_move_subdomain(core6, numa, 9) == DART_ERR_INVAL);
  ASSERT(dart_domain_move_subdomain(core6, NULL, 0) == DART_ERR_INVAL);
  tag_t leaf[MAX_UNITS];
  dart_domain_locality_t *other = build(1, 1, 0, NULL, leaf);
  ASSERT(dart_domain_move_subdomain(core6, other, 0) == DART_ERR_INVAL);
  /* A node moves whole, with its subtree retagged below the new parent. */
  ASSERT(dart_domain_move_subdomain(find(root, ".1.0"), find(root, ".0"), -1)
         == DART_OK);
  ASSERT(check_tree(root, root) == 0);
  ASSERT(find(root, ".0.1.1.1") != NULL && find(root, ".1")->num_units == 0);
  ASSERT(find(root, ".0.1.1.1")->level == 4);
  dart_domain_destroy(other);
  return 0;
}

/* A few MB of domain-sized blocks (test_heap_churn): a stale parent then
 * reads as a huge child count and a wild children pointer. */
enum { CHURN_BLOCKS = 32768 }; /* about 6 MB of domains */
static void **heap_churn(void)
{
  return test_heap_churn(CHURN_BLOCKS, sizeof(dart_domain_locality_t));
}

static void heap_release(void **blocks)
{
  test_heap_release(blocks, CHURN_BLOCKS);
}

static dart_domain_locality_t *clone_of(const dart_domain_locality_t *root,
                                        const char *tag)
{
  dart_domain_locality_t *copy = NULL;
  ASSERT_OK(dart_domain_clone(find(root, tag), &copy));
  ASSERT(copy->parent == find(root, tag)->parent);
  return copy;
}

/* Copies of a subdomain (clone, assign, split parts) keep the source's
 * parent pointer; once the source tree is freed, as dart_team_destroy
 * frees a team's, every reshaping call on the copies must still work and
 * must not read that pointer. */
static void copy_outlives_source(void)
{
  tag_t leaf[MAX_UNITS];
  dart_domain_locality_t *root = build(2, 4, 2, NULL, leaf);
  ASSERT(root != NULL);
  dart_domain_locality_t *c[5];
  for (int i = 0; i < 5; ++i) {
    c[i] = clone_of(root, ".1");
  }
  dart_domain_locality_t *assigned = NULL;
  ASSERT_OK(dart_domain_create(&assigned));
  ASSERT_OK(dart_domain_assign(assigned, find(root, ".1.0")));
  ASSERT(assigned->parent == find(root, ".1"));
  dart_domain_locality_t parts[2];
  ASSERT_OK(dart_domain_split_scope(find(root, ".1"),
                                    DART_LOCALITY_SCOPE_NUMA, 2, parts));
  ASSERT(parts[0].parent == root && parts[1].parent == root);
  dart_domain_destroy(root);
  void **blocks = heap_churn();

  STAGE("exclude on a clone");
  const char *numa0[] = {".1.0.0"};
  ASSERT_OK(dart_domain_exclude(c[0], 1, numa0));
  ASSERT(units_are(c[0], 2, (int[]){6, 7}) == 0 && check_tree(c[0], c[0]) == 0);
  STAGE("select on a clone");
  const char *core7[] = {".1.0.1.1"};
  ASSERT_OK(dart_domain_select(c[1], 1, core7));
  ASSERT(units_are(c[1], 1, (int[]){7}) == 0 && check_tree(c[1], c[1]) == 0);
  STAGE("group on a clone");
  const char *cousins[] = {".1.0.0.0", ".1.0.1.1"};
  tag_t tag;
  ASSERT_OK(dart_domain_group(c[2], 2, cousins, tag));
  ASSERT_EQ(strcmp(tag, ".1.0.2"), 0);
  ASSERT(units_are(c[2], 4, (int[]){5, 6, 4, 7}) == 0);
  ASSERT(check_tree(c[2], c[2]) == 0);
  STAGE("add_subdomain on a clone");
  dart_domain_locality_t *extra = new_leaf(99);
  ASSERT(extra != NULL);
  ASSERT_OK(dart_domain_add_subdomain(c[3], extra, -1));
  ASSERT_EQ(strcmp(extra->domain_tag, ".1.1"), 0);
  ASSERT(units_are(c[3], 5, (int[]){4, 5, 6, 7, 99}) == 0);
  ASSERT(check_tree(c[3], c[3]) == 0);
  STAGE("move_subdomain within a clone");
  ASSERT_OK(dart_domain_move_subdomain(find(c[4], ".1.0.1.0"),
                                       find(c[4], ".1.0.0"), -1));
  ASSERT(units_are(find(c[4], ".1.0.0"), 3, (int[]){4, 5, 6}) == 0);
  ASSERT(units_are(c[4], 4, (int[]){4, 5, 6, 7}) == 0);
  ASSERT(check_tree(c[4], c[4]) == 0);
  ASSERT_RET(dart_domain_move_subdomain(c[4], find(c[4], ".1.0"), -1),
             DART_ERR_INVAL);
  STAGE("exclude on an assigned copy");
  const char *numa1[] = {".1.0.1"};
  ASSERT_OK(dart_domain_exclude(assigned, 1, numa1));
  ASSERT(units_are(assigned, 2, (int[]){4, 5}) == 0);
  STAGE("select and exclude on split parts");
  const char *core5[] = {".1.0.0.1"};
  ASSERT_OK(dart_domain_exclude(&parts[0], 1, core5));
  ASSERT(units_are(&parts[0], 1, (int[]){4}) == 0);
  const char *core6[] = {".1.0.1.0"};
  ASSERT_OK(dart_domain_select(&parts[1], 1, core6));
  ASSERT(units_are(&parts[1], 1, (int[]){6}) == 0);
  ASSERT(check_tree(&parts[1], &parts[1]) == 0);

  heap_release(blocks);
  for (int i = 0; i < 5; ++i) {
    dart_domain_destroy(c[i]);
  }
  dart_domain_destroy(assigned);
  domain_release(&parts[0]);
  domain_release(&parts[1]);
}

/* A clone added back below the parent it was copied from is an ordinary
 * child: changes inside it reach the top of the tree. */
static void clone_added_back(void)
{
  tag_t leaf[MAX_UNITS];
  dart_domain_locality_t *root = build(2, 4, 2, NULL, leaf);
  ASSERT(root != NULL);
  dart_domain_locality_t *copy = clone_of(root, ".1");
  const char *node1[] = {".1"};
  ASSERT_OK(dart_domain_exclude(root, 1, node1));
  ASSERT_OK(dart_domain_add_subdomain(root, copy, -1));
  ASSERT(copy->parent == root && strcmp(copy->domain_tag, ".1") == 0);
  const char *numa[] = {".1.0.0"};
  ASSERT_OK(dart_domain_exclude(copy, 1, numa));
  ASSERT(units_are(root, 6, (int[]){0, 1, 2, 3, 6, 7}) == 0);
  ASSERT(check_tree(root, root) == 0);
  dart_domain_destroy(root);
}

/* select and exclude that remove nothing leave a unit's leaf (whose units
 * are its own) and its ancestors as they were. */
static void reshape_leaf(void)
{
  tag_t leaf[MAX_UNITS];
  dart_domain_locality_t *root = build(2, 4, 2, NULL, leaf);
  ASSERT(root != NULL);
  dart_domain_locality_t *l5 = find(root, leaf[5]);
  const int all[] = {0, 1, 2, 3, 4, 5, 6, 7};
  STAGE("exclude nothing from a leaf");
  ASSERT_OK(dart_domain_exclude(l5, 0, NULL));
  ASSERT(units_are(l5, 1, (int[]){5}) == 0 && l5->num_cores == 1);
  ASSERT(units_are(root, 8, all) == 0 && check_tree(root, root) == 0);
  STAGE("select nothing or itself in a leaf");
  ASSERT_OK(dart_domain_select(l5, 0, NULL));
  const char *self[] = {leaf[5]};
  ASSERT_OK(dart_domain_select(l5, 1, self));
  ASSERT(units_are(l5, 1, (int[]){5}) == 0);
  ASSERT(units_are(find(root, ".1"), 4, (int[]){4, 5, 6, 7}) == 0);
  ASSERT_RET(dart_domain_exclude(l5, 1, self), DART_ERR_INVAL);
  ASSERT(units_are(root, 8, all) == 0 && check_tree(root, root) == 0);
  STAGE("exclude nothing from an inner domain");
  ASSERT_OK(dart_domain_exclude(find(root, ".0.0.1"), 0, NULL));
  ASSERT(units_are(find(root, ".0.0.1"), 2, (int[]){2, 3}) == 0);
  STAGE("an inner domain that loses all children has no units");
  const char *cores[] = {".0.0.1.0", ".0.0.1.1"};
  ASSERT_OK(dart_domain_exclude(find(root, ".0.0.1"), 2, cores));
  dart_domain_locality_t *numa = find(root, ".0.0.1");
  ASSERT(numa->num_domains == 0 && numa->num_units == 0 &&
         numa->unit_ids == NULL);
  ASSERT(units_are(root, 6, (int[]){0, 1, 4, 5, 6, 7}) == 0);
  dart_domain_destroy(root);
}

/* A unit's leaf cannot become a parent (dart_locality.h): add and move
 * refuse it and leave the tree as it was; a domain without units may. */
static void leaf_as_parent(void)
{
  tag_t leaf[MAX_UNITS];
  dart_domain_locality_t *root = build(2, 4, 2, NULL, leaf);
  ASSERT(root != NULL);
  const int all[] = {0, 1, 2, 3, 4, 5, 6, 7};
  dart_domain_locality_t *l0 = find(root, leaf[0]), *l1 = find(root, leaf[1]);
  STAGE("add below a leaf");
  dart_domain_locality_t *extra = new_leaf(99);
  ASSERT(extra != NULL);
  ASSERT_RET(dart_domain_add_subdomain(l0, extra, -1), DART_ERR_INVAL);
  ASSERT(l0->num_domains == 0 && units_are(l0, 1, (int[]){0}) == 0);
  ASSERT(extra->parent == NULL && strcmp(extra->domain_tag, "") == 0);
  ASSERT(units_are(root, 8, all) == 0 && check_tree(root, root) == 0);
  STAGE("move below a leaf");
  ASSERT_RET(dart_domain_move_subdomain(l1, l0, -1), DART_ERR_INVAL);
  ASSERT(find(root, leaf[1]) == l1 && l0->num_domains == 0);
  ASSERT(units_are(find(root, ".0.0.0"), 2, (int[]){0, 1}) == 0);
  ASSERT(units_are(root, 8, all) == 0 && check_tree(root, root) == 0);
  STAGE("move into an emptied domain");
  const char *cores[] = {".0.0.1.0", ".0.0.1.1"};
  ASSERT_OK(dart_domain_exclude(root, 2, cores));
  dart_domain_locality_t *numa = find(root, ".0.0.1");
  ASSERT_OK(dart_domain_move_subdomain(find(root, leaf[4]), numa, -1));
  ASSERT(units_are(numa, 1, (int[]){4}) == 0);
  ASSERT(units_are(root, 6, (int[]){0, 1, 4, 5, 6, 7}) == 0);
  ASSERT(check_tree(root, root) == 0);
  STAGE("add below a created domain");
  dart_domain_locality_t *top = NULL;
  ASSERT_OK(dart_domain_create(&top));
  ASSERT_OK(dart_domain_add_subdomain(top, extra, -1));
  ASSERT(units_are(top, 1, (int[]){99}) == 0);
  dart_domain_destroy(top);
  dart_domain_destroy(root);
}

/* Scope queries zero their count on every failure, NULL lists included. */
static void scope_outputs_on_failure(void)
{
  tag_t leaf[MAX_UNITS];
  dart_domain_locality_t *root = build(2, 2, 0, NULL, leaf);
  ASSERT(root != NULL);
  int n = 7;
  ASSERT_RET(dart_domain_scope_tags(root, DART_LOCALITY_SCOPE_NODE, &n, NULL),
             DART_ERR_INVAL);
  ASSERT_EQ(n, 0);
  n = 7;
  ASSERT_RET(dart_domain_scope_domains(root, DART_LOCALITY_SCOPE_NODE, &n,
                                       NULL), DART_ERR_INVAL);
  ASSERT_EQ(n, 0);
  dart_domain_locality_t **ds = (dart_domain_locality_t **)&ds;
  ASSERT_RET(dart_domain_scope_domains(root, DART_LOCALITY_SCOPE_NODE, NULL,
                                       &ds), DART_ERR_INVAL);
  ASSERT(ds == NULL);
  char **tags = (char **)&tags;
  ASSERT_RET(dart_domain_scope_tags(root, DART_LOCALITY_SCOPE_NODE, NULL,
                                    &tags), DART_ERR_INVAL);
  ASSERT(tags == NULL);
  dart_domain_destroy(root);
}

/* Runs `test` on a new tree of 2 nodes x 4 units x 2 NUMA domains, then
 * checks the invariants of what it left. */
static int on_fresh_tree(int (*test)(dart_domain_locality_t *))
{
  tag_t leaf[MAX_UNITS];
  dart_domain_locality_t *root = build(2, 4, 2, NULL, leaf);
  ASSERT(root != NULL);
  ASSERT(test(root) == 0);
  ASSERT(check_tree(root, root) == 0);
  dart_domain_destroy(root);
  return 0;
}

static void one_node(void) { ASSERT(test_one_node() == 0); }
static void nodes_and_scopes(void) { ASSERT(test_nodes_and_scopes() == 0); }
static void create_clone_find(void) { ASSERT(test_create_clone_find() == 0); }
static void select_exclude(void)
{
  ASSERT(on_fresh_tree(test_select_exclude) == 0);
}
static void tag_components(void) { ASSERT(test_tag_components() == 0); }
static void split(void) { ASSERT(on_fresh_tree(test_split) == 0); }
static void group(void) { ASSERT(on_fresh_tree(test_group) == 0); }
static void add_move(void) { ASSERT(on_fresh_tree(test_add_move) == 0); }

static const struct test_case cases[] = {
  { "one_node", one_node },
  { "nodes_and_scopes", nodes_and_scopes },
  { "create_clone_find", create_clone_find },
  { "select_exclude", select_exclude },
  { "tag_components", tag_components },
  { "split", split },
  { "group", group },
  { "add_move", add_move },
  { "copy_outlives_source", copy_outlives_source },
  { "clone_added_back", clone_added_back },
  { "reshape_leaf", reshape_leaf },
  { "leaf_as_parent", leaf_as_parent },
  { "scope_outputs_on_failure", scope_outputs_on_failure },
};

int main(int argc, char **argv)
{
  return test_run(argc, argv, TEST_CASES(cases));
}
