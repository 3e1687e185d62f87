/* White-box test of the put/get datatype layer: element positions, spans,
 * datatype_copy and the MPI layouts, all checked against a naive
 * per-element reference written from the position formula of the strided
 * and indexed types (dart-if/include/dash/dart/if/dart_types.h). */
#include "mpi/model/datatype.h"
#include "mpi/core/large_count.h"

#include <dash/dart/if/dart.h>

#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { SLACK = 64 }; /* bytes past the span that must stay untouched */

/* The test's own picture of a layout; positions come from ref_pos only. */
struct layout {
  dart_datatype_t id;
  enum { CONTIG, STRIDED, INDEXED } kind;
  size_t s, b;                       /* strided */
  size_t c, len[8], off[8];          /* indexed */
};

static struct layout contig(dart_datatype_t type)
{
  return (struct layout){ .id = type, .kind = CONTIG };
}

static struct layout strided(dart_datatype_t base, size_t s, size_t b)
{
  struct layout l = { .kind = STRIDED, .s = s, .b = b };
  ASSERT_OK(dart_type_create_strided(base, s, b, &l.id));
  return l;
}

static struct layout indexed(dart_datatype_t base, size_t c,
                             const size_t *len, const size_t *off)
{
  struct layout l = { .kind = INDEXED, .c = c };
  ASSERT(c <= 8);
  memcpy(l.len, len, c * sizeof *len);
  memcpy(l.off, off, c * sizeof *off);
  ASSERT_OK(dart_type_create_indexed(base, c, len, off, &l.id));
  return l;
}

/* dart_types.h, literally: position of element j in base elements. */
static size_t ref_pos(const struct layout *l, size_t j)
{
  if (l->kind == CONTIG) {
    return j;
  }
  if (l->kind == STRIDED) {
    return j / l->b * l->s + j % l->b;
  }
  size_t B = 0, hi = 0, lo = SIZE_MAX;
  for (size_t i = 0; i < l->c; ++i) {
    B += l->len[i];
    hi = l->off[i] + l->len[i] > hi ? l->off[i] + l->len[i] : hi;
    lo = l->off[i] < lo ? l->off[i] : lo;
  }
  size_t r = j / B, k = j % B, before = 0, i = 0;
  while (k >= before + l->len[i]) {
    before += l->len[i++];
  }
  return r * (hi - lo) + l->off[i] + (k - before);
}

static size_t ref_span(const struct layout *l, size_t nelem, size_t size)
{
  size_t end = 0;
  for (size_t j = 0; j < nelem; ++j) {
    end = ref_pos(l, j) + 1 > end ? ref_pos(l, j) + 1 : end;
  }
  return end * size;
}

/* Source bytes: 32-bit words numbered from 1, so misplaced elements show. */
static unsigned char *pattern(size_t bytes)
{
  size_t words = (bytes + SLACK) / 4 + 1;
  uint32_t *p = malloc(words * 4);
  ASSERT(p != NULL);
  for (size_t i = 0; i < words; ++i) {
    p[i] = (uint32_t)i + 1;
  }
  return (unsigned char *)p;
}

static unsigned char *blank(size_t bytes)
{
  unsigned char *p = malloc(bytes + SLACK);
  ASSERT(p != NULL);
  memset(p, 0xEE, bytes + SLACK);
  return p;
}

/* One transfer (nelem, src, dst): span, datatype_copy and an MPI
 * Sendrecv over the MPI layouts must all match the reference. */
