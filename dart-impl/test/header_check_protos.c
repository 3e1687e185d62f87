/*
 * Compile-time checks of every public DART function's prototype from C:
 * the exact function type of each call, checked through its address in
 * unevaluated context, so no symbol is referenced and no DART library is
 * needed. Built into header_check_c with header_check_c.c (layouts,
 * values and the run-time checks).
 */
#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_locality.h> /* not part of the umbrella */

#if defined(__has_include)
#  if __has_include(<hdf5.h>)
#    include <hdf5.h>
#    include <dash/dart/if/dart_io.h>
#    define HEADER_CHECK_HAVE_HDF5 1
#  endif
#endif

#include <stdbool.h>
#include <stddef.h>

#define SA(expr) _Static_assert(expr, #expr)

/* True iff expression e has exactly type T (unevaluated). */
#define HAS_TYPE(e, T) _Generic((e), T: 1, default: 0)

/* ----------------------------------------------------------------------
 * Prototypes (function types, checked without referencing the symbols)
 * ---------------------------------------------------------------------- */

#define PROTO(f, T) SA(HAS_TYPE(&f, T))

/* dart_types.h */
PROTO(dart_create_team_unit, dart_team_unit_t (*)(dart_unit_t));
PROTO(dart_create_global_unit, dart_global_unit_t (*)(dart_unit_t));
PROTO(dart_type_create_strided,
      dart_ret_t (*)(dart_datatype_t, size_t, size_t, dart_datatype_t *));
PROTO(dart_type_create_indexed,
      dart_ret_t (*)(dart_datatype_t, size_t, const size_t *,
                     const size_t *, dart_datatype_t *));
PROTO(dart_type_create_custom, dart_ret_t (*)(size_t, dart_datatype_t *));
PROTO(dart_type_destroy, dart_ret_t (*)(dart_datatype_t *));
PROTO(dart_op_create,
      dart_ret_t (*)(dart_operator_t, void *, bool, dart_datatype_t, bool,
                     dart_operation_t *));
PROTO(dart_op_destroy, dart_ret_t (*)(dart_operation_t *));
SA(HAS_TYPE((dart_operator_t)0,
            void (*)(const void *, void *, size_t, void *)));

/* dart_config.h */
PROTO(dart_config, void (*)(dart_config_t **));

/* dart_initialization.h */
PROTO(dart_init, dart_ret_t (*)(int *, char ***));
PROTO(dart_init_thread,
      dart_ret_t (*)(int *, char ***, dart_thread_support_level_t *));
PROTO(dart_exit, dart_ret_t (*)());
PROTO(dart_initialized, bool (*)());
PROTO(dart_abort, void (*)(int));

/* dart_team_group.h */
PROTO(dart_group_create, dart_ret_t (*)(dart_group_t *));
PROTO(dart_group_destroy, dart_ret_t (*)(dart_group_t *));
PROTO(dart_group_clone, dart_ret_t (*)(dart_group_t, dart_group_t *));
PROTO(dart_group_union,
      dart_ret_t (*)(dart_group_t, dart_group_t, dart_group_t *));
PROTO(dart_group_intersect,
      dart_ret_t (*)(dart_group_t, dart_group_t, dart_group_t *));
PROTO(dart_group_addmember, dart_ret_t (*)(dart_group_t, dart_global_unit_t));
PROTO(dart_group_delmember, dart_ret_t (*)(dart_group_t, dart_global_unit_t));
PROTO(dart_group_ismember,
      dart_ret_t (*)(dart_group_t, dart_global_unit_t, int32_t *));
PROTO(dart_group_size, dart_ret_t (*)(dart_group_t, size_t *));
PROTO(dart_group_getmembers,
      dart_ret_t (*)(dart_group_t, dart_global_unit_t *));
PROTO(dart_group_split,
      dart_ret_t (*)(dart_group_t, size_t, size_t *, dart_group_t *));
PROTO(dart_group_locality_split,
      dart_ret_t (*)(dart_group_t, dart_domain_locality_t *,
                     dart_locality_scope_t, size_t, size_t *,
                     dart_group_t *));
PROTO(dart_team_get_group, dart_ret_t (*)(dart_team_t, dart_group_t *));
PROTO(dart_team_create,
      dart_ret_t (*)(dart_team_t, dart_group_t, dart_team_t *));
PROTO(dart_team_destroy, dart_ret_t (*)(dart_team_t *));
PROTO(dart_team_clone, dart_ret_t (*)(dart_team_t, dart_team_t *));
PROTO(dart_team_myid, dart_ret_t (*)(dart_team_t, dart_team_unit_t *));
PROTO(dart_team_size, dart_ret_t (*)(dart_team_t, size_t *));
PROTO(dart_myid, dart_ret_t (*)(dart_global_unit_t *));
PROTO(dart_size, dart_ret_t (*)(size_t *));
PROTO(dart_team_unit_l2g,
      dart_ret_t (*)(dart_team_t, dart_team_unit_t, dart_global_unit_t *));
