/* CPU atomics on memory shared between processes: P forked processes (like
 * DART units on one node) hammer the same words of a MAP_SHARED mapping.
 * Every final value must equal the sequential result exactly (the operands
 * are chosen so that any interleaving gives the same result), fetched old
 * values must be consistent, and nothing may get lost. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "base/cpu_atomics.h"
#include "test.h"

#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

enum {
  P       = 4,    /* processes */
  K       = 5000, /* updates per process and target */
  K_BYTE  = 60,   /* counters and tokens in a byte: P * K_BYTE + 1 <= 256 */
  K_SHORT = 8000, /* ... and in a short: P * K_SHORT + 1 <= 32768 */
  NARRAY  = 5,    /* elements of the array accumulates */
  NTYPES  = 10,
  NPLAN   = 14,
};

/* ---- the basic types, seen through void pointers --------------------- */

struct type_info {
  const char     *name;
  dart_datatype_t type;
  size_t          size;
  bool            floating;
  void (*set)(void *dst, uint64_t x);     /* *dst = (T)x */
  void (*set_real)(void *dst, double x);  /* floating types only */
  uint64_t (*count)(const void *src);     /* small non-negative value back */
  /* sequential reference: *acc = *acc op *v */
  void (*reference)(void *acc, const void *v, dart_operation_t op);
};

#define INTEGER_TYPE(NAME, T, U)                                            \
  static void NAME##_set(void *dst, uint64_t x)                             \
  {                                                                         \
    T v = (T)x;                                                             \
    memcpy(dst, &v, sizeof v);                                              \
  }                                                                         \
  static uint64_t NAME##_count(const void *src)                             \
  {                                                                         \
    U v;                                                                    \
    memcpy(&v, src, sizeof v);                                              \
    return v;                                                               \
  }                                                                         \
  static void NAME##_reference(void *accp, const void *vp,                  \
                               dart_operation_t op)                         \
  {                                                                         \
    T a, v;                                                                 \
    memcpy(&a, accp, sizeof a);                                             \
    memcpy(&v, vp, sizeof v);                                               \
    uintmax_t ua = (U)a, uv = (U)v;                                         \
    switch (op) {                                                           \
    case DART_OP_MIN:     a = v < a ? v : a;   break;                       \
    case DART_OP_MAX:     a = v > a ? v : a;   break;                       \
    case DART_OP_SUM:     a = (T)(U)(ua + uv); break;                       \
    case DART_OP_PROD:    a = (T)(U)(ua * uv); break;                       \
    case DART_OP_BAND:    a = (T)(U)(ua & uv); break;                       \
    case DART_OP_BOR:     a = (T)(U)(ua | uv); break;                       \
    case DART_OP_BXOR:    a = (T)(U)(ua ^ uv); break;                       \
    case DART_OP_LAND:    a = a && v;          break;                       \
    case DART_OP_LOR:     a = a || v;          break;                       \
    case DART_OP_LXOR:    a = !a != !v;        break;                       \
    case DART_OP_REPLACE: a = v;               break;                       \
    default:                                   break;                       \
    }                                                                       \
    memcpy(accp, &a, sizeof a);                                             \
  }

#define FLOAT_TYPE(NAME, T)                                                 \
  static void NAME##_set(void *dst, uint64_t x)                             \
  {                                                                         \
    T v = (T)x;                                                             \
    memcpy(dst, &v, sizeof v);                                              \
  }                                                                         \
  static void NAME##_set_real(void *dst, double x)                          \
  {                                                                         \
    T v = (T)x;                                                             \
    memcpy(dst, &v, sizeof v);                                              \
  }                                                                         \
  static uint64_t NAME##_count(const void *src)                             \
  {                                                                         \
    T v;                                                                    \
    memcpy(&v, src, sizeof v);                                              \
    return v >= 0 && v < 1e9 && v == (T)(uint64_t)v ? (uint64_t)v           \
                                                    : UINT64_MAX;           \
  }                                                                         \
  static void NAME##_reference(void *accp, const void *vp,                  \
                               dart_operation_t op)                         \
  {                                                                         \
    T a, v;                                                                 \
    memcpy(&a, accp, sizeof a);                                             \
    memcpy(&v, vp, sizeof v);                                               \
    switch (op) {                                                           \
    case DART_OP_MIN:     a = v < a ? v : a; break;                         \
    case DART_OP_MAX:     a = v > a ? v : a; break;                         \
    case DART_OP_SUM:     a = a + v;         break;                         \
    case DART_OP_PROD:    a = a * v;         break;                         \
    case DART_OP_REPLACE: a = v;             break;                         \
    default:                                 break;                         \
    }                                                                       \
    memcpy(accp, &a, sizeof a);                                             \
  }

