#include "mpi/model/operation.h"
#include "base/basic_types.h"
#include "base/handle_table.h"
#include "mpi/core/quirks.h"
#include "mpi/core/runtime.h"
#include "mpi/model/datatype.h"
#include "mpi/model/local_reduce.h"

#include <stdlib.h>
#include <string.h>

struct user_op {
  dart_operator_t fn;
  void           *userdata;
  dart_datatype_t dtype;
  MPI_Datatype    mpi_type; /* private duplicate carrying this op */
  MPI_Op          mpi_op;
};

static struct handle_table user_ops = HANDLE_TABLE_INITIALIZER;
static int user_op_keyval = MPI_KEYVAL_INVALID;

/* DART_OP_MINMAX works on (min, max) pairs; reducing a pair type keeps
 * MPI from splitting a pair when it segments the buffer. */
static MPI_Datatype minmax_pair[DART_TYPE_LAST];
static MPI_Op minmax_op[DART_TYPE_LAST];

/* MPI's view of the pairs: `len` pairs of the DART type; the combining
 * itself is local_reduce's, shared with the shared-memory reductions. */
#define DEFINE_MINMAX(name, dtype)                                         \
  static void name(void *in, void *inout, int *len, MPI_Datatype *type)    \
  {                                                                        \
    (void)type;                                                            \
    local_reduce(inout, in, 2 * (size_t)*len, dtype, DART_OP_MINMAX);      \
  }
#define DEFINE_MINMAX_OF(name, id, T, U, mpi, class)                       \
  DEFINE_MINMAX(minmax_##name, id)
BASIC_TYPES(DEFINE_MINMAX_OF)

static MPI_User_function *const minmax_function[DART_TYPE_LAST] = {
#define MINMAX_ENTRY(name, id, T, U, mpi, class) [id] = minmax_##name,
  BASIC_TYPES(MINMAX_ENTRY)
#undef MINMAX_ENTRY
};

/* MIN and MAX of the unsigned types where no MPI type orders them right
 * (core/quirks.h, mpi_minmax_type). */
#define DEFINE_UNSIGNED_PICK(name, ctype, cmp)                             \
  static void name(void *in, void *inout, int *len, MPI_Datatype *type)    \
  {                                                                        \
    (void)type;                                                            \
    const ctype *a = in;                                                   \
    ctype *b = inout;                                                      \
    for (int i = 0; i < *len; ++i) {                                       \
      if (a[i] cmp b[i]) {                                                 \
        b[i] = a[i];                                                       \
      }                                                                    \
    }                                                                      \
  }
DEFINE_UNSIGNED_PICK(min_uint, unsigned int, <)
DEFINE_UNSIGNED_PICK(max_uint, unsigned int, >)
DEFINE_UNSIGNED_PICK(min_ulong, unsigned long, <)
DEFINE_UNSIGNED_PICK(max_ulong, unsigned long, >)
DEFINE_UNSIGNED_PICK(min_ulonglong, unsigned long long, <)
DEFINE_UNSIGNED_PICK(max_ulonglong, unsigned long long, >)

static MPI_User_function *const unsigned_min_function[DART_TYPE_LAST] = {
  [DART_TYPE_UINT] = min_uint, [DART_TYPE_ULONG] = min_ulong,
  [DART_TYPE_ULONGLONG] = min_ulonglong,
};
static MPI_User_function *const unsigned_max_function[DART_TYPE_LAST] = {
  [DART_TYPE_UINT] = max_uint, [DART_TYPE_ULONG] = max_ulong,
  [DART_TYPE_ULONGLONG] = max_ulonglong,
};
static MPI_Op unsigned_min_op[DART_TYPE_LAST];
static MPI_Op unsigned_max_op[DART_TYPE_LAST];

static bool is_unsigned(dart_datatype_t t)
{
  return t == DART_TYPE_UINT || t == DART_TYPE_ULONG ||
         t == DART_TYPE_ULONGLONG;
}

/* MPI calls user functions without user data; the op rides on an
 * attribute of its private datatype. */
static void user_op_trampoline(void *in, void *inout, int *len,
                               MPI_Datatype *type)
{
  struct user_op *op = NULL;
  int found = 0;
  MPI_Type_get_attr(*type, user_op_keyval, &op, &found);
  if (found && op != NULL) {
    op->fn(in, inout, (size_t)*len, op->userdata);
  }
}

static MPI_Datatype call_type = MPI_DATATYPE_NULL;
static MPI_Op agree_op = MPI_OP_NULL;

void reduction_call_fill(struct reduction_call *c, const void *sendbuf,
                         size_t nelem, size_t bytes, dart_datatype_t dtype,
                         dart_operation_t op, int root)
{
  memset(c, 0, sizeof *c);
  c->words[0] = nelem;
  c->words[1] = bytes;
  c->words[2] = datatype_is_basic_id(dtype) ? (uint64_t)dtype : UINT64_MAX;
  c->words[3] = op < DART_OP_LAST ? (uint64_t)op : UINT64_MAX;
  c->words[4] = (uint64_t)(int64_t)root;
  if (reduction_call_local(c)) {
    memcpy(c->data, sendbuf, bytes);
  }
}

bool reduction_call_local(const struct reduction_call *c)
{
  return c->words[1] > 0 && c->words[1] <= REDUCTION_CALL_MAX_BYTES &&
         c->words[2] != UINT64_MAX && c->words[3] != UINT64_MAX &&
         local_reduce_supports((dart_operation_t)c->words[3],
                               (dart_datatype_t)c->words[2]);
}

void reduction_call_reduce(void *acc, const void *in,
                           const struct reduction_call *c)
{
  local_reduce(acc, in, (size_t)c->words[0], (dart_datatype_t)c->words[2],
               (dart_operation_t)c->words[3]);
}

/* MPI calls it with elements of call_type; commutative (created so), as
 * every op local_reduce handles is. */
static void agree_function(void *in, void *inout, int *len,
                           MPI_Datatype *type)
{
  (void)type;
  const struct reduction_call *a = in;
  struct reduction_call *b = inout;
  for (int k = 0; k < *len; ++k) {
    if (a[k].disagree || b[k].disagree ||
        memcmp(a[k].words, b[k].words, sizeof b[k].words) != 0) {
      b[k].disagree = 1;
    } else if (reduction_call_local(&b[k])) {
      reduction_call_reduce(b[k].data, a[k].data, &b[k]);
    }
  }
}

MPI_Datatype operation_call_type(void)
{
  return call_type;
}

MPI_Op operation_agree_op(void)
{
  return agree_op;
}

dart_ret_t operation_module_init(const char *call)
{
  int err = MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN,
                                   MPI_TYPE_NULL_DELETE_FN, &user_op_keyval,
                                   NULL);
  for (dart_datatype_t t = DART_TYPE_BYTE; err == MPI_SUCCESS &&
                                           t < DART_TYPE_LAST; ++t) {
    err = MPI_Type_contiguous(2, datatype_get(t)->mpi_base, &minmax_pair[t]);
    if (err == MPI_SUCCESS) {
      err = MPI_Type_commit(&minmax_pair[t]);
    }
    if (err == MPI_SUCCESS) {
      err = MPI_Op_create(minmax_function[t], 1, &minmax_op[t]);
    }
    if (err == MPI_SUCCESS && is_unsigned(t)) {
      err = MPI_Op_create(unsigned_min_function[t], 1, &unsigned_min_op[t]);
      if (err == MPI_SUCCESS) {
        err = MPI_Op_create(unsigned_max_function[t], 1,
                            &unsigned_max_op[t]);
      }
    }
  }
  if (err == MPI_SUCCESS) {
    err = MPI_Type_contiguous((int)sizeof(struct reduction_call), MPI_BYTE,
                              &call_type);
  }
  if (err == MPI_SUCCESS) {
    err = MPI_Type_commit(&call_type);
  }
  if (err == MPI_SUCCESS) {
    err = MPI_Op_create(agree_function, 1, &agree_op);
  }
  if (err != MPI_SUCCESS) {
    operation_module_finalize();
    return report_mpi_error(call, "creating the MINMAX and agreeing "
                            "operations", err);
  }
  return DART_OK;
}

