/* CPU atomics (base/cpu_atomics.h) in one process: which types they
 * support, unsigned comparisons, NO_OP reads, and calls on unsupported
 * types or with no elements, which must leave the target alone. The
 * concurrent checks are test_cpu_atomics_concurrent.c. */
#include "base/cpu_atomics.h"
#include "test.h"

#include <stdint.h>
#include <string.h>

static int single(void)
{
  for (dart_datatype_t t = DART_TYPE_BYTE; t <= DART_TYPE_DOUBLE; ++t) {
    ASSERT(cpu_atomic_supported(t));
  }
  ASSERT(!cpu_atomic_supported(DART_TYPE_LONG_DOUBLE));
  ASSERT(!cpu_atomic_supported(DART_TYPE_UNDEFINED));
  ASSERT(!cpu_atomic_supported(DART_TYPE_LAST));
  ASSERT(!cpu_atomic_supported((dart_datatype_t)4096));
  ASSERT(!cpu_atomic_supported((dart_datatype_t)-1));

  /* Unsigned types compare unsigned. */
  unsigned int u = 1, ubig = 0x80000005u;
  cpu_atomic_accumulate(&u, &ubig, 1, DART_TYPE_UINT, DART_OP_MAX);
  ASSERT(u == 0x80000005u);
  unsigned int uone = 1;
  cpu_atomic_accumulate(&u, &uone, 1, DART_TYPE_UINT, DART_OP_MIN);
  ASSERT(u == 1);
  unsigned long ul = 1, ulbig = ULONG_MAX - 3, ulone = 1;
  cpu_atomic_accumulate(&ul, &ulbig, 1, DART_TYPE_ULONG, DART_OP_MAX);
  ASSERT(ul == ULONG_MAX - 3);
  cpu_atomic_accumulate(&ul, &ulone, 1, DART_TYPE_ULONG, DART_OP_MIN);
  ASSERT(ul == 1);
  unsigned long long ull = 1, ullbig = ULLONG_MAX - 3, ullold = 0;
  cpu_atomic_fetch_and_op(&ull, &ullbig, &ullold, DART_TYPE_ULONGLONG,
                          DART_OP_MAX);
  ASSERT(ull == ULLONG_MAX - 3 && ullold == 1);
  /* ... and signed ones signed. */
  long l = -1, lone = 1, lmin = LONG_MIN;
  cpu_atomic_accumulate(&l, &lone, 1, DART_TYPE_LONG, DART_OP_MAX);
  ASSERT(l == 1);
  cpu_atomic_accumulate(&l, &lmin, 1, DART_TYPE_LONG, DART_OP_MIN);
  ASSERT(l == LONG_MIN);
  float f = -1.5f, fv = -2.5f;
  cpu_atomic_accumulate(&f, &fv, 1, DART_TYPE_FLOAT, DART_OP_MAX);
  ASSERT(f == -1.5f);
  cpu_atomic_accumulate(&f, &fv, 1, DART_TYPE_FLOAT, DART_OP_MIN);
  ASSERT(f == -2.5f);

  /* Signed overflow wraps (no undefined behaviour under UBSan). */
  int i = INT_MAX, ione = 1, itwo = 2;
  cpu_atomic_accumulate(&i, &ione, 1, DART_TYPE_INT, DART_OP_SUM);
  ASSERT(i == INT_MIN);
  i = INT_MAX;
  cpu_atomic_accumulate(&i, &itwo, 1, DART_TYPE_INT, DART_OP_PROD);
  ASSERT(i == -2);
  short s = SHRT_MAX, sone = 1, sbig = SHRT_MAX;
  cpu_atomic_accumulate(&s, &sone, 1, DART_TYPE_SHORT, DART_OP_SUM);
  ASSERT(s == SHRT_MIN);
  cpu_atomic_accumulate(&s, &sbig, 1, DART_TYPE_SHORT, DART_OP_PROD);
  ASSERT(s == SHRT_MIN); /* -2^15 * (2^15 - 1) = -2^15 mod 2^16 */
  long long ll = LLONG_MIN, llm = -1;
  cpu_atomic_accumulate(&ll, &llm, 1, DART_TYPE_LONGLONG, DART_OP_PROD);
  ASSERT(ll == LLONG_MIN);
  unsigned short us = 65535, usbig = 65535;
  cpu_atomic_accumulate(&us, &usbig, 1, DART_TYPE_SHORT, DART_OP_PROD);
  ASSERT(us == 1);

  /* Logical ops give 0 or 1, judging the whole value. */
  int a = 5, b = 3, z = 0;
  cpu_atomic_accumulate(&a, &b, 1, DART_TYPE_INT, DART_OP_LAND);
  ASSERT(a == 1);
  a = 5;
  cpu_atomic_accumulate(&a, &z, 1, DART_TYPE_INT, DART_OP_LAND);
  ASSERT(a == 0);
  cpu_atomic_accumulate(&a, &z, 1, DART_TYPE_INT, DART_OP_LOR);
  ASSERT(a == 0);
  cpu_atomic_accumulate(&a, &b, 1, DART_TYPE_INT, DART_OP_LOR);
  ASSERT(a == 1);
  a = 5;
  cpu_atomic_accumulate(&a, &b, 1, DART_TYPE_INT, DART_OP_LXOR);
  ASSERT(a == 0);
  cpu_atomic_accumulate(&a, &b, 1, DART_TYPE_INT, DART_OP_LXOR);
  ASSERT(a == 1);
  unsigned long long high = 1ull << 40, high2 = 1ull << 33;
  cpu_atomic_accumulate(&high, &high2, 1, DART_TYPE_ULONGLONG, DART_OP_LAND);
  ASSERT(high == 1);
  char c = (char)0x80, cbits = 0x0f;
  cpu_atomic_accumulate(&c, &cbits, 1, DART_TYPE_BYTE, DART_OP_BOR);
  ASSERT(c == (char)0x8f);
  cpu_atomic_accumulate(&c, &cbits, 1, DART_TYPE_BYTE, DART_OP_BXOR);
  ASSERT(c == (char)0x80);

  /* Unaligned value and result buffers. */
  char buf[32];
  double d = 2.5, dv = 1.25, dold;
  memcpy(buf + 1, &dv, sizeof dv);
  cpu_atomic_fetch_and_op(&d, buf + 1, buf + 11, DART_TYPE_DOUBLE,
                          DART_OP_SUM);
  memcpy(&dold, buf + 11, sizeof dold);
  ASSERT(d == 3.75 && dold == 2.5);
  long long lv = 7, lnew = -9, lold;
  memcpy(buf + 3, &lnew, sizeof lnew);
  cpu_atomic_fetch_and_op(&lv, buf + 3, buf + 13, DART_TYPE_LONGLONG,
                          DART_OP_REPLACE);
  memcpy(&lold, buf + 13, sizeof lold);
  ASSERT(lv == -9 && lold == 7);

  /* NO_OP: an atomic read that never touches the target nor reads the
   * value (a one-byte value for an eight-byte type: ASan would see it). */
  char ignored = 0;
  ull = 123456789012345ull;
  cpu_atomic_fetch_and_op(&ull, &ignored, buf + 5, DART_TYPE_ULONGLONG,
                          DART_OP_NO_OP);
  memcpy(&ullold, buf + 5, sizeof ullold);
  ASSERT(ull == 123456789012345ull && ullold == ull);
  cpu_atomic_accumulate(&ull, &ignored, 1, DART_TYPE_ULONGLONG,
                        DART_OP_NO_OP);
  ASSERT(ull == 123456789012345ull);

  /* Compare-and-swap: success and failure, through unaligned buffers. */
  long long target = 7, cmp = 7, val = 9, prev;
  memcpy(buf + 1, &val, sizeof val);
  memcpy(buf + 10, &cmp, sizeof cmp);
  cpu_atomic_compare_and_swap(&target, buf + 1, buf + 10, buf + 19,
                              DART_TYPE_LONGLONG);
  memcpy(&prev, buf + 19, sizeof prev);
  ASSERT(target == 9 && prev == 7);
  val = 11;
  memcpy(buf + 1, &val, sizeof val);
  cpu_atomic_compare_and_swap(&target, buf + 1, buf + 10, buf + 19,
                              DART_TYPE_LONGLONG);
  memcpy(&prev, buf + 19, sizeof prev);
  ASSERT(target == 9 && prev == 9); /* failed: unchanged, current returned */
  unsigned char byte = 200, bcmp = 200, bval = 250, bprev = 0;
  cpu_atomic_compare_and_swap(&byte, &bval, &bcmp, &bprev, DART_TYPE_BYTE);
  ASSERT(byte == 250 && bprev == 200);
  cpu_atomic_compare_and_swap(&byte, &bval, &bcmp, &bprev, DART_TYPE_BYTE);
  ASSERT(byte == 250 && bprev == 250);

  /* Invalid (type, op) pairs leave memory untouched. */
  float fl = 1.5f, fl2 = 2.0f, flres = 0;
  cpu_atomic_accumulate(&fl, &fl2, 1, DART_TYPE_FLOAT, DART_OP_BAND);
  cpu_atomic_accumulate(&fl, &fl2, 1, DART_TYPE_FLOAT, DART_OP_LXOR);
  cpu_atomic_compare_and_swap(&fl, &fl2, &fl, &flres, DART_TYPE_FLOAT);
  ASSERT(fl == 1.5f);
  int iv = 10, iop = 3;
  cpu_atomic_accumulate(&iv, &iop, 1, DART_TYPE_INT, DART_OP_MINMAX);
  cpu_atomic_accumulate(&iv, &iop, 1, DART_TYPE_INT, DART_OP_UNDEFINED);
  cpu_atomic_accumulate(&iv, &iop, 1, DART_TYPE_INT, DART_OP_LAST);
  cpu_atomic_accumulate(&iv, &iop, 1, DART_TYPE_INT, (dart_operation_t)4711);
  ASSERT(iv == 10);
  long double ld = 1.0L, ldv = 2.0L, ldres = 0;
  cpu_atomic_accumulate(&ld, &ldv, 1, DART_TYPE_LONG_DOUBLE, DART_OP_SUM);
  cpu_atomic_fetch_and_op(&ld, &ldv, &ldres, DART_TYPE_LONG_DOUBLE,
                          DART_OP_REPLACE);
  ASSERT(ld == 1.0L);
  uint64_t raw = 5, rawv = 6, rawres = 0;
  cpu_atomic_accumulate(&raw, &rawv, 1, (dart_datatype_t)4096, DART_OP_SUM);
  cpu_atomic_compare_and_swap(&raw, &rawv, &raw, &rawres,
                              (dart_datatype_t)4096);
  ASSERT(raw == 5);
  cpu_atomic_accumulate(&raw, &rawv, 0, DART_TYPE_ULONGLONG, DART_OP_SUM);
  ASSERT(raw == 5);
  return 0;
}

static void single_process(void) { ASSERT(single() == 0); }

static const struct test_case cases[] = {
  { "single_process", single_process },
};

int main(int argc, char **argv)
{
  return test_run(argc, argv, TEST_CASES(cases));
}
