/* The alignment rule of the atomics (dart_communication.h): an atomic on a
 * target whose offset is not a multiple of the element size is refused
 * with DART_ERR_INVAL before anything is touched, on every path (CPU
 * atomics on a node, MPI atomics across nodes or with DART_SHM_PATH=off),
 * through every entry: dart_accumulate (one and two elements),
 * dart_accumulate_blocking_local, dart_fetch_and_op and
 * dart_compare_and_swap. Every aligned offset of every basic type gives
 * the exact result, and the bytes around the element never change.
 *
 * Each unit owns a 128-byte region in every unit's portion and works on
 * it concurrently with the others: guard bytes, then elements at byte
 * offsets 32 .. 32 + max(8, 2 * size) - 1 of the region, so a 1-byte
 * element is tried at every position in its 4-byte word and a 2-byte one
 * at both halves (the 1-/2-byte compare-and-swap that Open MPI needs
 * emulated on the 4-byte word). Values have their top bit set, so signed
 * narrow types see negative values.
 *
 * Last, a portion of 7 bytes: a narrow compare-and-swap whose 4-byte word
 * runs past the portion's end works exactly on every path (the runtime
 * pads allocations so that the word Open MPI needs is exposed). And a
 * registered portion
 * that starts one byte past a 64-byte boundary: alignment is that of the
 * target's address, not of the offset, on the MPI path too, whichever
 * window exposes the portion. */
#include "test.h"
#include "test_nodes.h"
#include "test_values.h"

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REGION 128
#define FIRST 32

static int me, n;
static dart_gptr_t seg;
static long checks;

static bool integral(dart_datatype_t t)
{
  return t >= DART_TYPE_BYTE && t <= DART_TYPE_ULONGLONG;
}

static unsigned char guard_byte(int unit, int target, size_t k)
{
  return (unsigned char)(0x5a ^ (k * 29) ^ (unit * 7) ^ (target * 3));
}

/* An operand: fresh bytes with the top bit set. Past basic_value_bytes it
 * copies `old`, so a long double's padding is the same whether or not
 * the runtime writes it. */
static void make_value(unsigned char *v, const unsigned char *old,
                       dart_datatype_t t, int salt)
{
  size_t s = basic_size(t), value = basic_value_bytes(t);
  for (size_t k = 0; k < s; ++k) {
    v[k] = k < value ? (unsigned char)(0x80 | ((salt * 37 + k * 11) & 0x7f))
                     : old[k];
  }
  /* a float must stay a number (no NaN: bit patterns are compared) */
  if (t == DART_TYPE_FLOAT || t == DART_TYPE_DOUBLE) {
    v[s - 1] = 0xc0;
  }
}

static dart_gptr_t region_at(int target, size_t offset)
{
  return gptr_at(seg, target, (uint64_t)me * REGION + offset);
}

static void fill_region(int target, unsigned char *expect)
{
  for (size_t k = 0; k < REGION; ++k) {
    expect[k] = guard_byte(me, target, k);
  }
  ASSERT_OK(dart_put_blocking(region_at(target, 0), expect, REGION,
                              DART_TYPE_BYTE, DART_TYPE_BYTE));
}

static void check_region(int target, const unsigned char *expect,
                         dart_datatype_t t, size_t o)
{
  unsigned char got[REGION];
  dart_gptr_t g = region_at(target, 0);
  ASSERT_OK(dart_flush(g));
  ASSERT_OK(dart_get_blocking(got, g, REGION, DART_TYPE_BYTE, DART_TYPE_BYTE));
  for (size_t k = 0; k < REGION; ++k) {
    if (got[k] != expect[k]) {
      fprintf(stderr, "unit %d: target %d, %s at offset %zu: byte %zu is "
              "%#x, expected %#x\n", me, target, basic_name(t), o, k,
              got[k], expect[k]);
    }
    ASSERT_EQ(got[k], expect[k]);
  }
  ++checks;
}

static void check_fetched(const unsigned char *result,
                          const unsigned char *expect, dart_datatype_t t)
{
  ASSERT_EQ(memcmp(result, expect, basic_value_bytes(t)), 0);
}

/* Every entry on a misaligned element: DART_ERR_INVAL, results as they
 * were, the region as it was. */
