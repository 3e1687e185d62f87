/* CHECK for the tests of MPI-free base modules (no runtime to abort). */
#ifndef DART_TEST_PLAIN_CHECK_H
#define DART_TEST_PLAIN_CHECK_H

#include <stdio.h>

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);      \
      return 1;                                                            \
    }                                                                      \
  } while (0)

#endif
