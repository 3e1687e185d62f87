/* The locality API under MPI: DART_TEAM_ALL's hierarchy against the node
 * split MPI reports (test_nodes.h), unit locality of every unit, group
 * locality splits, sub-team locality and bad input. */
#include "test.h"
#include "test_cluster.h"
#include "test_nodes.h"

#include <dash/dart/if/dart_locality.h>

#include <stdlib.h>
#include <string.h>

struct layout {
  int  n;
  int  nodes;
  int *node_of; /* global unit -> node, numbered by first appearance */
};

static struct layout layout_get(int n)
{
  long long *keys = test_node_keys(n);
  struct layout l = { n, 0, malloc((size_t)n * sizeof(int)) };
  ASSERT(l.node_of != NULL);
  for (int u = 0; u < n; ++u) {
    l.node_of[u] = -1;
    for (int v = 0; v < u && l.node_of[u] < 0; ++v) {
      if (keys[v] == keys[u]) {
        l.node_of[u] = l.node_of[v];
      }
    }
    if (l.node_of[u] < 0) {
      l.node_of[u] = l.nodes++;
    }
  }
  free(keys);
  return l;
}

static dart_domain_locality_t *domain_of(dart_team_t team, const char *tag)
{
  dart_domain_locality_t *d = NULL;
  ASSERT_OK(dart_domain_team_locality(team, tag, &d));
  ASSERT(d != NULL && strcmp(d->domain_tag, tag) == 0);
  return d;
}

/* The node domain above a leaf, walking parents as DASH does. */
static dart_domain_locality_t *node_above(dart_domain_locality_t *d)
{
  while (d->scope > DART_LOCALITY_SCOPE_NODE) {
    d = d->parent;
    ASSERT(d != NULL);
  }
  ASSERT_EQ(d->scope, DART_LOCALITY_SCOPE_NODE);
  return d;
}

static void check_units_of_node(const dart_domain_locality_t *node,
                                const struct layout *l, int k)
{
  int at = 0;
  for (int u = 0; u < l->n; ++u) {
    if (l->node_of[u] == k) {
      ASSERT(at < node->num_units);
      ASSERT_EQ(node->unit_ids[at++].id, u);
    }
  }
  ASSERT_EQ(node->num_units, at);
}

