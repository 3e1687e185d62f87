/* dart_domain_* calls that reshape a domain tree in place
 * (dart_locality.h): select, exclude, split_scope, group, and
 * add/move of subdomains. Unit lists and counts are rebuilt up to the top
 * of the tree (never through a clone's parent pointer, see domain_owner).
 * Tags stay the lookup keys: a domain that moves gets a new tag under its
 * new parent whose last component is unused there, and its subtree is
 * retagged below it; every other tag stays as it was. */
#include "mpi/locality/domain.h"

#include "base/logging.h"

#include <dash/dart/if/dart_locality.h>

#include <stdlib.h>
#include <string.h>

static bool tag_listed(const char *tag, int n, const char **tags)
{
  for (int i = 0; i < n; ++i) {
    if (strcmp(tag, tags[i]) == 0) {
      return true;
    }
  }
  return false;
}

/* true if a listed tag lies strictly below `tag`. */
static bool tag_covers_listed(const char *tag, int n, const char **tags)
{
  for (int i = 0; i < n; ++i) {
    if (strcmp(tag, tags[i]) != 0 && tag_within(tags[i], tag)) {
      return true;
    }
  }
  return false;
}

/* The checks select, exclude and group share: every tag names a domain
 * of d's subtree. */
static dart_ret_t check_tag_list(const char *call,
                                 const dart_domain_locality_t *d, int n,
                                 const char **tags)
{
  if (d == NULL) {
    return report_error(DART_ERR_INVAL, call, "domain_in is NULL");
  }
  if (n < 0 || (n > 0 && tags == NULL)) {
    return report_error(DART_ERR_INVAL, call,
                        "invalid tag list (%d tags, array %p)", n,
                        (const void *)tags);
  }
  for (int i = 0; i < n; ++i) {
    if (tags[i] == NULL) {
      return report_error(DART_ERR_INVAL, call, "tag %d is NULL", i);
    }
    if (domain_lookup(d, tags[i]) == NULL) {
      return report_error(DART_ERR_NOTFOUND, call,
                          "no domain '%.*s' below '%s'", (int)TAG_SIZE,
                          tags[i], d->domain_tag);
    }
  }
  return DART_OK;
}

static void drop(dart_domain_locality_t *d)
{
  domain_release(d);
  free(d);
}

/* Keeps the listed domains (with their subtrees) and their ancestors. */
static dart_ret_t prune_to(dart_domain_locality_t *d, int n,
                           const char **tags)
{
  if (tag_listed(d->domain_tag, n, tags)) {
    return DART_OK;
  }
  dart_ret_t ret = DART_OK;
  int kept = 0;
  for (int i = 0; i < d->num_domains; ++i) {
    dart_domain_locality_t *c = d->children[i];
    if (tag_covers_listed(c->domain_tag, n, tags)) {
      dart_ret_t r = prune_to(c, n, tags);
      ret = ret != DART_OK ? ret : r;
    } else if (!tag_listed(c->domain_tag, n, tags)) {
      drop(c);
      continue;
    }
    d->children[kept++] = c;
  }
  d->num_domains = kept;
  dart_ret_t r = domain_aggregate(d);
  return ret != DART_OK ? ret : r;
}

/* Removes the listed domains with their subtrees. */
static dart_ret_t remove_listed(dart_domain_locality_t *d, int n,
                                const char **tags)
{
  dart_ret_t ret = DART_OK;
  int kept = 0;
  for (int i = 0; i < d->num_domains; ++i) {
    dart_domain_locality_t *c = d->children[i];
    if (tag_listed(c->domain_tag, n, tags)) {
      drop(c);
      continue;
    }
    if (tag_covers_listed(c->domain_tag, n, tags)) {
      dart_ret_t r = remove_listed(c, n, tags);
      ret = ret != DART_OK ? ret : r;
    }
    d->children[kept++] = c;
  }
  d->num_domains = kept;
  dart_ret_t r = domain_aggregate(d);
  return ret != DART_OK ? ret : r;
}

static dart_ret_t nomem_if_failed(const char *call, dart_ret_t ret)
{
  return ret == DART_OK ? ret
                        : report_error(ret, call, "out of memory "
                                       "updating unit lists");
}

