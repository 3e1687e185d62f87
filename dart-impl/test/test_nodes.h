/* Which units share a node, computed independently of the runtime: MPI's
 * shared-memory split (MPICH cliques included) and the documented
 * DART_UNITS_PER_NODE cut. Tests compare the runtime's choices with it. */
#ifndef DART_TEST_NODES_H
#define DART_TEST_NODES_H

#include "test.h"

#include <mpi.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

/* A key per global unit (malloc'ed, `n` entries): equal keys, same node.
 * The key is the world rank of the physical node's first unit, times a
 * large factor, plus the simulated node index. Collective over all. */
static inline long long *test_node_keys(int n)
{
  MPI_Comm shared;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                      &shared);
  int shared_rank, leader;
  MPI_Comm_rank(shared, &shared_rank);
  MPI_Comm_rank(MPI_COMM_WORLD, &leader);
  MPI_Bcast(&leader, 1, MPI_INT, 0, shared);
  MPI_Comm_free(&shared);
  const char *per_node = getenv("DART_UNITS_PER_NODE");
  int p = per_node != NULL ? atoi(per_node) : 0;
  long long mine = (long long)leader * 100000 + (p > 0 ? shared_rank / p : 0);
  long long *keys = malloc((size_t)n * sizeof *keys);
  ASSERT(keys != NULL);
  MPI_Allgather(&mine, 1, MPI_LONG_LONG, keys, 1, MPI_LONG_LONG,
                MPI_COMM_WORLD);
  return keys;
}

/* The lowest unit on another node than unit 0, -1 if all share it. */
static inline int test_first_unit_off_node0(const long long *keys, int n)
{
  for (int u = 1; u < n; ++u) {
    if (keys[u] != keys[0]) {
      return u;
    }
  }
  return -1;
}

/* For tests of what a unit says while another does not serve it:
 * collective over all units; each unit with `i_nap` sleeps `ms`
 * milliseconds outside DART, and unit `waiter` returns only once every
 * napper has reached this call. The meeting point is a plain MPI_Reduce
 * to the waiter on MPI_COMM_WORLD (no DART communicator uses it): the
 * root returns after every contribution arrived, and a napper makes no
 * other call before its nap, so what the waiter asks of a napper next
 * waits for the nap's end. A DART barrier is not enough: a napper still
 * finishing it polls DART's services and may serve the request at once
 * (seen as test_atomics_message stall_said failing under MPICH at 4
 * units). */
static inline void test_nap_outside_dart(bool i_nap, int waiter, long ms)
{
  dart_global_unit_t me;
  ASSERT_OK(dart_myid(&me));
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  ASSERT_EQ(rank, me.id); /* DART's unit ids are MPI's world ranks here */
  ASSERT(!(i_nap && me.id == waiter));
  int token = 1, sum = 0;
  ASSERT_EQ(MPI_Reduce(&token, &sum, 1, MPI_INT, MPI_SUM, waiter,
                       MPI_COMM_WORLD),
            MPI_SUCCESS);
  if (i_nap) {
    struct timespec nap = { .tv_sec = ms / 1000,
                            .tv_nsec = ms % 1000 * 1000000L };
    while (nanosleep(&nap, &nap) != 0) {
    }
  }
}

#endif