PROTO(dart_team_unit_g2l,
      dart_ret_t (*)(dart_team_t, dart_global_unit_t, dart_team_unit_t *));

/* dart_globmem.h */
PROTO(dart_gptr_getaddr, dart_ret_t (*)(dart_gptr_t, void **));
PROTO(dart_gptr_setaddr, dart_ret_t (*)(dart_gptr_t *, void *));
PROTO(dart_gptr_incaddr, dart_ret_t (*)(dart_gptr_t *, int64_t));
PROTO(dart_gptr_setunit, dart_ret_t (*)(dart_gptr_t *, dart_team_unit_t));
PROTO(dart_gptr_getflags, dart_ret_t (*)(dart_gptr_t, uint16_t *));
PROTO(dart_gptr_setflags, dart_ret_t (*)(dart_gptr_t *, uint16_t));
PROTO(dart_allocator_new,
      dart_ret_t (*)(size_t, dart_team_t, dart_allocator_t *));
PROTO(dart_allocator_alloc,
      dart_ret_t (*)(size_t, dart_datatype_t, dart_gptr_t *,
                     dart_allocator_t));
PROTO(dart_allocator_free, dart_ret_t (*)(dart_gptr_t *, dart_allocator_t));
PROTO(dart_allocator_destroy, dart_ret_t (*)(dart_allocator_t *));
PROTO(dart_memalloc, dart_ret_t (*)(size_t, dart_datatype_t, dart_gptr_t *));
PROTO(dart_memfree, dart_ret_t (*)(dart_gptr_t));
PROTO(dart_team_memalloc_aligned,
      dart_ret_t (*)(dart_team_t, size_t, dart_datatype_t, dart_gptr_t *));
PROTO(dart_team_memfree, dart_ret_t (*)(dart_gptr_t));
PROTO(dart_team_memregister_aligned,
      dart_ret_t (*)(dart_team_t, size_t, dart_datatype_t, void *,
                     dart_gptr_t *));
PROTO(dart_team_memregister,
      dart_ret_t (*)(dart_team_t, size_t, dart_datatype_t, void *,
                     dart_gptr_t *));
PROTO(dart_team_memderegister, dart_ret_t (*)(dart_gptr_t));

/* dart_communication.h */
PROTO(dart_barrier, dart_ret_t (*)(dart_team_t));
PROTO(dart_bcast,
      dart_ret_t (*)(void *, size_t, dart_datatype_t, dart_team_unit_t,
                     dart_team_t));
PROTO(dart_scatter,
      dart_ret_t (*)(const void *, void *, size_t, dart_datatype_t,
                     dart_team_unit_t, dart_team_t));
PROTO(dart_gather,
      dart_ret_t (*)(const void *, void *, size_t, dart_datatype_t,
                     dart_team_unit_t, dart_team_t));
PROTO(dart_allgather,
      dart_ret_t (*)(const void *, void *, size_t, dart_datatype_t,
                     dart_team_t));
PROTO(dart_allgatherv,
      dart_ret_t (*)(const void *, size_t, dart_datatype_t, void *,
                     const size_t *, const size_t *, dart_team_t));
PROTO(dart_allreduce,
      dart_ret_t (*)(const void *, void *, size_t, dart_datatype_t,
                     dart_operation_t, dart_team_t));
PROTO(dart_alltoall,
      dart_ret_t (*)(const void *, void *, size_t, dart_datatype_t,
                     dart_team_t));
PROTO(dart_reduce,
      dart_ret_t (*)(const void *, void *, size_t, dart_datatype_t,
                     dart_operation_t, dart_team_unit_t, dart_team_t));
PROTO(dart_accumulate,
      dart_ret_t (*)(dart_gptr_t, const void *, size_t, dart_datatype_t,
                     dart_operation_t));
PROTO(dart_accumulate_blocking_local,
      dart_ret_t (*)(dart_gptr_t, const void *, size_t, dart_datatype_t,
                     dart_operation_t));
PROTO(dart_fetch_and_op,
      dart_ret_t (*)(dart_gptr_t, const void *, void *, dart_datatype_t,
                     dart_operation_t));
PROTO(dart_compare_and_swap,
      dart_ret_t (*)(dart_gptr_t, const void *, const void *, void *,
                     dart_datatype_t));
PROTO(dart_get,
      dart_ret_t (*)(void *, dart_gptr_t, size_t, dart_datatype_t,
                     dart_datatype_t));
PROTO(dart_put,
      dart_ret_t (*)(dart_gptr_t, const void *, size_t, dart_datatype_t,
                     dart_datatype_t));
PROTO(dart_flush, dart_ret_t (*)(dart_gptr_t));
PROTO(dart_flush_all, dart_ret_t (*)(dart_gptr_t));
PROTO(dart_flush_local, dart_ret_t (*)(dart_gptr_t));
PROTO(dart_flush_local_all, dart_ret_t (*)(dart_gptr_t));
PROTO(dart_get_handle,
      dart_ret_t (*)(void *, dart_gptr_t, size_t, dart_datatype_t,
                     dart_datatype_t, dart_handle_t *));
