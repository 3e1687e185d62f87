/**
 * \file dash/dart/if/dart_types.h
 *
 * Basic types and constants of the DART interface: return and exit codes,
 * unit and team ids, data types, reduction operations, thread support
 * levels, locality types and the runtime configuration record.
 */
#ifndef DASH__DART__IF__DART_TYPES_H_
#define DASH__DART__IF__DART_TYPES_H_

#include <stdlib.h>
#include <stdint.h>
#include <stdbool.h>
#include <limits.h>

/* Empty markers without semantic role (also defined in dart_util.h). */
#define DART_INTERFACE_ON
#define DART_INTERFACE_OFF

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------------
 * Return codes
 * ---------------------------------------------------------------------- */

typedef enum
{
  DART_OK           = 0,
  DART_PENDING      = 1,
  DART_ERR_INVAL    = 2,
  DART_ERR_NOTFOUND = 3,
  DART_ERR_NOTINIT  = 4,
  DART_ERR_NOMEM    = 5,
  DART_ERR_OTHER    = 999
} dart_ret_t;

/* ----------------------------------------------------------------------
 * Exit codes
 * ---------------------------------------------------------------------- */

enum
{
  DART_EXIT_SUCCESS = EXIT_SUCCESS,
  DART_EXIT_ABORT   = EXIT_FAILURE,
  DART_EXIT_ASSERT  = -6
};

/* ----------------------------------------------------------------------
 * Reduction and RMA operations
 * ---------------------------------------------------------------------- */

typedef uintptr_t dart_operation_t;

/* Indices of the minimum and the maximum inside a DART_OP_MINMAX pair. */
#define DART_OP_MINMAX_MIN 0
#define DART_OP_MINMAX_MAX 1

enum
{
  DART_OP_UNDEFINED = 0,
  DART_OP_MIN       = 1,
  DART_OP_MAX       = 2,
  DART_OP_MINMAX    = 3,
  DART_OP_SUM       = 4,
  DART_OP_PROD      = 5,
  DART_OP_BAND      = 6,
  DART_OP_LAND      = 7,
  DART_OP_BOR       = 8,
  DART_OP_LOR       = 9,
  DART_OP_BXOR      = 10,
  DART_OP_LXOR      = 11,
  DART_OP_REPLACE   = 12,
  DART_OP_NO_OP     = 13,
  DART_OP_LAST      = 14
};

/* User combiner: inoutvec[i] = invec[i] op inoutvec[i] for i < len. */
typedef void (*dart_operator_t)(const void *invec, void *inoutvec,
                                size_t len, void *user_data);

/* ----------------------------------------------------------------------
 * Data types
 * ---------------------------------------------------------------------- */

typedef intptr_t dart_datatype_t;

#define DART_TYPE_UNDEFINED   (dart_datatype_t)(0)
#define DART_TYPE_BYTE        (dart_datatype_t)(1)
#define DART_TYPE_SHORT       (dart_datatype_t)(2)
#define DART_TYPE_INT         (dart_datatype_t)(3)
#define DART_TYPE_UINT        (dart_datatype_t)(4)
#define DART_TYPE_LONG        (dart_datatype_t)(5)
#define DART_TYPE_ULONG       (dart_datatype_t)(6)
#define DART_TYPE_LONGLONG    (dart_datatype_t)(7)
#define DART_TYPE_ULONGLONG   (dart_datatype_t)(8)
#define DART_TYPE_FLOAT       (dart_datatype_t)(9)
#define DART_TYPE_DOUBLE      (dart_datatype_t)(10)
#define DART_TYPE_LONG_DOUBLE (dart_datatype_t)(11)
#define DART_TYPE_LAST        (dart_datatype_t)(12)

#if (UINT32_MAX == SIZE_MAX)
#  define DART_TYPE_SIZET DART_TYPE_ULONG
#elif (UINT64_MAX == SIZE_MAX)
#  define DART_TYPE_SIZET DART_TYPE_ULONGLONG
#else
#  error "Cannot determine DART type for size_t"
#endif

