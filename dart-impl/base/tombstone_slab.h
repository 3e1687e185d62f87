/* Fixed-size objects whose addresses are handed out once and never
 * again. For handles that are plain pointers (dart_lock_t): a stale copy
 * of a handle still points into readable memory, so a magic word in the
 * object can tell a live object from a retired one, and no later object
 * can be mistaken for it. Retired objects cost no memory for long: a page
 * whose objects are all retired goes back to the system and reads as
 * zeros from then on (a magic word that is zero is never live). Objects
 * are zeroed when allocated. Not thread-safe: callers serialize. */
#ifndef DART_BASE_TOMBSTONE_SLAB_H
#define DART_BASE_TOMBSTONE_SLAB_H

#include <stddef.h>

struct tombstone_region;

struct tombstone_slab {
  size_t                   object_size; /* as given, for the slot size */
  struct tombstone_region *regions;     /* newest first */
};

#define TOMBSTONE_SLAB_INITIALIZER(size) { (size), NULL }

/* A zeroed object, or NULL when the system has no address space or
 * memory left for a new region. */
void *tombstone_slab_alloc(struct tombstone_slab *slab);

/* Retires an object from tombstone_slab_alloc of the same slab (the
 * object stays readable; its page is released once all its objects are
 * retired). Anything else, a second retirement included, is ignored. */
void tombstone_slab_retire(struct tombstone_slab *slab, void *object);

/* Pages that still hold memory: those with a live object and the one
 * being filled (for tests). */
size_t tombstone_slab_resident_pages(const struct tombstone_slab *slab);

#endif
