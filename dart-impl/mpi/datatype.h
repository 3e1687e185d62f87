/* DART datatypes: the 11 basic types, custom (opaque contiguous) types,
 * and strided/indexed layouts over a contiguous base (spec 4.5). */
#ifndef DART_MPI_DATATYPE_H
#define DART_MPI_DATATYPE_H

#include <dash/dart/if/dart_types.h>

#include <mpi.h>
#include <stdbool.h>

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
};

dart_ret_t datatype_module_init(const char *call);
void datatype_module_finalize(void);

/* The descriptor of a live type, or NULL (undefined, destroyed, junk). */
const struct datatype *datatype_get(dart_datatype_t type);

/* The descriptor of a live contiguous (basic or custom) type; logs on
 * behalf of `call` and returns NULL otherwise. */
const struct datatype *datatype_contiguous_or_report(const char *call,
                                                     dart_datatype_t type);

static inline bool datatype_is_basic_id(dart_datatype_t type)
{
  return type > DART_TYPE_UNDEFINED && type < DART_TYPE_LAST;
}

#endif
