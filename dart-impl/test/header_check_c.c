/*
 * Compile- and run-time checks of the public DART headers from C.
 *
 * Standalone: does not initialise DART and needs no DART library. The
 * prototypes of every call are checked in header_check_protos.c.
 * Build: cc -std=c11 -D_POSIX_C_SOURCE=200809L -I<dart-if/include>
 *        header_check_c.c header_check_protos.c
 * Prints "FAIL <file>:<line>: <expr>" and returns 1 on the first failure.
 */

/* Each header on its own first (they must be self-contained) ... */
#include <dash/dart/if/dart_util.h>
#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_config.h>
#include <dash/dart/if/dart_initialization.h>
#include <dash/dart/if/dart_team_group.h>
#include <dash/dart/if/dart_globmem.h>
#include <dash/dart/if/dart_communication.h>
#include <dash/dart/if/dart_synchronization.h>
#include <dash/dart/if/dart_locality.h>
/* ... then the umbrella header. */
#include <dash/dart/if/dart.h>

/* dart_io.h needs hid_t from HDF5; only checked where HDF5 is present. */
#if defined(__has_include)
#  if __has_include(<hdf5.h>)
#    include <hdf5.h>
#    include <dash/dart/if/dart_io.h>
#    define HEADER_CHECK_HAVE_HDF5 1
#  endif
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <limits.h>

#define CHECK(expr)                                                   \
  do {                                                                \
    if (!(expr)) {                                                    \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #expr);          \
      return 1;                                                       \
    }                                                                 \
  } while (0)

#define SA(expr) _Static_assert(expr, #expr)

/* True iff expression e has exactly type T (unevaluated). */
#define HAS_TYPE(e, T) _Generic((e), T: 1, default: 0)

/* ----------------------------------------------------------------------
 * Header guards and markers
 * ---------------------------------------------------------------------- */

#if !defined(DASH__DART__IF__DART_H_)                 || \
    !defined(DASH__DART__IF__DART_UTIL_H_)            || \
    !defined(DASH__DART__IF__DART_TYPES_H_)           || \
    !defined(DASH__DART__IF__DART_CONFIG_H_)          || \
    !defined(DASH__DART__IF__DART_INITIALIZATION_H_)  || \
    !defined(DASH__DART__IF__DART_TEAM_GROUP_H_)      || \
    !defined(DASH__DART__IF__DART_GLOBMEM_H_)         || \
    !defined(DASH__DART__IF__DART_COMMUNICATION_H_)   || \
    !defined(DASH__DART__IF__DART_SYNCHRONIZATION_H_) || \
    !defined(DASH__DART__IF__DART_LOCALITY_H_)
#  error "missing include guard macro"
#endif

#if !defined(DART_INTERFACE_ON) || !defined(DART_INTERFACE_OFF) || \
    !defined(DART_NOTHROW) || !defined(DART_MAYBE_UNUSED) ||       \
    !defined(DART_INLINE) || !defined(DART_BUILD_STR)
#  error "missing utility macro"
#endif

/* ----------------------------------------------------------------------
 * Global pointer layout
 * ---------------------------------------------------------------------- */

SA(sizeof(dart_gptr_t) == 16);
SA(offsetof(dart_gptr_t, segid) == 4);
SA(offsetof(dart_gptr_t, teamid) == 6);
SA(offsetof(dart_gptr_t, addr_or_offs) == 8);
SA(sizeof(((dart_gptr_t *)0)->addr_or_offs) == 8);
SA(HAS_TYPE(((dart_gptr_t *)0)->segid, int16_t));
SA(HAS_TYPE(((dart_gptr_t *)0)->teamid, int16_t));
SA(HAS_TYPE(((dart_gptr_t *)0)->addr_or_offs.offset, uint64_t));
SA(HAS_TYPE(((dart_gptr_t *)0)->addr_or_offs.addr, void *));
SA(DART_SEGMENT_LOCAL == 0);
SA(HAS_TYPE(DART_SEGMENT_LOCAL, int16_t));

/* ----------------------------------------------------------------------
 * Basic typedefs
 * ---------------------------------------------------------------------- */

