/* bench-pool: the local pool's life cycle (docs/design.md, "The local
 * pool") measured next to what plain MPI offers for the same job, in one
 * run. Two parts, the second first:
 *
 * 1. Steady state. In a pool that already has room (it grew once to hold
 *    the largest block before the clock starts), dart_memalloc +
 *    dart_memfree of one block, against MPI_Win_allocate + MPI_Win_free of
 *    the same size on MPI_COMM_SELF (the nearest MPI has to a local
 *    allocation others can reach) and on MPI_COMM_WORLD (collective). Sizes
 *    1 KiB, 4 KiB, ... up to --max-bytes (1 GiB), capped at what this
 *    machine allows: the pool needs a chunk of the block's size at an
 *    offset of the same size (buddy alignment, local_pool.c), so the
 *    reservation (DART_LOCAL_POOL_MAX_MIB) must hold twice the block, and
 *    every unit of the node may hold the block twice at once (pool and
 *    window), which must fit in half of MemAvailable. Every unit runs
 *    every kernel at once between barriers; a round's time is the slowest
 *    unit's time per operation, the result the median of `reps` rounds,
 *    the kernels interleaved round by round. Neither the pool's blocks nor
 *    the windows are touched: this is the cost of getting memory others
 *    can reach, not of using it. The pool must not grow in this part;
 *    if it does, the run fails.
 *
 * 2. Growth. A fresh pool (DART_LOCAL_POOL_MIB=1 unless set): the first
 *    block fills the initial chunk, then every block is as large as what
 *    the pool has committed, so each dart_memalloc adds exactly one chunk
 *    (doubling) and re-exposes the pool to RMA. Its time is printed next
 *    to what local_pool_stats says of that change: the time the exposure
 *    change took (exposure.last_change_ns) and the grace model
 *    t_maxdata + t_rrsched * runnable of a guarded change (one with units
 *    that reach the pool by RMA: another node, or DART_SHM_PATH=off).
 *    Growth stops when the pool would commit more than the largest block
 *    of part 1. The series runs --growth-reps times, each in a fresh
 *    dart_init (the program starts MPI itself, so DART borrows it), and
 *    every column is the median over them of unit 0's value.
 *    Then the way back: the blocks are freed newest first, each
 *    dart_memfree but the last empties the top chunk, which goes back to
 *    the system in that same call (step 6 of the design), and its time is
 *    printed with the shrink's exposure.last_change_ns and grace model in
 *    a table of its own, medians as above. Every such free must give
 *    back exactly its chunk (exposure.shrinks one more, committed that
 *    much less) and the pool must end at its initial chunk; if not, the
 *    run fails.
 *
 * Usage: bench-pool [--reps R] [--iters K] [--max-bytes B]
 *                   [--growth-reps G] [--csv FILE] [--growth-csv FILE]
 *                   [--shrink-csv FILE]
 * Part 2 sets DART_LOCAL_POOL_MIB=1, DART_POOL_EXPOSURE=prefix (chunks go
 * back only with prefix exposure) and DART_POOL_SHRINK_MS=0 (at once)
 * where the environment does not set them; part 1 runs with the default
 * DART_POOL_SHRINK_MS then. A DART_POOL_SHRINK_MS set by the caller holds
 * for both parts: other than 0, part 2's way back is not measured; 0 lets
 * part 1's pool give its chunk back between rounds, and part 1 fails. */
#include "bench_args.h"
#include "bench_stats.h"
#include "mpi/core/runtime.h"
#include "mpi/memory/local_pool.h"
#include "mpi/model/team.h"

#include <dash/dart/if/dart.h>

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

/* Sizes 1 KiB * 4^s for s < MAX_SIZES: 1 KiB to 1 GiB. */
enum { MAX_SIZES = 11 };

/* Most growth steps: doubling from 1 MiB passes any machine's memory. */
enum { MAX_STEPS = 40 };

enum { MAX_REPS = 1001 };

