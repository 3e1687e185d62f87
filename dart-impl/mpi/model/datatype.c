#include "mpi/model/datatype.h"
#include "base/basic_types.h"
#include "base/handle_table.h"
#include "mpi/core/large_count.h"
#include "mpi/core/runtime.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static struct datatype basic_types[DART_TYPE_LAST];
static struct handle_table derived_types = HANDLE_TABLE_INITIALIZER;

static void set_basic(dart_datatype_t id, size_t size, MPI_Datatype mpi)
{
  basic_types[id] = (struct datatype){
    .kind = TYPE_BASIC, .id = id, .base = id, .base_size = size,
    .mpi_base = mpi, .block_count = 1, .extent = 1,
    .mpi_instance = MPI_DATATYPE_NULL,
  };
}

dart_ret_t datatype_module_init(const char *call)
{
  (void)call;
#define SET_BASIC(name, id, T, U, mpi, class) set_basic(id, sizeof(T), mpi);
  BASIC_TYPES(SET_BASIC)
#undef SET_BASIC
  return DART_OK;
}

static void datatype_free(void *entry)
{
  struct datatype *type = entry;
  if (type->kind == TYPE_CUSTOM) {
    MPI_Type_free(&type->mpi_base);
  }
  if (type->mpi_instance != MPI_DATATYPE_NULL) {
    MPI_Type_free(&type->mpi_instance);
  }
  free(type->blocklens);
  free(type->offsets);
  free(type->block_starts);
  free(type);
}

void datatype_module_finalize(void)
{
  handle_table_clear(&derived_types, datatype_free);
}

const struct datatype *datatype_get(dart_datatype_t type)
{
  if (datatype_is_basic_id(type)) {
    return &basic_types[type];
  }
  return handle_table_lookup(&derived_types, type);
}

const struct datatype *datatype_contiguous_or_report(const char *call,
                                                     dart_datatype_t type)
{
  const struct datatype *desc = datatype_get(type);
  if (desc == NULL) {
    report_error(DART_ERR_INVAL, call, "invalid datatype %ld", (long)type);
    return NULL;
  }
  if (desc->kind == TYPE_STRIDED || desc->kind == TYPE_INDEXED) {
    report_error(DART_ERR_INVAL, call,
                 "datatype %ld is strided/indexed; this call needs a basic "
                 "or custom type", (long)type);
    return NULL;
  }
  return desc;
}

/* Builds desc->mpi_instance: one instance of a strided/indexed layout with
 * lower bound 0 and extent E base elements, so that instance r starts at r*E
 * exactly as the position formulas of dart_communication.h say. Indexed blocks
 * keep their given order (MPI packs in type-map order, which is the element
 * order j) and their offsets from the buffer start. Frees desc and logs on
 * failure. */
static dart_ret_t build_instance(const char *call, struct datatype *desc)
{
  if (desc->extent > (size_t)PTRDIFF_MAX / desc->base_size) {
    dart_ret_t ret = report_error(DART_ERR_INVAL, call,
                                  "instance extent of %zu elements of %zu "
                                  "bytes overflows MPI_Aint", desc->extent,
                                  desc->base_size);
    datatype_free(desc);
    return ret;
  }
  MPI_Datatype raw = MPI_DATATYPE_NULL;
  const char *what = desc->kind == TYPE_STRIDED ? "MPI_Type_contiguous"
                                                : "MPI_Type_indexed";
  int err;
  if (desc->kind == TYPE_STRIDED) {
    err = MPI_Type_contiguous((int)desc->blocklen, desc->mpi_base, &raw);
  } else {
    int *lens = malloc(desc->num_blocks * sizeof(int));
    int *displs = malloc(desc->num_blocks * sizeof(int));
    if (lens == NULL || displs == NULL) {
      free(lens);
      free(displs);
      datatype_free(desc);
      return report_error(DART_ERR_NOMEM, call, "out of memory");
    }
    int n = 0;
    for (size_t i = 0; i < desc->num_blocks; ++i) {
      if (desc->blocklens[i] > 0) { /* not every MPI takes empty blocks */
        lens[n] = (int)desc->blocklens[i];
        displs[n++] = (int)desc->offsets[i];
      }
    }
    err = MPI_Type_indexed(n, lens, displs, desc->mpi_base, &raw);
    free(lens);
    free(displs);
  }
  if (err == MPI_SUCCESS) {
    what = "MPI_Type_create_resized";
    err = MPI_Type_create_resized(
      raw, 0, (MPI_Aint)(desc->extent * desc->base_size), &desc->mpi_instance);
  }
  if (raw != MPI_DATATYPE_NULL) {
    MPI_Type_free(&raw);
  }
  if (err == MPI_SUCCESS) {
    what = "MPI_Type_commit";
    err = MPI_Type_commit(&desc->mpi_instance);
  }
  if (err != MPI_SUCCESS) {
    datatype_free(desc);
    return report_mpi_error(call, what, err);
  }
  return DART_OK;
}

