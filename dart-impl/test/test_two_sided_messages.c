/* Two-sided messages that must arrive
 * (dart-if/include/dash/dart/if/dart_communication.h): a ring with several
 * basic and custom types, tag selection and non-overtaking, matching by
 * sender, pairwise exchange with different send and receive types and
 * counts, messages above the count limit (DART_MPI_COUNT_LIMIT=5 runs),
 * and user tag 0 interleaved with collectives. Argument errors and
 * truncation are test_two_sided_errors.c's. Shared part, with the rules
 * for ordering blocking sends: test_two_sided_common.h. */
#include "test_two_sided_common.h"

/* ---------------------------------------------------------------------
 * Ring: unit i sends to i + 1 and receives from i - 1.
 * --------------------------------------------------------------------- */

struct message {
  dart_datatype_t type;
  size_t          nelem;
};

static size_t ring_messages(struct message *m)
{
  size_t k = 0;
  m[k++] = (struct message){ DART_TYPE_INT, 1000 };
  m[k++] = (struct message){ DART_TYPE_DOUBLE, 37 };
  m[k++] = (struct message){ DART_TYPE_BYTE, 10 };
  m[k++] = (struct message){ DART_TYPE_LONG_DOUBLE, 9 };
  m[k++] = (struct message){ triple_type, 11 };
  m[k++] = (struct message){ DART_TYPE_SHORT, 6 };
  m[k++] = (struct message){ DART_TYPE_ULONGLONG, 13 };
  m[k++] = (struct message){ DART_TYPE_INT, 1003 };
  m[k++] = (struct message){ odd_type, 1001 };
  m[k++] = (struct message){ DART_TYPE_FLOAT, 1 };
  return k;
}

static void test_ring(void)
{
  struct message msgs[16];
  size_t nmsgs = ring_messages(msgs);
  int next = (me + 1) % n, prev = (me + n - 1) % n;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t m = 0; m < nmsgs; ++m) {
      dart_datatype_t t = msgs[m].type;
      size_t nelem = msgs[m].nelem, es = tsize(t);
      int tag = 100 * (pass + 1) + (int)m;
      STAGE("ring %s: %zu x %s, tag %d",
            pass == 0 ? "send/recv" : "sendrecv", nelem, tname(t), tag);
      unsigned char *send = xmalloc(nelem * es);
      unsigned char *recv = xmalloc((nelem + 2) * es);
      fill_block(t, send, nelem, key(me, (int)m));
      memset(recv, POISON, (nelem + 2) * es);
      if (pass == 1 || n == 1) {
        /* Deadlock-free on its own, also to oneself. */
        ASSERT_OK(dart_sendrecv(send, nelem, t, tag, unit(next), recv, nelem, t,
                                tag, unit(prev)));
      } else if (me % 2 == 0) {
        ASSERT_OK(dart_send(send, nelem, t, tag, unit(next)));
        ASSERT_OK(dart_recv(recv, nelem, t, tag, unit(prev)));
      } else {
        ASSERT_OK(dart_recv(recv, nelem, t, tag, unit(prev)));
        ASSERT_OK(dart_send(send, nelem, t, tag, unit(next)));
      }
      check_block(t, recv, nelem, key(prev, (int)m));
      ASSERT_POISON(recv, nelem * es, 2 * es);
      check_block(t, send, nelem, key(me, (int)m));
      free(send);
      free(recv);
    }
  }
}

/* ---------------------------------------------------------------------
 * Tags and ordering.
 * --------------------------------------------------------------------- */

