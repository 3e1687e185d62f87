/* Segments freed in a different order on every unit: a C++ container
 * library keeps its segments sorted by local address and deregisters them
 * in that order, which differs from unit to unit. Every round registers
 * (or allocates) N segments, runs atomics on all of them, then frees them
 * in a per-unit permutation. No call may hang and the next round's
 * registrations must succeed with ids that every unit agrees on. Last,
 * two registrations of overlapping memory. */
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SEGMENTS 6
#define ROUNDS   5

/* A permutation of 0..n-1 that depends on the unit and the round (fixed
 * seed, so a failure repeats). */
static void permutation(int *p, int n, int unit, int round)
{
  for (int i = 0; i < n; ++i) {
    p[i] = i;
  }
  unsigned state = 2654435761u * (unsigned)(unit + 1) + 40503u * (unsigned)round;
  for (int i = n - 1; i > 0; --i) {
    state = state * 1103515245u + 12345u;
    int j = (int)((state >> 16) % (unsigned)(i + 1));
    int tmp = p[i];
    p[i] = p[j];
    p[j] = tmp;
  }
}

/* Every unit adds (its id + 1) to word 0 of every unit's portion of every
 * segment; afterwards each portion holds the sum over all units. */
static void atomics_on(const dart_gptr_t *seg, int n, int me, int units,
                       long *const *local)
{
  for (int s = 0; s < n; ++s) {
    for (int u = 0; u < units; ++u) {
      dart_gptr_t g = seg[s];
      g.unitid = u;
      long add = me + 1, old = -1;
      ASSERT_OK(dart_fetch_and_op(g, &add, &old, DART_TYPE_LONG, DART_OP_SUM));
      ASSERT_OK(dart_flush(g));
      ASSERT(old >= 0);
    }
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  long want = (long)units * (units + 1) / 2;
  for (int s = 0; s < n; ++s) {
    long got = -1;
    if (local != NULL) {
      got = __atomic_load_n(&local[s][0], __ATOMIC_SEQ_CST);
    } else {
      dart_gptr_t g = seg[s];
      g.unitid = me;
      ASSERT_OK(dart_get_blocking(&got, g, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    }
    ASSERT_EQ(got, want);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

static void registered_rounds(int me, int units)
{
  long *buf[SEGMENTS];
  for (int s = 0; s < SEGMENTS; ++s) {
    buf[s] = NULL;
  }
  for (int round = 0; round < ROUNDS; ++round) {
    dart_gptr_t seg[SEGMENTS];
    for (int s = 0; s < SEGMENTS; ++s) {
      buf[s] = calloc(4 + (size_t)s, sizeof(long));
      ASSERT(buf[s] != NULL);
      ASSERT_OK(dart_team_memregister(DART_TEAM_ALL, 4 + (size_t)s,
                                      DART_TYPE_LONG, buf[s], &seg[s]));
    }
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
    atomics_on(seg, SEGMENTS, me, units, buf);
    int order[SEGMENTS];
    permutation(order, SEGMENTS, me, round);
    for (int i = 0; i < SEGMENTS; ++i) {
      ASSERT_OK(dart_team_memderegister(seg[order[i]]));
    }
    for (int s = 0; s < SEGMENTS; ++s) {
      free(buf[s]);
    }
  }
}

static void allocated_rounds(int me, int units)
{
  for (int round = 0; round < ROUNDS; ++round) {
    dart_gptr_t seg[SEGMENTS];
    for (int s = 0; s < SEGMENTS; ++s) {
      ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 4 + (size_t)s,
                                           DART_TYPE_LONG, &seg[s]));
      dart_gptr_t mine = seg[s];
      mine.unitid = me;
      long zero = 0;
      ASSERT_OK(dart_put_blocking(mine, &zero, 1, DART_TYPE_LONG,
                                  DART_TYPE_LONG));
    }
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
    atomics_on(seg, SEGMENTS, me, units, NULL);
    int order[SEGMENTS];
    permutation(order, SEGMENTS, me, round + 100);
    for (int i = 0; i < SEGMENTS; ++i) {
      ASSERT_OK(dart_team_memfree(seg[order[i]]));
    }
  }
}

/* Mixed: frees of one kind in one order interleaved with the other kind,
 * then a team destroyed with segments freed in different orders. */
static void team_rounds(int me, int units)
{
  for (int round = 0; round < 2; ++round) {
    dart_team_t team = DART_TEAM_NULL;
    ASSERT_OK(dart_team_clone(DART_TEAM_ALL, &team));
    long buf[SEGMENTS][4];
    memset(buf, 0, sizeof buf);
    dart_gptr_t seg[2 * SEGMENTS];
    for (int s = 0; s < SEGMENTS; ++s) {
      ASSERT_OK(dart_team_memregister(team, 4, DART_TYPE_LONG, buf[s],
                                      &seg[s]));
      ASSERT_OK(dart_team_memalloc_aligned(team, 4, DART_TYPE_LONG,
                                           &seg[SEGMENTS + s]));
    }
    ASSERT_OK(dart_barrier(team));
    int order[2 * SEGMENTS];
    permutation(order, 2 * SEGMENTS, me, round + 200);
    for (int i = 0; i < 2 * SEGMENTS; ++i) {
      int s = order[i];
      /* Half of them stay for dart_team_destroy to free. */
      if (s % 2 == 0) {
        continue;
      }
      if (s < SEGMENTS) {
        ASSERT_OK(dart_team_memderegister(seg[s]));
      } else {
        ASSERT_OK(dart_team_memfree(seg[s]));
      }
    }
    ASSERT_OK(dart_team_destroy(&team));
  }
  (void)units;
}

/* Registrations whose memory overlaps (a library may register the same
 * buffer for two containers): each segment addresses from its own start,
 * whatever the MPI does with overlapping windows. Unit u's portions:
 * `outer` over words 0-7, `inner` over words 4-11 of one buffer; the
 * atomics on word 0 of each must land in words[0] and words[4] only. */
static void overlapping_registrations(int me, int units)
{
  static long words[12];
  dart_gptr_t seg[2];
  ASSERT_OK(dart_team_memregister(DART_TEAM_ALL, 8, DART_TYPE_LONG, words,
                                  &seg[0]));
  ASSERT_OK(dart_team_memregister(DART_TEAM_ALL, 8, DART_TYPE_LONG, words + 4,
                                  &seg[1]));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  atomics_on(seg, 2, me, units, (long *const[]){ words, words + 4 });
  for (int k = 1; k < 12; ++k) {
    if (k != 4) {
      ASSERT_EQ(words[k], 0);
    }
  }
  ASSERT_OK(dart_team_memderegister(seg[1]));
  ASSERT_OK(dart_team_memderegister(seg[0]));
}

static void registered(void)
{
  registered_rounds(test_me, test_units);
}

static void allocated(void)
{
  allocated_rounds(test_me, test_units);
}

static void teams(void)
{
  team_rounds(test_me, test_units);
}

static void overlapping(void)
{
  overlapping_registrations(test_me, test_units);
}

/* After the rounds a registration still works and its id is agreed on. */
static void registration_after(void)
{
  long tail[2] = { 0, 0 };
  dart_gptr_t g;
  ASSERT_OK(dart_team_memregister(DART_TEAM_ALL, 2, DART_TYPE_LONG, tail, &g));
  atomics_on(&g, 1, test_me, test_units, (long *const[]){ tail });
  ASSERT_OK(dart_team_memderegister(g));
}

static const struct test_case cases[] = {
  { "registered", registered },
  { "allocated", allocated },
  { "teams", teams },
  { "overlapping", overlapping },
  { "registration_after", registration_after },
};

int main(int argc, char **argv)
{
  return test_run_dart(argc, argv, TEST_CASES(cases));
}
