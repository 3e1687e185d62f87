/* shmem-latency: OpenSHMEM blocking put/get latency, the OpenSHMEM column
 * beside bench-latency (by message size, PE 0 to PE 1) and bench-distance
 * (--distance: PE 0 to every other PE). "put" is shmem_putmem +
 * shmem_quiet (complete at the target, as dart_put_blocking), "get"
 * shmem_getmem. By size, the sizes are bench-latency's (every power of two
 * from 1 B to --max-bytes), and PE 1 is also the target of the atomics
 * beside bench-latency's, on a long: shmem_long_atomic_fetch_add
 * ("fetch_and_op"), shmem_long_atomic_compare_swap ("compare_and_swap"),
 * shmem_long_atomic_xor + shmem_quiet ("accumulate"; the fetching ones
 * complete on return). Their targets are checked afterwards, and a wrong
 * one is reported as a failure instead of a time. PE 0 measures; the
 * others wait in shmem_barrier_all. Results are printed before
 * shmem_finalize (Open MPI's may crash there).
 * Usage: shmem-latency [--reps R] [--iters K] [--max-bytes B] [--distance]
 *                      [--csv FILE] */
#include "latency.h"
#include "measure.h"
#include "mpi_peer.h"
#include "shmem_peer.h"

#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct shmem_op {
  char     *remote; /* symmetric buffer (the target PE's copy) */
  char     *local;  /* private origin buffer */
  size_t    bytes;
  int       pe;
};

static void put_quiet(void *ctx)
{
  struct shmem_op *o = ctx;
  shmem_putmem(o->remote, o->local, o->bytes, o->pe);
  shmem_quiet();
}

static void get(void *ctx)
{
  struct shmem_op *o = ctx;
  shmem_getmem(o->local, o->remote, o->bytes, o->pe);
}

/* The atomics' state: the three symmetric longs (one cache line) and, per
 * operation, what the origin did and so expects at the target. */
enum { FAO, CAS, ACC, NUM_ATOMICS };

struct shmem_atomics {
  long *target;          /* symmetric, NUM_ATOMICS longs */
  int   pe;
  long  fao_calls;       /* increments made */
  long  cas_value;       /* value the next compare-and-swap expects */
  long  acc_calls;       /* xors made */
  long  acc_value;       /* xor of their operands */
  long  sink;            /* keeps fetched values alive */
};

/* Operand of the i-th xor, as bench-latency's: distinct bit patterns, so
 * that a lost or a repeated update shows at the target. */
static long acc_operand(long i)
{
  return (long)(((uint64_t)i + 1) * UINT64_C(0x9E3779B97F4A7C15));
}

static void fetch_add(void *ctx)
{
  struct shmem_atomics *a = ctx;
  a->sink += shmem_long_atomic_fetch_add(&a->target[FAO], 1, a->pe);
  ++a->fao_calls;
}

/* Meant to succeed every time: expects what the previous one stored. */
static void compare_swap(void *ctx)
{
  struct shmem_atomics *a = ctx;
  long old = shmem_long_atomic_compare_swap(&a->target[CAS], a->cas_value,
                                            a->cas_value + 1, a->pe);
  a->cas_value = old == a->cas_value ? a->cas_value + 1 : old;
}

/* shmem_quiet: the xor returns before it is done at the target. */
static void xor_quiet(void *ctx)
{
  struct shmem_atomics *a = ctx;
  long operand = acc_operand(a->acc_calls++);
  shmem_long_atomic_xor(&a->target[ACC], operand, a->pe);
  shmem_quiet();
  a->acc_value ^= operand;
}

/* The three atomics at 8 B, each reported only when its target holds
 * what the calls made should have left there. Returns 1 on a mismatch. */