/* Registers a filled-in descriptor and hands out its id. */
static dart_ret_t publish(const char *call, struct datatype *desc,
                          dart_datatype_t *newtype)
{
  intptr_t id = handle_table_insert(&derived_types, desc);
  if (id == 0) {
    datatype_free(desc);
    return report_error(DART_ERR_NOMEM, call, "no room for another type");
  }
  desc->id = (dart_datatype_t)id;
  if (desc->kind == TYPE_CUSTOM) {
    desc->base = desc->id;
  }
  *newtype = desc->id;
  return DART_OK;
}

dart_ret_t dart_type_create_strided(dart_datatype_t basetype, size_t stride,
                                    size_t blocklen, dart_datatype_t *newtype)
{
  REQUIRE_INIT();
  if (newtype == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "newtype is NULL");
  }
  *newtype = DART_TYPE_UNDEFINED;
  const struct datatype *base = datatype_contiguous_or_report(__func__, basetype);
  if (base == NULL) {
    return DART_ERR_INVAL;
  }
  if (blocklen == 0 || stride < blocklen || stride > INT_MAX) {
    return report_error(DART_ERR_INVAL, __func__,
                        "need 1 <= blocklen <= stride <= INT_MAX, got "
                        "blocklen %zu, stride %zu", blocklen, stride);
  }
  struct datatype *desc = calloc(1, sizeof *desc);
  if (desc == NULL) {
    return report_error(DART_ERR_NOMEM, __func__, "out of memory");
  }
  *desc = (struct datatype){
    .kind = TYPE_STRIDED, .base = base->id, .base_size = base->base_size,
    .mpi_base = base->mpi_base, .block_count = blocklen, .extent = stride,
    .stride = stride, .blocklen = blocklen,
    .mpi_instance = MPI_DATATYPE_NULL,
  };
  dart_ret_t ret = build_instance(__func__, desc);
  return ret == DART_OK ? publish(__func__, desc, newtype) : ret;
}

struct block {
  size_t offset, len;
};

static int block_by_offset(const void *a, const void *b)
{
  size_t x = ((const struct block *)a)->offset;
  size_t y = ((const struct block *)b)->offset;
  return (x > y) - (x < y);
}

/* Whether two non-empty blocks of an indexed type share an element.
 * Instances cannot overlap each other (the extent spans every block), so
 * one instance decides. In offset order the blocks are disjoint exactly
 * when each starts at or past the end of the one before: blocks given in
 * that order, the usual case, are checked in one pass without memory,
 * others in a sorted copy. Offsets and lengths are at most INT_MAX, so
 * offset + length cannot wrap. */
static dart_ret_t find_overlap(const char *call, size_t count,
                               const size_t *lens, const size_t *offs,
                               bool *overlapping)
{
  size_t end = 0; /* of the blocks so far, all disjoint */
  bool ascending = true;
  for (size_t i = 0; i < count; ++i) {
    if (lens[i] == 0) {
      continue;
    }
    if (offs[i] < end) {
      /* Inside the block before, or before it: the sorted check says. */
      ascending = false;
      break;
    }
    end = offs[i] + lens[i];
  }
  *overlapping = false;
  if (ascending) {
    return DART_OK;
  }
  struct block *blocks = malloc(count * sizeof *blocks);
  if (blocks == NULL) {
    return report_error(DART_ERR_NOMEM, call, "out of memory");
  }
  size_t n = 0;
  for (size_t i = 0; i < count; ++i) {
    if (lens[i] > 0) {
      blocks[n++] = (struct block){ offs[i], lens[i] };
    }
  }
  qsort(blocks, n, sizeof *blocks, block_by_offset);
  for (size_t i = 1; i < n && !*overlapping; ++i) {
    *overlapping = blocks[i].offset <
                   blocks[i - 1].offset + blocks[i - 1].len;
  }
  free(blocks);
  return DART_OK;
}

