/* Contiguous one-sided transfers completed by flushes and barriers
 * (dart-if/include/dash/dart/if/dart_communication.h): blocking put/get
 * between every pair of units for several sizes and types, every byte
 * count up to 300 with the bytes around it untouched, non-blocking
 * put/get with every flush, large transfers in every form (around the
 * pieces MPI transfers may be cut into), a burst of thousands of small
 * puts completed by one flush, and the memory model across the
 * shared-memory and RMA paths (docs/design.md, "The fast path"). Handles
 * are test_onesided_types.c's, refused input test_onesided_errors.c's.
 * Shared part: test_onesided_common.h. */
#include "test_onesided_common.h"

/* ---------------------------------------------------------------------
 * Blocking put/get between every pair of units.
 * --------------------------------------------------------------------- */

struct xfer_case {
  dart_datatype_t type;
  size_t          count;
};

static const struct xfer_case pair_cases[] = {
  { DART_TYPE_BYTE, 1 },      { DART_TYPE_BYTE, 7 },
  { DART_TYPE_BYTE, 1000 },   { DART_TYPE_BYTE, 100000 },
  { DART_TYPE_SHORT, 3 },     { DART_TYPE_INT, 250 },
  { DART_TYPE_ULONGLONG, 125 }, { DART_TYPE_DOUBLE, 12500 },
  { DART_TYPE_LONG_DOUBLE, 7 }, { DART_TYPE_FLOAT, 1 },
};
#define NPAIR_CASES (sizeof pair_cases / sizeof *pair_cases)

/* Where case ci lives in a portion: 16-byte aligned regions with 16
 * bytes of slack, shifted by `shift` (0 or 8) inside the slack. */
static size_t region_of(size_t ci, size_t shift)
{
  size_t off = 0;
  for (size_t i = 0; i < ci; ++i) {
    off += (pair_cases[i].count * tsize(pair_cases[i].type) + 31) / 16 * 16;
  }
  return off + shift;
}

static void test_pairwise(const struct ctx *c, size_t ncases)
{
  size_t total = region_of(ncases, 0);
  dart_gptr_t seg = alloc_portions(c, total);
  char *mine = local_base(seg, c->me);
  size_t maxbytes = 0;
  for (size_t ci = 0; ci < ncases; ++ci) {
    size_t b = pair_cases[ci].count * tsize(pair_cases[ci].type);
    maxbytes = b > maxbytes ? b : maxbytes;
  }
  unsigned char *buf = xmalloc(maxbytes + 64);
  for (int k = 0; k < c->n; ++k) {
    int dst = (c->me + k) % c->n, from = (c->me - k + c->n) % c->n;
    size_t shift = (size_t)(k % 2) * 8;
    for (size_t ci = 0; ci < ncases; ++ci) {
      dart_datatype_t t = pair_cases[ci].type;
      size_t cnt = pair_cases[ci].count;
      if (shift != 0 && tsize(t) > 8) {
        continue; /* keep long double aligned */
      }
      STAGE("%s: blocking put of %zu %s to team unit %d (k=%d)", c->label,
            cnt, tname(t), dst, k);
      fill(t, buf, cnt, key(c->global_of[c->me], (int)ci * 4 + k % 4));
      ASSERT_OK(dart_put_blocking(gptr_at(seg, dst, region_of(ci, shift)), buf,
                                  cnt, t, t));
    }
    ASSERT_OK(dart_barrier(c->team));
    for (size_t ci = 0; ci < ncases; ++ci) {
      dart_datatype_t t = pair_cases[ci].type;
      size_t cnt = pair_cases[ci].count;
      if (shift != 0 && tsize(t) > 8) {
        continue;
      }
      /* What the origin put, read locally. */
      STAGE("%s: local read of %zu %s put by team unit %d (k=%d)", c->label,
            cnt, tname(t), from, k);
      check_fill(t, mine + region_of(ci, shift), cnt,
                 key(c->global_of[from], (int)ci * 4 + k % 4));
      /* What I put, read back from the target. */
      STAGE("%s: blocking get of %zu %s from team unit %d (k=%d)", c->label,
            cnt, tname(t), dst, k);
      size_t bytes = cnt * tsize(t);
      memset(buf, POISON, bytes + 64);
      ASSERT_OK(dart_get_blocking(buf, gptr_at(seg, dst, region_of(ci, shift)),
                                  cnt, t, t));
      check_fill(t, buf, cnt, key(c->global_of[c->me], (int)ci * 4 + k % 4));
      ASSERT_POISON(buf, bytes, 64);
    }
    ASSERT_OK(dart_barrier(c->team));
  }
  free(buf);
  ASSERT_OK(dart_team_memfree(seg));
}

