/* Lock liveness without a progress thread (DART_PROGRESS_THREAD off): a
 * remote unit acquires a lock homed on another node while the home unit
 * sits inside a DART call that waits for that very remote unit: a
 * collective, team or memory management, a receive. The home enters the
 * call first; the remote units acquire and release the lock (the lock is
 * in CPU mode, so that needs a migration only a home-node unit can do)
 * and only then enter the call. A runtime whose waits do not serve the
 * lock deadlocks here; the alarm turns that into a failure naming the
 * call. Needs at least two nodes (on one node it checks nothing but
 * passes). */
#include "test_lock_counter.h"
#include "test_nodes.h"
#include "test.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { ALARM_S = 40 };

static int me, n;
static bool remote;       /* not on the lock's home node */
static dart_lock_t lock;
static dart_gptr_t counter;

static void on_alarm(int sig)
{
  (void)sig;
  /* Only async-signal-safe calls: the stage string is static. */
  static const char head[] = "HANG (lock not served inside the call): ";
  write(STDERR_FILENO, head, sizeof head - 1);
  write(STDERR_FILENO, test_stage, strnlen(test_stage, sizeof test_stage));
  write(STDERR_FILENO, "\n", 1);
  _exit(1);
}

static void sleep_ms(long ms)
{
  struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
  nanosleep(&t, NULL);
}

/* The home unit and the other home-node units enter the call at once;
 * remote units first wait until the home is surely inside, then take
 * the lock (each twice, so one of them also finds it in network mode
 * after another's release), and only then enter. Before the round the
 * home takes the lock once: a local acquire brings it back to CPU mode
 * (the default policy), so a remote acquire needs the home's help. */
static void round_begin(const char *call)
{
  STAGE("%s: prepare", call);
  if (me == 0) {
    ASSERT_OK(dart_lock_acquire(lock));
    ASSERT_OK(dart_lock_release(lock));
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  STAGE("%s", call);
  alarm(ALARM_S);
  if (remote) {
    sleep_ms(30);
    locked_increments(lock, counter, 2);
  }
}

static void round_end(void)
{
  alarm(0);
}

static void remote_acquire_while_home_waits(void)
{
  signal(SIGALRM, on_alarm);
  long long *keys = test_node_keys(n);
  int remotes = 0;
  for (int u = 0; u < n; ++u) {
    remotes += keys[u] != keys[0];
  }
  remote = keys[me] != keys[0];
  free(keys);

  dart_gptr_t g;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_LONGLONG, &g));
  long long *mine = NULL;
  ASSERT_OK(dart_gptr_getaddr(gptr_at(g, me, 0), (void **)&mine));
  *mine = 0;
  counter = gptr_at(g, n - 1, 0);
  /* The first lock of a team is homed at unit 0. */
  ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  int rounds = 0;

  round_begin("dart_barrier");
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  round_end(), ++rounds;

  round_begin("dart_allreduce");
  long long one = 1, sum = 0;
  ASSERT_OK(dart_allreduce(&one, &sum, 1, DART_TYPE_LONGLONG, DART_OP_SUM,
                           DART_TEAM_ALL));
  ASSERT_EQ(sum, n);
  round_end(), ++rounds;

  round_begin("dart_bcast");
  long long value = me == 0 ? 42 : -1;
  ASSERT_OK(dart_bcast(&value, 1, DART_TYPE_LONGLONG, DART_TEAM_UNIT_ID(0),
                       DART_TEAM_ALL));
  ASSERT_EQ(value, 42);
  round_end(), ++rounds;

  round_begin("dart_allgather");
  long long *all = xmalloc((size_t)n * sizeof *all);
  long long mine_id = me;
  ASSERT_OK(dart_allgather(&mine_id, all, 1, DART_TYPE_LONGLONG, DART_TEAM_ALL));
  for (int u = 0; u < n; ++u) {
    ASSERT_EQ(all[u], u);
  }
  free(all);
  round_end(), ++rounds;

  round_begin("dart_reduce");
  sum = -1;
  ASSERT_OK(dart_reduce(&one, &sum, 1, DART_TYPE_LONGLONG, DART_OP_SUM,
                        DART_TEAM_UNIT_ID(0), DART_TEAM_ALL));
  if (me == 0) {
    ASSERT_EQ(sum, n);
  }
  round_end(), ++rounds;

  round_begin("dart_team_clone");
  dart_team_t clone = DART_TEAM_NULL;
  ASSERT_OK(dart_team_clone(DART_TEAM_ALL, &clone));
  ASSERT(clone != DART_TEAM_NULL);
  round_end(), ++rounds;

  round_begin("dart_team_destroy");
  ASSERT_OK(dart_team_destroy(&clone));
  round_end(), ++rounds;

  round_begin("dart_team_memalloc_aligned");
  dart_gptr_t extra = DART_GPTR_NULL;
  ASSERT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 16, DART_TYPE_BYTE, &extra));
  round_end(), ++rounds;

  round_begin("dart_team_memfree");
  ASSERT_OK(dart_team_memfree(extra));
  round_end(), ++rounds;

  round_begin("dart_team_lock_init");
  dart_lock_t second = DART_LOCK_NULL;
  ASSERT_OK(dart_team_lock_init(DART_TEAM_ALL, &second));
  round_end(), ++rounds;

  round_begin("dart_team_lock_destroy");
  ASSERT_OK(dart_team_lock_destroy(&second));
  round_end(), ++rounds;

  /* Two-sided: the home receives from the last unit, which sends only
   * after it has had the lock. */
  round_begin("dart_recv");
  if (remotes > 0) {
    if (me == 0) {
      long long got = -1;
      ASSERT_OK(dart_recv(&got, 1, DART_TYPE_LONGLONG, 7,
                          DART_GLOBAL_UNIT_ID(n - 1)));
      ASSERT_EQ(got, 99);
    } else if (me == n - 1) {
      long long msg = 99;
      ASSERT_OK(dart_send(&msg, 1, DART_TYPE_LONGLONG, 7, DART_GLOBAL_UNIT_ID(0)));
    }
  }
  round_end(), ++rounds;

  STAGE("check");
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_EQ(*(volatile long long *)mine,
            me == n - 1 ? 2LL * remotes * rounds : 0);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_lock_destroy(&lock));
  ASSERT_OK(dart_team_memfree(g));
  if (me == 0) {
    printf("test_locks_liveness: %d calls, %d remote units\n", rounds,
           remotes);
  }
}