/* select and exclude: checks, the change in place, then the ancestors. */
static dart_ret_t reshape(const char *call, dart_domain_locality_t *d, int n,
                          const char **tags,
                          dart_ret_t (*change)(dart_domain_locality_t *, int,
                                               const char **),
                          bool may_name_itself)
{
  dart_ret_t ret = check_tag_list(call, d, n, tags);
  if (ret != DART_OK) {
    return ret;
  }
  if (!may_name_itself && tag_listed(d->domain_tag, n, tags)) {
    return report_error(DART_ERR_INVAL, call,
                        "cannot exclude domain '%s' from itself",
                        d->domain_tag);
  }
  /* Nothing lies below a domain without children, and its units are its
   * own (a unit's leaf): rebuilding them from children would drop them. */
  if (d->num_domains == 0) {
    return DART_OK;
  }
  ret = change(d, n, tags);
  if (ret == DART_OK) {
    ret = domain_update_upwards(domain_owner(d));
  }
  return nomem_if_failed(call, ret);
}

dart_ret_t dart_domain_select(dart_domain_locality_t *domain_in,
                              int num_subdomain_tags,
                              const char **subdomain_tags)
{
  return reshape(__func__, domain_in, num_subdomain_tags, subdomain_tags,
                 prune_to, true);
}

dart_ret_t dart_domain_exclude(dart_domain_locality_t *domain_in,
                               int num_subdomain_tags,
                               const char **subdomain_tags)
{
  return reshape(__func__, domain_in, num_subdomain_tags, subdomain_tags,
                 remove_listed, false);
}

dart_ret_t dart_domain_split_scope(const dart_domain_locality_t *domain_in,
                                   dart_locality_scope_t scope,
                                   int num_parts,
                                   dart_domain_locality_t *split_domain_out)
{
  if (domain_in == NULL || split_domain_out == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "%s is NULL",
                        domain_in == NULL ? "domain_in"
                                          : "split_domain_out");
  }
  if (num_parts < 1) {
    return report_error(DART_ERR_INVAL, __func__, "num_parts %d < 1",
                        num_parts);
  }
  dart_domain_locality_t **found = NULL;
  int count = 0;
  dart_ret_t ret = domain_scope_list(__func__, domain_in, scope, true,
                                     &count, &found);
  if (ret != DART_OK) {
    return ret;
  }
  const char **tags = malloc((size_t)count * sizeof *tags);
  if (tags == NULL) {
    free(found);
    return report_error(DART_ERR_NOMEM, __func__, "out of memory");
  }
  for (int i = 0; i < count; ++i) {
    tags[i] = found[i]->domain_tag;
  }
  /* Parts beyond the last domain come out empty (no children, no units). */
  int chunk = (count + num_parts - 1) / num_parts;
  int p = 0;
  for (; p < num_parts && ret == DART_OK; ++p) {
    int first = p * chunk < count ? p * chunk : count;
    int last = first + chunk < count ? first + chunk : count;
    dart_domain_locality_t *part = &split_domain_out[p];
    ret = domain_copy(part, domain_in);
    if (ret == DART_OK) {
      /* The part keeps domain_in's parent, which may be freed first. */
      ret = domain_mark_copy_root(part, part->parent);
      if (ret == DART_OK) {
        ret = prune_to(part, last - first, tags + first);
      }
      if (ret != DART_OK) {
        domain_release(part);
      }
    }
  }
  if (ret != DART_OK) {
    for (int q = 0; q < p - 1; ++q) {
      domain_release(&split_domain_out[q]);
    }
  }
  free(tags);
  free(found);
  return nomem_if_failed(__func__, ret);
}

/* An unused last tag component for a new child of p (`skip` not
 * counted): one above the largest in use. */
static int next_component(const dart_domain_locality_t *p,
                          const dart_domain_locality_t *skip)
{
  int next = 0;
  for (int i = 0; i < p->num_domains; ++i) {
    int c = tag_last_component(p->children[i]->domain_tag);
    if (p->children[i] != skip && c + 1 > next) {
      next = c + 1;
    }
  }
  return next;
}

/* The tag of child i of a retagged domain: keeps its last component. */
static bool retag_child(char *out, const dart_domain_locality_t *c,
                        const char *parent_tag, int i)
{
  int comp = tag_last_component(c->domain_tag);
  return tag_child(out, parent_tag, comp >= 0 ? comp : i);
}

