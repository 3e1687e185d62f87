/*
 * Compile- and run-time checks of the public DART headers from C++.
 *
 * Standalone: does not initialise DART and needs no DART library.
 * Build: c++ -std=c++11 -I<dart-if/include> ...
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

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

#define CHECK(expr)                                                   \
  do {                                                                \
    if (!(expr)) {                                                    \
      std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #expr);     \
      return 1;                                                       \
    }                                                                 \
  } while (0)

#define SA(expr) static_assert(expr, #expr)

/* ----------------------------------------------------------------------
 * C language linkage: redeclaring a function with extern "C" is an error
 * if the header gave it C++ linkage. DART_NOTHROW is repeated where the
 * interface has it (clang checks that the specifications agree).
 * ---------------------------------------------------------------------- */

extern "C" {
dart_ret_t dart_type_destroy(dart_datatype_t *dart_type);
dart_ret_t dart_op_destroy(dart_operation_t *op);
void dart_config(dart_config_t ** config_out) DART_NOTHROW;
dart_ret_t dart_init(int *argc, char ***argv) DART_NOTHROW;
dart_ret_t dart_exit() DART_NOTHROW;
bool dart_initialized() DART_NOTHROW;
dart_ret_t dart_group_create(dart_group_t *group) DART_NOTHROW;
dart_ret_t dart_team_myid(dart_team_t teamid,
                          dart_team_unit_t * myid) DART_NOTHROW;
dart_ret_t dart_team_unit_l2g(dart_team_t team, dart_team_unit_t localid,
                              dart_global_unit_t * globalid) DART_NOTHROW;
dart_ret_t dart_gptr_getaddr(const dart_gptr_t gptr,
                             void ** addr) DART_NOTHROW;
dart_ret_t dart_memalloc(size_t nelem, dart_datatype_t dtype,
                         dart_gptr_t * gptr) DART_NOTHROW;
dart_ret_t dart_allocator_destroy(dart_allocator_t *allocator);
dart_ret_t dart_put(dart_gptr_t gptr, const void * src, size_t nelem,
                    dart_datatype_t src_type,
                    dart_datatype_t dst_type) DART_NOTHROW;
dart_ret_t dart_test(dart_handle_t * handleptr, int32_t * is_finished);
dart_ret_t dart_sendrecv(const void * sendbuf, size_t send_nelem,
                         dart_datatype_t send_dtype, int send_tag,
                         dart_global_unit_t dest, void * recvbuf,
                         size_t recv_nelem, dart_datatype_t recv_dtype,
                         int recv_tag, dart_global_unit_t src) DART_NOTHROW;
dart_ret_t dart_lock_acquire(dart_lock_t lock) DART_NOTHROW;
bool dart_lock_initialized(struct dart_lock_struct const *lock) DART_NOTHROW;
dart_ret_t dart_team_locality_init(dart_team_t team) DART_NOTHROW;
dart_ret_t dart_unit_locality(dart_team_t team, dart_team_unit_t unit,
                              dart_unit_locality_t ** loc) DART_NOTHROW;
}

/* ----------------------------------------------------------------------
 * Types and traits
 * ---------------------------------------------------------------------- */

SA((std::is_same<dart_unit_t, std::int32_t>::value));
SA((std::is_same<dart_team_t, std::int16_t>::value));
SA((std::is_same<dart_datatype_t, std::intptr_t>::value));
SA((std::is_same<dart_operation_t, std::uintptr_t>::value));
SA((std::is_same<dart_team_unit_t, dart_local_unit>::value));
SA((std::is_same<dart_global_unit_t, dart_global_unit>::value));
SA((std::is_same<dart_group_t, dart_group_struct *>::value));
SA((std::is_same<dart_handle_t, dart_handle_struct *>::value));
SA((std::is_same<dart_lock_t, dart_lock_struct *>::value));
SA((std::is_same<dart_allocator_t, dart_allocator_struct *>::value));
SA((std::is_same<decltype(DART_GPTR_NULL), dart_gptr_t>::value));
SA((std::is_same<decltype(DART_TEAM_UNIT_ID(0)), dart_team_unit_t>::value));
SA((std::is_same<decltype(DART_GLOBAL_UNIT_ID(0)),
                 dart_global_unit_t>::value));

