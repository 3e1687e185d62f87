/* Five-point stencil for the 2D Poisson problem -lap(u) = 1 on the unit
 * square, u = 0 on the boundary, solved by red-black Gauss-Seidel: the part
 * every programming model shares. The N x N grid of floats is cut into
 * blocks of N/units rows; a model (DART, MPI RMA, OpenSHMEM) supplies only
 * the halo puts and the synchronisation (struct st_model).
 *
 * A unit's block is rows + 4 rows of N + 2 floats (the outer columns are
 * the fixed boundary): two top halo rows, the own rows, two bottom halo
 * rows. Halo slot 0 receives the neighbour's rows after the red sweep and
 * slot 1 after the black one, so a put never lands in a row the neighbour
 * may still be reading (see st_run). */
#ifndef KERNELS_STENCIL_KERNEL_H
#define KERNELS_STENCIL_KERNEL_H

#include <stddef.h>

struct st_params {
  long   n;         /* -n: grid is n x n interior points */
  long   max_iters; /* -i: stop after this many iterations */
  double tol;       /* -t: converged when no point moves more than this */
  int    verify;    /* --verify: compare with a serial solve, bitwise */
  int    phases;    /* --phases: also time the sweeps and the halo puts */
};

/* Parses argv. Returns 0 to run, else the program stops with *exit_code
 * (parse_options). */
int st_parse_args(int argc, char **argv, const char *prog,
                  struct st_params *p, int *exit_code);

struct st_layout {
  long n, width;  /* interior points per row, floats per row (n + 2) */
  long rows;      /* own rows */
  long first_row; /* global index of the first own row (1-based) */
  long units, me;
};

/* Fills *l; when n does not divide by units, the first unit prints why and
 * 2 is returned (every unit gets the same answer). */
int st_layout_init(const struct st_params *p, long units, long me,
                   struct st_layout *l);

/* Floats in a unit's block. */
size_t st_block_floats(const struct st_layout *l);

/* One halo put: `count` floats from the own block at `src` (in floats) to
 * unit `target`'s block at `dst`. */
struct st_put {
  long   target;
  size_t src, dst, count;
};

/* The puts of one exchange into halo slot `slot`: the first own row to
 * the unit above, the last to the unit below. Returns how many (0-2). */
int st_exchange_plan(const struct st_layout *l, int slot,
                     struct st_put out[2]);

struct st_model {
  const char *name;
  void *ctx;
  /* Carries out st_exchange_plan(slot), complete at the targets. */
  void (*exchange)(void *ctx, int slot);
  void (*barrier)(void *ctx);
  /* Largest v over all units, returned on every unit. */
  float (*max)(void *ctx, float v);
};

/* Zeroes the block, iterates to convergence, verifies when asked; unit 0
 * prints the report with one "RESULT ..." line for scripts. Returns the
 * exit code: 0, or 1 when the verification failed. */
int st_run(const struct st_params *p, const struct st_model *m,
           const struct st_layout *l, float *block);

#endif
