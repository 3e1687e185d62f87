/* DART datatypes: the 11 basic types, custom (opaque contiguous) types,
 * and strided/indexed layouts over a contiguous base (dart_communication.h). */
#ifndef DART_MPI_DATATYPE_H
#define DART_MPI_DATATYPE_H

#include <dash/dart/if/dart_types.h>

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum type_kind { TYPE_BASIC, TYPE_CUSTOM, TYPE_STRIDED, TYPE_INDEXED };

struct datatype {
  enum type_kind  kind;
  dart_datatype_t id;
  dart_datatype_t base;        /* contiguous type of the moved elements:
                                  a basic id or a custom type's own id */
  size_t          base_size;   /* bytes of one base element */
  MPI_Datatype    mpi_base;    /* MPI type of one base element */
  size_t          block_count; /* base elements per instance (B) */
  size_t          extent;      /* instance extent, in base elements */
  size_t          stride;      /* strided */
  size_t          blocklen;    /* strided */
  size_t          num_blocks;  /* indexed */
  size_t         *blocklens;   /* indexed */
  size_t         *offsets;     /* indexed */
  size_t         *block_starts;/* indexed: elements before block i in an
                                  instance (prefix sums of blocklens) */
  MPI_Datatype    mpi_instance;/* strided/indexed: one instance, committed,
                                  extent = extent * base_size */
  bool            overlapping; /* indexed: two blocks of an instance share
                                  an element, so the type may describe
                                  memory a transfer reads, never memory it
                                  writes (dart_types.h) */
};

dart_ret_t datatype_module_init(const char *call);
void datatype_module_finalize(void);

/* The descriptor of a live type, or NULL (undefined, destroyed, junk). */
const struct datatype *datatype_get(dart_datatype_t type);

/* The descriptor of a live contiguous (basic or custom) type; logs on
 * behalf of `call` and returns NULL otherwise. */
const struct datatype *datatype_contiguous_or_report(const char *call,
                                                     dart_datatype_t type);

/* --- one-sided transfers (dart_communication.h) --- */

/* Validates (nelem, src_type, dst_type) of a put/get: both live, same
 * base type, dst_type without overlapping blocks (it lays out the memory
 * the transfer writes: the target of a put, the local buffer of a get),
 * nelem a multiple of each type's block count, and the bytes either side
 * spans within DATATYPE_MAX_SPAN. Logs on behalf of `call` and returns
 * DART_ERR_INVAL otherwise. */
dart_ret_t datatype_check_transfer(const char *call, dart_datatype_t src_type,
                                   dart_datatype_t dst_type, size_t nelem,
                                   const struct datatype **src,
                                   const struct datatype **dst);

/* The same, also handing out the spans (datatype_span_bytes) of the
 * source and the destination layout. */
dart_ret_t datatype_check_transfer_spans(const char *call,
                                         dart_datatype_t src_type,
                                         dart_datatype_t dst_type,
                                         size_t nelem,
                                         const struct datatype **src,
                                         const struct datatype **dst,
                                         size_t *src_span, size_t *dst_span);

/* The largest byte span of one buffer: anything an MPI_Aint displacement
 * or extent can express. Counts beyond it cannot describe real memory. */
#define DATATYPE_MAX_SPAN ((size_t)PTRDIFF_MAX)

/* Bytes from the buffer start to one past the last byte that `nelem`
 * elements laid out by `type` touch (0 for nelem == 0); SIZE_MAX when
 * that exceeds DATATYPE_MAX_SPAN (the arithmetic would overflow). */
size_t datatype_span_bytes(const struct datatype *type, size_t nelem);

/* Whether `count` blocks of `nelem` elements of `elem_size` bytes fit in
 * DATATYPE_MAX_SPAN; then sets *bytes. Logs on behalf of `call`, naming
 * the buffer `what`, and returns DART_ERR_INVAL otherwise. */
dart_ret_t datatype_check_bytes(const char *call, const char *what,
                                size_t nelem, size_t elem_size, size_t count,
                                size_t *bytes);

/* Copies element j of `src` (layout src_type) to position j of `dst`
 * (layout dst_type) for j < nelem, in contiguous runs (memcpy per run,
 * one memcpy when both are contiguous). Types as validated above. */
void datatype_copy(void *dst, const struct datatype *dst_type,
                   const void *src, const struct datatype *src_type,
                   size_t nelem);

struct mpi_count;
/* MPI (count, type) for `nelem` elements laid out by `type`: base
 * elements for contiguous types, instances for strided/indexed ones,
 * large counts folded as in large_count.h. Returns an MPI error code;
 * release the result with mpi_count_release. */
int datatype_mpi_layout(const struct datatype *type, size_t nelem,
                        struct mpi_count *out);

static inline bool datatype_is_basic_id(dart_datatype_t type)
{
  return type > DART_TYPE_UNDEFINED && type < DART_TYPE_LAST;
}

#endif
