#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE, madvise */
/* Objects are carved in address order from regions of REGION_PAGES pages
 * that are mapped once and never unmapped (a stale handle must stay
 * readable); an object never straddles two pages, so each page can go
 * back to the system (MADV_DONTNEED) on its own once it is full and all
 * its objects are retired. A private anonymous page read after that is
 * the system's zero page: no memory, and every field reads as zero. */
#include "base/tombstone_slab.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* 4 MiB of address space with 4 KiB pages: some 20,000 lock handles. A
 * mapping counts against vm.max_map_count, so regions are not small. */
enum { REGION_PAGES = 1024 };

struct tombstone_region {
  char                    *base;
  size_t                   page_size;
  size_t                   per_page;   /* objects in one page */
  size_t                   slot_size;
  size_t                   next;       /* objects handed out so far */
  uint32_t                 live[REGION_PAGES]; /* objects not retired */
  uint64_t                *retired;    /* one bit per object */
  struct tombstone_region *older;
};

static size_t slot_size_of(size_t object_size)
{
  /* Cache-line multiples: two locks never share a line. */
  return (object_size + 63) / 64 * 64;
}

static struct tombstone_region *region_new(size_t object_size)
{
  long page = sysconf(_SC_PAGESIZE);
  size_t page_size = page > 0 ? (size_t)page : 4096;
  size_t slot = slot_size_of(object_size == 0 ? 1 : object_size);
  if (slot > page_size) {
    return NULL; /* larger objects are not what this is for */
  }
  struct tombstone_region *r = calloc(1, sizeof *r);
  if (r == NULL) {
    return NULL;
  }
  void *base = mmap(NULL, page_size * REGION_PAGES, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    free(r);
    return NULL;
  }
  r->base = base;
  r->page_size = page_size;
  r->slot_size = slot;
  r->per_page = page_size / slot;
  r->retired = calloc((r->per_page * REGION_PAGES + 63) / 64, sizeof(uint64_t));
  if (r->retired == NULL) {
    munmap(base, page_size * REGION_PAGES);
    free(r);
    return NULL;
  }
  return r;
}

static bool region_full(const struct tombstone_region *r)
{
  return r->next == r->per_page * REGION_PAGES;
}

/* A page is done once every object of it was handed out. */
static bool page_done(const struct tombstone_region *r, size_t page)
{
  return r->next >= (page + 1) * r->per_page;
}

static void page_release(struct tombstone_region *r, size_t page)
{
  /* On failure the page just stays: its objects remain readable either
   * way, which is all correctness needs. */
  (void)madvise(r->base + page * r->page_size, r->page_size,
                MADV_DONTNEED);
}

void *tombstone_slab_alloc(struct tombstone_slab *slab)
{
  struct tombstone_region *r = slab->regions;
  if (r == NULL || region_full(r)) {
    struct tombstone_region *fresh = region_new(slab->object_size);
    if (fresh == NULL) {
      return NULL;
    }
    fresh->older = r;
    slab->regions = r = fresh;
  }
  size_t page = r->next / r->per_page, index = r->next % r->per_page;
  ++r->next;
  ++r->live[page];
  /* Zero: a fresh anonymous mapping, and no slot is handed out twice. */
  return r->base + page * r->page_size + index * r->slot_size;
}

void tombstone_slab_retire(struct tombstone_slab *slab, void *object)
{
  char *p = object;
  for (struct tombstone_region *r = slab->regions; r != NULL;
       r = r->older) {
    if (p < r->base || p >= r->base + r->page_size * REGION_PAGES) {
      continue;
    }
    size_t page = (size_t)(p - r->base) / r->page_size;
    size_t offset = (size_t)(p - r->base) % r->page_size;
    size_t index = page * r->per_page + offset / r->slot_size;
    uint64_t bit = UINT64_C(1) << (index % 64);
    if (offset % r->slot_size != 0 || index >= r->next ||
        (r->retired[index / 64] & bit) != 0) {
      return; /* not an object's start, never handed out, or retired */
    }
    r->retired[index / 64] |= bit;
    if (--r->live[page] == 0 && page_done(r, page)) {
      page_release(r, page);
    }
    return;
  }
}

size_t tombstone_slab_resident_pages(const struct tombstone_slab *slab)
{
  size_t pages = 0;
  for (const struct tombstone_region *r = slab->regions; r != NULL;
       r = r->older) {
    for (size_t page = 0; page < REGION_PAGES; ++page) {
      pages += r->live[page] > 0 || (r->next > page * r->per_page &&
                                     !page_done(r, page));
    }
  }
  return pages;
}
