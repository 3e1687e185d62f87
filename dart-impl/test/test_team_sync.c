/* White-box: the shared-memory barrier and reductions of single-node
 * teams (team_sync). Checks that exactly the teams on one node with more
 * than one unit get the shared block (unless DART_SHM_SYNC is off), then
 * on DART_TEAM_ALL, the usual sub-team and the team of unit 0's node:
 *  - barrier: round after round, plain stores and dart_put_blocking
 *    before the barrier are seen by every unit after it (a barrier that
 *    lets a unit through early fails this);
 *  - reductions of every basic type with every valid op and MINMAX, at,
 *    below and above the shared-memory payload limit, against values
 *    computed here;
 *  - floating-point results bitwise equal on every unit;
 *  - back-to-back reductions (all, rooted, in place) without barriers,
 *    which would read overwritten slots without the double buffering;
 *  - members that disagree on the call: all refuse, the team works on
 *    (teams through MPI under DART_CHECK_REDUCTIONS=on). */
#include "test_nodes.h"
#include "test.h"
#include "test_values.h"
#include "mpi/core/runtime.h"
#include "mpi/model/team.h"
#include "mpi/collective/team_sync.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct ctx {
  dart_team_t team;
  int         me, n;
  bool        shm;    /* the team synchronises in shared memory */
  const char *label;
};

static struct ctx ctx_of(dart_team_t team, const char *label)
{
  struct ctx c = { team, 0, 0, false, label };
  test_team_position(team, &c.me, &c.n);
  c.shm = team_lookup(team)->sync != NULL;
  return c;
}

/* The shared block exists exactly where the brief of team_sync says. */
static void check_placement(const struct ctx *c, const long long *keys)
{
  const struct team *t = team_lookup(c->team);
  bool one_node = true;
  for (int u = 0; u < t->size; ++u) {
    one_node = one_node && keys[t->global_of[u]] == keys[t->global_of[0]];
  }
  const char *sync = getenv("DART_SHM_SYNC");
  bool enabled = sync == NULL || strcmp(sync, "off") != 0;
  STAGE("%s: placement", c->label);
  ASSERT_EQ(c->shm, enabled && one_node && c->n > 1);
}

/* ---------------------------------------------------------------------
 * Barrier.
 * --------------------------------------------------------------------- */

/* Round r writes slot [r % 2][writer] of a 2 x n array of longs held by
 * every unit; a unit can run at most one round ahead, into the other
 * parity, so a slot that does not hold r after the barrier means the
 * barrier let someone through before the writer arrived. */
