/* Command line and output of the latency benchmarks that sit beside
 * bench-latency: bench-distance (DART and MPI RMA, origin unit 0 to every
 * other unit) and shmem-latency (OpenSHMEM, by size or by distance). */
#ifndef KERNELS_LATENCY_H
#define KERNELS_LATENCY_H

#include <stdio.h>

struct lat_params {
  int         reps, iters;
  long long   max_bytes;
  int         distance; /* every target at 8 B and max_bytes */
  const char *csv;      /* NULL: no CSV */
};

/* Defaults: --reps 21 --iters 1000 --max-bytes 4 MiB (1 MiB with
 * --distance). Returns 0 to run, else the program stops with *exit_code
 * (parse_options). */
int lat_parse_args(int argc, char **argv, const char *prog,
                   struct lat_params *p, int *exit_code);

/* Message sizes for bench-distance: 8 B, 64 B, ... 1 MiB, 4 MiB (x8) up
 * to max_bytes, or with distance only 8 and max_bytes. Returns how many
 * (at most 16) went to out. bench-latency and shmem-latency run every
 * power of two instead. */
int lat_sizes(const struct lat_params *p, long long out[16]);

/* Opens p->csv and writes the header; NULL (after a message) on failure
 * or when no CSV was asked for. */
FILE *lat_csv_open(const struct lat_params *p, const char *prog);

/* One result: printed as a table row and, when csv is not NULL, as
 * "model,operation,bytes,target,same_node,ns". */
void lat_report(FILE *csv, const char *model, const char *operation,
                long long bytes, int target, int same_node, double ns);

#endif
