/* Machinery of test_fuzz_rma.c, part 1: the memory layout, the random
 * numbers, failure reports and the captured log, the types, statistics,
 * the local buffer and global pointers (valid and bad ones). One program
 * includes it, before test_fuzz_rma_transfers.h and
 * test_fuzz_rma_atomics.h; the split keeps the order of the definitions,
 * so the program is the same. */
#ifndef DART_TEST_FUZZ_RMA_CORE_H
#define DART_TEST_FUZZ_RMA_CORE_H

#include "test.h"

#include <mpi.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- layout ------------------------------------------------------------- */

#define GUARD 64           /* guard bytes around every region */
#define DATA 384           /* puts go here */
#define ATOM 128           /* atomics go here (16 words) */
#define REG (DATA + ATOM)  /* one writer's region; gets read all of it */
#define OUTER 256          /* registered memory: guards outside the portion */
#define LOCAL 1024         /* local buffer body */
#define LGUARD 64          /* guards around the local buffer */
#define ROUND_OPS 256      /* calls between two checks of the memory */

enum { SEG_ALLOC, SEG_REG, SEG_POOL, NSEG };
static const char *const seg_names[NSEG] = { "allocated", "registered",
                                             "local pool" };

static int me, nunits;

/* Region of writer w inside any portion, and the portion's size at
 * owner p (uneven: a longer tail guard per unit). */
static inline size_t region_off(int w)
{
  return GUARD + (size_t)w * (REG + GUARD);
}
static inline size_t portion_bytes(int p)
{
  return GUARD + (size_t)nunits * (REG + GUARD) + 8 * (size_t)p;
}

struct segment {
  dart_gptr_t    g;          /* unit 0, offset 0 */
  uint64_t      *base;       /* owner -> offset of its portion (pool: block) */
  bool           size_known; /* pool: the portion is the whole reservation */
  unsigned char *mine;       /* my portion */
  unsigned char *raw;        /* registered: my buffer with outer guards */
};
static struct segment segs[NSEG];
static unsigned char *shadow; /* [seg][owner][REG] */
static int16_t freed_segid = 77; /* a segment allocated and freed */

static inline unsigned char *shadow_of(int s, int owner)
{
  return shadow + ((size_t)s * (size_t)nunits + (size_t)owner) * REG;
}

/* ---- random numbers ----------------------------------------------------- */

static uint64_t rng;
static inline uint64_t rnd(void)
{
  uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static inline uint64_t below(uint64_t n) { return n == 0 ? 0 : rnd() % n; }
static inline bool chance(int percent)
{
  return below(100) < (uint64_t)percent;
}

static inline unsigned char canary(int s, int owner, size_t off)
{
  uint64_t z = ((uint64_t)s << 56) ^ ((uint64_t)owner << 40) ^ off;
  z = (z ^ (z >> 29)) * 0xbf58476d1ce4e5b9ull;
  return (unsigned char)(z >> 32 ^ z);
}
static inline unsigned char local_canary(size_t i)
{
  return (unsigned char)(0xa5 ^ (i * 7));
}

/* ---- failures and the captured log -------------------------------------- */

static int real_stderr = -1;
static int log_fd = -1;
static off_t log_pos;
static char what[512];        /* the call under test */
static char last_log[1024];   /* what it logged */
static unsigned long long round_no, call_no;

/* A failure names the round, the call under test and what it logged: they
 * become the stage of test.h's one-line report. The log goes to a file
 * while the calls run, so stderr comes back first. */
static inline void fuzz_fail_context(void)
{
  if (real_stderr >= 0) {
    dup2(real_stderr, 2);
  }
  size_t len = strcspn(last_log, "\n");
  STAGE("round %llu, call %llu (%s)%s%.*s", round_no, call_no, what,
        last_log[0] != '\0' ? "; it logged: " : "", (int)len, last_log);
}
#define FAIL(...)                                                          \
  do {                                                                     \
    fuzz_fail_context();                                                   \
    FAILF(__VA_ARGS__);                                                    \
  } while (0)
#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      FAIL("%s", #cond);                                                   \
    }                                                                      \
  } while (0)