static void check_team_all(const struct layout *l)
{
  dart_domain_locality_t *root = domain_of(DART_TEAM_ALL, ".");
  ASSERT_EQ(root->scope, DART_LOCALITY_SCOPE_GLOBAL);
  ASSERT_EQ(root->level, 0);
  ASSERT(root->parent == NULL);
  ASSERT_EQ(root->team, DART_TEAM_ALL);
  ASSERT_EQ(root->num_units, l->n);
  ASSERT_EQ(root->num_nodes, l->nodes);
  ASSERT_EQ(root->node_id, l->nodes == 1 ? 0 : -1);
  ASSERT_EQ(root->num_domains, l->nodes);
  /* Symmetric: every node holds as many units as the first. */
  int first_node_units = 0, symmetric = 1;
  for (int u = 0; u < l->n; ++u) {
    first_node_units += l->node_of[u] == 0;
  }
  for (int k = 1; k < l->nodes; ++k) {
    int units = 0;
    for (int u = 0; u < l->n; ++u) {
      units += l->node_of[u] == k;
    }
    symmetric = symmetric && units == first_node_units;
  }
  ASSERT_EQ(root->is_symmetric != 0, symmetric);
  for (int k = 0; k < l->nodes; ++k) {
    char tag[16];
    snprintf(tag, sizeof tag, ".%d", k);
    dart_domain_locality_t *node = domain_of(DART_TEAM_ALL, tag);
    ASSERT(root->children[k] == node);
    ASSERT_EQ(node->node_id, k);
    ASSERT_EQ(node->num_nodes, 1);
    ASSERT_EQ(node->level, 1);
    check_units_of_node(node, l, k);
    /* Simulated nodes carry different host names. */
    for (int j = 0; j < k; ++j) {
      ASSERT(strcmp(root->children[j]->host, node->host) != 0);
    }
    snprintf(tag, sizeof tag, ".%d.0", k);
    dart_domain_locality_t *module = domain_of(DART_TEAM_ALL, tag);
    ASSERT_EQ(module->scope, DART_LOCALITY_SCOPE_MODULE);
    ASSERT_EQ(module->num_units, node->num_units);
  }
  for (int u = 0; u < l->n; ++u) {
    dart_unit_locality_t *loc = NULL;
    ASSERT_OK(dart_unit_locality(DART_TEAM_ALL, DART_TEAM_UNIT_ID(u), &loc));
    ASSERT_EQ(loc->unit.id, u);
    ASSERT_EQ(loc->team, DART_TEAM_ALL);
    dart_domain_locality_t *leaf = domain_of(DART_TEAM_ALL, loc->domain_tag);
    ASSERT_EQ(leaf->num_units, 1);
    ASSERT_EQ(leaf->unit_ids[0].id, u);
    ASSERT_EQ(leaf->num_domains, 0);
    ASSERT(leaf->level > 2);
    ASSERT_EQ(leaf->scope, DART_LOCALITY_SCOPE_CORE);
    dart_domain_locality_t *node = node_above(leaf);
    ASSERT_EQ(node->relative_index, l->node_of[u]);
    ASSERT(strcmp(loc->hwinfo.host, node->host) == 0);
    ASSERT(strcmp(leaf->host, node->host) == 0);
  }
  int count = 0;
  char **tags = NULL;
  ASSERT_OK(dart_domain_scope_tags(root, DART_LOCALITY_SCOPE_NODE, &count,
                                   &tags));
  ASSERT_EQ(count, l->nodes);
  for (int k = 0; k < count; ++k) {
    ASSERT_EQ(strcmp(tags[k], root->children[k]->domain_tag), 0);
    free(tags[k]);
  }
  free(tags);
  dart_domain_locality_t **leaves = NULL;
  ASSERT_OK(dart_domain_scope_domains(root, DART_LOCALITY_SCOPE_CORE, &count,
                                      &leaves));
  ASSERT_EQ(count, l->n);
  free(leaves);
}

/* Across the virtual cluster: the node domains are the real hosts the run
 * was launched on (test_cluster.h), in order, with their host names and
 * units; DART_UNITS_PER_NODE cuts each host's units into nodes of p, whose
 * host names start with the real one ("<host>-n<node>" where a host holds
 * several). MPI's split (the layout) agrees. */
static void check_cluster(const struct layout *l, int me)
{
  struct test_cluster c;
  if (test_cluster_get(&c) == 0) {
    return;
  }
  test_cluster_check_self(&c, me, l->n);
  const char *per_node = getenv("DART_UNITS_PER_NODE");
  int p = per_node != NULL ? atoi(per_node) : 0;
  dart_domain_locality_t *root = domain_of(DART_TEAM_ALL, ".");
  int k = 0, first = 0;
  for (int h = 0; h < c.hosts; ++h) {
    size_t len = strlen(c.name[h]);
    for (int left = c.units[h]; left > 0; ++k) {
      int here = p > 0 && p < left ? p : left;
      ASSERT(k < root->num_domains);
      dart_domain_locality_t *node = root->children[k];
      ASSERT_EQ(node->scope, DART_LOCALITY_SCOPE_NODE);
      ASSERT_EQ(node->num_units, here);
      for (int i = 0; i < here; ++i) {
        ASSERT_EQ(node->unit_ids[i].id, first + i);
        ASSERT_EQ(l->node_of[first + i], k);
        dart_unit_locality_t *loc = NULL;
        ASSERT_OK(dart_unit_locality(DART_TEAM_ALL,
                                     DART_TEAM_UNIT_ID(first + i), &loc));
        ASSERT(strcmp(loc->hwinfo.host, node->host) == 0);
      }
      if (here == c.units[h]) {
        ASSERT(strcmp(node->host, c.name[h]) == 0);
      } else {
        ASSERT(strncmp(node->host, c.name[h], len) == 0 &&
               node->host[len] == '-');
      }
      first += here;
      left -= here;
    }
  }
  ASSERT_EQ(first, l->n);
  ASSERT_EQ(k, l->nodes);
  ASSERT_EQ(root->num_nodes, k);
  ASSERT_EQ(root->num_domains, k);
}