/* ----------------------------------------------------------------------
 * Unit identifiers
 * ---------------------------------------------------------------------- */

typedef int32_t dart_unit_t;

#define DART_UNDEFINED_UNIT_ID ((dart_unit_t)(-1))

/* Unit id relative to DART_TEAM_ALL. */
typedef struct dart_global_unit {
  dart_unit_t id;
#ifdef __cplusplus
  constexpr dart_global_unit() : id(DART_UNDEFINED_UNIT_ID) { }
  constexpr dart_global_unit(dart_unit_t u) : id(u) { }
#endif
} dart_global_unit_t;

/* Unit id relative to a team. */
typedef struct dart_local_unit {
  dart_unit_t id;
#ifdef __cplusplus
  constexpr dart_local_unit() : id(DART_UNDEFINED_UNIT_ID) { }
  constexpr dart_local_unit(dart_unit_t u) : id(u) { }
#endif
} dart_team_unit_t;

static inline dart_team_unit_t dart_create_team_unit(dart_unit_t unit)
{
  dart_team_unit_t res;
  res.id = unit;
  return res;
}

static inline dart_global_unit_t dart_create_global_unit(dart_unit_t unit)
{
  dart_global_unit_t res;
  res.id = unit;
  return res;
}

#define DART_TEAM_UNIT_ID(u)   dart_create_team_unit(u)
#define DART_GLOBAL_UNIT_ID(u) dart_create_global_unit(u)

#define DART_UNDEFINED_TEAM_UNIT_ID \
  DART_TEAM_UNIT_ID(DART_UNDEFINED_UNIT_ID)
#define DART_UNDEFINED_GLOBAL_UNIT_ID \
  DART_GLOBAL_UNIT_ID(DART_UNDEFINED_UNIT_ID)

/* ----------------------------------------------------------------------
 * Teams
 * ---------------------------------------------------------------------- */

typedef int16_t dart_team_t;

#define DART_UNDEFINED_TEAM_ID ((dart_team_t)(-1))

/* ----------------------------------------------------------------------
 * Thread support levels
 * ---------------------------------------------------------------------- */

typedef enum
{
  DART_THREAD_SINGLE   = 0,
  DART_THREAD_MULTIPLE = 10
} dart_thread_support_level_t;

/* ----------------------------------------------------------------------
 * Locality
 * ---------------------------------------------------------------------- */

/* Numerically larger scopes are finer (deeper in the hierarchy). */
typedef enum
{
  DART_LOCALITY_SCOPE_UNDEFINED = -1,
  DART_LOCALITY_SCOPE_GLOBAL    = 0,
  DART_LOCALITY_SCOPE_GROUP     = 1,
  DART_LOCALITY_SCOPE_NETWORK   = 50,
  DART_LOCALITY_SCOPE_NODE      = 100,
  DART_LOCALITY_SCOPE_MODULE    = 200,
  DART_LOCALITY_SCOPE_NUMA      = 300,
  DART_LOCALITY_SCOPE_UNIT      = 400,
  DART_LOCALITY_SCOPE_PACKAGE   = 500,
  DART_LOCALITY_SCOPE_UNCORE    = 510,
  DART_LOCALITY_SCOPE_CACHE     = 530,
  DART_LOCALITY_SCOPE_CORE      = 550,
  DART_LOCALITY_SCOPE_CPU       = 600
} dart_locality_scope_t;

/* Depends on feature-test macros in effect for <limits.h> (ABI hazard). */
#if defined(HOST_NAME_MAX)
#  define DART_LOCALITY_HOST_MAX_SIZE (HOST_NAME_MAX)
#elif defined(_POSIX_HOST_NAME_MAX)
#  define DART_LOCALITY_HOST_MAX_SIZE (_POSIX_HOST_NAME_MAX)
#else
#  define DART_LOCALITY_HOST_MAX_SIZE ((int)(256))
#endif