/* ---------------------------------------------------------------------
 * Every byte count from 1 to EVERY_SIZE_MAX, blocking and non-blocking:
 * the shared-memory path copies small sizes with overlapping fixed-size
 * moves, one branch per size class (rma/onesided.c, direct_copy), and
 * each of the four entries has its own inlined copy of it, so each count
 * is checked exactly through each entry, with the bytes around it
 * untouched, past the inline limit into the C library's copy.
 * --------------------------------------------------------------------- */

enum { EVERY_SIZE_MAX = 400, EVERY_SIZE_GAP = 32 };

/* Offset of the region of `bytes` bytes: regions in increasing size,
 * EVERY_SIZE_GAP bytes apart, so they start at every alignment. */
static size_t every_size_offset(size_t bytes)
{
  return bytes * EVERY_SIZE_GAP + (bytes - 1) * bytes / 2;
}

/* The image a portion must hold after origin `from` put every size. */
static void every_size_image(unsigned char *img, size_t total, int from)
{
  memset(img, POISON, total);
  for (size_t b = 1; b <= EVERY_SIZE_MAX; ++b) {
    fill(DART_TYPE_BYTE, img + every_size_offset(b), b,
         key(from, (int)(b % 60)));
  }
}

static void test_every_size(const struct ctx *c)
{
  size_t total = every_size_offset(EVERY_SIZE_MAX + 1);
  dart_gptr_t seg = alloc_portions(c, total);
  char *mine = local_base(seg, c->me);
  int dst = (c->me + 1) % c->n, from = (c->me - 1 + c->n) % c->n;
  unsigned char *buf = xmalloc(EVERY_SIZE_MAX + 64);
  unsigned char *img = xmalloc(total);
  every_size_image(img, total, c->global_of[from]);
  for (int blocking = 1; blocking >= 0; --blocking) {
    const char *form = blocking ? "blocking" : "non-blocking";
    memset(mine, POISON, total);
    ASSERT_OK(dart_barrier(c->team));
    for (size_t b = 1; b <= EVERY_SIZE_MAX; ++b) {
      STAGE("%s: %s put of %zu bytes to team unit %d", c->label, form, b,
            dst);
      fill(DART_TYPE_BYTE, buf, b, key(c->global_of[c->me], (int)(b % 60)));
      dart_gptr_t g = gptr_at(seg, dst, every_size_offset(b));
      if (blocking) {
        ASSERT_OK(dart_put_blocking(g, buf, b, DART_TYPE_BYTE,
                                    DART_TYPE_BYTE));
      } else {
        ASSERT_OK(dart_put(g, buf, b, DART_TYPE_BYTE, DART_TYPE_BYTE));
        ASSERT_OK(dart_flush(g)); /* buf is refilled next round */
      }
    }
    ASSERT_OK(dart_barrier(c->team));
    STAGE("%s: portion after every %s size from team unit %d", c->label,
          form, from);
    for (size_t i = 0; i < total; ++i) {
      if ((unsigned char)mine[i] != img[i]) {
        FAILF("%s: byte %zu of my portion is 0x%02x, expected 0x%02x (%s "
              "puts from team unit %d)", c->label, i,
              (unsigned char)mine[i], img[i], form, from);
      }
    }
    for (size_t b = 1; b <= EVERY_SIZE_MAX; ++b) {
      STAGE("%s: %s get of %zu bytes from team unit %d", c->label, form, b,
            dst);
      memset(buf, POISON, EVERY_SIZE_MAX + 64);
      dart_gptr_t g = gptr_at(seg, dst, every_size_offset(b));
      if (blocking) {
        ASSERT_OK(dart_get_blocking(buf, g, b, DART_TYPE_BYTE,
                                    DART_TYPE_BYTE));
      } else {
        ASSERT_OK(dart_get(buf, g, b, DART_TYPE_BYTE, DART_TYPE_BYTE));
        ASSERT_OK(dart_flush_local(g));
      }
      check_fill(DART_TYPE_BYTE, buf, b,
                 key(c->global_of[c->me], (int)(b % 60)));
      ASSERT_POISON(buf, b, 64);
    }
    ASSERT_OK(dart_barrier(c->team)); /* before the next form's poison */
  }
  free(img);
  free(buf);
  ASSERT_OK(dart_team_memfree(seg));
}

/* ---------------------------------------------------------------------
 * Non-blocking put/get and the four flushes.
 * --------------------------------------------------------------------- */