static void user_op_free(void *entry)
{
  struct user_op *op = entry;
  MPI_Op_free(&op->mpi_op);
  MPI_Type_free(&op->mpi_type);
  free(op);
}

void operation_module_finalize(void)
{
  handle_table_clear(&user_ops, user_op_free);
  for (int t = DART_TYPE_BYTE; t < DART_TYPE_LAST; ++t) {
    if (minmax_op[t] != MPI_OP_NULL && minmax_op[t] != 0) {
      MPI_Op_free(&minmax_op[t]);
    }
    if (minmax_pair[t] != MPI_DATATYPE_NULL && minmax_pair[t] != 0) {
      MPI_Type_free(&minmax_pair[t]);
    }
    MPI_Op *own[2] = { &unsigned_min_op[t], &unsigned_max_op[t] };
    for (int k = 0; k < 2; ++k) {
      if (*own[k] != MPI_OP_NULL && *own[k] != 0) {
        MPI_Op_free(own[k]);
      }
    }
  }
  if (agree_op != MPI_OP_NULL) {
    MPI_Op_free(&agree_op);
  }
  if (call_type != MPI_DATATYPE_NULL) {
    MPI_Type_free(&call_type);
  }
  if (user_op_keyval != MPI_KEYVAL_INVALID) {
    MPI_Type_free_keyval(&user_op_keyval);
  }
}

MPI_Op operation_mpi_op(dart_operation_t op)
{
  switch (op) {
  case DART_OP_MIN:     return MPI_MIN;
  case DART_OP_MAX:     return MPI_MAX;
  case DART_OP_SUM:     return MPI_SUM;
  case DART_OP_PROD:    return MPI_PROD;
  case DART_OP_BAND:    return MPI_BAND;
  case DART_OP_LAND:    return MPI_LAND;
  case DART_OP_BOR:     return MPI_BOR;
  case DART_OP_LOR:     return MPI_LOR;
  case DART_OP_BXOR:    return MPI_BXOR;
  case DART_OP_LXOR:    return MPI_LXOR;
  case DART_OP_REPLACE: return MPI_REPLACE;
  case DART_OP_NO_OP:   return MPI_NO_OP;
  default:              return MPI_OP_NULL;
  }
}

