/* Two-sided messaging (dart-if/include/dash/dart/if/dart_communication.h):
 * dart_send / dart_recv / dart_sendrecv by global unit id. A ring with
 * several basic and custom types, tag selection and non-overtaking, matching
 * by sender, pairwise exchange with different send and receive types and
 * counts, messages above the count limit (DART_MPI_COUNT_LIMIT=5 runs), user
 * tag 0 interleaved with collectives, truncation, zero-length messages, and
 * argument errors.
 *
 * dart_send may wait for the matching receive (dart_communication.h), so a
 * blocking send is issued before its receive is posted only for tiny
 * messages to another unit, which MPI sends eagerly; never to oneself
 * (MPICH's self path does wait). Everything else is ordered so that the
 * receive is sure to come: even units send first in the ring, big messages
 * go one direction at a time, exchanges with oneself use dart_sendrecv. */
#include "test.h"
#include "test_values.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int me, n;

static dart_global_unit_t unit(int u) { return DART_GLOBAL_UNIT_ID(u); }

/* A distinct key per (sender, message) with message < 16. */
static int key(int sender, int msg) { return 1 + sender * 16 + msg; }

/* ---------------------------------------------------------------------
 * Types and patterns.
 * --------------------------------------------------------------------- */

struct triple {
  int a, b, c;
};
_Static_assert(sizeof(struct triple) == 12, "struct triple must be packed");
static dart_datatype_t triple_type = DART_TYPE_UNDEFINED; /* custom(12) */
static dart_datatype_t odd_type = DART_TYPE_UNDEFINED;    /* custom(3) */

static size_t tsize(dart_datatype_t t)
{
  if (basic_name(t) != NULL) {
    return basic_size(t);
  }
  if (t == odd_type) {
    return 3;
  }
  ASSERT(t == triple_type);
  return sizeof(struct triple);
}

static const char *tname(dart_datatype_t t)
{
  const char *name = basic_name(t);
  if (name != NULL) {
    return name;
  }
  return t == triple_type ? "custom(12)" : t == odd_type ? "custom(3)"
                                                         : "other";
}

static struct triple triple_pattern(int k, size_t i)
{
  int j = (int)i;
  return (struct triple){ k * 1000 + j, -(k * 7 + j * 3), k ^ (j * 17) };
}

static unsigned char odd_pattern(int k, size_t byte)
{
  return (unsigned char)((size_t)k * 31 + byte * 7 + 1);
}

static void fill_block(dart_datatype_t t, void *buf, size_t nelem, int k)
{
  for (size_t i = 0; i < nelem; ++i) {
    if (t == triple_type) {
      struct triple v = triple_pattern(k, i);
      memcpy((char *)buf + i * sizeof v, &v, sizeof v);
    } else if (t == odd_type) {
      for (size_t b = 0; b < 3; ++b) {
        ((unsigned char *)buf)[3 * i + b] = odd_pattern(k, 3 * i + b);
      }
    } else {
      put_val(t, buf, i, basic_pattern(t, k, i));
    }
  }
}

#define check_block(...) check_block_at(__FILE__, __LINE__, __VA_ARGS__)
static void check_block_at(const char *file, int line, dart_datatype_t t,
                           const void *buf,
                        size_t nelem, int k)
{
  for (size_t i = 0; i < nelem; ++i) {
    if (t == triple_type) {
      struct triple got, want = triple_pattern(k, i);
      memcpy(&got, (const char *)buf + i * sizeof got, sizeof got);
      if (got.a != want.a || got.b != want.b || got.c != want.c) {
        test_failf(file, line, "element %zu (key %d): got {%d,%d,%d}, expected "
                   "{%d,%d,%d}", i, k, got.a, got.b, got.c, want.a, want.b,
                   want.c);
      }
    } else if (t == odd_type) {
      for (size_t b = 0; b < 3; ++b) {
        unsigned char got = ((const unsigned char *)buf)[3 * i + b];
        if (got != odd_pattern(k, 3 * i + b)) {
          test_failf(file, line, "element %zu byte %zu (key %d): got %u, "
                     "expected %u", i, b, k, got,
                     odd_pattern(k, 3 * i + b));
        }
      }
    } else {
      long double got = get_val(t, buf, i), want = basic_pattern(t, k, i);
      if (got != want) {
        test_failf(file, line, "element %zu (key %d): got %Lg, expected %Lg", i,
                   k, got, want);
      }
    }
  }
}

