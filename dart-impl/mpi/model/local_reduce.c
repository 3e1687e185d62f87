#include "mpi/model/local_reduce.h"
#include "base/basic_types.h"

#include <string.h>

typedef void reducer(void *acc, const void *in, size_t n,
                     dart_operation_t op);

/* acc[i] = expr of (x = acc[i], y = in[i]), both of type T. */
#define EACH(T, expr)                                                       \
  for (size_t i = 0; i < n; ++i) {                                          \
    T x = a[i], y = b[i];                                                   \
    a[i] = (expr);                                                          \
  }

/* (min, max) pairs, each half by the rule of MIN and MAX above. */
#define MINMAX_PAIRS                                                        \
  for (size_t i = 0; i + 1 < n; i += 2) {                                   \
    if (!(a[i] < b[i])) {                                                   \
      a[i] = b[i];                                                          \
    }                                                                       \
    if (!(a[i + 1] > b[i + 1])) {                                           \
      a[i + 1] = b[i + 1];                                                  \
    }                                                                       \
  }

/* Integer type T with unsigned counterpart U: arithmetic in U so signed
 * overflow wraps instead of being undefined (1u * widens narrow U past
 * int before the product). */
#define INTEGER_REDUCER(NAME, T, U)                                         \
  static void NAME(void *acc, const void *in, size_t n,                     \
                   dart_operation_t op)                                     \
  {                                                                         \
    T *a = acc;                                                             \
    const T *b = in;                                                        \
    switch (op) {                                                           \
    case DART_OP_SUM:  EACH(T, (T)(U)(1u * (U)x + (U)y)); break;            \
    case DART_OP_PROD: EACH(T, (T)(U)(1u * (U)x * (U)y)); break;            \
    case DART_OP_MIN:  EACH(T, x < y ? x : y);            break;            \
    case DART_OP_MAX:  EACH(T, x > y ? x : y);            break;            \
    case DART_OP_BAND: EACH(T, (T)(x & y));               break;            \
    case DART_OP_BOR:  EACH(T, (T)(x | y));               break;            \
    case DART_OP_BXOR: EACH(T, (T)(x ^ y));               break;            \
    case DART_OP_LAND: EACH(T, (T)(x != 0 && y != 0));    break;            \
    case DART_OP_LOR:  EACH(T, (T)(x != 0 || y != 0));    break;            \
    case DART_OP_LXOR: EACH(T, (T)((x != 0) != (y != 0))); break;           \
    case DART_OP_MINMAX: MINMAX_PAIRS                  break;               \
    default: break;                                                         \
    }                                                                       \
  }

#define FLOAT_REDUCER(NAME, T)                                              \
  static void NAME(void *acc, const void *in, size_t n,                     \
                   dart_operation_t op)                                     \
  {                                                                         \
    T *a = acc;                                                             \
    const T *b = in;                                                        \
    switch (op) {                                                           \
    case DART_OP_SUM:  EACH(T, x + y);           break;                     \
    case DART_OP_PROD: EACH(T, x * y);           break;                     \
    case DART_OP_MIN:  EACH(T, x < y ? x : y);   break;                     \
    case DART_OP_MAX:  EACH(T, x > y ? x : y);   break;                     \
    case DART_OP_MINMAX: MINMAX_PAIRS         break;                        \
    default: break;                                                         \
    }                                                                       \
  }

#define DEFINE_INTEGER_REDUCER(name, id, T, U, mpi, class)                \
  INTEGER_REDUCER(reduce_##name, T, U)
#define DEFINE_FLOAT_REDUCER(name, id, T, U, mpi, class)                  \
  FLOAT_REDUCER(reduce_##name, T)
BASIC_INTEGER_TYPES(DEFINE_INTEGER_REDUCER)
BASIC_FLOAT_TYPES(DEFINE_FLOAT_REDUCER)
BASIC_WIDE_FLOAT_TYPES(DEFINE_FLOAT_REDUCER)

static reducer *const reducers[DART_TYPE_LAST] = {
#define REDUCER_ENTRY(name, id, T, U, mpi, class) [id] = reduce_##name,
  BASIC_TYPES(REDUCER_ENTRY)
#undef REDUCER_ENTRY
};

bool local_reduce_supports(dart_operation_t op, dart_datatype_t type)
{
  if (type < 0 || type >= DART_TYPE_LAST || reducers[type] == NULL) {
    return false;
  }
  return op == DART_OP_MINMAX || basic_op_applies(op, type, false);
}

void local_reduce(void *acc, const void *in, size_t nelem,
                  dart_datatype_t type, dart_operation_t op)
{
  reducers[type](acc, in, nelem, op);
}

void local_reduce_slots(void *out, const void *slots, size_t stride,
                        int nslots, size_t nelem, size_t bytes,
                        dart_datatype_t type, dart_operation_t op)
{
  const char *slot = slots;
  memcpy(out, slot, bytes);
  for (int u = 1; u < nslots; ++u) {
    local_reduce(out, slot + (size_t)u * stride, nelem, type, op);
  }
}