dart_ret_t dart_type_create_indexed(dart_datatype_t basetype, size_t count,
                                    const size_t blocklen[],
                                    const size_t offset[],
                                    dart_datatype_t *newtype)
{
  REQUIRE_INIT();
  if (newtype == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "newtype is NULL");
  }
  *newtype = DART_TYPE_UNDEFINED;
  const struct datatype *base = datatype_contiguous_or_report(__func__, basetype);
  if (base == NULL) {
    return DART_ERR_INVAL;
  }
  if (count == 0 || count > INT_MAX || blocklen == NULL || offset == NULL) {
    return report_error(DART_ERR_INVAL, __func__,
                        "need 1 <= count <= INT_MAX and non-NULL blocklen "
                        "and offset arrays (count %zu)", count);
  }
  size_t total = 0, lowest = SIZE_MAX, highest = 0;
  for (size_t i = 0; i < count; ++i) {
    if (blocklen[i] > INT_MAX || offset[i] > INT_MAX) {
      return report_error(DART_ERR_INVAL, __func__,
                          "block %zu: length %zu or offset %zu exceeds "
                          "INT_MAX", i, blocklen[i], offset[i]);
    }
    total += blocklen[i];
    lowest = offset[i] < lowest ? offset[i] : lowest;
    highest = offset[i] + blocklen[i] > highest ? offset[i] + blocklen[i]
                                                : highest;
  }
  if (total == 0) {
    return report_error(DART_ERR_INVAL, __func__, "all blocks are empty");
  }
  bool overlapping;
  dart_ret_t found = find_overlap(__func__, count, blocklen, offset,
                                  &overlapping);
  if (found != DART_OK) {
    return found;
  }
  struct datatype *desc = calloc(1, sizeof *desc);
  size_t *lens = malloc(count * sizeof(size_t));
  size_t *offs = malloc(count * sizeof(size_t));
  size_t *starts = malloc(count * sizeof(size_t));
  if (desc == NULL || lens == NULL || offs == NULL || starts == NULL) {
    free(desc);
    free(lens);
    free(offs);
    free(starts);
    return report_error(DART_ERR_NOMEM, __func__, "out of memory");
  }
  memcpy(lens, blocklen, count * sizeof(size_t));
  memcpy(offs, offset, count * sizeof(size_t));
  for (size_t i = 0, sum = 0; i < count; sum += blocklen[i++]) {
    starts[i] = sum;
  }
  /* E = max(off+len) - min(off) over all blocks, empty ones included,
   * as dart_communication.h writes them. */
  *desc = (struct datatype){
    .kind = TYPE_INDEXED, .base = base->id, .base_size = base->base_size,
    .mpi_base = base->mpi_base, .block_count = total,
    .extent = highest - lowest, .num_blocks = count, .blocklens = lens,
    .offsets = offs, .block_starts = starts,
    .mpi_instance = MPI_DATATYPE_NULL, .overlapping = overlapping,
  };
  dart_ret_t ret = build_instance(__func__, desc);
  return ret == DART_OK ? publish(__func__, desc, newtype) : ret;
}

dart_ret_t dart_type_create_custom(size_t num_bytes, dart_datatype_t *newtype)
{
  REQUIRE_INIT();
  if (newtype == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "newtype is NULL");
  }
  *newtype = DART_TYPE_UNDEFINED;
  if (num_bytes == 0 || num_bytes > INT_MAX) {
    return report_error(DART_ERR_INVAL, __func__,
                        "num_bytes %zu is not in [1, INT_MAX]", num_bytes);
  }
  struct datatype *desc = calloc(1, sizeof *desc);
  if (desc == NULL) {
    return report_error(DART_ERR_NOMEM, __func__, "out of memory");
  }
  MPI_Datatype mpi = MPI_DATATYPE_NULL;
  int err = MPI_Type_contiguous((int)num_bytes, MPI_BYTE, &mpi);
  if (err == MPI_SUCCESS) {
    err = MPI_Type_commit(&mpi);
  }
  if (err != MPI_SUCCESS) {
    free(desc);
    return report_mpi_error(__func__, "MPI_Type_contiguous", err);
  }
  *desc = (struct datatype){
    .kind = TYPE_CUSTOM, .base_size = num_bytes, .mpi_base = mpi,
    .block_count = 1, .extent = 1, .mpi_instance = MPI_DATATYPE_NULL,
  };
  return publish(__func__, desc, newtype);
}

dart_ret_t dart_type_destroy(dart_datatype_t *dart_type)
{
  REQUIRE_INIT();
  if (dart_type == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "dart_type is NULL");
  }
  if (datatype_is_basic_id(*dart_type)) {
    return report_error(DART_ERR_INVAL, __func__,
                        "type %ld is a basic type and cannot be destroyed",
                        (long)*dart_type);
  }
  struct datatype *desc = handle_table_remove(&derived_types, *dart_type);
  if (desc == NULL) {
    return report_error(DART_ERR_INVAL, __func__,
                        "type %ld is not a live derived type",
                        (long)*dart_type);
  }
  datatype_free(desc);
  *dart_type = DART_TYPE_UNDEFINED;
  return DART_OK;
}

