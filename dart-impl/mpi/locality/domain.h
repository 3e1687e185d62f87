/* Internal operations on locality domain trees (docs/design.md, "Locality
 * and bootstrap"), shared by the tree builder, the dart_domain_* calls and
 * the team locality data. Every domain of a tree is its own malloc'ed
 * object; `children` is an array of pointers, so a domain keeps its address
 * when siblings come and go. MPI-free, so the pure tests can drive them. */
#ifndef DART_MPI_LOCALITY_DOMAIN_H
#define DART_MPI_LOCALITY_DOMAIN_H

#include <dash/dart/if/dart_team_group.h>
#include <dash/dart/if/dart_types.h>

#include <stdbool.h>
#include <stddef.h>

#define TAG_SIZE ((size_t)DART_LOCALITY_DOMAIN_TAG_MAX_SIZE)

/* The default state of dart_domain_create (dart_locality.h). */
void domain_set_defaults(dart_domain_locality_t *d);

/* Frees d's subtree, unit ids and aliases, not d; d is left in defaults
 * and is no copy root any more. */
void domain_release(dart_domain_locality_t *d);

/* Copy roots: the top domain of a copy (dart_domain_clone,
 * dart_domain_assign, dart_domain_split_scope) keeps the source's parent
 * pointer, whose tree may be freed while the copy lives (dart_team_destroy).
 * The public struct has no room for a mark, so a process-wide registry
 * remembers each such domain with the parent value it got; domain_owner
 * never reads the parent of a registered domain whose parent still has
 * that value. domain_mark_copy_root registers d (a NULL parent only
 * unregisters it: a root has nothing to guard); DART_ERR_NOMEM leaves the
 * registry as it was. domain_forget_copy_root unregisters d; called when d
 * is released and when it becomes a child in a tree. MT-safe. */
dart_ret_t domain_mark_copy_root(const dart_domain_locality_t *d,
                                 const dart_domain_locality_t *parent);
void domain_forget_copy_root(const dart_domain_locality_t *d);

/* Deep copy of src and its subtree into *dst (whose old contents are
 * ignored). dst->parent = src->parent, aliases are not copied. On
 * DART_ERR_NOMEM *dst is left in defaults. */
dart_ret_t domain_copy(dart_domain_locality_t *dst,
                       const dart_domain_locality_t *src);

/* d's parent if that parent really holds d as a child, else NULL: a
 * clone's parent pointer leads into the tree it was copied from, and
 * walking up there would modify the original. The parent of a copy root
 * is not read at all (it may be freed). */
dart_domain_locality_t *domain_owner(const dart_domain_locality_t *d);

/* The top of d's tree, following domain_owner. */
dart_domain_locality_t *domain_top(dart_domain_locality_t *d);

/* Rebuilds what d derives from its children: relative indices and parent
 * links, unit list, core count, symmetry, and (for scopes coarser than
 * NODE) the node count and node id. A domain without children ends up with
 * no units, so a unit's leaf (whose units are its own) comes here only to
 * be emptied (split parts past the last domain). */
dart_ret_t domain_aggregate(dart_domain_locality_t *d);

/* domain_aggregate on d and then on every owning ancestor. */
dart_ret_t domain_update_upwards(dart_domain_locality_t *d);

/* true if `tag` is `prefix` or lies below it, matching whole
 * dot-separated components (".1" covers ".1.0", not ".10"). */
bool tag_within(const char *tag, const char *prefix);

/* The domain with exactly this tag in d's subtree (d included), or NULL. */
dart_domain_locality_t *domain_lookup(const dart_domain_locality_t *d,
                                      const char *tag);

/* Number of the domains of `scope` in d's subtree (d included) and, when
 * out != NULL, a malloc'ed array of them, depth-first in child order.
 * Returns -1 if that array cannot be allocated. */
int domain_collect_scope(const dart_domain_locality_t *d,
                         dart_locality_scope_t scope,
                         dart_domain_locality_t ***out);

/* domain_collect_scope for an API call: checks its arguments (INVAL),
 * and returns DART_ERR_NOTFOUND if no domain has that scope, with an error
 * line only if log_absent. *count and *out are zeroed first. */
dart_ret_t domain_scope_list(const char *call,
                             const dart_domain_locality_t *d,
                             dart_locality_scope_t scope, bool log_absent,
                             int *count, dart_domain_locality_t ***out);

/* true for the values of dart_locality_scope_t other than UNDEFINED. */
bool scope_is_valid(dart_locality_scope_t scope);

/* Writes parent_tag + "." + component into out (TAG_SIZE chars; the
 * root's "." is not doubled). false if the result does not fit. */
bool tag_child(char *out, const char *parent_tag, int component);

/* The number after the last dot of a tag, or -1 if there is none. */
int tag_last_component(const char *tag);

#endif