/* The pairing: unit i with i ^ 1 when that exists, else with itself. */
static int partner(void) { return (me ^ 1) < n ? (me ^ 1) : me; }

/* ---------------------------------------------------------------------
 * Errors, all detected before any communication.
 * --------------------------------------------------------------------- */

static void test_errors(dart_datatype_t strided, dart_datatype_t dead)
{
  int saved = mute_log();
  int buf[8] = { 0 };
  int rbuf[8];
  memset(rbuf, POISON, sizeof rbuf);
  dart_global_unit_t self = unit(me);

  const int bad_units[] = { -1, n, n + 7 };
  for (int i = 0; i < 3; ++i) {
    STAGE("unit %d out of range", bad_units[i]);
    dart_global_unit_t bad = unit(bad_units[i]);
    ASSERT_RET(dart_send(buf, 1, DART_TYPE_INT, 3, bad), DART_ERR_INVAL);
    ASSERT_RET(dart_recv(rbuf, 1, DART_TYPE_INT, 3, bad), DART_ERR_INVAL);
    ASSERT_RET(dart_sendrecv(buf, 1, DART_TYPE_INT, 3, bad, rbuf, 1,
                             DART_TYPE_INT, 3, self), DART_ERR_INVAL);
    ASSERT_RET(dart_sendrecv(buf, 1, DART_TYPE_INT, 3, self, rbuf, 1,
                             DART_TYPE_INT, 3, bad), DART_ERR_INVAL);
  }

  const int bad_tags[] = { -1, -1000 };
  for (int i = 0; i < 2; ++i) {
    STAGE("tag %d", bad_tags[i]);
    int tag = bad_tags[i];
    ASSERT_RET(dart_send(buf, 1, DART_TYPE_INT, tag, self), DART_ERR_INVAL);
    ASSERT_RET(dart_recv(rbuf, 1, DART_TYPE_INT, tag, self), DART_ERR_INVAL);
    ASSERT_RET(dart_sendrecv(buf, 1, DART_TYPE_INT, tag, self, rbuf, 1,
                             DART_TYPE_INT, 3, self), DART_ERR_INVAL);
    ASSERT_RET(dart_sendrecv(buf, 1, DART_TYPE_INT, 3, self, rbuf, 1,
                             DART_TYPE_INT, tag, self), DART_ERR_INVAL);
  }

  STAGE("NULL buffers with nelem > 0");
  ASSERT_RET(dart_send(NULL, 4, DART_TYPE_INT, 3, self), DART_ERR_INVAL);
  ASSERT_RET(dart_recv(NULL, 4, DART_TYPE_INT, 3, self), DART_ERR_INVAL);
  ASSERT_RET(dart_sendrecv(NULL, 4, DART_TYPE_INT, 3, self, rbuf, 4,
                           DART_TYPE_INT, 3, self), DART_ERR_INVAL);
  ASSERT_RET(dart_sendrecv(buf, 4, DART_TYPE_INT, 3, self, NULL, 4,
                           DART_TYPE_INT, 3, self), DART_ERR_INVAL);

  const dart_datatype_t bad_types[] = { DART_TYPE_UNDEFINED, DART_TYPE_LAST,
                                        strided, dead,
                                        (dart_datatype_t)4242 };
  for (int i = 0; i < 5; ++i) {
    STAGE("type %ld", (long)bad_types[i]);
    dart_datatype_t t = bad_types[i];
    ASSERT_RET(dart_send(buf, 2, t, 3, self), DART_ERR_INVAL);
    ASSERT_RET(dart_recv(rbuf, 2, t, 3, self), DART_ERR_INVAL);
    ASSERT_RET(dart_sendrecv(buf, 2, t, 3, self, rbuf, 2, DART_TYPE_INT, 3,
                             self), DART_ERR_INVAL);
    ASSERT_RET(dart_sendrecv(buf, 2, DART_TYPE_INT, 3, self, rbuf, 2, t, 3,
                             self), DART_ERR_INVAL);
  }
  ASSERT_POISON(rbuf, 0, sizeof rbuf);
  restore_log(saved);
}

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

/* ---------------------------------------------------------------------
 * A message longer than the receive: DART_ERR_INVAL (units 0 and 1).
 * --------------------------------------------------------------------- */