static void check_pair(const struct layout *src, const struct layout *dst,
                       size_t nelem)
{
  const struct datatype *sd = NULL, *dd = NULL;
  ASSERT_OK(datatype_check_transfer("test", src->id, dst->id, nelem, &sd, &dd));
  ASSERT(sd == datatype_get(src->id) && dd == datatype_get(dst->id));
  size_t size = sd->base_size;
  size_t sspan = ref_span(src, nelem, size), dspan = ref_span(dst, nelem, size);
  ASSERT_EQ(datatype_span_bytes(sd, nelem), sspan);
  ASSERT_EQ(datatype_span_bytes(dd, nelem), dspan);

  unsigned char *in = pattern(sspan);
  unsigned char *want = blank(dspan), *got = blank(dspan), *mpi = blank(dspan);
  for (size_t j = 0; j < nelem; ++j) {
    memcpy(want + ref_pos(dst, j) * size, in + ref_pos(src, j) * size, size);
  }
  datatype_copy(got, dd, in, sd, nelem);
  ASSERT(memcmp(got, want, dspan + SLACK) == 0);

  struct mpi_count sc, dc;
  ASSERT_EQ(datatype_mpi_layout(sd, nelem, &sc), MPI_SUCCESS);
  ASSERT_EQ(datatype_mpi_layout(dd, nelem, &dc), MPI_SUCCESS);
  /* Folding must kick in exactly when the instance count exceeds the limit
   * (DART_MPI_COUNT_LIMIT=3 in the countlimit variant). */
  ASSERT_EQ(sc.owned, nelem / sd->block_count > mpi_count_limit());
  ASSERT_EQ(dc.owned, nelem / dd->block_count > mpi_count_limit());
  ASSERT_EQ(MPI_Sendrecv(in, sc.count, sc.type, 0, 7, mpi, dc.count, dc.type,
                         0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE),
            MPI_SUCCESS);
  ASSERT(memcmp(mpi, want, dspan + SLACK) == 0);
  mpi_count_release(&sc);
  mpi_count_release(&dc);
  free(in);
  free(want);
  free(got);
  free(mpi);
}

static void check_both_ways(const struct layout *a, const struct layout *b,
                            size_t nelem)
{
  check_pair(a, b, nelem);
  check_pair(b, a, nelem);
}

/* Worked examples of strided and indexed types (dart_types.h), with
 * exact values. */
static void spec_examples(void)
{
  struct layout s3 = strided(DART_TYPE_INT, 3, 1);
  struct layout s52 = strided(DART_TYPE_INT, 5, 2);
  struct layout s21 = strided(DART_TYPE_INT, 2, 1);
  const struct datatype *in = datatype_get(DART_TYPE_INT);
  int src[240], dest[240];
  for (int i = 0; i < 240; ++i) {
    src[i] = i;
    dest[i] = -1;
  }
  /* strided (3,1) source: elements 0, 3, ..., 117 into dest[0..39] */
  datatype_copy(dest, in, src, datatype_get(s3.id), 40);
  for (int j = 0; j < 40; ++j) {
    ASSERT_EQ(dest[j], 3 * j);
  }
  ASSERT_EQ(dest[40], -1);
  ASSERT_EQ(datatype_span_bytes(datatype_get(s3.id), 40), 118 * sizeof(int));
  /* swapped: 0..39 into dest[0], dest[3], ... */
  for (int i = 0; i < 240; ++i) {
    dest[i] = -1;
  }
  datatype_copy(dest, datatype_get(s3.id), src, in, 40);
  for (int i = 0; i < 240; ++i) {
    ASSERT_EQ(dest[i], i % 3 == 0 && i < 120 ? i / 3 : -1);
  }
  /* strided (5,2) into strided (2,1), nelem 48: 0,1,5,6,10,11,... into
   * dest[0], dest[2], dest[4], ... */
  for (int i = 0; i < 240; ++i) {
    dest[i] = -1;
  }
  datatype_copy(dest, datatype_get(s21.id), src, datatype_get(s52.id), 48);
  ASSERT_EQ(dest[0], 0);
  ASSERT_EQ(dest[2], 1);
  ASSERT_EQ(dest[4], 5);
  ASSERT_EQ(dest[6], 6);
  ASSERT_EQ(dest[8], 10);
  for (int i = 0; i < 240; ++i) {
    ASSERT_EQ(dest[i], i % 2 == 0 && i < 96 ? i / 4 * 5 + i / 2 % 2 : -1);
  }
  ASSERT_EQ(datatype_span_bytes(datatype_get(s52.id), 48),
            (23 * 5 + 2) * sizeof(int));
  ASSERT_EQ(datatype_span_bytes(datatype_get(s21.id), 48), 95 * sizeof(int));

  struct layout i32 = contig(DART_TYPE_INT);
  check_both_ways(&s3, &i32, 40);
  check_both_ways(&s3, &i32, 120);
  check_both_ways(&s52, &s21, 48);
  check_both_ways(&s52, &s21, 96);
  dart_datatype_t ids[3] = { s3.id, s52.id, s21.id };
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(dart_type_destroy(&ids[i]));
  }
}