static int measure_atomics(const struct lat_params *p,
                           struct shmem_atomics *a, FILE *csv)
{
  static const struct {
    const char *name;
    measure_op  op;
  } ops[NUM_ATOMICS] = {
    [FAO] = { "fetch_and_op", fetch_add },
    [CAS] = { "compare_and_swap", compare_swap },
    [ACC] = { "accumulate", xor_quiet },
  };
  double ns[NUM_ATOMICS];
  for (int k = 0; k < NUM_ATOMICS; ++k) {
    ns[k] = measure_ns(ops[k].op, a, p->iters, p->reps);
  }
  const long want[NUM_ATOMICS] = { a->fao_calls, a->cas_value,
                                   a->acc_value };
  int bad = 0;
  for (int k = 0; k < NUM_ATOMICS; ++k) {
    long seen = shmem_long_atomic_fetch(&a->target[k], a->pe);
    if (seen != want[k]) {
      fprintf(stderr, "shmem-latency: %s: target holds %ld, origin "
                      "expected %ld; no time reported for it\n",
              ops[k].name, seen, want[k]);
      bad = 1;
      continue;
    }
    lat_report(csv, "openshmem", ops[k].name, 8, a->pe, 1, ns[k]);
  }
  return bad;
}

/* bench-latency's sizes by size (1 B, 2 B, ... max_bytes), lat_sizes'
 * with --distance. Returns how many went to out. */
static int sizes_of(const struct lat_params *p, long long out[64])
{
  if (p->distance) {
    return lat_sizes(p, out);
  }
  int n = 0;
  for (long long b = 1; b <= p->max_bytes && n < 64; b *= 2) {
    out[n++] = b;
  }
  return n;
}

/* Every size to one target, both operations. */
static void measure_target(const struct lat_params *p, struct shmem_op *o,
                           FILE *csv)
{
  long long sizes[64];
  int n = sizes_of(p, sizes);
  for (int s = 0; s < n; ++s) {
    o->bytes = (size_t)sizes[s];
    int iters = measure_iters_for(sizes[s], p->iters);
    lat_report(csv, "openshmem", "put", sizes[s], o->pe, 1,
               measure_ns(put_quiet, o, iters, p->reps));
    lat_report(csv, "openshmem", "get", sizes[s], o->pe, 1,
               measure_ns(get, o, iters, p->reps));
  }
}

int main(int argc, char **argv)
{
  struct lat_params p;
  int code;
  if (lat_parse_args(argc, argv, "shmem-latency", &p, &code)) {
    return mpi_peer_stop(&argc, &argv, code);
  }
  shmem_peer_start();
  int me = shmem_my_pe(), npes = shmem_n_pes();
  int rc = 0;
  if (npes < 2) {
    if (me == 0) {
      fprintf(stderr, "shmem-latency: needs at least 2 PEs\n");
    }
    rc = 2;
  }
  struct shmem_op o = { .remote = NULL };
  struct shmem_atomics a = { .target = NULL, .pe = 1 };
  if (rc == 0) {
    o.remote = shmem_malloc((size_t)p.max_bytes);
    o.local = malloc((size_t)p.max_bytes);
    a.target = shmem_align(64, NUM_ATOMICS * sizeof(long));
    if (o.remote == NULL || o.local == NULL || a.target == NULL) {
      fprintf(stderr, "shmem-latency: out of memory\n");
      abort();
    }
    memset(o.local, 1, (size_t)p.max_bytes);
    memset(a.target, 0, NUM_ATOMICS * sizeof(long));
    shmem_barrier_all();
  }
  if (rc == 0 && me == 0) {
    FILE *csv = lat_csv_open(&p, "shmem-latency");
    if (p.csv != NULL && csv == NULL) {
      rc = 1;
    } else {
      printf("OpenSHMEM %d.%d (Open MPI oshmem), %d PEs, median of %d "
             "rounds, ns per operation\n\n"
             "| model | operation | bytes | target | same node | ns |\n"
             "|---|---|---:|---:|---|---:|\n",
             SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, npes, p.reps);
      for (o.pe = 1; o.pe < (p.distance ? npes : 2); ++o.pe) {
        measure_target(&p, &o, csv);
      }
      if (!p.distance && measure_atomics(&p, &a, csv)) {
        rc = 1;
      }
      if (csv != NULL) {
        fclose(csv);
      }
    }
  }
  if (o.remote != NULL) {
    shmem_barrier_all();
    shmem_free(a.target);
    shmem_free(o.remote);
    free(o.local);
  }
  fflush(stdout);
  shmem_finalize();
  return rc;
}
