/* Deterministic fuzzing of one-sided communication: put/get in every form
 * (blocking, non-blocking + flush, handles + wait/test), with basic,
 * custom, strided and indexed types, and the atomics (accumulate,
 * fetch-and-op, compare-and-swap), with valid and invalid arguments.
 *
 * Oracle (dart-if/include/dash/dart/if/dart_communication.h,
 * dart_globmem.h and dart_types.h):
 *  - every unit owns one region in each peer's portion of each segment
 *    (a collective allocation, a registration, a local-pool block) and
 *    keeps a shadow of what that region must hold; puts and atomics go
 *    only to one's own regions, so after a barrier the owner of each
 *    portion compares its memory with the writers' shadows;
 *  - valid calls return DART_OK, log nothing and move exactly the right
 *    bytes (gets and fetched results are checked at once);
 *  - invalid calls (bad team, segment, unit, offsets past the portion,
 *    NULL buffers, huge or odd counts, type mismatches, undefined types,
 *    invalid operations, misaligned atomics) return DART_ERR_INVAL, log
 *    exactly one line and write nothing: guard bytes surround every local
 *    buffer and every region of the target memory, and are checked;
 *  - nothing crashes.
 *
 * usage: test_fuzz_rma [--seed S] [--iters N]
 *   S: the seed (default 20240601; each unit derives its own stream),
 *   N: calls per unit (default 2000), checked in rounds of 256. */
#include "test_fuzz_rma_core.h"
#include "test_fuzz_rma_transfers.h"
#include "test_fuzz_rma_atomics.h"

/* ---- segments and the checks of target memory --------------------------- */

static void fill_portion(int s, unsigned char *p, int owner)
{
  size_t size = portion_bytes(owner);
  for (size_t i = 0; i < size; ++i) {
    p[i] = canary(s, owner, i);
  }
  /* Regions start from a known pattern; their atomic words at zero. */
  for (int w = 0; w < nunits; ++w) {
    memset(p + region_off(w) + DATA, 0, ATOM);
  }
}

static void make_segments(void)
{
  size_t mine = portion_bytes(me);
  for (int s = 0; s < NSEG; ++s) {
    segs[s].base = calloc((size_t)nunits, sizeof(uint64_t));
    ASSERT(segs[s].base != NULL);
    segs[s].size_known = s != SEG_POOL;
  }
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, mine, DART_TYPE_BYTE,
                                       &segs[SEG_ALLOC].g));
  segs[SEG_REG].raw = malloc(OUTER + mine + OUTER);
  ASSERT(segs[SEG_REG].raw != NULL);
  memset(segs[SEG_REG].raw, 0xe7, OUTER + mine + OUTER);
  ASSERT_OK(dart_team_memregister(DART_TEAM_ALL, mine, DART_TYPE_BYTE,
                                  segs[SEG_REG].raw + OUTER,
                                  &segs[SEG_REG].g));
  dart_gptr_t block;
  ASSERT_OK(dart_memalloc(mine, DART_TYPE_BYTE, &block));
  uint64_t off = block.addr_or_offs.offset;
  MPI_Allgather(&off, 1, MPI_UINT64_T, segs[SEG_POOL].base, 1, MPI_UINT64_T,
                MPI_COMM_WORLD);
  segs[SEG_POOL].g = block;
  segs[SEG_POOL].g.unitid = 0;
  segs[SEG_POOL].g.addr_or_offs.offset = 0;
  for (int s = 0; s < NSEG; ++s) {
    void *addr = NULL;
    ASSERT_OK(dart_gptr_getaddr(gptr_to(s, me, 0), &addr));
    ASSERT(addr != NULL);
    segs[s].mine = addr;
    fill_portion(s, segs[s].mine, me);
    for (int owner = 0; owner < nunits; ++owner) {
      /* The shadow: my region as every owner initialized it. */
      unsigned char *full = malloc(portion_bytes(owner));
      ASSERT(full != NULL);
      fill_portion(s, full, owner);
      memcpy(shadow_of(s, owner), full + region_off(me), REG);
      free(full);
    }
  }
  /* A freed segment: its id must be unknown from now on. */
  dart_gptr_t gone;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 64, DART_TYPE_BYTE,
                                       &gone));
  freed_segid = gone.segid;
  ASSERT_OK(dart_team_memfree(gone));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

static void free_segments(void)
{
  ASSERT_OK(dart_team_memfree(segs[SEG_ALLOC].g));
  ASSERT_OK(dart_team_memderegister(segs[SEG_REG].g));
  dart_gptr_t block = gptr_to(SEG_POOL, me, 0);
  block.flags = 0;
  ASSERT_OK(dart_memfree(block));
  free(segs[SEG_REG].raw);
  for (int s = 0; s < NSEG; ++s) {
    free(segs[s].base);
  }
}

/* After a barrier: every guard of my portions is intact, and every
 * writer's region holds what its shadow says. */