/* --- one-sided transfers (dart_communication.h) --- */

static bool is_contiguous(const struct datatype *t)
{
  return t->kind == TYPE_BASIC || t->kind == TYPE_CUSTOM;
}

/* end * size if it stays within DATATYPE_MAX_SPAN, else SIZE_MAX. */
static size_t span_times(size_t end, size_t size)
{
  size_t bytes;
  if (__builtin_mul_overflow(end, size, &bytes) || bytes > DATATYPE_MAX_SPAN) {
    return SIZE_MAX;
  }
  return bytes;
}

size_t datatype_span_bytes(const struct datatype *type, size_t nelem)
{
  if (nelem == 0) {
    return 0;
  }
  /* Every step is checked: nelem comes straight from the caller, and a
   * wrapped span would let a huge transfer pass the bounds check. */
  size_t last = nelem - 1, end; /* end: in base elements */
  switch (type->kind) {
  case TYPE_STRIDED:
    if (__builtin_mul_overflow(last / type->blocklen, type->stride, &end) ||
        __builtin_add_overflow(end, last % type->blocklen + 1, &end)) {
      return SIZE_MAX;
    }
    break;
  case TYPE_INDEXED: {
    /* Every block of the last touched instance lies beyond all earlier
     * instances, so only that instance's touched blocks matter. */
    size_t k = last % type->block_count, inst_end = 0;
    for (size_t i = 0; i < type->num_blocks; ++i) {
      if (type->blocklens[i] > 0 && type->block_starts[i] <= k) {
        size_t used = k + 1 - type->block_starts[i];
        size_t len = used < type->blocklens[i] ? used : type->blocklens[i];
        size_t block_end = type->offsets[i] + len;
        inst_end = block_end > inst_end ? block_end : inst_end;
      }
    }
    if (__builtin_mul_overflow(last / type->block_count, type->extent,
                               &end) ||
        __builtin_add_overflow(end, inst_end, &end)) {
      return SIZE_MAX;
    }
    break;
  }
  default:
    end = nelem;
  }
  return span_times(end, type->base_size);
}

dart_ret_t datatype_check_bytes(const char *call, const char *what,
                                size_t nelem, size_t elem_size, size_t count,
                                size_t *bytes)
{
  size_t elems;
  if (__builtin_mul_overflow(nelem, count, &elems) ||
      (*bytes = span_times(elems, elem_size)) == SIZE_MAX) {
    *bytes = 0;
    if (count == 1) {
      return report_error(DART_ERR_INVAL, call,
                          "%s: %zu elements of %zu bytes exceed the "
                          "largest buffer (%zu bytes)", what, nelem,
                          elem_size, DATATYPE_MAX_SPAN);
    }
    return report_error(DART_ERR_INVAL, call,
                        "%s: %zu blocks of %zu elements of %zu bytes exceed "
                        "the largest buffer (%zu bytes)", what, count, nelem,
                        elem_size, DATATYPE_MAX_SPAN);
  }
  return DART_OK;
}

dart_ret_t datatype_check_transfer_spans(const char *call,
                                         dart_datatype_t src_type,
                                         dart_datatype_t dst_type,
                                         size_t nelem,
                                         const struct datatype **src,
                                         const struct datatype **dst,
                                         size_t *src_span, size_t *dst_span)
{
  const struct datatype *s = datatype_get(src_type);
  const struct datatype *d = datatype_get(dst_type);
  if (s == NULL || d == NULL) {
    return report_error(DART_ERR_INVAL, call, "invalid datatype %ld",
                        (long)(s == NULL ? src_type : dst_type));
  }
  if (s->base != d->base) {
    return report_error(DART_ERR_INVAL, call,
                        "src_type %ld and dst_type %ld have different base "
                        "types (%ld, %ld)", (long)src_type, (long)dst_type,
                        (long)s->base, (long)d->base);
  }
  /* MPI calls overlapping entries erroneous where data is stored (the
   * target type of MPI_Put, the origin type of MPI_Get), and a copy
   * through such a layout would keep one of several values arbitrarily. */
  if (d->overlapping) {
    return report_error(DART_ERR_INVAL, call,
                        "dst_type %ld has overlapping blocks: it may lay out "
                        "memory a transfer reads, not memory it writes",
                        (long)dst_type);
  }
  const struct datatype *types[2] = { s, d };
  size_t *spans[2] = { src_span, dst_span };
  for (int i = 0; i < 2; ++i) {
    if (nelem % types[i]->block_count != 0) {
      return report_error(DART_ERR_INVAL, call,
                          "nelem %zu is not a multiple of the block count "
                          "%zu of %s %ld", nelem, types[i]->block_count,
                          i == 0 ? "src_type" : "dst_type",
                          (long)types[i]->id);
    }
    if ((*spans[i] = datatype_span_bytes(types[i], nelem)) == SIZE_MAX) {
      return report_error(DART_ERR_INVAL, call,
                          "nelem %zu of %s %ld spans more than the largest "
                          "buffer (%zu bytes)", nelem,
                          i == 0 ? "src_type" : "dst_type",
                          (long)types[i]->id, DATATYPE_MAX_SPAN);
    }
  }
  *src = s;
  *dst = d;
  return DART_OK;
}