/* Runtime log lines written since the last call (the log goes to a file). */
static inline int new_log_lines(void)
{
  char buf[4096];
  int lines = 0;
  last_log[0] = '\0';
  for (;;) {
    ssize_t got = pread(log_fd, buf, sizeof buf - 1, log_pos);
    if (got <= 0) {
      break;
    }
    buf[got] = '\0';
    log_pos += got;
    for (char *line = buf; line < buf + got;) {
      char *end = memchr(line, '\n', (size_t)(buf + got - line));
      if (strncmp(line, "[dart", 5) == 0) {
        ++lines;
        size_t len = end != NULL ? (size_t)(end - line + 1) : strlen(line);
        len = len < sizeof last_log - 1 ? len : sizeof last_log - 1;
        memcpy(last_log, line, len);
        last_log[len] = '\0';
      }
      if (end == NULL) {
        break;
      }
      line = end + 1;
    }
  }
  return lines;
}

/* A crash names the call that caused it (the log file hides stderr). */
static inline void on_crash(int sig)
{
  if (real_stderr >= 0) {
    dup2(real_stderr, 2);
  }
  char line[768];
  int len = snprintf(line, sizeof line,
                     "CRASH test_fuzz_rma unit %d: signal %d in round %llu, "
                     "call %llu (%s)\n", me, sig, round_no, call_no, what);
  if (len > 0) {
    ssize_t ignored = write(2, line, (size_t)len < sizeof line
                                        ? (size_t)len : sizeof line - 1);
    (void)ignored;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

static inline void capture_log(void)
{
  signal(SIGSEGV, on_crash);
  signal(SIGBUS, on_crash);
  signal(SIGFPE, on_crash);
  signal(SIGILL, on_crash);
  signal(SIGABRT, on_crash);
  char path[] = "/tmp/dart-fuzz-log-XXXXXX";
  log_fd = mkstemp(path);
  ASSERT(log_fd >= 0);
  unlink(path);
  fflush(stderr);
  real_stderr = dup(2);
  ASSERT(real_stderr >= 0);
  ASSERT(dup2(log_fd, 2) == 2);
  struct stat st;
  fstat(log_fd, &st);
  log_pos = st.st_size;
}

static inline void release_log(void)
{
  fflush(stderr);
  dup2(real_stderr, 2);
  close(real_stderr);
  close(log_fd);
  real_stderr = log_fd = -1;
}

/* ---- types -------------------------------------------------------------- */

enum kind { K_CONTIG, K_STRIDED, K_INDEXED };

struct ftype {
  const char     *name;
  dart_datatype_t id;
  int             family; /* same family, same base type */
  size_t          esize;  /* bytes of one base element */
  size_t          B;      /* block count */
  enum kind       kind;
  size_t          stride, blocklen;            /* strided */
  int             nblocks;                     /* indexed */
  size_t          lens[3], offs[3], extent;    /* indexed */
};

#define NBASIC 11
static struct ftype types[NBASIC + 6];
static int ntypes;
static dart_datatype_t stale_type; /* destroyed */
static dart_operation_t user_op;

static const char *const basic_names[NBASIC] = {
  "BYTE", "SHORT", "INT", "UINT", "LONG", "ULONG", "LONGLONG", "ULONGLONG",
  "FLOAT", "DOUBLE", "LONG_DOUBLE"
};
static const size_t basic_sizes[NBASIC] = {
  1, sizeof(short), sizeof(int), sizeof(unsigned), sizeof(long),
  sizeof(unsigned long), sizeof(long long), sizeof(unsigned long long),
  sizeof(float), sizeof(double), sizeof(long double)
};

static inline void sum_op(const void *in, void *inout, size_t len, void *data)
{
  (void)data;
  for (size_t i = 0; i < len; ++i) {
    ((int *)inout)[i] += ((const int *)in)[i];
  }
}

static inline void make_types(void)
{
  for (int i = 0; i < NBASIC; ++i) {
    types[ntypes++] = (struct ftype){
      basic_names[i], DART_TYPE_BYTE + i, i, basic_sizes[i], 1, K_CONTIG,
      0, 0, 0, { 0 }, { 0 }, 0 };
  }
  struct ftype t;
  /* INT family: strided (3, 2) and (2, 1), indexed {2@0, 1@4, 3@6}. */
  t = (struct ftype){ "strided(INT,3,2)", 0, 2, sizeof(int), 2, K_STRIDED,
                      3, 2, 0, { 0 }, { 0 }, 0 };
  ASSERT_OK(dart_type_create_strided(DART_TYPE_INT, 3, 2, &t.id));
  types[ntypes++] = t;
  t = (struct ftype){ "strided(INT,2,1)", 0, 2, sizeof(int), 1, K_STRIDED,
                      2, 1, 0, { 0 }, { 0 }, 0 };
  ASSERT_OK(dart_type_create_strided(DART_TYPE_INT, 2, 1, &t.id));
  types[ntypes++] = t;
  t = (struct ftype){ "indexed(INT,{2@0,1@4,3@6})", 0, 2, sizeof(int), 6,
                      K_INDEXED, 0, 0, 3, { 2, 1, 3 }, { 0, 4, 6 }, 9 };
  ASSERT_OK(dart_type_create_indexed(DART_TYPE_INT, 3, t.lens, t.offs, &t.id));
  types[ntypes++] = t;
  /* LONG family: strided (4, 1). */
  t = (struct ftype){ "strided(LONG,4,1)", 0, 4, sizeof(long), 1, K_STRIDED,
                      4, 1, 0, { 0 }, { 0 }, 0 };
  ASSERT_OK(dart_type_create_strided(DART_TYPE_LONG, 4, 1, &t.id));
  types[ntypes++] = t;
  /* A custom 12-byte type and a strided layout of it. */
  t = (struct ftype){ "custom(12)", 0, 100, 12, 1, K_CONTIG, 0, 0, 0,
                      { 0 }, { 0 }, 0 };
  ASSERT_OK(dart_type_create_custom(12, &t.id));
  types[ntypes++] = t;
  dart_datatype_t c12 = t.id;
  t = (struct ftype){ "strided(custom12,2,1)", 0, 100, 12, 1, K_STRIDED,
                      2, 1, 0, { 0 }, { 0 }, 0 };
  ASSERT_OK(dart_type_create_strided(c12, 2, 1, &t.id));
  types[ntypes++] = t;
  ASSERT_OK(dart_type_create_custom(5, &stale_type));
  ASSERT_OK(dart_type_destroy(&stale_type));
  ASSERT_OK(dart_type_create_custom(7, &stale_type));
  dart_datatype_t doomed = stale_type;
  ASSERT_OK(dart_type_destroy(&stale_type));
  stale_type = doomed;
  ASSERT_OK(dart_op_create(sum_op, NULL, true, DART_TYPE_INT, false,
                           &user_op));
}

/* Position (in base elements) of element j of type t (dart_types.h). */
static inline size_t pos(const struct ftype *t, size_t j)
{
  switch (t->kind) {
  case K_STRIDED:
    return j / t->blocklen * t->stride + j % t->blocklen;
  case K_INDEXED: {
    size_t r = j / t->B, k = j % t->B;
    for (int i = 0; i < t->nblocks; ++i) {
      if (k < t->lens[i]) {
        return r * t->extent + t->offs[i] + k;
      }
      k -= t->lens[i];
    }
    abort();
  }
  default:
    return j;
  }
}

static inline size_t span(const struct ftype *t, size_t n)
{
  size_t end = 0;
  for (size_t j = 0; j < n; ++j) {
    size_t p = pos(t, j) + 1;
    end = p > end ? p : end;
  }
  return end * t->esize;
}

static inline size_t gcd(size_t a, size_t b) { return b == 0 ? a : gcd(b,
                                                                       a % b); }

static inline const struct ftype *pick_in_family(int family)
{
  /* Every family has a type, but GCC at -O1 cannot tell (-Werror). */
  const struct ftype *in[8] = {NULL};
  int k = 0;
  for (int i = 0; i < ntypes; ++i) {
    if (types[i].family == family) {
      in[k++] = &types[i];
    }
  }
  return in[below((uint64_t)k)];
}

/* ---- statistics --------------------------------------------------------- */

enum { ST_VALID, ST_INVALID, ST_PUTGET, ST_ATOMIC, ST_ZERO, NSTATS };
static unsigned long long stats[NSTATS];

/* ---- the local buffer --------------------------------------------------- */

static unsigned char lraw[LGUARD + LOCAL + LGUARD];
static unsigned char lexpect[sizeof lraw];
static unsigned char *const lbody = lraw + LGUARD;

static inline void local_fill_canary(void)
{
  for (size_t i = 0; i < sizeof lraw; ++i) {
    lraw[i] = local_canary(i);
  }
}

static inline void local_fill_random(void)
{
  local_fill_canary();
  for (size_t i = 0; i < LOCAL; i += 8) {
    uint64_t r = rnd();
    memcpy(lbody + i, &r, 8);
  }
}

static inline void local_check(const unsigned char *expect, const char *why)
{
  if (memcmp(lraw, expect, sizeof lraw) != 0) {
    size_t i = 0;
    while (lraw[i] == expect[i]) {
      ++i;
    }
    long at = (long)i - LGUARD;
    FAIL("%s: local byte %ld (%s) is 0x%02x, expected 0x%02x", why, at,
         at < 0 || at >= LOCAL ? "guard" : "buffer", lraw[i], expect[i]);
  }
}

/* ---- global pointers ---------------------------------------------------- */

static inline dart_gptr_t gptr_to(int s, int owner, uint64_t off)
{
  dart_gptr_t g = segs[s].g;
  g.unitid = owner;
  g.addr_or_offs.offset = segs[s].base[owner] + off;
  g.flags = (unsigned)below(256); /* ignored by communication */
  return g;
}

static inline int pick_segment(void) { return (int)below(NSEG); }

/* A gptr that no call may accept; sets *kind. `room`: the span of the
 * access, for the offsets that run past the portion's end. */
static inline dart_gptr_t bad_gptr(int s, int owner, uint64_t off, size_t room,
                            const char **kind)
{
  dart_gptr_t g = gptr_to(s, owner, off);
  uint64_t size = segs[s].size_known ? portion_bytes(owner) : 0;
  switch (below(7)) {
  case 0: {
    const int16_t bad_segids[] = { freed_segid, -77, 1000, -1000, INT16_MAX,
                                   INT16_MIN, 13, freed_segid };
    g.segid = bad_segids[below(8)];
    *kind = "unknown segment";
    return g;
  }
  case 1: {
    static const int16_t bad_teams[] = { 1, 42, -1, INT16_MAX, -300 };
    g.teamid = bad_teams[below(5)];
    *kind = "unknown team";
    return g;
  }
  case 2: {
    const int bad_units[] = { nunits, nunits + 1, -1, -nunits, 0x7fffff,
                              -0x800000 };
    g.unitid = bad_units[below(6)];
    *kind = "unit out of range";
    return g;
  }
  case 3:
    if (size > 0 && room > 0) {
      /* Starts inside, ends past the end of the portion. */
      uint64_t back = below(room < size ? room : size);
      g.addr_or_offs.offset = segs[s].base[owner] + size - back;
      *kind = "span past the portion";
      return g;
    }
    /* fall through */
  case 4:
    if (size > 0) {
      g.addr_or_offs.offset = segs[s].base[owner] + size + 1 + below(4096);
      *kind = "offset past the portion";
      return g;
    }
    /* fall through */
  case 5: {
    const uint64_t huge[] = { UINT64_MAX, UINT64_MAX - 7, (uint64_t)1 << 63,
                              (uint64_t)1 << 62, ((uint64_t)1 << 60) + 8 };
    g.addr_or_offs.offset = huge[below(5)];
    *kind = "huge offset";
    return g;
  }
  default: {
    /* Wrapping: offset + span overflows 64 bits. */
    g.addr_or_offs.offset = UINT64_MAX - below(room > 0 ? room : 1);
    *kind = "wrapping offset";
    return g;
  }
  }
}

/* Huge or absurd counts for elements of `esize` bytes and block count B,
 * on segment s. A local-pool portion is the unit's whole reservation (up
 * to 2^45 bytes): counts that merely exceed a block would be in bounds
 * there, and read or write past the test's own buffer. */
static inline size_t huge_count(int s, size_t esize, size_t B)
{
  size_t c;
  bool pool = s == SEG_POOL;
  switch (below(pool ? 6 : 9)) {
  case 0: c = SIZE_MAX; break;
  case 1: c = SIZE_MAX / esize + 1; break;
  case 2: c = SIZE_MAX / esize; break;
  case 3: c = ((size_t)1 << 61) + 1; break;
  case 4: c = (size_t)PTRDIFF_MAX / esize + 1; break;
  case 5: c = ((size_t)1 << (pool ? 47 + below(16) : 32 + below(31))) +
              below(3);
    break;
  case 6: c = SIZE_MAX / 16 * 3; break;
  case 7: c = (size_t)1 << 20; break; /* fits no portion */
  default: c = (size_t)INT_MAX + 1; break;
  }
  /* A multiple of B, so only the size is wrong (mostly). */
  if (B > 1 && chance(80)) {
    c -= c % B;
  }
  return c == 0 ? SIZE_MAX - SIZE_MAX % B : c; /* SIZE_MAX/1 + 1 wraps */
}

#endif
