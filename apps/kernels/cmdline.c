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

static const struct opt *find_opt(const struct opt *opts, int nopts,
                                  const char *name)
{
  for (int i = 0; i < nopts; ++i) {
    if (strcmp(opts[i].name, name) == 0) {
      return &opts[i];
    }
  }
  return NULL;
}

/* Stores the option's value; 0 when it was acceptable. */
static int take_value(const struct opt *o, const char *v)
{
  switch (o->kind) {
  case OPT_LONG:
    return v == NULL ? -1
                     : parse_long(v, (long)o->lo, (long)o->hi, o->dest);
  case OPT_DOUBLE:
    return v == NULL ? -1 : parse_double(v, o->lo, o->hi, o->dest);
  case OPT_TEXT:
    if (v == NULL || v[0] == '\0') {
      return -1;
    }
    *(const char **)o->dest = v;
    return 0;
  case OPT_FLAG:
    *(int *)o->dest = 1;
    return 0;
  }
  return -1;
}

int parse_options(int argc, char **argv, const char *prog,
                  const struct opt *opts, int nopts, usage_fn usage,
                  int *exit_code)
{
  const int first = first_rank_by_environment();
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      if (first) {
        usage(stdout, prog);
      }
      *exit_code = 0;
      return 1;
    }
    const struct opt *o = find_opt(opts, nopts, a);
    const char *v = NULL;
    if (o != NULL && o->kind != OPT_FLAG && i + 1 < argc) {
      v = argv[++i];
    }
    if (o == NULL || take_value(o, v) != 0) {
      if (first) {
        fprintf(stderr, "%s: bad argument: %s%s%s\n", prog, a,
                v != NULL ? " " : "", v != NULL ? v : "");
        usage(stderr, prog);
      }
      *exit_code = 2;
      return 1;
    }
  }
  return 0;
}

double wall_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
