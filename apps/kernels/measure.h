/* Latency measurement shared by the distance and OpenSHMEM benchmarks:
 * `reps` rounds of `iters` calls of one operation, each round preceded by
 * one untimed call; the result is the median round's ns per call. */
#ifndef KERNELS_MEASURE_H
#define KERNELS_MEASURE_H

typedef void (*measure_op)(void *ctx);

/* Median ns per call of op(ctx); reps is at most MEASURE_MAX_REPS. */
double measure_ns(measure_op op, void *ctx, int iters, int reps);

enum { MEASURE_MAX_REPS = 1001 };

/* Rounds at large sizes shrink so they move about as many bytes as a
 * round of `iters` calls at 16 KiB, but never below 8 calls. */
int measure_iters_for(long long bytes, int iters);

#endif
