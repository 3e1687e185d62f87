/* team-demo: a first DART program. Every unit integrates a slice of
 * 4/(1+x^2) over [0,1] (which sums to pi), the halves of the job form
 * their own teams and reduce there, and a token travels around a ring of
 * two-sided messages. Usage: team-demo [intervals] */
#include <dash/dart/if/dart.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                        \
  do {                                                                     \
    dart_ret_t ret_ = (call);                                              \
    if (ret_ != DART_OK) {                                                 \
      fprintf(stderr, "team-demo: %s failed with %d\n", #call, (int)ret_); \
      dart_abort(DART_EXIT_ABORT);                                         \
    }                                                                      \
  } while (0)

int main(int argc, char **argv)
{
  long intervals = 1000000;
  if (argc > 1) {
    char *end = NULL;
    intervals = strtol(argv[1], &end, 10);
    if (*end != '\0' || intervals <= 0) {
      fprintf(stderr, "usage: team-demo [intervals > 0]\n");
      return 2;
    }
  }
  CHECK(dart_init(&argc, &argv));
  dart_global_unit_t me;
  size_t units;
  CHECK(dart_myid(&me));
  CHECK(dart_size(&units));

  /* My slice of the midpoint rule. */
  double h = 1.0 / (double)intervals, part = 0.0;
  for (long i = me.id; i < intervals; i += (long)units) {
    double x = h * ((double)i + 0.5);
    part += 4.0 / (1.0 + x * x);
  }
  part *= h;
  double pi = 0.0;
  CHECK(dart_allreduce(&part, &pi, 1, DART_TYPE_DOUBLE, DART_OP_SUM,
                       DART_TEAM_ALL));

  /* Two teams: the lower and the upper half of the units. */
  dart_group_t all, halves[2];
  size_t nout;
  CHECK(dart_team_get_group(DART_TEAM_ALL, &all));
  CHECK(dart_group_split(all, 2, &nout, halves));
  dart_team_t my_half = DART_TEAM_NULL;
  for (int i = 0; i < 2; ++i) {
    dart_team_t team;
    CHECK(dart_team_create(DART_TEAM_ALL, halves[i], &team));
    if (team != DART_TEAM_NULL) {
      my_half = team;
    }
  }
  double half_sum = 0.0;
  dart_team_unit_t rank_in_half;
  size_t half_size;
  CHECK(dart_allreduce(&part, &half_sum, 1, DART_TYPE_DOUBLE, DART_OP_SUM,
                       my_half));
  CHECK(dart_team_myid(my_half, &rank_in_half));
  CHECK(dart_team_size(my_half, &half_size));

  /* A token around the ring: each unit adds its id. */
  long token = 0;
  int tag = 7;
  dart_global_unit_t next = { (me.id + 1) % (int)units };
  dart_global_unit_t prev = { (me.id + (int)units - 1) % (int)units };
  if (units == 1) {
    token = me.id;
  } else if (me.id == 0) {
    CHECK(dart_send(&token, 1, DART_TYPE_LONG, tag, next));
    CHECK(dart_recv(&token, 1, DART_TYPE_LONG, tag, prev));
  } else {
    CHECK(dart_recv(&token, 1, DART_TYPE_LONG, tag, prev));
    token += me.id;
    CHECK(dart_send(&token, 1, DART_TYPE_LONG, tag, next));
  }

  printf("unit %d: team %d, unit %d of %zu, my half's share of pi %.6f\n",
         (int)me.id, (int)my_half, (int)rank_in_half.id, half_size,
         half_sum);
  fflush(stdout);
  CHECK(dart_barrier(DART_TEAM_ALL));
  int ok = 1;
  if (me.id == 0) {
    long expected = (long)units * ((long)units - 1) / 2;
    double error = fabs(pi - 3.14159265358979323846);
    printf("%zu units: pi = %.12f (error %.1e with %ld intervals), ring "
           "token %ld (expected %ld)\n", units, pi, error, intervals, token,
           expected);
    ok = token == expected && error < 1e-6;
  }
  CHECK(dart_team_destroy(&my_half));
  for (int i = 0; i < 2; ++i) {
    CHECK(dart_group_destroy(&halves[i]));
  }
  CHECK(dart_group_destroy(&all));
  CHECK(dart_bcast(&ok, 1, DART_TYPE_INT, DART_TEAM_UNIT_ID(0),
                   DART_TEAM_ALL));
  CHECK(dart_exit());
  return ok ? 0 : 1;
}