static void put_round(const struct ctx *c, dart_gptr_t seg, int purpose,
                      long *src)
{
  for (int t = 0; t < c->n; ++t) {
    long *s = src + (size_t)t * SLOT;
    fill(DART_TYPE_LONG, s, SLOT, key(c->global_of[c->me], purpose + t));
    ASSERT_OK(dart_put(gptr_at(seg, t, slot_of(c->me)), s, SLOT,
                       DART_TYPE_LONG, DART_TYPE_LONG));
  }
}

/* The ways of completing a round of gets, one row each. */
enum { GET_FLUSH_LOCAL, GET_FLUSH_LOCAL_ALL, GET_FLUSH_AND_ALL };
static const char *const get_completion[] = {
  "dart_get + dart_flush_local per target",
  "dart_get + dart_flush_local_all",
  "dart_get + dart_flush (even targets) / dart_flush_all",
};

static void test_nonblocking(const struct ctx *c)
{
  dart_gptr_t seg = alloc_portions(c, (size_t)c->n * SLOT * sizeof(long));
  long *src = xmalloc((size_t)c->n * SLOT * sizeof(long));
  long *dst = xmalloc((size_t)c->n * SLOT * sizeof(long));

  STAGE("%s: dart_put + dart_flush per target", c->label);
  put_round(c, seg, 0, src);
  for (int t = 0; t < c->n; ++t) {
    ASSERT_OK(dart_flush(gptr_at(seg, t, 0)));
  }
  ASSERT_OK(dart_barrier(c->team));
  check_round(c, seg, 0);
  ASSERT_OK(dart_barrier(c->team));

  STAGE("%s: dart_put + dart_flush_all", c->label);
  put_round(c, seg, 8, src);
  ASSERT_OK(dart_flush_all(seg));
  ASSERT_OK(dart_barrier(c->team));
  check_round(c, seg, 8);

  /* Gets of what everybody put into everybody (read only from here): the
   * first row reads at target t the slot of unit me + t, which somebody
   * else wrote, the others my own slot. */
  for (int row = GET_FLUSH_LOCAL; row <= GET_FLUSH_AND_ALL; ++row) {
    STAGE("%s: %s", c->label, get_completion[row]);
    memset(dst, POISON, (size_t)c->n * SLOT * sizeof(long));
    for (int t = 0; t < c->n; ++t) {
      int o = row == GET_FLUSH_LOCAL ? (c->me + t) % c->n : c->me;
      ASSERT_OK(dart_get(dst + (size_t)t * SLOT, gptr_at(seg, t, slot_of(o)),
                         SLOT, DART_TYPE_LONG, DART_TYPE_LONG));
      if (row == GET_FLUSH_AND_ALL && t % 2 == 0) {
        ASSERT_OK(dart_flush(gptr_at(seg, t, 0)));
      }
    }
    if (row == GET_FLUSH_LOCAL) {
      for (int t = 0; t < c->n; ++t) {
        ASSERT_OK(dart_flush_local(gptr_at(seg, t, 0)));
      }
    } else if (row == GET_FLUSH_LOCAL_ALL) {
      ASSERT_OK(dart_flush_local_all(seg));
    } else {
      ASSERT_OK(dart_flush_all(seg));
    }
    for (int t = 0; t < c->n; ++t) {
      check_slot(c, dst, t, row == GET_FLUSH_LOCAL ? (c->me + t) % c->n : c->me,
                 8);
    }
  }
  ASSERT_OK(dart_barrier(c->team));

  /* After flush_local the source may be reused: overwriting it must not
   * change what arrives. */
  STAGE("%s: dart_put, flush_local, reuse source, flush", c->label);
  put_round(c, seg, 16, src);
  for (int t = 0; t < c->n; ++t) {
    ASSERT_OK(dart_flush_local(gptr_at(seg, t, 0)));
  }
  memset(src, 0, (size_t)c->n * SLOT * sizeof(long));
  for (int t = 0; t < c->n; ++t) {
    ASSERT_OK(dart_flush(gptr_at(seg, t, 0)));
  }
  ASSERT_OK(dart_barrier(c->team));
  check_round(c, seg, 16);
  ASSERT_OK(dart_barrier(c->team));

  free(src);
  free(dst);
  ASSERT_OK(dart_team_memfree(seg));
}