/* Whether retagging d's subtree to start at `tag` fits every tag. */
static bool retag_fits(const dart_domain_locality_t *d, const char *tag)
{
  for (int i = 0; i < d->num_domains; ++i) {
    char child_tag[TAG_SIZE];
    if (!retag_child(child_tag, d->children[i], tag, i) ||
        !retag_fits(d->children[i], child_tag)) {
      return false;
    }
  }
  return true;
}

static void retag(dart_domain_locality_t *d, const char *tag, int level,
                  dart_team_t team)
{
  memmove(d->domain_tag, tag, strlen(tag) + 1);
  d->level = level;
  d->team  = team;
  for (int i = 0; i < d->num_domains; ++i) {
    char child_tag[TAG_SIZE];
    retag_child(child_tag, d->children[i], tag, i);
    retag(d->children[i], child_tag, level + 1, team);
  }
}

/* Links c as child `pos` of p (negative: last), whose array has room for
 * one more, and retags c's subtree to start at `tag`. */
static void insert_at(dart_domain_locality_t *p, dart_domain_locality_t *c,
                      int pos, const char *tag)
{
  if (pos < 0 || pos > p->num_domains) {
    pos = p->num_domains;
  }
  memmove(&p->children[pos + 1], &p->children[pos],
          (size_t)(p->num_domains - pos) * sizeof *p->children);
  p->children[pos] = c;
  p->num_domains++;
  c->parent = p;
  /* A clone put back below the very parent it was copied from is a
   * child like any other now. */
  domain_forget_copy_root(c);
  retag(c, tag, p->level + 1, p->team);
}

/* Unlinks c from its parent's child array (no aggregation). */
static void detach(dart_domain_locality_t *p, dart_domain_locality_t *c)
{
  int kept = 0;
  for (int i = 0; i < p->num_domains; ++i) {
    if (p->children[i] != c) {
      p->children[kept++] = p->children[i];
    }
  }
  p->num_domains = kept;
}

static bool grow_children(dart_domain_locality_t *p, int extra)
{
  dart_domain_locality_t **grown =
    realloc(p->children, (size_t)(p->num_domains + extra) * sizeof *grown);
  if (grown == NULL) {
    return false;
  }
  p->children = grown;
  return true;
}

/* A domain with units but no children is a unit's leaf: its units are its
 * own, not its children's (dart_domain_locality_s), so it cannot take a
 * child without losing them or breaking that rule. */
static dart_ret_t check_new_parent(const char *call,
                                   const dart_domain_locality_t *p)
{
  if (p->num_domains == 0 && p->num_units > 0 && p->unit_ids != NULL) {
    return report_error(DART_ERR_INVAL, call,
                        "'%s' holds %d unit(s) of its own and no children: "
                        "a leaf cannot become a parent", p->domain_tag,
                        p->num_units);
  }
  return DART_OK;
}

static bool unit_in(const dart_domain_locality_t *d, dart_global_unit_t u)
{
  for (int i = 0; d->unit_ids != NULL && i < d->num_units; ++i) {
    if (d->unit_ids[i].id == u.id) {
      return true;
    }
  }
  return false;
}

/* Checks that c can become child `pos` (negative: last; at most `limit`)
 * of p and makes room for it; `tag` receives its new tag. `skip` is a
 * child of p that is about to leave (moves within one parent). */
static dart_ret_t prepare_insert(const char *call, dart_domain_locality_t *p,
                                 const dart_domain_locality_t *c, int pos,
                                 int limit,
                                 const dart_domain_locality_t *skip,
                                 char *tag)
{
  if (pos > limit) {
    return report_error(DART_ERR_INVAL, call,
                        "position %d beyond the %d children of '%s'", pos,
                        limit, p->domain_tag);
  }
  if (!tag_child(tag, p->domain_tag, next_component(p, skip)) ||
      !retag_fits(c, tag)) {
    return report_error(DART_ERR_INVAL, call,
                        "tags below '%s' would exceed %d characters",
                        p->domain_tag, (int)TAG_SIZE - 1);
  }
  if (!grow_children(p, 1)) {
    return report_error(DART_ERR_NOMEM, call, "out of memory");
  }
  return DART_OK;
}

