/* shmem-pool: OpenSHMEM's allocation of memory others can reach, the
 * OpenSHMEM column beside bench-pool's allocate + free table:
 * shmem_malloc + shmem_free of one block (both collective) at bench-pool's
 * sizes, 1 KiB * 4^k up to --max-bytes. As there, every PE runs the
 * kernel at once, a round's time is the slowest PE's per operation, the
 * result the median of --reps rounds, and the memory is not touched.
 * The blocks come from the symmetric heap, whose size is fixed at
 * shmem_init (Open MPI 4.1 reads SMA_SYMMETRIC_SIZE, default 256 MiB; the
 * specification's SHMEM_SYMMETRIC_SIZE is not honoured there): a size the
 * heap cannot hold ends the table with a note instead of a time. Results are printed before
 * shmem_finalize (Open MPI 4.1's crashes there).
 * Usage: shmem-pool [--reps R] [--iters K] [--max-bytes B] [--csv FILE] */
#include "bench_args.h"
#include "bench_stats.h"
#include "mpi_peer.h"
#include "shmem_peer.h"

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

enum { MAX_SIZES = 11, MAX_REPS = 1001 };

/* As bench-pool: a round lasts about this long, at least one operation. */
#define ROUND_BUDGET_NS 20e6

static double now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* n allocations of `bytes`, each freed at once; 0, or -1 when the heap
 * had no room. No check between operations that would add a collective:
 * shmem_malloc is collective and the heap symmetric, so every PE gets
 * NULL for the same request; the PEs compare notes after the round. */
static int alloc_free(size_t bytes, int n)
{
  for (int i = 0; i < n; ++i) {
    void *p = shmem_malloc(bytes);
    if (p == NULL) {
      return -1;
    }
    shmem_free(p);
  }
  return 0;
}

/* The slowest PE's ns per operation of one round, or -1 when the heap had
 * no room on some PE. */
static double timed_round(size_t bytes, int n)
{
  shmem_barrier_all();
  double t0 = now_ns();
  int rc = alloc_free(bytes, n);
  double mine = (now_ns() - t0) / n;
  int failed = shmem_peer_sum(rc != 0) > 0;
  double slowest = (double)shmem_peer_max((float)mine);
  return failed ? -1.0 : slowest;
}

int main(int argc, char **argv)
{
  long long reps = 11, iters = 1000, max_bytes = (long long)1 << 30;
  const char *csv_path = NULL;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    int ok = 0;
    if (i + 1 < argc && strcmp(arg, "--reps") == 0) {
      ok = bench_parse_count(argv[++i], MAX_REPS, &reps) == 0;
    } else if (i + 1 < argc && strcmp(arg, "--iters") == 0) {
      ok = bench_parse_count(argv[++i], 100000000, &iters) == 0;
    } else if (i + 1 < argc && strcmp(arg, "--max-bytes") == 0) {
      ok = bench_parse_count(argv[++i], (long long)1 << 40, &max_bytes) == 0 &&
           max_bytes >= (long long)KIB;
    } else if (i + 1 < argc && strcmp(arg, "--csv") == 0) {
      csv_path = argv[++i];
      ok = csv_path[0] != '\0';
    }
    if (!ok) {
      fprintf(stderr, "shmem-pool: bad argument: %s\n"
              "usage: shmem-pool [--reps R] [--iters K] [--max-bytes B] "
              "[--csv FILE]\n", arg);
      return mpi_peer_stop(&argc, &argv, 2);
    }
  }
  shmem_peer_start();
  int me = shmem_my_pe();
  FILE *csv = NULL;
  if (me == 0) {
    const char *heap = getenv("SMA_SYMMETRIC_SIZE");
    printf("shmem-pool: OpenSHMEM %d.%d (Open MPI oshmem), %d PEs, "
           "SMA_SYMMETRIC_SIZE=%s; shmem_malloc + shmem_free, us, median "
           "of %lld rounds, slowest PE\n\n"
           "| size | shmem_malloc + shmem_free |\n|---:|---:|\n",
           SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, shmem_n_pes(),
           heap != NULL ? heap : "(not set)", reps);
    if (csv_path != NULL) {
      csv = fopen(csv_path, "w");
      if (csv == NULL) {
        fprintf(stderr, "shmem-pool: cannot write %s\n", csv_path);
      } else {
        fprintf(csv, "bytes,shmem_us,iters\n");
      }
    }
  }
  double samples[MAX_REPS];
  char label[32];
  size_t bytes = KIB;
  for (int s = 0; s < MAX_SIZES && bytes <= (size_t)max_bytes;
       ++s, bytes *= 4) {
    /* One untimed operation, then one timed to size the rounds. */
    double warm = timed_round(bytes, 1) < 0 ? -1.0 : timed_round(bytes, 1);
    if (warm < 0) {
      if (me == 0) {
        printf("| %s | n/a: the symmetric heap has no room "
               "(SMA_SYMMETRIC_SIZE) |\n",
               bench_size_label(bytes, label, sizeof label));
      }
      break;
    }
    double fit = ROUND_BUDGET_NS / (warm > 1 ? warm : 1);
    int n = fit < 1 ? 1 : fit > iters ? (int)iters : (int)fit;
    int bad = 0;
    for (int r = 0; r < reps; ++r) {
      samples[r] = timed_round(bytes, n);
      bad |= samples[r] < 0;
    }
    double us = bad ? -1.0 : bench_median(samples, (int)reps) * 1e-3;
    if (me == 0) {
      printf("| %s | %.2f |\n", bench_size_label(bytes, label, sizeof label), us);
      if (csv != NULL && !bad) {
        fprintf(csv, "%zu,%.4f,%d\n", bytes, us, n);
      }
    }
    if (bad) {
      break;
    }
  }
  if (csv != NULL) {
    fclose(csv);
  }
  fflush(stdout);
  shmem_barrier_all();
  shmem_finalize();
  return 0;
}
