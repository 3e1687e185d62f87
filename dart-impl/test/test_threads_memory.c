/* Memory calls under threads (dart_init_thread granting
 * DART_THREAD_MULTIPLE), as dart-if/include/dash/dart/if/dart.h allows
 * them:
 *
 * - local_pool: every thread allocates and frees blocks of the local pool
 *   (dart_memalloc, MT-safe; dart_memfree, MT-safe for distinct blocks),
 *   sizes from a fixed-seed generator, up to LIVE blocks at a time. It
 *   fills each new block with a pattern of its own through
 *   dart_put_blocking and reads it back with dart_get_blocking before
 *   freeing it, and converts its last byte to a native address and back.
 *   Two threads handed overlapping blocks, or a block that a growth or
 *   shrink of the pool moved or dropped (the registrations set a 1 MiB
 *   pool that shrinks at once), read back wrong.
 * - allocator: the same on one pool allocator of DART_TEAM_ALL
 *   (dart_allocator_alloc, MT-safe; dart_allocator_free, MT-safe for
 *   distinct blocks), whose pool has a fixed size.
 * - team_segments: one team per thread, cloned up front; every thread
 *   allocates a collective segment on its own team (MT-team), puts a
 *   pattern into the next unit's portion, flushes, meets its team in a
 *   barrier, checks its own portion and frees the segment, round after
 *   round, all threads at once.
 *
 * - peer_pool: every thread puts to and gets back a block of its own in
 *   the next unit's local pool, while thread 0 of every unit grows its own
 *   pool past its size and shrinks it again now and then. Each shrink
 *   raises the owner's change flag at every unit, and the threads of a
 *   unit share that flag: one thread's refresh must not let another use
 *   a size it has not read (memory/pool_exposure.c). A block read back
 *   wrong, or refused, fails.
 *
 * argv[1]: rounds (default 10000 blocks per thread, a 200th of that, at
 * least 5, in team rounds). Without MPI_THREAD_MULTIPLE the test fails: the
 * registrations run it where both MPIs grant it. */
#include "test_threads.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 4, LIVE = 8, MAX_BLOCK_LOG2 = 16, ALARM_S = 200 };

static int me, n;
static long rounds = 10000;
static dart_team_t teams[THREADS];

/* xorshift64: the same sequence in every run. */
static uint64_t next_random(uint64_t *state)
{
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *state = x;
}

/* How the block cases allocate and free: the local pool or an
 * allocator. */
static dart_allocator_t allocator; /* NULL: the local pool */

static void block_alloc(size_t bytes, dart_gptr_t *g)
{
  if (allocator == NULL) {
    ASSERT_OK(dart_memalloc(bytes, DART_TYPE_BYTE, g));
  } else {
    ASSERT_OK(dart_allocator_alloc(bytes, DART_TYPE_BYTE, g, allocator));
  }
}

static void block_free(dart_gptr_t *g)
{
  if (allocator == NULL) {
    ASSERT_OK(dart_memfree(*g));
  } else {
    ASSERT_OK(dart_allocator_free(g, allocator));
  }
}

static unsigned char pattern(int unit, int thread, long round, size_t k)
{
  return (unsigned char)(unit * 29 + thread * 71 + round * 13 + k * 7 +
                         (k >> 8));
}

struct block {
  dart_gptr_t g;
  size_t      bytes;
  long        round; /* whose pattern it holds */
};

static void fill(struct block *b, int thread, unsigned char *buf)
{
  for (size_t k = 0; k < b->bytes; ++k) {
    buf[k] = pattern(me, thread, b->round, k);
  }
  ASSERT_OK(dart_put_blocking(b->g, buf, b->bytes, DART_TYPE_BYTE,
                              DART_TYPE_BYTE));
  /* Native address and back (dart_gptr_getaddr, dart_gptr_setaddr: both
   * MT-safe) while other threads grow and shrink the pool under it. */
  unsigned char *native = NULL;
  ASSERT_OK(dart_gptr_getaddr(b->g, (void **)&native));
  ASSERT(native != NULL && native[b->bytes - 1] == buf[b->bytes - 1]);
  dart_gptr_t back = b->g;
  ASSERT_OK(dart_gptr_setaddr(&back, native + b->bytes - 1));
  ASSERT_EQ(back.addr_or_offs.offset, b->g.addr_or_offs.offset + b->bytes - 1);
}

