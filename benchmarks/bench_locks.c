/* bench-locks: the experiments of seed 002 for the three lock modes behind
 * the DART lock API (hybrid, an MCS lock on MPI atomics, a lock built on
 * MPI_Win_lock), in one run, next to an MPI_Compare_and_swap round trip.
 * White-box: links the internal archive to switch DART_LOCK_MODE between
 * locks and to read the hybrid lock's home and migration counters.
 *
 *   (a) uncontended acquire+release: by a unit on the home's node, and by
 *       the home itself
 *   (b) (a) while the home unit computes in a busy loop of C us between
 *       MPI_Iprobe calls (one-sided modes must not slow down)
 *   (c) every unit locking its neighbour's lock concurrently
 *   (d) k units contending for one lock
 *   (e) a token passed around a ring, each hop under the successor's lock
 *       (lock, put 64 B + tag, flush, unlock), and the uncontended
 *       acquire+release from another node against the CAS round trip
 *   (f) hybrid: migration overhead, unit 0 (home) locking 1000 times
 *       while unit 1 on another node locks x times in between
 *   (g) leader pattern: each node's leader locks every local unit 1000
 *       times, then every remote leader, then the local units again
 *   (h) creation: us per dart_team_lock_init of 64 locks on a fresh
 *       clone of the team (its first locks), of 64 more after those were
 *       destroyed (reused slots), and per dart_team_lock_destroy
 *
 * Times are medians over --reps rounds of --iters operations, in ns, on
 * CLOCK_MONOTONIC. Sections needing two nodes or two units are skipped
 * otherwise (run with DART_UNITS_PER_NODE=1 or MPIR_CVAR_NUM_CLIQUES=2).
 *
 * --csv FILE also writes every number as a row section,mode,param,metric,
 * value (ns, or us for (h)) for scripts/bench.sh.
 *
 * Usage: bench-locks [--reps R] [--iters K] [--csv FILE] */
#include "mpi/lock/lock.h"
#include "mpi/core/runtime.h"

#include <dash/dart/if/dart.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                        \
  do {                                                                     \
    dart_ret_t check_ret_ = (call);                                        \
    if (check_ret_ != DART_OK) {                                           \
      fprintf(stderr, "bench-locks: %s failed (%d) at line %d\n", #call,  \
              (int)check_ret_, __LINE__);                                  \
      dart_abort(1);                                                       \
    }                                                                      \
  } while (0)

struct mode_def {
  const char      *name;
  enum lock_mode   mode;
};
static const struct mode_def modes[] = {
  { "hybrid", LOCK_MODE_HYBRID },
  { "mpi-mcs", LOCK_MODE_MPI_MCS },
  { "mpi-win-lock", LOCK_MODE_MPI_WIN_LOCK },
};
enum { NMODES = sizeof modes / sizeof *modes };

static int me, n, reps = 11, iters = 1000;
static int *node_of, *node_rank_of; /* per global unit */
static dart_gptr_t mem;             /* per unit: 16 longs of flags/data */
static long long *my_mem;
static double cas_same_node = -1, cas_other_node = -1;
static FILE *csv; /* unit 0 only */

enum { FLAG = 0, TAG = 1, DATA = 8 };

