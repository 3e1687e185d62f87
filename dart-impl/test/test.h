/* The one assertion dialect and case runner of the C test programs.
 *
 * Writing a test: include "test.h", write each case as `static void
 * name(void)`, list the cases in one table and hand it to a runner:
 *
 *   static void put_blocking(void) { ASSERT_OK(dart_put_blocking(...)); }
 *   static const struct test_case cases[] = {
 *     { "put_blocking", put_blocking },
 *   };
 *   int main(int argc, char **argv)
 *   {
 *     return test_run_dart(argc, argv, TEST_CASES(cases));
 *   }
 *
 * test_run_dart wraps the cases in dart_init/dart_exit (test_me and
 * test_units hold the global id and the unit count); test_run_with takes a
 * setup/teardown pair of the program's own; test_run runs the cases
 * without a runtime (base modules, or programs that start DART per case).
 *
 * Checks: ASSERT(cond), ASSERT_EQ(actual, expected) for integers,
 * ASSERT_OK(call), ASSERT_RET(call, code), ASSERT_MSG(cond, "fmt", ...),
 * FAILF("fmt", ...), ASSERT_POISON(buf, from, nbytes); STAGE("fmt", ...)
 * names what is being checked. A failure prints one line (file:line of the
 * test, the expression, both values where there are values, the unit or -1
 * without a runtime, the case and the stage) and takes the whole job down
 * (dart_abort(1) under a runtime, else exit(1)), so no unit hangs in a
 * collective.
 *
 * Running: `prog` runs every case in order (one "ok <case>" line each from
 * unit 0, then "<prog>: N units passed"); `prog --case NAME` runs one case
 * (pass the same argv to every unit: `mpiexec -n 4 prog --case NAME`);
 * `prog --list` lists the cases; an unknown case exits with 2. Under ctest:
 * `ctest --test-dir build/openmpi -R '^test_put_get\.'`. */
#ifndef DART_TEST_H
#define DART_TEST_H

#include <dash/dart/if/dart.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- Failure reports ------------------------------------------------- */

/* The case running now and the stage it set (empty: none). The watchdogs
 * of the lock liveness tests print test_stage from a signal handler, so it
 * is a plain static buffer. */
static const char *test_case_name = "-";
static char test_stage[2048];

#define STAGE(...) snprintf(test_stage, sizeof test_stage, __VA_ARGS__)

static inline int test_unit(void)
{
  dart_global_unit_t me;
  if (dart_initialized() && dart_myid(&me) == DART_OK) {
    return me.id;
  }
  return -1;
}

__attribute__((noreturn, format(printf, 3, 4))) static inline void
test_failf(const char *file, int line, const char *fmt, ...)
{
  char what[1024];
  va_list args;
  va_start(args, fmt);
  vsnprintf(what, sizeof what, fmt, args);
  va_end(args);
  fprintf(stderr, "FAIL %s:%d unit %d case %s%s%s%s: %s\n", file, line,
          test_unit(), test_case_name, test_stage[0] ? " stage \"" : "",
          test_stage, test_stage[0] ? "\"" : "", what);
  fflush(stderr);
  if (dart_initialized()) {
    dart_abort(1);
  }
  exit(1);
}

#define FAILF(...) test_failf(__FILE__, __LINE__, __VA_ARGS__)