dart_ret_t reduction_resolve(const char *call, dart_operation_t op,
                             dart_datatype_t dtype, size_t nelem,
                             struct reduction *out)
{
  const struct datatype *desc = datatype_contiguous_or_report(call, dtype);
  if (desc == NULL) {
    return DART_ERR_INVAL;
  }
  if (op >= HANDLE_TABLE_MIN_ID) {
    struct user_op *uop = handle_table_lookup(&user_ops, (intptr_t)op);
    if (uop == NULL) {
      return report_error(DART_ERR_INVAL, call,
                          "operation %lu is neither predefined nor a live "
                          "dart_op_create operation", (unsigned long)op);
    }
    if (uop->dtype != dtype) {
      return report_error(DART_ERR_INVAL, call,
                          "operation was created for type %ld, called with "
                          "type %ld", (long)uop->dtype, (long)dtype);
    }
    *out = (struct reduction){ uop->mpi_op, uop->mpi_type, nelem,
                               desc->base_size };
    return DART_OK;
  }
  if (desc->kind != TYPE_BASIC) {
    return report_error(DART_ERR_INVAL, call,
                        "predefined operation %lu on custom type %ld",
                        (unsigned long)op, (long)dtype);
  }
  if (op == DART_OP_MINMAX) {
    if (nelem % 2 != 0) {
      return report_error(DART_ERR_INVAL, call,
                          "DART_OP_MINMAX needs an even nelem, got %zu",
                          nelem);
    }
    *out = (struct reduction){ minmax_op[dtype], minmax_pair[dtype],
                               nelem / 2, 2 * desc->base_size };
    return DART_OK;
  }
  if (!basic_op_applies(op, dtype, false)) {
    return report_error(DART_ERR_INVAL, call,
                        "operation %lu is not a valid reduction on type %ld",
                        (unsigned long)op, (long)dtype);
  }
  MPI_Op mpi_op = operation_mpi_op(op);
  MPI_Datatype mpi_type = desc->mpi_base;
  if (op == DART_OP_MIN || op == DART_OP_MAX) {
    /* A same-width type whose MIN/MAX order right, or our own op. */
    mpi_type = mpi_minmax_type(dtype);
    if (mpi_type == MPI_DATATYPE_NULL) {
      mpi_type = desc->mpi_base;
      mpi_op = op == DART_OP_MIN ? unsigned_min_op[dtype]
                                 : unsigned_max_op[dtype];
    }
  }
  *out = (struct reduction){ mpi_op, mpi_type, nelem, desc->base_size };
  return DART_OK;
}

dart_ret_t dart_op_create(dart_operator_t op, void *userdata, bool commute,
                          dart_datatype_t dtype, bool dtype_is_tmp,
                          dart_operation_t *new_op)
{
  (void)dtype_is_tmp; /* the op keeps its own duplicate of the type */
  REQUIRE_INIT();
  if (new_op == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "new_op is NULL");
  }
  *new_op = DART_OP_UNDEFINED;
  if (op == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "op is NULL");
  }
  const struct datatype *desc = datatype_contiguous_or_report(__func__, dtype);
  if (desc == NULL) {
    return DART_ERR_INVAL;
  }
  struct user_op *uop = calloc(1, sizeof *uop);
  if (uop == NULL) {
    return report_error(DART_ERR_NOMEM, __func__, "out of memory");
  }
  uop->fn = op;
  uop->userdata = userdata;
  uop->dtype = dtype;
  int err = MPI_Type_dup(desc->mpi_base, &uop->mpi_type);
  if (err == MPI_SUCCESS) {
    err = MPI_Type_set_attr(uop->mpi_type, user_op_keyval, uop);
    if (err == MPI_SUCCESS) {
      err = MPI_Op_create(user_op_trampoline, commute, &uop->mpi_op);
    }
    if (err != MPI_SUCCESS) {
      MPI_Type_free(&uop->mpi_type);
    }
  }
  if (err != MPI_SUCCESS) {
    free(uop);
    return report_mpi_error(__func__, "MPI_Op_create", err);
  }
  intptr_t id = handle_table_insert(&user_ops, uop);
  if (id == 0) {
    user_op_free(uop);
    return report_error(DART_ERR_NOMEM, __func__,
                        "no room for another operation");
  }
  *new_op = (dart_operation_t)id;
  return DART_OK;
}

dart_ret_t dart_op_destroy(dart_operation_t *op)
{
  REQUIRE_INIT();
  if (op == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "op is NULL");
  }
  struct user_op *uop = *op >= HANDLE_TABLE_MIN_ID
                          ? handle_table_remove(&user_ops, (intptr_t)*op)
                          : NULL;
  if (uop == NULL) {
    return report_error(DART_ERR_INVAL, __func__,
                        "operation %lu is not a live user operation",
                        (unsigned long)*op);
  }
  user_op_free(uop);
  *op = DART_OP_UNDEFINED;
  return DART_OK;
}