static void check_memory(void)
{
  snprintf(what, sizeof what, "memory check after round %llu", round_no);
  last_log[0] = '\0';
  for (int s = 0; s < NSEG; ++s) {
    CHECK(dart_flush_all(gptr_to(s, 0, 0)) == DART_OK);
  }
  CHECK(dart_barrier(DART_TEAM_ALL) == DART_OK);
  unsigned char *recv = malloc((size_t)nunits * REG);
  ASSERT(recv != NULL);
  for (int s = 0; s < NSEG; ++s) {
    const unsigned char *p = segs[s].mine;
    size_t size = portion_bytes(me);
    for (size_t i = 0; i < size; ++i) {
      size_t slot = i < GUARD ? 0 : (i - GUARD) % (REG + GUARD);
      bool guard = i < GUARD || slot >= REG || i >= region_off(nunits);
      if (guard && p[i] != canary(s, me, i)) {
        FAIL("%s segment: guard byte %zu of my portion is 0x%02x, expected "
             "0x%02x", seg_names[s], i, p[i], canary(s, me, i));
      }
    }
    if (s == SEG_REG) {
      const unsigned char *raw = segs[s].raw;
      for (size_t i = 0; i < OUTER; ++i) {
        if (raw[i] != 0xe7 || raw[OUTER + size + i] != 0xe7) {
          FAIL("registered segment: the memory around my portion was "
               "written (byte %zu before or after it)", i);
        }
      }
    }
    MPI_Alltoall(shadow_of(s, 0), REG, MPI_BYTE, recv, REG, MPI_BYTE,
                 MPI_COMM_WORLD);
    for (int w = 0; w < nunits; ++w) {
      const unsigned char *have = p + region_off(w), *want = recv + w * REG;
      if (memcmp(have, want, REG) != 0) {
        size_t i = 0;
        while (have[i] == want[i]) {
          ++i;
        }
        FAIL("%s segment: byte %zu of unit %d's region in my portion is "
             "0x%02x, its writer expects 0x%02x", seg_names[s], i, w,
             have[i], want[i]);
      }
    }
  }
  free(recv);
  CHECK(dart_barrier(DART_TEAM_ALL) == DART_OK);
}

/* ---- main --------------------------------------------------------------- */

static unsigned long long parse_number(const char *s, const char *name)
{
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno != 0 || end == s || *end != '\0') {
    fprintf(stderr, "test_fuzz_rma: %s must be a number, not '%s'\n", name,
            s);
    exit(2);
  }
  return v;
}

static unsigned long long seed = 20240601, iters = 2000;

static void setup(int *argc, char ***argv)
{
  for (int i = 1; i < *argc; ++i) {
    if (strcmp((*argv)[i], "--seed") == 0 && i + 1 < *argc) {
      seed = parse_number((*argv)[++i], "--seed");
    } else if (strcmp((*argv)[i], "--iters") == 0 && i + 1 < *argc) {
      iters = parse_number((*argv)[++i], "--iters");
    } else {
      fprintf(stderr, "usage: test_fuzz_rma [--seed S] [--iters N]\n");
      exit(2);
    }
  }
  test_start(argc, argv, &me, &nunits);
}

/* The rounds build on each other (the shadow copy of target memory):
 * one case. */
static void random_calls(void)
{
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  ASSERT_EQ(rank, me);
  rng = seed * 0x100000001b3ull ^ ((uint64_t)me << 48) ^ 0x5eedull;
  shadow = calloc((size_t)NSEG * (size_t)nunits, REG);
  ASSERT(shadow != NULL);
  make_types();
  make_segments();
  capture_log();

  unsigned long long rounds = (iters + ROUND_OPS - 1) / ROUND_OPS;
  for (round_no = 0; round_no < rounds; ++round_no) {
    unsigned long long left = iters - round_no * ROUND_OPS;
    unsigned long long count = left < ROUND_OPS ? left : ROUND_OPS;
    for (unsigned long long c = 0; c < count; ++c, ++call_no) {
      uint64_t pick = below(100);
      if (pick < 35) {
        valid_transfer();
      } else if (pick < 60) {
        invalid_transfer();
      } else if (pick < 63) {
        zero_transfer();
      } else if (pick < 83) {
        valid_atomic();
      } else {
        invalid_atomic();
      }
    }
    check_memory();
  }
  release_log();

  unsigned long long total[NSTATS];
  MPI_Reduce(stats, total, NSTATS, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0,
             MPI_COMM_WORLD);
  free_segments();
  for (int i = NBASIC; i < ntypes; ++i) {
    ASSERT_OK(dart_type_destroy(&types[i].id));
  }
  ASSERT_OK(dart_op_destroy(&user_op));
  free(shadow);
  if (me == 0) {
    printf("test_fuzz_rma: seed %llu, %d units, %llu calls (%llu valid, "
           "%llu invalid, %llu zero-count; %llu put/get, %llu atomics), "
           "%llu rounds checked\n", seed, nunits,
           total[ST_VALID] + total[ST_INVALID] + total[ST_ZERO],
           total[ST_VALID], total[ST_INVALID], total[ST_ZERO],
           total[ST_PUTGET], total[ST_ATOMIC], rounds);
  }
}

static const struct test_case cases[] = {
  { "random_calls", random_calls },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup,
                       test_dart_teardown);
}
