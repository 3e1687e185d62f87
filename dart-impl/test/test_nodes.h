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

/* For tests of what a unit says while another does not serve it: each
 * unit with `i_nap` sleeps `ms` milliseconds outside DART, and unit
 * `waiter` returns only once all `nappers` have started to. A napper
 * sends the waiter a plain MPI message on MPI_COMM_WORLD (no DART
 * communicator uses it) and makes no other call before its nap, so what
 * the waiter asks of a napper next waits for the nap's end. A DART
 * barrier in front is not enough: a napper still finishing the barrier
 * polls DART's services and may serve the request at once (seen as
 * test_atomics_message stall_said failing under MPICH at 4 units). The
 * other units return at once. */
static inline void test_nap_outside_dart(bool i_nap, int waiter, int nappers,
                                         long ms)
{
  dart_global_unit_t me;
  ASSERT_OK(dart_myid(&me));
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  ASSERT_EQ(rank, me.id); /* DART's unit ids are MPI's world ranks here */
  enum { NAP_TAG = 4711 };
  int token = 1;
  if (i_nap) {
    ASSERT(me.id != waiter);
    ASSERT_EQ(MPI_Send(&token, 1, MPI_INT, waiter, NAP_TAG, MPI_COMM_WORLD),
              MPI_SUCCESS);
    struct timespec nap = { .tv_sec = ms / 1000,
                            .tv_nsec = ms % 1000 * 1000000L };
    while (nanosleep(&nap, &nap) != 0) {
    }
  } else if (me.id == waiter) {
    for (int k = 0; k < nappers; ++k) {
      ASSERT_EQ(MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, NAP_TAG,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                MPI_SUCCESS);
    }
  }
}

#endif
