#include "stencil_kernel.h"

#include "cmdline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void st_usage(FILE *to, const char *prog)
{
  fprintf(to,
          "usage: %s [-n N] [-i MAX_ITERS] [-t TOL] [--verify] [--phases]\n"
          "  -n        grid of N x N points, 2..16384, divisible by the "
          "unit count (default 1024)\n"
          "  -i        at most this many iterations (default 100000)\n"
          "  -t        converged when no point changes by more than this, "
          "0..1 (default 1e-6)\n"
          "  --verify  also solve serially and require identical bits\n"
          "  --phases  also report the time in the local sweeps and in the "
          "halo puts\n",
          prog);
}

int st_parse_args(int argc, char **argv, const char *prog,
                  struct st_params *p, int *exit_code)
{
  p->n = 1024;
  p->max_iters = 100000;
  p->tol = 1e-6;
  p->verify = 0;
  p->phases = 0;
  const struct opt opts[] = {
    { "-n", OPT_LONG, 2, 16384, &p->n },
    { "-i", OPT_LONG, 1, 100000000, &p->max_iters },
    { "-t", OPT_DOUBLE, 0.0, 1.0, &p->tol },
    { "--verify", OPT_FLAG, 0, 0, &p->verify },
    { "--phases", OPT_FLAG, 0, 0, &p->phases },
  };
  return parse_options(argc, argv, prog, opts, 5, st_usage, exit_code);
}

int st_layout_init(const struct st_params *p, long units, long me,
                   struct st_layout *l)
{
  if (p->n % units != 0) {
    if (me == 0) {
      fprintf(stderr, "stencil: the grid size %ld does not divide by the "
              "%ld units (rows are split evenly)\n", p->n, units);
    }
    return 2;
  }
  l->n = p->n;
  l->width = p->n + 2;
  l->rows = p->n / units;
  l->first_row = 1 + me * l->rows;
  l->units = units;
  l->me = me;
  return 0;
}

size_t st_block_floats(const struct st_layout *l)
{
  return (size_t)(l->rows + 4) * (size_t)l->width;
}

/* Row positions inside a block, in floats. */
static size_t top_halo(const struct st_layout *l, int slot)
{
  return (size_t)slot * (size_t)l->width;
}

static size_t own_row(const struct st_layout *l, long r)
{
  return (size_t)(2 + r) * (size_t)l->width;
}

static size_t bottom_halo(const struct st_layout *l, int slot)
{
  return (size_t)(l->rows + 2 + slot) * (size_t)l->width;
}

int st_exchange_plan(const struct st_layout *l, int slot,
                     struct st_put out[2])
{
  int k = 0;
  if (l->me > 0) {
    out[k++] = (struct st_put){ .target = l->me - 1, .src = own_row(l, 0),
                                .dst = bottom_halo(l, slot),
                                .count = (size_t)l->width };
  }
  if (l->me + 1 < l->units) {
    out[k++] = (struct st_put){ .target = l->me + 1,
                                .src = own_row(l, l->rows - 1),
                                .dst = top_halo(l, slot),
                                .count = (size_t)l->width };
  }
  return k;
}

/* Updates the points of one colour ((global row + column) % 2 == color)
 * in `rows` consecutive rows of width n + 2, reading the rows `above` and
 * `below` the range; returns the largest change. Every point is computed
 * by the same expression from the same inputs however the grid is cut, so
 * a correct parallel run matches the serial one bit for bit. */
static float sweep(float *first, long rows, long n, const float *above,
                   const float *below, long first_row, int color, float h2)
{
  const long w = n + 2;
  float diff = 0.0f;
  for (long r = 0; r < rows; ++r) {
    float *row = first + r * w;
    const float *up = r == 0 ? above : row - w;
    const float *down = r == rows - 1 ? below : row + w;
    long j0 = ((first_row + r + 1) % 2 == color) ? 1 : 2;
    for (long j = j0; j <= n; j += 2) {
      float v = 0.25f * (up[j] + down[j] + row[j - 1] + row[j + 1] + h2);
      float d = fabsf(v - row[j]);
      diff = d > diff ? d : diff;
      row[j] = v;
    }
  }
  return diff;
}

/* A clock reading for --phases; 0 when not timing, so that a plain run
 * reads no clock inside its loop. */
static double stamp(int timed)
{
  return timed ? wall_seconds() : 0.0;
}

/* The whole grid in one block of n rows: the reference the parallel run
 * must reproduce. Returns the grid ((n + 2) rows) and the iteration count. */
static float *serial_solve(const struct st_params *p, float h2, long *iters)
{
  const long n = p->n, w = n + 2;
  float *g = calloc((size_t)(n + 2) * (size_t)w, sizeof(float));
  if (g == NULL) {
    return NULL;
  }
  long it = 0;
  while (it < p->max_iters) {
    float d = sweep(g + w, n, n, g, g + (n + 1) * w, 1, 0, h2);
    float e = sweep(g + w, n, n, g, g + (n + 1) * w, 1, 1, h2);
    ++it;
    if ((d > e ? d : e) <= p->tol) {
      break;
    }
  }
  *iters = it;
  return g;
}

