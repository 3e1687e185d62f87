/* Command-line counts and size labels, the same in every benchmark. */
#ifndef DART_BENCH_ARGS_H
#define DART_BENCH_ARGS_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* A decimal count in [1, max] into *out: 0, or -1 for anything else. */
static inline int bench_parse_count(const char *text, long long max,
                                    long long *out)
{
  char *end = NULL;
  long long v = strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v <= 0 || v > max) {
    return -1;
  }
  *out = v;
  return 0;
}

/* "4 MiB", "64 KiB" or "12 B": the largest unit that divides `bytes`. */
static inline const char *bench_size_label(size_t bytes, char *buf,
                                           size_t cap)
{
  const size_t kib = (size_t)1 << 10, mib = (size_t)1 << 20;
  if (bytes >= mib && bytes % mib == 0) {
    snprintf(buf, cap, "%zu MiB", bytes / mib);
  } else if (bytes >= kib && bytes % kib == 0) {
    snprintf(buf, cap, "%zu KiB", bytes / kib);
  } else {
    snprintf(buf, cap, "%zu B", bytes);
  }
  return buf;
}

#endif