static void check_and_free(struct block *b, int thread, unsigned char *buf)
{
  memset(buf, 0, b->bytes);
  ASSERT_OK(dart_get_blocking(buf, b->g, b->bytes, DART_TYPE_BYTE,
                              DART_TYPE_BYTE));
  for (size_t k = 0; k < b->bytes; ++k) {
    ASSERT_MSG(buf[k] == pattern(me, thread, b->round, k),
               "thread %d: block of %zu bytes from round %ld, byte %zu "
               "changed", thread, b->bytes, b->round, k);
  }
  block_free(&b->g);
  b->bytes = 0;
}

static void *block_worker(void *arg)
{
  int t = (int)(intptr_t)arg;
  uint64_t state = 0x9e3779b97f4a7c15ull ^ (uint64_t)(me * THREADS + t + 1);
  unsigned char *buf = xmalloc((size_t)1 << MAX_BLOCK_LOG2);
  struct block live[LIVE] = { 0 };
  for (long r = 0; r < rounds; ++r) {
    if (t == 0 && allocator == NULL && r % 64 == 0) {
      /* Past the 1 MiB pool: it grows, and shrinks again at the free. */
      dart_gptr_t big;
      block_alloc((size_t)3 << 19, &big);
      block_free(&big);
    }
    struct block *b = &live[next_random(&state) % LIVE];
    if (b->bytes != 0) {
      check_and_free(b, t, buf);
    }
    /* 1 byte to 64 KiB, small sizes as often as large ones. */
    unsigned shift = (unsigned)(next_random(&state) % (MAX_BLOCK_LOG2 + 1));
    size_t bytes = 1 + next_random(&state) % ((size_t)1 << shift);
    block_alloc(bytes, &b->g);
    b->bytes = bytes;
    b->round = r;
    fill(b, t, buf);
  }
  for (int i = 0; i < LIVE; ++i) {
    if (live[i].bytes != 0) {
      check_and_free(&live[i], t, buf);
    }
  }
  free(buf);
  return NULL;
}

