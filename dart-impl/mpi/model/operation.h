/* Reduction operations: predefined ops (and which types they accept),
 * DART_OP_MINMAX, and user operations from dart_op_create. */
#ifndef DART_MPI_OPERATION_H
#define DART_MPI_OPERATION_H

#include <dash/dart/if/dart_types.h>

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

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

/* What one member called a reduction with and, for a small reduction
 * local_reduce handles, its contribution: what the members of a team
 * exchange before or instead of MPI's reduction (collective/collectives.c),
 * so that members that disagree find out in that one exchange. The same
 * size on every member whatever it called. */
enum {
  REDUCTION_CALL_WORDS = 5,
  REDUCTION_CALL_MAX_BYTES = 256,
};
struct reduction_call {
  /* Elements, bytes, basic type (UINT64_MAX: a custom one, whose handle
   * may differ from unit to unit), predefined op (UINT64_MAX: a custom
   * one), root (-1: all). */
  uint64_t      words[REDUCTION_CALL_WORDS];
  uint64_t      disagree; /* operation_agree_op saw two calls differ */
  unsigned char data[REDUCTION_CALL_MAX_BYTES];
};

/* Fills `c` with a reduction's call and, if reduction_call_local, with
 * its contribution from `sendbuf`. */
void reduction_call_fill(struct reduction_call *c, const void *sendbuf,
                         size_t nelem, size_t bytes, dart_datatype_t dtype,
                         dart_operation_t op, int root);

/* Whether the call's data holds the contribution: at most
 * REDUCTION_CALL_MAX_BYTES with an op and type local_reduce handles.
 * Decided from the words alone, so members that agree decide alike. */
bool reduction_call_local(const struct reduction_call *c);

/* Reduces the data of local calls with local_reduce in place of MPI. */
void reduction_call_reduce(void *acc, const void *in,
                           const struct reduction_call *c);

/* One struct reduction_call as an MPI type, and the commutative op that
 * combines two: marks them as disagreeing where their words differ (or
 * either is marked), else reduces their data where the call is local. */
MPI_Datatype operation_call_type(void);
MPI_Op operation_agree_op(void);

#endif