static void test_tags_and_order(void)
{
  /* With one unit, receiving out of sending order would need a buffered
   * send to oneself, which dart_send does not promise. */
  if (n == 1) {
    return;
  }
  int next = (me + 1) % n, prev = (me + n - 1) % n;

  /* Tag 1 then tag 2 sent; tag 2 received first. One element each. */
  STAGE("tag selection, unit %d to unit %d", prev, me);
  int a = 1000 * me + 1, b = 1000 * me + 2, ra = -1, rb = -1;
  ASSERT_OK(dart_send(&a, 1, DART_TYPE_INT, 1, unit(next)));
  ASSERT_OK(dart_send(&b, 1, DART_TYPE_INT, 2, unit(next)));
  ASSERT_OK(dart_recv(&rb, 1, DART_TYPE_INT, 2, unit(prev)));
  ASSERT_OK(dart_recv(&ra, 1, DART_TYPE_INT, 1, unit(prev)));
  ASSERT_EQ(rb, 1000 * prev + 2);
  ASSERT_EQ(ra, 1000 * prev + 1);

  /* Same tag: arrival in sending order. */
  STAGE("non-overtaking, single elements, unit %d to unit %d", prev, me);
  for (int k = 0; k < 6; ++k) {
    long long v = 100 * me + k;
    ASSERT_OK(dart_send(&v, 1, DART_TYPE_LONGLONG, 7, unit(next)));
  }
  for (int k = 0; k < 6; ++k) {
    long long v = -1;
    ASSERT_OK(dart_recv(&v, 1, DART_TYPE_LONGLONG, 7, unit(prev)));
    ASSERT_EQ(v, 100 * prev + k);
  }

  /* Same tag, messages of very different sizes (small ones eager, big
   * ones not), one direction at a time: each receive takes exactly the
   * size of the message it expects, so an overtaking one would be
   * truncated or carry the wrong data. */
  int p = partner();
  if (p == me) {
    return;
  }
  static const size_t sizes[] = { 1, 1000, 3, 37, 1003, 2 };
  for (int dir = 0; dir < 2; ++dir) {
    int sender = dir == 0 ? (me < p ? me : p) : (me < p ? p : me);
    STAGE("non-overtaking, mixed sizes, from unit %d", sender);
    for (int k = 0; k < 6; ++k) {
      size_t bytes = sizes[k] * sizeof(int);
      int *buf = xmalloc(bytes);
      if (me == sender) {
        fill_block(DART_TYPE_INT, buf, sizes[k], key(me, k));
        ASSERT_OK(dart_send(buf, sizes[k], DART_TYPE_INT, 8, unit(p)));
      } else {
        memset(buf, POISON, bytes);
        ASSERT_OK(dart_recv(buf, sizes[k], DART_TYPE_INT, 8, unit(p)));
        check_block(DART_TYPE_INT, buf, sizes[k], key(p, k));
      }
      free(buf);
    }
  }
}

/* Messages with the same tag from every other unit to unit 0, received
 * in descending sender order: matching is by sender. First without any
 * buffering (each sender only waits for its own receive). Then units
 * 1 .. n-2 send (tiny, eager) before a barrier and unit n-1 only a
 * while after it, while unit 0 asks for unit n-1's message first: the
 * others' are already there and must not be taken instead. (The pause
 * only makes a wrong match likely; it matters for nothing else.) */
static void test_source_matching(void)
{
  for (int round = 0; round < 2; ++round) {
    STAGE("matching by sender at unit 0, round %d", round);
    long long v = 7000 + 100 * round + me;
    int tag = 5 + round;
    bool early = round == 0 || me < n - 1;
    if (me != 0 && early) {
      ASSERT_OK(dart_send(&v, 1, DART_TYPE_LONGLONG, tag, unit(0)));
    }
    if (round == 1) {
      ASSERT_OK(dart_barrier(DART_TEAM_ALL));
      if (me != 0 && !early) {
        struct timespec pause = { 0, 100 * 1000 * 1000 };
        nanosleep(&pause, NULL);
        ASSERT_OK(dart_send(&v, 1, DART_TYPE_LONGLONG, tag, unit(0)));
      }
    }
    if (me == 0) {
      for (int u = n - 1; u >= 1; --u) {
        long long r = -1;
        ASSERT_OK(dart_recv(&r, 1, DART_TYPE_LONGLONG, tag, unit(u)));
        ASSERT_EQ(r, 7000 + 100 * round + u);
      }
    }
  }
}

/* ---------------------------------------------------------------------
 * dart_sendrecv: pairwise exchange with different types and counts.
 * --------------------------------------------------------------------- */

struct half {
  dart_datatype_t type;
  size_t          nelem; /* sent */
  size_t          room;  /* receive nelem offered (>= nelem) */
  int             tag;
};

/* Unit `me` sends `out` to `peer` and receives `in` from it. */
static void exchange(const struct half *out, const struct half *in, int peer,
                     int msg)
{
  size_t oes = tsize(out->type), ies = tsize(in->type);
  unsigned char *send = xmalloc(out->nelem * oes);
  unsigned char *recv = xmalloc((in->room + 1) * ies);
  fill_block(out->type, send, out->nelem, key(me, msg));
  memset(recv, POISON, (in->room + 1) * ies);
  ASSERT_OK(dart_sendrecv(send, out->nelem, out->type, out->tag, unit(peer),
                          recv,
                          in->room, in->type, in->tag, unit(peer)));
  check_block(in->type, recv, in->nelem, key(peer, msg));
  ASSERT_POISON(recv, in->nelem * ies,
                (in->room + 1 - in->nelem) * ies);
  check_block(out->type, send, out->nelem, key(me, msg));
  free(send);
  free(recv);
}