/* A large non-blocking transfer to the next unit and back. */
static void test_large_nonblocking(const struct ctx *c)
{
  const size_t count = 40000; /* doubles: 320 KB */
  STAGE("%s: large non-blocking put/get", c->label);
  dart_gptr_t seg = alloc_portions(c, count * sizeof(double));
  int next = (c->me + 1) % c->n, prev = (c->me + c->n - 1) % c->n;
  double *src = xmalloc(count * sizeof(double));
  fill(DART_TYPE_DOUBLE, src, count, key(c->global_of[c->me], 30));
  ASSERT_OK(dart_put(gptr_at(seg, next, 0), src, count, DART_TYPE_DOUBLE,
                     DART_TYPE_DOUBLE));
  ASSERT_OK(dart_flush(gptr_at(seg, next, 0)));
  ASSERT_OK(dart_barrier(c->team));
  check_fill(DART_TYPE_DOUBLE, local_base(seg, c->me), count,
             key(c->global_of[prev], 30));
  memset(src, POISON, count * sizeof(double));
  ASSERT_OK(dart_get(src, gptr_at(seg, next, 0), count, DART_TYPE_DOUBLE,
                     DART_TYPE_DOUBLE));
  ASSERT_OK(dart_flush_local(gptr_at(seg, next, 0)));
  check_fill(DART_TYPE_DOUBLE, src, count, key(c->global_of[c->me], 30));
  free(src);
  ASSERT_OK(dart_barrier(c->team));
  ASSERT_OK(dart_team_memfree(seg));
}

/* ---------------------------------------------------------------------
 * Large transfers in every form, at sizes around the pieces that MPI
 * transfers may be cut into (core/quirks.h, rma_piece_bytes: 32 KiB
 * under MPICH, DART_RMA_PIECE_KIB in the `pieces` runs), at an odd
 * offset, with the bytes around them untouched.
 * --------------------------------------------------------------------- */

enum { LARGE_FORMS = 6, LARGE_OFFSET = 3, LARGE_GAP = 64 };
static const char *const large_form[LARGE_FORMS] = {
  "dart_put_blocking", "dart_put + dart_flush", "dart_put_handle + dart_wait",
  "dart_get_blocking", "dart_get + dart_flush_local",
  "dart_get_handle + dart_wait_local",
};

static void large_transfer(int form, dart_gptr_t g, void *buf, size_t bytes)
{
  dart_handle_t h = DART_HANDLE_NULL;
  switch (form) {
  case 0:
    ASSERT_OK(dart_put_blocking(g, buf, bytes, DART_TYPE_BYTE,
                                DART_TYPE_BYTE));
    break;
  case 1:
    ASSERT_OK(dart_put(g, buf, bytes, DART_TYPE_BYTE, DART_TYPE_BYTE));
    ASSERT_OK(dart_flush(g));
    break;
  case 2:
    ASSERT_OK(dart_put_handle(g, buf, bytes, DART_TYPE_BYTE, DART_TYPE_BYTE,
                              &h));
    ASSERT_OK(dart_wait(&h));
    break;
  case 3:
    ASSERT_OK(dart_get_blocking(buf, g, bytes, DART_TYPE_BYTE,
                                DART_TYPE_BYTE));
    break;
  case 4:
    ASSERT_OK(dart_get(buf, g, bytes, DART_TYPE_BYTE, DART_TYPE_BYTE));
    ASSERT_OK(dart_flush_local(g));
    break;
  default:
    ASSERT_OK(dart_get_handle(buf, g, bytes, DART_TYPE_BYTE, DART_TYPE_BYTE,
                              &h));
    ASSERT_OK(dart_wait_local(&h));
    break;
  }
  ASSERT(h == DART_HANDLE_NULL);
}

