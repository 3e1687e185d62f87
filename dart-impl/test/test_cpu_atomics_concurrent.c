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
#include "test_cpu_atomics_plan.h"

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

static void concurrent_processes(void) { ASSERT(concurrent() == 0); }

static const struct test_case cases[] = {
  { "concurrent_processes", concurrent_processes },
};

int main(int argc, char **argv)
{
  return test_run(argc, argv, TEST_CASES(cases));
}
