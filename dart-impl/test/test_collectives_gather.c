/* The collectives that place one block per unit by root or by
 * displacement (dart-if/include/dash/dart/if/dart_communication.h):
 * scatter and gather from every root, with NULL or ignored buffers off
 * the root, and allgatherv with empty contributions, gaps between the
 * blocks and counts above DART_MPI_COUNT_LIMIT, every buffer mode, basic
 * types and a custom type. The barrier, bcast, allgather, alltoall and the
 * argument errors are test_collectives_move.c's. Shared part:
 * test_collectives_common.h. */
#include "test_collectives_common.h"

/* Combinations of root, type, count and buffer mode rotate, so that each
 * value of each occurs without running the whole cross product (every
 * collective costs milliseconds when MPICH runs more units than cores). */

static void one_scatter(const struct team_ctx *c, dart_datatype_t t,
                        size_t nelem, int root)
{
  size_t bytes = nelem * tsize(t);
  STAGE("%s: scatter root %d type %s nelem %zu", c->label, root, tname(t),
        nelem);
  unsigned char *send = NULL;
  if (c->me == root) {
    send = xmalloc((size_t)c->n * bytes);
    for (int j = 0; j < c->n; ++j) {
      fill_block(t, send, (size_t)j * nelem, nelem, key(root, j));
    }
  }
  unsigned char *recv = xmalloc(bytes);
  memset(recv, POISON, bytes);
  /* sendbuf is ignored on non-roots: they pass NULL. */
  ASSERT_OK(dart_scatter(send, recv, nelem, t, DART_TEAM_UNIT_ID(root),
                         c->team));
  check_block(t, recv, 0, nelem, key(root, c->me));
  for (int j = 0; send != NULL && j < c->n; ++j) {
    check_block(t, send, (size_t)j * nelem, nelem, key(root, j));
  }
  free(send);
  free(recv);
}

static void one_gather(const struct team_ctx *c, dart_datatype_t t,
                       size_t nelem, int root, bool null_off_root)
{
  size_t bytes = nelem * tsize(t), total = (size_t)c->n * bytes;
  STAGE("%s: gather root %d type %s nelem %zu", c->label, root, tname(t),
        nelem);
  unsigned char *send = xmalloc(bytes);
  fill_block(t, send, 0, nelem, key(root, c->me));
  /* recvbuf is ignored on non-roots: NULL, or a buffer that must stay
   * untouched. */
  unsigned char *recv = NULL;
  if (c->me == root || !null_off_root) {
    recv = xmalloc(total);
    memset(recv, POISON, total);
  }
  ASSERT_OK(dart_gather(send, recv, nelem, t, DART_TEAM_UNIT_ID(root),
                        c->team));
  if (c->me == root) {
    for (int j = 0; j < c->n; ++j) {
      check_block(t, recv, (size_t)j * nelem, nelem, key(root, j));
    }
  } else if (recv != NULL) {
    ASSERT_POISON(recv, 0, total);
  }
  check_block(t, send, 0, nelem, key(root, c->me));
  free(send);
  free(recv);
}

static void test_scatter_gather(const struct team_ctx *c)
{
  static const size_t nelems[] = { 1, 9, 37 };
  dart_datatype_t types[8];
  int ntypes = (int)movement_types(types);
  /* Every type and every root (at least twice), counts rotating. */
  int rounds = 2 * c->n > ntypes ? 2 * c->n : ntypes;
  for (int k = 0; k < rounds; ++k) {
    int root = k % c->n;
    one_scatter(c, types[k % ntypes], nelems[k % 3], root);
    one_gather(c, types[(k + 3) % ntypes], nelems[(k + 1) % 3], root,
               (k / c->n) % 2 == 0);
  }
  one_scatter(c, DART_TYPE_INT, 1000, c->n - 1);
  one_gather(c, DART_TYPE_INT, 1000, c->n - 1, false);
}

static void test_allgatherv(const struct team_ctx *c)
{
  const dart_datatype_t types[] = { DART_TYPE_INT, DART_TYPE_BYTE,
                                    DART_TYPE_DOUBLE, DART_TYPE_LONG_DOUBLE,
                                    triple_type };
  const int ntypes = (int)(sizeof types / sizeof types[0]);
  size_t n = (size_t)c->n;
  size_t *cnt = xmalloc(n * sizeof(size_t));
  size_t *displ = xmalloc(n * sizeof(size_t));
  for (int variant = 0; variant < 2; ++variant) {
    /* Unit 1 (mod 3) contributes nothing; the others 1..5 elements
     * (variant 0) or more than the count limit (variant 1). Blocks lie
     * in reverse unit order with gaps of 3 elements before, between and
     * after them. */
    for (size_t u = 0; u < n; ++u) {
      cnt[u] = u % 3 == 1 ? 0 : variant == 0 ? 1 + u % 5 : 8 + 3 * u;
    }
    size_t total = 2;
    for (size_t u = n; u-- > 0;) {
      displ[u] = total;
      total += cnt[u] + 3;
    }
    bool *covered = xmalloc(total * sizeof(bool));
    memset(covered, 0, total * sizeof(bool));
    for (size_t u = 0; u < n; ++u) {
      for (size_t i = 0; i < cnt[u]; ++i) {
        covered[displ[u] + i] = true;
      }
    }
    size_t mine = cnt[c->me];
    for (int ti = 0; ti < ntypes; ++ti) {
      dart_datatype_t t = types[ti];
      size_t es = tsize(t);
      int mode = (variant * ntypes + ti) % 3;
      STAGE("%s: allgatherv variant %d type %s, %s", c->label, variant,
            tname(t), mode_name[mode]);
      int kv = variant * 3 + mode;
      unsigned char *recv = xmalloc(total * es);
      memset(recv, POISON, total * es);
      unsigned char *send = NULL;
      if (mode == MODE_SEPARATE) {
        send = xmalloc(mine * es);
        fill_block(t, send, 0, mine, key(c->me, kv));
      } else {
        fill_block(t, recv, displ[c->me], mine, key(c->me, kv));
      }
      ASSERT_OK(dart_allgatherv(mode_sendbuf(mode, send, recv), mine, t, recv,
                                cnt, displ, c->team));
      for (size_t u = 0; u < n; ++u) {
        check_block(t, recv, displ[u], cnt[u], key((int)u, kv));
      }
      for (size_t e = 0; e < total; ++e) {
        if (!covered[e]) {
          ASSERT_POISON(recv, e * es, es);
        }
      }
      free(send);
      free(recv);
    }
    free(covered);
  }
  free(cnt);
  free(displ);
}

static void scatter_gather(void) { on_both_teams(test_scatter_gather); }
static void allgatherv(void) { on_both_teams(test_allgatherv); }

static const struct test_case cases[] = {
  { "scatter_gather", scatter_gather },
  { "allgatherv", allgatherv },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