static void check_barrier(const struct ctx *c)
{
  int rounds = c->shm ? 2000 : 100;
  size_t slots = 2 * (size_t)c->n;
  dart_gptr_t g;
  STAGE("%s: barrier allocation", c->label);
  ASSERT_OK(dart_team_memalloc_aligned(c->team, slots, DART_TYPE_LONG, &g));
  long *mine = NULL;
  ASSERT_OK(dart_gptr_getaddr(gptr_at(g, c->me, 0), (void **)&mine));
  for (size_t i = 0; i < slots; ++i) {
    mine[i] = -1;
  }
  ASSERT_OK(dart_barrier(c->team));
  int next = (c->me + 1) % c->n, prev = (c->me + c->n - 1) % c->n;
  for (long r = 0; r < rounds; ++r) {
    STAGE("%s: barrier round %ld, plain stores", c->label, r);
    size_t row = (size_t)(r % 2) * (size_t)c->n;
    mine[row + (size_t)c->me] = r;
    ASSERT_OK(dart_barrier(c->team));
    for (int u = 0; u < c->n; ++u) {
      long seen = -2;
      ASSERT_OK(dart_get_blocking(&seen,
                                  gptr_at(g, u,
                                          (row + (size_t)u) * sizeof(long)),
                                  1, DART_TYPE_LONG, DART_TYPE_LONG));
      if (seen != r) {
        FAILF("unit %d's slot holds %ld", u, seen);
      }
    }
    /* The other parity: each unit puts into its successor's memory. */
    STAGE("%s: barrier round %ld, puts", c->label, r);
    size_t other = (size_t)((r + 1) % 2) * (size_t)c->n;
    ASSERT_OK(dart_put_blocking(gptr_at(g, next,
                                        (other + (size_t)c->me) * sizeof(long)),
                                &r, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    ASSERT_OK(dart_barrier(c->team));
    if (mine[other + (size_t)prev] != r) {
      FAILF("the put of unit %d holds %ld", prev,
            mine[other + (size_t)prev]);
    }
  }
  ASSERT_OK(dart_team_memfree(g));
}

/* ---------------------------------------------------------------------
 * Reductions.
 * --------------------------------------------------------------------- */

#define NOPS 11
static const dart_operation_t ops[NOPS] = {
  DART_OP_SUM,  DART_OP_MIN, DART_OP_MAX,  DART_OP_PROD,
  DART_OP_BAND, DART_OP_BOR, DART_OP_BXOR, DART_OP_LAND,
  DART_OP_LOR,  DART_OP_LXOR, DART_OP_MINMAX
};

static bool is_unsigned(dart_datatype_t t)
{
  return t == DART_TYPE_UINT || t == DART_TYPE_ULONG ||
         t == DART_TYPE_ULONGLONG;
}

static bool is_float(dart_datatype_t t)
{
  return t >= DART_TYPE_FLOAT;
}

/* Which predefined ops reduce which basic types (dart_operation_t in
 * dart-if/include/dash/dart/if/dart_types.h). */
static bool valid(dart_operation_t op, dart_datatype_t t)
{
  switch (op) {
  case DART_OP_MINMAX:
    return true;
  case DART_OP_SUM: case DART_OP_PROD: case DART_OP_MIN: case DART_OP_MAX:
    return t != DART_TYPE_BYTE;
  case DART_OP_BAND: case DART_OP_BOR: case DART_OP_BXOR:
    return !is_float(t);
  default:
    return t != DART_TYPE_BYTE && !is_float(t);
  }
}

/* Unit u's element i in round r: small, exact in t, never overflowing
 * the op; unsigned MIN/MAX values use the top bit (MPI libraries have
 * compared those as signed); logical ops see zeros. */
static long double value(dart_datatype_t t, dart_operation_t op, int u,
                         size_t i, int r)
{
  long long base = (u * 7 + (long long)i * 3 + r) % 4;
  switch (op) {
  case DART_OP_SUM:
    return is_float(t) ? (long double)base + 0.5L
                       : (long double)(is_unsigned(t) ? base : base - 1);
  case DART_OP_PROD:
    return (long double)(base + 1);
  case DART_OP_MIN: case DART_OP_MAX: case DART_OP_MINMAX:
    if (is_unsigned(t)) {
      return (long double)((unsigned long long)base
                           << (8 * basic_size(t) - 2));
    }
    return (long double)(t == DART_TYPE_BYTE ? base : base - 2);
  case DART_OP_BAND: case DART_OP_BOR: case DART_OP_BXOR:
    return (long double)(base | (base << 4) | (u == 0 ? 0x40 : 0));
  default:
    return (long double)base;
  }
}

static long double combine(dart_operation_t op, size_t i, long double a,
                           long double b)
{
  unsigned long long x = (unsigned long long)a, y = (unsigned long long)b;
  if (op == DART_OP_MINMAX) {
    op = i % 2 == 0 ? DART_OP_MIN : DART_OP_MAX;
  }
  switch (op) {
  case DART_OP_SUM:  return a + b;
  case DART_OP_PROD: return a * b;
  case DART_OP_MIN:  return b < a ? b : a;
  case DART_OP_MAX:  return b > a ? b : a;
  case DART_OP_BAND: return (long double)(x & y);
  case DART_OP_BOR:  return (long double)(x | y);
  case DART_OP_BXOR: return (long double)(x ^ y);
  case DART_OP_LAND: return (a != 0) && (b != 0);
  case DART_OP_LOR:  return (a != 0) || (b != 0);
  default:           return (a != 0) != (b != 0);
  }
}

static long double expected(const struct ctx *c, dart_datatype_t t,
                            dart_operation_t op, size_t i, int r)
{
  long double acc = value(t, op, 0, i, r);
  for (int u = 1; u < c->n; ++u) {
    acc = combine(op, i, acc, value(t, op, u, i, r));
  }
  return acc;
}

/* One reduction of nelem elements; root < 0: dart_allreduce. */
static void check_reduction(const struct ctx *c, dart_datatype_t t,
                            dart_operation_t op, size_t nelem, int r,
                            int root, bool in_place)
{
  size_t size = basic_size(t);
  char *send = malloc(nelem * size + 1);
  char *recv = in_place ? send : malloc(nelem * size + 1);
  ASSERT(send != NULL && recv != NULL);
  for (size_t i = 0; i < nelem; ++i) {
    put_val(t, send, i, value(t, op, c->me, i, r));
  }
  if (root < 0) {
    ASSERT_OK(dart_allreduce(send, recv, nelem, t, op, c->team));
  } else {
    ASSERT_OK(dart_reduce(send, recv, nelem, t, op, DART_TEAM_UNIT_ID(root),
                          c->team));
  }
  for (size_t i = 0; (root < 0 || root == c->me) && i < nelem; ++i) {
    long double want = expected(c, t, op, i, r);
    long double got = get_val(t, recv, i);
    if (got != want) {
      FAILF("element %zu is %Lg, expected %Lg", i, got, want);
    }
  }
  if (!in_place) {
    free(recv);
  }
  free(send);
}

/* Every (type, op) pair at 2 elements and at the shared-memory limit;
 * SUM and MINMAX just above it (MPI's path). */
static void check_all_pairs(const struct ctx *c)
{
  for (int k = 0; k < TEST_NBASIC; ++k) {
    dart_datatype_t t = test_basic_types[k];
    size_t at_limit = TEAM_SYNC_MAX_BYTES / basic_size(t);
    size_t counts[3] = { 2, at_limit, at_limit + 2 };
    for (int o = 0; o < NOPS; ++o) {
      if (!valid(ops[o], t)) {
        continue;
      }
      bool above = ops[o] == DART_OP_SUM || ops[o] == DART_OP_MINMAX;
      for (int s = 0; s < (above ? 3 : 2); ++s) {
        STAGE("%s: %s op %d, %zu elements", c->label, basic_name(t), o,
              counts[s]);
        check_reduction(c, t, ops[o], counts[s], k + o, -1, false);
      }
    }
  }
}

/* Round after round with nothing in between, so a unit that finished
 * reading may write its next contribution while others still read. */
static void check_back_to_back(const struct ctx *c)
{
  int rounds = c->shm ? 600 : 60;
  for (int r = 0; r < rounds; ++r) {
    STAGE("%s: back-to-back round %d", c->label, r);
    dart_datatype_t t = r % 2 ? DART_TYPE_LONG : DART_TYPE_DOUBLE;
    dart_operation_t op = r % 5 == 0 ? DART_OP_MAX : DART_OP_SUM;
    int root = r % 3 == 1 ? r % c->n : -1;
    check_reduction(c, t, op, 1 + (size_t)(r % 4), r, root, r % 4 == 3);
  }
}

/* Sums of inexact doubles: every unit must get the same bits. */
static void check_same_bits(const struct ctx *c)
{
  enum { N = 16 };
  double send[N], recv[N];
  for (int i = 0; i < N; ++i) {
    send[i] = 0.1 * (c->me + 1) + 1.0 / (3.0 + i);
  }
  STAGE("%s: same bits everywhere", c->label);
  ASSERT_OK(dart_allreduce(send, recv, N, DART_TYPE_DOUBLE, DART_OP_SUM,
                           c->team));
  double *all = malloc((size_t)c->n * sizeof recv);
  ASSERT(all != NULL);
  MPI_Allgather(recv, N, MPI_DOUBLE, all, N, MPI_DOUBLE,
                team_lookup(c->team)->comm);
  for (int u = 0; u < c->n; ++u) {
    if (memcmp(all + (size_t)u * N, recv, sizeof recv) != 0) {
      FAILF("unit %d's sum differs in its bits", u);
    }
  }
  free(all);
}

/* Members that disagree on count, type, op, root or the call itself:
 * every one refuses without writing its recvbuf, and the next reductions,
 * below and above the shared-memory limit, are exact. Kinds 5 and 6 put
 * the last unit's count above the limit (MPI's path) and the others'
 * below, or all above with different roots; both hung before the members
 * agreed on the path. Kinds 7 and 8 differ above the limit in count or
 * type: single-node teams compare those in their episode too. Teams that
 * reduce through MPI (across nodes, DART_SHM_SYNC=off) compare only under
 * DART_CHECK_REDUCTIONS=on; without it Open MPI aborted on kind 0 and
 * MPICH returned garbage. The team's last unit is the one that differs,
 * so it needs two units at least. */
static void check_mismatch(const struct ctx *c)
{
  if (c->n < 2 || (!c->shm && !runtime.env.check_reductions)) {
    return;
  }
  enum { N = TEAM_SYNC_MAX_BYTES / sizeof(long) + 8 };
  bool odd = c->me == c->n - 1;
  for (int kind = 0; kind < 9; ++kind) {
    STAGE("%s: mismatch %d", c->label, kind);
    long send[N], recv[N];
    for (int i = 0; i < N; ++i) {
      send[i] = c->me + i;
    }
    memset(recv, POISON, sizeof recv);
    size_t nelem = 2;
    dart_datatype_t t = DART_TYPE_LONG;
    dart_operation_t op = DART_OP_SUM;
    int root = -1;
    switch (kind) {
    case 0: nelem = odd ? 3 : 2; break;
    case 1: t = odd ? DART_TYPE_DOUBLE : DART_TYPE_LONG; break; /* 8 B */
    case 2: op = odd ? DART_OP_MAX : DART_OP_SUM; break;
    case 3: root = odd ? 1 : 0; break;
    case 4: root = odd ? 0 : -1; break; /* dart_reduce, dart_allreduce */
    case 5: nelem = odd ? N : 2; break;
    case 6: nelem = N; root = odd ? 1 : 0; break;
    case 7: nelem = odd ? N : N - 1; break;
    default: nelem = N; t = odd ? DART_TYPE_DOUBLE : DART_TYPE_LONG;
    }
    dart_ret_t ret = root < 0
      ? dart_allreduce(send, recv, nelem, t, op, c->team)
      : dart_reduce(send, recv, nelem, t, op, DART_TEAM_UNIT_ID(root),
                    c->team);
    ASSERT_RET(ret, DART_ERR_INVAL);
    ASSERT_POISON(recv, 0, sizeof recv);
    check_reduction(c, DART_TYPE_LONG, DART_OP_SUM, 1 + (size_t)kind, kind,
                    -1, false);
    check_reduction(c, DART_TYPE_LONG, DART_OP_SUM, N, kind, -1, false);
  }
}

static void check_team(dart_team_t team, const char *label,
                       const long long *keys)
{
  struct ctx c = ctx_of(team, label);
  check_placement(&c, keys);
  check_barrier(&c);
  check_all_pairs(&c);
  check_back_to_back(&c);
  check_same_bits(&c);
  check_mismatch(&c);
}

/* Collective: the team of the units on unit 0's node. */
static dart_team_t node0_team_create(int n, const long long *keys)
{
  dart_group_t group = DART_GROUP_NULL;
  ASSERT_OK(dart_group_create(&group));
  for (int u = 0; u < n; ++u) {
    if (keys[u] == keys[0]) {
      ASSERT_OK(dart_group_addmember(group, DART_GLOBAL_UNIT_ID(u)));
    }
  }
  dart_team_t team = DART_TEAM_NULL;
  ASSERT_OK(dart_team_create(DART_TEAM_ALL, group, &team));
  ASSERT_OK(dart_group_destroy(&group));
  return team;
}

static void team_all(void)
{
  long long *keys = test_node_keys(test_units);
  check_team(DART_TEAM_ALL, "all", keys);
  free(keys);
}

static void sub_team(void)
{
  long long *keys = test_node_keys(test_units);
  dart_team_t sub = test_subteam_create(test_units);
  if (sub != DART_TEAM_NULL) {
    check_team(sub, "sub-team", keys);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  if (sub != DART_TEAM_NULL) {
    ASSERT_OK(dart_team_destroy(&sub));
  }
  free(keys);
}

static void node0_team(void)
{
  long long *keys = test_node_keys(test_units);
  dart_team_t node0 = node0_team_create(test_units, keys);
  if (node0 != DART_TEAM_NULL) {
    check_team(node0, "node-0 team", keys);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  if (node0 != DART_TEAM_NULL) {
    ASSERT_OK(dart_team_destroy(&node0));
  }
  free(keys);
}

static const struct test_case cases[] = {
  { "team_all", team_all },
  { "sub_team", sub_team },
  { "node0_team", node0_team },
};

int main(int argc, char **argv)
{
  return test_run_dart(argc, argv, TEST_CASES(cases));
}
