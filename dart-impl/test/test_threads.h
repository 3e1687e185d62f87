/* The opening and the thread pool of the tests that call DART from
 * several threads of a unit at once (test_threads_memory.c,
 * test_threads_calls.c): the runtime started with DART_THREAD_MULTIPLE
 * required, the round count from argv[1], a watchdog for hangs, and
 * workers started and joined together. */
#ifndef DART_TEST_THREADS_H
#define DART_TEST_THREADS_H

#include "test.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *test_threads_prog = "a threaded test";

static void test_threads_on_alarm(int sig)
{
  (void)sig;
  static const char msg[] = "HANG in ";
  write(STDERR_FILENO, msg, sizeof msg - 1);
  write(STDERR_FILENO, test_threads_prog, strlen(test_threads_prog));
  write(STDERR_FILENO, "\n", 1);
  _exit(1);
}

/* dart_init_thread, failing unless it grants DART_THREAD_MULTIPLE (the
 * registrations run these tests where both MPIs grant it, so a test
 * cannot pass by running one thread); my id and the unit count; argv[1]
 * into *rounds if given; the whole program ends after alarm_s seconds. */
static inline void test_threads_start(int *argc, char ***argv, int *me,
                                      int *n, long *rounds,
                                      unsigned alarm_s)
{
  dart_thread_support_level_t level = DART_THREAD_SINGLE;
  ASSERT_OK(dart_init_thread(argc, argv, &level));
  ASSERT_EQ(level, DART_THREAD_MULTIPLE);
  test_team_position(DART_TEAM_ALL, me, n);
  if (*argc > 1) {
    *rounds = strtol((*argv)[1], NULL, 10);
    ASSERT(*rounds > 0);
  }
  const char *prog = strrchr((*argv)[0], '/');
  test_threads_prog = prog != NULL ? prog + 1 : (*argv)[0];
  signal(SIGALRM, test_threads_on_alarm);
  alarm(alarm_s);
}

/* Workers may wait here to start their first calls at the same moment. */
static pthread_barrier_t test_threads_start_line;

static inline void test_threads_line_up(void)
{
  pthread_barrier_wait(&test_threads_start_line);
}

/* Runs fn((void *)(intptr_t)t) for t = 0 .. count - 1 in threads of their
 * own and waits for all of them. */
static inline void test_threads_run(int count, void *(*fn)(void *))
{
  enum { MAX_THREADS = 16 };
  ASSERT(count > 0 && count <= MAX_THREADS);
  pthread_t tid[MAX_THREADS];
  ASSERT_EQ(pthread_barrier_init(&test_threads_start_line, NULL,
                                 (unsigned)count), 0);
  for (int t = 0; t < count; ++t) {
    ASSERT_EQ(pthread_create(&tid[t], NULL, fn, (void *)(intptr_t)t), 0);
  }
  for (int t = 0; t < count; ++t) {
    ASSERT_EQ(pthread_join(tid[t], NULL), 0);
  }
  ASSERT_EQ(pthread_barrier_destroy(&test_threads_start_line), 0);
}

#endif
