/* Medians for the benchmarks' repeated measurements. */
#ifndef DART_BENCH_STATS_H
#define DART_BENCH_STATS_H

#include <stdlib.h>

static int bench_compare_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/* Median of v[0..n-1] (n >= 1); sorts v. */
static inline double bench_median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, bench_compare_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
