#include "cmdline.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int first_rank_by_environment(void)
{
  static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                      "PMIX_RANK" };
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i) {
    const char *v = getenv(vars[i]);
    if (v != NULL) {
      return strcmp(v, "0") == 0;
    }
  }
  return 1;
}

int parse_long(const char *text, long lo, long hi, long *out)
{
  char *end = NULL;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) {
    return -1;
  }
  *out = v;
  return 0;
}

int parse_double(const char *text, double lo, double hi, double *out)
{
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (errno != 0 || end == text || *end != '\0' || !isfinite(v) || v < lo ||
      v > hi) {
    return -1;
  }
  *out = v;
  return 0;
}

double wall_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