SA(std::is_trivially_copyable<dart_gptr_t>::value);
SA(std::is_standard_layout<dart_gptr_t>::value);
SA(std::is_trivial<dart_gptr_t>::value);
SA(std::is_trivially_copyable<dart_team_unit_t>::value);
SA(std::is_trivially_copyable<dart_global_unit_t>::value);
SA(std::is_trivially_copyable<dart_unit_locality_t>::value);
SA(std::is_trivially_copyable<dart_hwinfo_t>::value);
SA((std::is_convertible<int, dart_team_unit_t>::value));
SA((std::is_convertible<int, dart_global_unit_t>::value));

SA(sizeof(dart_gptr_t) == 16);
SA(offsetof(dart_gptr_t, segid) == 4);
SA(offsetof(dart_gptr_t, teamid) == 6);
SA(offsetof(dart_gptr_t, addr_or_offs) == 8);

/* Constants usable in constant expressions. */
SA(DART_TEAM_ALL == 0);
SA(DART_TEAM_NULL == -1);
SA(DART_UNDEFINED_TEAM_ID == -1);
SA(DART_UNDEFINED_UNIT_ID == -1);
SA(DART_SEGMENT_LOCAL == 0);
SA(DART_OK == 0 && DART_ERR_INVAL == 2 && DART_ERR_OTHER == 999);
SA(DART_OP_MINMAX == 3 && DART_OP_LAST == 14);
SA(DART_TYPE_LONG_DOUBLE == 11 && DART_TYPE_LAST == 12);
SA(DART_LOCALITY_SCOPE_CORE == 550);
SA(DART_THREAD_MULTIPLE == 10);
SA(DART_EXIT_ASSERT == -6);

/* Function types (unevaluated, the symbols are not referenced). A function
 * pointer only converts to a pointer with the same parameter and return
 * types; the conversion may drop noexcept/noreturn, which some compilers
 * make part of the type. */
#define FTYPE(f, T) SA((std::is_convertible<decltype(&f), T>::value))
FTYPE(dart_gptr_incaddr, dart_ret_t (*)(dart_gptr_t *, std::int64_t));
FTYPE(dart_gptr_setunit, dart_ret_t (*)(dart_gptr_t *, dart_team_unit_t));
FTYPE(dart_create_team_unit, dart_team_unit_t (*)(dart_unit_t));
FTYPE(dart_exit, dart_ret_t (*)());
FTYPE(dart_initialized, bool (*)());
FTYPE(dart_abort, void (*)(int));

#ifdef HEADER_CHECK_HAVE_HDF5
FTYPE(dart__io__hdf5__prep_mpio, dart_ret_t (*)(hid_t, dart_team_t));
#endif

/* ----------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------- */

static dart_unit_t take_global(dart_global_unit_t u)
{
  return u.id;
}

static dart_unit_t take_team(dart_team_unit_t u)
{
  return u.id;
}

static dart_gptr_t make_null_gptr()
{
  return DART_GPTR_NULL;
}

static dart_gptr_t make_gptr(dart_unit_t unit, std::uint64_t offset)
{
  dart_gptr_t g = DART_GPTR_NULL;
  g.unitid = unit;
  g.teamid = DART_TEAM_ALL;
  g.addr_or_offs.offset = offset;
  return g;
}

