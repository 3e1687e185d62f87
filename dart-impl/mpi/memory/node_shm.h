/* Memory that every member of a node communicator can load and store.
 * MPI's shared windows come first (MPI_Win_allocate_shared); where the MPI
 * cannot make one, or where making one spins (core/quirks.h,
 * rma_waits_spin), DART maps node-shared files itself (pool_memory.h).
 * Open MPI makes shared windows only through its osc/sm component, which
 * an application that starts MPI with OMPI_MCA_osc=ucx, pt2pt or rdma
 * leaves out: node peers then keep their load/store access instead of
 * going through MPI RMA, and DART's locks and barriers keep their shared
 * lines. */
#ifndef DART_MPI_NODE_SHM_H
#define DART_MPI_NODE_SHM_H

#include <dash/dart/if/dart_types.h>

#include <mpi.h>
#include <stddef.h>

struct node_shm {
  MPI_Win win;    /* MPI's shared window, or MPI_WIN_NULL */
  char  **bases;  /* node rank -> that member's piece, 64-byte aligned
                     (malloc'ed) */
  size_t  mapped; /* DART's own mapping: bytes of each bases[] entry;
                     0 with MPI's window */
};

/* Collective over `node_comm`: `bytes` of my own (members may differ, 0
 * allowed), reachable by every member through shm->bases. Every member
 * gets the same result: DART_OK, or an error after one log line. */
dart_ret_t node_shm_alloc(const char *call, MPI_Comm node_comm, size_t bytes,
                          struct node_shm *shm);

/* Collective over the node communicator when shm->win is a window. */
void node_shm_free(struct node_shm *shm, int node_size);

#endif
