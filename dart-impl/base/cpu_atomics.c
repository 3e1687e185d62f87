/* CPU atomics for memory that several processes map.  Each element is held
 * as the unsigned integer of its size and updated by one lock-free atomic
 * read-modify-write on that integer: a fetch-op instruction where one
 * exists, otherwise a compare-exchange loop that computes in the element's
 * own type.  Lock-freedom matters: a lock inside libatomic would be private
 * to one process and protect nothing across processes. */
#include "base/cpu_atomics.h"
#include "base/basic_types.h"

#include <string.h>

#define ORDER __ATOMIC_SEQ_CST

#if __GCC_ATOMIC_CHAR_LOCK_FREE != 2 || __GCC_ATOMIC_SHORT_LOCK_FREE != 2 || \
  __GCC_ATOMIC_INT_LOCK_FREE != 2 || __GCC_ATOMIC_LONG_LOCK_FREE != 2 ||    \
  __GCC_ATOMIC_LLONG_LOCK_FREE != 2
#error "CPU atomics on the basic integer types are not always lock-free"
#endif

/* Each element is held as U (basic_types.h): the integer of its size. */
#define SAME_SIZE(name, id, T, U, mpi, class)                               \
  _Static_assert(sizeof(T) == sizeof(U), "no integer of the size of " #T);
BASIC_INTEGER_TYPES(SAME_SIZE)
BASIC_FLOAT_TYPES(SAME_SIZE)

typedef void element_rmw(void *target, const void *value, void *result,
                         dart_operation_t op);
typedef void element_cas(void *target, const void *value, const void *compare,
                         void *result);

/* Operations with a direct fetch-op builtin on the bits (integers only;
 * unsigned arithmetic wraps like two's complement for the signed types). */
#define INTEGER_FETCH_OPS(t, arg, old)                                      \
  case DART_OP_SUM:  old = __atomic_fetch_add(t, arg, ORDER); break;        \
  case DART_OP_BAND: old = __atomic_fetch_and(t, arg, ORDER); break;        \
  case DART_OP_BOR:  old = __atomic_fetch_or(t, arg, ORDER);  break;        \
  case DART_OP_BXOR: old = __atomic_fetch_xor(t, arg, ORDER); break;
#define NO_FETCH_OPS(t, arg, old)

/* NAME_rmw: one element, *result (if not NULL) = old, target = old op arg.
 * Everything without a fetch-op goes through NAME_combine in a weak CAS
 * loop; the CAS refreshes `old` on failure.  An op NAME_combine does not
 * know (invalid for the type) leaves the target untouched. */
#define ELEMENT_RMW(NAME, U, FETCH_OPS)                                     \
  static void NAME##_rmw(void *target, const void *value, void *result,     \
                         dart_operation_t op)                               \
  {                                                                         \
    U *t = target;                                                          \
    U arg = 0, old, next = 0;                                               \
    if (op != DART_OP_NO_OP) { /* NO_OP's value is never read */            \
      memcpy(&arg, value, sizeof arg);                                      \
    }                                                                       \
    switch (op) {                                                           \
    FETCH_OPS(t, arg, old)                                                  \
    case DART_OP_REPLACE: old = __atomic_exchange_n(t, arg, ORDER); break;  \
    case DART_OP_NO_OP:   old = __atomic_load_n(t, ORDER);          break;  \
    default:                                                                \
      old = __atomic_load_n(t, ORDER);                                      \
      while (NAME##_combine(old, arg, op, &next) &&                         \
             !__atomic_compare_exchange_n(t, &old, next, true, ORDER,       \
                                          ORDER)) {                         \
      }                                                                     \
    }                                                                       \
    if (result != NULL) {                                                   \
      memcpy(result, &old, sizeof old);                                     \
    }                                                                       \
  }

/* Integer type T held as its unsigned counterpart U: comparisons in T (so
 * unsigned types compare unsigned), arithmetic in U (no signed overflow;
 * 1u * promotes narrow U to unsigned int rather than int). */