static void test_sendrecv_pairs(void)
{
  int p = partner();
  /* {lower unit's half, higher unit's half} */
  const struct half pairs[][2] = {
    { { DART_TYPE_INT, 37, 37, 21 }, { DART_TYPE_DOUBLE, 10, 10, 22 } },
    { { triple_type, 11, 11, 23 }, { DART_TYPE_LONG_DOUBLE, 1003, 1003, 24 } },
    { { DART_TYPE_SHORT, 6, 9, 25 }, { DART_TYPE_ULONG, 15, 20, 26 } },
    { { odd_type, 7, 40, 27 }, { DART_TYPE_BYTE, 1, 1, 32767 } },
  };
  for (int i = 0; i < 4; ++i) {
    if (p == me) {
      /* Both halves to oneself, one after the other. */
      for (int h = 0; h < 2; ++h) {
        STAGE("sendrecv with oneself: %zu x %s (room %zu)",
              pairs[i][h].nelem, tname(pairs[i][h].type), pairs[i][h].room);
        exchange(&pairs[i][h], &pairs[i][h], me, 4 * i + h);
      }
    } else {
      int mine = me < p ? 0 : 1;
      STAGE("sendrecv with unit %d: send %zu x %s, receive %zu x %s "
            "(room %zu)", p, pairs[i][mine].nelem,
            tname(pairs[i][mine].type), pairs[i][1 - mine].nelem,
            tname(pairs[i][1 - mine].type), pairs[i][1 - mine].room);
      exchange(&pairs[i][mine], &pairs[i][1 - mine], p, i);
    }
  }

  /* Zero-length messages, NULL buffers allowed. */
  STAGE("zero-length sendrecv with unit %d", p);
  ASSERT_OK(dart_sendrecv(NULL, 0, DART_TYPE_INT, 30, unit(p), NULL, 0,
                          DART_TYPE_INT, 30, unit(p)));
}

/* ---------------------------------------------------------------------
 * User tag 0 around collectives.
 * --------------------------------------------------------------------- */

static void test_tag0_and_collectives(void)
{
  int next = (me + 1) % n, prev = (me + n - 1) % n;
  STAGE("tag 0 messages pending across collectives");
  int out[3] = { me, 10 * me + 1, 77 }, in[3] = { -1, -1, -1 };
  /* A tiny message to another unit goes out eagerly; to oneself, the
   * exchange happens before and after the collectives. */
  if (n > 1) {
    ASSERT_OK(dart_send(out, 3, DART_TYPE_INT, 0, unit(next)));
  } else {
    ASSERT_OK(dart_sendrecv(out, 3, DART_TYPE_INT, 0, unit(me), in, 3,
                            DART_TYPE_INT, 0, unit(me)));
    ASSERT_EQ(in[1], 1);
  }

  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  int mine = me + 1, sum = -1;
  ASSERT_OK(dart_allreduce(&mine, &sum, 1, DART_TYPE_INT, DART_OP_SUM,
                           DART_TEAM_ALL));
  ASSERT_EQ(sum, n * (n + 1) / 2);
  long long bc = me == n - 1 ? 4242 : 0;
  ASSERT_OK(dart_bcast(&bc, 1, DART_TYPE_LONGLONG, DART_TEAM_UNIT_ID(n - 1),
                       DART_TEAM_ALL));
  ASSERT_EQ(bc, 4242);
  int *all = xmalloc((size_t)n * sizeof(int));
  ASSERT_OK(dart_allgather(&mine, all, 1, DART_TYPE_INT, DART_TEAM_ALL));
  for (int u = 0; u < n; ++u) {
    ASSERT_EQ(all[u], u + 1);
  }
  free(all);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));

  memset(in, POISON, sizeof in);
  if (n > 1) {
    ASSERT_OK(dart_recv(in, 3, DART_TYPE_INT, 0, unit(prev)));
  } else {
    ASSERT_OK(dart_sendrecv(out, 3, DART_TYPE_INT, 0, unit(me), in, 3,
                            DART_TYPE_INT, 0, unit(me)));
  }
  ASSERT_EQ(in[0], prev);
  ASSERT_EQ(in[1], 10 * prev + 1);
  ASSERT_EQ(in[2], 77);
}

static const struct test_case cases[] = {
  { "ring", test_ring },
  { "tags_and_order", test_tags_and_order },
  { "source_matching", test_source_matching },
  { "sendrecv_pairs", test_sendrecv_pairs },
  { "tag0_and_collectives", test_tag0_and_collectives },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