static void check_split(const struct layout *l)
{
  dart_domain_locality_t *root = domain_of(DART_TEAM_ALL, ".");
  dart_group_t all = DART_GROUP_NULL, odd = DART_GROUP_NULL;
  ASSERT_OK(dart_team_get_group(DART_TEAM_ALL, &all));
  ASSERT_OK(dart_group_create(&odd));
  for (int u = 1; u < l->n; u += 2) {
    ASSERT_OK(dart_group_addmember(odd, DART_GLOBAL_UNIT_ID(u)));
  }
  dart_group_t parts[8];
  size_t nout = 0;
  ASSERT_OK(dart_group_locality_split(all, root, DART_LOCALITY_SCOPE_NODE, 8,
                                      &nout, parts));
  ASSERT_EQ(nout, l->nodes);
  for (size_t k = 0; k < nout; ++k) {
    size_t size = 0;
    ASSERT_OK(dart_group_size(parts[k], &size));
    dart_global_unit_t ids[8];
    ASSERT_OK(dart_group_getmembers(parts[k], ids));
    size_t at = 0;
    for (int u = 0; u < l->n; ++u) {
      if (l->node_of[u] == (int)k) {
        ASSERT(at < size);
        ASSERT_EQ(ids[at++].id, u);
      }
    }
    ASSERT_EQ(size, at);
    ASSERT_OK(dart_group_destroy(&parts[k]));
  }
  /* One group asked for: everything in it. */
  ASSERT_OK(dart_group_locality_split(all, root, DART_LOCALITY_SCOPE_CORE, 1,
                                      &nout, parts));
  ASSERT_EQ(nout, 1);
  size_t size = 0;
  ASSERT_OK(dart_group_size(parts[0], &size));
  ASSERT_EQ(size, l->n);
  ASSERT_OK(dart_group_destroy(&parts[0]));
  /* Fewer groups than leaves: consecutive chunks of ceil(leaves / 2). */
  ASSERT_OK(dart_group_locality_split(all, root, DART_LOCALITY_SCOPE_CORE, 2,
                                      &nout, parts));
  ASSERT_EQ(nout, l->n == 1 ? 1 : 2);
  for (size_t k = 0; k < nout; ++k) {
    size_t half = (size_t)(l->n + 1) / 2;
    ASSERT_OK(dart_group_size(parts[k], &size));
    ASSERT_EQ(size, k == 0 ? half : (size_t)l->n - half);
    ASSERT_OK(dart_group_destroy(&parts[k]));
  }
  /* Per unit leaf, only the odd units: empty groups for the even ones. */
  ASSERT_OK(dart_group_locality_split(odd, root, DART_LOCALITY_SCOPE_CORE, 8,
                                      &nout, parts));
  ASSERT_EQ(nout, l->n);
  dart_domain_locality_t **leaves = NULL;
  int count = 0;
  ASSERT_OK(dart_domain_scope_domains(root, DART_LOCALITY_SCOPE_CORE, &count,
                                      &leaves));
  for (size_t k = 0; k < nout; ++k) {
    ASSERT_OK(dart_group_size(parts[k], &size));
    ASSERT_EQ(size, leaves[k]->unit_ids[0].id % 2);
    ASSERT_OK(dart_group_destroy(&parts[k]));
  }
  free(leaves);
  ASSERT_RET(dart_group_locality_split(all, root, DART_LOCALITY_SCOPE_NETWORK,
                                       2, &nout, parts), DART_ERR_NOTFOUND);
  ASSERT_RET(dart_group_locality_split(all, root, (dart_locality_scope_t)42, 2,
                                       &nout, parts), DART_ERR_INVAL);
  ASSERT_RET(dart_group_locality_split(all, root, DART_LOCALITY_SCOPE_NODE, 0,
                                       &nout, parts), DART_ERR_INVAL);
  ASSERT_RET(dart_group_locality_split(NULL, root, DART_LOCALITY_SCOPE_NODE, 2,
                                       &nout, parts), DART_ERR_INVAL);
  ASSERT_RET(dart_group_locality_split(all, NULL, DART_LOCALITY_SCOPE_NODE, 2,
                                       &nout, parts), DART_ERR_INVAL);
  ASSERT_OK(dart_group_destroy(&all));
  ASSERT_OK(dart_group_destroy(&odd));
}

