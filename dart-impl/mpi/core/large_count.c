#include "mpi/core/large_count.h"
#include "mpi/core/runtime.h"

#include <limits.h>
#include <stdint.h>

size_t mpi_count_limit(void) { return (size_t)runtime.env.mpi_count_limit; }

int mpi_count_make(size_t n, MPI_Datatype elem, struct mpi_count *out)
{
  size_t limit = mpi_count_limit();
  *out = (struct mpi_count){ (int)(n <= limit ? n : 0), elem, false };
  if (n <= limit) {
    return MPI_SUCCESS;
  }
  size_t blocks = n / limit, rest = n % limit;
  if (blocks > INT_MAX) {
    return MPI_ERR_COUNT;
  }
  MPI_Aint lb, extent;
  MPI_Type_get_extent(elem, &lb, &extent);
  /* The callers bound n * extent; a derived type of a larger extent would
   * wrap MPI's displacements. */
  if (extent <= 0 || n > (size_t)PTRDIFF_MAX / (size_t)extent) {
    return MPI_ERR_COUNT;
  }
  MPI_Datatype body = MPI_DATATYPE_NULL, tail = MPI_DATATYPE_NULL;
  MPI_Datatype joined = MPI_DATATYPE_NULL, sized = MPI_DATATYPE_NULL;
  int err = MPI_Type_vector((int)blocks, (int)limit, (int)limit, elem, &body);
  if (err == MPI_SUCCESS && rest > 0) {
    err = MPI_Type_contiguous((int)rest, elem, &tail);
    if (err == MPI_SUCCESS) {
      int lengths[2] = { 1, 1 };
      MPI_Aint displs[2] = { 0, (MPI_Aint)(blocks * limit) * extent };
      MPI_Datatype parts[2] = { body, tail };
      err = MPI_Type_create_struct(2, lengths, displs, parts, &joined);
    }
  } else if (err == MPI_SUCCESS) {
    err = MPI_Type_dup(body, &joined);
  }
  if (err == MPI_SUCCESS) {
    err = MPI_Type_create_resized(joined, 0, (MPI_Aint)n * extent, &sized);
  }
  if (err == MPI_SUCCESS) {
    err = MPI_Type_commit(&sized);
  }
  MPI_Datatype *temporaries[3] = { &body, &tail, &joined };
  for (int i = 0; i < 3; ++i) {
    if (*temporaries[i] != MPI_DATATYPE_NULL) {
      MPI_Type_free(temporaries[i]);
    }
  }
  if (err != MPI_SUCCESS) {
    if (sized != MPI_DATATYPE_NULL) {
      MPI_Type_free(&sized);
    }
    return err;
  }
  *out = (struct mpi_count){ 1, sized, true };
  return MPI_SUCCESS;
}

void mpi_count_release(struct mpi_count *c)
{
  if (c->owned) {
    MPI_Type_free(&c->type);
    c->owned = false;
  }
}
