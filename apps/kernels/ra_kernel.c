#include "ra_kernel.h"

#include "cmdline.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

uint64_t ra_starts(int64_t n)
{
  while (n < 0) {
    n += RA_PERIOD;
  }
  while (n > RA_PERIOD) {
    n -= RA_PERIOD;
  }
  if (n == 0) {
    return 1;
  }
  /* pow2[i] = x^(2i): multiplying by x^(2i) is XORing these for the set
   * bits of the multiplicand, which lets us square the running value. */
  uint64_t pow2[64], t = 1;
  for (int i = 0; i < 64; ++i) {
    pow2[i] = t;
    t = ra_next(ra_next(t));
  }
  int bit = 62;
  while (bit >= 0 && !((n >> bit) & 1)) {
    --bit;
  }
  /* Left-to-right binary exponentiation of x: square, then times x. */
  uint64_t ran = 2;
  while (bit > 0) {
    uint64_t sq = 0;
    for (int j = 0; j < 64; ++j) {
      if ((ran >> j) & 1) {
        sq ^= pow2[j];
      }
    }
    ran = sq;
    --bit;
    if ((n >> bit) & 1) {
      ran = ra_next(ran);
    }
  }
  return ran;
}

static void ra_usage(FILE *to, const char *prog)
{
  fprintf(to,
          "usage: %s [-k LOG2_WORDS] [-u FACTOR] [-e PER_MILLE]\n"
          "  -k  table words per unit = 2^k, 1..30 (default 20)\n"
          "  -u  updates = u x total table words, 1..1024 (default 4)\n"
          "  -e  wrong words allowed after the replay, per mille of the "
          "table, 0..1000 (default 10, HPCC's 1%%)\n",
          prog);
}

int ra_parse_args(int argc, char **argv, const char *prog,
                  struct ra_params *p, int *exit_code)
{
  long k = 20, u = 4, e = 10;
  const struct opt opts[] = {
    { "-k", OPT_LONG, 1, 30, &k },
    { "-u", OPT_LONG, 1, 1024, &u },
    { "-e", OPT_LONG, 0, 1000, &e },
  };
  if (parse_options(argc, argv, prog, opts, 3, ra_usage, exit_code)) {
    return 1;
  }
  p->log2_local = (int)k;
  p->factor = u;
  p->max_error_pm = (int)e;
  return 0;
}

/* Unit me's share of the stream, each value sent to the word it names.
 * Any unit count works: the table has units x 2^k words and the index is
 * the value modulo that (a mask when units is a power of two, as in HPCC). */
static void ra_updates(const struct ra_params *p, const struct ra_model *m,
                       uint64_t units, uint64_t me)
{
  const uint64_t local = UINT64_C(1) << p->log2_local;
  const uint64_t total = local * units;
  const uint64_t mine = (uint64_t)p->factor * local;
  /* HPCC lets an implementation keep up to 1024 updates in flight. */
  enum { IN_FLIGHT = 1024 };
  uint64_t values[IN_FLIGHT]; /* origin buffers until complete() */
  uint64_t ran = ra_starts((int64_t)(mine * me));
  for (uint64_t i = 0; i < mine; ++i) {
    ran = ra_next(ran);
    uint64_t index = ran % total;
    uint64_t *v = &values[i % IN_FLIGHT];
    *v = ran;
    m->update(m->ctx, index >> p->log2_local, index & (local - 1), v);
    if ((i + 1) % IN_FLIGHT == 0) {
      m->complete(m->ctx);
    }
  }
  m->complete(m->ctx);
}

static void replay_locally(const struct ra_params *p, uint64_t units,
                           uint64_t me, uint64_t *local)
{
  const uint64_t words = UINT64_C(1) << p->log2_local;
  const uint64_t total = words * units;
  const uint64_t per_unit = (uint64_t)p->factor * words;
  for (uint64_t u = 0; u < units; ++u) {
    uint64_t ran = ra_starts((int64_t)(per_unit * u));
    for (uint64_t i = 0; i < per_unit; ++i) {
      ran = ra_next(ran);
      uint64_t index = ran % total;
      if (index >> p->log2_local == me) {
        local[index & (words - 1)] ^= ran;
      }
    }
  }
}

int ra_run(const struct ra_params *p, const struct ra_model *m,
           uint64_t units, uint64_t me, uint64_t *local)
{
  const uint64_t words = UINT64_C(1) << p->log2_local;
  for (uint64_t i = 0; i < words; ++i) {
    local[i] = me * words + i;
  }
  m->barrier(m->ctx);
  double t0 = wall_seconds();
  ra_updates(p, m, units, me);
  m->barrier(m->ctx);
  double seconds = wall_seconds() - t0;

  /* XOR is its own inverse: replaying every unit's stream locally (only
   * the updates that land here, without communication, as HPCC verifies)
   * restores this part exactly unless updates were lost, raced or went
   * to the wrong word. */
  replay_locally(p, units, me, local);
  uint64_t wrong = 0;
  for (uint64_t i = 0; i < words; ++i) {
    wrong += local[i] != me * words + i;
  }
  wrong = m->sum(m->ctx, wrong);

  const uint64_t total = words * units;
  const uint64_t updates = (uint64_t)p->factor * total;
  const int pass = wrong * 1000 <= (uint64_t)p->max_error_pm * total;
  if (me == 0) {
    double gups = seconds > 0 ? (double)updates / seconds * 1e-9 : 0.0;
    printf("RandomAccess (%s): %" PRIu64 " units, table 2^%d words per unit "
           "(%" PRIu64 " words), %" PRIu64 " updates\n",
           m->name, units, p->log2_local, total, updates);
    printf("  time %.6f s, %.6f GUP/s, %" PRIu64 " wrong words after the "
           "replay (allowed %d per mille): %s\n",
           seconds, gups, wrong, p->max_error_pm, pass ? "PASSED" : "FAILED");
    printf("RESULT kernel=random-access model=%s units=%" PRIu64
           " log2_local=%d updates=%" PRIu64 " seconds=%.6f gups=%.6f"
           " errors=%" PRIu64 " verify=%s\n",
           m->name, units, p->log2_local, updates, seconds, gups, wrong,
           pass ? "pass" : "fail");
    fflush(stdout);
  }
  return pass ? 0 : 1;
}
