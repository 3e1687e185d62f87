/**
 * \file dash/dart/if/dart_types.h
 *
 * \brief Basic types and constants of the DART interface.
 *
 * Return and exit codes, reduction operations, data types (with the calls
 * that create derived types and user-defined operations), unit and team
 * ids, thread support levels, locality types and the runtime
 * configuration record. Includes `<stdlib.h>`, `<stdint.h>`,
 * `<stdbool.h>` and `<limits.h>`.
 */
#ifndef DASH__DART__IF__DART_TYPES_H_
#define DASH__DART__IF__DART_TYPES_H_

#include <stdlib.h>
#include <stdint.h>
#include <stdbool.h>
#include <limits.h>

/** \brief Empty marker without meaning (also defined in dart_util.h). */
#define DART_INTERFACE_ON
/** \brief Empty marker without meaning (also defined in dart_util.h). */
#define DART_INTERFACE_OFF

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \defgroup DartTypes Types and constants
 * \brief Return codes, ids, data types, operations, thread levels,
 *        locality types and the configuration record.
 * @{
 */

/* ----------------------------------------------------------------------
 * Return codes
 * ---------------------------------------------------------------------- */

/**
 * \brief Result of every DART call that can fail.
 *
 * Each error return is accompanied by one line on stderr naming the call
 * and the reason, unless logging is switched off (dart_config_t).
 */
typedef enum
{
  /** The call succeeded. */
  DART_OK           = 0,
  /** Reserved: the operation has not finished yet. No call of this
   *  version returns it. */
  DART_PENDING      = 1,
  /** An argument is invalid: a NULL pointer where an object is needed,
   *  an unknown or destroyed team, segment, type, operation, handle,
   *  lock or allocator, an id or count out of range, or a type and
   *  operation that do not go together. The call changed nothing except
   *  output parameters, which hold their null values. */
  DART_ERR_INVAL    = 2,
  /** A looked-up item does not exist (locality domains and scopes). */
  DART_ERR_NOTFOUND = 3,
  /** The runtime is not running: the call was made before dart_init()
   *  or after dart_exit(). */
  DART_ERR_NOTINIT  = 4,
  /** Memory ran out: a pool, the local allocation pool or the C heap. */
  DART_ERR_NOMEM    = 5,
  /** Any other failure, typically an MPI call that failed (its message
   *  is logged) or an operation the underlying MPI cannot do correctly. */
  DART_ERR_OTHER    = 999
} dart_ret_t;

/* ----------------------------------------------------------------------
 * Exit codes
 * ---------------------------------------------------------------------- */

/** \brief Exit statuses for dart_abort() and the end of a program. */
enum
{
  /** Normal termination (`EXIT_SUCCESS`). */
  DART_EXIT_SUCCESS = EXIT_SUCCESS,
  /** Termination because of an error (`EXIT_FAILURE`). */
  DART_EXIT_ABORT   = EXIT_FAILURE,
  /** Termination because an assertion failed. */
  DART_EXIT_ASSERT  = -6
};

/* ----------------------------------------------------------------------
 * Reduction and RMA operations
 * ---------------------------------------------------------------------- */

/**
 * \brief Identifies a reduction or atomic operation: one of the
 *        predefined `DART_OP_*` values, or a user-defined operation made
 *        by dart_op_create().
 */
typedef uintptr_t dart_operation_t;

/** \brief Index of the minimum inside a (minimum, maximum) pair of
 *         #DART_OP_MINMAX. */
#define DART_OP_MINMAX_MIN 0
/** \brief Index of the maximum inside a (minimum, maximum) pair of
 *         #DART_OP_MINMAX. */
#define DART_OP_MINMAX_MAX 1

/**
 * \brief Predefined operations (values of dart_operation_t).
 *
 * Which operation is valid with which basic type, in collectives and in
 * atomics, is listed at dart_allreduce() and dart_accumulate().
 */
enum
{
  /** No operation; never valid as an argument. */
  DART_OP_UNDEFINED = 0,
  /** Minimum: the target keeps its value only where it compares less
   *  than the operand, else it takes the operand (a NaN on either side,
   *  and equal values such as -0.0 and +0.0, give the operand). This is
   *  the rule of `MPI_MIN` in Open MPI and MPICH, so an atomic gives the
   *  same bits on every path. */
  DART_OP_MIN       = 1,
  /** Maximum: as #DART_OP_MIN with "greater". */
  DART_OP_MAX       = 2,
  /** Element pairs (minimum, maximum), reduced component-wise; only in
   *  dart_allreduce() and dart_reduce(), with an even element count. */
  DART_OP_MINMAX    = 3,
  /** Sum. */
  DART_OP_SUM       = 4,
  /** Product. */
  DART_OP_PROD      = 5,
  /** Bitwise and. */
  DART_OP_BAND      = 6,
  /** Logical and (non-zero counts as true). */
  DART_OP_LAND      = 7,
  /** Bitwise or. */
  DART_OP_BOR       = 8,
  /** Logical or. */
  DART_OP_LOR       = 9,
  /** Bitwise exclusive or. */
  DART_OP_BXOR      = 10,
  /** Logical exclusive or. */
  DART_OP_LXOR      = 11,
  /** Replaces the target by the operand; atomics only (an atomic swap
   *  in dart_fetch_and_op()). */
  DART_OP_REPLACE   = 12,
  /** Leaves the target unchanged; atomics only (an atomic read in
   *  dart_fetch_and_op()). */
  DART_OP_NO_OP     = 13,
  /** Number of predefined values; not an operation. */
  DART_OP_LAST      = 14
};

/**
 * \brief Combining function of a user-defined operation (dart_op_create()).
 *
 * Must set `inoutvec[i] = invec[i] op inoutvec[i]` for every `i < len`.
 * It may be called on any member of the team, any number of times, with
 * intermediate results, and with `len` smaller than the element count of
 * the collective.
 *
 * \param[in]     invec     `len` elements of the operation's type.
 * \param[in,out] inoutvec  `len` elements, combined in place.
 * \param[in]     len       Number of elements of the operation's type.
 * \param[in]     user_data The pointer given to dart_op_create().
 */
typedef void (*dart_operator_t)(const void *invec, void *inoutvec,
                                size_t len, void *user_data);

/* ----------------------------------------------------------------------
 * Data types
 * ---------------------------------------------------------------------- */

/**
 * \brief Identifies a data type: one of the basic `DART_TYPE_*` values
 *        or a type made by dart_type_create_strided(),
 *        dart_type_create_indexed() or dart_type_create_custom().
 *
 * Derived types never collide with the basic values.
 */
typedef intptr_t dart_datatype_t;

/** \brief No type; invalid in every call. */
#define DART_TYPE_UNDEFINED   (dart_datatype_t)(0)
/** \brief One byte (`char`): raw data; of the predefined operations only
 *         the bitwise ones and #DART_OP_MINMAX accept it. */
#define DART_TYPE_BYTE        (dart_datatype_t)(1)
/** \brief `short`. */
#define DART_TYPE_SHORT       (dart_datatype_t)(2)
/** \brief `int`. */
#define DART_TYPE_INT         (dart_datatype_t)(3)
/** \brief `unsigned int`. */
#define DART_TYPE_UINT        (dart_datatype_t)(4)
/** \brief `long`. */
#define DART_TYPE_LONG        (dart_datatype_t)(5)
/** \brief `unsigned long`. */
#define DART_TYPE_ULONG       (dart_datatype_t)(6)
/** \brief `long long`. */
#define DART_TYPE_LONGLONG    (dart_datatype_t)(7)
/** \brief `unsigned long long`. */
#define DART_TYPE_ULONGLONG   (dart_datatype_t)(8)
/** \brief `float`. */
#define DART_TYPE_FLOAT       (dart_datatype_t)(9)
/** \brief `double`. */
#define DART_TYPE_DOUBLE      (dart_datatype_t)(10)
/** \brief `long double`. */
#define DART_TYPE_LONG_DOUBLE (dart_datatype_t)(11)
/** \brief Number of basic type values; never a valid type. */
#define DART_TYPE_LAST        (dart_datatype_t)(12)

/**
 * \def DART_TYPE_SIZET
 * \brief The basic type with the size of `size_t`: #DART_TYPE_ULONG
 *        where `size_t` has 32 bits, #DART_TYPE_ULONGLONG where it has 64.
 */
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

/** \brief Integer id of a unit (a process taking part in the program). */
typedef int32_t dart_unit_t;

/** \brief The id of no unit. */
#define DART_UNDEFINED_UNIT_ID ((dart_unit_t)(-1))

/**
 * \brief Unit id relative to #DART_TEAM_ALL (a global id).
 *
 * In C++ the struct also has a default constructor (the undefined id) and
 * a converting constructor from dart_unit_t.
 */
typedef struct dart_global_unit {
  /** Position of the unit in #DART_TEAM_ALL, 0 to dart_size() - 1. */
  dart_unit_t id;
#ifdef __cplusplus
  constexpr dart_global_unit() : id(DART_UNDEFINED_UNIT_ID) { }
  constexpr dart_global_unit(dart_unit_t u) : id(u) { }
#endif
} dart_global_unit_t;

/**
 * \brief Unit id relative to a team (0 to team size - 1, in ascending
 *        order of the members' global ids).
 *
 * In C++ the struct also has a default constructor (the undefined id) and
 * a converting constructor from dart_unit_t.
 */
typedef struct dart_local_unit {
  /** Position of the unit in its team. */
  dart_unit_t id;
#ifdef __cplusplus
  constexpr dart_local_unit() : id(DART_UNDEFINED_UNIT_ID) { }
  constexpr dart_local_unit(dart_unit_t u) : id(u) { }
#endif
} dart_team_unit_t;

/**
 * \brief Wraps a team-relative unit number as a dart_team_unit_t.
 * \param[in] unit Unit number relative to some team.
 * \return The team unit id holding `unit`. No check, no runtime needed.
 */
static inline dart_team_unit_t dart_create_team_unit(dart_unit_t unit)
{
  dart_team_unit_t res;
  res.id = unit;
  return res;
}

/**
 * \brief Wraps a global unit number as a dart_global_unit_t.
 * \param[in] unit Unit number relative to #DART_TEAM_ALL.
 * \return The global unit id holding `unit`. No check, no runtime needed.
 */
static inline dart_global_unit_t dart_create_global_unit(dart_unit_t unit)
{
  dart_global_unit_t res;
  res.id = unit;
  return res;
}

/** \brief A dart_team_unit_t holding `u` (see dart_create_team_unit()). */
#define DART_TEAM_UNIT_ID(u)   dart_create_team_unit(u)
/** \brief A dart_global_unit_t holding `u` (see
 *         dart_create_global_unit()). */
#define DART_GLOBAL_UNIT_ID(u) dart_create_global_unit(u)

/** \brief The undefined team-relative unit id. */
#define DART_UNDEFINED_TEAM_UNIT_ID \
  DART_TEAM_UNIT_ID(DART_UNDEFINED_UNIT_ID)
/** \brief The undefined global unit id. */
#define DART_UNDEFINED_GLOBAL_UNIT_ID \
  DART_GLOBAL_UNIT_ID(DART_UNDEFINED_UNIT_ID)

/* ----------------------------------------------------------------------
 * Teams
 * ---------------------------------------------------------------------- */

/**
 * \brief Id of a team: #DART_TEAM_ALL (0), a positive id from
 *        dart_team_create(), or #DART_TEAM_NULL.
 */
typedef int16_t dart_team_t;

/** \brief The id of no team (equal to #DART_TEAM_NULL). */
#define DART_UNDEFINED_TEAM_ID ((dart_team_t)(-1))

/* ----------------------------------------------------------------------
 * Thread support levels
 * ---------------------------------------------------------------------- */

/** \brief How far the program may call DART from several threads. */
typedef enum
{
  /** Only one thread of a unit calls DART at a time. */
  DART_THREAD_SINGLE   = 0,
  /** Several threads of a unit may call DART concurrently, within the
   *  limits each call states (MT-safe, MT-team, MT-none; see
   *  \ref dart_threads). */
  DART_THREAD_MULTIPLE = 10
} dart_thread_support_level_t;

/* ----------------------------------------------------------------------
 * Locality
 * ---------------------------------------------------------------------- */

/**
 * \brief Level of a locality domain.
 *
 * Numerically larger scopes are finer, deeper in the hierarchy.
 */
typedef enum
{
  /** Not set. */
  DART_LOCALITY_SCOPE_UNDEFINED = -1,
  /** All units of the team (the root domain). */
  DART_LOCALITY_SCOPE_GLOBAL    = 0,
  /** A group of sibling domains made by dart_domain_group(). */
  DART_LOCALITY_SCOPE_GROUP     = 1,
  /** Part of the interconnect. */
  DART_LOCALITY_SCOPE_NETWORK   = 50,
  /** A compute node (units on it may share memory). */
  DART_LOCALITY_SCOPE_NODE      = 100,
  /** A processing module of a node: its host processors or an
   *  accelerator. */
  DART_LOCALITY_SCOPE_MODULE    = 200,
  /** A NUMA domain. */
  DART_LOCALITY_SCOPE_NUMA      = 300,
  /** One unit. */
  DART_LOCALITY_SCOPE_UNIT      = 400,
  /** A processor package (socket). */
  DART_LOCALITY_SCOPE_PACKAGE   = 500,
  /** The uncore (system agent) of a package. */
  DART_LOCALITY_SCOPE_UNCORE    = 510,
  /** A shared cache. */
  DART_LOCALITY_SCOPE_CACHE     = 530,
  /** A physical core. */
  DART_LOCALITY_SCOPE_CORE      = 550,
  /** A hardware thread. */
  DART_LOCALITY_SCOPE_CPU       = 600
} dart_locality_scope_t;

/**
 * \def DART_LOCALITY_HOST_MAX_SIZE
 * \brief Size of the host name fields of the locality structs.
 *
 * `HOST_NAME_MAX` where `<limits.h>` defines it, else
 * `_POSIX_HOST_NAME_MAX`, else 256. Which one applies depends on the
 * feature-test macros in effect, and the value sizes several structs:
 * compile clients as the library is compiled (GNU mode or
 * `_POSIX_C_SOURCE`), or the layouts differ.
 */
#if defined(HOST_NAME_MAX)
#  define DART_LOCALITY_HOST_MAX_SIZE (HOST_NAME_MAX)
#elif defined(_POSIX_HOST_NAME_MAX)
#  define DART_LOCALITY_HOST_MAX_SIZE (_POSIX_HOST_NAME_MAX)
#else
#  define DART_LOCALITY_HOST_MAX_SIZE ((int)(256))
#endif

/** \brief Size of a domain tag buffer, terminating NUL included. */
#define DART_LOCALITY_DOMAIN_TAG_MAX_SIZE ((int)(32))
/** \brief Number of entries of dart_hwinfo_t::scopes. */
#define DART_LOCALITY_MAX_DOMAIN_SCOPES   ((int)(12))
/** \brief Largest number of CPUs per unit (not used by the interface). */
#define DART_LOCALITY_UNIT_MAX_CPUS       ((int)(64))
/** \brief Largest NUMA domain id. */
#define DART_LOCALITY_MAX_NUMA_ID         ((int)(16))
/** \brief Number of cache levels in dart_hwinfo_t. */
#define DART_LOCALITY_MAX_CACHE_LEVELS    ((int)( 5))

/** \brief Scope and index of an ancestor domain of a unit. */
typedef struct {
  /** Scope of the ancestor. */
  dart_locality_scope_t scope;
  /** Its index among the domains of that scope. */
  int                   index;
} dart_locality_scope_pos_t;

/**
 * \brief Hardware facts of one unit.
 *
 * An unknown value is -1. The struct has a fixed size and no pointers:
 * units exchange it by value.
 */
typedef struct {
  /** Host name of the unit's node. */
  char  host[DART_LOCALITY_HOST_MAX_SIZE];
  /** Cores available to the unit's module. */
  int   num_cores;
  /** NUMA domains of the node. */
  int   num_numa;
  /** The unit's NUMA domain. */
  int   numa_id;
  /** Processor packages of the node. */
  int   num_sockets;
  /** The unit's core. */
  int   core_id;
  /** The unit's hardware thread. */
  int   cpu_id;
  /** Lowest clock rate in MHz. */
  int   min_cpu_mhz;
  /** Highest clock rate in MHz. */
  int   max_cpu_mhz;
  /** Cache size per level in bytes (index 0 is L1). */
  int   cache_sizes[DART_LOCALITY_MAX_CACHE_LEVELS];
  /** Cache line size per level in bytes. */
  int   cache_line_sizes[DART_LOCALITY_MAX_CACHE_LEVELS];
  /** Id of the unit's cache per level. */
  int   cache_ids[DART_LOCALITY_MAX_CACHE_LEVELS];
  /** Fewest hardware threads per core. */
  int   min_threads;
  /** Most hardware threads per core. */
  int   max_threads;
  /** Local memory bandwidth in MB/s. */
  int   max_shmem_mbps;
  /** Memory of the node. */
  int   system_memory_bytes;
  /** Memory of the unit's NUMA domain. */
  int   numa_memory_bytes;
  /** The unit's ancestor domains below the module, finest first
   *  (index 0, normally the core). */
  dart_locality_scope_pos_t scopes[DART_LOCALITY_MAX_DOMAIN_SCOPES];
  /** Number of valid entries of `scopes`. */
  int   num_scopes;
} dart_hwinfo_t;

/** \brief Location of a processing module: host, module name and
 *         position in the hierarchy. */
typedef struct {
  /** Host name of the node. */
  char  host[DART_LOCALITY_HOST_MAX_SIZE];
  /** Name of the module. */
  char  module[DART_LOCALITY_HOST_MAX_SIZE];
  /** Scope and index of the module's domain. */
  dart_locality_scope_pos_t pos;
} dart_module_location_t;

/**
 * \brief Node of a team's locality domain hierarchy.
 *
 * The root has the tag ".", a child's tag is its parent's tag followed
 * by "." and a number (".0", ".0.1", ...). `children[i]->parent` is the
 * domain, `level` its depth, and `unit_ids` the units of all its
 * children. Domains returned by dart_domain_team_locality() belong to
 * DART; those from dart_domain_create() and dart_domain_clone() to the
 * caller.
 */
struct dart_domain_locality_s {
  /** Host name of the node or module, empty above the node level. */
  char                             host[DART_LOCALITY_HOST_MAX_SIZE];
  /** Dot-separated path of the domain, the key of dart_domain_find(). */
  char                             domain_tag[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
  /** Other domains that stand for the same entity (a group domain's
   *  parent); `num_aliases` entries. */
  struct dart_domain_locality_s ** aliases;
  /** Number of entries of `aliases`. */
  int                              num_aliases;
  /** Scope of the domain. */
  dart_locality_scope_t            scope;
  /** Depth in the hierarchy; the root is 0. */
  int                              level;
  /** Index among all domains of the same scope. */
  int                              global_index;
  /** Index in the parent's `children`. */
  int                              relative_index;
  /** Parent domain; NULL at the root. */
  struct dart_domain_locality_s  * parent;
  /** Number of children. */
  int                              num_domains;
  /** The children, `num_domains` entries; NULL when there are none. */
  struct dart_domain_locality_s ** children;
  /** Non-zero if all children are the same kind of hardware. */
  int                              is_symmetric;
  /** The team the hierarchy was built for. */
  dart_team_t                      team;
  /** Number of units below the domain. */
  int                              num_units;
  /** Global ids of the units below the domain, `num_units` entries. */
  dart_global_unit_t             * unit_ids;
  /** Number of nodes below the domain. */
  int                              num_nodes;
  /** Index of the node the domain lies on; -1 if it spans several. */
  int                              node_id;
  /** Number of cores below the domain. */
  int                              num_cores;
  /** Shared memory of the domain in bytes; -1 if unknown. */
  int                              shared_mem_bytes;
};
/** \brief Node of a team's locality domain hierarchy (see
 *         dart_domain_locality_s). */
typedef struct dart_domain_locality_s dart_domain_locality_t;

/**
 * \brief Locality record of one team member.
 *
 * Fixed size, no pointers: units exchange it by value.
 */
typedef struct {
  /** The unit's id relative to `team`. */
  dart_team_unit_t unit;
  /** The team the record belongs to. */
  dart_team_t      team;
  /** The unit's hardware facts. */
  dart_hwinfo_t    hwinfo;
  /** Tag of the leaf domain that holds the unit. */
  char             domain_tag[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
} dart_unit_locality_t;

/* ----------------------------------------------------------------------
 * Runtime configuration
 * ---------------------------------------------------------------------- */

/** \brief The process-wide runtime configuration (see dart_config()). */
typedef struct {
  /** Non-zero (the default) lets DART write its log and error lines to
   *  stderr; 0 silences them. May be changed at any time. */
  int log_enabled;
} dart_config_t;

/* ----------------------------------------------------------------------
 * Derived data types and user-defined operations
 * ---------------------------------------------------------------------- */

/**
 * \brief Creates a strided type: blocks of `blocklen` consecutive
 *        `basetype` elements whose starts lie `stride` elements apart.
 *
 * Element `j` of a transfer lies at `(j / blocklen) * stride +
 * j % blocklen` base elements from the start. The type is valid in the
 * put and get calls only, as source or destination layout; element
 * counts used with it must be multiples of `blocklen`.
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in]  basetype Basic or custom type of the elements.
 * \param[in]  stride   Distance between block starts, in elements
 *                      (`blocklen` to `INT_MAX`).
 * \param[in]  blocklen Elements per block, at least 1.
 * \param[out] newtype  Receives the new type; #DART_TYPE_UNDEFINED on
 *                      failure.
 * \retval DART_OK          Created.
 * \retval DART_ERR_INVAL   `newtype` is NULL, `basetype` is not a basic
 *                          or custom type, or `blocklen` or `stride` is
 *                          out of range.
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_OTHER   MPI could not build the type.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_type_create_strided(
  dart_datatype_t   basetype,
  size_t            stride,
  size_t            blocklen,
  dart_datatype_t * newtype);

/**
 * \brief Creates an indexed type: `count` blocks, block `i` holding
 *        `blocklen[i]` elements from element offset `offset[i]`.
 *
 * One instance covers the sum of `blocklen` elements; element counts used
 * with the type must be multiples of that sum, and consecutive instances
 * follow each other at the type's extent (the largest block end minus the
 * smallest offset). Valid in the put and get calls only. Blocks may
 * overlap; such a type lays out memory a transfer only reads (`src_type`)
 * and is refused with #DART_ERR_INVAL as `dst_type`, the memory it writes
 * (a put's target, a get's `dest`), where MPI forbids overlapping entries.
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in]  basetype Basic or custom type of the elements.
 * \param[in]  count    Number of blocks (1 to `INT_MAX`).
 * \param[in]  blocklen `count` block lengths in elements, each at most
 *                      `INT_MAX`; not all 0.
 * \param[in]  offset   `count` block offsets in elements from the start,
 *                      each at most `INT_MAX`.
 * \param[out] newtype  Receives the new type; #DART_TYPE_UNDEFINED on
 *                      failure.
 * \retval DART_OK          Created.
 * \retval DART_ERR_INVAL   A pointer is NULL, `basetype` is not a basic or
 *                          custom type, or a count, length or offset is
 *                          out of range.
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_OTHER   MPI could not build the type.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_type_create_indexed(
  dart_datatype_t   basetype,
  size_t            count,
  const size_t      blocklen[],
  const size_t      offset[],
  dart_datatype_t * newtype);

/**
 * \brief Creates an opaque contiguous type whose elements are
 *        `num_bytes` bytes each.
 *
 * Usable wherever a contiguous type is: put and get, collectives,
 * two-sided messages, dart_memalloc() and user-defined reductions; not
 * with the predefined operations and not in atomics.
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in]  num_bytes Size of one element, 1 to `INT_MAX` bytes.
 * \param[out] newtype   Receives the new type; #DART_TYPE_UNDEFINED on
 *                       failure.
 * \retval DART_OK          Created.
 * \retval DART_ERR_INVAL   `newtype` is NULL or `num_bytes` is out of
 *                          range.
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_OTHER   MPI could not build the type.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_type_create_custom(
  size_t            num_bytes,
  dart_datatype_t * newtype);

/**
 * \brief Destroys a derived or custom type.
 *
 * Transfers already started with the type are not affected; the type may
 * not be used in new calls. A type given to dart_op_create() must live
 * until the operation is destroyed.
 *
 * Local. Thread safety: MT-safe for distinct types.
 *
 * \param[in,out] dart_type The type; set to #DART_TYPE_UNDEFINED.
 * \retval DART_OK          Destroyed.
 * \retval DART_ERR_INVAL   `dart_type` is NULL, a basic type, or not a
 *                          live derived type.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_type_destroy(dart_datatype_t *dart_type);

/**
 * \brief Makes a user-defined operation for dart_allreduce() and
 *        dart_reduce() from a combining function.
 *
 * The operation is valid with `dtype` only and never in atomics.
 *
 * Local. Thread safety: MT-safe.
 *
 * \param[in]  op           The combining function.
 * \param[in]  userdata     Passed unchanged to every call of `op`; owned
 *                          by the caller.
 * \param[in]  commute      Whether `op` is commutative. If false, the
 *                          result equals combining the members'
 *                          contributions in ascending team unit order.
 * \param[in]  dtype        Basic or custom type the operation combines.
 * \param[in]  dtype_is_tmp Hint that `dtype` serves this operation only;
 *                          the type must still live until
 *                          dart_op_destroy().
 * \param[out] new_op       Receives the operation; #DART_OP_UNDEFINED on
 *                          failure.
 * \retval DART_OK          Created.
 * \retval DART_ERR_INVAL   `op` or `new_op` is NULL, or `dtype` is not a
 *                          basic or custom type.
 * \retval DART_ERR_NOMEM   Out of memory.
 * \retval DART_ERR_OTHER   MPI could not create the operation.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_op_create(
  dart_operator_t    op,
  void             * userdata,
  bool               commute,
  dart_datatype_t    dtype,
  bool               dtype_is_tmp,
  dart_operation_t * new_op);

/**
 * \brief Destroys an operation made by dart_op_create().
 *
 * Local. Thread safety: MT-safe for distinct operations.
 *
 * \param[in,out] op The operation; set to #DART_OP_UNDEFINED.
 * \retval DART_OK          Destroyed.
 * \retval DART_ERR_INVAL   `op` is NULL, or `*op` is predefined or not a
 *                          live user-defined operation.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_op_destroy(dart_operation_t *op);

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DASH__DART__IF__DART_TYPES_H_ */