static void test_truncation(void)
{
  if (n < 2 || me > 1) {
    return;
  }
  int saved = mute_log();
  int buf[32];
  if (me == 0) {
    STAGE("truncation: sending to unit 1");
    fill_block(DART_TYPE_INT, buf, 10, key(0, 9));
    ASSERT_OK(dart_send(buf, 10, DART_TYPE_INT, 9, unit(1)));
    fill_block(DART_TYPE_INT, buf, 20, key(0, 10));
    ASSERT_OK(dart_send(buf, 20, DART_TYPE_INT, 10, unit(1)));
    fill_block(DART_TYPE_INT, buf, 3, key(0, 11));
    ASSERT_OK(dart_send(buf, 3, DART_TYPE_INT, 11, unit(1)));
  } else {
    STAGE("truncation: 10 elements into room for 5");
    ASSERT_RET(dart_recv(buf, 5, DART_TYPE_INT, 9, unit(0)), DART_ERR_INVAL);
    STAGE("truncation: 20 elements into room for 12");
    ASSERT_RET(dart_recv(buf, 12, DART_TYPE_INT, 10, unit(0)), DART_ERR_INVAL);
    STAGE("after truncation: the next message arrives intact");
    memset(buf, POISON, sizeof buf);
    ASSERT_OK(dart_recv(buf, 3, DART_TYPE_INT, 11, unit(0)));
    check_block(DART_TYPE_INT, buf, 3, key(0, 11));
    ASSERT_POISON(buf, 3 * sizeof(int), sizeof buf - 3 * sizeof(int));
  }
  /* Through dart_sendrecv: unit 0's receive is too short. */
  double d[8];
  fill_block(DART_TYPE_DOUBLE, d, 8, key(me, 12));
  if (me == 0) {
    STAGE("truncation in dart_sendrecv at unit 0");
    ASSERT_RET(dart_sendrecv(d, 4, DART_TYPE_DOUBLE, 12, unit(1), d + 4, 2,
                             DART_TYPE_DOUBLE, 13, unit(1)), DART_ERR_INVAL);
  } else {
    STAGE("dart_sendrecv at unit 1 beside a truncation at unit 0");
    double r[4];
    ASSERT_OK(dart_sendrecv(d, 6, DART_TYPE_DOUBLE, 13, unit(0), r, 4,
                            DART_TYPE_DOUBLE, 12, unit(0)));
    check_block(DART_TYPE_DOUBLE, r, 4, key(0, 12));
  }
  restore_log(saved);
}

/* A strided type, and the id of a destroyed one, for the error checks. */
static dart_datatype_t strided = DART_TYPE_UNDEFINED;
static dart_datatype_t dead_id = DART_TYPE_UNDEFINED;

static void setup(int *argc, char ***argv)
{
  test_start(argc, argv, &me, &n);
  ASSERT_OK(dart_type_create_custom(sizeof(struct triple), &triple_type));
  ASSERT_OK(dart_type_create_custom(3, &odd_type));
  dart_datatype_t dead = DART_TYPE_UNDEFINED;
  ASSERT_OK(dart_type_create_strided(DART_TYPE_INT, 4, 2, &strided));
  ASSERT_OK(dart_type_create_custom(8, &dead));
  dead_id = dead;
  ASSERT_OK(dart_type_destroy(&dead));
}

static void teardown(void)
{
  ASSERT_OK(dart_type_destroy(&strided));
  ASSERT_OK(dart_type_destroy(&odd_type));
  ASSERT_OK(dart_type_destroy(&triple_type));
  ASSERT_EQ(triple_type, DART_TYPE_UNDEFINED);
  ASSERT_OK(dart_exit());
}

static void errors(void)
{
  test_errors(strided, dead_id);
}

/* Still working after all of it: one more ring step. */
static void final_ring_step(void)
{
  int next = (me + 1) % n, prev = (me + n - 1) % n;
  int v = 31 * me + 5, r = -1;
  ASSERT_OK(dart_sendrecv(&v, 1, DART_TYPE_INT, 40, unit(next), &r, 1,
                          DART_TYPE_INT, 40, unit(prev)));
  ASSERT_EQ(r, 31 * prev + 5);
}

static const struct test_case cases[] = {
  { "errors", errors },
  { "ring", test_ring },
  { "tags_and_order", test_tags_and_order },
  { "source_matching", test_source_matching },
  { "sendrecv_pairs", test_sendrecv_pairs },
  { "tag0_and_collectives", test_tag0_and_collectives },
  { "truncation", test_truncation },
  { "final_ring_step", final_ring_step },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