/* A kernel's warm-up decides how many operations a round holds: about
 * this long, at least one, at most --iters. MPI_Win_allocate of a large
 * window takes milliseconds, dart_memalloc some hundred nanoseconds. */
#define ROUND_BUDGET_NS 20e6

enum kernel { K_DART, K_SELF, K_WORLD, NUM_KERNELS };

static const char *const kernel_names[NUM_KERNELS] = {
  "dart_memalloc + dart_memfree",
  "MPI_Win_allocate + MPI_Win_free (MPI_COMM_SELF)",
  "MPI_Win_allocate + MPI_Win_free (MPI_COMM_WORLD)",
};

static int me;

static void die(const char *what)
{
  fprintf(stderr, "bench-pool: unit %d: %s failed\n", me, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(call) do { if ((call) != DART_OK) die(#call); } while (0)

static double now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* ---- part 1: allocate + free ------------------------------------------ */

static void run_kernel(enum kernel k, size_t bytes, int n)
{
  for (int i = 0; i < n; ++i) {
    if (k == K_DART) {
      dart_gptr_t g;
      CHECK(dart_memalloc(bytes, DART_TYPE_BYTE, &g));
      CHECK(dart_memfree(g));
    } else {
      void *base = NULL;
      MPI_Win win;
      if (MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL,
                           k == K_SELF ? MPI_COMM_SELF : MPI_COMM_WORLD,
                           &base, &win) != MPI_SUCCESS) {
        die("MPI_Win_allocate");
      }
      MPI_Win_free(&win);
    }
  }
}

/* One round of kernel k on every unit at once: the slowest unit's ns per
 * operation. */
static double timed_round(enum kernel k, size_t bytes, int n)
{
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = now_ns();
  run_kernel(k, bytes, n);
  double mine = (now_ns() - t0) / n, slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

struct alloc_row {
  size_t bytes;
  int    n[NUM_KERNELS];
  double us[NUM_KERNELS];
};

static void measure_size(size_t bytes, int reps, int iters,
                         struct alloc_row *row, double *samples)
{
  row->bytes = bytes;
  for (int k = 0; k < NUM_KERNELS; ++k) {
    /* One untimed operation (first touch of MPI's and the pool's
     * bookkeeping for this size), then one timed to size the rounds. */
    run_kernel((enum kernel)k, bytes, 1);
    double warm = timed_round((enum kernel)k, bytes, 1);
    double n = ROUND_BUDGET_NS / (warm > 1 ? warm : 1);
    row->n[k] = n < 1 ? 1 : n > iters ? iters : (int)n;
  }
  for (int r = 0; r < reps; ++r) {
    for (int k = 0; k < NUM_KERNELS; ++k) {
      samples[k * reps + r] = timed_round((enum kernel)k, bytes, row->n[k]);
    }
  }
  for (int k = 0; k < NUM_KERNELS; ++k) {
    row->us[k] = bench_median(samples + k * reps, reps) * 1e-3;
  }
}

/* ---- part 2: growth and the way back ---------------------------------- */

/* One exposure change: the dart_memalloc that added a chunk or the
 * dart_memfree that gave one back, with what local_pool_stats says of it
 * afterwards. */
struct change_sample {
  size_t block, committed;
  int    chunks, guarded, runnable;
  double op_ns, change_ns, grace_ns, maxdata_ns, rrsched_ns;
};

/* The sample of a change of `block` bytes that took op_ns, from the stats
 * after it; `guarded` is exposure.guarded before it. The grace columns are
 * 0 for a change without flags and grace (no unit reaches the pool by
 * RMA), whose last_grace is an older change's. */
static struct change_sample change_sample(size_t block, double op_ns,
                                          const struct local_pool_stats *s,
                                          unsigned long guarded)
{
  int was_guarded = s->exposure.guarded == guarded + 1;
  const struct pool_grace *g = &s->exposure.last_grace;
  return (struct change_sample){
    .block = block, .committed = s->committed, .chunks = s->chunks,
    .guarded = was_guarded, .runnable = was_guarded ? g->runnable : 0,
    .op_ns = op_ns, .change_ns = (double)s->exposure.last_change_ns,
    .grace_ns = was_guarded ? (double)g->total_ns : 0,
    .maxdata_ns = was_guarded ? (double)g->maxdata_ns : 0,
    .rrsched_ns = was_guarded ? (double)g->rrsched_ns : 0 };
}

/* One growth series in the current (fresh) pool, then the way back:
 * unit 0's growth samples in grow[0..return), and, when `shrink` is not
 * NULL (chunks go back at once, see main), those of the frees that gave
 * the chunks back in shrink[0..return), largest chunk first. Returns -1
 * if a step did not add exactly one chunk and one exposure change, or a
 * free that emptied the top chunk did not give exactly that chunk back,
 * or the pool did not end where it started. */
static int growth_series(size_t top, struct change_sample *grow,
                         struct change_sample *shrink)
{
  struct local_pool_stats s;
  local_pool_stats(&s);
  const size_t initial = s.committed;
  dart_gptr_t blocks[MAX_STEPS + 1];
  size_t sizes[MAX_STEPS + 1];
  int nblocks = 0, steps = 0, bad = 0;
  /* Fills the initial chunk: the pool has no room left after it. */
  sizes[nblocks] = s.committed;
  CHECK(dart_memalloc(s.committed, DART_TYPE_BYTE, &blocks[nblocks++]));
  local_pool_stats(&s);
  while (steps < MAX_STEPS && s.committed * 2 <= top) {
    size_t block = s.committed;
    int chunks = s.chunks;
    unsigned long changes = s.exposure.changes, guarded = s.exposure.guarded;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_ns();
    sizes[nblocks] = block;
    CHECK(dart_memalloc(block, DART_TYPE_BYTE, &blocks[nblocks++]));
    double t = now_ns() - t0;
    local_pool_stats(&s);
    if (s.chunks != chunks + 1 || s.exposure.changes != changes + 1) {
      fprintf(stderr, "bench-pool: unit %d: a %zu-byte dart_memalloc made "
              "%d chunks and %lu exposure changes (1 each expected)\n", me,
              block, s.chunks - chunks, s.exposure.changes - changes);
      bad = 1;
    }
    grow[steps++] = change_sample(block, t, &s, guarded);
  }
  /* Newest first: every block but the first is alone in the chunk that
   * was added for it, at the top of the pool, so each free empties the
   * top chunk, and with DART_POOL_SHRINK_MS=0 that chunk goes back in the
   * same dart_memfree (docs/design.md, "The local pool", step 6). */
  for (int b = nblocks - 1; b >= 0; --b) {
    size_t committed = s.committed;
    unsigned long shrinks = s.exposure.shrinks, guarded = s.exposure.guarded;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_ns();
    CHECK(dart_memfree(blocks[b]));
    double t = now_ns() - t0;
    local_pool_stats(&s);
    if (shrink == NULL || b == 0) {
      continue;
    }
    if (s.exposure.shrinks != shrinks + 1 ||
        s.committed + sizes[b] != committed) {
      fprintf(stderr, "bench-pool: unit %d: the dart_memfree that emptied "
              "the top chunk (%zu bytes) made %lu shrinks and took "
              "committed from %zu to %zu bytes (1 shrink, %zu bytes less "
              "expected)\n", me, sizes[b], s.exposure.shrinks - shrinks,
              committed, s.committed, sizes[b]);
      bad = 1;
    }
    shrink[nblocks - 1 - b] = change_sample(sizes[b], t, &s, guarded);
  }
  if (shrink != NULL && s.committed != initial) {
    fprintf(stderr, "bench-pool: unit %d: the pool commits %zu bytes after "
            "every block was freed, not its initial chunk of %zu\n", me,
            s.committed, initial);
    bad = 1;
  }
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any_bad ? -1 : steps;
}

/* Median over the reps of one field of step s. */
static double step_median(const struct change_sample *all, int stride,
                          int greps, int s, size_t field)
{
  double v[MAX_REPS];
  for (int r = 0; r < greps; ++r) {
    const char *sample = (const char *)&all[r * stride + s];
    v[r] = *(const double *)(const void *)(sample + field);
  }
  return bench_median(v, greps);
}

static FILE *open_csv(const char *path, const char *header)
{
  if (path == NULL) {
    return NULL;
  }
  FILE *f = fopen(path, "w");
  if (f == NULL) {
    fprintf(stderr, "bench-pool: cannot write %s\n", path);
    return NULL;
  }
  fprintf(f, "%s\n", header);
  return f;
}

/* Unit 0's table of one kind of change (growth or shrink), steps rows of
 * greps series each stride samples apart, medians over the series; also
 * in CSV file csv_path (under `header`) when that is not NULL. `block`
 * and `op` name the first and the timed column. */
static void print_changes(const struct change_sample *all, int stride,
                          int steps, long long greps, int nodes,
                          const char *block, const char *op,
                          const char *csv_path, const char *header)
{
  FILE *csv = open_csv(csv_path, header);
  printf("| %s | committed after | %s | change | grace (model) | "
         "t_maxdata | t_rrsched | runnable | change - grace | guarded |\n"
         "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n", block, op);
  for (int st = 0; st < steps; ++st) {
    const struct change_sample *c0 = &all[st];
#define MED(f) step_median(all, stride, (int)greps, st, \
                           offsetof(struct change_sample, f)) * 1e-3
    double op_us = MED(op_ns), change = MED(change_ns);
    double grace = MED(grace_ns), maxdata = MED(maxdata_ns);
    double rrsched = MED(rrsched_ns);
#undef MED
    double run[MAX_REPS];
    int guarded = 0;
    for (int r = 0; r < greps; ++r) {
      run[r] = all[(size_t)r * stride + st].runnable;
      guarded += all[(size_t)r * stride + st].guarded;
    }
    double runnable = bench_median(run, (int)greps);
    char label[32], committed[32];
    printf("| %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | "
           "%d/%lld |\n", bench_size_label(c0->block, label, sizeof label),
           bench_size_label(c0->committed, committed, sizeof committed),
           op_us, change, grace, maxdata, rrsched, runnable, change - grace,
           guarded, greps);
    if (csv != NULL) {
      fprintf(csv, "%d,%zu,%zu,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.1f,%d,%lld\n",
              nodes, c0->block, c0->committed, c0->chunks, op_us, change,
              grace, maxdata, rrsched, runnable, guarded, greps);
    }
  }
  if (csv != NULL) {
    fclose(csv);
  }
}

/* ---- set-up ----------------------------------------------------------- */

/* MemAvailable of /proc/meminfo in bytes, 0 if unknown. */
static size_t mem_available(void)
{
  FILE *f = fopen("/proc/meminfo", "r");
  if (f == NULL) {
    return 0;
  }
  char line[256];
  unsigned long long kib = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
      break;
    }
  }
  fclose(f);
  return (size_t)kib * KIB;
}

static void usage(FILE *to)
{
  fprintf(to,
          "usage: bench-pool [--reps R] [--iters K] [--max-bytes B] "
          "[--growth-reps G]\n"
          "                  [--csv FILE] [--growth-csv FILE] "
          "[--shrink-csv FILE]\n"
          "  --reps R         rounds per size; the median is reported "
          "(default 11)\n"
          "  --iters K        most operations per round (default 1000)\n"
          "  --max-bytes B    largest block, at least 1024 (default "
          "1073741824);\n"
          "                   sizes are 1 KiB * 4^k, capped at what memory "
          "allows\n"
          "  --growth-reps G  fresh pools grown, median reported (default "
          "5)\n"
          "  --csv FILE       allocate + free table as CSV (unit 0)\n"
          "  --growth-csv FILE  growth table as CSV (unit 0)\n"
          "  --shrink-csv FILE  shrink table (the way back) as CSV (unit "
          "0)\n"
          "Run with 2 units; DART_UNITS_PER_NODE=1 puts them on two "
          "simulated nodes.\n");
}

static int first_unit_by_environment(void)
{
  const char *vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK" };
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i) {
    const char *v = getenv(vars[i]);
    if (v != NULL) {
      return strcmp(v, "0") == 0;
    }
  }
  return 1;
}

