/* The node database and its locks across forked processes (no MPI), the
 * way units of one node share them:
 *  - a writer rewrites a record continuously while 1 to 16 readers check
 *    that every copy they get is whole (never torn) and never goes back
 *    in time, for the 2N-lock and the pthread rwlock;
 *  - writer preference of the 2N-lock: a reader arriving while a writer
 *    waits gets in only after that writer;
 *  - writers exclude each other;
 *  - keyed entries, empty slots and bad geometry. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "base/node_db.h"
#include "test.h"

#include <errno.h>
#include <stdbool.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { WORDS = 64, MAX_READERS = 16, MIN_READS = 256 };
#define MIN_SECONDS 0.1

struct record {
  uint64_t word[WORDS]; /* all equal in a whole record */
};

/* Shared between the processes of one run. */
struct control {
  atomic_int writer_done;
  atomic_int started;
  atomic_int flag;
  atomic_int value;
  _Atomic uint64_t reads[MAX_READERS];
  uint64_t   counter; /* plain: only writers change it */
};

static void *map_shared(size_t bytes)
{
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static void fill(struct record *r, uint64_t v)
{
  for (int i = 0; i < WORDS; ++i) {
    r->word[i] = v;
  }
}

static double now_s(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void pause_us(long us)
{
  struct timespec t = { 0, us * 1000 };
  nanosleep(&t, NULL);
}

/* Child: reads slot 0 until the writer is done; exit code 0 if every
 * copy was whole and versions never decreased. */
static int reader_main(struct node_db *db, struct control *ctl, int reader)
{
  struct record r;
  uint64_t last = 0, reads = 0;
  atomic_fetch_add(&ctl->started, 1);
  for (;;) {
    int done = atomic_load(&ctl->writer_done);
    if (!node_db_read(db, reader, 0, &r)) {
      return 2;
    }
    for (int i = 1; i < WORDS; ++i) {
      if (r.word[i] != r.word[0]) {
        return 3; /* torn */
      }
    }
    if (r.word[0] < last) {
      return 4;
    }
    last = r.word[0];
    if (++reads % 32 == 0) {
      atomic_store_explicit(&ctl->reads[reader], reads, memory_order_relaxed);
      sched_yield(); /* more readers than cores: let the writer run */
    }
    if (done) {
      break;
    }
  }
  return last == (uint64_t)atomic_load(&ctl->value) ? 0 : 5;
}

/* The writer goes on until MIN_SECONDS passed and every reader read
 * MIN_READS times while it was writing. */
static bool readers_had_their_turn(struct control *ctl, int readers,
                                   double start)
{
  if (now_s() - start < MIN_SECONDS) {
    return false;
  }
  for (int i = 0; i < readers; ++i) {
    if (atomic_load_explicit(&ctl->reads[i], memory_order_relaxed) <
        MIN_READS) {
      return false;
    }
  }
  return true;
}

static int wait_all(int children)
{
  int failures = 0;
  for (int i = 0; i < children; ++i) {
    int status = 0;
    if (wait(&status) < 0 || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
      fprintf(stderr, "child failed: status %d\n", status);
      ++failures;
    }
  }
  return failures;
}

static int torn_run(enum shared_rw_lock_kind kind, int readers)
{
  struct node_db_geometry g = { sizeof(struct record), 4, 0, readers, kind };
  size_t bytes = node_db_bytes(&g);
  void *mem = map_shared(bytes);
  struct control *ctl = map_shared(sizeof *ctl);
  ASSERT(mem != NULL && ctl != NULL);
  struct node_db db;
  ASSERT(node_db_format(&db, mem, &g) == 0);
  struct record r;
  fill(&r, 0);
  node_db_write(&db, 0, &r);
  for (int i = 0; i < readers; ++i) {
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
      struct node_db mine;
      _exit(node_db_attach(&mine, mem) != 0 ? 1
                                            : reader_main(&mine, ctl, i));
    }
  }
  while (atomic_load(&ctl->started) < readers) {
    sched_yield();
  }
  double start = now_s();
  uint64_t v = 0;
  while (!readers_had_their_turn(ctl, readers, start)) {
    fill(&r, ++v);
    node_db_write(&db, 0, &r);
    if (v % 16 == 0) {
      sched_yield(); /* let readers run on a busy machine */
    }
  }
  atomic_store(&ctl->value, (int)v);
  atomic_store(&ctl->writer_done, 1);
  ASSERT(wait_all(readers) == 0);
  node_db_destroy(&db);
  munmap(mem, bytes);
  munmap(ctl, sizeof *ctl);
  return 0;
}

/* Reader 0 holds the lock; a writer queues; reader 1 arrives after the
 * writer shut readers out and must see the writer's value. */
static int writer_preference(void)
{
  size_t bytes = shared_rw_lock_bytes(2);
  struct shared_rw_lock *lock = map_shared(bytes);
  struct control *ctl = map_shared(sizeof *ctl);
  ASSERT(lock != NULL && ctl != NULL);
  ASSERT(shared_rw_lock_format(lock, SHARED_RW_LOCK_2N, 2) == 0);
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) { /* reader 0 */
    shared_rw_lock_read_acquire(lock, 0);
    atomic_store(&ctl->started, 1);
    while (atomic_load(&ctl->flag) == 0) {
      sched_yield();
    }
    shared_rw_lock_read_release(lock, 0);
    _exit(0);
  }
  while (atomic_load(&ctl->started) == 0) {
    sched_yield();
  }
  ASSERT((pid = fork()) >= 0);
  if (pid == 0) { /* writer */
    shared_rw_lock_write_acquire(lock);
    atomic_store(&ctl->value, 1);
    shared_rw_lock_write_release(lock);
    _exit(0);
  }
  while (!shared_rw_lock_readers_shut_out(lock)) {
    sched_yield();
  }
  ASSERT((pid = fork()) >= 0);
  if (pid == 0) { /* reader 1, arriving while the writer waits */
    shared_rw_lock_read_acquire(lock, 1);
    int seen = atomic_load(&ctl->value);
    shared_rw_lock_read_release(lock, 1);
    _exit(seen == 1 ? 0 : 1);
  }
  pause_us(30000); /* time for reader 1 to sneak in, were it allowed to */
  ASSERT(atomic_load(&ctl->value) == 0); /* reader 0 still holds the lock */
  atomic_store(&ctl->flag, 1);
  ASSERT(wait_all(3) == 0);
  ASSERT(atomic_load(&ctl->value) == 1);
  shared_rw_lock_destroy(lock);
  munmap(lock, bytes);
  munmap(ctl, sizeof *ctl);
  return 0;
}