dart_ret_t datatype_check_transfer(const char *call, dart_datatype_t src_type,
                                   dart_datatype_t dst_type, size_t nelem,
                                   const struct datatype **src,
                                   const struct datatype **dst)
{
  size_t src_span, dst_span;
  return datatype_check_transfer_spans(call, src_type, dst_type, nelem, src,
                                       dst, &src_span, &dst_span);
}

/* Walks the element positions of a layout as maximal contiguous runs
 * (adjacent blocks, also across instances, are merged), handing out
 * exactly `left` elements in total. */
struct run_iter {
  const struct datatype *t;
  size_t left;       /* elements not yet handed out */
  size_t inst;       /* element position of the current instance */
  size_t block;      /* indexed: next block */
  bool   have_next;  /* one raw run of lookahead */
  size_t next_pos, next_len;
  size_t pos, len;   /* current run, in base elements; len 0 at the end */
};

static bool raw_run(struct run_iter *it, size_t *pos, size_t *len)
{
  const struct datatype *t = it->t;
  if (it->left == 0) {
    return false;
  }
  if (t->kind == TYPE_STRIDED && t->stride != t->blocklen) {
    *pos = it->inst;
    *len = t->blocklen;
    it->inst += t->stride;
  } else if (t->kind == TYPE_INDEXED) {
    while (t->blocklens[it->block] == 0) { /* ends: some block is not */
      if (++it->block == t->num_blocks) {
        it->block = 0;
        it->inst += t->extent;
      }
    }
    *pos = it->inst + t->offsets[it->block];
    *len = t->blocklens[it->block];
    if (++it->block == t->num_blocks) {
      it->block = 0;
      it->inst += t->extent;
    }
  } else { /* contiguous, or strided without gaps */
    *pos = it->inst;
    *len = it->left;
  }
  if (*len > it->left) {
    *len = it->left;
  }
  it->left -= *len;
  return true;
}

static void run_advance(struct run_iter *it)
{
  if (!it->have_next) {
    it->len = 0;
    return;
  }
  it->pos = it->next_pos;
  it->len = it->next_len;
  while ((it->have_next = raw_run(it, &it->next_pos, &it->next_len)) &&
         it->next_pos == it->pos + it->len) {
    it->len += it->next_len;
  }
}

static void run_init(struct run_iter *it, const struct datatype *t,
                     size_t nelem)
{
  *it = (struct run_iter){ .t = t, .left = nelem };
  it->have_next = raw_run(it, &it->next_pos, &it->next_len);
  run_advance(it);
}

void datatype_copy(void *dst, const struct datatype *dst_type,
                   const void *src, const struct datatype *src_type,
                   size_t nelem)
{
  size_t size = src_type->base_size;
  if (nelem == 0) {
    return;
  }
  if (is_contiguous(src_type) && is_contiguous(dst_type)) {
    memcpy(dst, src, nelem * size);
    return;
  }
  struct run_iter s, d;
  run_init(&s, src_type, nelem);
  run_init(&d, dst_type, nelem);
  while (s.len > 0 && d.len > 0) {
    size_t n = s.len < d.len ? s.len : d.len;
    memcpy((char *)dst + d.pos * size, (const char *)src + s.pos * size,
           n * size);
    s.pos += n;
    d.pos += n;
    if ((s.len -= n) == 0) {
      run_advance(&s);
    }
    if ((d.len -= n) == 0) {
      run_advance(&d);
    }
  }
}

int datatype_mpi_layout(const struct datatype *type, size_t nelem,
                        struct mpi_count *out)
{
  if (is_contiguous(type)) {
    return mpi_count_make(nelem, type->mpi_base, out);
  }
  return mpi_count_make(nelem / type->block_count, type->mpi_instance, out);
}