SA(HAS_TYPE((dart_unit_t)0, int32_t));
SA(HAS_TYPE((dart_team_t)0, int16_t));
SA(HAS_TYPE((dart_datatype_t)0, intptr_t));
SA(HAS_TYPE((dart_operation_t)0, uintptr_t));
SA(HAS_TYPE(DART_TYPE_INT, dart_datatype_t));
SA(HAS_TYPE(DART_TEAM_ALL, dart_team_t));
SA(HAS_TYPE(DART_TEAM_NULL, dart_team_t));
SA(HAS_TYPE(DART_UNDEFINED_TEAM_ID, dart_team_t));
SA(HAS_TYPE(DART_UNDEFINED_UNIT_ID, dart_unit_t));
SA(HAS_TYPE(DART_GROUP_NULL, dart_group_t));
SA(HAS_TYPE(DART_HANDLE_NULL, dart_handle_t));
SA(HAS_TYPE(DART_LOCK_NULL, dart_lock_t));
SA(HAS_TYPE((dart_allocator_t)0, struct dart_allocator_struct *));
SA(HAS_TYPE(DART_GPTR_NULL, dart_gptr_t));
SA(HAS_TYPE(DART_TEAM_UNIT_ID(0), dart_team_unit_t));
SA(HAS_TYPE(DART_GLOBAL_UNIT_ID(0), dart_global_unit_t));
SA(HAS_TYPE(DART_UNDEFINED_TEAM_UNIT_ID, struct dart_local_unit));
SA(HAS_TYPE(DART_UNDEFINED_GLOBAL_UNIT_ID, struct dart_global_unit));
SA(sizeof(dart_team_unit_t) == sizeof(dart_unit_t));
SA(sizeof(dart_global_unit_t) == sizeof(dart_unit_t));
SA(HAS_TYPE(((dart_config_t *)0)->log_enabled, int));
SA(sizeof(dart_config_t) == sizeof(int));

/* ----------------------------------------------------------------------
 * Numeric values
 * ---------------------------------------------------------------------- */

SA(DART_OK == 0);
SA(DART_PENDING == 1);
SA(DART_ERR_INVAL == 2);
SA(DART_ERR_NOTFOUND == 3);
SA(DART_ERR_NOTINIT == 4);
SA(DART_ERR_NOMEM == 5);
SA(DART_ERR_OTHER == 999);

SA(DART_EXIT_SUCCESS == EXIT_SUCCESS && DART_EXIT_SUCCESS == 0);
SA(DART_EXIT_ABORT == EXIT_FAILURE && DART_EXIT_ABORT == 1);
SA(DART_EXIT_ASSERT == -6);

SA(DART_TYPE_UNDEFINED == 0);
SA(DART_TYPE_BYTE == 1);
SA(DART_TYPE_SHORT == 2);
SA(DART_TYPE_INT == 3);
SA(DART_TYPE_UINT == 4);
SA(DART_TYPE_LONG == 5);
SA(DART_TYPE_ULONG == 6);
SA(DART_TYPE_LONGLONG == 7);
SA(DART_TYPE_ULONGLONG == 8);
SA(DART_TYPE_FLOAT == 9);
SA(DART_TYPE_DOUBLE == 10);
SA(DART_TYPE_LONG_DOUBLE == 11);
SA(DART_TYPE_LAST == 12);
#if defined(__LP64__) || defined(_LP64)
SA(DART_TYPE_SIZET == DART_TYPE_ULONGLONG);
#endif
#if SIZE_MAX == UINT32_MAX
SA(DART_TYPE_SIZET == DART_TYPE_ULONG);
#elif SIZE_MAX == UINT64_MAX
SA(DART_TYPE_SIZET == DART_TYPE_ULONGLONG);
#endif

SA(DART_OP_UNDEFINED == 0);
SA(DART_OP_MIN == 1);
SA(DART_OP_MAX == 2);
SA(DART_OP_MINMAX == 3);
SA(DART_OP_SUM == 4);
SA(DART_OP_PROD == 5);
SA(DART_OP_BAND == 6);
SA(DART_OP_LAND == 7);
SA(DART_OP_BOR == 8);
SA(DART_OP_LOR == 9);
SA(DART_OP_BXOR == 10);
SA(DART_OP_LXOR == 11);
SA(DART_OP_REPLACE == 12);
SA(DART_OP_NO_OP == 13);
SA(DART_OP_LAST == 14);
SA(DART_OP_MINMAX_MIN == 0);
SA(DART_OP_MINMAX_MAX == 1);

