/* Shared part of the one-sided test programs (test_onesided_xfer.c:
 * blocking and non-blocking put/get, bursts and the memory model;
 * test_onesided_types.c: strided and indexed types, zero-element and
 * registered transfers, handles; test_onesided_errors.c: bad input,
 * invalid handles and stale targets). The calls are
 * those of dart-if/include/dash/dart/if/dart_communication.h; which paths
 * they take is docs/design.md, "The fast path" and "One-sided operations
 * and atomics through MPI". Everything runs on DART_TEAM_ALL and on a
 * sub-team whose team ids differ from the global ids.
 *
 * Values depend on the writing unit, the purpose and the position, so
 * data landing in the wrong portion, at the wrong offset or in the wrong
 * order shows up. Which targets a unit reaches by direct copy is
 * computed here from MPI and the documented switches (DART_SHM_PATH,
 * DART_UNITS_PER_NODE, MPICH cliques), independently of the runtime. */
#ifndef DART_TEST_ONESIDED_COMMON_H
#define DART_TEST_ONESIDED_COMMON_H

#include "test.h"
#include "test_values.h"
#include "test_nodes.h"

#include <mpi.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int me, n;
static bool shm_on = true;
static long long *node_key; /* global unit -> node identity */

struct ctx {
  dart_team_t  team;
  int          me, n;
  int         *global_of; /* team unit -> global unit */
  const char  *label;
};

static inline int key(int unit, int purpose) { return 1 + unit * 64 + purpose; }

static inline size_t tsize(dart_datatype_t t) { return basic_size(t); }

static inline const char *tname(dart_datatype_t t)
{
  const char *name = basic_name(t);
  return name != NULL ? name : "other";
}

/* Element i of the data identified by `k`, exact in type t: the shared
 * pattern, with bytes spread over negative values as well. */
static inline long double pattern(dart_datatype_t t, int k, size_t i)
{
  if (t == DART_TYPE_BYTE) {
    return (long double)(((long long)k * 37 + (long long)i * 11 + 5) % 251 -
                         125);
  }
  return basic_pattern(t, k, i);
}

static inline void fill(dart_datatype_t t, void *buf, size_t count, int k)
{
  for (size_t i = 0; i < count; ++i) {
    put_val(t, buf, i, pattern(t, k, i));
  }
}

#define check_fill(...) check_fill_at(__FILE__, __LINE__, __VA_ARGS__)
static inline void check_fill_at(const char *file, int line, dart_datatype_t t,
                                 const void *buf,
                       size_t count, int k)
{
  for (size_t i = 0; i < count; ++i) {
    long double got = get_val(t, buf, i), want = pattern(t, k, i);
    if (got != want) {
      test_failf(file, line,
                 "%s element %zu: got %.21Lg, expected %.21Lg (key %d)",
                 tname(t), i, got, want, k);
    }
  }
}

static inline char *local_base(dart_gptr_t g, int my_team_id)
{
  void *p = NULL;
  ASSERT_OK(dart_gptr_getaddr(gptr_at(g, my_team_id, 0), &p));
  return p;
}

static inline double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Whether a transfer from me to team unit `u` completes during the call
 * (direct copy): always in a one-unit team, else with the shared-memory
 * path on and the target on my (possibly simulated) node. */
static inline bool direct(const struct ctx *c, int u)
{
  return c->n == 1 || (shm_on && node_key[c->global_of[u]] == node_key[me]);
}

#define check_handle(...) check_handle_at(__FILE__, __LINE__, __VA_ARGS__)
static inline void check_handle_at(const char *file, int line,
                                   const struct ctx *c, int u,
                         dart_handle_t h)
{
  if (direct(c, u) && h != DART_HANDLE_NULL) {
    test_failf(file, line, "transfer to team unit %d (node peer or myself) got "
               "a handle: it must complete at once", u);
  }
}

/* Node identity from MPI's view of shared memory (MPICH cliques) and
 * the runtime's documented DART_UNITS_PER_NODE split. */
static inline void compute_node_keys(void)
{
  node_key = test_node_keys(n);
  const char *shm = getenv("DART_SHM_PATH");
  shm_on = !(shm != NULL && (strcmp(shm, "off") == 0 || strcmp(shm, "0") == 0));
}

static inline struct ctx make_ctx(dart_team_t team, const char *label)
{
  struct ctx c = { team, 0, 0, NULL, label };
  test_team_position(team, &c.me, &c.n);
  c.global_of = xmalloc((size_t)c.n * sizeof(int));
  for (int u = 0; u < c.n; ++u) {
    dart_global_unit_t g;
    ASSERT_OK(dart_team_unit_l2g(team, DART_TEAM_UNIT_ID(u), &g));
    c.global_of[u] = g.id;
  }
  return c;
}

/* A byte segment on the team with `bytes + 64 * team unit` bytes per
 * unit (portions of different sizes). */
static inline dart_gptr_t alloc_portions(const struct ctx *c, size_t bytes)
{
  dart_gptr_t g;
  ASSERT_OK(dart_team_memalloc_aligned(c->team, bytes + 64 * (size_t)c->me,
                                       DART_TYPE_BYTE, &g));
  return g;
}

#define SLOT 64 /* longs per (origin, target) slot */

/* Byte offset of origin unit o's slot in every portion. */
static inline size_t slot_of(int o) { return (size_t)o * SLOT * sizeof(long); }

/* Slot t of a local buffer of n slots holds what origin o sent with
 * key(o, purpose + t); a macro, so a failure names the caller's line. */
#define check_slot(c, buf, t, o, purpose)                                  \
  check_fill(DART_TYPE_LONG, (buf) + (size_t)(t) * SLOT, SLOT,             \
             key((c)->global_of[o], (purpose) + (t)))

/* Slot o of my portion holds what origin o put with key(o, purpose + me). */
#define check_round(...) check_round_at(__FILE__, __LINE__, __VA_ARGS__)
static inline void check_round_at(const char *file, int line,
                                  const struct ctx *c, dart_gptr_t seg,
                                  int purpose)
{
  long *mine = (long *)local_base(seg, c->me);
  for (int o = 0; o < c->n; ++o) {
    check_fill_at(file, line, DART_TYPE_LONG, mine + (size_t)o * SLOT, SLOT,
                  key(c->global_of[o], purpose + c->me));
  }
}

/* DART_TEAM_ALL, and the sub-team of the odd units and the last one
 * ({0}, {1}, {1, 2}, {1, 3}); every case runs on both, the sub-team with
 * fewer pairs and without the large and burst transfers. */
static dart_team_t sub = DART_TEAM_NULL;
static struct ctx all_ctx, sub_ctx;

static inline void setup(int *argc, char ***argv)
{
  test_start(argc, argv, &me, &n);
  compute_node_keys();
  sub = test_subteam_create(n);
  all_ctx = make_ctx(DART_TEAM_ALL, "DART_TEAM_ALL");
  if (sub != DART_TEAM_NULL) {
    sub_ctx = make_ctx(sub, "sub-team");
  }
}

static inline void teardown(void)
{
  if (sub != DART_TEAM_NULL) {
    free(sub_ctx.global_of);
    ASSERT_OK(dart_team_destroy(&sub));
  }
  free(all_ctx.global_of);
  free(node_key);
  test_dart_teardown();
}

/* `check` on DART_TEAM_ALL, then on the sub-team where this unit is in. */
static inline void on_both_teams(void (*check)(const struct ctx *c))
{
  check(&all_ctx);
  if (sub != DART_TEAM_NULL) {
    check(&sub_ctx);
  }
}

#endif