static void misaligned(int target, dart_datatype_t t, size_t o)
{
  size_t s = basic_size(t);
  unsigned char expect[REGION], v[32], r[32], sentinel[32], cmp[32];
  fill_region(target, expect);
  make_value(v, expect + o, t, (int)o);
  memset(sentinel, 0xee, sizeof sentinel);
  dart_gptr_t g = region_at(target, o);
  dart_operation_t op = integral(t) ? DART_OP_BXOR : DART_OP_REPLACE;

  ASSERT_RET(dart_accumulate(g, v, 1, t, op), DART_ERR_INVAL);
  ASSERT_RET(dart_accumulate(g, v, 1, t, DART_OP_REPLACE), DART_ERR_INVAL);
  if (o + 2 * s <= REGION) {
    unsigned char two[64];
    memcpy(two, v, s);
    memcpy(two + s, v, s);
    ASSERT_RET(dart_accumulate(g, two, 2, t, op), DART_ERR_INVAL);
    ASSERT_RET(dart_accumulate_blocking_local(g, two, 2, t, op),
               DART_ERR_INVAL);
  }
  ASSERT_RET(dart_accumulate_blocking_local(g, v, 1, t, op), DART_ERR_INVAL);
  const dart_operation_t fops[] = { DART_OP_NO_OP, DART_OP_REPLACE, op };
  for (size_t i = 0; i < sizeof fops / sizeof *fops; ++i) {
    memcpy(r, sentinel, sizeof r);
    ASSERT_RET(dart_fetch_and_op(g, v, r, t, fops[i]), DART_ERR_INVAL);
    ASSERT_EQ(memcmp(r, sentinel, sizeof r), 0);
  }
  if (integral(t)) {
    memcpy(cmp, expect + o, s); /* would succeed if it ran */
    memcpy(r, sentinel, sizeof r);
    ASSERT_RET(dart_compare_and_swap(g, v, cmp, r, t), DART_ERR_INVAL);
    ASSERT_EQ(memcmp(r, sentinel, sizeof r), 0);
  }
  check_region(target, expect, t, o);
}

/* Every entry on an aligned element, with exact results. */
static void aligned(int target, dart_datatype_t t, size_t o)
{
  size_t s = basic_size(t);
  unsigned char expect[REGION], v[32], r[32];
  fill_region(target, expect);
  dart_gptr_t g = region_at(target, o);
  unsigned char *e = expect + o;

  /* fetch-and-op: an atomic read, a swap, an XOR of integers */
  ASSERT_OK(dart_fetch_and_op(g, e, r, t, DART_OP_NO_OP));
  ASSERT_OK(dart_flush(g));
  check_fetched(r, e, t);
  make_value(v, e, t, (int)o + 1);
  ASSERT_OK(dart_fetch_and_op(g, v, r, t, DART_OP_REPLACE));
  ASSERT_OK(dart_flush(g));
  check_fetched(r, e, t);
  memcpy(e, v, s);
  if (integral(t)) {
    make_value(v, e, t, (int)o + 2);
    ASSERT_OK(dart_fetch_and_op(g, v, r, t, DART_OP_BXOR));
    ASSERT_OK(dart_flush(g));
    check_fetched(r, e, t);
    for (size_t k = 0; k < s; ++k) {
      e[k] ^= v[k];
    }
  }
  check_region(target, expect, t, o);

  /* accumulate: one element, then two */
  make_value(v, e, t, (int)o + 3);
  ASSERT_OK(dart_accumulate(g, v, 1, t, DART_OP_REPLACE));
  memcpy(e, v, s);
  if (integral(t)) {
    make_value(v, e, t, (int)o + 4);
    ASSERT_OK(dart_accumulate_blocking_local(g, v, 1, t, DART_OP_BXOR));
    for (size_t k = 0; k < s; ++k) {
      e[k] ^= v[k];
    }
  }
  ASSERT_OK(dart_flush(g));
  check_region(target, expect, t, o);
  if (o + 2 * s <= REGION) {
    unsigned char two[64];
    make_value(two, e, t, (int)o + 5);
    make_value(two + s, e + s, t, (int)o + 6);
    ASSERT_OK(dart_accumulate(g, two, 2, t, DART_OP_REPLACE));
    ASSERT_OK(dart_flush(g));
    memcpy(e, two, 2 * s);
    check_region(target, expect, t, o);
  }

  /* compare-and-swap: a failing compare, then a succeeding one */
  if (integral(t)) {
    unsigned char cmp[8];
    memcpy(cmp, e, s);
    cmp[0] ^= 0x01;
    make_value(v, e, t, (int)o + 7);
    ASSERT_OK(dart_compare_and_swap(g, v, cmp, r, t));
    ASSERT_OK(dart_flush(g));
    check_fetched(r, e, t);
    check_region(target, expect, t, o);
    memcpy(cmp, e, s);
    ASSERT_OK(dart_compare_and_swap(g, v, cmp, r, t));
    ASSERT_OK(dart_flush(g));
    check_fetched(r, e, t);
    memcpy(e, v, s);
    check_region(target, expect, t, o);
  }
}

