#include "measure.h"

#include "cmdline.h"

#include <stdlib.h>

static int by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double measure_ns(measure_op op, void *ctx, int iters, int reps)
{
  double t[MEASURE_MAX_REPS];
  if (reps < 1) {
    reps = 1;
  } else if (reps > MEASURE_MAX_REPS) {
    reps = MEASURE_MAX_REPS;
  }
  for (int r = 0; r < reps; ++r) {
    op(ctx);
    double t0 = wall_seconds();
    for (int i = 0; i < iters; ++i) {
      op(ctx);
    }
    t[r] = (wall_seconds() - t0) * 1e9 / (double)iters;
  }
  qsort(t, (size_t)reps, sizeof t[0], by_value);
  return t[reps / 2];
}

int measure_iters_for(long long bytes, int iters)
{
  const long long full = 16384;
  if (bytes <= full) {
    return iters;
  }
  long long n = (long long)iters * full / bytes;
  return n < 8 ? 8 : (int)n;
}