SA(DART_THREAD_SINGLE == 0);
SA(DART_THREAD_MULTIPLE == 10);

SA(DART_LOCALITY_SCOPE_UNDEFINED == -1);
SA(DART_LOCALITY_SCOPE_GLOBAL == 0);
SA(DART_LOCALITY_SCOPE_GROUP == 1);
SA(DART_LOCALITY_SCOPE_NETWORK == 50);
SA(DART_LOCALITY_SCOPE_NODE == 100);
SA(DART_LOCALITY_SCOPE_MODULE == 200);
SA(DART_LOCALITY_SCOPE_NUMA == 300);
SA(DART_LOCALITY_SCOPE_UNIT == 400);
SA(DART_LOCALITY_SCOPE_PACKAGE == 500);
SA(DART_LOCALITY_SCOPE_UNCORE == 510);
SA(DART_LOCALITY_SCOPE_CACHE == 530);
SA(DART_LOCALITY_SCOPE_CORE == 550);
SA(DART_LOCALITY_SCOPE_CPU == 600);

SA(DART_TEAM_ALL == 0);
SA(DART_TEAM_NULL == -1);
SA(DART_UNDEFINED_TEAM_ID == -1);
SA(DART_UNDEFINED_UNIT_ID == -1);

/* ----------------------------------------------------------------------
 * Locality size macros and struct layouts
 * ---------------------------------------------------------------------- */

#if defined(HOST_NAME_MAX)
SA(DART_LOCALITY_HOST_MAX_SIZE == HOST_NAME_MAX);
#elif defined(_POSIX_HOST_NAME_MAX)
SA(DART_LOCALITY_HOST_MAX_SIZE == _POSIX_HOST_NAME_MAX);
#else
SA(DART_LOCALITY_HOST_MAX_SIZE == 256);
#endif
SA(DART_LOCALITY_DOMAIN_TAG_MAX_SIZE == 32);
SA(DART_LOCALITY_MAX_DOMAIN_SCOPES == 12);
SA(DART_LOCALITY_UNIT_MAX_CPUS == 64);
SA(DART_LOCALITY_MAX_NUMA_ID == 16);
SA(DART_LOCALITY_MAX_CACHE_LEVELS == 5);
SA(HAS_TYPE(DART_LOCALITY_DOMAIN_TAG_MAX_SIZE, int));

/* Strictly increasing member offsets prove the field order. */
#define ORDER(T, a, b) SA(offsetof(T, a) < offsetof(T, b))

SA(offsetof(dart_locality_scope_pos_t, scope) == 0);
ORDER(dart_locality_scope_pos_t, scope, index);

SA(offsetof(dart_hwinfo_t, host) == 0);
SA(sizeof(((dart_hwinfo_t *)0)->host) == DART_LOCALITY_HOST_MAX_SIZE);
ORDER(dart_hwinfo_t, host, num_cores);
ORDER(dart_hwinfo_t, num_cores, num_numa);
ORDER(dart_hwinfo_t, num_numa, numa_id);
ORDER(dart_hwinfo_t, numa_id, num_sockets);
ORDER(dart_hwinfo_t, num_sockets, core_id);
ORDER(dart_hwinfo_t, core_id, cpu_id);
ORDER(dart_hwinfo_t, cpu_id, min_cpu_mhz);
ORDER(dart_hwinfo_t, min_cpu_mhz, max_cpu_mhz);
ORDER(dart_hwinfo_t, max_cpu_mhz, cache_sizes);
ORDER(dart_hwinfo_t, cache_sizes, cache_line_sizes);
ORDER(dart_hwinfo_t, cache_line_sizes, cache_ids);
ORDER(dart_hwinfo_t, cache_ids, min_threads);
ORDER(dart_hwinfo_t, min_threads, max_threads);
ORDER(dart_hwinfo_t, max_threads, max_shmem_mbps);
ORDER(dart_hwinfo_t, max_shmem_mbps, system_memory_bytes);
ORDER(dart_hwinfo_t, system_memory_bytes, numa_memory_bytes);
ORDER(dart_hwinfo_t, numa_memory_bytes, scopes);
ORDER(dart_hwinfo_t, scopes, num_scopes);
SA(sizeof(((dart_hwinfo_t *)0)->cache_ids) ==
   sizeof(int) * DART_LOCALITY_MAX_CACHE_LEVELS);