dart_ret_t dart_domain_add_subdomain(dart_domain_locality_t *domain,
                                     dart_domain_locality_t *subdomain,
                                     int subdomain_rel_id)
{
  if (domain == NULL || subdomain == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "%s is NULL",
                        domain == NULL ? "domain" : "subdomain");
  }
  dart_ret_t ret = check_new_parent(__func__, domain);
  if (ret != DART_OK) {
    return ret;
  }
  dart_domain_locality_t *top = domain_top(domain);
  if (domain_owner(subdomain) != NULL || top == subdomain) {
    return report_error(DART_ERR_INVAL, __func__,
                        "subdomain '%s' already belongs to a hierarchy "
                        "(use dart_domain_move_subdomain)",
                        subdomain->domain_tag);
  }
  for (int i = 0; subdomain->unit_ids != NULL && i < subdomain->num_units;
       ++i) {
    if (unit_in(top, subdomain->unit_ids[i])) {
      return report_error(DART_ERR_INVAL, __func__,
                          "unit %d of the subdomain is already in the "
                          "hierarchy of '%s'",
                          (int)subdomain->unit_ids[i].id, top->domain_tag);
    }
  }
  char tag[TAG_SIZE];
  ret = prepare_insert(__func__, domain, subdomain, subdomain_rel_id,
                       domain->num_domains, NULL, tag);
  if (ret != DART_OK) {
    return ret;
  }
  insert_at(domain, subdomain, subdomain_rel_id, tag);
  return nomem_if_failed(__func__, domain_update_upwards(domain));
}

dart_ret_t dart_domain_move_subdomain(dart_domain_locality_t *domain,
                                      dart_domain_locality_t *new_parent_domain,
                                      int new_domain_rel_id)
{
  if (domain == NULL || new_parent_domain == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "%s is NULL",
                        domain == NULL ? "domain" : "new_parent_domain");
  }
  dart_ret_t ret = check_new_parent(__func__, new_parent_domain);
  if (ret != DART_OK) {
    return ret;
  }
  dart_domain_locality_t *old_parent = domain_owner(domain);
  if (old_parent == NULL) {
    return report_error(DART_ERR_INVAL, __func__,
                        "domain '%s' is not a child in a hierarchy",
                        domain->domain_tag);
  }
  for (dart_domain_locality_t *a = new_parent_domain; a != NULL;
       a = domain_owner(a)) {
    if (a == domain) {
      return report_error(DART_ERR_INVAL, __func__,
                          "cannot move '%s' below itself ('%s')",
                          domain->domain_tag,
                          new_parent_domain->domain_tag);
    }
  }
  if (domain_top(new_parent_domain) != domain_top(domain)) {
    return report_error(DART_ERR_INVAL, __func__,
                        "'%s' and '%s' are in different hierarchies",
                        domain->domain_tag, new_parent_domain->domain_tag);
  }
  int limit = new_parent_domain->num_domains -
              (new_parent_domain == old_parent ? 1 : 0);
  char tag[TAG_SIZE];
  ret = prepare_insert(__func__, new_parent_domain, domain,
                       new_domain_rel_id, limit, domain, tag);
  if (ret != DART_OK) {
    return ret;
  }
  detach(old_parent, domain);
  insert_at(new_parent_domain, domain, new_domain_rel_id, tag);
  ret = domain_update_upwards(old_parent);
  if (ret == DART_OK) {
    ret = domain_update_upwards(new_parent_domain);
  }
  return nomem_if_failed(__func__, ret);
}

/* The lowest common ancestor of the domains (all strictly below top),
 * strictly above all of them. The walk stops at top: above it may lie the
 * freed tree a copy was taken from. */
static dart_domain_locality_t *common_ancestor(dart_domain_locality_t *top,
                                               dart_domain_locality_t **ds,
                                               int n)
{
  dart_domain_locality_t *lca = ds[0]->parent;
  for (int i = 1; i < n && lca != top; ++i) {
    const char *tag = ds[i]->domain_tag;
    while (lca != top && !tag_covers_listed(lca->domain_tag, 1, &tag)) {
      lca = lca->parent;
    }
  }
  return lca;
}

static int count_scope_in_tree(dart_domain_locality_t *d,
                               dart_locality_scope_t scope)
{
  return domain_collect_scope(domain_top(d), scope, NULL);
}