/* Whether DART_TEAM_ALL spans several nodes. */
static bool several_nodes(void)
{
  long long *keys = test_node_keys(n);
  bool several = false;
  for (int u = 1; u < n; ++u) {
    several |= keys[u] != keys[0];
  }
  free(keys);
  return several;
}

/* Whether atomics on DART_TEAM_ALL's segments go to units on other nodes
 * as messages that the target applies with CPU atomics
 * (DART_REMOTE_ATOMICS=message, rma/am_atomics.h): then no MPI atomic
 * touches them, registered memory included. */
static bool message_path(void)
{
  const char *mode = getenv("DART_REMOTE_ATOMICS");
  return n > 1 && mode != NULL && strcmp(mode, "message") == 0 &&
         several_nodes();
}
/* message_path() as every_offset found it first: several_nodes() is
 * collective, and a unit must not block in MPI while others' atomics
 * may still target it (rma/am_atomics.h). */
static bool by_message;

/* Whether atomics on DART_TEAM_ALL's segments go through MPI (not CPU
 * atomics): more than one unit and either several nodes or the shared-
 * memory path switched off (atomics.c choose_path), unless they go as
 * messages. */
static bool mpi_path(void)
{
  if (n == 1 || message_path()) {
    return false;
  }
  const char *shm = getenv("DART_SHM_PATH");
  if (shm != NULL && strcmp(shm, "off") == 0) {
    return true;
  }
  return several_nodes();
}

/* A 7-byte portion: narrow swaps at every aligned position, including the
 * last three bytes, whose aligned 4-byte word ends past the portion. */
static void tail_of_portion(void)
{
  enum { TAIL = 7 };
  dart_gptr_t tail;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, TAIL, DART_TYPE_BYTE,
                                       &tail));
  int target = (me + 1) % n; /* written by its predecessor only */
  unsigned char expect[TAIL], got[TAIL];
  for (int k = 0; k < TAIL; ++k) {
    expect[k] = (unsigned char)(0xf0 + k);
  }
  ASSERT_OK(dart_put_blocking(gptr_at(tail, target, 0), expect, TAIL,
                              DART_TYPE_BYTE, DART_TYPE_BYTE));
  const dart_datatype_t narrow[] = { DART_TYPE_BYTE, DART_TYPE_SHORT };
  for (int ti = 0; ti < 2; ++ti) {
    dart_datatype_t t = narrow[ti];
    size_t s = basic_size(t);
    for (size_t o = 0; o + s <= TAIL; o += s) {
      dart_gptr_t g = gptr_at(tail, target, o);
      unsigned char v[2] = { (unsigned char)(0x81 + o), 0x92 };
      unsigned char cmp[2], r[2] = { 0xee, 0xee };
      memcpy(cmp, expect + o, s);
      ASSERT_OK(dart_compare_and_swap(g, v, cmp, r, t));
      ASSERT_OK(dart_flush(g));
      ASSERT_EQ(memcmp(r, expect + o, s), 0);
      memcpy(expect + o, v, s);
      /* And a fetch-and-replace, the other narrow swap. */
      unsigned char w[2] = { (unsigned char)(0x41 + o), 0x52 };
      r[0] = r[1] = 0xee;
      ASSERT_OK(dart_fetch_and_op(g, w, r, t, DART_OP_REPLACE));
      ASSERT_OK(dart_flush(g));
      ASSERT_EQ(memcmp(r, expect + o, s), 0);
      memcpy(expect + o, w, s);
      ASSERT_OK(dart_get_blocking(got, gptr_at(tail, target, 0), TAIL,
                                  DART_TYPE_BYTE, DART_TYPE_BYTE));
      ASSERT_EQ(memcmp(got, expect, TAIL), 0);
      ++checks;
    }
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memfree(tail));
}