SA(sizeof(((dart_hwinfo_t *)0)->scopes) ==
   sizeof(dart_locality_scope_pos_t) * DART_LOCALITY_MAX_DOMAIN_SCOPES);

ORDER(dart_module_location_t, host, module);
ORDER(dart_module_location_t, module, pos);
SA(sizeof(((dart_module_location_t *)0)->module) ==
   DART_LOCALITY_HOST_MAX_SIZE);

ORDER(dart_domain_locality_t, host, domain_tag);
ORDER(dart_domain_locality_t, domain_tag, aliases);
ORDER(dart_domain_locality_t, aliases, num_aliases);
ORDER(dart_domain_locality_t, num_aliases, scope);
ORDER(dart_domain_locality_t, scope, level);
ORDER(dart_domain_locality_t, level, global_index);
ORDER(dart_domain_locality_t, global_index, relative_index);
ORDER(dart_domain_locality_t, relative_index, parent);
ORDER(dart_domain_locality_t, parent, num_domains);
ORDER(dart_domain_locality_t, num_domains, children);
ORDER(dart_domain_locality_t, children, is_symmetric);
ORDER(dart_domain_locality_t, is_symmetric, team);
ORDER(dart_domain_locality_t, team, num_units);
ORDER(dart_domain_locality_t, num_units, unit_ids);
ORDER(dart_domain_locality_t, unit_ids, num_nodes);
ORDER(dart_domain_locality_t, num_nodes, node_id);
ORDER(dart_domain_locality_t, node_id, num_cores);
ORDER(dart_domain_locality_t, num_cores, shared_mem_bytes);
SA(HAS_TYPE(((dart_domain_locality_t *)0)->aliases,
            struct dart_domain_locality_s **));
SA(HAS_TYPE(((dart_domain_locality_t *)0)->parent,
            struct dart_domain_locality_s *));
SA(HAS_TYPE(((dart_domain_locality_t *)0)->team, dart_team_t));
SA(HAS_TYPE(((dart_domain_locality_t *)0)->unit_ids, dart_global_unit_t *));
SA(HAS_TYPE(((dart_domain_locality_t *)0)->scope, dart_locality_scope_t));

ORDER(dart_unit_locality_t, unit, team);
ORDER(dart_unit_locality_t, team, hwinfo);
ORDER(dart_unit_locality_t, hwinfo, domain_tag);
SA(HAS_TYPE(((dart_unit_locality_t *)0)->unit, dart_team_unit_t));

/* ----------------------------------------------------------------------
 * Run-time checks
 * ---------------------------------------------------------------------- */

static dart_gptr_t make_null_gptr(void)
{
  return DART_GPTR_NULL;
}

