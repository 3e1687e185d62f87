/* White-box: the local pool exposes to RMA what it committed, no more
 * (memory/pool_exposure.h); it grows and gives empty chunks back while
 * other units hammer on it, and a block in a chunk given back is refused.
 * Run with DART_LOCAL_POOL_MIB=1, DART_LOCAL_POOL_MAX_MIB=256 and
 * DART_POOL_SHRINK_MS=0 (the registration in CMakeLists.txt does; one
 * runs the hysteresis case alone with 300), on one node, on simulated nodes
 * and with the shared-memory path off, so that growth happens both with
 * and without units that reach the pool by RMA; and once with the whole
 * reservation exposed (DART_POOL_EXPOSURE=whole), which never changes. */
#include "test.h"
#include "mpi/core/runtime.h"
#include "mpi/memory/local_pool.h"
#include "mpi/model/team.h"

#include <dash/dart/if/dart.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MIB ((size_t)1 << 20)

static double monotonic_seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int me, n;

/* My block's address (dart_gptr_getaddr). */
static void *local_addr_of(dart_gptr_t g)
{
  void *p = NULL;
  ASSERT_OK(dart_gptr_getaddr(g, &p));
  return p;
}

static void require_pool_env(void)
{
  const char *initial = getenv("DART_LOCAL_POOL_MIB");
  const char *max = getenv("DART_LOCAL_POOL_MAX_MIB");
  if (initial == NULL || max == NULL || atoi(initial) != 1 ||
      atoi(max) != 256) {
    FAILF("run with DART_LOCAL_POOL_MIB=1 and DART_LOCAL_POOL_MAX_MIB=256");
  }
  if (runtime.env.pool_shrink_ms != 0 &&
      strcmp(test_case_name, "hysteresis") != 0) {
    FAILF("run with DART_POOL_SHRINK_MS=0 (chunks go back when empty)");
  }
}

/* Whether my pool gives empty chunks back: among several units
 * (memory/pool_exposure.h, pool_exposure_shrinks), whatever it exposes. */
static bool pool_shrinks(void) { return n > 1; }

/* Whether some other unit reaches my pool through MPI, so that a change
 * of my exposure raises flags and waits its grace time. */
static bool have_rma_peers(void)
{
  struct team *all = team_lookup(DART_TEAM_ALL);
  for (int u = 0; u < all->size; ++u) {
    if (u != me && !(runtime.env.shared_memory_path &&
                     all->node_rank_of[u] >= 0)) {
      return true;
    }
  }
  return false;
}

/* What RMA reaches of my pool now. */
static size_t expected_exposed(const struct local_pool_stats *s)
{
  return s->exposure.whole ? s->reserved : s->committed;
}

