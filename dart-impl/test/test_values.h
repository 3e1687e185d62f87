/* Reading and writing element i of a buffer of any basic DART type
 * through long double, which holds every basic type's values exactly
 * (64-bit integers included). */
#ifndef DART_TEST_VALUES_H
#define DART_TEST_VALUES_H

#include "test.h"

__attribute__((unused))
static void put_val(dart_datatype_t t, void *buf, size_t i, long double v)
{
  switch (t) {
  case DART_TYPE_BYTE:        ((char *)buf)[i] = (char)v; break;
  case DART_TYPE_SHORT:       ((short *)buf)[i] = (short)v; break;
  case DART_TYPE_INT:         ((int *)buf)[i] = (int)v; break;
  case DART_TYPE_UINT:        ((unsigned int *)buf)[i] = (unsigned int)v;
                              break;
  case DART_TYPE_LONG:        ((long *)buf)[i] = (long)v; break;
  case DART_TYPE_ULONG:       ((unsigned long *)buf)[i] = (unsigned long)v;
                              break;
  case DART_TYPE_LONGLONG:    ((long long *)buf)[i] = (long long)v; break;
  case DART_TYPE_ULONGLONG:   ((unsigned long long *)buf)[i] =
                                (unsigned long long)v;
                              break;
  case DART_TYPE_FLOAT:       ((float *)buf)[i] = (float)v; break;
  case DART_TYPE_DOUBLE:      ((double *)buf)[i] = (double)v; break;
  case DART_TYPE_LONG_DOUBLE: ((long double *)buf)[i] = v; break;
  default:                    ASSERT(!"put_val: not a basic type");
  }
}

__attribute__((unused))
static long double get_val(dart_datatype_t t, const void *buf, size_t i)
{
  switch (t) {
  case DART_TYPE_BYTE:        return ((const char *)buf)[i];
  case DART_TYPE_SHORT:       return ((const short *)buf)[i];
  case DART_TYPE_INT:         return ((const int *)buf)[i];
  case DART_TYPE_UINT:        return ((const unsigned int *)buf)[i];
  case DART_TYPE_LONG:        return ((const long *)buf)[i];
  case DART_TYPE_ULONG:       return ((const unsigned long *)buf)[i];
  case DART_TYPE_LONGLONG:    return ((const long long *)buf)[i];
  case DART_TYPE_ULONGLONG:   return ((const unsigned long long *)buf)[i];
  case DART_TYPE_FLOAT:       return ((const float *)buf)[i];
  case DART_TYPE_DOUBLE:      return ((const double *)buf)[i];
  case DART_TYPE_LONG_DOUBLE: return ((const long double *)buf)[i];
  default:                    ASSERT(!"get_val: not a basic type");
  }
  return 0;
}

/* Every basic type, in id order. */
#define TEST_NBASIC 11
__attribute__((unused))
static const dart_datatype_t test_basic_types[TEST_NBASIC] = {
  DART_TYPE_BYTE,     DART_TYPE_SHORT,     DART_TYPE_INT,
  DART_TYPE_UINT,     DART_TYPE_LONG,      DART_TYPE_ULONG,
  DART_TYPE_LONGLONG, DART_TYPE_ULONGLONG, DART_TYPE_FLOAT,
  DART_TYPE_DOUBLE,   DART_TYPE_LONG_DOUBLE
};

/* Bytes of a basic type; fails the test for anything else. */
__attribute__((unused))
static size_t basic_size(dart_datatype_t t)
{
  switch (t) {
  case DART_TYPE_BYTE:        return 1;
  case DART_TYPE_SHORT:       return sizeof(short);
  case DART_TYPE_INT:         return sizeof(int);
  case DART_TYPE_UINT:        return sizeof(unsigned int);
  case DART_TYPE_LONG:        return sizeof(long);
  case DART_TYPE_ULONG:       return sizeof(unsigned long);
  case DART_TYPE_LONGLONG:    return sizeof(long long);
  case DART_TYPE_ULONGLONG:   return sizeof(unsigned long long);
  case DART_TYPE_FLOAT:       return sizeof(float);
  case DART_TYPE_DOUBLE:      return sizeof(double);
  case DART_TYPE_LONG_DOUBLE: return sizeof(long double);
  default:                    ASSERT(!"basic_size: not a basic type");
  }
  return 0;
}

/* Bytes of a basic type that carry its value: an x86 long double's 10 of
 * its 16 (the rest is padding, which no operation need keep). */
__attribute__((unused))
static size_t basic_value_bytes(dart_datatype_t t)
{
  return t == DART_TYPE_LONG_DOUBLE ? 10 : basic_size(t);
}

/* Name of a basic type, NULL for anything else. */
__attribute__((unused))
static const char *basic_name(dart_datatype_t t)
{
  static const char *const names[DART_TYPE_LAST] = {
    NULL, "BYTE", "SHORT", "INT", "UINT", "LONG", "ULONG", "LONGLONG",
    "ULONGLONG", "FLOAT", "DOUBLE", "LONG_DOUBLE"
  };
  return t > DART_TYPE_UNDEFINED && t < DART_TYPE_LAST ? names[t] : NULL;
}

/* Element i of the data identified by `k`, exact in basic type t:
 * distinct per (k, i), negative values for signed types, quarter
 * fractions for floating types. */
__attribute__((unused))
static long double basic_pattern(dart_datatype_t t, int k, size_t i)
{
  long long kk = k, j = (long long)i;
  long long base = kk * 4099 + j * 3 + 1;
  switch (t) {
  case DART_TYPE_BYTE:
    return (long double)((kk * 37 + j * 11 + 5) % 120);
  case DART_TYPE_SHORT:
    return (long double)((kk * 1009 + j * 7 + 3) % 30000 - 15000);
  case DART_TYPE_UINT: case DART_TYPE_ULONG: case DART_TYPE_ULONGLONG:
    return (long double)base;
  case DART_TYPE_FLOAT: case DART_TYPE_DOUBLE: case DART_TYPE_LONG_DOUBLE:
    return (long double)((kk & 1) ? -base : base) +
           0.25L * (long double)(j % 4);
  default:
    return (long double)(((kk + j) & 1) ? -base : base);
  }
}

#endif