#define INTEGER_KIND(NAME, T, U)                                            \
  static bool NAME##_combine(U old, U arg, dart_operation_t op, U *out)     \
  {                                                                         \
    switch (op) {                                                           \
    case DART_OP_MIN:  *out = (T)old < (T)arg ? old : arg;   return true;   \
    case DART_OP_MAX:  *out = (T)old > (T)arg ? old : arg;   return true;   \
    case DART_OP_PROD: *out = (U)(1u * old * arg);           return true;   \
    case DART_OP_LAND: *out = (U)(old != 0 && arg != 0);     return true;   \
    case DART_OP_LOR:  *out = (U)(old != 0 || arg != 0);     return true;   \
    case DART_OP_LXOR: *out = (U)((old != 0) != (arg != 0)); return true;   \
    default:           return false;                                        \
    }                                                                       \
  }                                                                         \
  ELEMENT_RMW(NAME, U, INTEGER_FETCH_OPS)                                   \
  static void NAME##_cas(void *target, const void *value,                   \
                         const void *compare, void *result)                 \
  {                                                                         \
    U desired, expected;                                                    \
    memcpy(&desired, value, sizeof desired);                                \
    memcpy(&expected, compare, sizeof expected);                            \
    /* on failure `expected` receives the current value */                  \
    __atomic_compare_exchange_n((U *)target, &expected, desired, false,     \
                                ORDER, ORDER);                              \
    memcpy(result, &expected, sizeof expected);                             \
  }

/* Floating type T held as the integer U of its size: the CAS loop compares
 * bit patterns (so it terminates even on NaN) and computes in T. */
#define FLOAT_KIND(NAME, T, U)                                              \
  static bool NAME##_combine(U old, U arg, dart_operation_t op, U *out)     \
  {                                                                         \
    T a, b, r;                                                              \
    memcpy(&a, &old, sizeof a);                                             \
    memcpy(&b, &arg, sizeof b);                                             \
    switch (op) {                                                           \
    case DART_OP_MIN:  r = a < b ? a : b; break;                            \
    case DART_OP_MAX:  r = a > b ? a : b; break;                            \
    case DART_OP_SUM:  r = a + b;         break;                            \
    case DART_OP_PROD: r = a * b;         break;                            \
    default:           return false;                                        \
    }                                                                       \
    memcpy(out, &r, sizeof r);                                              \
    return true;                                                            \
  }                                                                         \
  ELEMENT_RMW(NAME, U, NO_FETCH_OPS)

#define DEFINE_INTEGER_KIND(name, id, T, U, mpi, class) INTEGER_KIND(name, T, U)
#define DEFINE_FLOAT_KIND(name, id, T, U, mpi, class) FLOAT_KIND(name, T, U)
BASIC_INTEGER_TYPES(DEFINE_INTEGER_KIND)
BASIC_FLOAT_TYPES(DEFINE_FLOAT_KIND)

struct kind {
  size_t       size;
  element_rmw *rmw;
  element_cas *cas; /* NULL: no compare-and-swap for the type */
};

/* dart_compare_and_swap takes integral types only (dart_communication.h):
 * the floating types list their read-modify-writes alone. */
static const struct kind kinds[] = {
#define INTEGER_ENTRY(name, id, T, U, mpi, class)                          \
  [id] = { sizeof(T), name##_rmw, name##_cas },
#define FLOAT_ENTRY(name, id, T, U, mpi, class)                            \
  [id] = { sizeof(T), name##_rmw, NULL },
  BASIC_INTEGER_TYPES(INTEGER_ENTRY)
  BASIC_FLOAT_TYPES(FLOAT_ENTRY)
#undef INTEGER_ENTRY
#undef FLOAT_ENTRY
};

static const struct kind *kind_of(dart_datatype_t type)
{
  /* negative and derived-type ids are out of range as size_t */
  if ((size_t)type >= sizeof kinds / sizeof kinds[0] ||
      kinds[type].rmw == NULL) {
    return NULL;
  }
  return &kinds[type];
}

bool cpu_atomic_supported(dart_datatype_t type)
{
  return kind_of(type) != NULL;
}

void cpu_atomic_accumulate(void *target, const void *values, size_t nelem,
                           dart_datatype_t type, dart_operation_t op)
{
  const struct kind *kind = kind_of(type);
  if (kind == NULL || op == DART_OP_NO_OP) {
    return;
  }
  for (size_t i = 0; i < nelem; ++i) {
    kind->rmw((char *)target + i * kind->size,
              (const char *)values + i * kind->size, NULL, op);
  }
}

void cpu_atomic_fetch_and_op(void *target, const void *value, void *result,
                             dart_datatype_t type, dart_operation_t op)
{
  const struct kind *kind = kind_of(type);
  if (kind != NULL) {
    kind->rmw(target, value, result, op);
  }
}

void cpu_atomic_compare_and_swap(void *target, const void *value,
                                 const void *compare, void *result,
                                 dart_datatype_t type)
{
  const struct kind *kind = kind_of(type);
  if (kind != NULL && kind->cas != NULL) {
    kind->cas(target, value, compare, result);
  }
}