/* Finds the listed domains and rejects duplicates, overlaps and d. */
static dart_ret_t find_group_members(const char *call,
                                     dart_domain_locality_t *d, int n,
                                     const char **tags,
                                     dart_domain_locality_t **members)
{
  for (int i = 0; i < n; ++i) {
    members[i] = domain_lookup(d, tags[i]);
    if (members[i] == d) {
      return report_error(DART_ERR_INVAL, call,
                          "cannot group domain '%s' into itself",
                          d->domain_tag);
    }
    for (int j = 0; j < i; ++j) {
      if (tag_within(tags[i], tags[j]) || tag_within(tags[j], tags[i])) {
        return report_error(DART_ERR_INVAL, call,
                            "domains '%s' and '%s' overlap", tags[j],
                            tags[i]);
      }
    }
  }
  return DART_OK;
}

static dart_domain_locality_t *new_group_domain(dart_domain_locality_t *lca,
                                                int n)
{
  dart_domain_locality_t *g = malloc(sizeof *g);
  if (g == NULL) {
    return NULL;
  }
  domain_set_defaults(g);
  g->children = malloc((size_t)n * sizeof *g->children);
  g->aliases  = malloc(sizeof *g->aliases);
  if (g->children == NULL || g->aliases == NULL) {
    free(g->children);
    free(g->aliases);
    free(g);
    return NULL;
  }
  g->aliases[0]   = lca;
  g->num_aliases  = 1;
  g->scope        = DART_LOCALITY_SCOPE_GROUP;
  g->global_index = count_scope_in_tree(lca, DART_LOCALITY_SCOPE_GROUP);
  g->team         = lca->team;
  g->level        = lca->level + 1;
  memcpy(g->host, lca->host, sizeof g->host);
  return g;
}

dart_ret_t dart_domain_group(dart_domain_locality_t *domain_in,
                             int num_group_subdomains,
                             const char **group_subdomain_tags,
                             char *group_domain_tag_out)
{
  int n = num_group_subdomains;
  if (group_domain_tag_out == NULL || n < 1) {
    return report_error(DART_ERR_INVAL, __func__, "%s",
                        group_domain_tag_out == NULL
                          ? "group_domain_tag_out is NULL"
                          : "num_group_subdomains < 1");
  }
  dart_ret_t ret = check_tag_list(__func__, domain_in, n,
                                  group_subdomain_tags);
  if (ret != DART_OK) {
    return ret;
  }
  dart_domain_locality_t **members = malloc((size_t)n * sizeof *members);
  if (members == NULL) {
    return report_error(DART_ERR_NOMEM, __func__, "out of memory");
  }
  ret = find_group_members(__func__, domain_in, n, group_subdomain_tags,
                           members);
  if (ret != DART_OK) {
    free(members);
    return ret;
  }
  dart_domain_locality_t *lca = common_ancestor(domain_in, members, n);
  char tag[TAG_SIZE];
  bool fits = tag_child(tag, lca->domain_tag, next_component(lca, NULL));
  for (int i = 0; fits && i < n; ++i) {
    char member_tag[TAG_SIZE];
    fits = tag_child(member_tag, tag, i) && retag_fits(members[i],
                                                       member_tag);
  }
  if (!fits) {
    free(members);
    return report_error(DART_ERR_INVAL, __func__,
                        "tags below '%s' would exceed %d characters",
                        lca->domain_tag, (int)TAG_SIZE - 1);
  }
  dart_domain_locality_t *group = new_group_domain(lca, n);
  if (group == NULL || !grow_children(lca, 1)) {
    dart_domain_destroy(group);
    free(members);
    return report_error(DART_ERR_NOMEM, __func__, "out of memory");
  }
  /* Move the members (they keep their addresses) below the group; the
   * old parents are updated once the group hangs in the tree, so none
   * of them frees the child array the group goes into. */
  dart_domain_locality_t **old_parents = members;
  for (int i = 0; i < n; ++i) {
    dart_domain_locality_t *m = members[i];
    old_parents[i] = m->parent;
    detach(m->parent, m);
    group->children[i] = m;
    m->parent = group;
  }
  group->num_domains = n;
  for (int i = 0; i < n; ++i) {
    char member_tag[TAG_SIZE];
    tag_child(member_tag, tag, i);
    retag(group->children[i], member_tag, group->level + 1, group->team);
  }
  insert_at(lca, group, -1, tag);
  ret = domain_aggregate(group);
  for (int i = 0; i < n && ret == DART_OK; ++i) {
    ret = domain_update_upwards(old_parents[i]);
  }
  if (ret == DART_OK) {
    ret = domain_update_upwards(lca);
  }
  free(members);
  memcpy(group_domain_tag_out, tag, strlen(tag) + 1);
  return nomem_if_failed(__func__, ret);
}