static void check_subteam(const struct layout *l, int me)
{
  dart_team_t sub = test_subteam_create(l->n);
  if (sub == DART_TEAM_NULL) {
    return;
  }
  dart_domain_locality_t *d = NULL;
  /* Sub-teams need dart_team_locality_init (dart_locality.h). */
  ASSERT_RET(dart_domain_team_locality(sub, ".", &d), DART_ERR_INVAL);
  ASSERT_OK(dart_team_locality_init(sub));
  dart_domain_locality_t *root = domain_of(sub, ".");
  size_t size = 0;
  ASSERT_OK(dart_team_size(sub, &size));
  ASSERT_EQ(root->num_units, size);
  ASSERT_EQ(root->team, sub);
  int nodes_seen[8] = {0}, nodes = 0;
  for (size_t i = 0; i < size; ++i) {
    dart_unit_locality_t *loc = NULL;
    ASSERT_OK(dart_unit_locality(sub, DART_TEAM_UNIT_ID((int)i), &loc));
    ASSERT_EQ(loc->unit.id, i);
    ASSERT_EQ(loc->team, sub);
    dart_global_unit_t global;
    ASSERT_OK(dart_team_unit_l2g(sub, DART_TEAM_UNIT_ID((int)i), &global));
    dart_domain_locality_t *leaf = domain_of(sub, loc->domain_tag);
    ASSERT_EQ(leaf->unit_ids[0].id, global.id);
    ASSERT_EQ(leaf->team, sub);
    int node = l->node_of[global.id];
    if (!nodes_seen[node]) {
      nodes_seen[node] = 1;
      ++nodes;
    }
    /* Sub-team nodes are numbered again from 0. */
    ASSERT(node_above(leaf)->relative_index < nodes);
  }
  ASSERT_EQ(root->num_nodes, nodes);
  ASSERT_RET(dart_team_locality_init(sub), DART_OK);
  ASSERT_OK(dart_team_locality_finalize(sub));
  ASSERT_RET(dart_domain_team_locality(sub, ".", &d), DART_ERR_INVAL);
  dart_unit_locality_t *loc = NULL;
  ASSERT_RET(dart_unit_locality(sub, DART_TEAM_UNIT_ID(0), &loc),
             DART_ERR_INVAL);
  /* Destroying a team with locality data frees it (leak check in asan). */
  ASSERT_OK(dart_team_locality_init(sub));
  (void)me;
  ASSERT_OK(dart_team_destroy(&sub));
}

static void check_bad_input(int n)
{
  dart_unit_locality_t *loc = (dart_unit_locality_t *)&loc;
  ASSERT_RET(dart_unit_locality(DART_TEAM_ALL, DART_TEAM_UNIT_ID(n), &loc),
             DART_ERR_INVAL);
  ASSERT(loc == NULL);
  ASSERT_RET(dart_unit_locality(DART_TEAM_ALL, DART_TEAM_UNIT_ID(-1), &loc),
             DART_ERR_INVAL);
  ASSERT_RET(dart_unit_locality(999, DART_TEAM_UNIT_ID(0), &loc),
             DART_ERR_INVAL);
  ASSERT_RET(dart_unit_locality(DART_TEAM_ALL, DART_TEAM_UNIT_ID(0), NULL),
             DART_ERR_INVAL);
  dart_domain_locality_t *d = (dart_domain_locality_t *)&d;
  ASSERT_RET(dart_domain_team_locality(DART_TEAM_ALL, ".99", &d),
             DART_ERR_NOTFOUND);
  ASSERT(d == NULL);
  ASSERT_RET(dart_domain_team_locality(DART_TEAM_ALL, "", &d),
             DART_ERR_NOTFOUND);
  ASSERT_RET(dart_domain_team_locality(DART_TEAM_ALL, NULL, &d),
             DART_ERR_INVAL);
  ASSERT_RET(dart_domain_team_locality(DART_TEAM_ALL, ".", NULL),
             DART_ERR_INVAL);
  ASSERT_RET(dart_domain_team_locality(999, ".", &d), DART_ERR_INVAL);
  ASSERT_RET(dart_team_locality_init(999), DART_ERR_INVAL);
  ASSERT_RET(dart_team_locality_finalize(999), DART_ERR_INVAL);
  int count = 0;
  char **tags = NULL;
  dart_domain_locality_t *root = domain_of(DART_TEAM_ALL, ".");
  ASSERT_RET(dart_domain_scope_tags(root, (dart_locality_scope_t)-7, &count,
                                    &tags), DART_ERR_INVAL);
}