int main()
{
  /* Default construction yields the undefined id. */
  {
    dart_team_unit_t   u;
    dart_global_unit_t gu;
    CHECK(u.id == DART_UNDEFINED_UNIT_ID);
    CHECK(gu.id == DART_UNDEFINED_UNIT_ID);
    dart_team_unit_t   units[3];
    CHECK(units[2].id == DART_UNDEFINED_UNIT_ID);
  }

  /* Implicit conversion from integers. */
  {
    dart_team_unit_t v = 7;
    CHECK(v.id == 7);
    dart_global_unit_t w = 8;
    CHECK(w.id == 8);
    v = 9;
    CHECK(v.id == 9);
    CHECK(take_global(5) == 5);
    CHECK(take_team(6) == 6);
    dart_team_unit_t braced{ 10 };
    CHECK(braced.id == 10);
  }

  /* constexpr use. */
  {
    constexpr dart_datatype_t t = DART_TYPE_INT;
    static_assert(t == 3, "");
    constexpr dart_team_unit_t cu(5);
    static_assert(cu.id == 5, "");
    constexpr dart_global_unit_t cg;
    static_assert(cg.id == DART_UNDEFINED_UNIT_ID, "");
    constexpr dart_team_t team = DART_TEAM_ALL;
    static_assert(team == 0, "");
    constexpr dart_operation_t op = DART_OP_SUM;
    static_assert(op == 4, "");
    CHECK(t == DART_TYPE_INT && cu.id == 5);
  }

  /* Value-initialised gptr is all zero. */
  {
    dart_gptr_t g{};
    CHECK(g.unitid == 0);
    CHECK(g.flags == 0);
    CHECK(g.segid == 0);
    CHECK(g.teamid == 0);
    CHECK(g.addr_or_offs.offset == 0);
    unsigned char zero[sizeof(dart_gptr_t)] = { 0 };
    CHECK(std::memcmp(&g, zero, sizeof(g)) == 0);
    CHECK(!DART_GPTR_ISNULL(g));
  }

  /* DART_GPTR_NULL and DART_GPTR_ISNULL. */
  {
    dart_gptr_t n = DART_GPTR_NULL;
    CHECK(DART_GPTR_ISNULL(n));
    CHECK(n.unitid == -1);
    CHECK(n.flags == 0);
    CHECK(n.segid == 0);
    CHECK(n.teamid == DART_TEAM_NULL);
    CHECK(n.addr_or_offs.offset == 0);
    CHECK(DART_GPTR_ISNULL(DART_GPTR_NULL));
    CHECK(DART_GPTR_ISNULL(make_null_gptr()));
    CHECK(!DART_GPTR_ISNULL(make_gptr(0, 0)));
    CHECK(DART_GPTR_ISNULL(static_cast<dart_gptr_t>(n)));
  }

  /* Copying with '=' and equality. */
  {
    dart_gptr_t a = make_gptr(3, 128);
    a.segid = 2;
    a.flags = 1;
    dart_gptr_t b;
    b = a;
    CHECK(b.unitid == 3);
    CHECK(b.segid == 2);
    CHECK(b.flags == 1);
    CHECK(b.addr_or_offs.offset == 128);
    CHECK(DART_GPTR_EQUAL(a, b));
    b.flags = 0;
    CHECK(DART_GPTR_EQUAL(a, b));
    b.addr_or_offs.offset += 8;
    CHECK(!DART_GPTR_EQUAL(a, b));
    dart_gptr_t c(a);
    CHECK(DART_GPTR_EQUAL(c, make_gptr(3, 128)) == false);
    c.segid = 0;
    CHECK(DART_GPTR_EQUAL(c, make_gptr(3, 128)));
  }

  /* Brace initialisation in member order. */
  {
    dart_gptr_t g { 4, 0, 1, 2, { 32 } };
    CHECK(g.unitid == 4);
    CHECK(g.segid == 1);
    CHECK(g.teamid == 2);
    CHECK(g.addr_or_offs.offset == 32);
    g.unitid = -5;
    CHECK(g.unitid == -5);
    g.unitid = 8388607;
    CHECK(g.unitid == 8388607);
  }

  /* Inline helpers. */
  {
    dart_gptr_t g = make_gptr(1, 0);
    CHECK(dart_gptr_incaddr(&g, 16) == DART_OK);
    CHECK(dart_gptr_incaddr(&g, -8) == DART_OK);
    CHECK(g.addr_or_offs.offset == 8);
    CHECK(dart_gptr_incaddr(&g, -9) == DART_OK);
    CHECK(g.addr_or_offs.offset == UINT64_MAX);
    CHECK(dart_gptr_setunit(&g, 12) == DART_OK);
    CHECK(g.unitid == 12);
    CHECK(dart_gptr_setunit(&g, DART_TEAM_UNIT_ID(13)) == DART_OK);
    CHECK(g.unitid == 13);
    CHECK(DART_TEAM_UNIT_ID(3).id == 3);
    CHECK(DART_GLOBAL_UNIT_ID(4).id == 4);
    CHECK(DART_UNDEFINED_TEAM_UNIT_ID.id == -1);
    CHECK(DART_UNDEFINED_GLOBAL_UNIT_ID.id == -1);
  }

  /* Null handles and version. */
  CHECK(DART_GROUP_NULL == nullptr);
  CHECK(DART_HANDLE_NULL == nullptr);
  CHECK(DART_LOCK_NULL == nullptr);
  CHECK(std::strcmp(DART_VERSION_STR, "3.2.0") == 0);
  CHECK(std::strlen(DART_BUILD_STR) > 0);

  return 0;
}
