/* Reduction operations: predefined ops (and which types they accept),
 * DART_OP_MINMAX, and user operations from dart_op_create. */
#ifndef DART_MPI_OPERATION_H
#define DART_MPI_OPERATION_H

#include <dash/dart/if/dart_types.h>

#include <mpi.h>
#include <stdbool.h>

/* What a reduction hands to MPI. */
struct reduction {
  MPI_Op       op;
  MPI_Datatype type;       /* MPI element type of the call */
  size_t       count;      /* MPI elements (MINMAX: pairs) */
  size_t       elem_bytes; /* bytes of one MPI element */
};

dart_ret_t operation_module_init(const char *call);
void operation_module_finalize(void);

/* Validates (op, dtype, nelem) for a reduction collective and resolves
 * them; logs on behalf of `call` and returns DART_ERR_INVAL if invalid. */
dart_ret_t reduction_resolve(const char *call, dart_operation_t op,
                             dart_datatype_t dtype, size_t nelem,
                             struct reduction *out);

/* The MPI op of a predefined op (MPI_OP_NULL for MINMAX and invalid). */
MPI_Op operation_mpi_op(dart_operation_t op);

#endif