/* Two writers add 1 to a plain counter many times each, readers watch. */
static int writers_exclude(enum shared_rw_lock_kind kind)
{
  enum { ADDS = 3000, READERS = 2 };
  size_t bytes = shared_rw_lock_bytes(READERS);
  struct shared_rw_lock *lock = map_shared(bytes);
  struct control *ctl = map_shared(sizeof *ctl);
  ASSERT(lock != NULL && ctl != NULL);
  ASSERT(shared_rw_lock_format(lock, kind, READERS) == 0);
  uint64_t *counter = &ctl->counter;
  for (int w = 0; w < 2; ++w) {
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
      for (int i = 0; i < ADDS; ++i) {
        shared_rw_lock_write_acquire(lock);
        uint64_t v = *(volatile uint64_t *)counter;
        if (i % 64 == 0) {
          sched_yield(); /* widen the window a missing exclusion opens */
        }
        *(volatile uint64_t *)counter = v + 1;
        shared_rw_lock_write_release(lock);
      }
      _exit(0);
    }
  }
  for (int r = 0; r < READERS; ++r) {
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
      uint64_t last = 0;
      while (last < 2 * ADDS) {
        shared_rw_lock_read_acquire(lock, r);
        uint64_t v = *(volatile uint64_t *)counter;
        shared_rw_lock_read_release(lock, r);
        if (v < last) {
          _exit(1);
        }
        last = v;
        sched_yield();
      }
      _exit(0);
    }
  }
  ASSERT(wait_all(2 + READERS) == 0);
  ASSERT(*counter == 2 * ADDS);
  shared_rw_lock_destroy(lock);
  munmap(lock, bytes);
  munmap(ctl, sizeof *ctl);
  return 0;
}

