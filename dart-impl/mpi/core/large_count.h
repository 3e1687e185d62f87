/* MPI-3 counts are int. Element counts above the limit (INT_MAX, or
 * DART_MPI_COUNT_LIMIT for testing) travel as one derived datatype that
 * covers all elements and has the exact extent of the block, so block
 * layouts (gather, alltoall) stay intact. */
#ifndef DART_MPI_LARGE_COUNT_H
#define DART_MPI_LARGE_COUNT_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

struct mpi_count {
  int          count;
  MPI_Datatype type;
  bool         owned; /* a derived type to free */
};

/* Describes `n` elements of `elem` as (count, type). Returns an MPI error
 * code; on success release the result with mpi_count_release. */
int mpi_count_make(size_t n, MPI_Datatype elem, struct mpi_count *out);
void mpi_count_release(struct mpi_count *c);

/* Largest element count handed to one MPI call. */
size_t mpi_count_limit(void);

#endif
