/* Shared part of the global-memory test programs (dart-if/include/dash/
 * dart/if/dart_globmem.h; docs/design.md, "Global memory and segments"):
 * test_globmem_team.c (collective allocation and registration on teams),
 * test_globmem_segments.c (global pointers, segment ids and freeing),
 * test_globmem_pool.c (the local pool of dart_memalloc and its growth),
 * test_globmem_allocator.c (the pool allocator, dart_allocator_*).
 *
 * Values depend on the owning unit and the element index, so data read
 * from the wrong portion, the wrong offset or a stale segment shows up.
 * Errors are provoked by every unit alike (collective calls stay
 * matched); the runtime's log is muted for them. Every part starts the
 * same way (setup below: the sub-team and the two derived types exist
 * whether a part uses them or not), so each case runs in the state it
 * ran in when the parts were one program. */
#ifndef DART_TEST_GLOBMEM_COMMON_H
#define DART_TEST_GLOBMEM_COMMON_H

#include "test.h"
#include "test_values.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Set by setup. */
static int me, n;            /* global id and size */
static dart_team_t sub = DART_TEAM_NULL; /* odd units and the last one */
static int sub_me = -1, sub_n = 0;
/* Types the allocation calls must refuse (not basic). */
static dart_datatype_t strided_type = DART_TYPE_UNDEFINED;
static dart_datatype_t custom_type = DART_TYPE_UNDEFINED; /* 12 bytes */

static inline size_t tsize(dart_datatype_t t) { return basic_size(t); }

static inline const char *tname(dart_datatype_t t)
{
  const char *name = basic_name(t);
  return name != NULL ? name : "other";
}

/* A distinct key per (unit, purpose). */
static inline int key(int unit, int purpose)
{
  return 1 + unit * 64 + purpose;
}

static inline void fill(dart_datatype_t t, void *buf, size_t from,
                        size_t count, int k)
{
  for (size_t i = from; i < from + count; ++i) {
    put_val(t, buf, i, basic_pattern(t, k, i));
  }
}

/* Elements [from, from + count) of buf hold pattern k, element i of buf
 * being element i + shift of the pattern. */
#define check_fill(...) check_fill_at(__FILE__, __LINE__, __VA_ARGS__)
static inline void check_fill_at(const char *file, int line,
                                 dart_datatype_t t, const void *buf,
                                 size_t from, size_t count, size_t shift,
                                 int k)
{
  for (size_t i = from; i < from + count; ++i) {
    long double got = get_val(t, buf, i);
    long double want = basic_pattern(t, k, i + shift);
    if (got != want) {
      test_failf(file, line,
                 "%s element %zu: got %.21Lg, expected %.21Lg (key %d)",
                 tname(t), i, got, want, k);
    }
  }
}

#define local_addr(...) local_addr_at(__FILE__, __LINE__, __VA_ARGS__)
static inline void *local_addr_at(const char *file, int line, dart_gptr_t g)
{
  void *p = (void *)&p;
  dart_ret_t ret = dart_gptr_getaddr(g, &p);
  if (ret != DART_OK) {
    test_failf(file, line, "dart_gptr_getaddr returned %d", (int)ret);
  }
  return p;
}

static inline bool gptr_is_null(dart_gptr_t g)
{
  dart_gptr_t null = DART_GPTR_NULL;
  return DART_GPTR_ISNULL(g) && memcmp(&g, &null, sizeof g) == 0;
}

static inline void junk_gptr(dart_gptr_t *g)
{
  memset(g, POISON, sizeof *g);
}

/* The fields every fresh collective/registered gptr has. */
#define check_fresh(...) check_fresh_at(__FILE__, __LINE__, __VA_ARGS__)
static inline void check_fresh_at(const char *file, int line, dart_gptr_t g,
                                  dart_team_t team, bool registered)
{
  if (g.unitid != 0 || g.flags != 0 || g.teamid != team ||
      g.addr_or_offs.offset != 0 ||
      (registered ? g.segid >= 0 : g.segid <= 0)) {
    test_failf(file, line, "fresh gptr {unit %d, flags %u, segid %d, team %d, "
               "offset %llu}: expected unit 0, flags 0, %s segid, team %d, "
               "offset 0", (int)g.unitid, (unsigned)g.flags, (int)g.segid,
               (int)g.teamid,
               (unsigned long long)g.addr_or_offs.offset,
               registered ? "negative" : "positive", (int)team);
  }
}

/* The gptr is bytewise the same on every member of the team. */
#define check_same_everywhere(...)                                         \
  check_same_everywhere_at(__FILE__, __LINE__, __VA_ARGS__)
static inline void check_same_everywhere_at(const char *file, int line,
                                            dart_team_t team, int size,
                                            dart_gptr_t g)
{
  dart_gptr_t *all = xmalloc((size_t)size * sizeof *all);
  memset(all, POISON, (size_t)size * sizeof *all);
  ASSERT_OK(dart_allgather(&g, all, sizeof g, DART_TYPE_BYTE, team));
  for (int u = 0; u < size; ++u) {
    if (memcmp(&all[u], &g, sizeof g) != 0) {
      test_failf(file, line, "team unit %d holds a different gptr (segid %d, "
                 "team %d) than mine (segid %d, team %d)", u,
                 (int)all[u].segid, (int)all[u].teamid, (int)g.segid,
                 (int)g.teamid);
    }
  }
  free(all);
}

/* A collective allocation of `bytes` bytes on every member of `team`. */
static inline dart_gptr_t alloc_bytes(dart_team_t team, size_t bytes)
{
  dart_gptr_t g;
  ASSERT_OK(dart_team_memalloc_aligned(team, bytes, DART_TYPE_BYTE, &g));
  return g;
}

/* The runner's setup and teardown (test_run_with in test.h): the runtime,
 * the sub-team of test_subteam_create and the two derived types. */
static inline void setup(int *argc, char ***argv)
{
  test_start(argc, argv, &me, &n);
  sub = test_subteam_create(n);
  ASSERT_EQ(sub != DART_TEAM_NULL, test_subteam_member(me, n));
  if (sub != DART_TEAM_NULL) {
    dart_team_unit_t tme;
    size_t tsz;
    ASSERT_OK(dart_team_myid(sub, &tme));
    ASSERT_OK(dart_team_size(sub, &tsz));
    sub_me = tme.id;
    sub_n = (int)tsz;
  }
  ASSERT_OK(dart_type_create_strided(DART_TYPE_INT, 3, 1, &strided_type));
  ASSERT_OK(dart_type_create_custom(12, &custom_type));
}

static inline void teardown(void)
{
  ASSERT_OK(dart_type_destroy(&strided_type));
  ASSERT_OK(dart_type_destroy(&custom_type));
  if (sub != DART_TEAM_NULL) {
    ASSERT_OK(dart_team_destroy(&sub));
  }
  test_dart_teardown();
}

#endif
