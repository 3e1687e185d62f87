/* dart_init + dart_exit time and the bootstrap's per-node work (benchmark
 * 9b). The program starts MPI itself, so DART borrows it and init/exit
 * can be repeated in one run; MPI's own start-up is not in the figures.
 * The bootstrap mode and the simulated node count come from the
 * environment (DART_BOOTSTRAP, DART_UNITS_PER_NODE or MPICH cliques);
 * scripts/bench-bootstrap.sh sweeps them. One line per run (unit 0):
 *
 *   mode units nodes init+exit_ms bootstrap_ms written read received
 *   bytes_in bytes_out
 *
 * times are medians over --reps of the slowest unit, counts the largest
 * per-node sum (nodes differ when units do not divide evenly). */
#include "bench_stats.h"
#include "mpi/bootstrap/bootstrap.h"
#include "mpi/model/team.h"

#include <dash/dart/if/dart.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_REPS = 101 };
enum { COUNTERS = sizeof(struct bootstrap_counters) / sizeof(uint64_t) };

int main(int argc, char **argv)
{
  int reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--reps") == 0) {
      reps = atoi(argv[i + 1]);
    }
  }
  if (reps < 1 || reps > MAX_REPS) {
    fprintf(stderr, "bench-bootstrap: --reps must be in [1, %d]\n", MAX_REPS);
    return 2;
  }
  MPI_Init(&argc, &argv);
  int me, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double total_ms[MAX_REPS], boot_ms[MAX_REPS];
  uint64_t node_max[COUNTERS];
  int nodes = 0;
  enum bootstrap_mode mode = BOOTSTRAP_NODE_ROOTS;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (dart_init(&argc, &argv) != DART_OK) {
      fprintf(stderr, "bench-bootstrap: dart_init failed\n");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double t1 = MPI_Wtime();
    struct bootstrap_counters mine, node;
    bootstrap_counters_get(&mine);
    mode = bootstrap_mode_in_use();
    struct team *all = team_lookup(DART_TEAM_ALL);
    nodes = all->num_nodes;
    MPI_Allreduce(&mine, &node, COUNTERS, MPI_UINT64_T, MPI_SUM,
                  all->node_comm);
    MPI_Reduce(&node, node_max, COUNTERS, MPI_UINT64_T, MPI_MAX, 0,
               MPI_COMM_WORLD);
    double boot_local = 1e-6 * (double)mine.init_ns, boot_max = 0;
    MPI_Reduce(&boot_local, &boot_max, 1, MPI_DOUBLE, MPI_MAX, 0,
               MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    dart_exit();
    double mine_ms = 1e3 * ((t1 - t0) + (MPI_Wtime() - t2)), max_ms = 0;
    MPI_Reduce(&mine_ms, &max_ms, 1, MPI_DOUBLE, MPI_MAX, 0,
               MPI_COMM_WORLD);
    total_ms[r] = max_ms;
    boot_ms[r] = boot_max;
  }
  if (me == 0) {
    static const char *const names[] = { "node-roots", "naive", "on-demand" };
    const struct bootstrap_counters *c = (const void *)node_max;
    printf("%-10s %5d %5d %10.2f %10.2f %9llu %9llu %9llu %11llu %11llu\n",
           names[mode], size, nodes, bench_median(total_ms, reps),
           bench_median(boot_ms, reps),
           (unsigned long long)c->records_written,
           (unsigned long long)c->records_read,
           (unsigned long long)c->records_received,
           (unsigned long long)c->bytes_received,
           (unsigned long long)c->bytes_sent);
  }
  MPI_Finalize();
  return 0;
}
