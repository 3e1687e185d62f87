/* Element counts above INT_MAX for real (not through the lowered
 * DART_MPI_COUNT_LIMIT): bcast, allreduce and send/recv of 2^31 + 24
 * bytes. Needs about 4.3 GB per unit; run at 2 units.
 *
 * Most of this test's time is faulting in and filling its buffers, not
 * the calls it checks. So the two buffers are shared by the cases (each
 * case rewrites what it reads), mapped with MAP_POPULATE (one call
 * rather than half a million page faults, each of which costs more in a
 * VM than clearing the page), and filled by doubling a short period
 * rather than byte by byte. ctest, 2 units on one node: Open MPI 71 s ->
 * 38 s, MPICH 66-70 s -> 45-50 s. */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_POPULATE */
#include "test.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Each case's buffers hold just over INT_MAX bytes. */
static const size_t big = (size_t)INT_MAX + 25;

/* The expected content: period 256 within each MiB, a different phase in
 * each MiB, so a misplaced block of either size shows up. */
static unsigned char pattern(size_t i, int salt)
{
  return (unsigned char)((i * 131u + (size_t)salt * 7u + (i >> 20)) & 0xff);
}

static unsigned char *buffers[2];

/* Buffer `which` (0 or 1), mapped on first use and kept for the other
 * cases (each can run alone: --case). */
static unsigned char *buffer(int which)
{
  if (buffers[which] == NULL) {
    void *p = mmap(NULL, big, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    ASSERT(p != MAP_FAILED);
    buffers[which] = p;
  }
  return buffers[which];
}

/* Repeats a[0, period) over a[0, n) by doubling the filled prefix. */
static void repeat_prefix(unsigned char *a, size_t n, size_t period)
{
  for (size_t done = period; done < n; done *= 2) {
    memcpy(a + done, a, done < n - done ? done : n - done);
  }
}

static void fill_pattern(unsigned char *a, int salt)
{
  const size_t mib = (size_t)1 << 20;
  for (size_t start = 0; start < big; start += mib) {
    size_t n = big - start < mib ? big - start : mib;
    size_t first = n < 256 ? n : 256;
    for (size_t i = 0; i < first; ++i) {
      a[start + i] = pattern(start + i, salt);
    }
    repeat_prefix(a + start, n, first);
  }
}

/* Strided checks of a pattern-filled buffer, its last byte and the first
 * byte past INT_MAX. */
static void check_pattern(const unsigned char *a, int salt, size_t stride)
{
  for (size_t i = 0; i < big; i += stride) {
    ASSERT_EQ(a[i], pattern(i, salt));
  }
  ASSERT_EQ(a[big - 1], pattern(big - 1, salt));
  ASSERT_EQ(a[(size_t)INT_MAX], pattern((size_t)INT_MAX, salt));
}

static void bcast(void)
{
  unsigned char *a = buffer(0);
  /* bcast from the last unit. */
  int root = test_units - 1;
  if (test_me == root) {
    fill_pattern(a, 1);
  } else {
    memset(a, 0, big);
  }
  ASSERT_OK(dart_bcast(a, big, DART_TYPE_BYTE, DART_TEAM_UNIT_ID(root),
                       DART_TEAM_ALL));
  check_pattern(a, 1, 4093);
}

/* allreduce BOR: unit u contributes bit (u % 8) where i % 8 == u % 8. */
static unsigned char bor_expected(size_t i)
{
  unsigned char expected = 0;
  for (size_t u = 0; u < (size_t)test_units; ++u) {
    if (i % 8 == u % 8) {
      expected |= (unsigned char)(1u << (u % 8));
    }
  }
  return expected;
}

static void allreduce_bor(void)
{
  unsigned char *a = buffer(0), *b = buffer(1);
  int me = test_me;
  for (size_t i = 0; i < 8; ++i) {
    a[i] = (unsigned char)(i == (size_t)(me % 8) ? 1u << (me % 8) : 0);
  }
  repeat_prefix(a, big, 8);
  memset(b, 0xa5, big); /* nothing of the old content may survive */
  ASSERT_OK(dart_allreduce(a, b, big, DART_TYPE_BYTE, DART_OP_BOR,
                           DART_TEAM_ALL));
  for (size_t i = 0; i < big; i += 4099) {
    ASSERT_EQ(b[i], bor_expected(i));
  }
  ASSERT_EQ(b[big - 1], bor_expected(big - 1));
  ASSERT_EQ(b[(size_t)INT_MAX], bor_expected((size_t)INT_MAX));
}

/* send/recv between units 0 and 1. */
static void send_recv(void)
{
  if (test_units < 2 || test_me >= 2) {
    return;
  }
  unsigned char *a = buffer(0);
  if (test_me == 0) {
    fill_pattern(a, 3);
    ASSERT_OK(dart_send(a, big, DART_TYPE_BYTE, 5, DART_GLOBAL_UNIT_ID(1)));
  } else {
    memset(a, 0, big);
    ASSERT_OK(dart_recv(a, big, DART_TYPE_BYTE, 5, DART_GLOBAL_UNIT_ID(0)));
    check_pattern(a, 3, 4091);
  }
}

static const struct test_case cases[] = {
  { "bcast", bcast },
  { "allreduce_bor", allreduce_bor },
  { "send_recv", send_recv },
};

static void teardown(void)
{
  test_dart_teardown();
  for (int i = 0; i < 2; ++i) {
    if (buffers[i] != NULL) {
      munmap(buffers[i], big);
    }
  }
}

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), test_dart_setup,
                       teardown);
}