/* A portion registered at an odd address (64-byte boundary + 1), reached
 * through MPI (registered memory of another unit always is): a long at
 * offset 0 or 8 sits at an odd address and is refused. A byte swap at
 * offsets 0-2 needs the 4-byte word that starts before the portion:
 * refused where the runtime documents it (Open MPI), exact elsewhere; at
 * offset 3 its word is inside. */
static void registered_odd_start(void)
{
  enum { BYTES = 64 };
  static _Alignas(64) unsigned char mem[BYTES + 64];
  unsigned char *portion = mem + 1;
  for (int k = 0; k < BYTES; ++k) {
    portion[k] = (unsigned char)(0x30 + k);
  }
  unsigned char expect[BYTES], got[BYTES];
  memcpy(expect, portion, BYTES); /* every unit's portion alike */
  dart_gptr_t reg;
  ASSERT_OK(dart_team_memregister(DART_TEAM_ALL, BYTES, DART_TYPE_BYTE,
                                  portion, &reg));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  int target = (me + 1) % n; /* written by its predecessor only */
  long add = 5, old = -1;
  for (uint64_t o = 0; o <= 8; o += 8) {
    ASSERT_RET(dart_fetch_and_op(gptr_at(reg, target, o), &add, &old,
                                 DART_TYPE_LONG, DART_OP_SUM), DART_ERR_INVAL);
    ASSERT_EQ(old, -1);
  }
  for (uint64_t o = 0; o <= 3; ++o) {
    bool refused = target != me && o < 3 && !by_message;
#ifndef OPEN_MPI
    refused = false;
#endif
    unsigned char v = (unsigned char)(0xa0 + o), cmp = expect[o], r = 0xee;
    dart_ret_t ret = dart_compare_and_swap(gptr_at(reg, target, o), &v, &cmp,
                                           &r, DART_TYPE_BYTE);
    ASSERT_EQ(ret, refused ? DART_ERR_OTHER : DART_OK);
    ASSERT_OK(dart_flush(reg));
    ASSERT_EQ(r, refused ? 0xee : cmp);
    if (!refused) {
      expect[o] = v;
    }
  }
  ASSERT_OK(dart_get_blocking(got, gptr_at(reg, target, 0), BYTES,
                              DART_TYPE_BYTE, DART_TYPE_BYTE));
  ASSERT_EQ(memcmp(got, expect, BYTES), 0);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_memderegister(reg));
  ++checks;
}

static void every_offset(void)
{
  bool via_mpi = mpi_path();
  by_message = message_path();
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, (size_t)n * REGION,
                                       DART_TYPE_BYTE, &seg));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int step = 1; step <= n; ++step) {
    int target = (me + step) % n; /* the next unit first */
    for (int ti = 0; ti < TEST_NBASIC; ++ti) {
      dart_datatype_t t = test_basic_types[ti];
      size_t s = basic_size(t);
      size_t span = 2 * s > 8 ? 2 * s : 8;
      for (size_t o = FIRST; o < FIRST + span; ++o) {
        if (o % s == 0) {
          aligned(target, t, o);
        } else {
          misaligned(target, t, o);
        }
      }
    }
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  tail_of_portion();
  registered_odd_start();
  ASSERT_OK(dart_team_memfree(seg));
  if (me == 0) {
    printf("test_atomics_align: %s path, %ld region checks on unit 0\n",
           via_mpi ? "MPI" : by_message ? "message" : "CPU", checks);
  }
}

static const struct test_case cases[] = {
  { "every_offset", every_offset },
};

static void setup(int *argc, char ***argv)
{
  test_start(argc, argv, &me, &n);
}

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup,
                       test_dart_teardown);
}