#define ASSERT(cond)                                                       \
  do {                                                                     \
    if (!(cond)) {                                                         \
      test_failf(__FILE__, __LINE__, "%s", #cond);                         \
    }                                                                      \
  } while (0)

/* The format must be a string literal: it follows the expression. */
#define ASSERT_MSG(cond, ...)                                              \
  do {                                                                     \
    if (!(cond)) {                                                         \
      test_failf(__FILE__, __LINE__, #cond ": " __VA_ARGS__);              \
    }                                                                      \
  } while (0)

#define ASSERT_EQ(actual, expected)                                        \
  do {                                                                     \
    long long test_a_ = (long long)(actual);                               \
    long long test_e_ = (long long)(expected);                             \
    if (test_a_ != test_e_) {                                              \
      test_failf(__FILE__, __LINE__, "%s == %s (got %lld, expected %lld)", \
                 #actual, #expected, test_a_, test_e_);                    \
    }                                                                      \
  } while (0)

#define ASSERT_RET(call, code) ASSERT_EQ(call, code)
#define ASSERT_OK(call) ASSERT_EQ(call, DART_OK)

/* Bytes a call must not write are set to POISON first. */
#define POISON 0x5c

static inline void test_check_poison(const char *file, int line,
                                     const void *buf, size_t from,
                                     size_t nbytes)
{
  const unsigned char *b = buf;
  for (size_t i = from; i < from + nbytes; ++i) {
    if (b[i] != POISON) {
      test_failf(file, line,
                 "byte %zu was written but must stay untouched (0x%02x)", i,
                 b[i]);
    }
  }
}

#define ASSERT_POISON(buf, from, nbytes)                                   \
  test_check_poison(__FILE__, __LINE__, buf, from, nbytes)

/* ---- Helpers ---------------------------------------------------------- */

static inline void *xmalloc(size_t bytes)
{
  void *p = malloc(bytes > 0 ? bytes : 1);
  ASSERT(p != NULL);
  return p;
}

/* Fills the heap with `count` blocks of `size` bytes of 0x41, so that
 * memory the runtime freed is handed out again and a stale pointer into
 * it reads garbage (a crash without ASan, a report with it); undone by
 * test_heap_release. */
static inline void **test_heap_churn(size_t count, size_t size)
{
  void **blocks = xmalloc(count * sizeof *blocks);
  for (size_t i = 0; i < count; ++i) {
    blocks[i] = xmalloc(size);
    memset(blocks[i], 0x41, size);
  }
  return blocks;
}

static inline void test_heap_release(void **blocks, size_t count)
{
  for (size_t i = 0; i < count; ++i) {
    free(blocks[i]);
  }
  free(blocks);
}

/* The runtime logs every error it returns; expected ones are muted. */
static inline int mute_log(void)
{
  dart_config_t *config = NULL;
  dart_config(&config);
  int saved = config->log_enabled;
  config->log_enabled = 0;
  return saved;
}

static inline void restore_log(int saved)
{
  dart_config_t *config = NULL;
  dart_config(&config);
  config->log_enabled = saved;
}

/* What the runtime logs while a call runs: test_capture_begin sends
 * this process's stderr to a file, test_capture_end puts stderr back and
 * returns what came (malloc'ed), also passing it on to stderr. */
struct test_capture {
  int file;
  int saved;
};

static inline void test_capture_begin(struct test_capture *c)
{
  char path[] = "/tmp/dart-test-log-XXXXXX";
  c->file = mkstemp(path);
  ASSERT(c->file >= 0);
  unlink(path);
  fflush(stderr);
  c->saved = dup(STDERR_FILENO);
  ASSERT(c->saved >= 0);
  ASSERT(dup2(c->file, STDERR_FILENO) == STDERR_FILENO);
}

static inline char *test_capture_end(struct test_capture *c)
{
  fflush(stderr);
  ASSERT(dup2(c->saved, STDERR_FILENO) == STDERR_FILENO);
  close(c->saved);
  off_t len = lseek(c->file, 0, SEEK_END);
  ASSERT(len >= 0);
  char *text = xmalloc((size_t)len + 1);
  ASSERT(pread(c->file, text, (size_t)len, 0) == len);
  text[len] = '\0';
  close(c->file);
  fputs(text, stderr);
  return text;
}

/* How often `what` occurs in `text` (a captured log, say). */
static inline int test_occurrences(const char *text, const char *what)
{
  int count = 0;
  for (const char *at = strstr(text, what); at != NULL;
       at = strstr(at + 1, what)) {
    ++count;
  }
  return count;
}

/* dart_init, then this unit's global id and the number of units: the
 * opening of every MPI test program. */
static inline void test_start(int *argc, char ***argv, int *me, int *n)
{
  ASSERT_OK(dart_init(argc, argv));
  dart_global_unit_t id;
  size_t size;
  ASSERT_OK(dart_myid(&id));
  ASSERT_OK(dart_size(&size));
  *me = id.id;
  *n = (int)size;
}

/* The tests' usual sub-team: the odd units and the last one ({0}, {1},
 * {1, 2}, {1, 3} at 1-4 units), so it leaves unit 0 out where it can and
 * team ids differ from global ids. */
static inline bool test_subteam_member(int unit, int n)
{
  return unit % 2 == 1 || unit == n - 1;
}

/* My team-relative id in `team` and the team's size. */
static inline void test_team_position(dart_team_t team, int *me, int *n)
{
  dart_team_unit_t my;
  size_t size;
  ASSERT_OK(dart_team_myid(team, &my));
  ASSERT_OK(dart_team_size(team, &size));
  *me = my.id;
  *n = (int)size;
}

/* Collective over DART_TEAM_ALL (n units): creates that sub-team;
 * DART_TEAM_NULL on non-members. */
static inline dart_team_t test_subteam_create(int n)
{
  dart_group_t group = DART_GROUP_NULL;
  ASSERT_OK(dart_group_create(&group));
  for (int u = 0; u < n; ++u) {
    if (test_subteam_member(u, n)) {
      ASSERT_OK(dart_group_addmember(group, DART_GLOBAL_UNIT_ID(u)));
    }
  }
  dart_team_t sub = DART_TEAM_NULL;
  ASSERT_OK(dart_team_create(DART_TEAM_ALL, group, &sub));
  ASSERT_OK(dart_group_destroy(&group));
  return sub;
}

/* `g` moved to team unit `unit` of its team, at byte `offset`. */
static inline dart_gptr_t gptr_at(dart_gptr_t g, int unit, uint64_t offset)
{
  ASSERT_OK(dart_gptr_setunit(&g, DART_TEAM_UNIT_ID(unit)));
  g.addr_or_offs.offset = offset;
  return g;
}

/* ---- Named cases ------------------------------------------------------ */

struct test_case {
  const char *name;
  void (*run)(void);
};

#define TEST_CASES(table) (table), sizeof(table) / sizeof((table)[0])

/* Set by test_run_dart's setup. */
static int test_me = -1;
static int test_units = 0;
/* The program's arguments without the runner's own, for cases that start
 * the runtime themselves (dart_init(&test_argc, &test_argv)). */
static int test_argc;
static char **test_argv;

/* Whether this process prints the progress lines: unit 0 under a runtime;
 * without one, the launcher's rank 0 (or the only process). */
static inline bool test_is_printer(void)
{
  if (dart_initialized()) {
    return test_unit() == 0;
  }
  const char *vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK" };
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i) {
    const char *rank = getenv(vars[i]);
    if (rank != NULL) {
      return strcmp(rank, "0") == 0;
    }
  }
  return true;
}

static inline void test_list_cases(FILE *out, const struct test_case *cases,
                                   size_t ncases)
{
  for (size_t i = 0; i < ncases; ++i) {
    fprintf(out, "%s\n", cases[i].name);
  }
}

/* Runs the cases (all, or the one --case names) between setup and
 * teardown, either of which may be NULL. --case and --list are taken out
 * of argv before setup sees it. */
static inline int test_run_with(int argc, char **argv,
                                 const struct test_case *cases,
                                 size_t ncases,
                                 void (*setup)(int *argc, char ***argv),
                                 void (*teardown)(void))
{
  const char *only = NULL;
  bool list = false;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--case") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else if (strcmp(argv[i], "--list") == 0) {
      list = true;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  argv[argc] = NULL;
  test_argc = argc;
  test_argv = argv;
  if (list) {
    test_list_cases(stdout, cases, ncases);
    return 0;
  }
  if (only != NULL) {
    size_t i = 0;
    while (i < ncases && strcmp(cases[i].name, only) != 0) {
      ++i;
    }
    if (i == ncases) {
      fprintf(stderr, "%s: no case \"%s\"; the cases are:\n", argv[0], only);
      test_list_cases(stderr, cases, ncases);
      return 2;
    }
  }
  const char *prog = strrchr(argv[0], '/');
  prog = prog != NULL ? prog + 1 : argv[0];
  if (setup != NULL) {
    setup(&test_argc, &test_argv);
  }
  for (size_t i = 0; i < ncases; ++i) {
    if (only != NULL && strcmp(cases[i].name, only) != 0) {
      continue;
    }
    test_case_name = cases[i].name;
    test_stage[0] = '\0';
    cases[i].run();
    test_stage[0] = '\0';
    if (test_is_printer()) {
      printf("ok %s\n", cases[i].name);
      fflush(stdout);
    }
  }
  test_case_name = "-";
  size_t units = 0;
  if (dart_initialized() && dart_size(&units) == DART_OK) {
    /* Passed once every unit is through its last case. */
    ASSERT_OK(dart_barrier(DART_TEAM_ALL));
    if (test_unit() == 0) {
      printf("%s: %zu units passed\n", prog, units);
    }
  } else if (test_is_printer()) {
    printf("%s: passed\n", prog);
  }
  fflush(stdout);
  if (teardown != NULL) {
    teardown();
  }
  return 0;
}

static inline int test_run(int argc, char **argv,
                           const struct test_case *cases, size_t ncases)
{
  return test_run_with(argc, argv, cases, ncases, NULL, NULL);
}

static inline void test_dart_setup(int *argc, char ***argv)
{
  test_start(argc, argv, &test_me, &test_units);
}

static inline void test_dart_teardown(void)
{
  ASSERT_OK(dart_exit());
}

static inline int test_run_dart(int argc, char **argv,
                                const struct test_case *cases, size_t ncases)
{
  return test_run_with(argc, argv, cases, ncases, test_dart_setup,
                       test_dart_teardown);
}

#endif