static void test_large_forms(const struct ctx *c)
{
  /* Just above two and three 1 KiB pieces, just above 64 of them (a
   * flush between pieces), the same for 32 KiB pieces, and one not a
   * multiple of 8. */
  static const size_t sizes[] = { 2049, 3 * 1024 + 5, 65 * 1024 + 3,
                                  64 * 1024 + 1, 96 * 1024 + 7,
                                  2 * 1024 * 1024 + 4099 };
  enum { NSIZES = sizeof sizes / sizeof *sizes };
  const size_t largest = sizes[NSIZES - 1];
  size_t area = LARGE_OFFSET + largest + LARGE_GAP;
  dart_gptr_t seg = alloc_portions(c, area);
  unsigned char *mine = (unsigned char *)local_base(seg, c->me);
  unsigned char *buf = xmalloc(largest + 2 * LARGE_GAP);
  int next = (c->me + 1) % c->n, prev = (c->me + c->n - 1) % c->n;
  dart_gptr_t at = gptr_at(seg, next, LARGE_OFFSET);
  for (size_t si = 0; si < NSIZES; ++si) {
    size_t bytes = sizes[si];
    for (int form = 0; form < LARGE_FORMS; ++form) {
      bool is_put = form < 3;
      int k = key(c->global_of[c->me], (int)(si * LARGE_FORMS) + form);
      int k_prev = key(c->global_of[prev], (int)(si * LARGE_FORMS) + form);
      STAGE("%s: %s of %zu bytes to team unit %d", c->label,
            large_form[form], bytes, next);
      /* My portion: poison, or for gets what my predecessor will read. */
      memset(mine, POISON, area);
      if (!is_put) {
        fill(DART_TYPE_BYTE, mine + LARGE_OFFSET, bytes, k_prev);
      }
      memset(buf, POISON, largest + 2 * LARGE_GAP);
      if (is_put) {
        fill(DART_TYPE_BYTE, buf + LARGE_GAP, bytes, k);
      }
      ASSERT_OK(dart_barrier(c->team));
      large_transfer(form, at, buf + LARGE_GAP, bytes);
      ASSERT_OK(dart_barrier(c->team));
      if (is_put) {
        check_fill(DART_TYPE_BYTE, mine + LARGE_OFFSET, bytes, k_prev);
        ASSERT_POISON(mine, 0, LARGE_OFFSET);
        ASSERT_POISON(mine, LARGE_OFFSET + bytes, area - LARGE_OFFSET - bytes);
      } else {
        check_fill(DART_TYPE_BYTE, buf + LARGE_GAP, bytes, k);
        ASSERT_POISON(buf, 0, LARGE_GAP);
        ASSERT_POISON(buf, LARGE_GAP + bytes, LARGE_GAP);
      }
    }
  }
  free(buf);
  ASSERT_OK(dart_barrier(c->team));
  ASSERT_OK(dart_team_memfree(seg));
}

/* ---------------------------------------------------------------------
 * A burst of small puts and gets, completed by a single flush.
 * --------------------------------------------------------------------- */

#define BURST 3000

static void test_burst(const struct ctx *c)
{
  STAGE("%s: burst of %d single-element puts", c->label, BURST);
  dart_gptr_t seg = alloc_portions(c, BURST * sizeof(long));
  int next = (c->me + 1) % c->n, prev = (c->me + c->n - 1) % c->n;
  long *vals = xmalloc(BURST * sizeof(long));
  fill(DART_TYPE_LONG, vals, BURST, key(c->global_of[c->me], 31));
  /* Scattered order: element i goes out as the (i * 7 mod BURST)-th. */
  for (size_t j = 0; j < BURST; ++j) {
    size_t i = (j * 7) % BURST;
    ASSERT_OK(dart_put(gptr_at(seg, next, i * sizeof(long)), &vals[i], 1,
                       DART_TYPE_LONG, DART_TYPE_LONG));
  }
  ASSERT_OK(dart_flush(gptr_at(seg, next, 0)));
  ASSERT_OK(dart_barrier(c->team));
  check_fill(DART_TYPE_LONG, local_base(seg, c->me), BURST,
             key(c->global_of[prev], 31));

  STAGE("%s: burst of %d single-element gets", c->label, BURST);
  memset(vals, POISON, BURST * sizeof(long));
  for (size_t j = 0; j < BURST; ++j) {
    size_t i = (j * 11) % BURST;
    ASSERT_OK(dart_get(&vals[i], gptr_at(seg, next, i * sizeof(long)), 1,
                       DART_TYPE_LONG, DART_TYPE_LONG));
  }
  ASSERT_OK(dart_flush_local(gptr_at(seg, next, 0)));
  check_fill(DART_TYPE_LONG, vals, BURST, key(c->global_of[c->me], 31));

  /* dart_flush_all must complete every put of a burst into memory from
   * dart_memalloc (the local pool's own window), also the puts
   * the MPI library still queues for a target that is busy elsewhere:
   * Open MPI 4.1's osc/ucx MPI_Win_flush_all does not wait for those. */
  dart_gptr_t mine, *pools = xmalloc((size_t)c->n * sizeof *pools);
  ASSERT_OK(dart_memalloc(BURST, DART_TYPE_LONG, &mine));
  ASSERT_OK(dart_allgather(&mine, pools, sizeof mine, DART_TYPE_BYTE, c->team));
  long *landed = NULL;
  ASSERT_OK(dart_gptr_getaddr(mine, (void **)&landed));
  enum { ROUNDS = 30 };
  for (int r = 0; r < ROUNDS; ++r) {
    STAGE("%s: burst of %d puts into local-pool memory + dart_flush_all "
          "(round %d)", c->label, BURST, r);
    fill(DART_TYPE_LONG, vals, BURST, key(c->global_of[c->me], 40 + r));
    for (size_t i = 0; i < BURST; ++i) {
      dart_gptr_t g = pools[next];
      g.addr_or_offs.offset += i * sizeof(long);
      ASSERT_OK(dart_put(g, &vals[i], 1, DART_TYPE_LONG, DART_TYPE_LONG));
    }
    ASSERT_OK(dart_flush_all(pools[next]));
    ASSERT_OK(dart_barrier(c->team));
    check_fill(DART_TYPE_LONG, landed, BURST,
               key(c->global_of[prev], 40 + r));
    ASSERT_OK(dart_barrier(c->team));
  }
  ASSERT_OK(dart_memfree(mine));
  free(pools);
  free(vals);
  ASSERT_OK(dart_barrier(c->team));
  ASSERT_OK(dart_team_memfree(seg));
}

