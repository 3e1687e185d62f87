/* Read latency of the node database (benchmark 9a): R forked reader
 * processes copy unit records out of one shared table, guarded by the
 * 2N-lock, by a process-shared pthread rwlock, or by nothing, with and
 * without a writer that rewrites a record at a set rate. No MPI.
 *
 * Each reader times batches of reads; a reader's figure is the median
 * batch (so preemption on an oversubscribed machine drops out), the
 * table shows the median over readers and the ratio to no lock with the
 * same readers and writer. Usage:
 *   bench-nodedb [--max-readers 8] [--batches 51] [--iters 20000]
 *                [--write-rate 1000] [--records 64] */
#define _GNU_SOURCE /* MAP_ANONYMOUS, sched_setaffinity */
#include "bench_stats.h"
#include "base/node_db.h"
#include "mpi/bootstrap/unit_records.h"

#include <sched.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAX_READERS = 64, MAX_BATCHES = 1001 };

struct options {
  int    max_readers, batches, iters, records;
  double write_rate; /* writes per second; 0 = no writer */
};

enum { KINDS = 3 }; /* indexed by enum shared_rw_lock_kind */

struct shared {
  atomic_int  ready, go, stop;
  double      median_ns[KINDS][MAX_READERS];
  atomic_long writes;
};

static double now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

static volatile unsigned long sink_out; /* keeps the reads alive */

/* Reader: walks the records in order, as a locality build would,
 * alternating between the three tables batch by batch so that whatever
 * else runs on the machine hits all three alike. */
static void reader(struct node_db *dbs, struct shared *sh, int id,
                   const struct options *o)
{
  static double batch_ns[KINDS][MAX_BATCHES];
  struct unit_record r;
  unsigned long sink = 0;
  /* Readers spread over the cores, one place each, as pinned units. */
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(id % (int)sysconf(_SC_NPROCESSORS_ONLN), &one);
  sched_setaffinity(0, sizeof one, &one);
  atomic_fetch_add(&sh->ready, 1);
  while (!atomic_load(&sh->go)) {
    sched_yield();
  }
  uint32_t index = (uint32_t)id % (uint32_t)o->records;
  for (int b = 0; b < o->batches; ++b) {
    for (int k = 0; k < KINDS; ++k) {
      const struct node_db *db = &dbs[k];
      double t0 = now_ns();
      for (int i = 0; i < o->iters; ++i) {
        node_db_read(db, id, index, &r);
        sink += (unsigned long)r.hwinfo.core_id;
        index = index + 1 == (uint32_t)o->records ? 0 : index + 1;
      }
      batch_ns[k][b] = (now_ns() - t0) / o->iters;
    }
  }
  for (int k = 0; k < KINDS; ++k) {
    sh->median_ns[k][id] = bench_median(batch_ns[k], o->batches);
  }
  sink_out = sink;
}

/* Writer: a record of each table rewritten every 1/rate seconds. */
static void writer(struct node_db *dbs, struct shared *sh,
                   const struct options *o)
{
  struct unit_record r;
  memset(&r, 0, sizeof r);
  long period_ns = (long)(1e9 / o->write_rate);
  struct timespec pause = { period_ns / 1000000000L, period_ns % 1000000000L };
  while (!atomic_load(&sh->stop)) {
    r.hwinfo.core_id++;
    for (int k = 0; k < KINDS; ++k) {
      node_db_write(&dbs[k], (uint32_t)(r.hwinfo.core_id % o->records), &r);
    }
    atomic_fetch_add(&sh->writes, 1);
    nanosleep(&pause, NULL);
  }
}

static void *map_shared(size_t bytes)
{
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    fprintf(stderr, "bench-nodedb: cannot map %zu bytes\n", bytes);
    exit(1);
  }
  return p;
}