/* MPI type of one instance: lb 0, extent E elements, size B elements. */
static void check_instance(const struct layout *l, size_t extent)
{
  const struct datatype *d = datatype_get(l->id);
  MPI_Aint lb, ext;
  int bytes;
  ASSERT_EQ(d->extent, extent);
  ASSERT_EQ(MPI_Type_get_extent(d->mpi_instance, &lb, &ext), MPI_SUCCESS);
  ASSERT_EQ(lb, 0);
  ASSERT_EQ(ext, extent * d->base_size);
  ASSERT_EQ(MPI_Type_size(d->mpi_instance, &bytes), MPI_SUCCESS);
  ASSERT_EQ(bytes, d->block_count * d->base_size);
}

static void layouts(void)
{
  /* Blocks out of offset order, an empty block, smallest offset 2:
   * B = 6, E = 13 - 2 = 11. */
  const size_t a_len[] = { 3, 0, 2, 1 }, a_off[] = { 7, 9, 2, 12 };
  /* Blocks 0 and 1 adjacent, and block 1 of instance r adjacent to block 2
   * of instance r+1 (9 + 8r == 8(r+1) + 1): runs merge. B = 6, E = 8. */
  const size_t b_len[] = { 2, 3, 1 }, b_off[] = { 4, 6, 1 };
  /* One block at offset 5: E = 2, instances overlap nothing and form one
   * run starting at element 5. */
  const size_t c_len[] = { 2 }, c_off[] = { 5 };
  /* The empty block holds the smallest offset: E = 9 - 1 = 8. */
  const size_t z_len[] = { 0, 2, 1 }, z_off[] = { 1, 4, 8 };

  struct layout i32 = contig(DART_TYPE_INT);
  struct layout ia = indexed(DART_TYPE_INT, 4, a_len, a_off);
  struct layout ib = indexed(DART_TYPE_INT, 3, b_len, b_off);
  struct layout ic = indexed(DART_TYPE_INT, 1, c_len, c_off);
  struct layout iz = indexed(DART_TYPE_INT, 3, z_len, z_off);
  struct layout s43 = strided(DART_TYPE_INT, 4, 3);
  struct layout s44 = strided(DART_TYPE_INT, 4, 4);
  struct layout s21 = strided(DART_TYPE_INT, 2, 1);

  const struct datatype *da = datatype_get(ia.id);
  ASSERT_EQ(da->block_count, 6);
  const size_t starts[] = { 0, 3, 3, 5 };
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(da->block_starts[i], starts[i]);
  }
  check_instance(&ia, 11);
  check_instance(&ib, 8);
  check_instance(&ic, 2);
  check_instance(&iz, 8);
  check_instance(&s43, 4);
  ASSERT(datatype_get(DART_TYPE_INT)->mpi_instance == MPI_DATATYPE_NULL);

  /* Spans: last instance r, max end of its blocks (empty ones ignored). */
  ASSERT_EQ(datatype_span_bytes(da, 0), 0);
  ASSERT_EQ(datatype_span_bytes(da, 6), 13 * sizeof(int));
  ASSERT_EQ(datatype_span_bytes(da, 12), (11 + 13) * sizeof(int));
  ASSERT_EQ(datatype_span_bytes(da, 9), (11 + 10) * sizeof(int));
  ASSERT_EQ(datatype_span_bytes(datatype_get(ib.id), 12),
            (8 + 9) * sizeof(int));
  ASSERT_EQ(datatype_span_bytes(datatype_get(ic.id), 4), 9 * sizeof(int));
  ASSERT_EQ(datatype_span_bytes(datatype_get(iz.id), 6), (8 + 9) * sizeof(int));

  /* Explicit positions of ia over two instances. */
  int src[64], dest[16];
  for (int i = 0; i < 64; ++i) {
    src[i] = i;
  }
  datatype_copy(dest, datatype_get(DART_TYPE_INT), src, da, 12);
  const int expect[] = { 7, 8, 9, 2, 3, 12, 18, 19, 20, 13, 14, 23 };
  for (int j = 0; j < 12; ++j) {
    ASSERT_EQ(dest[j], expect[j]);
  }

  const size_t n = 540; /* a multiple of every B here (6, 4, 3, 2, 1) */
  const struct layout *all[] = { &i32, &ia, &ib, &ic, &iz, &s43, &s44, &s21 };
  for (size_t x = 0; x < 8; ++x) {
    for (size_t y = 0; y < 8; ++y) {
      check_pair(all[x], all[y], n);
      check_pair(all[x], all[y], 0);
    }
  }
  check_pair(&ia, &s43, 6); /* fewer instances than the count limit */

  /* A 12-byte custom base. */
  dart_datatype_t cust;
  ASSERT_OK(dart_type_create_custom(12, &cust));
  ASSERT(datatype_get(cust)->mpi_instance == MPI_DATATYPE_NULL);
  struct layout c12 = contig(cust);
  struct layout cs = strided(cust, 3, 2);
  struct layout ci = indexed(cust, 4, a_len, a_off);
  check_instance(&cs, 3);
  ASSERT_EQ(datatype_span_bytes(datatype_get(cs.id), 6), 8 * 12);
  check_both_ways(&cs, &c12, 90);
  check_both_ways(&cs, &ci, 90);
  check_pair(&cs, &cs, 90);

  /* An 8-byte basic base. */
  struct layout lg = contig(DART_TYPE_LONG);
  struct layout ls = strided(DART_TYPE_LONG, 4, 1);
  check_both_ways(&ls, &lg, 50);

  dart_datatype_t ids[] = { ia.id, ib.id, ic.id, iz.id, s43.id, s44.id,
                            s21.id, cs.id, ci.id, ls.id, cust };
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; ++i) {
    ASSERT_OK(dart_type_destroy(&ids[i]));
  }
}