/* The home node computes (sleeps) outside DART for five times
 * DART_STALL_WARN_MS while the first remote unit acquires a lock in CPU
 * mode: its wait says once, in one log line, that it waits for the home
 * (unit 0) and why; it gets the lock when the home node enters
 * dart_barrier. */
static void stall_said(void)
{
  long long *keys = test_node_keys(n);
  int first_remote = test_first_unit_off_node0(keys, n);
  bool home_node = keys[me] == keys[0];
  free(keys);
  if (first_remote < 0) {
    return; /* one node: nobody waits for a home */
  }
  long stall_ms = strtol(getenv("DART_STALL_WARN_MS"), NULL, 10);
  ASSERT(stall_ms > 0);
  /* The first lock of a fresh team lives at its unit 0 (lock/api.c). */
  dart_team_t team;
  ASSERT_OK(dart_team_clone(DART_TEAM_ALL, &team));
  dart_lock_t home_lock;
  ASSERT_OK(dart_team_lock_init(team, &home_lock));
  if (me == 0) {
    ASSERT_OK(dart_lock_acquire(home_lock)); /* CPU mode */
    ASSERT_OK(dart_lock_release(home_lock));
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  test_nap_outside_dart(home_node, first_remote, 5 * stall_ms);
  if (me == first_remote) {
    struct test_capture capture;
    test_capture_begin(&capture);
    dart_ret_t ret = dart_lock_acquire(home_lock);
    char *log = test_capture_end(&capture);
    ASSERT_OK(ret);
    ASSERT_OK(dart_lock_release(home_lock));
    const char *expect = "for the node of unit 0, home of the lock";
    int said = test_occurrences(log, expect);
    ASSERT_MSG(said == 1 && strstr(log, "dart_lock_acquire") != NULL,
               "not one line about the wait for the home (%d): \"%s\"",
               said, log);
    free(log);
  }
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  ASSERT_OK(dart_team_lock_destroy(&home_lock));
  ASSERT_OK(dart_team_destroy(&team));
}

static const struct test_case cases[] = {
  { "remote_acquire_while_home_waits", remote_acquire_while_home_waits },
  { "stall_said", stall_said },
};

/* The threshold of DART_STALL_WARN_MS stall_said runs with, unless the
 * environment sets one. */
static const char *const STALL_MS = "200";

static void setup(int *argc, char ***argv)
{
  setenv("DART_STALL_WARN_MS", STALL_MS, 0);
  test_start(argc, argv, &me, &n);
}

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup,
                       test_dart_teardown);
}
