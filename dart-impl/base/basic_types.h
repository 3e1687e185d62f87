/* The basic DART types, listed once. Every table or function with one
 * entry per basic type expands these lists (datatype.c, local_reduce.c,
 * operation.c, cpu_atomics.c), so a type is added or changed here only.
 *
 * X(name, id, T, U, mpi, class):
 *   T      the C type of an element;
 *   U      the unsigned integer of T's size: for integers the type their
 *          arithmetic wraps in, for float and double the integer that
 *          carries their bits through CPU atomics;
 *   mpi    the MPI datatype (a token: MPI-free code never expands it);
 *   class  which operations apply (basic_op_applies). */
#ifndef DART_BASE_BASIC_TYPES_H
#define DART_BASE_BASIC_TYPES_H

#include <dash/dart/if/dart_types.h>

#include <stdbool.h>
#include <stddef.h>

enum basic_class {
  BASIC_NONE,    /* not a basic type */
  BASIC_BYTE,    /* raw bytes: bitwise operations only */
  BASIC_INTEGER,
  BASIC_FLOAT
};

#define BASIC_INTEGER_TYPES(X)                                              \
  X(byte, DART_TYPE_BYTE, char, unsigned char, MPI_BYTE, BASIC_BYTE)        \
  X(short, DART_TYPE_SHORT, short, unsigned short, MPI_SHORT,               \
    BASIC_INTEGER)                                                          \
  X(int, DART_TYPE_INT, int, unsigned int, MPI_INT, BASIC_INTEGER)          \
  X(uint, DART_TYPE_UINT, unsigned int, unsigned int, MPI_UNSIGNED,         \
    BASIC_INTEGER)                                                          \
  X(long, DART_TYPE_LONG, long, unsigned long, MPI_LONG, BASIC_INTEGER)     \
  X(ulong, DART_TYPE_ULONG, unsigned long, unsigned long,                   \
    MPI_UNSIGNED_LONG, BASIC_INTEGER)                                       \
  X(longlong, DART_TYPE_LONGLONG, long long, unsigned long long,            \
    MPI_LONG_LONG, BASIC_INTEGER)                                           \
  X(ulonglong, DART_TYPE_ULONGLONG, unsigned long long, unsigned long long, \
    MPI_UNSIGNED_LONG_LONG, BASIC_INTEGER)

/* Floating types with an integer of their size (CPU atomics can hold
 * them). */
#define BASIC_FLOAT_TYPES(X)                                                \
  X(float, DART_TYPE_FLOAT, float, unsigned int, MPI_FLOAT, BASIC_FLOAT)    \
  X(double, DART_TYPE_DOUBLE, double, unsigned long long, MPI_DOUBLE,       \
    BASIC_FLOAT)

/* Floating types without one: no CPU atomics (U is not an integer). */
#define BASIC_WIDE_FLOAT_TYPES(X)                                           \
  X(long_double, DART_TYPE_LONG_DOUBLE, long double, long double,           \
    MPI_LONG_DOUBLE, BASIC_FLOAT)

#define BASIC_TYPES(X)                                                      \
  BASIC_INTEGER_TYPES(X) BASIC_FLOAT_TYPES(X) BASIC_WIDE_FLOAT_TYPES(X)

static inline enum basic_class basic_type_class(dart_datatype_t type)
{
  switch (type) {
#define BASIC_CLASS_CASE(name, id, T, U, mpi, class) case id: return class;
  BASIC_TYPES(BASIC_CLASS_CASE)
#undef BASIC_CLASS_CASE
  default: return BASIC_NONE;
  }
}

/* Bytes of an element of `type`, a basic type or DART_TYPE_UNDEFINED
 * (0). One load: put and get ask on their fast path. */
static inline size_t basic_type_size(dart_datatype_t type)
{
  static const unsigned char sizes[DART_TYPE_LAST] = {
#define BASIC_SIZE_ENTRY(name, id, T, U, mpi, class) [id] = sizeof(T),
    BASIC_TYPES(BASIC_SIZE_ENTRY)
#undef BASIC_SIZE_ENTRY
  };
  return sizes[type];
}

/* Whether `type` is an integer type (BYTE .. ULONGLONG): what
 * compare-and-swap accepts. */
static inline bool basic_type_is_integral(dart_datatype_t type)
{
  return type >= DART_TYPE_BYTE && type <= DART_TYPE_ULONGLONG;
}

/* Whether the predefined operation `op` applies to basic `type`:
 * arithmetic and MIN/MAX to numbers, bitwise operations to integers and
 * bytes, logical ones to integers; REPLACE and NO_OP only where `atomic`
 * (accumulate and fetch-and-op, not reductions). */
static inline bool basic_op_applies(dart_operation_t op,
                                    dart_datatype_t type, bool atomic)
{
  enum basic_class class = basic_type_class(type);
  switch (op) {
  case DART_OP_MIN: case DART_OP_MAX: case DART_OP_SUM: case DART_OP_PROD:
    return class == BASIC_INTEGER || class == BASIC_FLOAT;
  case DART_OP_BAND: case DART_OP_BOR: case DART_OP_BXOR:
    return class == BASIC_INTEGER || class == BASIC_BYTE;
  case DART_OP_LAND: case DART_OP_LOR: case DART_OP_LXOR:
    return class == BASIC_INTEGER;
  case DART_OP_REPLACE: case DART_OP_NO_OP:
    return atomic && class != BASIC_NONE;
  default:
    return false;
  }
}

#endif
