/* bench-collectives: cost of DART's collectives and two-sided calls next
 * to the same MPI calls on an equivalent communicator, measured in one
 * run. Per operation: `reps` repetitions of `iters` calls, DART and MPI
 * interleaved; the time of a repetition is the slowest unit's; the table
 * shows medians and the ratio DART / MPI.
 * Usage: bench-collectives [--reps R] [--iters K] [--csv FILE] */
#include <dash/dart/if/dart.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BCAST_BYTES = 64 * 1024 };

struct context {
  int      me, size;
  MPI_Comm comm;
  char    *buf;
  double  *vals;
};

typedef void (*kernel_fn)(struct context *ctx);

static void die(const char *what)
{
  fprintf(stderr, "bench-collectives: %s failed\n", what);
  dart_abort(DART_EXIT_ABORT);
}
#define CHECK(call) do { if ((call) != DART_OK) die(#call); } while (0)

static void dart_barrier_k(struct context *c)
{ (void)c; CHECK(dart_barrier(DART_TEAM_ALL)); }
static void mpi_barrier_k(struct context *c) { MPI_Barrier(c->comm); }

static void dart_allreduce_k(struct context *c)
{
  CHECK(dart_allreduce(&c->vals[0], &c->vals[1], 1, DART_TYPE_DOUBLE,
                       DART_OP_SUM, DART_TEAM_ALL));
}
static void mpi_allreduce_k(struct context *c)
{
  MPI_Allreduce(&c->vals[0], &c->vals[1], 1, MPI_DOUBLE, MPI_SUM, c->comm);
}

static void dart_bcast_k(struct context *c)
{
  CHECK(dart_bcast(c->buf, BCAST_BYTES, DART_TYPE_BYTE, DART_TEAM_UNIT_ID(0),
                   DART_TEAM_ALL));
}
static void mpi_bcast_k(struct context *c)
{
  MPI_Bcast(c->buf, BCAST_BYTES, MPI_BYTE, 0, c->comm);
}

static void dart_allgather_k(struct context *c)
{
  CHECK(dart_allgather(&c->vals[0], &c->vals[2], 1, DART_TYPE_DOUBLE,
                       DART_TEAM_ALL));
}
static void mpi_allgather_k(struct context *c)
{
  MPI_Allgather(&c->vals[0], 1, MPI_DOUBLE, &c->vals[2], 1, MPI_DOUBLE,
                c->comm);
}

/* Ping-pong between units 0 and 1; the others idle. */
static void dart_pingpong_k(struct context *c)
{
  dart_global_unit_t peer = { c->me ^ 1 };
  if (c->me == 0) {
    CHECK(dart_send(c->vals, 1, DART_TYPE_DOUBLE, 1, peer));
    CHECK(dart_recv(c->vals, 1, DART_TYPE_DOUBLE, 1, peer));
  } else if (c->me == 1) {
    CHECK(dart_recv(c->vals, 1, DART_TYPE_DOUBLE, 1, peer));
    CHECK(dart_send(c->vals, 1, DART_TYPE_DOUBLE, 1, peer));
  }
}
static void mpi_pingpong_k(struct context *c)
{
  if (c->me == 0) {
    MPI_Send(c->vals, 1, MPI_DOUBLE, 1, 1, c->comm);
    MPI_Recv(c->vals, 1, MPI_DOUBLE, 1, 1, c->comm, MPI_STATUS_IGNORE);
  } else if (c->me == 1) {
    MPI_Recv(c->vals, 1, MPI_DOUBLE, 0, 1, c->comm, MPI_STATUS_IGNORE);
    MPI_Send(c->vals, 1, MPI_DOUBLE, 0, 1, c->comm);
  }
}