static void transfer_checks(void)
{
  const struct datatype *s = NULL, *d = NULL;
  dart_datatype_t cust, s52, sl, gone;
  ASSERT_OK(dart_type_create_custom(12, &cust));
  ASSERT_OK(dart_type_create_strided(DART_TYPE_INT, 5, 2, &s52));
  ASSERT_OK(dart_type_create_strided(DART_TYPE_LONG, 3, 1, &sl));
  ASSERT_OK(dart_type_create_strided(DART_TYPE_INT, 3, 1, &gone));
  dart_datatype_t stale = gone;
  ASSERT_OK(dart_type_destroy(&gone));

  ASSERT_OK(datatype_check_transfer("t", DART_TYPE_INT, DART_TYPE_INT, 0, &s,
                                    &d));
  ASSERT(s == datatype_get(DART_TYPE_INT) && d == s);
  ASSERT_OK(datatype_check_transfer("t", s52, DART_TYPE_INT, 48, &s, &d));
  ASSERT_OK(datatype_check_transfer("t", DART_TYPE_INT, s52, 4, &s, &d));
  ASSERT_OK(datatype_check_transfer("t", cust, cust, 5, &s, &d));
  ASSERT_OK(datatype_check_transfer("t", sl, DART_TYPE_LONG, 7, &s, &d));

  const dart_ret_t inval = DART_ERR_INVAL;
  /* base mismatch */
  ASSERT_RET(datatype_check_transfer("t", DART_TYPE_INT, DART_TYPE_LONG, 4, &s,
                                     &d), inval);
  ASSERT_RET(datatype_check_transfer("t", cust, DART_TYPE_BYTE, 4, &s, &d),
             inval);
  ASSERT_RET(datatype_check_transfer("t", DART_TYPE_BYTE, cust, 4, &s, &d),
             inval);
  ASSERT_RET(datatype_check_transfer("t", sl, s52, 2, &s, &d), inval);
  /* nelem not a multiple of B, either side */
  ASSERT_RET(datatype_check_transfer("t", s52, DART_TYPE_INT, 3, &s, &d),
             inval);
  ASSERT_RET(datatype_check_transfer("t", DART_TYPE_INT, s52, 3, &s, &d),
             inval);
  /* undefined, destroyed, junk, sentinel */
  ASSERT_RET(datatype_check_transfer("t", DART_TYPE_UNDEFINED, DART_TYPE_INT, 1,
                                     &s, &d), inval);
  ASSERT_RET(datatype_check_transfer("t", DART_TYPE_INT, DART_TYPE_UNDEFINED, 1,
                                     &s, &d), inval);
  ASSERT_RET(datatype_check_transfer("t", stale, DART_TYPE_INT, 3, &s, &d),
             inval);
  ASSERT_RET(datatype_check_transfer("t", DART_TYPE_INT, stale, 3, &s, &d),
             inval);
  ASSERT_RET(datatype_check_transfer("t", DART_TYPE_LAST, DART_TYPE_LAST, 1, &s,
                                     &d), inval);
  ASSERT_RET(datatype_check_transfer("t", (dart_datatype_t)123456789,
                                     DART_TYPE_INT, 1, &s, &d), inval);

  ASSERT_OK(dart_type_destroy(&cust));
  ASSERT_OK(dart_type_destroy(&s52));
  ASSERT_OK(dart_type_destroy(&sl));
}