static void *team_worker(void *arg)
{
  int t = (int)(intptr_t)arg;
  dart_team_t team = teams[t];
  enum { WORDS = 64 };
  /* A collective allocation with 4 threads per unit on each of the 2
   * cores takes some 20 ms under Open MPI: 50 rounds at the default. */
  long team_rounds = rounds / 200 > 5 ? rounds / 200 : 5;
  for (long r = 0; r < team_rounds; ++r) {
    dart_gptr_t g;
    /* Portions of different sizes on every unit, round and thread. */
    size_t words = WORDS + (size_t)((me + t + r) % 3) * WORDS;
    ASSERT_OK(dart_team_memalloc_aligned(team, words, DART_TYPE_LONGLONG,
                                         &g));
    long long out[WORDS], got[WORDS];
    for (int k = 0; k < WORDS; ++k) {
      out[k] = ((long long)me << 40) + ((long long)t << 32) + r * WORDS + k;
    }
    dart_gptr_t next = gptr_at(g, (me + 1) % n, 0);
    ASSERT_OK(dart_put(next, out, WORDS, DART_TYPE_LONGLONG,
                       DART_TYPE_LONGLONG));
    ASSERT_OK(dart_flush(next));
    ASSERT_OK(dart_barrier(team));
    ASSERT_OK(dart_get_blocking(got, gptr_at(g, me, 0), WORDS,
                                DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
    int prev = (me + n - 1) % n;
    for (int k = 0; k < WORDS; ++k) {
      ASSERT_EQ(got[k],
                ((long long)prev << 40) + ((long long)t << 32) + r * WORDS + k);
    }
    /* Nobody frees before everyone has read (dart_team_memfree). */
    ASSERT_OK(dart_barrier(team));
    ASSERT_OK(dart_team_memfree(g));
  }
  return NULL;
}

enum { PEER_WORDS = 8 };
static dart_gptr_t *peer_blocks; /* unit -> its THREADS blocks */

static void *peer_pool_worker(void *arg)
{
  int t = (int)(intptr_t)arg;
  int next = (me + 1) % n;
  dart_gptr_t g = peer_blocks[next * THREADS + t];
  long out[PEER_WORDS], got[PEER_WORDS];
  test_threads_line_up();
  for (long r = 0; r < rounds; ++r) {
    if (t == 0 && r % 64 == 0) {
      dart_gptr_t big; /* past the 1 MiB pool, and back at the free */
      ASSERT_OK(dart_memalloc((size_t)3 << 19, DART_TYPE_BYTE, &big));
      ASSERT_OK(dart_memfree(big));
    }
    for (int k = 0; k < PEER_WORDS; ++k) {
      out[k] = ((long)me << 48) + ((long)t << 40) + r * PEER_WORDS + k;
      got[k] = -1;
    }
    ASSERT_OK(dart_put_blocking(g, out, PEER_WORDS, DART_TYPE_LONG,
                                DART_TYPE_LONG));
    ASSERT_OK(dart_get_blocking(got, g, PEER_WORDS, DART_TYPE_LONG,
                                DART_TYPE_LONG));
    for (int k = 0; k < PEER_WORDS; ++k) {
      ASSERT_EQ(got[k], out[k]);
    }
  }
  return NULL;
}

static void peer_pool(void)
{
  dart_gptr_t mine[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    ASSERT_OK(dart_memalloc(PEER_WORDS, DART_TYPE_LONG, &mine[t]));
  }
  peer_blocks = xmalloc((size_t)n * THREADS * sizeof *peer_blocks);
  ASSERT_OK(dart_allgather(mine, peer_blocks, sizeof mine, DART_TYPE_BYTE,
                           DART_TEAM_ALL));
  test_threads_run(THREADS, peer_pool_worker);
  /* Nobody frees a block before the unit before it is done with it. */
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int t = 0; t < THREADS; ++t) {
    ASSERT_OK(dart_memfree(mine[t]));
  }
  free(peer_blocks);
}

static void setup(int *argc, char ***argv)
{
  test_threads_start(argc, argv, &me, &n, &rounds, ALARM_S);
}

static void local_pool(void)
{
  test_threads_run(THREADS, block_worker);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* Room for every thread's LIVE largest blocks, twice over. */
enum { ALLOCATOR_POOL = 2 * THREADS * LIVE << MAX_BLOCK_LOG2 };

static void allocator_pool(void)
{
  ASSERT_OK(dart_allocator_new(ALLOCATOR_POOL, DART_TEAM_ALL, &allocator));
  test_threads_run(THREADS, block_worker);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_allocator_destroy(&allocator));
  ASSERT(allocator == NULL);
}

static void team_segments(void)
{
  for (int t = 0; t < THREADS; ++t) {
    ASSERT_OK(dart_team_clone(DART_TEAM_ALL, &teams[t]));
  }
  test_threads_run(THREADS, team_worker);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int t = 0; t < THREADS; ++t) {
    ASSERT_OK(dart_team_destroy(&teams[t]));
  }
}

static const struct test_case cases[] = {
  { "local_pool", local_pool },
  { "allocator", allocator_pool },
  { "team_segments", team_segments },
  { "peer_pool", peer_pool },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup,
                       test_dart_teardown);
}