static int compare_doubles(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median over repetitions of the slowest unit's time per call, in us. */
static double measure(struct context *c, kernel_fn kernel, int reps,
                      int iters, double *samples)
{
  for (int w = 0; w < iters; ++w) {
    kernel(c); /* warm-up */
  }
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(c->comm);
    double start = MPI_Wtime();
    for (int i = 0; i < iters; ++i) {
      kernel(c);
    }
    double mine = (MPI_Wtime() - start) / iters * 1e6, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    samples[r] = slowest;
  }
  qsort(samples, (size_t)reps, sizeof(double), compare_doubles);
  return samples[reps / 2];
}

static int parse_positive(const char *text, int *out)
{
  char *end = NULL;
  long v = strtol(text, &end, 10);
  if (*end != '\0' || v <= 0 || v > 100000000) {
    return -1;
  }
  *out = (int)v;
  return 0;
}

int main(int argc, char **argv)
{
  int reps = 21, iters = 1000;
  const char *csv_path = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc &&
        parse_positive(argv[i + 1], &reps) == 0) {
      ++i;
    } else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc &&
               parse_positive(argv[i + 1], &iters) == 0) {
      ++i;
    } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
      csv_path = argv[++i];
    } else {
      fprintf(stderr, "usage: bench-collectives [--reps R>0] [--iters K>0] "
                      "[--csv FILE]\n(bad argument: %s)\n", argv[i]);
      return 2;
    }
  }
  CHECK(dart_init(&argc, &argv));
  struct context c;
  dart_global_unit_t me;
  size_t size;
  CHECK(dart_myid(&me));
  CHECK(dart_size(&size));
  c.me = me.id;
  c.size = (int)size;
  MPI_Comm_dup(MPI_COMM_WORLD, &c.comm);
  c.buf = calloc(BCAST_BYTES, 1);
  c.vals = calloc(2 + size, sizeof(double));
  c.vals[0] = me.id;
  double *samples = malloc((size_t)reps * sizeof(double));
  if (c.buf == NULL || c.vals == NULL || samples == NULL) {
    die("allocation");
  }

  struct { const char *name; kernel_fn dart, mpi; int needs_two; } ops[] = {
    { "barrier", dart_barrier_k, mpi_barrier_k, 0 },
    { "allreduce 8 B", dart_allreduce_k, mpi_allreduce_k, 0 },
    { "allgather 8 B/unit", dart_allgather_k, mpi_allgather_k, 0 },
    { "bcast 64 KiB", dart_bcast_k, mpi_bcast_k, 0 },
    { "send+recv 8 B (round trip)", dart_pingpong_k, mpi_pingpong_k, 1 },
  };
  FILE *csv = NULL;
  if (c.me == 0) {
    if (csv_path != NULL && (csv = fopen(csv_path, "w")) == NULL) {
      fprintf(stderr, "bench-collectives: cannot write %s\n", csv_path);
    }
    if (csv != NULL) {
      fprintf(csv, "operation,units,dart_us,mpi_us,ratio\n");
    }
    printf("%d units, median of %d repetitions x %d calls\n\n", c.size, reps,
           iters);
    printf("| operation | DART us | MPI us | DART/MPI |\n");
    printf("|---|---:|---:|---:|\n");
  }
  for (size_t k = 0; k < sizeof ops / sizeof *ops; ++k) {
    if (ops[k].needs_two && c.size < 2) {
      continue;
    }
    double t_dart = measure(&c, ops[k].dart, reps, iters, samples);
    double t_mpi = measure(&c, ops[k].mpi, reps, iters, samples);
    if (c.me == 0) {
      printf("| %s | %.3f | %.3f | %.2f |\n", ops[k].name, t_dart, t_mpi,
             t_dart / t_mpi);
      fflush(stdout);
      if (csv != NULL) {
        fprintf(csv, "%s,%d,%.4f,%.4f,%.4f\n", ops[k].name, c.size, t_dart,
                t_mpi, t_dart / t_mpi);
      }
    }
  }
  if (csv != NULL) {
    fclose(csv);
  }
  free(samples);
  free(c.buf);
  free(c.vals);
  MPI_Comm_free(&c.comm);
  CHECK(dart_exit());
  return 0;
}