/* The overlap flag of indexed types, in given and in shuffled block
 * order, with touching and empty blocks, and what it refuses. */
static void overlap_flags(void)
{
  static const struct {
    size_t count, lens[4], offs[4];
    bool   overlapping;
  } layouts[] = {
    { 3, { 2, 1, 3 }, { 0, 4, 7 }, false }, /* ascending, gaps */
    { 2, { 2, 2 }, { 0, 2 }, false },       /* touching */
    { 2, { 2, 3 }, { 6, 1 }, false },       /* descending, disjoint */
    { 3, { 2, 0, 2 }, { 0, 1, 2 }, false }, /* an empty block inside */
    { 2, { 4, 4 }, { 0, 2 }, true },        /* ascending, sharing 2..3 */
    { 2, { 2, 3 }, { 2, 0 }, true },        /* descending, sharing 2 */
    { 2, { 1, 1 }, { 5, 5 }, true },        /* the same element twice */
    { 4, { 1, 1, 1, 3 }, { 9, 3, 6, 0 }, false }, /* shuffled, touching */
    { 4, { 1, 1, 1, 4 }, { 9, 3, 6, 0 }, true },  /* shuffled, sharing 3 */
  };
  for (size_t i = 0; i < sizeof layouts / sizeof *layouts; ++i) {
    STAGE("layout %zu", i);
    dart_datatype_t id;
    ASSERT_OK(dart_type_create_indexed(DART_TYPE_INT, layouts[i].count,
                                       layouts[i].lens, layouts[i].offs,
                                       &id));
    const struct datatype *t = datatype_get(id);
    ASSERT_EQ(t->overlapping, layouts[i].overlapping);
    size_t nelem = 2 * t->block_count;
    const struct datatype *s = NULL, *d = NULL;
    ASSERT_OK(datatype_check_transfer("t", id, DART_TYPE_INT, nelem, &s, &d));
    ASSERT_RET(datatype_check_transfer("t", DART_TYPE_INT, id, nelem, &s, &d),
               layouts[i].overlapping ? DART_ERR_INVAL : DART_OK);
    ASSERT_OK(dart_type_destroy(&id));
  }
  /* Strided and custom types never overlap. */
  dart_datatype_t st, cust;
  ASSERT_OK(dart_type_create_strided(DART_TYPE_INT, 2, 2, &st));
  ASSERT_OK(dart_type_create_custom(12, &cust));
  ASSERT(!datatype_get(st)->overlapping && !datatype_get(cust)->overlapping);
  ASSERT(!datatype_get(DART_TYPE_INT)->overlapping);
  ASSERT_OK(dart_type_destroy(&st));
  ASSERT_OK(dart_type_destroy(&cust));
}

static const struct test_case cases[] = {
  { "spec_examples", spec_examples },
  { "layouts", layouts },
  { "transfer_checks", transfer_checks },
  { "overlap_flags", overlap_flags },
};

int main(int argc, char **argv)
{
  return test_run_dart(argc, argv, TEST_CASES(cases));
}