/* Points of this unit's rows that differ from the serial solve, or -1 when
 * that could not be computed. */
static long mismatches(const struct st_params *p, const struct st_layout *l,
                       const float *block, float h2, long iters)
{
  long serial_iters = 0;
  float *g = serial_solve(p, h2, &serial_iters);
  if (g == NULL) {
    return -1;
  }
  long bad = serial_iters != iters ? 1 : 0;
  for (long r = 0; r < l->rows; ++r) {
    const float *mine = block + own_row(l, r);
    const float *ref = g + (l->first_row + r) * l->width;
    for (long j = 0; j < l->width; ++j) {
      bad += memcmp(&mine[j], &ref[j], sizeof(float)) != 0;
    }
  }
  free(g);
  return bad;
}

int st_run(const struct st_params *p, const struct st_model *m,
           const struct st_layout *l, float *block)
{
  const float h = 1.0f / (float)(l->n + 1);
  const float h2 = h * h;
  const long n = l->n;
  float *own = block + own_row(l, 0);
  memset(block, 0, st_block_floats(l) * sizeof(float));
  m->barrier(m->ctx);

  /* Red reads the neighbours' black points (halo slot 1, filled after the
   * last black sweep); black reads their new red points (slot 0). A unit
   * refills slot 0 only after the next barrier and slot 1 only after the
   * next reduction, when its neighbours are done reading. */
  const int timed = p->phases;
  double sweep_s = 0.0, halo_s = 0.0;
  double t0 = wall_seconds();
  long it = 0;
  float diff = 0.0f;
  int converged = 0;
  while (it < p->max_iters && !converged) {
    double t_red = stamp(timed);
    float d = sweep(own, l->rows, n, block + top_halo(l, 1),
                    block + bottom_halo(l, 1), l->first_row, 0, h2);
    double t_put0 = stamp(timed);
    m->exchange(m->ctx, 0);
    double t_sync = stamp(timed);
    m->barrier(m->ctx);
    double t_black = stamp(timed);
    float e = sweep(own, l->rows, n, block + top_halo(l, 0),
                    block + bottom_halo(l, 0), l->first_row, 1, h2);
    double t_put1 = stamp(timed);
    m->exchange(m->ctx, 1);
    double t_max = stamp(timed);
    sweep_s += (t_put0 - t_red) + (t_put1 - t_black);
    halo_s += (t_sync - t_put0) + (t_max - t_put1);
    diff = m->max(m->ctx, d > e ? d : e);
    ++it;
    converged = diff <= p->tol;
  }
  double seconds = wall_seconds() - t0;

  /* The units' sweeps differ in speed (cores, caches): the slowest one
   * sets the pace, so both ends are reported, and the halo puts of the
   * unit that took longest in them. */
  float sweep_fast = 0.0f, sweep_slow = 0.0f, halo_slow = 0.0f;
  if (timed) {
    float sweep_us = (float)(1e6 * sweep_s / (double)it);
    sweep_slow = m->max(m->ctx, sweep_us);
    sweep_fast = -m->max(m->ctx, -sweep_us);
    halo_slow = m->max(m->ctx, (float)(1e6 * halo_s / (double)it));
  }

  int rc = 0;
  const char *verdict = "skipped";
  if (p->verify) {
    long bad = mismatches(p, l, block, h2, it);
    float worst = m->max(m->ctx, bad < 0 ? INFINITY : (float)bad);
    rc = worst == 0.0f ? 0 : 1;
    verdict = rc == 0 ? "pass" : "fail";
    if (l->me == 0 && rc != 0) {
      fprintf(stderr, "stencil (%s): result differs from the serial solve "
              "(worst unit: %g points)\n", m->name, (double)worst);
    }
  }
  if (l->me == 0) {
    double us = 1e6 * seconds / (double)it;
    printf("Stencil (%s): %ld x %ld floats on %ld units, %ld iterations, "
           "%s (last change %.3g)\n",
           m->name, n, n, l->units, it,
           converged ? "converged" : "not converged", (double)diff);
    printf("  %.3f us per iteration, %.6f s total, verification %s\n", us,
           seconds, verdict);
    if (timed) {
      printf("  of that: local sweeps %.3f us (fastest unit) to %.3f us "
             "(slowest unit), halo puts up to %.3f us\n",
             (double)sweep_fast, (double)sweep_slow, (double)halo_slow);
    }
    printf("RESULT kernel=stencil model=%s units=%ld n=%ld iters=%ld "
           "converged=%s seconds=%.6f us_per_iter=%.3f",
           m->name, l->units, n, it, converged ? "yes" : "no", seconds, us);
    if (timed) {
      printf(" sweep_us_fastest=%.3f sweep_us_slowest=%.3f halo_us=%.3f",
             (double)sweep_fast, (double)sweep_slow, (double)halo_slow);
    }
    printf(" verify=%s\n", verdict);
    fflush(stdout);
  }
  return rc;
}
