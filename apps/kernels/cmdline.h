/* Command-line helpers shared by the apps and their peer benchmarks. */
#ifndef KERNELS_CMDLINE_H
#define KERNELS_CMDLINE_H

#include <stdio.h>

/* 1 when this process is the launcher's first rank (or no launcher says):
 * before MPI runs, only that one reports a bad command line. */
int first_rank_by_environment(void);

/* Parses a whole decimal number in [lo, hi] into *out; 0 on success. */
int parse_long(const char *text, long lo, long hi, long *out);

/* Parses a finite number in [lo, hi] into *out; 0 on success. */
int parse_double(const char *text, double lo, double hi, double *out);

/* Table-driven command lines: "-k 20", "--verify", ... */
enum opt_kind { OPT_LONG, OPT_DOUBLE, OPT_FLAG, OPT_TEXT };

struct opt {
  const char   *name;  /* "-k", "--csv", ... */
  enum opt_kind kind;
  double        lo, hi; /* accepted range of OPT_LONG and OPT_DOUBLE */
  void         *dest;   /* long, double, int (set to 1) or const char * */
};

typedef void (*usage_fn)(FILE *to, const char *prog);

/* Parses argv against opts. Returns 0 to run on; otherwise the program
 * should stop with *exit_code: 0 after --help / -h (usage on stdout), 2 on
 * a bad command line (message and usage on stderr). Only the first rank
 * prints (first_rank_by_environment). */
int parse_options(int argc, char **argv, const char *prog,
                  const struct opt *opts, int nopts, usage_fn usage,
                  int *exit_code);

/* Seconds on a monotonic clock. */
double wall_seconds(void);

#endif
