/* Element counts above INT_MAX for real (not through the lowered
 * DART_MPI_COUNT_LIMIT): bcast, allreduce and send/recv of 2^31 + 24
 * bytes. Needs about 4.3 GB per unit; run at 2 units. */
#include "test_assert.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static unsigned char pattern(size_t i, int salt)
{
  return (unsigned char)((i * 131u + (size_t)salt * 7u + (i >> 20)) & 0xff);
}

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  dart_global_unit_t me;
  size_t units;
  TEST_OK(dart_myid(&me));
  TEST_OK(dart_size(&units));
  const size_t n = (size_t)INT_MAX + 25;
  unsigned char *a = malloc(n), *b = malloc(n);
  TEST_ASSERT(a != NULL && b != NULL);

  /* bcast from the last unit. */
  int root = (int)units - 1;
  for (size_t i = 0; i < n; ++i) {
    a[i] = me.id == root ? pattern(i, 1) : 0;
  }
  TEST_OK(dart_bcast(a, n, DART_TYPE_BYTE, DART_TEAM_UNIT_ID(root),
                     DART_TEAM_ALL));
  for (size_t i = 0; i < n; i += 4093) {
    TEST_EQ(a[i], pattern(i, 1));
  }
  TEST_EQ(a[n - 1], pattern(n - 1, 1));
  TEST_EQ(a[(size_t)INT_MAX], pattern((size_t)INT_MAX, 1));

  /* allreduce BOR: unit u contributes bit (u % 8) where i % 8 == u % 8. */
  for (size_t i = 0; i < n; ++i) {
    a[i] = (unsigned char)(i % 8 == (size_t)(me.id % 8) ? 1u << (me.id % 8)
                                                         : 0);
  }
  TEST_OK(dart_allreduce(a, b, n, DART_TYPE_BYTE, DART_OP_BOR,
                         DART_TEAM_ALL));
  for (size_t i = 0; i < n; i += 4099) {
    unsigned char expected = 0;
    for (size_t u = 0; u < units; ++u) {
      if (i % 8 == u % 8) {
        expected |= (unsigned char)(1u << (u % 8));
      }
    }
    TEST_EQ(b[i], expected);
  }

  /* send/recv between units 0 and 1. */
  if (units >= 2 && me.id < 2) {
    if (me.id == 0) {
      for (size_t i = 0; i < n; ++i) {
        a[i] = pattern(i, 3);
      }
      TEST_OK(dart_send(a, n, DART_TYPE_BYTE, 5, DART_GLOBAL_UNIT_ID(1)));
    } else {
      memset(b, 0, n);
      TEST_OK(dart_recv(b, n, DART_TYPE_BYTE, 5, DART_GLOBAL_UNIT_ID(0)));
      for (size_t i = 0; i < n; i += 4091) {
        TEST_EQ(b[i], pattern(i, 3));
      }
      TEST_EQ(b[n - 1], pattern(n - 1, 3));
    }
  }
  free(a);
  free(b);
  test_report_pass("test_large_count");
  TEST_OK(dart_exit());
  return 0;
}