/* ---------------------------------------------------------------------
 * Memory model: local stores vs. remote access across a barrier.
 * --------------------------------------------------------------------- */

static void test_memory_model(const struct ctx *c)
{
  dart_gptr_t seg = alloc_portions(c, (size_t)c->n * SLOT * sizeof(long));
  long *mine = (long *)local_base(seg, c->me);
  long got[SLOT];
  for (int round = 0; round < 2; ++round) {
    /* (a) Store locally, barrier, everybody gets. */
    STAGE("%s: local store, barrier, remote get (round %d)", c->label,
          round);
    for (int o = 0; o < c->n; ++o) {
      fill(DART_TYPE_LONG, mine + (size_t)o * SLOT, SLOT,
           key(c->global_of[c->me], 20 + round * 2 + o % 2));
    }
    ASSERT_OK(dart_barrier(c->team));
    for (int t = 0; t < c->n; ++t) {
      memset(got, POISON, sizeof got);
      ASSERT_OK(dart_get_blocking(got, gptr_at(seg, t, slot_of(c->me)), SLOT,
                                  DART_TYPE_LONG, DART_TYPE_LONG));
      check_fill(DART_TYPE_LONG, got, SLOT,
                 key(c->global_of[t], 20 + round * 2 + c->me % 2));
    }
    ASSERT_OK(dart_barrier(c->team));
    /* (b) Put, flush, barrier, load locally (round 0: dart_put and
     * dart_flush per target; round 1: dart_flush_all). */
    STAGE("%s: put, flush, barrier, local load (round %d)", c->label,
          round);
    long *src = xmalloc((size_t)c->n * SLOT * sizeof(long));
    for (int t = 0; t < c->n; ++t) {
      long *s = src + (size_t)t * SLOT;
      fill(DART_TYPE_LONG, s, SLOT, key(c->global_of[c->me], 10 + t % 4));
      dart_gptr_t g = gptr_at(seg, t, slot_of(c->me));
      ASSERT_OK(dart_put(g, s, SLOT, DART_TYPE_LONG, DART_TYPE_LONG));
      if (round == 0) {
        ASSERT_OK(dart_flush(g));
      }
    }
    if (round == 1) {
      ASSERT_OK(dart_flush_all(seg));
    }
    free(src);
    ASSERT_OK(dart_barrier(c->team));
    for (int o = 0; o < c->n; ++o) {
      check_fill(DART_TYPE_LONG, mine + (size_t)o * SLOT, SLOT,
                 key(c->global_of[o], 10 + c->me % 4));
    }
    ASSERT_OK(dart_barrier(c->team));
  }
  ASSERT_OK(dart_team_memfree(seg));
}

/* ---------------------------------------------------------------------
 * Completion orders a store before the loads after it.
 * --------------------------------------------------------------------- */

/* The store-buffering pattern between team units 0 and 1, many times
 * over: each writes a slot of the other's portion, completes the write,
 * then reads the same slot of its own portion, which the other writes.
 * Once both writes are complete before either read, at least one of the
 * two reads sees the other's write; both reading 0 means a completion
 * call returned while the store still sat in the CPU's store buffer
 * (x86 lets a later load overtake an earlier store unless a locked
 * instruction or a fence comes between them). A broken completion shows
 * up within a few thousand rounds on two cores; the rounds go in blocks
 * that start together at a barrier. */
enum { ORDER_PUT_FLUSH, ORDER_PUT_HANDLE_WAIT, ORDER_ACCUMULATE_FLUSH,
       ORDER_PUT_FLUSH_ALL, ORDER_PUT_BLOCKING, ORDER_VARIANTS };
static const char *const order_variant_name[ORDER_VARIANTS] = {
  "dart_put + dart_flush", "dart_put_handle + dart_wait",
  "dart_accumulate + dart_flush", "dart_put + dart_flush_all",
  "dart_put_blocking",
};

