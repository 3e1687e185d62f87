/* shmem-latency: OpenSHMEM blocking put/get latency, the OpenSHMEM column
 * beside bench-latency (by message size, PE 0 to PE 1) and bench-distance
 * (--distance: PE 0 to every other PE). "put" is shmem_putmem +
 * shmem_quiet (complete at the target, as dart_put_blocking), "get"
 * shmem_getmem. PE 0 measures; the others wait in shmem_barrier_all.
 * Results are printed before shmem_finalize (Open MPI's may crash there).
 * Usage: shmem-latency [--reps R] [--iters K] [--max-bytes B] [--distance]
 *                      [--csv FILE] */
#include "latency.h"
#include "measure.h"
#include "shmem_peer.h"

#include <shmem.h>
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

/* Every size to one target, both operations. */
static void measure_target(const struct lat_params *p, struct shmem_op *o,
                           FILE *csv)
{
  long long sizes[16];
  int n = lat_sizes(p, sizes);
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
    return code;
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
  if (rc == 0) {
    o.remote = shmem_malloc((size_t)p.max_bytes);
    o.local = malloc((size_t)p.max_bytes);
    if (o.remote == NULL || o.local == NULL) {
      fprintf(stderr, "shmem-latency: out of memory\n");
      abort();
    }
    memset(o.local, 1, (size_t)p.max_bytes);
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
      if (csv != NULL) {
        fclose(csv);
      }
    }
  }
  if (o.remote != NULL) {
    shmem_barrier_all();
    shmem_free(o.remote);
    free(o.local);
  }
  fflush(stdout);
  shmem_finalize();
  return rc;
}