INTEGER_TYPE(byte, char, unsigned char)
INTEGER_TYPE(short, short, unsigned short)
INTEGER_TYPE(int, int, unsigned int)
INTEGER_TYPE(uint, unsigned int, unsigned int)
INTEGER_TYPE(long, long, unsigned long)
INTEGER_TYPE(ulong, unsigned long, unsigned long)
INTEGER_TYPE(longlong, long long, unsigned long long)
INTEGER_TYPE(ulonglong, unsigned long long, unsigned long long)
FLOAT_TYPE(float, float)
FLOAT_TYPE(double, double)

#define INTEGER_ENTRY(NAME, DT, T)                                          \
  { #DT, DT, sizeof(T), false, NAME##_set, NULL, NAME##_count,              \
    NAME##_reference }
#define FLOAT_ENTRY(NAME, DT, T)                                            \
  { #DT, DT, sizeof(T), true, NAME##_set, NAME##_set_real, NAME##_count,    \
    NAME##_reference }

/* The integral types come first: they are the compare-and-swap types. */
static const struct type_info types[NTYPES] = {
  INTEGER_ENTRY(byte, DART_TYPE_BYTE, char),
  INTEGER_ENTRY(short, DART_TYPE_SHORT, short),
  INTEGER_ENTRY(int, DART_TYPE_INT, int),
  INTEGER_ENTRY(uint, DART_TYPE_UINT, unsigned int),
  INTEGER_ENTRY(long, DART_TYPE_LONG, long),
  INTEGER_ENTRY(ulong, DART_TYPE_ULONG, unsigned long),
  INTEGER_ENTRY(longlong, DART_TYPE_LONGLONG, long long),
  INTEGER_ENTRY(ulonglong, DART_TYPE_ULONGLONG, unsigned long long),
  FLOAT_ENTRY(float, DART_TYPE_FLOAT, float),
  FLOAT_ENTRY(double, DART_TYPE_DOUBLE, double),
};
enum { NINTEGRAL = 8 };

/* ---- operands whose combination is exact and order-independent ------ */

static const struct {
  dart_operation_t op;
  const char      *name;
  int              variant;
  bool             integer_only;
} plan[NPLAN] = {
  { DART_OP_MIN, "MIN", 0, false },      { DART_OP_MAX, "MAX", 0, false },
  { DART_OP_SUM, "SUM", 0, false },      { DART_OP_PROD, "PROD", 0, false },
  { DART_OP_BAND, "BAND", 0, true },     { DART_OP_BOR, "BOR", 0, true },
  { DART_OP_BXOR, "BXOR", 0, true },     { DART_OP_LAND, "LAND", 0, true },
  { DART_OP_LAND, "LAND", 1, true },     { DART_OP_LOR, "LOR", 0, true },
  { DART_OP_LOR, "LOR", 1, true },       { DART_OP_LXOR, "LXOR", 0, true },
  { DART_OP_REPLACE, "REPLACE", 0, false },
  { DART_OP_NO_OP, "NO_OP", 0, false },
};

static uint64_t mix(uint64_t x)
{
  x += UINT64_C(0x9e3779b97f4a7c15);
  x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
  return x ^ (x >> 31);
}

/* BAND/BOR: each bit but every fourth is flipped by exactly one update, so
 * a lost update shows in the result. */
static int designated_bit(const struct type_info *ti, int p, int k)
{
  int bit = p + P * (k / 64);
  return k % 64 == 0 && bit < (int)(8 * ti->size) && bit % 4 != 3 ? bit
                                                                  : -1;
}

static void operand(const struct type_info *ti, dart_operation_t op,
                    int variant, int p, int k, void *out)
{
  uint64_t x = mix(((uint64_t)op << 40) ^ ((uint64_t)p << 20) ^ (uint64_t)k);
  int bit = designated_bit(ti, p, k);
  switch (op) {
  case DART_OP_MIN:
  case DART_OP_MAX: /* integers: full range, half of them with the top bit */
    if (ti->floating) {
      ti->set_real(out, ((double)(x % 2000001) - 1000000) / 8);
    } else {
      ti->set(out, x);
    }
    break;
  case DART_OP_SUM: /* integers wrap; floats: small integers stay exact */
    if (ti->floating) {
      ti->set_real(out, (double)(x % 5) - 2);
    } else {
      ti->set(out, x);
    }
    break;
  case DART_OP_PROD:
    /* integers: odd factors, wrapping (exact in any order); floats: +-1,
     * and 2 and 0.5 taking turns in each process, so every partial product
     * is +-1.5 * 2^m with 0 <= m <= P: exact in any order */
    if (ti->floating) {
      ti->set_real(out, k % 64 == 0   ? 2.0
                        : k % 64 == 32 ? 0.5
                        : x % 8 == 0   ? -1.0
                                       : 1.0);
    } else {
      ti->set(out, x | 1);
    }
    break;
  case DART_OP_BAND:
    ti->set(out, bit < 0 ? UINT64_MAX : ~(UINT64_C(1) << bit));
    break;
  case DART_OP_BOR:
    ti->set(out, bit < 0 ? 0 : UINT64_C(1) << bit);
    break;
  case DART_OP_LAND: /* nonzero (odd) operands; variant 1: one zero */
    ti->set(out, variant == 1 && p == P - 1 && k == K / 2 ? 0 : x | 1);
    break;
  case DART_OP_LOR: /* zero operands; variant 1: one nonzero */
    ti->set(out, variant == 1 && p == 1 && k == K / 3 ? x | 1 : 0);
    break;
  case DART_OP_LXOR: /* a third of them zero: the parity of the rest */
    ti->set(out, x % 3 == 0 ? 0 : x | 1);
    break;
  default: /* BXOR, REPLACE, NO_OP */
    if (ti->floating) {
      ti->set_real(out, (double)(x % 100000));
    } else {
      ti->set(out, x);
    }
  }
}

static void initial(const struct type_info *ti, dart_operation_t op,
                    void *out)
{
  switch (op) {
  case DART_OP_MIN:
  case DART_OP_MAX:
    if (ti->floating) {
      ti->set_real(out, 0.25);
    } else {
      ti->set(out, UINT64_C(1) << (8 * ti->size - 2));
    }
    break;
  case DART_OP_SUM:
    if (ti->floating) {
      ti->set_real(out, 0.5);
    } else {
      ti->set(out, mix(42));
    }
    break;
  case DART_OP_PROD:
    if (ti->floating) {
      ti->set_real(out, 1.5);
    } else {
      ti->set(out, 3);
    }
    break;
  case DART_OP_BAND: ti->set(out, UINT64_MAX); break;
  case DART_OP_BOR:
  case DART_OP_LOR:  ti->set(out, 0);          break;
  case DART_OP_LAND: ti->set(out, 42);         break;
  case DART_OP_LXOR: ti->set(out, 5);          break;
  default:           ti->set(out, 77);         break;
  }
}

/* Counters and tokens: steps per worker such that the P * n + 1 values
 * fit the type. */
static int count_steps(const struct type_info *ti)
{
  return ti->size == 1 ? K_BYTE : ti->size == 2 && K > K_SHORT ? K_SHORT : K;
}

/* ---- memory shared by all processes ---------------------------------- */

struct combo {
  const struct type_info *ti;
  int                     plan;
};

enum { COUNTERS, SWAPS, CASES }; /* phases that record fetched values */

struct shared {
  unsigned arrived;                   /* barrier arrivals */
  unsigned cas_retries;               /* failed CAS: proof of contention */
  uint64_t ops[NTYPES * NPLAN];       /* one target per (type, op) */
  uint64_t counter[NTYPES];           /* fetch-and-add counters */
  uint64_t swap[NTYPES];              /* token swap */
  uint64_t cas[NTYPES];               /* CAS counters */
  uint64_t array[NTYPES][NARRAY + 1]; /* array accumulate, guard after */
  uint64_t fetched[3][NTYPES][P * K]; /* worker p's k-th fetched value at
                                         p * n + k */
};

static struct shared *sh;
static struct combo   combos[NTYPES * NPLAN];
static int            ncombos;

/* ---- the worker processes -------------------------------------------- */

static int self;     /* this process's index */
static int failures; /* checks failed in this process */
static unsigned rounds;

/* Like CHECK, without returning (the others wait in barriers); reports the
 * first few failures of the process. */
#define EXPECT(cond)                                                        \
  do {                                                                      \
    if (!(cond) && ++failures <= 5) {                                       \
      fprintf(stderr, "FAIL %s:%d (process %d): %s\n", __FILE__, __LINE__,  \
              self, #cond);                                                 \
    }                                                                       \
  } while (0)

/* All P workers start each target together, so they contend.  Waiters
 * spin, keeping their CPU so that they run the moment the last one arrives
 * (yielding at once would hand the CPU to whatever else runs on a loaded
 * machine, and the workers would take turns instead of overlapping); now
 * and then they yield, so that a worker without a CPU gets to arrive. */
static void barrier(void)
{
  unsigned goal = ++rounds * P;
  __atomic_add_fetch(&sh->arrived, 1, __ATOMIC_SEQ_CST);
  for (unsigned spins = 1;
       __atomic_load_n(&sh->arrived, __ATOMIC_SEQ_CST) < goal; ++spins) {
    if (spins % 16384 == 0) {
      sched_yield();
    }
  }
}

/* Every (type, op): a third of the updates accumulate, the rest
 * fetch-and-op, half of those through unaligned operand/result buffers. */
static void work_ops(int p)
{
  for (int c = 0; c < ncombos; ++c) {
    const struct type_info *ti = combos[c].ti;
    dart_operation_t op = plan[combos[c].plan].op;
    int variant = plan[combos[c].plan].variant;
    unsigned char start[8], buf[32];
    initial(ti, op, start);
    barrier();
    for (int k = 0; k < K; ++k) {
      unsigned char *value  = buf + (k % 3 == 2 ? 1 : 0);
      unsigned char *result = buf + (k % 3 == 2 ? 19 : 16);
      operand(ti, op, variant, p, k, value);
      if (k % 3 == 0) {
        cpu_atomic_accumulate(&sh->ops[c], value, 1, ti->type, op);
      } else {
        cpu_atomic_fetch_and_op(&sh->ops[c], value, result, ti->type, op);
        if (op == DART_OP_NO_OP) {
          EXPECT(memcmp(result, start, ti->size) == 0);
        }
      }
    }
  }
}

/* Fetch-and-add 1: every process records what it fetched; interleaved
 * atomic reads never run behind the process's own last increment. */
static void work_counters(int p)
{
  for (int t = 0; t < NTYPES; ++t) {
    const struct type_info *ti = &types[t];
    int n = count_steps(ti);
    unsigned char one[8], now[16];
    ti->set(one, 1);
    barrier();
    for (int k = 0; k < n; ++k) {
      uint64_t *mine = &sh->fetched[COUNTERS][t][p * n + k];
      cpu_atomic_fetch_and_op(&sh->counter[t], one, mine, ti->type,
                              DART_OP_SUM);
      if (k % 8 == 0) {
        cpu_atomic_fetch_and_op(&sh->counter[t], one, now + 3, ti->type,
                                DART_OP_NO_OP);
        uint64_t seen = ti->count(now + 3);
        EXPECT(seen > ti->count(mine) && seen <= (uint64_t)(P * n));
      }
    }
  }
}

/* Atomic swap as token passing: put a new token in, take the old out. */
static void work_swap(int p)
{
  for (int t = 0; t < NTYPES; ++t) {
    const struct type_info *ti = &types[t];
    int n = count_steps(ti);
    barrier();
    for (int k = 0; k < n; ++k) {
      unsigned char token[16];
      ti->set(token + 5, (uint64_t)(p * n + k));
      cpu_atomic_fetch_and_op(&sh->swap[t], token + 5,
                              &sh->fetched[SWAPS][t][p * n + k], ti->type,
                              DART_OP_REPLACE);
    }
  }
}

/* A counter built from compare-and-swap; each success owns a ticket. */
static void work_cas(int p)
{
  for (int t = 0; t < NINTEGRAL; ++t) {
    const struct type_info *ti = &types[t];
    int n = count_steps(ti);
    unsigned char raw[3][16], zero[8] = { 0 };
    unsigned char *cur = raw[0] + 1, *next = raw[1] + 3, *old = raw[2] + 5;
    barrier();
    cpu_atomic_fetch_and_op(&sh->cas[t], zero, cur, ti->type, DART_OP_NO_OP);
    for (int k = 0; k < n; ++k) {
      for (;;) {
        ti->set(next, ti->count(cur) + 1);
        cpu_atomic_compare_and_swap(&sh->cas[t], next, cur, old, ti->type);
        if (memcmp(old, cur, ti->size) == 0) {
          memcpy(&sh->fetched[CASES][t][p * n + k], cur, ti->size);
          memcpy(cur, next, ti->size);
          break;
        }
        /* failed: *old is the newer current value */
        EXPECT(ti->count(old) > ti->count(cur));
        __atomic_add_fetch(&sh->cas_retries, 1, __ATOMIC_RELAXED);
        memcpy(cur, old, ti->size);
      }
    }
  }
}

static void array_operands(const struct type_info *ti, int p, int k,
                           unsigned char *values)
{
  for (int i = 0; i < NARRAY; ++i) {
    operand(ti, DART_OP_SUM, 0, p, k * NARRAY + i, values + i * ti->size);
  }
}

/* Accumulate of NARRAY elements at once. */
static void work_arrays(int p)
{
  for (int t = 0; t < NTYPES; ++t) {
    const struct type_info *ti = &types[t];
    barrier();
    for (int k = 0; k < K / 4; ++k) {
      unsigned char buf[NARRAY * 8 + 1];
      unsigned char *values = buf + k % 2;
      array_operands(ti, p, k, values);
      cpu_atomic_accumulate(sh->array[t], values, NARRAY, ti->type,
                            DART_OP_SUM);
    }
  }
}

static int worker(int p)
{
  self = p;
  work_ops(p);
  work_counters(p);
  work_swap(p);
  work_cas(p);
  work_arrays(p);
  return failures == 0 ? 0 : 1;
}

/* ---- the parent: set up, run, verify --------------------------------- */

static void print_hex(const char *label, const void *v, size_t size)
{
  const unsigned char *b = v;
  fprintf(stderr, " %s 0x", label);
  for (size_t i = size; i-- > 0;) { /* little-endian: most significant first */
    fprintf(stderr, "%02x", b[i]);
  }
}

static int same(const struct type_info *ti, const char *what, const void *got,
                const void *expected)
{
  if (memcmp(got, expected, ti->size) == 0) {
    return 1;
  }
  fprintf(stderr, "FAIL %s %s:", ti->name, what);
  print_hex("got", got, ti->size);
  print_hex("expected", expected, ti->size);
  fprintf(stderr, "\n");
  return 0;
}

/* Kill the workers still running: the others would wait for a dead one in
 * a barrier forever. */
static void kill_running(const pid_t *pids, const bool *ended)
{
  for (int p = 0; p < P; ++p) {
    if (pids[p] > 0 && !ended[p]) {
      kill(pids[p], SIGKILL);
    }
  }
}

static int run_workers(void)
{
  pid_t pids[P] = { 0 };
  bool  ended[P] = { false };
  int   ok = 1, running = 0;
  for (int p = 0; p < P; ++p) {
    pids[p] = fork();
    if (pids[p] == 0) {
      alarm(60); /* a hung worker dies rather than spinning on */
      _exit(worker(p));
    }
    if (pids[p] < 0) {
      perror("FAIL fork");
      kill_running(pids, ended);
      ok = 0;
      break;
    }
    ++running;
  }
  for (; running > 0; --running) {
    int status;
    pid_t pid = waitpid(-1, &status, 0);
    ASSERT(pid > 0);
    for (int p = 0; p < P; ++p) {
      ended[p] |= pids[p] == pid;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "FAIL worker %d ended with status 0x%x\n", (int)pid,
              status);
      if (!WIFEXITED(status)) {
        kill_running(pids, ended);
      }
      ok = 0;
    }
  }
  return ok;
}

static int verify_ops(void)
{
  int ok = 1;
  for (int c = 0; c < ncombos; ++c) {
    const struct type_info *ti = combos[c].ti;
    dart_operation_t op = plan[combos[c].plan].op;
    int variant = plan[combos[c].plan].variant;
    char what[64];
    snprintf(what, sizeof what, "%s (variant %d)", plan[combos[c].plan].name,
             variant);
    unsigned char expected[8], v[8];
    if (op == DART_OP_REPLACE) { /* the last value of some process */
      int found = 0;
      for (int p = 0; p < P; ++p) {
        operand(ti, op, variant, p, K - 1, v);
        found |= memcmp(&sh->ops[c], v, ti->size) == 0;
      }
      if (!found) {
        fprintf(stderr, "FAIL %s REPLACE: no process's last value\n",
                ti->name);
      }
      ok &= found;
      continue;
    }
    initial(ti, op, expected);
    for (int p = 0; p < P; ++p) {
      for (int k = 0; k < K; ++k) {
        operand(ti, op, variant, p, k, v);
        ti->reference(expected, v, op);
      }
    }
    ok &= same(ti, what, &sh->ops[c], expected);
  }
  return ok;
}

/* The counts of slots[0 .. nslots) (and of *extra, if not NULL) are
 * exactly 0, 1, ..., range - 1. */
static int permutation(const struct type_info *ti, const char *what,
                       const uint64_t *slots, size_t nslots,
                       const uint64_t *extra, size_t range)
{
  unsigned char *seen = calloc(range, 1);
  int ok = seen != NULL;
  for (size_t i = 0; ok && i <= nslots; ++i) {
    const uint64_t *slot = i < nslots ? &slots[i] : extra;
    if (slot == NULL) {
      break;
    }
    uint64_t c = ti->count(slot);
    if (c >= range || seen[c]++) {
      fprintf(stderr, "FAIL %s %s: value %llu out of range or repeated\n",
              ti->name, what, (unsigned long long)c);
      ok = 0;
    }
  }
  for (size_t c = 0; ok && c < range; ++c) {
    if (!seen[c]) {
      fprintf(stderr, "FAIL %s %s: value %zu missing\n", ti->name, what, c);
      ok = 0;
    }
  }
  free(seen);
  return ok;
}

static int verify_counters(void)
{
  int ok = 1;
  for (int t = 0; t < NTYPES; ++t) {
    const struct type_info *ti = &types[t];
    size_t n = (size_t)count_steps(ti);
    unsigned char total[8];
    ti->set(total, P * n);
    /* fetch-and-add: the fetched values are 0, 1, ..., P * n - 1 */
    ok &= same(ti, "fetch-and-add counter", &sh->counter[t], total);
    ok &= permutation(ti, "fetch-and-add fetched", sh->fetched[COUNTERS][t],
                      P * n, NULL, P * n);
    /* tokens: those taken out and the one left are all P * n + 1 put in */
    ok &= permutation(ti, "swapped tokens", sh->fetched[SWAPS][t], P * n,
                      &sh->swap[t], P * n + 1);
    /* CAS counter: each value was won exactly once */
    if (t < NINTEGRAL) {
      ok &= same(ti, "CAS counter", &sh->cas[t], total);
      ok &= permutation(ti, "CAS tickets", sh->fetched[CASES][t], P * n,
                        NULL, P * n);
    }
  }
  return ok;
}

static int verify_arrays(void)
{
  int ok = 1;
  for (int t = 0; t < NTYPES; ++t) {
    const struct type_info *ti = &types[t];
    unsigned char expected[NARRAY * 8], values[NARRAY * 8];
    for (int i = 0; i < NARRAY; ++i) {
      ti->set(expected + i * ti->size, (uint64_t)i);
    }
    for (int p = 0; p < P; ++p) {
      for (int k = 0; k < K / 4; ++k) {
        array_operands(ti, p, k, values);
        for (int i = 0; i < NARRAY; ++i) {
          ti->reference(expected + i * ti->size, values + i * ti->size,
                        DART_OP_SUM);
        }
      }
    }
    const unsigned char *got = (const unsigned char *)sh->array[t];
    for (int i = 0; i < NARRAY; ++i) {
      ok &= same(ti, "array element", got + i * ti->size,
                 expected + i * ti->size);
    }
    for (size_t b = NARRAY * ti->size; b < sizeof sh->array[t]; ++b) {
      if (got[b] != 0xa5) {
        fprintf(stderr, "FAIL %s array: byte %zu past the end written\n",
                ti->name, b);
        ok = 0;
      }
    }
  }
  return ok;
}

static int concurrent(void)
{
  sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE,
            MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT(sh != MAP_FAILED);
  for (int t = 0; t < NTYPES; ++t) {
    for (int q = 0; q < NPLAN; ++q) {
      if (!(plan[q].integer_only && types[t].floating)) {
        combos[ncombos].ti   = &types[t];
        combos[ncombos].plan = q;
        initial(&types[t], plan[q].op, &sh->ops[ncombos]);
        ++ncombos;
      }
    }
    int n = count_steps(&types[t]);
    types[t].set(&sh->counter[t], 0);
    types[t].set(&sh->swap[t], (uint64_t)(P * n)); /* the initial token */
    types[t].set(&sh->cas[t], 0);
    memset(sh->array[t], 0xa5, sizeof sh->array[t]);
    for (int i = 0; i < NARRAY; ++i) {
      types[t].set((char *)sh->array[t] + i * types[t].size, (uint64_t)i);
    }
  }
  /* verify even after a failed worker: report every symptom */
  int workers_ok = run_workers();
  int ops_ok = verify_ops(), counters_ok = verify_counters();
  int arrays_ok = verify_arrays();
  ASSERT(workers_ok && ops_ok && counters_ok && arrays_ok);
  printf("test_cpu_atomics: %d processes x %d updates on each of %d "
         "(type, op) targets; %u CAS retries under contention\n",
         P, K, ncombos, sh->cas_retries);
  ASSERT(munmap(sh, sizeof *sh) == 0);
  return 0;
}

/* ---- single-process checks ------------------------------------------- */

static int single(void)
{
  for (dart_datatype_t t = DART_TYPE_BYTE; t <= DART_TYPE_DOUBLE; ++t) {
    ASSERT(cpu_atomic_supported(t));
  }
  ASSERT(!cpu_atomic_supported(DART_TYPE_LONG_DOUBLE));
  ASSERT(!cpu_atomic_supported(DART_TYPE_UNDEFINED));
  ASSERT(!cpu_atomic_supported(DART_TYPE_LAST));
  ASSERT(!cpu_atomic_supported((dart_datatype_t)4096));
  ASSERT(!cpu_atomic_supported((dart_datatype_t)-1));

  /* Unsigned types compare unsigned. */
  unsigned int u = 1, ubig = 0x80000005u;
  cpu_atomic_accumulate(&u, &ubig, 1, DART_TYPE_UINT, DART_OP_MAX);
  ASSERT(u == 0x80000005u);
  unsigned int uone = 1;
  cpu_atomic_accumulate(&u, &uone, 1, DART_TYPE_UINT, DART_OP_MIN);
  ASSERT(u == 1);
  unsigned long ul = 1, ulbig = ULONG_MAX - 3, ulone = 1;
  cpu_atomic_accumulate(&ul, &ulbig, 1, DART_TYPE_ULONG, DART_OP_MAX);
  ASSERT(ul == ULONG_MAX - 3);
  cpu_atomic_accumulate(&ul, &ulone, 1, DART_TYPE_ULONG, DART_OP_MIN);
  ASSERT(ul == 1);
  unsigned long long ull = 1, ullbig = ULLONG_MAX - 3, ullold = 0;
  cpu_atomic_fetch_and_op(&ull, &ullbig, &ullold, DART_TYPE_ULONGLONG,
                          DART_OP_MAX);
  ASSERT(ull == ULLONG_MAX - 3 && ullold == 1);
  /* ... and signed ones signed. */
  long l = -1, lone = 1, lmin = LONG_MIN;
  cpu_atomic_accumulate(&l, &lone, 1, DART_TYPE_LONG, DART_OP_MAX);
  ASSERT(l == 1);
  cpu_atomic_accumulate(&l, &lmin, 1, DART_TYPE_LONG, DART_OP_MIN);
  ASSERT(l == LONG_MIN);
  float f = -1.5f, fv = -2.5f;
  cpu_atomic_accumulate(&f, &fv, 1, DART_TYPE_FLOAT, DART_OP_MAX);
  ASSERT(f == -1.5f);
  cpu_atomic_accumulate(&f, &fv, 1, DART_TYPE_FLOAT, DART_OP_MIN);
  ASSERT(f == -2.5f);

  /* Signed overflow wraps (no undefined behaviour under UBSan). */
  int i = INT_MAX, ione = 1, itwo = 2;
  cpu_atomic_accumulate(&i, &ione, 1, DART_TYPE_INT, DART_OP_SUM);
  ASSERT(i == INT_MIN);
  i = INT_MAX;
  cpu_atomic_accumulate(&i, &itwo, 1, DART_TYPE_INT, DART_OP_PROD);
  ASSERT(i == -2);
  short s = SHRT_MAX, sone = 1, sbig = SHRT_MAX;
  cpu_atomic_accumulate(&s, &sone, 1, DART_TYPE_SHORT, DART_OP_SUM);
  ASSERT(s == SHRT_MIN);
  cpu_atomic_accumulate(&s, &sbig, 1, DART_TYPE_SHORT, DART_OP_PROD);
  ASSERT(s == SHRT_MIN); /* -2^15 * (2^15 - 1) = -2^15 mod 2^16 */
  long long ll = LLONG_MIN, llm = -1;
  cpu_atomic_accumulate(&ll, &llm, 1, DART_TYPE_LONGLONG, DART_OP_PROD);
  ASSERT(ll == LLONG_MIN);
  unsigned short us = 65535, usbig = 65535;
  cpu_atomic_accumulate(&us, &usbig, 1, DART_TYPE_SHORT, DART_OP_PROD);
  ASSERT(us == 1);

  /* Logical ops give 0 or 1, judging the whole value. */
  int a = 5, b = 3, z = 0;
  cpu_atomic_accumulate(&a, &b, 1, DART_TYPE_INT, DART_OP_LAND);
  ASSERT(a == 1);
  a = 5;
  cpu_atomic_accumulate(&a, &z, 1, DART_TYPE_INT, DART_OP_LAND);
  ASSERT(a == 0);
  cpu_atomic_accumulate(&a, &z, 1, DART_TYPE_INT, DART_OP_LOR);
  ASSERT(a == 0);
  cpu_atomic_accumulate(&a, &b, 1, DART_TYPE_INT, DART_OP_LOR);
  ASSERT(a == 1);
  a = 5;
  cpu_atomic_accumulate(&a, &b, 1, DART_TYPE_INT, DART_OP_LXOR);
  ASSERT(a == 0);
  cpu_atomic_accumulate(&a, &b, 1, DART_TYPE_INT, DART_OP_LXOR);
  ASSERT(a == 1);
  unsigned long long high = 1ull << 40, high2 = 1ull << 33;
  cpu_atomic_accumulate(&high, &high2, 1, DART_TYPE_ULONGLONG, DART_OP_LAND);
  ASSERT(high == 1);
  char c = (char)0x80, cbits = 0x0f;
  cpu_atomic_accumulate(&c, &cbits, 1, DART_TYPE_BYTE, DART_OP_BOR);
  ASSERT(c == (char)0x8f);
  cpu_atomic_accumulate(&c, &cbits, 1, DART_TYPE_BYTE, DART_OP_BXOR);
  ASSERT(c == (char)0x80);

  /* Unaligned value and result buffers. */
  char buf[32];
  double d = 2.5, dv = 1.25, dold;
  memcpy(buf + 1, &dv, sizeof dv);
  cpu_atomic_fetch_and_op(&d, buf + 1, buf + 11, DART_TYPE_DOUBLE,
                          DART_OP_SUM);
  memcpy(&dold, buf + 11, sizeof dold);
  ASSERT(d == 3.75 && dold == 2.5);
  long long lv = 7, lnew = -9, lold;
  memcpy(buf + 3, &lnew, sizeof lnew);
  cpu_atomic_fetch_and_op(&lv, buf + 3, buf + 13, DART_TYPE_LONGLONG,
                          DART_OP_REPLACE);
  memcpy(&lold, buf + 13, sizeof lold);
  ASSERT(lv == -9 && lold == 7);

  /* NO_OP: an atomic read that never touches the target nor reads the
   * value (a one-byte value for an eight-byte type: ASan would see it). */
  char ignored = 0;
  ull = 123456789012345ull;
  cpu_atomic_fetch_and_op(&ull, &ignored, buf + 5, DART_TYPE_ULONGLONG,
                          DART_OP_NO_OP);
  memcpy(&ullold, buf + 5, sizeof ullold);
  ASSERT(ull == 123456789012345ull && ullold == ull);
  cpu_atomic_accumulate(&ull, &ignored, 1, DART_TYPE_ULONGLONG,
                        DART_OP_NO_OP);
  ASSERT(ull == 123456789012345ull);

  /* Compare-and-swap: success and failure, through unaligned buffers. */
  long long target = 7, cmp = 7, val = 9, prev;
  memcpy(buf + 1, &val, sizeof val);
  memcpy(buf + 10, &cmp, sizeof cmp);
  cpu_atomic_compare_and_swap(&target, buf + 1, buf + 10, buf + 19,
                              DART_TYPE_LONGLONG);
  memcpy(&prev, buf + 19, sizeof prev);
  ASSERT(target == 9 && prev == 7);
  val = 11;
  memcpy(buf + 1, &val, sizeof val);
  cpu_atomic_compare_and_swap(&target, buf + 1, buf + 10, buf + 19,
                              DART_TYPE_LONGLONG);
  memcpy(&prev, buf + 19, sizeof prev);
  ASSERT(target == 9 && prev == 9); /* failed: unchanged, current returned */
  unsigned char byte = 200, bcmp = 200, bval = 250, bprev = 0;
  cpu_atomic_compare_and_swap(&byte, &bval, &bcmp, &bprev, DART_TYPE_BYTE);
  ASSERT(byte == 250 && bprev == 200);
  cpu_atomic_compare_and_swap(&byte, &bval, &bcmp, &bprev, DART_TYPE_BYTE);
  ASSERT(byte == 250 && bprev == 250);

  /* Invalid (type, op) pairs leave memory untouched. */
  float fl = 1.5f, fl2 = 2.0f, flres = 0;
  cpu_atomic_accumulate(&fl, &fl2, 1, DART_TYPE_FLOAT, DART_OP_BAND);
  cpu_atomic_accumulate(&fl, &fl2, 1, DART_TYPE_FLOAT, DART_OP_LXOR);
  cpu_atomic_compare_and_swap(&fl, &fl2, &fl, &flres, DART_TYPE_FLOAT);
  ASSERT(fl == 1.5f);
  int iv = 10, iop = 3;
  cpu_atomic_accumulate(&iv, &iop, 1, DART_TYPE_INT, DART_OP_MINMAX);
  cpu_atomic_accumulate(&iv, &iop, 1, DART_TYPE_INT, DART_OP_UNDEFINED);
  cpu_atomic_accumulate(&iv, &iop, 1, DART_TYPE_INT, DART_OP_LAST);
  cpu_atomic_accumulate(&iv, &iop, 1, DART_TYPE_INT, (dart_operation_t)4711);
  ASSERT(iv == 10);
  long double ld = 1.0L, ldv = 2.0L, ldres = 0;
  cpu_atomic_accumulate(&ld, &ldv, 1, DART_TYPE_LONG_DOUBLE, DART_OP_SUM);
  cpu_atomic_fetch_and_op(&ld, &ldv, &ldres, DART_TYPE_LONG_DOUBLE,
                          DART_OP_REPLACE);
  ASSERT(ld == 1.0L);
  uint64_t raw = 5, rawv = 6, rawres = 0;
  cpu_atomic_accumulate(&raw, &rawv, 1, (dart_datatype_t)4096, DART_OP_SUM);
  cpu_atomic_compare_and_swap(&raw, &rawv, &raw, &rawres,
                              (dart_datatype_t)4096);
  ASSERT(raw == 5);
  cpu_atomic_accumulate(&raw, &rawv, 0, DART_TYPE_ULONGLONG, DART_OP_SUM);
  ASSERT(raw == 5);
  return 0;
}

static void single_process(void) { ASSERT(single() == 0); }
static void concurrent_processes(void) { ASSERT(concurrent() == 0); }

static const struct test_case cases[] = {
  { "single_process", single_process },
  { "concurrent_processes", concurrent_processes },
};

int main(int argc, char **argv)
{
  return test_run(argc, argv, TEST_CASES(cases));
}
