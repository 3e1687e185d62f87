/* Element counts above INT_MAX for real (not through the lowered
 * DART_MPI_COUNT_LIMIT): bcast, allreduce and send/recv of 2^31 + 24
 * bytes. Needs about 4.3 GB per unit; run at 2 units. */
#include "test.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static unsigned char pattern(size_t i, int salt)
{
  return (unsigned char)((i * 131u + (size_t)salt * 7u + (i >> 20)) & 0xff);
}

/* Each case fills its own buffers of just over INT_MAX bytes. */
static const size_t big = (size_t)INT_MAX + 25;

static void bcast(void)
{
  unsigned char *a = xmalloc(big);
  /* bcast from the last unit. */
  int root = test_units - 1;
  for (size_t i = 0; i < big; ++i) {
    a[i] = test_me == root ? pattern(i, 1) : 0;
  }
  ASSERT_OK(dart_bcast(a, big, DART_TYPE_BYTE, DART_TEAM_UNIT_ID(root),
                       DART_TEAM_ALL));
  for (size_t i = 0; i < big; i += 4093) {
    ASSERT_EQ(a[i], pattern(i, 1));
  }
  ASSERT_EQ(a[big - 1], pattern(big - 1, 1));
  ASSERT_EQ(a[(size_t)INT_MAX], pattern((size_t)INT_MAX, 1));
  free(a);
}

static void allreduce_bor(void)
{
  unsigned char *a = xmalloc(big), *b = xmalloc(big);
  /* allreduce BOR: unit u contributes bit (u % 8) where i % 8 == u % 8. */
  int me = test_me;
  for (size_t i = 0; i < big; ++i) {
    a[i] = (unsigned char)(i % 8 == (size_t)(me % 8) ? 1u << (me % 8) : 0);
  }
  ASSERT_OK(dart_allreduce(a, b, big, DART_TYPE_BYTE, DART_OP_BOR,
                           DART_TEAM_ALL));
  for (size_t i = 0; i < big; i += 4099) {
    unsigned char expected = 0;
    for (size_t u = 0; u < (size_t)test_units; ++u) {
      if (i % 8 == u % 8) {
        expected |= (unsigned char)(1u << (u % 8));
      }
    }
    ASSERT_EQ(b[i], expected);
  }
  free(a);
  free(b);
}

/* send/recv between units 0 and 1. */
static void send_recv(void)
{
  if (test_units < 2 || test_me >= 2) {
    return;
  }
  unsigned char *a = xmalloc(big);
  if (test_me == 0) {
    for (size_t i = 0; i < big; ++i) {
      a[i] = pattern(i, 3);
    }
    ASSERT_OK(dart_send(a, big, DART_TYPE_BYTE, 5, DART_GLOBAL_UNIT_ID(1)));
  } else {
    memset(a, 0, big);
    ASSERT_OK(dart_recv(a, big, DART_TYPE_BYTE, 5, DART_GLOBAL_UNIT_ID(0)));
    for (size_t i = 0; i < big; i += 4091) {
      ASSERT_EQ(a[i], pattern(i, 3));
    }
    ASSERT_EQ(a[big - 1], pattern(big - 1, 3));
  }
  free(a);
}

static const struct test_case cases[] = {
  { "bcast", bcast },
  { "allreduce_bor", allreduce_bor },
  { "send_recv", send_recv },
};

int main(int argc, char **argv)
{
  return test_run_dart(argc, argv, TEST_CASES(cases));
}