static void complete_write(int variant, dart_gptr_t g)
{
  const long one = 1;
  dart_handle_t h = DART_HANDLE_NULL;
  switch (variant) {
  case ORDER_PUT_FLUSH:
    ASSERT_OK(dart_put(g, &one, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    ASSERT_OK(dart_flush(g));
    break;
  case ORDER_PUT_HANDLE_WAIT:
    ASSERT_OK(dart_put_handle(g, &one, 1, DART_TYPE_LONG, DART_TYPE_LONG,
                              &h));
    ASSERT_OK(dart_wait(&h));
    break;
  case ORDER_ACCUMULATE_FLUSH:
    ASSERT_OK(dart_accumulate(g, &one, 1, DART_TYPE_LONG, DART_OP_SUM));
    ASSERT_OK(dart_flush(g));
    break;
  case ORDER_PUT_FLUSH_ALL:
    ASSERT_OK(dart_put(g, &one, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    ASSERT_OK(dart_flush_all(g));
    break;
  default:
    ASSERT_OK(dart_put_blocking(g, &one, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    break;
  }
}

static void test_store_load_order(const struct ctx *c)
{
  if (c->n < 2) {
    return;
  }
  /* Through MPI each round is a round trip that needs the other unit's
   * progress (milliseconds once more units than cores share the CPUs),
   * and MPI's flush orders by itself: a few blocks there (every unit
   * counts the same blocks: it joins each block's barrier). An
   * accumulate in a team that spans nodes goes through MPI even to a
   * node peer, to stay atomic with the other nodes' accumulates
   * (rma/atomics.c, choose_path). */
  enum { BLOCK = 256, DIRECT_BLOCKS = 400, MPI_BLOCKS = 2 };
  bool pair_direct =
    shm_on && node_key[c->global_of[0]] == node_key[c->global_of[1]];
  bool team_on_one_node = true;
  for (int u = 1; u < c->n; ++u) {
    team_on_one_node = team_on_one_node &&
      node_key[c->global_of[u]] == node_key[c->global_of[0]];
  }
  unsigned char *seen = xmalloc((size_t)BLOCK * DIRECT_BLOCKS * 2);
  for (int variant = 0; variant < ORDER_VARIANTS; ++variant) {
    bool direct_variant =
      pair_direct &&
      (variant != ORDER_ACCUMULATE_FLUSH || team_on_one_node);
    const int blocks = direct_variant ? DIRECT_BLOCKS : MPI_BLOCKS;
    const size_t rounds = (size_t)BLOCK * (size_t)blocks;
    STAGE("%s: %s, then a load of my own portion, %zu rounds between team "
          "units 0 and 1", c->label, order_variant_name[variant], rounds);
    dart_gptr_t seg = alloc_portions(c, rounds * sizeof(long));
    long *mine = (long *)local_base(seg, c->me);
    memset(mine, 0, rounds * sizeof(long));
    memset(seen, 0, rounds * 2);
    ASSERT_OK(dart_barrier(c->team));
    int peer = c->me == 0 ? 1 : 0;
    for (int b = 0; b < blocks; ++b) {
      ASSERT_OK(dart_barrier(c->team));
      if (c->me > 1) {
        continue;
      }
      for (size_t k = (size_t)b * BLOCK; k < (size_t)(b + 1) * BLOCK; ++k) {
        complete_write(variant, gptr_at(seg, peer, k * sizeof(long)));
        seen[(size_t)c->me * rounds + k] =
          __atomic_load_n(&mine[k], __ATOMIC_RELAXED) != 0;
      }
    }
    ASSERT_OK(dart_barrier(c->team));
    /* Unit 1's reads to unit 0, which checks the pairs. */
    if (c->me == 1) {
      ASSERT_OK(dart_send(seen + rounds, rounds, DART_TYPE_BYTE, 77,
                          DART_GLOBAL_UNIT_ID(c->global_of[0])));
    } else if (c->me == 0) {
      ASSERT_OK(dart_recv(seen + rounds, rounds, DART_TYPE_BYTE, 77,
                          DART_GLOBAL_UNIT_ID(c->global_of[1])));
      size_t both_missed = 0, first = rounds;
      for (size_t k = 0; k < rounds; ++k) {
        if (!seen[k] && !seen[rounds + k]) {
          first = both_missed++ == 0 ? k : first;
        }
      }
      if (both_missed != 0) {
        FAILF("%s: %s: in %zu of %zu rounds (first %zu) neither team "
              "unit 0 nor 1 saw the other's completed write",
              c->label, order_variant_name[variant], both_missed, rounds,
              first);
      }
    }
    /* Every write landed, once. */
    if (c->me <= 1) {
      for (size_t k = 0; k < rounds; ++k) {
        ASSERT_EQ(mine[k], 1);
      }
    }
    ASSERT_OK(dart_barrier(c->team));
    ASSERT_OK(dart_team_memfree(seg));
  }
  free(seen);
}

static void pairwise(void)
{
  test_pairwise(&all_ctx, NPAIR_CASES);
  if (sub != DART_TEAM_NULL) {
    test_pairwise(&sub_ctx, 5);
  }
}

/* Overlapping ranges (dart_communication.h, "Overlapping buffers"): a
 * unit puts from a part of its own portion into the same portion, and
 * gets from it into it, shifted by a few bytes either way, at every size
 * where the copy changes strategy; the result must be memmove's, and no
 * byte outside the destination may change. Where the own portion is
 * reached through MPI (DART_SHM_PATH=off) the outcome is MPI's: skipped. */
#define OVERLAP_AREA 8192

static void overlap_round(dart_gptr_t seg, int target, int kind, size_t size,
                          long shift, unsigned char *expect)
{
  unsigned char *area = (unsigned char *)local_base(seg, target);
  const size_t base = 2048;
  for (size_t i = 0; i < OVERLAP_AREA; ++i) {
    area[i] = (unsigned char)(i * 7 + 3 + (size_t)kind);
  }
  memcpy(expect, area, OVERLAP_AREA);
  memmove(expect + base + shift, expect + base, size);
  dart_gptr_t from = gptr_at(seg, target, base);
  dart_gptr_t to = gptr_at(seg, target, (uint64_t)((long)base + shift));
  switch (kind) {
  case 0:
    ASSERT_OK(dart_put_blocking(to, area + base, size, DART_TYPE_BYTE,
                                DART_TYPE_BYTE));
    break;
  case 1:
    ASSERT_OK(dart_get_blocking(area + base + shift, from, size,
                                DART_TYPE_BYTE, DART_TYPE_BYTE));
    break;
  case 2:
    ASSERT_OK(dart_put(to, area + base, size, DART_TYPE_BYTE,
                       DART_TYPE_BYTE));
    ASSERT_OK(dart_flush(to));
    break;
  default:
    ASSERT_OK(dart_get(area + base + shift, from, size, DART_TYPE_BYTE,
                       DART_TYPE_BYTE));
    ASSERT_OK(dart_flush_local(from));
    break;
  }
  for (size_t i = 0; i < OVERLAP_AREA; ++i) {
    if (area[i] != expect[i]) {
      FAILF("%s of %zu bytes shifted by %ld on unit %d: byte %zu is %u, "
            "memmove gives %u", kind == 0 ? "put_blocking"
            : kind == 1 ? "get_blocking" : kind == 2 ? "put" : "get",
            size, shift, target, i, area[i], expect[i]);
    }
  }
}

static void test_overlap(const struct ctx *c)
{
  STAGE("%s: overlapping source and destination", c->label);
  dart_gptr_t seg;
  ASSERT_OK(dart_team_memalloc_aligned(c->team, OVERLAP_AREA, DART_TYPE_BYTE,
                                       &seg));
  static const size_t sizes[] = { 1, 2, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64,
                                  65, 100, 128, 129, 136, 200, 255, 256, 257,
                                  300, 1000, 4096 };
  static const long shifts[] = { 1, 7, 8, 31, 32, 64, -1, -7, -8, -31, -32,
                                 -64 };
  unsigned char *expect = xmalloc(OVERLAP_AREA);
  for (int kind = 0; kind < 4 && direct(c, c->me); ++kind) {
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; ++si) {
      for (size_t k = 0; k < sizeof shifts / sizeof *shifts; ++k) {
        overlap_round(seg, c->me, kind, sizes[si], shifts[k], expect);
      }
    }
  }
  ASSERT_OK(dart_barrier(c->team));
  free(expect);
  ASSERT_OK(dart_team_memfree(seg));
}

static void every_size(void) { on_both_teams(test_every_size); }
static void overlap(void) { on_both_teams(test_overlap); }
static void nonblocking(void) { on_both_teams(test_nonblocking); }
static void large_nonblocking(void) { test_large_nonblocking(&all_ctx); }
static void large_forms(void) { test_large_forms(&all_ctx); }
static void burst(void) { test_burst(&all_ctx); }
static void memory_model(void) { on_both_teams(test_memory_model); }
static void store_load_order(void) { test_store_load_order(&all_ctx); }

static const struct test_case cases[] = {
  { "pairwise", pairwise },
  { "every_size", every_size },
  { "overlap", overlap },
  { "nonblocking", nonblocking },
  { "large_nonblocking", large_nonblocking },
  { "large_forms", large_forms },
  { "burst", burst },
  { "memory_model", memory_model },
  { "store_load_order", store_load_order },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
