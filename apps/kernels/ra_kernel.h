/* HPCC RandomAccess, the part every programming model shares: the 64-bit
 * LFSR stream, the table layout, the update loop, the verification rule
 * and the report. A model (DART, MPI RMA, OpenSHMEM) supplies only how an
 * update reaches its word and how units synchronise (struct ra_model). */
#ifndef KERNELS_RA_KERNEL_H
#define KERNELS_RA_KERNEL_H

#include <stdint.h>

/* HPCC's generator: x <- 2x over GF(2) modulo x^64 + x^2 + x + 1. */
#define RA_POLY UINT64_C(0x7)
#define RA_PERIOD INT64_C(1317624576693539401)

static inline uint64_t ra_next(uint64_t x)
{
  return (x << 1) ^ ((int64_t)x < 0 ? RA_POLY : 0);
}

/* The stream's n-th value (n >= 0), computed in O(log n) as HPCC does. */
uint64_t ra_starts(int64_t n);

struct ra_params {
  int  log2_local;   /* -k: table words per unit = 2^k */
  long factor;       /* -u: updates = factor x table words (HPCC: 4) */
  int  max_error_pm; /* -e: allowed wrong words, per mille (HPCC: 10) */
};

/* Parses argv into *p. Returns 0 to run, else the program stops with
 * *exit_code (parse_options). */
int ra_parse_args(int argc, char **argv, const char *prog,
                  struct ra_params *p, int *exit_code);

struct ra_model {
  const char *name;
  void *ctx;
  /* XOR *value into word `offset` of unit `owner`'s part of the table.
   * *value stays untouched until the next complete(), so it may serve as
   * the origin buffer of a non-blocking operation. */
  void (*update)(void *ctx, uint64_t owner, uint64_t offset,
                 const uint64_t *value);
  /* Completes every update this unit has issued. */
  void (*complete)(void *ctx);
  void (*barrier)(void *ctx);
  /* Sum of v over all units, returned on every unit. */
  uint64_t (*sum)(void *ctx, uint64_t v);
};

/* Fills this unit's part (2^k words), runs the timed updates, replays all
 * streams locally to undo them and counts wrong words. Unit 0 prints the report,
 * including one "RESULT ..." line for scripts. Returns the exit code: 0 when
 * the errors are within the limit, 1 otherwise. */
int ra_run(const struct ra_params *p, const struct ra_model *m,
           uint64_t units, uint64_t me, uint64_t *local);

#endif