int main(int argc, char **argv)
{
  long long reps = 11, iters = 1000, max_bytes = (long long)1 << 30;
  long long greps = 5;
  const char *csv_path = NULL, *growth_csv_path = NULL;
  const char *shrink_csv_path = NULL;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    int has_value = i + 1 < argc;
    int ok = 0;
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      if (first_unit_by_environment()) {
        usage(stdout);
      }
      return 0;
    } else if (strcmp(arg, "--reps") == 0 && has_value) {
      ok = bench_parse_count(argv[++i], MAX_REPS, &reps) == 0;
    } else if (strcmp(arg, "--iters") == 0 && has_value) {
      ok = bench_parse_count(argv[++i], 100000000, &iters) == 0;
    } else if (strcmp(arg, "--max-bytes") == 0 && has_value) {
      ok = bench_parse_count(argv[++i], (long long)1 << 40, &max_bytes) == 0 &&
           max_bytes >= (long long)KIB;
    } else if (strcmp(arg, "--growth-reps") == 0 && has_value) {
      ok = bench_parse_count(argv[++i], MAX_REPS, &greps) == 0;
    } else if (strcmp(arg, "--csv") == 0 && has_value) {
      csv_path = argv[++i];
      ok = csv_path[0] != '\0';
    } else if (strcmp(arg, "--growth-csv") == 0 && has_value) {
      growth_csv_path = argv[++i];
      ok = growth_csv_path[0] != '\0';
    } else if (strcmp(arg, "--shrink-csv") == 0 && has_value) {
      shrink_csv_path = argv[++i];
      ok = shrink_csv_path[0] != '\0';
    }
    if (!ok) {
      if (first_unit_by_environment()) {
        fprintf(stderr, "bench-pool: bad argument: %s%s%s\n", arg,
                i < argc && argv[i] != arg ? " " : "",
                i < argc && argv[i] != arg ? argv[i] : "");
        usage(stderr);
      }
      return 2;
    }
  }
  /* Growth starts from a 1 MiB pool unless the caller chose another, and
   * measures the exposure changes of the prefix exposure (which
   * DART_POOL_EXPOSURE=auto may not pick, memory/pool_exposure.h). */
  setenv("DART_LOCAL_POOL_MIB", "1", 0);
  setenv("DART_POOL_EXPOSURE", "prefix", 0);
  /* The way back gives each chunk back in the dart_memfree that empties
   * it, unless the caller chose a delay; part 1 gets the default back,
   * since there an empty chunk must stay (see its check). */
  const int set_shrink_ms = getenv("DART_POOL_SHRINK_MS") == NULL;
  if (set_shrink_ms) {
    setenv("DART_POOL_SHRINK_MS", "0", 1);
  }

  MPI_Init(&argc, &argv);
  int units;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &units);
  if (units < 2) {
    if (me == 0) {
      printf("bench-pool: needs 2 units (the collective kernels and the "
             "pool's exposure need a peer); nothing measured\n");
    }
    MPI_Finalize();
    return 0;
  }

  /* What memory allows, on every unit; the smallest cap wins. Units of
   * one real node share its memory whatever DART_UNITS_PER_NODE says. */
  MPI_Comm shared;
  int node_units = 1;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me,
                      MPI_INFO_NULL, &shared);
  MPI_Comm_size(shared, &node_units);
  MPI_Comm_free(&shared);
  size_t avail = mem_available();
  unsigned long long mem_cap = avail / 2 / (2 * (size_t)node_units);

  /* Part 2 first: its pools must be fresh, and it learns the
   * reservation (which caps part 1 too). */
  CHECK(dart_init(&argc, &argv));
  struct local_pool_stats s;
  local_pool_stats(&s);
  struct team *all = team_lookup(DART_TEAM_ALL);
  int nodes = all->num_nodes;
  unsigned long long caps[2] = { mem_cap, s.reserved / 2 }, cap[2];
  MPI_Allreduce(caps, cap, 2, MPI_UNSIGNED_LONG_LONG, MPI_MIN,
                MPI_COMM_WORLD);
  size_t top = 0;
  int num_sizes = 0;
  for (size_t b = KIB; num_sizes < MAX_SIZES && b <= (size_t)max_bytes &&
                       b <= cap[0] && b <= cap[1]; b *= 4) {
    top = b;
    ++num_sizes;
  }
  if (num_sizes == 0) {
    if (me == 0) {
      fprintf(stderr, "bench-pool: not even a 1 KiB block fits (memory "
              "cap %llu, reservation cap %llu bytes)\n", cap[0], cap[1]);
    }
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int failed = 0;
  char label[32];
  if (me == 0) {
    printf("bench-pool: %d units on %d node(s) as DART sees them%s; "
           "initial pool %zu bytes, reservation %zu bytes per unit; "
           "MemAvailable %zu MiB for %d unit(s) of this node; largest "
           "block %s (asked %lld bytes, memory cap %llu, reservation cap "
           "%llu)\n",
           units, nodes,
           getenv("DART_UNITS_PER_NODE") != NULL
             ? " (DART_UNITS_PER_NODE set)" : "",
           s.committed, s.reserved, avail / MIB, node_units,
           bench_size_label(top, label, sizeof label), max_bytes, cap[0],
           cap[1]);
    fflush(stdout);
  }

  /* Chunks go back at once among several units (a unit alone keeps
   * them) with DART_POOL_SHRINK_MS=0. */
  const int way_back = units > 1 && runtime.env.pool_shrink_ms == 0;
  struct change_sample *gs = calloc((size_t)greps * MAX_STEPS, sizeof *gs);
  struct change_sample *ss = calloc((size_t)greps * MAX_STEPS, sizeof *ss);
  if (gs == NULL || ss == NULL) {
    die("calloc");
  }
  int steps = -1;
  for (int r = 0; r < greps; ++r) {
    if (r > 0) {
      CHECK(dart_init(&argc, &argv));
    }
    int got = growth_series(top, gs + (size_t)r * MAX_STEPS,
                            way_back ? ss + (size_t)r * MAX_STEPS : NULL);
    if (got < 0 || (steps >= 0 && got != steps)) {
      failed = 1;
    }
    steps = got < 0 ? 0 : got;
    CHECK(dart_exit());
  }
  if (me == 0) {
    printf("\n### Local pool growth: one chunk per dart_memalloc, %d "
           "node(s) (us, median of %lld fresh pools, unit 0)\n\n",
           nodes, greps);
    printf("The block is as large as the pool's committed memory, so the "
           "allocation adds one chunk of that size. change: the exposure "
           "change (local_pool_stats: exposure.last_change_ns); grace: "
           "the model t_maxdata + t_rrsched * runnable of that change "
           "(DART_POOL_GRACE_US replaces it), 0 when no unit reaches the "
           "pool by RMA.\n\n");
    print_changes(gs, MAX_STEPS, steps, greps, nodes, "block",
                  "dart_memalloc", growth_csv_path,
                  "nodes,block_bytes,committed_bytes,chunks,alloc_us,"
                  "change_us,grace_us,maxdata_us,rrsched_us,runnable,"
                  "guarded,pools");
    printf("\n### Local pool shrink: one chunk per dart_memfree, %d "
           "node(s) (us, median of %lld pools, unit 0)\n\n", nodes, greps);
    if (way_back) {
      printf("After each growth series the blocks are freed newest first "
             "with DART_POOL_SHRINK_MS=0, so every dart_memfree but the "
             "last empties the top chunk and gives it back: flags at every "
             "unit, grace, the smaller prefix re-attached (prefix "
             "exposure), pages punched out. change: "
             "exposure.last_change_ns of that shrink; grace: its model "
             "(t_maxdata from the size before it).\n\n");
      print_changes(ss, MAX_STEPS, steps, greps, nodes, "chunk released",
                    "dart_memfree", shrink_csv_path,
                    "nodes,chunk_bytes,committed_bytes,chunks,free_us,"
                    "change_us,grace_us,maxdata_us,rrsched_us,runnable,"
                    "guarded,pools");
    } else {
      printf("Not measured: chunks go back at once only among several "
             "units with DART_POOL_SHRINK_MS=0 (this run: %d unit(s), "
             "DART_POOL_SHRINK_MS=%d).\n", units,
             runtime.env.pool_shrink_ms);
    }
    fflush(stdout);
  }
  free(ss);
  free(gs);

  /* Part 1 in one more fresh pool, grown once to hold the largest block. */
  if (set_shrink_ms) {
    unsetenv("DART_POOL_SHRINK_MS");
  }
  CHECK(dart_init(&argc, &argv));
  dart_gptr_t big;
  CHECK(dart_memalloc(top, DART_TYPE_BYTE, &big));
  CHECK(dart_memfree(big));
  local_pool_stats(&s);
  unsigned long changes = s.exposure.changes;
  if (me == 0) {
    printf("\n### Local pool: allocate + free of one block, %d node(s) "
           "(us, median of %lld rounds)\n\n",
           nodes, reps);
    printf("Every unit runs the kernel at once; a round's time is the "
           "slowest unit's per operation. The pool has room (committed "
           "%zu bytes in %d chunks); the blocks and the windows are not "
           "touched.\n\n", s.committed, s.chunks);
    printf("| size | %s | %s | %s | SELF / DART | WORLD / DART |\n"
           "|---:|---:|---:|---:|---:|---:|\n",
           kernel_names[K_DART], kernel_names[K_SELF], kernel_names[K_WORLD]);
    fflush(stdout);
  }
  FILE *csv = me == 0 ? open_csv(csv_path,
                                 "nodes,bytes,dart_us,mpi_self_us,"
                                 "mpi_world_us,iters_dart,iters_self,"
                                 "iters_world") : NULL;
  double *samples = malloc((size_t)NUM_KERNELS * (size_t)reps *
                           sizeof(double));
  if (samples == NULL) {
    die("malloc");
  }
  size_t bytes = KIB;
  for (int sz = 0; sz < num_sizes; ++sz, bytes *= 4) {
    struct alloc_row row;
    measure_size(bytes, (int)reps, (int)iters, &row, samples);
    if (me == 0) {
      printf("| %s | %.2f | %.2f | %.2f | %.1f | %.1f |\n",
             bench_size_label(bytes, label, sizeof label), row.us[K_DART],
             row.us[K_SELF], row.us[K_WORLD], row.us[K_SELF] / row.us[K_DART],
             row.us[K_WORLD] / row.us[K_DART]);
      fflush(stdout);
      if (csv != NULL) {
        fprintf(csv, "%d,%zu,%.4f,%.4f,%.4f,%d,%d,%d\n", nodes, bytes,
                row.us[K_DART], row.us[K_SELF], row.us[K_WORLD],
                row.n[K_DART], row.n[K_SELF], row.n[K_WORLD]);
      }
    }
  }
  free(samples);
  if (csv != NULL) {
    fclose(csv);
  }
  /* Steady state means no chunk was added while measuring. */
  local_pool_stats(&s);
  int grew = s.exposure.changes != changes, any_grew = 0;
  MPI_Allreduce(&grew, &any_grew, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_grew) {
    if (me == 0) {
      fprintf(stderr, "bench-pool: the pool grew while it should have had "
              "room\n");
    }
    failed = 1;
  }
  CHECK(dart_exit());
  if (me == 0 && failed) {
    fprintf(stderr, "bench-pool: CHECKS FAILED\n");
  }
  MPI_Finalize();
  return failed ? 1 : 0;
}