PROTO(dart_put_handle,
      dart_ret_t (*)(dart_gptr_t, const void *, size_t, dart_datatype_t,
                     dart_datatype_t, dart_handle_t *));
PROTO(dart_wait, dart_ret_t (*)(dart_handle_t *));
PROTO(dart_waitall, dart_ret_t (*)(dart_handle_t *, size_t));
PROTO(dart_wait_local, dart_ret_t (*)(dart_handle_t *));
PROTO(dart_waitall_local, dart_ret_t (*)(dart_handle_t *, size_t));
PROTO(dart_test_local, dart_ret_t (*)(dart_handle_t *, int32_t *));
PROTO(dart_test, dart_ret_t (*)(dart_handle_t *, int32_t *));
PROTO(dart_testall_local,
      dart_ret_t (*)(dart_handle_t *, size_t, int32_t *));
PROTO(dart_testall, dart_ret_t (*)(dart_handle_t *, size_t, int32_t *));
PROTO(dart_handle_free, dart_ret_t (*)(dart_handle_t *));
PROTO(dart_get_blocking,
      dart_ret_t (*)(void *, dart_gptr_t, size_t, dart_datatype_t,
                     dart_datatype_t));
PROTO(dart_put_blocking,
      dart_ret_t (*)(dart_gptr_t, const void *, size_t, dart_datatype_t,
                     dart_datatype_t));
PROTO(dart_send,
      dart_ret_t (*)(const void *, size_t, dart_datatype_t, int,
                     dart_global_unit_t));
PROTO(dart_recv,
      dart_ret_t (*)(void *, size_t, dart_datatype_t, int,
                     dart_global_unit_t));
PROTO(dart_sendrecv,
      dart_ret_t (*)(const void *, size_t, dart_datatype_t, int,
                     dart_global_unit_t, void *, size_t, dart_datatype_t,
                     int, dart_global_unit_t));

/* dart_synchronization.h */
PROTO(dart_team_lock_init, dart_ret_t (*)(dart_team_t, dart_lock_t *));
PROTO(dart_team_lock_destroy, dart_ret_t (*)(dart_lock_t *));
PROTO(dart_lock_acquire, dart_ret_t (*)(dart_lock_t));
PROTO(dart_lock_try_acquire, dart_ret_t (*)(dart_lock_t, int32_t *));
PROTO(dart_lock_release, dart_ret_t (*)(dart_lock_t));
PROTO(dart_lock_initialized, bool (*)(const struct dart_lock_struct *));

/* dart_locality.h */
PROTO(dart_team_locality_init, dart_ret_t (*)(dart_team_t));
PROTO(dart_team_locality_finalize, dart_ret_t (*)(dart_team_t));
PROTO(dart_domain_team_locality,
      dart_ret_t (*)(dart_team_t, const char *, dart_domain_locality_t **));
PROTO(dart_domain_create, dart_ret_t (*)(dart_domain_locality_t **));
PROTO(dart_domain_clone,
      dart_ret_t (*)(const dart_domain_locality_t *,
                     dart_domain_locality_t **));
PROTO(dart_domain_destroy, dart_ret_t (*)(dart_domain_locality_t *));
PROTO(dart_domain_assign,
      dart_ret_t (*)(dart_domain_locality_t *,
                     const dart_domain_locality_t *));
PROTO(dart_domain_find,
      dart_ret_t (*)(const dart_domain_locality_t *, const char *,
                     dart_domain_locality_t **));
PROTO(dart_domain_select,
      dart_ret_t (*)(dart_domain_locality_t *, int, const char **));
PROTO(dart_domain_exclude,
      dart_ret_t (*)(dart_domain_locality_t *, int, const char **));
PROTO(dart_domain_add_subdomain,
      dart_ret_t (*)(dart_domain_locality_t *, dart_domain_locality_t *,
                     int));
PROTO(dart_domain_move_subdomain,
      dart_ret_t (*)(dart_domain_locality_t *, dart_domain_locality_t *,
                     int));
PROTO(dart_domain_split_scope,
      dart_ret_t (*)(const dart_domain_locality_t *, dart_locality_scope_t,
                     int, dart_domain_locality_t *));
PROTO(dart_domain_scope_tags,
      dart_ret_t (*)(const dart_domain_locality_t *, dart_locality_scope_t,
                     int *, char ***));
PROTO(dart_domain_scope_domains,
      dart_ret_t (*)(const dart_domain_locality_t *, dart_locality_scope_t,
                     int *, dart_domain_locality_t ***));
PROTO(dart_domain_group,
      dart_ret_t (*)(dart_domain_locality_t *, int, const char **, char *));
PROTO(dart_unit_locality,
      dart_ret_t (*)(dart_team_t, dart_team_unit_t,
                     dart_unit_locality_t **));

#ifdef HEADER_CHECK_HAVE_HDF5
PROTO(dart__io__hdf5__prep_mpio, dart_ret_t (*)(hid_t, dart_team_t));
#endif
