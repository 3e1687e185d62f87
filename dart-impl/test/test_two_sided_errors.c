/* Two-sided calls that must fail
 * (dart-if/include/dash/dart/if/dart_communication.h): argument errors,
 * all detected before any communication, and a message longer than its
 * receive (through dart_recv and dart_sendrecv), after which the next
 * message still arrives intact and a last ring step still works. The
 * messages that must arrive are test_two_sided_messages.c's. Shared part:
 * test_two_sided_common.h. */
#include "test_two_sided_common.h"

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
  /* Above MPI's eager limit (a few KiB): Open MPI 4.1 wrote past the
   * receive buffer of such a truncated message. Nothing past the room
   * for nelem elements may change, from a receive and from a sendrecv
   * with oneself. */
  enum { BIG = 16384, ROOM = 4096, GUARD = 1024 };
  long *big = xmalloc(BIG * sizeof(long));
  long *room = xmalloc((ROOM + GUARD) * sizeof(long));
  fill_block(DART_TYPE_LONG, big, BIG, key(me, 14));
  memset(room, POISON, (ROOM + GUARD) * sizeof(long));
  if (me == 0) {
    STAGE("truncation of %d longs", BIG);
    ASSERT_OK(dart_send(big, BIG, DART_TYPE_LONG, 14, unit(1)));
  } else {
    STAGE("truncation of %d longs into room for %d", BIG, ROOM);
    ASSERT_RET(dart_recv(room, ROOM, DART_TYPE_LONG, 14, unit(0)),
               DART_ERR_INVAL);
    ASSERT_POISON(room, 0, (ROOM + GUARD) * sizeof(long));
  }
  STAGE("truncation of %d longs in a sendrecv with oneself", BIG);
  ASSERT_RET(dart_sendrecv(big, BIG, DART_TYPE_LONG, 15, unit(me), room,
                           ROOM, DART_TYPE_LONG, 15, unit(me)),
             DART_ERR_INVAL);
  ASSERT_POISON(room, 0, (ROOM + GUARD) * sizeof(long));
  free(room);
  free(big);
  restore_log(saved);
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
  { "truncation", test_truncation },
  { "final_ring_step", final_ring_step },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup, teardown);
}