/* A caller-owned clone of a team's domain keeps a parent pointer into the
 * team's tree, which dart_team_destroy frees. Reshaping the clone later
 * must not read it: the freed tree's memory is reused first (domain-sized
 * blocks of 0x41, so a stale read crashes or is reported by ASan). */
static void clone_outlives_team(void)
{
  dart_team_t team = DART_TEAM_NULL;
  ASSERT_OK(dart_team_clone(DART_TEAM_ALL, &team));
  ASSERT_OK(dart_team_locality_init(team));
  dart_domain_locality_t *copy = NULL;
  ASSERT_OK(dart_domain_clone(domain_of(team, ".0"), &copy));
  /* Team unit 0 is global unit 0, on the first node. */
  dart_unit_locality_t *loc = NULL;
  ASSERT_OK(dart_unit_locality(team, DART_TEAM_UNIT_ID(0), &loc));
  char leaf0[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
  memcpy(leaf0, loc->domain_tag, sizeof leaf0);
  ASSERT_OK(dart_team_destroy(&team));

  enum { BLOCKS = 32768 }; /* about 6 MB of domains */
  void **blocks = test_heap_churn(BLOCKS, sizeof(dart_domain_locality_t));
  const char *keep[] = {leaf0};
  STAGE("select on the clone");
  ASSERT_OK(dart_domain_select(copy, 1, keep));
  ASSERT_EQ(copy->num_units, 1);
  ASSERT_EQ(copy->unit_ids[0].id, 0);
  STAGE("group on the clone");
  char group[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
  ASSERT_OK(dart_domain_group(copy, 1, keep, group));
  ASSERT_EQ(copy->num_units, 1);
  STAGE("exclude on the clone");
  const char *drop[] = {group};
  ASSERT_OK(dart_domain_exclude(copy, 1, drop));
  ASSERT_EQ(copy->num_units, 0);
  test_heap_release(blocks, BLOCKS);
  ASSERT_OK(dart_domain_destroy(copy));
}

static void locality(void)
{
  dart_global_unit_t me;
  size_t n = 0;
  ASSERT_OK(dart_myid(&me));
  ASSERT_OK(dart_size(&n));
  ASSERT(n <= 8);
  struct layout l = layout_get((int)n);

  /* Available right after dart_init; init on DART_TEAM_ALL is harmless. */
  check_team_all(&l);
  check_cluster(&l, me.id);
  ASSERT_OK(dart_team_locality_init(DART_TEAM_ALL));
  check_team_all(&l);
  check_split(&l);
  check_subteam(&l, me.id);
  check_bad_input((int)n);
  /* DASH finalizes before dart_exit; a later query builds it again. */
  ASSERT_OK(dart_team_locality_finalize(DART_TEAM_ALL));
  ASSERT_OK(dart_team_locality_finalize(DART_TEAM_ALL));
  check_team_all(&l);

  free(l.node_of);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

static const struct test_case cases[] = {
  { "locality", locality },
  { "clone_outlives_team", clone_outlives_team },
};

int main(int argc, char **argv)
{
  return test_run_dart(argc, argv, TEST_CASES(cases));
}