static double now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int k)
{
  qsort(v, (size_t)k, sizeof *v, cmp_double);
  return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

static dart_gptr_t at(int unit, int word)
{
  dart_gptr_t g = mem;
  CHECK(dart_gptr_setunit(&g, DART_TEAM_UNIT_ID(unit)));
  g.addr_or_offs.offset = (uint64_t)word * sizeof(long long);
  return g;
}

static void barrier(void) { CHECK(dart_barrier(DART_TEAM_ALL)); }

/* One lock homed at each unit (locks placed elsewhere are dropped). */
static void locks_by_home(const struct mode_def *m, dart_lock_t *by_home)
{
  runtime.env.lock_mode = m->mode;
  int missing = n;
  for (int u = 0; u < n; ++u) {
    by_home[u] = DART_LOCK_NULL;
  }
  for (int tries = 0; missing > 0 && tries < 4 * n; ++tries) {
    dart_lock_t l;
    CHECK(dart_team_lock_init(DART_TEAM_ALL, &l));
    if (by_home[l->home] == DART_LOCK_NULL) {
      by_home[l->home] = l;
      --missing;
    } else {
      CHECK(dart_team_lock_destroy(&l));
    }
  }
  if (missing > 0) {
    fprintf(stderr, "bench-locks: no lock homed at some unit\n");
    dart_abort(1);
  }
}

/* Time per acquire+release over `count` operations. */
static double lock_loop(dart_lock_t l, int count)
{
  double t0 = now_ns();
  for (int i = 0; i < count; ++i) {
    CHECK(dart_lock_acquire(l));
    CHECK(dart_lock_release(l));
  }
  return (now_ns() - t0) / count;
}

/* Median over reps of `who`'s lock_loop on l, broadcast to all. */
static double timed_by(int who, dart_lock_t l)
{
  double *v = malloc((size_t)reps * sizeof *v), result = 0;
  if (who == me) {
    lock_loop(l, iters / 10 + 1); /* warm-up (and migrations) */
  }
  barrier();
  for (int r = 0; r < reps; ++r) {
    if (who == me) {
      v[r] = lock_loop(l, iters);
    }
    barrier();
  }
  if (who == me) {
    result = median(v, reps);
  }
  free(v);
  MPI_Bcast(&result, 1, MPI_DOUBLE, who, MPI_COMM_WORLD);
  return result;
}

static void cas_baseline(void)
{
  MPI_Win win;
  long long *base;
  MPI_Win_allocate(sizeof(long long), sizeof(long long), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &base, &win);
  *base = 0;
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  barrier();
  double *v = malloc((size_t)reps * sizeof *v), result = 0;
  if (me == 1) {
    long long one = 1, zero = 0, old;
    for (int r = 0; r < reps; ++r) {
      double t0 = now_ns();
      for (int i = 0; i < iters; ++i) {
        MPI_Compare_and_swap(i % 2 ? &zero : &one, i % 2 ? &one : &zero,
                             &old, MPI_LONG_LONG, 0, 0, win);
        MPI_Win_flush(0, win);
      }
      v[r] = (now_ns() - t0) / iters;
    }
    result = median(v, reps);
  }
  barrier();
  free(v);
  MPI_Bcast(&result, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  if (node_of[0] == node_of[1]) {
    cas_same_node = result;
  } else {
    cas_other_node = result;
  }
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
}

/* (b): unit 0 computes in chunks of `chunk_us` until unit 1 is done. */
static double with_busy_home(dart_lock_t l, int chunk_us)
{
  my_mem[FLAG] = 0;
  barrier();
  double result = 0;
  if (me == 0) {
    volatile long long *flag = &my_mem[FLAG];
    while (*flag == 0) {
      double end = now_ns() + 1e3 * chunk_us;
      while (now_ns() < end) {
      }
      int f;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &f,
                 MPI_STATUS_IGNORE);
    }
  } else if (me == 1) {
    /* Fewer operations: a mode that needs the home's progress takes up
     * to a chunk per operation. */
    int b_reps = reps < 5 ? reps : 5, b_iters = iters / 10 + 1;
    double *v = malloc((size_t)b_reps * sizeof *v);
    lock_loop(l, 1);
    for (int r = 0; r < b_reps; ++r) {
      v[r] = lock_loop(l, b_iters);
    }
    result = median(v, b_reps);
    free(v);
    long long one = 1;
    CHECK(dart_put_blocking(at(0, FLAG), &one, 1, DART_TYPE_LONGLONG,
                            DART_TYPE_LONGLONG));
    CHECK(dart_flush(at(0, FLAG)));
  }
  barrier();
  MPI_Bcast(&result, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  return result;
}

/* (c) and (d): units in [0, k) lock `by_home[target(me)]` concurrently;
 * the slowest unit's time per operation, median over reps. */
static double concurrent(dart_lock_t *by_home, int k, bool neighbour)
{
  double *v = malloc((size_t)reps * sizeof *v);
  dart_lock_t l = by_home[neighbour ? (me + 1) % n : 0];
  for (int r = 0; r < reps; ++r) {
    barrier();
    double t = me < k ? lock_loop(l, iters) : 0, slowest;
    barrier(); /* serves migrations a late contender may still need */
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    v[r] = slowest;
  }
  double result = median(v, reps);
  free(v);
  return result;
}

static void wait_tag(long long want)
{
  volatile long long *tag = &my_mem[TAG];
  while (*tag != want) {
    int f;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &f,
               MPI_STATUS_IGNORE);
  }
}

/* (e): ns per hop of a token passed around all units. */
static double ring(dart_lock_t *by_home)
{
  int succ = (me + 1) % n;
  long long payload[8] = { 0 };
  my_mem[TAG] = 0;
  /* Hybrid: let each lock settle in its mode while every home is in a
   * (polling) barrier; waiting for the token calls no DART lock. */
  CHECK(dart_lock_acquire(by_home[succ]));
  CHECK(dart_lock_release(by_home[succ]));
  barrier();
  double *v = malloc((size_t)reps * sizeof *v);
  long long round = 0;
  for (int r = 0; r < reps; ++r) {
    barrier();
    double t0 = now_ns();
    int rounds = iters / n / 4 + 1;
    for (int i = 0; i < rounds; ++i) {
      ++round;
      if (me != 0) {
        wait_tag(round);
      }
      CHECK(dart_lock_acquire(by_home[succ]));
      payload[0] = round;
      CHECK(dart_put_blocking(at(succ, DATA), payload, 8, DART_TYPE_LONGLONG,
                              DART_TYPE_LONGLONG));
      CHECK(dart_put_blocking(at(succ, TAG), &round, 1, DART_TYPE_LONGLONG,
                              DART_TYPE_LONGLONG));
      CHECK(dart_flush(at(succ, TAG)));
      CHECK(dart_lock_release(by_home[succ]));
      if (me == 0) {
        wait_tag(round);
      }
    }
    v[r] = (now_ns() - t0) / ((double)rounds * n);
  }
  double result = median(v, reps);
  free(v);
  MPI_Bcast(&result, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return result;
}

/* (f): unit 0 (home) locks `iters` times, unit 1 (other node) x times,
 * paced to spread over unit 0's loop. Fills intra/inter ns per op and
 * the migrations counted on the home node. */
static void migration_run(dart_lock_t l, int x, double pace_ns,
                          double *intra, double *inter, unsigned *migr)
{
  unsigned before = 0;
  if (me == 0) {
    before = atomic_load(&l->shm->to_net) + atomic_load(&l->shm->to_cpu);
  }
  barrier();
  double t = 0;
  if (me == 0) {
    t = lock_loop(l, iters);
  } else if (me == 1 && x > 0) {
    double sum = 0;
    for (int i = 0; i < x; ++i) {
      double end = now_ns() + pace_ns;
      while (now_ns() < end) {
      }
      sum += lock_loop(l, 1);
    }
    t = sum / x;
  }
  barrier();
  double both[2] = { t, t };
  MPI_Bcast(&both[0], 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Bcast(&both[1], 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  *intra = both[0];
  *inter = both[1];
  unsigned count = 0;
  if (me == 0) {
    count = atomic_load(&l->shm->to_net) + atomic_load(&l->shm->to_cpu) -
            before;
  }
  MPI_Bcast(&count, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
  *migr = count;
}

/* (g): per-operation times of the three phases, slowest leader. */
static void leaders(dart_lock_t *by_home, double phase[3])
{
  int count = iters;
  long long value = me;
  bool leader = node_rank_of[me] == 0;
  for (int p = 0; p < 3; ++p) {
    barrier();
    double t0 = now_ns();
    int ops = 0;
    for (int u = 0; leader && u < n; ++u) {
      bool local = node_of[u] == node_of[me];
      bool take = p == 1 ? (u != me && node_rank_of[u] == 0 && !local)
                         : (u != me && local);
      for (int i = 0; take && i < count; ++i, ++ops) {
        CHECK(dart_lock_acquire(by_home[u]));
        CHECK(dart_put_blocking(at(u, DATA), &value, 1, DART_TYPE_LONGLONG,
                                DART_TYPE_LONGLONG));
        CHECK(dart_flush(at(u, DATA)));
        CHECK(dart_lock_release(by_home[u]));
      }
    }
    double t = ops > 0 ? (now_ns() - t0) / ops : 0;
    barrier();
    MPI_Allreduce(&t, &phase[p], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
}

static void csv_row(const char *section, const char *mode, const char *param,
                    const char *metric, double value)
{
  if (csv != NULL) {
    fprintf(csv, "%s,%s,%s,%s,%.3f\n", section, mode, param, metric, value);
  }
}

/* The table rows (and CSV rows) of a section with three numbers a mode. */
static void three_columns(const char *section, const char *names[3],
                          const char *metric, double v[NMODES][3])
{
  for (int m = 0; m < NMODES; ++m) {
    for (int i = 0; i < 3; ++i) {
      csv_row(section, modes[m].name, names[i], metric, v[m][i]);
    }
    printf("| %s | %.1f | %.1f | %.1f |\n", modes[m].name, v[m][0], v[m][1],
           v[m][2]);
  }
}

/* The hardware floor beside (a): ns per uncontended `lock xadd`, per
 * `lock cmpxchg`, and per xadd + release store (what an uncontended
 * ticket lock's acquire+release must do), medians over reps. */
static _Atomic uint64_t floor_word, floor_serving;

static void hw_floor(double out[3])
{
  double *v[3];
  for (int p = 0; p < 3; ++p) {
    v[p] = malloc((size_t)reps * sizeof *v[p]);
  }
  for (int r = 0; r < reps; ++r) {
    double t0 = now_ns();
    for (int i = 0; i < iters; ++i) {
      atomic_fetch_add_explicit(&floor_word, 1, memory_order_relaxed);
    }
    double t1 = now_ns();
    for (int i = 0; i < iters; ++i) {
      uint64_t expect = atomic_load_explicit(&floor_word,
                                             memory_order_relaxed);
      atomic_compare_exchange_strong_explicit(&floor_word, &expect,
                                              expect + 1,
                                              memory_order_acquire,
                                              memory_order_relaxed);
    }
    double t2 = now_ns();
    for (int i = 0; i < iters; ++i) {
      uint64_t t = atomic_fetch_add_explicit(&floor_word, 1,
                                             memory_order_relaxed);
      atomic_store_explicit(&floor_serving, t + 1, memory_order_release);
    }
    double t3 = now_ns();
    v[0][r] = (t1 - t0) / iters;
    v[1][r] = (t2 - t1) / iters;
    v[2][r] = (t3 - t2) / iters;
  }
  for (int p = 0; p < 3; ++p) {
    out[p] = median(v[p], reps);
    free(v[p]);
  }
}

enum { CREATE_LOCKS = 64 };

/* Slowest unit's us per call for each of the three phases of (h). */
static void creation(const struct mode_def *m, double out[3])
{
  runtime.env.lock_mode = m->mode;
  int r_max = reps < 3 ? reps : 3; /* ~10 s a round before the arena */
  double *v[3];
  for (int p = 0; p < 3; ++p) {
    v[p] = malloc((size_t)r_max * sizeof *v[p]);
  }
  dart_lock_t locks[CREATE_LOCKS];
  for (int r = 0; r < r_max; ++r) {
    dart_team_t team;
    CHECK(dart_team_clone(DART_TEAM_ALL, &team));
    for (int p = 0; p < 3; ++p) {
      CHECK(dart_barrier(team));
      double t0 = now_ns();
      for (int k = 0; k < CREATE_LOCKS; ++k) {
        if (p < 2) {
          CHECK(dart_team_lock_init(team, &locks[k]));
        } else {
          CHECK(dart_team_lock_destroy(&locks[k]));
        }
      }
      double t = (now_ns() - t0) / CREATE_LOCKS / 1000;
      MPI_Allreduce(&t, &v[p][r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (p == 0) { /* phase 1 reuses the slots */
        for (int k = 0; k < CREATE_LOCKS; ++k) {
          CHECK(dart_team_lock_destroy(&locks[k]));
        }
      }
    }
    CHECK(dart_team_destroy(&team));
  }
  for (int p = 0; p < 3; ++p) {
    out[p] = median(v[p], r_max);
    free(v[p]);
  }
}

static void parse(int argc, char **argv)
{
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc) {
      iters = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
      ++i;
      if (me == 0 && (csv = fopen(argv[i], "w")) == NULL) {
        fprintf(stderr, "bench-locks: cannot write %s\n", argv[i]);
      }
    } else {
      if (me == 0) {
        fprintf(stderr, "usage: bench-locks [--reps R] [--iters K] [--csv FILE]\n");
      }
      dart_exit();
      exit(2);
    }
  }
  if (reps < 1 || iters < 1) {
    reps = reps < 1 ? 1 : reps;
    iters = iters < 1 ? 1 : iters;
  }
}

int main(int argc, char **argv)
{
  CHECK(dart_init(&argc, &argv));
  dart_global_unit_t id;
  size_t size;
  CHECK(dart_myid(&id));
  CHECK(dart_size(&size));
  me = id.id;
  n = (int)size;
  parse(argc, argv);
  struct team *all = team_lookup(DART_TEAM_ALL);
  node_of = malloc((size_t)n * sizeof *node_of);
  node_rank_of = malloc((size_t)n * sizeof *node_rank_of);
  MPI_Allgather(&all->my_node, 1, MPI_INT, node_of, 1, MPI_INT,
                MPI_COMM_WORLD);
  MPI_Allgather(&all->node_rank, 1, MPI_INT, node_rank_of, 1, MPI_INT,
                MPI_COMM_WORLD);
  CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, 16, DART_TYPE_LONGLONG,
                                   &mem));
  CHECK(dart_gptr_getaddr(at(me, 0), (void **)&my_mem));
  memset(my_mem, 0, 16 * sizeof(long long));
  bool two = n >= 2, split = two && node_of[0] != node_of[1];
  if (two) {
    cas_baseline();
  }
  if (me == 0) {
    printf("bench-locks: %d units on %d node(s), median of %d x %d "
           "operations, ns per acquire+release\n", n, all->num_nodes, reps,
           iters);
    if (two) {
      printf("MPI_Compare_and_swap + flush round trip, unit 1 -> 0 (%s): "
             "%.1f ns\n", split ? "other node" : "same node",
             split ? cas_other_node : cas_same_node);
    }
  }

  double a_peer[NMODES], a_self[NMODES], b[NMODES][4], c[NMODES];
  double d[NMODES][8], e_ring[NMODES], e_remote[NMODES], g[NMODES][3];
  double h[NMODES][3], hw[3];
  hw_floor(hw);
  static const int chunks[4] = { 0, 10, 100, 1000 };
  int kmax = n < 8 ? n : 8;
  for (int m = 0; m < NMODES; ++m) {
    dart_lock_t *by_home = malloc((size_t)n * sizeof *by_home);
    locks_by_home(&modes[m], by_home);
    a_self[m] = timed_by(0, by_home[0]);
    a_peer[m] = two && !split ? timed_by(1, by_home[0]) : -1;
    for (int c_i = 0; c_i < 4; ++c_i) {
      /* Same node only: across nodes the hybrid lock's first remote
       * acquire needs the home to call DART (or the progress thread). */
      b[m][c_i] = two && !split ? with_busy_home(by_home[0], chunks[c_i])
                                : -1;
    }
    c[m] = concurrent(by_home, n, true);
    for (int k = 1; k <= kmax; ++k) {
      d[m][k - 1] = concurrent(by_home, k, false);
    }
    e_ring[m] = two ? ring(by_home) : -1;
    e_remote[m] = split ? timed_by(1, by_home[0]) : -1;
    leaders(by_home, g[m]);
    creation(&modes[m], h[m]);
    for (int u = 0; u < n; ++u) {
      CHECK(dart_team_lock_destroy(&by_home[u]));
    }
    free(by_home);
  }

  if (me == 0) {
    if (csv != NULL) {
      fprintf(csv, "section,mode,param,metric,value\n");
    }
    csv_row("floor", "cpu", "", "lock_xadd_ns", hw[0]);
    csv_row("floor", "cpu", "", "lock_cmpxchg_ns", hw[1]);
    csv_row("floor", "cpu", "", "xadd_store_ns", hw[2]);
    csv_row("cas", "mpi", split ? "other_node" : "same_node", "ns",
            split ? cas_other_node : cas_same_node);
    printf("\nhardware floor (unit 0, uncontended): lock xadd %.1f ns, "
           "lock cmpxchg %.1f ns, xadd + release store %.1f ns\n", hw[0],
           hw[1], hw[2]);
    printf("\n(a) uncontended, same node\n\n| mode | home unit itself | "
           "other unit of the node | vs hybrid |\n|---|---:|---:|---:|\n");
    for (int m = 0; m < NMODES; ++m) {
      csv_row("a", modes[m].name, "home", "ns", a_self[m]);
      csv_row("a", modes[m].name, "peer", "ns", a_peer[m]);
      printf("| %s | %.1f | %.1f | %.1fx |\n", modes[m].name, a_self[m],
             a_peer[m], (a_peer[m] > 0 ? a_peer[m] / a_peer[0]
                                       : a_self[m] / a_self[0]));
    }
    printf("\n(b) unit 1 locks while home unit 0 computes C us between "
           "MPI calls\n\n| mode | C=0 | C=10 | C=100 | C=1000 |\n"
           "|---|---:|---:|---:|---:|\n");
    for (int m = 0; m < NMODES; ++m) {
      for (int c_i = 0; c_i < 4; ++c_i) {
        char param[16];
        snprintf(param, sizeof param, "%d", chunks[c_i]);
        csv_row("b", modes[m].name, param, "ns", b[m][c_i]);
      }
      printf("| %s | %.1f | %.1f | %.1f | %.1f |\n", modes[m].name, b[m][0],
             b[m][1], b[m][2], b[m][3]);
    }
    printf("\n(c) every unit locks its neighbour's lock (slowest unit)\n\n"
           "| mode | ns |\n|---|---:|\n");
    for (int m = 0; m < NMODES; ++m) {
      csv_row("c", modes[m].name, "", "ns", c[m]);
      printf("| %s | %.1f |\n", modes[m].name, c[m]);
    }
    printf("\n(d) k units contend for one lock (slowest unit, ns per own "
           "acquire+release)\n\n| mode |");
    for (int k = 1; k <= kmax; ++k) {
      printf(" k=%d |", k);
    }
    printf("\n|---|");
    for (int k = 1; k <= kmax; ++k) {
      printf("---:|");
    }
    printf("\n");
    for (int m = 0; m < NMODES; ++m) {
      printf("| %s |", modes[m].name);
      for (int k = 1; k <= kmax; ++k) {
        char param[16];
        snprintf(param, sizeof param, "%d", k);
        csv_row("d", modes[m].name, param, "ns", d[m][k - 1]);
        printf(" %.1f |", d[m][k - 1]);
      }
      printf("\n");
    }
    printf("\n(e) ring: ns per hop (lock successor, put 64 B + tag, flush, "
           "unlock); unit 1 locking unit 0's lock from %s\n\n"
           "| mode | ring hop | remote acquire+release | vs 2 CAS round "
           "trips |\n|---|---:|---:|---:|\n",
           split ? "another node" : "(same node: n/a)");
    for (int m = 0; m < NMODES; ++m) {
      csv_row("e", modes[m].name, "ring_hop", "ns", e_ring[m]);
      csv_row("e", modes[m].name, "remote", "ns", e_remote[m]);
      printf("| %s | %.1f | %.1f | %.2f |\n", modes[m].name, e_ring[m],
             e_remote[m], split ? e_remote[m] / (2 * cas_other_node) : -1);
    }
    printf("\n(g) leader pattern: ns per lock-put-unlock, slowest leader\n\n"
           "| mode | local units | remote leaders | local again |\n"
           "|---|---:|---:|---:|\n");
    static const char *g_names[3] = { "local", "remote", "local_again" };
    three_columns("g", g_names, "ns", g);
    printf("\n(h) creation: us per lock, %d locks, slowest unit\n\n"
           "| mode | init, new team | init, reused | destroy |\n"
           "|---|---:|---:|---:|\n", CREATE_LOCKS);
    static const char *h_names[3] = { "init_new", "init_reused", "destroy" };
    three_columns("h", h_names, "us", h);
    fflush(stdout);
  }

  if (split) {
    /* (f) hybrid only: the others never migrate. */
    dart_lock_t *by_home = malloc((size_t)n * sizeof *by_home);
    locks_by_home(&modes[0], by_home);
    static const int xs[] = { 0, 1, 10, 50, 100, 250, 500 };
    double base_intra = 0;
    if (me == 0) {
      printf("\n(f) hybrid migrations: unit 0 (home) locks %d times, unit 1 "
             "(other node) x times in between\n\n| x | migrations | "
             "fraction | unit 0 ns/op | unit 1 ns/op |\n"
             "|---:|---:|---:|---:|---:|\n", iters);
    }
    for (size_t i = 0; i < sizeof xs / sizeof *xs; ++i) {
      int x = xs[i] < iters ? xs[i] : iters;
      if (i > 0 && x == xs[i - 1]) {
        break;
      }
      double intra, inter;
      unsigned migr;
      double pace = x > 0 ? base_intra * iters / x : 0;
      migration_run(by_home[0], x, pace, &intra, &inter, &migr);
      if (x == 0) {
        base_intra = intra;
      }
      if (me == 0) {
        char param[16];
        snprintf(param, sizeof param, "%d", x);
        csv_row("f", "hybrid", param, "migrations", migr);
        csv_row("f", "hybrid", param, "home_ns", intra);
        csv_row("f", "hybrid", param, "remote_ns", x > 0 ? inter : 0.0);
        printf("| %d | %u | %.3f | %.1f | %.1f |\n", x, migr,
               (double)migr / (iters + x), intra, x > 0 ? inter : 0.0);
      }
    }
    for (int u = 0; u < n; ++u) {
      CHECK(dart_team_lock_destroy(&by_home[u]));
    }
    free(by_home);
  }
  barrier();
  CHECK(dart_team_memfree(mem));
  if (csv != NULL) {
    fclose(csv);
  }
  free(node_of);
  free(node_rank_of);
  CHECK(dart_exit());
  return 0;
}
