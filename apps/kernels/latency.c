#include "latency.h"

#include "cmdline.h"

#include <string.h>

static void lat_usage(FILE *to, const char *prog)
{
  fprintf(to,
          "usage: %s [--reps R] [--iters K] [--max-bytes B] [--distance] "
          "[--csv FILE]\n"
          "  --reps R       rounds per measurement, median reported, "
          "1..1001 (default 21)\n"
          "  --iters K      operations per round up to 16 KiB (default 1000)\n"
          "  --max-bytes B  largest message, 8..1 GiB (default 4 MiB; "
          "1 MiB with --distance)\n"
          "  --distance     unit 0 to every other unit at 8 B and B bytes\n"
          "  --csv FILE     also write the results as CSV\n",
          prog);
}

int lat_parse_args(int argc, char **argv, const char *prog,
                   struct lat_params *p, int *exit_code)
{
  long reps = 21, iters = 1000, max_bytes = -1;
  p->distance = 0;
  p->csv = NULL;
  const struct opt opts[] = {
    { "--reps", OPT_LONG, 1, 1001, &reps },
    { "--iters", OPT_LONG, 1, 100000000, &iters },
    { "--max-bytes", OPT_LONG, 8, 1L << 30, &max_bytes },
    { "--distance", OPT_FLAG, 0, 0, &p->distance },
    { "--csv", OPT_TEXT, 0, 0, &p->csv },
  };
  if (parse_options(argc, argv, prog, opts, 5, lat_usage, exit_code)) {
    return 1;
  }
  p->reps = (int)reps;
  p->iters = (int)iters;
  p->max_bytes = max_bytes > 0 ? max_bytes
                               : (p->distance ? 1 << 20 : 4 << 20);
  return 0;
}

int lat_sizes(const struct lat_params *p, long long out[16])
{
  /* Every eighth power of two: a distance table stays short. */
  static const long long sizes[] = { 8,      64,      512,     4096,
                                     32768,  262144,  1048576, 4194304 };
  int n = 0;
  if (p->distance) {
    out[n++] = 8;
    if (p->max_bytes > 8) {
      out[n++] = p->max_bytes;
    }
    return n;
  }
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    if (sizes[i] <= p->max_bytes) {
      out[n++] = sizes[i];
    }
  }
  return n;
}

FILE *lat_csv_open(const struct lat_params *p, const char *prog)
{
  if (p->csv == NULL) {
    return NULL;
  }
  FILE *f = fopen(p->csv, "w");
  if (f == NULL) {
    fprintf(stderr, "%s: cannot write %s\n", prog, p->csv);
    return NULL;
  }
  fprintf(f, "model,operation,bytes,target,same_node,ns\n");
  return f;
}

void lat_report(FILE *csv, const char *model, const char *operation,
                long long bytes, int target, int same_node, double ns)
{
  printf("| %s | %s | %lld | %d | %s | %.1f |\n", model, operation, bytes,
         target, same_node ? "yes" : "no", ns);
  fflush(stdout);
  if (csv != NULL) {
    fprintf(csv, "%s,%s,%lld,%d,%d,%.3f\n", model, operation, bytes, target,
            same_node, ns);
    fflush(csv);
  }
}