int main(void)
{
  /* DART_GPTR_NULL */
  dart_gptr_t g = DART_GPTR_NULL;
  CHECK(g.unitid == -1);
  CHECK(g.unitid < 0);
  CHECK(g.flags == 0);
  CHECK(g.segid == 0);
  CHECK(g.teamid == -1);
  CHECK(g.teamid == DART_TEAM_NULL);
  CHECK(g.addr_or_offs.offset == 0);
  CHECK(DART_GPTR_ISNULL(g));
  CHECK(DART_GPTR_ISNULL(DART_GPTR_NULL));
  CHECK(DART_GPTR_ISNULL(make_null_gptr()));
  CHECK(DART_GPTR_EQUAL(g, DART_GPTR_NULL));

  /* A pointer that differs in any tested field is not null. */
  {
    dart_gptr_t h = DART_GPTR_NULL;
    h.unitid = 0;
    CHECK(!DART_GPTR_ISNULL(h));
    h = DART_GPTR_NULL;
    h.segid = 1;
    CHECK(!DART_GPTR_ISNULL(h));
    h = DART_GPTR_NULL;
    h.teamid = DART_TEAM_ALL;
    CHECK(!DART_GPTR_ISNULL(h));
    h = DART_GPTR_NULL;
    h.addr_or_offs.offset = 8;
    CHECK(!DART_GPTR_ISNULL(h));
    h = DART_GPTR_NULL;
    h.flags = 5;
    CHECK(DART_GPTR_ISNULL(h));
  }

  /* unitid is a signed 24-bit field independent of flags. */
  {
    dart_gptr_t h = DART_GPTR_NULL;
    h.flags  = 0xFF;
    h.unitid = -5;
    CHECK(h.unitid == -5);
    CHECK(h.flags == 0xFF);
    h.unitid = 8388607;
    CHECK(h.unitid == 8388607);
    h.unitid = -8388608;
    CHECK(h.unitid == -8388608);
    h.unitid = 0;
    CHECK(h.unitid == 0);
    CHECK(h.flags == 0xFF);
    h.flags = 0;
    CHECK(h.unitid == 0);
  }

  /* DART_GPTR_EQUAL ignores flags only. */
  {
    dart_gptr_t a;
    dart_gptr_t b;
    a.unitid = 3;
    a.flags  = 0;
    a.segid  = 2;
    a.teamid = 1;
    a.addr_or_offs.offset = 64;
    b = a;
    CHECK(DART_GPTR_EQUAL(a, b));
    b.flags = 7;
    CHECK(DART_GPTR_EQUAL(a, b));
    CHECK(DART_GPTR_EQUAL(b, a));
    b = a;
    b.unitid = 4;
    CHECK(!DART_GPTR_EQUAL(a, b));
    b = a;
    b.segid = -2;
    CHECK(!DART_GPTR_EQUAL(a, b));
    b = a;
    b.teamid = 0;
    CHECK(!DART_GPTR_EQUAL(a, b));
    b = a;
    b.addr_or_offs.offset = 65;
    CHECK(!DART_GPTR_EQUAL(a, b));
  }

  /* dart_gptr_incaddr: unsigned wrap-around, unit unchanged. */
  {
    dart_gptr_t h = DART_GPTR_NULL;
    h.unitid = 2;
    h.teamid = DART_TEAM_ALL;
    h.addr_or_offs.offset = 0;
    CHECK(dart_gptr_incaddr(&h, 16) == DART_OK);
    CHECK(h.addr_or_offs.offset == 16);
    CHECK(dart_gptr_incaddr(&h, -8) == DART_OK);
    CHECK(h.addr_or_offs.offset == 8);
    CHECK(dart_gptr_incaddr(&h, -9) == DART_OK);
    CHECK(h.addr_or_offs.offset == UINT64_MAX);
    CHECK(dart_gptr_incaddr(&h, 1) == DART_OK);
    CHECK(h.addr_or_offs.offset == 0);
    CHECK(h.unitid == 2);
    CHECK(h.segid == 0);
    CHECK(h.teamid == DART_TEAM_ALL);
  }

  /* dart_gptr_setunit */
  {
    dart_gptr_t h = DART_GPTR_NULL;
    h.addr_or_offs.offset = 24;
    h.segid = 3;
    CHECK(dart_gptr_setunit(&h, DART_TEAM_UNIT_ID(42)) == DART_OK);
    CHECK(h.unitid == 42);
    CHECK(h.segid == 3);
    CHECK(h.teamid == DART_TEAM_NULL);
    CHECK(h.addr_or_offs.offset == 24);
    CHECK(dart_gptr_setunit(&h, DART_UNDEFINED_TEAM_UNIT_ID) == DART_OK);
    CHECK(h.unitid == DART_UNDEFINED_UNIT_ID);
  }

  /* Unit id helpers */
  CHECK(DART_TEAM_UNIT_ID(3).id == 3);
  CHECK(DART_GLOBAL_UNIT_ID(4).id == 4);
  CHECK(DART_UNDEFINED_TEAM_UNIT_ID.id == -1);
  CHECK(DART_UNDEFINED_GLOBAL_UNIT_ID.id == -1);
  CHECK(dart_create_team_unit(11).id == 11);
  CHECK(dart_create_global_unit(12).id == 12);

  /* Null handles */
  CHECK(DART_GROUP_NULL == NULL);
  CHECK(DART_HANDLE_NULL == NULL);
  CHECK(DART_LOCK_NULL == NULL);

  /* Version */
  CHECK(strcmp(DART_VERSION_STR, "3.2.0") == 0);
  CHECK(strlen(DART_BUILD_STR) > 0);
  CHECK(DART_SEGMENT_LOCAL == 0);
  CHECK(DART_TYPE_SIZET == DART_TYPE_ULONGLONG || sizeof(size_t) != 8);

  return 0;
}