static void test_accounting(void)
{
  require_pool_env();
  STAGE("after init");
  struct local_pool_stats s;
  local_pool_stats(&s);
  const char *mode = getenv("DART_POOL_EXPOSURE");
  ASSERT_EQ(s.exposure.whole, mode != NULL && strcmp(mode, "whole") == 0);
  ASSERT_EQ(s.committed, MIB);
  ASSERT_EQ(s.exposure.exposed, expected_exposed(&s));
  ASSERT_EQ(s.chunks, 1);
  ASSERT_EQ(s.reserved, 256 * MIB);

  /* 1 MiB blocks fill chunks of 1, 1, 2, 4 and 8 MiB: doubling leaves no
   * gap, so what RMA reaches is exactly what is committed. */
  enum { BLOCKS = 16 };
  dart_gptr_t blocks[BLOCKS];
  unsigned long changes = s.exposure.changes;
  for (int b = 0; b < BLOCKS; ++b) {
    STAGE("block %d", b);
    ASSERT_OK(dart_memalloc(MIB, DART_TYPE_BYTE, &blocks[b]));
    local_pool_stats(&s);
    ASSERT_EQ(s.exposure.exposed, expected_exposed(&s));
    ASSERT_MSG(blocks[b].addr_or_offs.offset + MIB <= s.exposure.exposed,
               "block at %llu past the exposed %zu bytes",
               (unsigned long long)blocks[b].addr_or_offs.offset,
               s.exposure.exposed);
  }
  ASSERT_EQ(s.committed, 16 * MIB);
  ASSERT_EQ(s.chunks, 5);
  ASSERT_EQ(s.exposure.changes - changes, s.exposure.whole ? 0 : 4);
  ASSERT_EQ(s.exposure.guarded,
            have_rma_peers() && !s.exposure.whole ? s.exposure.changes : 0);

  STAGE("the grace time of the last change");
  if (s.exposure.guarded > 0) {
    const struct pool_grace *g = &s.exposure.last_grace;
    ASSERT(g->rrsched_ns > 0);
    ASSERT(g->runnable >= 1);
    ASSERT(g->maxdata_ns >= 0);
    const char *fixed = getenv("DART_POOL_GRACE_US");
    if (fixed != NULL) {
      ASSERT_EQ(g->total_ns, atoll(fixed) * 1000);
    } else {
      ASSERT_EQ(g->total_ns, g->maxdata_ns + g->rrsched_ns * g->runnable);
    }
    /* A change waited at least its grace time. */
    ASSERT(s.exposure.last_change_ns >= g->total_ns);
  }
  for (int b = 0; b < BLOCKS; ++b) {
    ASSERT_OK(dart_memfree(blocks[b]));
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* Every unit's counters block: slot 3v counts unit v's fetch-and-adds,
 * slot 3v + 1 holds the last value unit v put, slot 3v + 2 counts unit
 * v's accumulates (batched between nodes and sent at the flush after the
 * last round, acc_batch.h: maybe while the target changes its exposure). */
enum { SLOTS = 3 };
static int64_t counter_slot(int v) { return SLOTS * v; }
static int64_t put_slot(int v) { return SLOTS * v + 1; }
static int64_t acc_slot(int v) { return SLOTS * v + 2; }

/* Hammers every other unit's block with fetch-and-add, put, get and
 * accumulate. */
static void hammer(const dart_gptr_t *blocks, int rounds, int64_t *added)
{
  for (int r = 0; r < rounds; ++r) {
    for (int u = 0; u < n; ++u) {
      if (u == me) {
        continue;
      }
      dart_gptr_t c = blocks[u];
      c.addr_or_offs.offset += (uint64_t)counter_slot(me) * sizeof(int64_t);
      int64_t one = 1, old = -1;
      ASSERT_OK(dart_fetch_and_op(c, &one, &old, DART_TYPE_LONGLONG,
                                  DART_OP_SUM));
      ASSERT_OK(dart_flush(c));
      ASSERT_EQ(old, added[u]);
      added[u]++;
      dart_gptr_t p = blocks[u];
      p.addr_or_offs.offset += (uint64_t)put_slot(me) * sizeof(int64_t);
      int64_t value = (int64_t)r * 1000 + me, got = -1;
      ASSERT_OK(dart_put_blocking(p, &value, 1, DART_TYPE_LONGLONG,
                                  DART_TYPE_LONGLONG));
      ASSERT_OK(dart_get_blocking(&got, p, 1, DART_TYPE_LONGLONG,
                                  DART_TYPE_LONGLONG));
      ASSERT_EQ(got, value);
      dart_gptr_t a = blocks[u];
      a.addr_or_offs.offset += (uint64_t)acc_slot(me) * sizeof(int64_t);
      ASSERT_OK(dart_accumulate(a, &one, 1, DART_TYPE_LONGLONG,
                                DART_OP_SUM));
    }
  }
  for (int u = 0; u < n; ++u) {
    if (u != me) {
      ASSERT_OK(dart_flush(blocks[u]));
    }
  }
}

/* Half the units grow their pools while the other half hammer on blocks
 * in everybody's first chunk, then the other way round; afterwards the
 * grown chunks are reachable like the first one. */
static void test_grow_under_load(void)
{
  require_pool_env();
  STAGE("counters");
  dart_gptr_t mine;
  ASSERT_OK(dart_memalloc((size_t)SLOTS * n, DART_TYPE_LONGLONG, &mine));
  memset(local_addr_of(mine), 0, (size_t)SLOTS * n * sizeof(int64_t));
  dart_gptr_t *blocks = xmalloc((size_t)n * sizeof *blocks);
  ASSERT_OK(dart_allgather(&mine, blocks, sizeof mine, DART_TYPE_BYTE,
                           DART_TEAM_ALL));
  int64_t *added = calloc((size_t)n, sizeof *added);
  enum { GROWN = 24, ROUNDS = 200 };
  dart_gptr_t grown[GROWN];
  for (int phase = 0; phase < 2; ++phase) {
    STAGE("phase %d", phase);
    if (me % 2 == phase) {
      for (int b = 0; b < GROWN; ++b) {
        ASSERT_OK(dart_memalloc(MIB, DART_TYPE_BYTE, &grown[b]));
        char *p = local_addr_of(grown[b]);
        p[0] = (char)(me + b);
        p[MIB - 1] = (char)(me - b);
      }
    } else {
      hammer(blocks, ROUNDS, added);
    }
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  }
  STAGE("counters exact");
  int64_t *counters = local_addr_of(mine);
  int64_t *expected = xmalloc((size_t)n * n * sizeof *expected);
  ASSERT_OK(dart_allgather(added, expected, (size_t)n * sizeof *added,
                           DART_TYPE_BYTE, DART_TEAM_ALL));
  for (int v = 0; v < n; ++v) {
    ASSERT_EQ(counters[counter_slot(v)], expected[(size_t)v * n + me]);
    ASSERT_EQ(counters[acc_slot(v)], expected[(size_t)v * n + me]);
  }

  STAGE("grown chunks reachable");
  dart_gptr_t *all = xmalloc((size_t)n * GROWN * sizeof *all);
  ASSERT_OK(dart_allgather(grown, all, GROWN * sizeof *all, DART_TYPE_BYTE,
                           DART_TEAM_ALL));
  int next = (me + 1) % n;
  for (int b = 0; b < GROWN; ++b) {
    dart_gptr_t g = all[(size_t)next * GROWN + b];
    dart_gptr_t last = g;
    last.addr_or_offs.offset += MIB - 1;
    char first_byte = 0, last_byte = 0;
    ASSERT_OK(dart_get_blocking(&first_byte, g, 1, DART_TYPE_BYTE,
                                DART_TYPE_BYTE));
    ASSERT_OK(dart_get_blocking(&last_byte, last, 1, DART_TYPE_BYTE,
                                DART_TYPE_BYTE));
    ASSERT_EQ(first_byte, (char)(next + b));
    ASSERT_EQ(last_byte, (char)(next - b));
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  /* The same the other way: half the units give their grown chunks back
   * (the last free empties the newest chunk, and all go at once) while
   * the others hammer, then swapped. */
  for (int phase = 0; phase < 2; ++phase) {
    STAGE("shrink phase %d", phase);
    if (me % 2 == phase) {
      for (int b = GROWN - 1; b >= 0; --b) {
        ASSERT_OK(dart_memfree(grown[b]));
      }
      struct local_pool_stats st;
      local_pool_stats(&st);
      ASSERT_EQ(st.committed, pool_shrinks() ? MIB : 32 * MIB);
      ASSERT_EQ(st.exposure.exposed, expected_exposed(&st));
    } else {
      hammer(blocks, ROUNDS, added);
    }
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  }
  STAGE("counters exact after the shrinks");
  ASSERT_OK(dart_allgather(added, expected, (size_t)n * sizeof *added,
                           DART_TYPE_BYTE, DART_TEAM_ALL));
  for (int v = 0; v < n; ++v) {
    ASSERT_EQ(counters[counter_slot(v)], expected[(size_t)v * n + me]);
    ASSERT_EQ(counters[acc_slot(v)], expected[(size_t)v * n + me]);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_memfree(mine));
  free(all);
  free(expected);
  free(added);
  free(blocks);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* An access past what a unit committed (inside its reservation, and with
 * DART_POOL_EXPOSURE=whole inside its window) is refused with
 * DART_ERR_INVAL, from node peers and through RMA alike, and the target
 * lives on. */
static void test_beyond_exposure(void)
{
  require_pool_env();
  struct local_pool_stats s;
  local_pool_stats(&s);
  uint64_t *exposed = xmalloc((size_t)n * sizeof *exposed);
  uint64_t my_exposed = s.committed;
  ASSERT_OK(dart_allgather(&my_exposed, exposed, sizeof my_exposed,
                           DART_TYPE_BYTE, DART_TEAM_ALL));
  for (int u = 0; u < n; ++u) {
    STAGE("unit %d's last exposed byte and the first one past it", u);
    dart_gptr_t g = { .unitid = u, .segid = DART_SEGMENT_LOCAL,
                      .teamid = DART_TEAM_ALL };
    g.addr_or_offs.offset = exposed[u] - 8;
    int64_t value = 0;
    ASSERT_OK(dart_get_blocking(&value, g, 1, DART_TYPE_LONGLONG,
                                DART_TYPE_LONGLONG));
    g.addr_or_offs.offset = exposed[u];
    int saved = mute_log();
    ASSERT_RET(dart_get_blocking(&value, g, 1, DART_TYPE_LONGLONG,
                                 DART_TYPE_LONGLONG),
               DART_ERR_INVAL);
    ASSERT_RET(dart_put_blocking(g, &value, 1, DART_TYPE_LONGLONG,
                                 DART_TYPE_LONGLONG),
               DART_ERR_INVAL);
    g.addr_or_offs.offset = exposed[u] - 4;
    ASSERT_RET(dart_put_blocking(g, &value, 1, DART_TYPE_LONGLONG,
                                 DART_TYPE_LONGLONG),
               DART_ERR_INVAL);
    restore_log(saved);
  }
  free(exposed);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* Grows to five chunks and gives them back: what the pool commits and
 * exposes returns to the first chunk (with prefix exposure among several
 * units; the whole reservation in one window stays as it is). */
static void test_shrink_back(void)
{
  require_pool_env();
  struct local_pool_stats s;
  local_pool_stats(&s);
  STAGE("at the start");
  bool shrinking = pool_shrinks();
  if (shrinking) { /* the cases before gave everything back */
    ASSERT_EQ(s.committed, MIB);
    ASSERT_EQ(s.chunks, 1);
  }
  unsigned long shrinks = s.exposure.shrinks;
  enum { BLOCKS = 16 };
  dart_gptr_t blocks[BLOCKS];
  for (int b = 0; b < BLOCKS; ++b) {
    ASSERT_OK(dart_memalloc(MIB, DART_TYPE_BYTE, &blocks[b]));
    memset(local_addr_of(blocks[b]), b, MIB);
  }
  local_pool_stats(&s);
  size_t grown = s.committed;
  if (shrinking) {
    ASSERT_EQ(s.committed, 16 * MIB);
    ASSERT_EQ(s.chunks, 5);
  }
  /* Every block was written whole: /dev/shm holds what is committed. */
  ASSERT_MSG(s.backed >= 16 * MIB, "the pool's file holds %zu bytes",
             s.backed);
  /* Newest first: each free empties a chunk that is the newest by then,
   * so the pool shrinks chunk by chunk. */
  for (int b = BLOCKS - 1; b >= 0; --b) {
    STAGE("free block %d", b);
    char *p = local_addr_of(blocks[b]);
    ASSERT_EQ(p[0], (char)b);
    ASSERT_EQ(p[MIB - 1], (char)b);
    ASSERT_OK(dart_memfree(blocks[b]));
    local_pool_stats(&s);
    ASSERT_EQ(s.exposure.exposed, expected_exposed(&s));
  }
  STAGE("after the frees");
  if (shrinking) {
    ASSERT_EQ(s.committed, MIB);
    ASSERT_EQ(s.chunks, 1);
    ASSERT_EQ(s.exposure.exposed, expected_exposed(&s));
    /* The pages went back: /dev/shm holds at most the first chunk. */
    ASSERT_MSG(s.backed <= MIB, "the pool's file still holds %zu bytes",
               s.backed);
    /* Chunks of 8, 4, 2 and 1 MiB above the first one. */
    ASSERT_EQ(s.exposure.shrinks - shrinks, 4);
    ASSERT(s.exposure.last_change_ns >= s.exposure.last_grace.total_ns);
  } else {
    ASSERT_EQ(s.committed, grown);
    ASSERT_EQ(s.exposure.shrinks, 0);
  }
  STAGE("the pool grows again");
  ASSERT_OK(dart_memalloc(4 * MIB, DART_TYPE_BYTE, &blocks[0]));
  char *p = local_addr_of(blocks[0]);
  p[0] = 1;
  p[4 * MIB - 1] = 2; /* pages given back come back as new ones */
  ASSERT_OK(dart_memfree(blocks[0]));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* Every unit u's block blocks[u] starts with `base` + u. */
static void expect_values(const dart_gptr_t *blocks, int64_t base)
{
  for (int u = 0; u < n; ++u) {
    int64_t v = 0;
    ASSERT_OK(dart_get_blocking(&v, blocks[u], 1, DART_TYPE_LONGLONG,
                                DART_TYPE_LONGLONG));
    ASSERT_EQ(v, base + u);
  }
}

/* A block in a chunk its owner gave back is refused with DART_ERR_INVAL
 * by every other unit (node peers, whose caches held it, and RMA peers),
 * for put, get and atomics; the owner's remaining blocks stay reachable. */
static void test_released_access(void)
{
  require_pool_env();
  struct local_pool_stats s;
  local_pool_stats(&s);
  bool shrinks = pool_shrinks();
  if (shrinks) {
    ASSERT_EQ(s.chunks, 1);
  }
  STAGE("a block in the first chunk and one in a new chunk");
  dart_gptr_t keep, gone;
  ASSERT_OK(dart_memalloc(MIB / 2, DART_TYPE_BYTE, &keep));
  ASSERT_OK(dart_memalloc(MIB, DART_TYPE_BYTE, &gone));
  if (shrinks) {
    ASSERT_EQ(gone.addr_or_offs.offset, MIB);
  }
  *(int64_t *)local_addr_of(keep) = 1000 + me;
  *(int64_t *)local_addr_of(gone) = 2000 + me;
  dart_gptr_t *keeps = xmalloc((size_t)n * sizeof *keeps);
  dart_gptr_t *gones = xmalloc((size_t)n * sizeof *gones);
  ASSERT_OK(dart_allgather(&keep, keeps, sizeof keep, DART_TYPE_BYTE,
                           DART_TEAM_ALL));
  ASSERT_OK(dart_allgather(&gone, gones, sizeof gone, DART_TYPE_BYTE,
                           DART_TEAM_ALL));
  STAGE("every unit reads the others' blocks (and caches them)");
  expect_values(gones, 2000);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  STAGE("the owners free the blocks in the new chunks");
  local_pool_stats(&s);
  int chunks_before = s.chunks;
  ASSERT_OK(dart_memfree(gone));
  local_pool_stats(&s);
  ASSERT_EQ(s.chunks, shrinks ? 1 : chunks_before);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int u = 0; u < n; ++u) {
    if (u == me || !shrinks) {
      continue;
    }
    STAGE("unit %d's given-back chunk", u);
    int64_t v = 7, old = 0;
    int saved = mute_log();
    ASSERT_RET(dart_get_blocking(&v, gones[u], 1, DART_TYPE_LONGLONG,
                                 DART_TYPE_LONGLONG), DART_ERR_INVAL);
    ASSERT_RET(dart_put_blocking(gones[u], &v, 1, DART_TYPE_LONGLONG,
                                 DART_TYPE_LONGLONG), DART_ERR_INVAL);
    ASSERT_RET(dart_fetch_and_op(gones[u], &v, &old, DART_TYPE_LONGLONG,
                                 DART_OP_SUM), DART_ERR_INVAL);
    restore_log(saved);
  }
  STAGE("the owners' first chunks");
  expect_values(keeps, 1000);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_memfree(keep));
  free(keeps);
  free(gones);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* An empty chunk stays until it has been empty for DART_POOL_SHRINK_MS
 * (300 in the registration that runs this case alone), then goes at the
 * next free; with 0 it goes at once. */
static void test_hysteresis(void)
{
  require_pool_env();
  int delay_ms = runtime.env.pool_shrink_ms;
  struct local_pool_stats s;
  local_pool_stats(&s);
  bool shrinks = pool_shrinks();
  int chunks = s.chunks;
  dart_gptr_t anchor, big;
  ASSERT_OK(dart_memalloc(1024, DART_TYPE_BYTE, &anchor));
  ASSERT_OK(dart_memalloc(MIB, DART_TYPE_BYTE, &big));
  local_pool_stats(&s);
  int grown = s.chunks;
  if (shrinks) {
    ASSERT_EQ(grown, chunks + 1);
  }
  double freed_at = monotonic_seconds();
  ASSERT_OK(dart_memfree(big));
  local_pool_stats(&s);
  STAGE("right after the free");
  if (delay_ms == 0 || !shrinks) {
    ASSERT_EQ(s.chunks, shrinks ? chunks : grown);
  } else if (monotonic_seconds() - freed_at < 0.001 * delay_ms) {
    ASSERT_EQ(s.chunks, grown);
  }
  STAGE("one delay later, at the next free");
  double wait = 0.001 * delay_ms + 0.01 - (monotonic_seconds() - freed_at);
  if (wait > 0) {
    struct timespec ts = { (time_t)wait,
                           (long)((wait - (double)(time_t)wait) * 1e9) };
    nanosleep(&ts, NULL);
  }
  ASSERT_OK(dart_memfree(anchor));
  local_pool_stats(&s);
  ASSERT_EQ(s.chunks, shrinks ? chunks : grown);
  ASSERT_EQ(s.exposure.exposed, expected_exposed(&s));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* Allocation churn: random sizes from 1 KiB to 4 MiB (fixed seed), up to
 * 32 blocks live, freed in random order, for TEST_CHURN_S seconds
 * (default 1) and until 1 GiB, four times the reservation, passed through
 * (a count, not a rate: a slow machine takes longer): every allocation
 * succeeds, and what the pool commits stays bounded. */
static void test_churn(void)
{
  require_pool_env();
  const char *env = getenv("TEST_CHURN_S");
  double seconds = env != NULL ? atof(env) : 1.0;
  enum { LIVE = 32 };
  dart_gptr_t live[LIVE];
  size_t bytes[LIVE] = { 0 };
  unsigned seed = 12345u + (unsigned)me;
  size_t passed = 0, max_committed = 0;
  long rounds = 0;
  double start = monotonic_seconds();
  while (monotonic_seconds() - start < seconds || passed < 1024 * MIB) {
    int slot = (int)(rand_r(&seed) % LIVE);
    if (bytes[slot] != 0) {
      STAGE("round %ld: free %zu bytes", rounds, bytes[slot]);
      ASSERT_OK(dart_memfree(live[slot]));
      bytes[slot] = 0;
    } else {
      size_t b = (size_t)1024 << (rand_r(&seed) % 13); /* 1 KiB .. 4 MiB */
      STAGE("round %ld: allocate %zu bytes", rounds, b);
      ASSERT_OK(dart_memalloc(b, DART_TYPE_BYTE, &live[slot]));
      char *p = local_addr_of(live[slot]);
      p[0] = (char)slot;
      p[b - 1] = (char)slot;
      bytes[slot] = b;
      passed += b;
    }
    struct local_pool_stats st;
    local_pool_stats(&st);
    max_committed = st.committed > max_committed ? st.committed
                                                 : max_committed;
    ASSERT_EQ(st.exposure.exposed, expected_exposed(&st));
    ++rounds;
  }
  STAGE("after %ld rounds, %zu bytes allocated in all", rounds, passed);
  /* At most 32 blocks of at most 4 MiB live: 128 MiB, committed in
   * doubling chunks, fit in half the 256 MiB reservation. */
  ASSERT_MSG(max_committed <= 128 * MIB, "committed %zu bytes",
             max_committed);
  for (int i = 0; i < LIVE; ++i) {
    if (bytes[i] != 0) {
      char *p = local_addr_of(live[i]);
      ASSERT_EQ(p[0], (char)i);
      ASSERT_EQ(p[bytes[i] - 1], (char)i);
      ASSERT_OK(dart_memfree(live[i]));
    }
  }
  STAGE("after every block went back");
  struct local_pool_stats st;
  local_pool_stats(&st);
  if (pool_shrinks()) {
    ASSERT_EQ(st.committed, MIB);
    ASSERT_EQ(st.exposure.exposed, expected_exposed(&st));
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* A unit that changes its exposure flushes a flag to each RMA peer
 * (memory/pool_exposure.c), and under MPIs that need the target inside MPI
 * (UCX over TCP between hosts) the flush waits for that peer to enter it.
 * Unit 0 only takes and frees 1 KiB blocks, which never change its own
 * exposure; the last unit grows and shrinks its pool ROUNDS times and then
 * puts ROUNDS into a word of unit 0, which unit 0 reads with plain loads.
 * So all of it must complete while unit 0 does nothing but call
 * dart_memalloc and dart_memfree (progress.h, progress_visit). Without
 * that, it waits for unit 0's next MPI call: unit 0 gives up after 60 s. */
static void test_busy_peer(void)
{
  require_pool_env();
  ASSERT_MSG(n >= 2, "case busy_peer needs 2 units or more");
  enum { ROUNDS = 8 };
  dart_gptr_t word;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_LONG,
                                       &word));
  dart_gptr_t my_word = word;
  my_word.unitid = me;
  long *mine = local_addr_of(my_word);
  __atomic_store_n(mine, 0L, __ATOMIC_RELAXED);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  if (me == 0) {
    STAGE("unit 0 allocates until unit %d's word arrives", n - 1);
    long rounds = 0;
    double start = monotonic_seconds();
    while (__atomic_load_n(mine, __ATOMIC_ACQUIRE) == 0 &&
           monotonic_seconds() - start < 60) {
      dart_gptr_t g;
      ASSERT_OK(dart_memalloc(1024, DART_TYPE_BYTE, &g));
      ASSERT_OK(dart_memfree(g));
      ++rounds;
    }
    ASSERT_MSG(__atomic_load_n(mine, __ATOMIC_ACQUIRE) == ROUNDS,
               "unit %d's word did not arrive in 60 s of dart_memalloc "
               "and dart_memfree (%ld rounds)", n - 1, rounds);
  } else if (me == n - 1) {
    struct local_pool_stats before, s;
    local_pool_stats(&before);
    for (int r = 0; r < ROUNDS; ++r) {
      STAGE("round %d: grow and shrink", r);
      dart_gptr_t g;
      /* Twice what the pool committed: it grows by at least a chunk, and
       * the free gives that chunk back (DART_POOL_SHRINK_MS=0). */
      ASSERT_OK(dart_memalloc(2 * before.committed, DART_TYPE_BYTE, &g));
      ASSERT_OK(dart_memfree(g));
    }
    local_pool_stats(&s);
    /* A shrink per round, always guarded (node peers hold my size too);
     * a growth per round unless the whole reservation is exposed, guarded
     * when RMA peers are there. */
    unsigned long grows = s.exposure.whole ? 0 : ROUNDS;
    ASSERT_EQ(s.committed, before.committed);
    ASSERT_EQ(s.exposure.changes - before.exposure.changes, grows + ROUNDS);
    ASSERT_EQ(s.exposure.shrinks - before.exposure.shrinks, ROUNDS);
    ASSERT_EQ(s.exposure.guarded - before.exposure.guarded,
              (have_rma_peers() ? grows : 0) + ROUNDS);
    long value = ROUNDS;
    ASSERT_OK(dart_put_blocking(word, &value, 1, DART_TYPE_LONG,
                                DART_TYPE_LONG));
  }
  STAGE("after the rounds");
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(word));
}

static void setup(int *argc, char ***argv)
{
  test_dart_setup(argc, argv);
  me = test_me;
  n = test_units;
}

static const struct test_case cases[] = {
  { "accounting", test_accounting },
  { "grow_under_load", test_grow_under_load },
  { "beyond_exposure", test_beyond_exposure },
  { "shrink_back", test_shrink_back },
  { "released_access", test_released_access },
  { "churn", test_churn },
  { "busy_peer", test_busy_peer },
  { "hysteresis", test_hysteresis },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup,
                       test_dart_teardown);
}
