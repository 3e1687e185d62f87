#include "datatype.h"
#include "runtime.h"
#include "../base/handle_table.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static struct datatype basic_types[DART_TYPE_LAST];
static struct handle_table derived_types = HANDLE_TABLE_INITIALIZER;

static void set_basic(dart_datatype_t id, size_t size, MPI_Datatype mpi)
{
  basic_types[id] = (struct datatype){
    .kind = TYPE_BASIC, .id = id, .base = id, .base_size = size,
    .mpi_base = mpi, .block_count = 1, .extent = 1,
  };
}

dart_ret_t datatype_module_init(const char *call)
{
  (void)call;
  set_basic(DART_TYPE_BYTE, 1, MPI_BYTE);
  set_basic(DART_TYPE_SHORT, sizeof(short), MPI_SHORT);
  set_basic(DART_TYPE_INT, sizeof(int), MPI_INT);
  set_basic(DART_TYPE_UINT, sizeof(unsigned int), MPI_UNSIGNED);
  set_basic(DART_TYPE_LONG, sizeof(long), MPI_LONG);
  set_basic(DART_TYPE_ULONG, sizeof(unsigned long), MPI_UNSIGNED_LONG);
  set_basic(DART_TYPE_LONGLONG, sizeof(long long), MPI_LONG_LONG);
  set_basic(DART_TYPE_ULONGLONG, sizeof(unsigned long long),
            MPI_UNSIGNED_LONG_LONG);
  set_basic(DART_TYPE_FLOAT, sizeof(float), MPI_FLOAT);
  set_basic(DART_TYPE_DOUBLE, sizeof(double), MPI_DOUBLE);
  set_basic(DART_TYPE_LONG_DOUBLE, sizeof(long double), MPI_LONG_DOUBLE);
  return DART_OK;
}

static void datatype_free(void *entry)
{
  struct datatype *type = entry;
  if (type->kind == TYPE_CUSTOM) {
    MPI_Type_free(&type->mpi_base);
  }
  free(type->blocklens);
  free(type->offsets);
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
  };
  return publish(__func__, desc, newtype);
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
  struct datatype *desc = calloc(1, sizeof *desc);
  size_t *lens = malloc(count * sizeof(size_t));
  size_t *offs = malloc(count * sizeof(size_t));
  if (desc == NULL || lens == NULL || offs == NULL) {
    free(desc);
    free(lens);
    free(offs);
    return report_error(DART_ERR_NOMEM, __func__, "out of memory");
  }
  memcpy(lens, blocklen, count * sizeof(size_t));
  memcpy(offs, offset, count * sizeof(size_t));
  *desc = (struct datatype){
    .kind = TYPE_INDEXED, .base = base->id, .base_size = base->base_size,
    .mpi_base = base->mpi_base, .block_count = total,
    .extent = highest - lowest, .num_blocks = count, .blocklens = lens,
    .offsets = offs,
  };
  return publish(__func__, desc, newtype);
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
    .block_count = 1, .extent = 1,
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
