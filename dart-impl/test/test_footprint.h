/* What a process holds, read from /proc: tests that repeat something
 * thousands of times compare it before and after to catch leaks. */
#ifndef DART_TEST_FOOTPRINT_H
#define DART_TEST_FOOTPRINT_H

#include "test.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline long test_count_entries(const char *dir)
{
  DIR *d = opendir(dir);
  ASSERT(d != NULL);
  long count = 0;
  while (readdir(d) != NULL) {
    ++count;
  }
  closedir(d);
  return count;
}

static inline long test_count_lines(const char *path)
{
  FILE *f = fopen(path, "r");
  ASSERT(f != NULL);
  long lines = 0;
  int c;
  while ((c = fgetc(f)) != EOF) {
    lines += c == '\n';
  }
  fclose(f);
  return lines;
}

static inline long test_resident_kib(void)
{
  FILE *f = fopen("/proc/self/status", "r");
  ASSERT(f != NULL);
  char line[256];
  long kib = -1;
  while (fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, "VmRSS:", 6) == 0) {
      kib = strtol(line + 6, NULL, 10);
    }
  }
  fclose(f);
  ASSERT(kib > 0);
  return kib;
}

struct test_footprint {
  long fds, mappings, rss_kib;
};

static inline struct test_footprint test_footprint_now(void)
{
  return (struct test_footprint){ test_count_entries("/proc/self/fd"),
                                  test_count_lines("/proc/self/maps"),
                                  test_resident_kib() };
}

#endif
