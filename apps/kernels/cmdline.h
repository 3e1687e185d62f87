/* Command-line helpers shared by the apps and their peer benchmarks. */
#ifndef KERNELS_CMDLINE_H
#define KERNELS_CMDLINE_H

/* 1 when this process is the launcher's first rank (or no launcher says):
 * before MPI runs, only that one reports a bad command line. */
int first_rank_by_environment(void);

/* Parses a whole decimal number in [lo, hi] into *out; 0 on success. */
int parse_long(const char *text, long lo, long hi, long *out);

/* Parses a finite number in [lo, hi] into *out; 0 on success. */
int parse_double(const char *text, double lo, double hi, double *out);

/* Seconds on a monotonic clock. */
double wall_seconds(void);

#endif
