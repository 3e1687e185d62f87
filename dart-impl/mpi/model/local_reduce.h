/* Element-wise reduction of plain memory with a predefined DART operation,
 * for collectives that combine contributions themselves (team_sync). */
#ifndef DART_MPI_LOCAL_REDUCE_H
#define DART_MPI_LOCAL_REDUCE_H

#include <dash/dart/if/dart_types.h>

#include <stdbool.h>
#include <stddef.h>

/* Whether local_reduce handles (op, type): the reductions valid for a
 * basic type (basic_op_applies) plus DART_OP_MINMAX. */
bool local_reduce_supports(dart_operation_t op, dart_datatype_t type);

/* acc[i] = acc[i] op in[i] for `nelem` elements of `type` (MINMAX: nelem
 * counts single elements, pairs are (min, max)). Integer arithmetic wraps
 * like two's complement, as MPI's does on this hardware. */
void local_reduce(void *acc, const void *in, size_t nelem,
                  dart_datatype_t type, dart_operation_t op);

/* out = slot 0 op slot 1 op ... op slot nslots-1, reduced in that order
 * (so every unit that reduces the same slots gets the same bits), for
 * `nslots` contributions of `bytes` (`nelem` elements, as local_reduce)
 * laid out `stride` bytes apart. `out` must not overlap the slots. */
void local_reduce_slots(void *out, const void *slots, size_t stride,
                        int nslots, size_t nelem, size_t bytes,
                        dart_datatype_t type, dart_operation_t op);

#endif