/* Median over readers of each kind's read time, in ns. */
static void run(int readers, bool writing, const struct options *o,
                double ns[KINDS], long *writes)
{
  struct node_db dbs[KINDS];
  void *mem[KINDS];
  size_t bytes[KINDS];
  struct shared *sh = map_shared(sizeof *sh);
  struct unit_record r;
  memset(&r, 0, sizeof r);
  for (int k = 0; k < KINDS; ++k) {
    struct node_db_geometry g = { sizeof(struct unit_record),
                                  (uint32_t)o->records, 0, readers,
                                  (enum shared_rw_lock_kind)k };
    bytes[k] = node_db_bytes(&g);
    mem[k] = map_shared(bytes[k]);
    if (node_db_format(&dbs[k], mem[k], &g) != 0) {
      fprintf(stderr, "bench-nodedb: cannot format a table\n");
      exit(1);
    }
    for (int i = 0; i < o->records; ++i) {
      r.unit = i;
      node_db_write(&dbs[k], (uint32_t)i, &r);
    }
  }
  for (int i = 0; i < readers; ++i) {
    if (fork() == 0) {
      reader(dbs, sh, i, o);
      _exit(0);
    }
  }
  pid_t writer_pid = -1;
  if (writing && (writer_pid = fork()) == 0) {
    writer(dbs, sh, o);
    _exit(0);
  }
  while (atomic_load(&sh->ready) < readers) {
    sched_yield();
  }
  atomic_store(&sh->go, 1);
  for (int i = 0; i < readers; ++i) {
    while (wait(NULL) == writer_pid) {
    }
  }
  atomic_store(&sh->stop, 1);
  if (writer_pid > 0) {
    waitpid(writer_pid, NULL, 0);
  }
  *writes = atomic_load(&sh->writes);
  for (int k = 0; k < KINDS; ++k) {
    ns[k] = bench_median(sh->median_ns[k], readers);
    node_db_destroy(&dbs[k]);
    munmap(mem[k], bytes[k]);
  }
  munmap(sh, sizeof *sh);
}

static void parse(int argc, char **argv, struct options *o)
{
  *o = (struct options){ 8, 51, 20000, 64, 1000.0 };
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--max-readers") == 0) {
      o->max_readers = atoi(argv[i + 1]);
    } else if (strcmp(argv[i], "--batches") == 0) {
      o->batches = atoi(argv[i + 1]);
    } else if (strcmp(argv[i], "--iters") == 0) {
      o->iters = atoi(argv[i + 1]);
    } else if (strcmp(argv[i], "--write-rate") == 0) {
      o->write_rate = atof(argv[i + 1]);
    } else if (strcmp(argv[i], "--records") == 0) {
      o->records = atoi(argv[i + 1]);
    } else {
      fprintf(stderr, "bench-nodedb: unknown option %s\n", argv[i]);
      exit(2);
    }
  }
  if (o->max_readers < 1 || o->max_readers > MAX_READERS ||
      o->batches < 1 || o->batches > MAX_BATCHES || o->iters < 1 ||
      o->records < 1 || o->write_rate < 0) {
    fprintf(stderr, "bench-nodedb: option out of range\n");
    exit(2);
  }
}

int main(int argc, char **argv)
{
  struct options o;
  parse(argc, argv, &o);
  printf("# node database read latency, record %zu B, %d records, median "
         "of %d batches x %d reads per reader, median over readers\n",
         sizeof(struct unit_record), o.records, o.batches, o.iters);
  printf("%-8s %-10s %7s %12s %12s %12s %9s %9s\n", "readers", "writer",
         "writes", "no-lock ns", "2n-lock ns", "rwlock ns", "2n/none",
         "rw/none");
  for (int writing = 0; writing <= (o.write_rate > 0); ++writing) {
    for (int readers = 1; readers <= o.max_readers; readers *= 2) {
      double ns[KINDS];
      long writes = 0;
      run(readers, writing, &o, ns, &writes);
      char label[32] = "none";
      if (writing) {
        snprintf(label, sizeof label, "%.0f/s", o.write_rate);
      }
      printf("%-8d %-10s %7ld %12.1f %12.1f %12.1f %9.2f %9.2f\n", readers,
             label, writes, ns[SHARED_RW_LOCK_NONE], ns[SHARED_RW_LOCK_2N],
             ns[SHARED_RW_LOCK_PTHREAD],
             ns[SHARED_RW_LOCK_2N] / ns[SHARED_RW_LOCK_NONE],
             ns[SHARED_RW_LOCK_PTHREAD] / ns[SHARED_RW_LOCK_NONE]);
      fflush(stdout);
    }
  }
  return 0;
}