#define DART_LOCALITY_DOMAIN_TAG_MAX_SIZE ((int)(32))
#define DART_LOCALITY_MAX_DOMAIN_SCOPES   ((int)(12))
#define DART_LOCALITY_UNIT_MAX_CPUS       ((int)(64))
#define DART_LOCALITY_MAX_NUMA_ID         ((int)(16))
#define DART_LOCALITY_MAX_CACHE_LEVELS    ((int)( 5))

/* Scope and index of an ancestor domain. */
typedef struct {
  dart_locality_scope_t scope;
  int                   index;
} dart_locality_scope_pos_t;

/* Hardware facts of one unit; unknown values are -1. */
typedef struct {
  char  host[DART_LOCALITY_HOST_MAX_SIZE];
  int   num_cores;
  int   num_numa;
  int   numa_id;
  int   num_sockets;
  int   core_id;
  int   cpu_id;
  int   min_cpu_mhz;
  int   max_cpu_mhz;
  int   cache_sizes[DART_LOCALITY_MAX_CACHE_LEVELS];
  int   cache_line_sizes[DART_LOCALITY_MAX_CACHE_LEVELS];
  int   cache_ids[DART_LOCALITY_MAX_CACHE_LEVELS];
  int   min_threads;
  int   max_threads;
  int   max_shmem_mbps;
  int   system_memory_bytes;
  int   numa_memory_bytes;
  dart_locality_scope_pos_t scopes[DART_LOCALITY_MAX_DOMAIN_SCOPES];
  int   num_scopes;
} dart_hwinfo_t;

typedef struct {
  char  host[DART_LOCALITY_HOST_MAX_SIZE];
  char  module[DART_LOCALITY_HOST_MAX_SIZE];
  dart_locality_scope_pos_t pos;
} dart_module_location_t;

/* Node of a team's locality domain hierarchy. */
struct dart_domain_locality_s {
  char                             host[DART_LOCALITY_HOST_MAX_SIZE];
  char                             domain_tag[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
  struct dart_domain_locality_s ** aliases;
  int                              num_aliases;
  dart_locality_scope_t            scope;
  int                              level;
  int                              global_index;
  int                              relative_index;
  struct dart_domain_locality_s  * parent;
  int                              num_domains;
  struct dart_domain_locality_s ** children;
  int                              is_symmetric;
  dart_team_t                      team;
  int                              num_units;
  dart_global_unit_t             * unit_ids;
  int                              num_nodes;
  int                              node_id;
  int                              num_cores;
  int                              shared_mem_bytes;
};
typedef struct dart_domain_locality_s dart_domain_locality_t;

/* Locality record of one team member. */
typedef struct {
  dart_team_unit_t unit;
  dart_team_t      team;
  dart_hwinfo_t    hwinfo;
  char             domain_tag[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
} dart_unit_locality_t;

/* ----------------------------------------------------------------------
 * Runtime configuration
 * ---------------------------------------------------------------------- */

typedef struct {
  int log_enabled;
} dart_config_t;

/* ----------------------------------------------------------------------
 * Derived data types and user-defined operations
 * ---------------------------------------------------------------------- */

dart_ret_t dart_type_create_strided(
  dart_datatype_t   basetype,
  size_t            stride,
  size_t            blocklen,
  dart_datatype_t * newtype);

dart_ret_t dart_type_create_indexed(
  dart_datatype_t   basetype,
  size_t            count,
  const size_t      blocklen[],
  const size_t      offset[],
  dart_datatype_t * newtype);

dart_ret_t dart_type_create_custom(
  size_t            num_bytes,
  dart_datatype_t * newtype);

dart_ret_t dart_type_destroy(dart_datatype_t *dart_type);

dart_ret_t dart_op_create(
  dart_operator_t    op,
  void             * userdata,
  bool               commute,
  dart_datatype_t    dtype,
  bool               dtype_is_tmp,
  dart_operation_t * new_op);

dart_ret_t dart_op_destroy(dart_operation_t *op);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DASH__DART__IF__DART_TYPES_H_ */
