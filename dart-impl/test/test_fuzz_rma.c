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
static size_t region_off(int w) { return GUARD + (size_t)w * (REG + GUARD); }
static size_t portion_bytes(int p)
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

static unsigned char *shadow_of(int s, int owner)
{
  return shadow + ((size_t)s * (size_t)nunits + (size_t)owner) * REG;
}

/* ---- random numbers ----------------------------------------------------- */

static uint64_t rng;
static uint64_t rnd(void)
{
  uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static uint64_t below(uint64_t n) { return n == 0 ? 0 : rnd() % n; }
static bool chance(int percent) { return below(100) < (uint64_t)percent; }

static unsigned char canary(int s, int owner, size_t off)
{
  uint64_t z = ((uint64_t)s << 56) ^ ((uint64_t)owner << 40) ^ off;
  z = (z ^ (z >> 29)) * 0xbf58476d1ce4e5b9ull;
  return (unsigned char)(z >> 32 ^ z);
}
static unsigned char local_canary(size_t i)
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
static void fuzz_fail_context(void)
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
static int new_log_lines(void)
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
static void on_crash(int sig)
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

static void capture_log(void)
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

static void release_log(void)
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

static void sum_op(const void *in, void *inout, size_t len, void *data)
{
  (void)data;
  for (size_t i = 0; i < len; ++i) {
    ((int *)inout)[i] += ((const int *)in)[i];
  }
}

static void make_types(void)
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
static size_t pos(const struct ftype *t, size_t j)
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

static size_t span(const struct ftype *t, size_t n)
{
  size_t end = 0;
  for (size_t j = 0; j < n; ++j) {
    size_t p = pos(t, j) + 1;
    end = p > end ? p : end;
  }
  return end * t->esize;
}

static size_t gcd(size_t a, size_t b) { return b == 0 ? a : gcd(b, a % b); }

static const struct ftype *pick_in_family(int family)
{
  const struct ftype *in[8];
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

static void local_fill_canary(void)
{
  for (size_t i = 0; i < sizeof lraw; ++i) {
    lraw[i] = local_canary(i);
  }
}

static void local_fill_random(void)
{
  local_fill_canary();
  for (size_t i = 0; i < LOCAL; i += 8) {
    uint64_t r = rnd();
    memcpy(lbody + i, &r, 8);
  }
}

static void local_check(const unsigned char *expect, const char *why)
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

static dart_gptr_t gptr_to(int s, int owner, uint64_t off)
{
  dart_gptr_t g = segs[s].g;
  g.unitid = owner;
  g.addr_or_offs.offset = segs[s].base[owner] + off;
  g.flags = (unsigned)below(256); /* ignored by communication */
  return g;
}

static int pick_segment(void) { return (int)below(NSEG); }

/* A gptr that no call may accept; sets *kind. `room`: the span of the
 * access, for the offsets that run past the portion's end. */
static dart_gptr_t bad_gptr(int s, int owner, uint64_t off, size_t room,
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
static size_t huge_count(int s, size_t esize, size_t B)
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

/* ---- transfers ---------------------------------------------------------- */

enum form { PUT_BLOCKING, PUT_FLUSH, PUT_HANDLE, GET_BLOCKING, GET_FLUSH,
            GET_HANDLE };
static const char *const form_names[] = { "dart_put_blocking", "dart_put",
                                          "dart_put_handle",
                                          "dart_get_blocking", "dart_get",
                                          "dart_get_handle" };
static bool is_put(enum form f) { return f <= PUT_HANDLE; }

static void note(const char *how)
{
  size_t used = strlen(what);
  snprintf(what + used, sizeof what - used, ", then %s", how);
}

/* Completes a valid transfer in one of the ways dart_communication.h
 * offers. */
static void complete_transfer(enum form f, dart_gptr_t g, dart_handle_t h)
{
  dart_ret_t ret = DART_OK;
  int32_t done = 0;
  dart_handle_t arr[3] = { DART_HANDLE_NULL, h, DART_HANDLE_NULL };
  if (f == PUT_HANDLE || f == GET_HANDLE) {
    note(h == DART_HANDLE_NULL ? "(handle NULL)" : "(handle live)");
  }
  switch (f) {
  case PUT_BLOCKING:
  case GET_BLOCKING:
    break;
  case PUT_FLUSH:
    if (chance(50)) {
      note("dart_flush");
      ret = dart_flush(g);
    } else {
      note("dart_flush_all");
      ret = dart_flush_all(g);
    }
    break;
  case GET_FLUSH:
    switch (below(4)) {
    case 0: note("dart_flush_local"); ret = dart_flush_local(g); break;
    case 1:
      note("dart_flush_local_all");
      ret = dart_flush_local_all(g);
      break;
    case 2: note("dart_flush"); ret = dart_flush(g); break;
    default: note("dart_flush_all"); ret = dart_flush_all(g); break;
    }
    break;
  case PUT_HANDLE:
  case GET_HANDLE:
    switch (below(6)) {
    case 0:
      note("dart_wait");
      ret = dart_wait(&h);
      break;
    case 1:
      note("dart_test loop");
      while (ret == DART_OK && !done) {
        ret = dart_test(&h, &done);
      }
      break;
    case 2:
      note("dart_waitall");
      ret = dart_waitall(arr, 3);
      h = arr[1];
      break;
    case 3:
      note("dart_testall loop");
      while (ret == DART_OK && !done) {
        ret = dart_testall(arr, 3, &done);
      }
      h = arr[1];
      break;
    case 4:
      /* Locally complete, then a flush for the put's remote side. */
      if (chance(50)) {
        note("dart_wait_local");
        ret = dart_wait_local(&h);
      } else {
        note("dart_test_local loop");
        while (ret == DART_OK && !done) {
          ret = dart_test_local(&h, &done);
        }
      }
      if (ret == DART_OK && f == PUT_HANDLE) {
        note("dart_flush");
        ret = dart_flush(g);
      }
      break;
    default:
      /* Freed without waiting: a flush completes it. */
      note("dart_handle_free + dart_flush");
      ret = dart_handle_free(&h);
      if (ret == DART_OK) {
        ret = dart_flush(g);
      }
      break;
    }
    if (ret == DART_OK && h != DART_HANDLE_NULL) {
      FAIL("the handle was not consumed");
    }
    break;
  }
  if (ret != DART_OK) {
    FAIL("completing the transfer returned %d", (int)ret);
  }
}

static dart_ret_t issue(enum form f, dart_gptr_t g, void *buf, size_t n,
                        dart_datatype_t st, dart_datatype_t dt,
                        dart_handle_t *h, bool null_handle)
{
  dart_handle_t *hp = null_handle ? NULL : h;
  switch (f) {
  case PUT_BLOCKING: return dart_put_blocking(g, buf, n, st, dt);
  case PUT_FLUSH:    return dart_put(g, buf, n, st, dt);
  case PUT_HANDLE:   return dart_put_handle(g, buf, n, st, dt, hp);
  case GET_BLOCKING: return dart_get_blocking(buf, g, n, st, dt);
  case GET_FLUSH:    return dart_get(buf, g, n, st, dt);
  default:           return dart_get_handle(buf, g, n, st, dt, hp);
  }
}

static void describe_transfer(enum form f, int s, dart_gptr_t g, size_t n,
                              const struct ftype *st, const struct ftype *dt,
                              const char *kind)
{
  snprintf(what, sizeof what,
           "%s %s: %s segment, team %d segid %d unit %d offset %" PRIu64
           ", nelem %zu, src %s, dst %s", kind, form_names[f], seg_names[s],
           (int)g.teamid, (int)g.segid, (int)g.unitid, g.addr_or_offs.offset,
           n, st != NULL ? st->name : "(bad)",
           dt != NULL ? dt->name : "(bad)");
}

static void valid_transfer(void)
{
  enum form f = (enum form)below(6);
  int s = pick_segment();
  int owner = (int)below((uint64_t)nunits);
  const struct ftype *st, *dt;
  /* Mostly a basic type both sides (DASH's common case). */
  int family = chance(60) ? (int)below(NBASIC)
                          : (int[]){ 2, 2, 4, 100 }[below(4)];
  st = pick_in_family(family);
  dt = chance(50) ? st : pick_in_family(family);
  const struct ftype *rt = is_put(f) ? dt : st, *lt = is_put(f) ? st : dt;
  size_t L = st->B / gcd(st->B, dt->B) * dt->B;
  size_t zone = is_put(f) ? DATA : REG;
  size_t k = chance(5) ? 0 : 1 + below(chance(20) ? 40 : 8), n;
  for (;; --k) {
    n = k * L;
    if (span(rt, n) <= zone && span(lt, n) <= LOCAL) {
      break;
    }
  }
  size_t rspan = span(rt, n), lspan = span(lt, n);
  size_t roff = below(zone - rspan + 1), loff = below(LOCAL - lspan + 1);
  dart_gptr_t g = gptr_to(s, owner, region_off(me) + roff);
  describe_transfer(f, s, g, n, st, dt, "valid");
  if (is_put(f)) {
    local_fill_random();
  } else {
    local_fill_canary();
  }
  memcpy(lexpect, lraw, sizeof lraw);
  dart_handle_t h = (dart_handle_t)(uintptr_t)0x1234;
  dart_ret_t ret = issue(f, g, lbody + loff, n, st->id, dt->id, &h, false);
  int lines = new_log_lines();
  if (ret != DART_OK) {
    FAIL("returned %d", (int)ret);
  }
  if (lines != 0) {
    FAIL("a valid call logged %d lines", lines);
  }
  complete_transfer(f, g, f == PUT_HANDLE || f == GET_HANDLE ? h : NULL);
  if (new_log_lines() != 0) {
    FAIL("completing a valid call logged");
  }
  unsigned char *sh = shadow_of(s, owner) + roff;
  for (size_t j = 0; j < n; ++j) {
    size_t lp = loff + pos(lt, j) * lt->esize, rp = pos(rt, j) * rt->esize;
    if (is_put(f)) {
      memcpy(sh + rp, lbody + lp, rt->esize);
    } else {
      memcpy(lexpect + LGUARD + lp, sh + rp, rt->esize);
    }
  }
  (void)rspan;
  local_check(lexpect, is_put(f) ? "a put changed its source or guards"
                                  : "wrong data or guards after a get");
  ++stats[n == 0 ? ST_ZERO : ST_VALID];
  ++stats[ST_PUTGET];
}

static dart_datatype_t bad_type_id(void)
{
  const dart_datatype_t bad[] = { DART_TYPE_UNDEFINED, DART_TYPE_LAST,
                                  (dart_datatype_t)123456789,
                                  (dart_datatype_t)-5, stale_type,
                                  (dart_datatype_t)255 };
  return bad[below(6)];
}

static void invalid_transfer(void)
{
  enum form f = (enum form)below(6);
  int s = pick_segment();
  int owner = (int)below((uint64_t)nunits);
  int family = chance(60) ? (int)below(NBASIC)
                          : (int[]){ 2, 2, 4, 100 }[below(4)];
  const struct ftype *st = pick_in_family(family);
  const struct ftype *dt = chance(50) ? st : pick_in_family(family);
  size_t L = st->B / gcd(st->B, dt->B) * dt->B;
  size_t n = L * (1 + below(4));
  dart_datatype_t sid = st->id, did = dt->id;
  const struct ftype *rt = is_put(f) ? dt : st;
  dart_gptr_t g = gptr_to(s, owner, region_off(me) + below(64));
  void *buf = lbody + below(64);
  bool null_handle = false;
  const char *kind = "?";
  int how = (int)below(9);
  if (how == 7 && f != PUT_HANDLE && f != GET_HANDLE) {
    how = 0;
  }
  switch (how) {
  case 0:
  case 1:
    g = bad_gptr(s, owner, region_off(me), span(rt, n), &kind);
    break;
  case 2:
    buf = NULL;
    kind = "NULL local buffer";
    break;
  case 3:
    n = huge_count(s, st->esize, L);
    kind = "huge count";
    if (chance(20)) {
      buf = NULL;
    }
    break;
  case 4: {
    /* Different base types, some of the same size. */
    static const dart_datatype_t pairs[][2] = {
      { DART_TYPE_INT, DART_TYPE_UINT },   { DART_TYPE_INT, DART_TYPE_FLOAT },
      { DART_TYPE_LONG, DART_TYPE_LONGLONG },
      { DART_TYPE_LONG, DART_TYPE_DOUBLE },
      { DART_TYPE_ULONG, DART_TYPE_ULONGLONG },
      { DART_TYPE_BYTE, DART_TYPE_SHORT },
      { DART_TYPE_DOUBLE, DART_TYPE_LONG_DOUBLE },
    };
    int p = (int)below(sizeof pairs / sizeof *pairs + 3);
    if (p < (int)(sizeof pairs / sizeof *pairs)) {
      sid = pairs[p][below(2)];
      did = pairs[p][0] == sid ? pairs[p][1] : pairs[p][0];
    } else if (p == (int)(sizeof pairs / sizeof *pairs)) {
      sid = types[NBASIC + 4].id; /* custom(12) vs BYTE */
      did = DART_TYPE_BYTE;
    } else if (p == (int)(sizeof pairs / sizeof *pairs) + 1) {
      sid = types[NBASIC].id; /* strided INT vs LONG */
      did = DART_TYPE_LONG;
    } else {
      sid = types[NBASIC + 5].id; /* strided custom vs strided LONG */
      did = types[NBASIC + 3].id;
    }
    if (chance(50)) {
      dart_datatype_t t = sid;
      sid = did;
      did = t;
    }
    n = 2 * (1 + below(4));
    st = dt = NULL;
    kind = "type mismatch";
    break;
  }
  case 5:
    if (chance(50)) {
      sid = bad_type_id();
      st = NULL;
    } else {
      did = bad_type_id();
      dt = NULL;
    }
    kind = "invalid type";
    break;
  case 6: {
    /* A count that is not a multiple of a derived type's block count. */
    const struct ftype *t = &types[NBASIC + (below(2) ? 0 : 2)]; /* B 2, 6 */
    if (chance(50)) {
      st = t;
      dt = &types[2];
    } else {
      st = &types[2];
      dt = t;
    }
    sid = st->id;
    did = dt->id;
    n = t->B * (1 + below(3)) + 1 + below(t->B - 1);
    kind = "count not a multiple of the block count";
    break;
  }
  case 7:
    null_handle = true;
    kind = "NULL handle pointer";
    break;
  default: {
    /* Two faults at once. */
    g = bad_gptr(s, owner, region_off(me), span(rt, n), &kind);
    if (chance(50)) {
      n = huge_count(s, st->esize, L);
    } else {
      buf = NULL;
    }
    kind = "bad gptr and count or buffer";
    break;
  }
  }
  describe_transfer(f, s, g, n, st, dt, "invalid");
  snprintf(what + strlen(what), sizeof what - strlen(what), " [%s]%s", kind,
           buf == NULL ? " NULL buffer" : "");
  if (is_put(f)) {
    local_fill_random();
  } else {
    local_fill_canary();
  }
  memcpy(lexpect, lraw, sizeof lraw);
  dart_handle_t h = (dart_handle_t)(uintptr_t)0x1234;
  dart_ret_t ret = issue(f, g, buf, n, sid, did, &h, null_handle);
  int lines = new_log_lines();
  if (ret != DART_ERR_INVAL) {
    FAIL("returned %d, expected DART_ERR_INVAL (%d)", (int)ret,
         (int)DART_ERR_INVAL);
  }
  if (lines != 1) {
    FAIL("logged %d lines, expected one", lines);
  }
  if ((f == PUT_HANDLE || f == GET_HANDLE) && !null_handle &&
      h != DART_HANDLE_NULL) {
    FAIL("the handle is %p after an error, expected DART_HANDLE_NULL",
         (void *)h);
  }
  local_check(lexpect, "an invalid call wrote local memory");
  /* Nothing may be in flight: a flush of the valid segment has nothing
   * to do and succeeds. */
  dart_gptr_t valid = gptr_to(s, owner, 0);
  if (dart_flush_all(valid) != DART_OK || new_log_lines() != 0) {
    FAIL("dart_flush_all after the invalid call failed");
  }
  ++stats[ST_INVALID];
  ++stats[ST_PUTGET];
}

/* A count of 0 is DART_OK and moves nothing, whatever the target
 * (dart_communication.h); a bad gptr may also be reported. Never a
 * write. */
static void zero_transfer(void)
{
  enum form f = (enum form)below(6);
  int s = pick_segment();
  int owner = (int)below((uint64_t)nunits);
  const char *kind = "valid gptr";
  dart_gptr_t g = chance(50) ? gptr_to(s, owner, region_off(me))
                             : bad_gptr(s, owner, region_off(me), 0, &kind);
  describe_transfer(f, s, g, 0, &types[2], &types[2], "zero-count");
  snprintf(what + strlen(what), sizeof what - strlen(what), " [%s]", kind);
  local_fill_canary();
  memcpy(lexpect, lraw, sizeof lraw);
  dart_handle_t h = (dart_handle_t)(uintptr_t)0x1234;
  dart_ret_t ret = issue(f, g, chance(50) ? lbody : NULL, 0, DART_TYPE_INT,
                         DART_TYPE_INT, &h, false);
  int lines = new_log_lines();
  if (ret != DART_OK && ret != DART_ERR_INVAL) {
    FAIL("returned %d", (int)ret);
  }
  if (lines != (ret == DART_OK ? 0 : 1)) {
    FAIL("logged %d lines with result %d", lines, (int)ret);
  }
  if ((f == PUT_HANDLE || f == GET_HANDLE) && h != DART_HANDLE_NULL) {
    FAIL("a zero-count transfer left a handle");
  }
  local_check(lexpect, "a zero-count transfer wrote local memory");
  ++stats[ST_ZERO];
  ++stats[ST_PUTGET];
}

/* ---- atomics ------------------------------------------------------------ */

/* The basic types atomics are checked on (long double's padding bytes are
 * not defined by arithmetic), with the operations valid on each. */
static bool is_float(dart_datatype_t t)
{
  return t == DART_TYPE_FLOAT || t == DART_TYPE_DOUBLE;
}

static bool is_unsigned(dart_datatype_t t)
{
  return t == DART_TYPE_UINT || t == DART_TYPE_ULONG ||
         t == DART_TYPE_ULONGLONG || t == DART_TYPE_BYTE;
}

static size_t tsize(dart_datatype_t t) { return basic_sizes[t - 1]; }

static bool op_valid(dart_datatype_t t, dart_operation_t op)
{
  switch (op) {
  case DART_OP_REPLACE: case DART_OP_NO_OP:
    return true;
  case DART_OP_BAND: case DART_OP_BOR: case DART_OP_BXOR:
    return !is_float(t);
  case DART_OP_MIN: case DART_OP_MAX: case DART_OP_SUM: case DART_OP_PROD:
    return t != DART_TYPE_BYTE;
  case DART_OP_LAND: case DART_OP_LOR: case DART_OP_LXOR:
    return t != DART_TYPE_BYTE && !is_float(t);
  default:
    return false;
  }
}

static int64_t load_signed(const unsigned char *p, size_t size)
{
  switch (size) {
  case 1: { int8_t v; memcpy(&v, p, 1); return v; }
  case 2: { int16_t v; memcpy(&v, p, 2); return v; }
  case 4: { int32_t v; memcpy(&v, p, 4); return v; }
  default: { int64_t v; memcpy(&v, p, 8); return v; }
  }
}

static uint64_t load_unsigned(const unsigned char *p, size_t size)
{
  uint64_t v = 0;
  memcpy(&v, p, size); /* little endian */
  return v;
}

/* target = target op value, the element-wise update of dart_accumulate
 * (dart_communication.h). */
static void apply(dart_datatype_t t, dart_operation_t op,
                  unsigned char *target, const unsigned char *value)
{
  size_t size = tsize(t);
  if (op == DART_OP_NO_OP) {
    return;
  }
  if (op == DART_OP_REPLACE) {
    memcpy(target, value, size);
    return;
  }
  if (t == DART_TYPE_FLOAT) {
    float a, b;
    memcpy(&a, target, 4);
    memcpy(&b, value, 4);
    a = op == DART_OP_SUM ? a + b : op == DART_OP_PROD ? a * b
      : op == DART_OP_MIN ? (b < a ? b : a) : (b > a ? b : a);
    memcpy(target, &a, 4);
    return;
  }
  if (t == DART_TYPE_DOUBLE) {
    double a, b;
    memcpy(&a, target, 8);
    memcpy(&b, value, 8);
    a = op == DART_OP_SUM ? a + b : op == DART_OP_PROD ? a * b
      : op == DART_OP_MIN ? (b < a ? b : a) : (b > a ? b : a);
    memcpy(target, &a, 8);
    return;
  }
  uint64_t a = load_unsigned(target, size), b = load_unsigned(value, size);
  int64_t sa = load_signed(target, size), sb = load_signed(value, size);
  bool uns = is_unsigned(t);
  uint64_t r;
  switch (op) {
  case DART_OP_MIN: r = uns ? (b < a ? b : a) : (uint64_t)(sb < sa ? sb : sa);
    break;
  case DART_OP_MAX: r = uns ? (b > a ? b : a) : (uint64_t)(sb > sa ? sb : sa);
    break;
  case DART_OP_SUM:  r = a + b; break;
  case DART_OP_PROD: r = a * b; break;
  case DART_OP_BAND: r = a & b; break;
  case DART_OP_BOR:  r = a | b; break;
  case DART_OP_BXOR: r = a ^ b; break;
  case DART_OP_LAND: r = a != 0 && b != 0; break;
  case DART_OP_LOR:  r = a != 0 || b != 0; break;
  default:           r = (a != 0) != (b != 0); break; /* LXOR */
  }
  memcpy(target, &r, size); /* little endian: the low bytes */
}

/* Whether a floating-point update has one exact, portable result: finite
 * operands (no NaN payloads), nonzero ones for MIN/MAX (no signed-zero
 * ambiguity). */
static bool float_ok(dart_datatype_t t, dart_operation_t op,
                     const unsigned char *target, const unsigned char *value)
{
  if (!is_float(t) || op == DART_OP_REPLACE || op == DART_OP_NO_OP) {
    return true;
  }
  double a, b;
  if (t == DART_TYPE_FLOAT) {
    float fa, fb;
    memcpy(&fa, target, 4);
    memcpy(&fb, value, 4);
    a = fa;
    b = fb;
  } else {
    memcpy(&a, target, 8);
    memcpy(&b, value, 8);
  }
  if (!isfinite(a) || !isfinite(b)) {
    return false;
  }
  return (op != DART_OP_MIN && op != DART_OP_MAX) || (a != 0 && b != 0);
}

static void random_operand(dart_datatype_t t, unsigned char *out)
{
  if (t == DART_TYPE_FLOAT) {
    float v = (float)((int)below(17) - 8);
    v = v == 0 ? 3 : v;
    memcpy(out, &v, 4);
  } else if (t == DART_TYPE_DOUBLE) {
    double v = (double)((int)below(17) - 8) / (chance(50) ? 1 : 4);
    v = v == 0 ? -5 : v;
    memcpy(out, &v, 8);
  } else {
    uint64_t r = chance(30) ? below(4) : rnd();
    memcpy(out, &r, tsize(t));
  }
}

static const dart_datatype_t atomic_types[] = {
  DART_TYPE_BYTE, DART_TYPE_SHORT, DART_TYPE_INT, DART_TYPE_UINT,
  DART_TYPE_LONG, DART_TYPE_ULONG, DART_TYPE_LONGLONG, DART_TYPE_ULONGLONG,
  DART_TYPE_FLOAT, DART_TYPE_DOUBLE
};
#define NATOMIC_TYPES (sizeof atomic_types / sizeof *atomic_types)

enum aform { ACCUMULATE, ACCUMULATE_BLOCKING_LOCAL, FETCH_AND_OP,
             COMPARE_AND_SWAP };
static const char *const aform_names[] = {
  "dart_accumulate", "dart_accumulate_blocking_local", "dart_fetch_and_op",
  "dart_compare_and_swap" };

/* Local operands: values at lbody, compare at lbody + 512, result at
 * lbody + 768 (all inside the guarded local buffer). */
#define CMP_AT 512
#define RES_AT 768

static dart_ret_t issue_atomic(enum aform f, dart_gptr_t g,
                               const void *values, const void *compare,
                               void *result, size_t n, dart_datatype_t t,
                               dart_operation_t op)
{
  switch (f) {
  case ACCUMULATE:
    return dart_accumulate(g, values, n, t, op);
  case ACCUMULATE_BLOCKING_LOCAL:
    return dart_accumulate_blocking_local(g, values, n, t, op);
  case FETCH_AND_OP:
    return dart_fetch_and_op(g, values, result, t, op);
  default:
    return dart_compare_and_swap(g, values, compare, result, t);
  }
}

static void describe_atomic(enum aform f, int s, dart_gptr_t g, size_t n,
                            dart_datatype_t t, dart_operation_t op,
                            const char *kind)
{
  snprintf(what, sizeof what,
           "%s %s: %s segment, team %d segid %d unit %d offset %" PRIu64
           ", nelem %zu, type %ld, op %lu", kind, aform_names[f],
           seg_names[s], (int)g.teamid, (int)g.segid, (int)g.unitid,
           g.addr_or_offs.offset, n, (long)t, (unsigned long)op);
}

static void valid_atomic(void)
{
  enum aform f = (enum aform)below(4);
  int s = pick_segment();
  int owner = (int)below((uint64_t)nunits);
  dart_datatype_t t;
  do {
    t = atomic_types[below(NATOMIC_TYPES)];
  } while (f == COMPARE_AND_SWAP && is_float(t));
  size_t size = tsize(t), slots = ATOM / size;
  size_t k = below(slots);
  size_t n = f == ACCUMULATE || f == ACCUMULATE_BLOCKING_LOCAL
               ? 1 + below(slots - k < 4 ? slots - k : 4) : 1;
  dart_operation_t op;
  do {
    op = DART_OP_MIN + below(DART_OP_NO_OP);
  } while (!op_valid(t, op));
  size_t toff = DATA + k * size;
  unsigned char *sh = shadow_of(s, owner) + toff;
  local_fill_canary();
  for (size_t i = 0; i < n; ++i) {
    random_operand(t, lbody + i * size);
    if (!float_ok(t, op, sh + i * size, lbody + i * size)) {
      op = chance(50) ? DART_OP_REPLACE : DART_OP_NO_OP;
    }
  }
  if (f == COMPARE_AND_SWAP) {
    if (chance(50)) {
      memcpy(lbody + CMP_AT, sh, size);
    } else {
      random_operand(t, lbody + CMP_AT);
    }
  }
  dart_gptr_t g = gptr_to(s, owner, region_off(me) + toff);
  describe_atomic(f, s, g, n, t, op, "valid");
  memcpy(lexpect, lraw, sizeof lraw);
  dart_ret_t ret = issue_atomic(f, g, lbody, lbody + CMP_AT, lbody + RES_AT,
                                n, t, op);
  int lines = new_log_lines();
  if (ret != DART_OK) {
    FAIL("returned %d", (int)ret);
  }
  if (lines != 0) {
    FAIL("a valid call logged %d lines", lines);
  }
  if ((chance(50) ? dart_flush(g) : dart_flush_all(g)) != DART_OK) {
    FAIL("the flush after the atomic failed");
  }
  if (f == FETCH_AND_OP || f == COMPARE_AND_SWAP) {
    memcpy(lexpect + LGUARD + RES_AT, sh, size);
  }
  if (f == COMPARE_AND_SWAP) {
    if (memcmp(sh, lbody + CMP_AT, size) == 0) {
      memcpy(sh, lbody, size);
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      apply(t, op, sh + i * size, lbody + i * size);
    }
  }
  local_check(lexpect, f == ACCUMULATE || f == ACCUMULATE_BLOCKING_LOCAL
                         ? "an accumulate changed its operands or guards"
                         : "wrong result, or operands or guards changed");
  ++stats[ST_VALID];
  ++stats[ST_ATOMIC];
}

static void invalid_atomic(void)
{
  enum aform f = (enum aform)below(4);
  int s = pick_segment();
  int owner = (int)below((uint64_t)nunits);
  dart_datatype_t t;
  do {
    t = atomic_types[below(NATOMIC_TYPES)];
  } while (f == COMPARE_AND_SWAP && is_float(t));
  size_t size = tsize(t), slots = ATOM / size;
  size_t k = below(slots);
  bool multi = f == ACCUMULATE || f == ACCUMULATE_BLOCKING_LOCAL;
  size_t n = multi ? 1 + below(slots - k < 4 ? slots - k : 4) : 1;
  dart_operation_t op;
  do {
    op = DART_OP_MIN + below(DART_OP_NO_OP);
  } while (!op_valid(t, op));
  size_t toff = DATA + k * size;
  dart_gptr_t g = gptr_to(s, owner, region_off(me) + toff);
  const void *values = lbody, *compare = lbody + CMP_AT;
  void *result = lbody + RES_AT;
  const char *kind = "?";
  int how = (int)below(8);
  switch (how) {
  case 0:
  case 1:
    g = bad_gptr(s, owner, region_off(me) + toff, n * size, &kind);
    break;
  case 2: {
    /* Misaligned target (the lead's rule: DART_ERR_INVAL, no change). */
    if (size == 1) {
      t = DART_TYPE_INT;
      size = tsize(t);
      if (!op_valid(t, op)) {
        op = DART_OP_REPLACE;
      }
      n = 1;
    }
    g.addr_or_offs.offset =
      segs[s].base[owner] + region_off(me) + DATA + 8 + 1 + below(size - 1);
    kind = "misaligned target";
    break;
  }
  case 3: {
    int which = (int)below(f == COMPARE_AND_SWAP ? 3 : f == FETCH_AND_OP ? 2
                                                                         : 1);
    if (which == 0) {
      values = NULL;
    } else if (which == 1) {
      result = NULL;
    } else {
      compare = NULL;
    }
    kind = "NULL operand or result";
    break;
  }
  case 4:
    if (multi) {
      n = huge_count(s, size, 1);
      kind = "huge count";
      break;
    }
    /* fall through */
  case 5: {
    const dart_datatype_t bad[] = {
      DART_TYPE_UNDEFINED, DART_TYPE_LAST, (dart_datatype_t)123456789,
      types[NBASIC].id, types[NBASIC + 4].id, stale_type,
      DART_TYPE_FLOAT, DART_TYPE_DOUBLE, DART_TYPE_LONG_DOUBLE };
    /* Floating types are invalid in compare-and-swap only. */
    t = bad[below(f == COMPARE_AND_SWAP ? 9 : 6)];
    kind = "invalid type";
    break;
  }
  default: {
    if (f == COMPARE_AND_SWAP) { /* takes no operation */
      g = bad_gptr(s, owner, region_off(me) + toff, size, &kind);
      break;
    }
    const dart_operation_t bad[] = {
      DART_OP_MINMAX, DART_OP_UNDEFINED, DART_OP_LAST, 999, user_op,
      (dart_operation_t)-1 };
    int b = (int)below(8);
    if (b < 6) {
      op = bad[b];
    } else {
      /* A predefined operation the type does not take. */
      t = chance(50) ? DART_TYPE_DOUBLE : DART_TYPE_FLOAT;
      op = (dart_operation_t[]){ DART_OP_BAND, DART_OP_LXOR, DART_OP_BOR,
                                 DART_OP_LAND }[below(4)];
      n = 1;
    }
    kind = "invalid operation";
    break;
  }
  }
  describe_atomic(f, s, g, n, t, op, "invalid");
  snprintf(what + strlen(what), sizeof what - strlen(what), " [%s]", kind);
  local_fill_random();
  memcpy(lexpect, lraw, sizeof lraw);
  dart_ret_t ret = issue_atomic(f, g, values, compare, result, n, t, op);
  int lines = new_log_lines();
  if (ret != DART_ERR_INVAL) {
    FAIL("returned %d, expected DART_ERR_INVAL (%d)", (int)ret,
         (int)DART_ERR_INVAL);
  }
  if (lines != 1) {
    FAIL("logged %d lines, expected one", lines);
  }
  local_check(lexpect, "an invalid atomic wrote local memory");
  dart_gptr_t valid = gptr_to(s, owner, 0);
  if (dart_flush_all(valid) != DART_OK || new_log_lines() != 0) {
    FAIL("dart_flush_all after the invalid call failed");
  }
  ++stats[ST_INVALID];
  ++stats[ST_ATOMIC];
}

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