static int table_basics(void)
{
  struct node_db_geometry g = { 40, 3, 5, 1, SHARED_RW_LOCK_2N };
  size_t bytes = node_db_bytes(&g);
  ASSERT(bytes > 0);
  unsigned char *mem = map_shared(bytes + 64);
  ASSERT(mem != NULL);
  struct node_db db, other;
  ASSERT(node_db_attach(&other, mem) == EINVAL); /* nothing formatted */
  ASSERT(node_db_format(&db, mem + 8, &g) == EINVAL); /* misaligned */
  struct node_db_geometry bad = g;
  bad.record_size = 0;
  ASSERT(node_db_bytes(&bad) == 0);
  ASSERT(node_db_format(&db, mem, &bad) == EINVAL);
  bad = g;
  bad.num_readers = 0;
  ASSERT(node_db_format(&db, mem, &bad) == EINVAL);
  bad = g;
  bad.lock_kind = (enum shared_rw_lock_kind)7;
  ASSERT(node_db_format(&db, mem, &bad) == EINVAL);
  ASSERT(node_db_format(&db, mem, &g) == 0);
  ASSERT(node_db_attach(&other, mem) == 0);
  ASSERT(other.num_records == 3 && other.num_keyed == 5);
  ASSERT(shared_rw_lock_kind(other.lock) == SHARED_RW_LOCK_2N);
  ASSERT(shared_rw_lock_readers(other.lock) == 1);

  char in[40], out[40];
  memset(out, 0x5a, sizeof out);
  ASSERT(!node_db_read(&other, 0, 1, out)); /* never written */
  ASSERT(out[0] == 0x5a);
  memset(in, 7, sizeof in);
  node_db_write(&db, 1, in);
  ASSERT(node_db_read(&other, 0, 1, out) && memcmp(in, out, sizeof in) == 0);
  ASSERT(!node_db_read(&other, 0, 2, out));

  /* Keyed: five fill the area (so probing must wrap), a sixth does not
   * fit, replacing an entry needs no room, absent keys are absent. */
  for (uint64_t k = 0; k < 5; ++k) {
    memset(in, (int)k + 1, sizeof in);
    ASSERT(node_db_write_keyed(&db, k * 5 + 100, in));
  }
  ASSERT(!node_db_write_keyed(&db, 999, in));
  ASSERT(!node_db_read_keyed(&other, 0, 999, out));
  memset(in, 42, sizeof in);
  ASSERT(node_db_write_keyed(&db, 110, in));
  for (uint64_t k = 0; k < 5; ++k) {
    ASSERT(node_db_read_keyed(&other, 0, k * 5 + 100, out));
    ASSERT(out[39] == (k == 2 ? 42 : (char)(k + 1)));
  }
  node_db_destroy(&db);
  ASSERT(node_db_attach(&other, mem) == EINVAL);
  munmap(mem, bytes + 64);

  /* No lock at all still reads and writes (single process). */
  g.lock_kind = SHARED_RW_LOCK_NONE;
  mem = map_shared(node_db_bytes(&g));
  ASSERT(mem != NULL && node_db_format(&db, mem, &g) == 0);
  node_db_write(&db, 0, in);
  ASSERT(node_db_read(&db, 0, 0, out) && memcmp(in, out, sizeof in) == 0);
  munmap(mem, node_db_bytes(&g));
  return 0;
}

static void basics(void) { ASSERT(table_basics() == 0); }
static void prefers_writers(void) { ASSERT(writer_preference() == 0); }
static void writers_exclude_2n(void)
{
  ASSERT(writers_exclude(SHARED_RW_LOCK_2N) == 0);
}
static void writers_exclude_pthread(void)
{
  ASSERT(writers_exclude(SHARED_RW_LOCK_PTHREAD) == 0);
}
static void torn_reads(void)
{
  static const int readers[] = { 1, 2, 3, 4, 8, 16 };
  for (size_t i = 0; i < sizeof readers / sizeof *readers; ++i) {
    ASSERT(torn_run(SHARED_RW_LOCK_2N, readers[i]) == 0);
    ASSERT(torn_run(SHARED_RW_LOCK_PTHREAD, readers[i]) == 0);
  }
}

static const struct test_case cases[] = {
  { "basics", basics },
  { "prefers_writers", prefers_writers },
  { "writers_exclude_2n", writers_exclude_2n },
  { "writers_exclude_pthread", writers_exclude_pthread },
  { "torn_reads", torn_reads },
};

int main(int argc, char **argv)
{
  return test_run(argc, argv, TEST_CASES(cases));
}
