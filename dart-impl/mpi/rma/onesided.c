/* Put and get in all their forms, flushes and handles. Node peers are
 * reached with memcpy (or a pack loop for derived types) for blocking and
 * non-blocking calls alike; everything else goes through MPI RMA on the
 * segment's window, which stays in a lock_all epoch. */
#include "base/basic_types.h"
#include "base/handle_table.h"
#include "mpi/core/large_count.h"
#include "mpi/core/progress.h"
#include "mpi/core/quirks.h"
#include "mpi/core/runtime.h"
#include "mpi/core/serialize.h"
#include "mpi/model/datatype.h"
#include "mpi/model/target.h"
#include "mpi/rma/acc_batch.h"
#include "mpi/rma/am_atomics.h"
#include "mpi/rma/onesided.h"

#include <dash/dart/if/dart_communication.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A transfer still in flight in MPI. Handles given to the user are ids
 * of this table cast to dart_handle_t, so a stale or made-up handle is
 * rejected rather than dereferenced. */
struct pending_transfer {
  MPI_Request request; /* MPI_REQUEST_NULL once locally complete */
  const struct segment *segment; /* NULL: completed when it was freed */
  MPI_Win     win;
  int         unit;
  MPI_Aint    disp;   /* of the first byte at the target */
  bool        is_put;
  bool        by_request; /* an MPI_Rput/MPI_Rget, else a flush completes */
};

static struct handle_table pending = HANDLE_TABLE_INITIALIZER;

enum completion { START_ONLY, COMPLETE, WITH_HANDLE };

static int complete(struct pending_transfer *p, bool remote);

static inline bool is_contiguous_kind(const struct datatype *t)
{
  return t->kind == TYPE_BASIC || t->kind == TYPE_CUSTOM;
}

/* A full fence: the stores before it are globally visible before any
 * load after it (a flag another unit sets in reply, say). It also drains
 * the store buffer, which spares the next loads 4K-aliasing stalls
 * against it. */
static inline __attribute__((always_inline)) void direct_fence(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
  /* The compilers' fence is a locked OR of zero on the stack top, which
   * in a function without a frame is the return address: `ret` then
   * waits for the locked write (1.5-2 ns per 8-byte put here). The same
   * locked OR of zero 8 bytes below the stack pointer orders the same
   * and changes no byte, whatever the compiler keeps there. */
  __asm__ __volatile__("lock orq $0, -8(%%rsp)" ::: "memory", "cc");
#else
  atomic_thread_fence(memory_order_seq_cst);
#endif
}

/* A put through shared memory that must be complete when the call
 * returns (blocking, or with a handle, which stays NULL) fences after its
 * copy; any other leaves its stores for the next remote completion to
 * order, and says so before the copy (after it, the fast path needs one
 * more register, which costs it a stack frame). */
static inline __attribute__((always_inline)) void
direct_put_starting(bool complete)
{
  if (!complete) {
    target_stores_unfenced();
  }
}

static inline __attribute__((always_inline)) void
direct_put_completed(bool complete)
{
  if (complete) {
    direct_fence();
  }
}

/* A remote completion of this thread's direct stores (dart_flush and
 * dart_flush_all on a mapped target). On x86 only stores a put left
 * unfenced need the fence: a locked instruction (every CPU atomic) has
 * ordered all stores before it, so an accumulate and its flush cost one
 * locked instruction, not two (bench-latency, 8-byte BXOR + dart_flush:
 * 12.7 ns -> 7.7 ns). The flag goes down after the fence: the fence would
 * otherwise wait for that store too (0.6 ns per put + flush). */
static inline __attribute__((always_inline)) void direct_stores_order(void)
{
#if defined(__x86_64__)
  if (!target_cache.stores_unfenced) {
    return;
  }
#endif
  direct_fence();
  target_cache.stores_unfenced = false;
}

/* Whether this thread's cache maps an access of `nelem` elements of one
 * basic type on both sides (the portion it accessed last); then sets
 * `direct` and `bytes`. Tried before anything else, even before checking
 * that DART is initialized: dart_init and dart_exit leave every thread's
 * cache empty. A bool rather than a NULL test on the address lets the
 * compiler keep the arguments for the slow path and the address in the
 * same registers, so the fast path needs no stack frame. */
static inline __attribute__((always_inline)) bool
cached_direct(const void *local, dart_gptr_t gptr, size_t nelem,
              dart_datatype_t src_type, dart_datatype_t dst_type,
              char **direct, size_t *bytes)
{
  /* nelem is at most the portion's size in bytes (an empty cache has
   * size 0), so the byte count below cannot overflow. */
  if (src_type != dst_type || !datatype_is_basic_id(src_type) ||
      local == NULL || nelem > target_cache.portion.size) {
    return false;
  }
  *bytes = nelem * basic_type_size(src_type);
  return target_cached(gptr, *bytes, direct);
}

/* Copies between local memory and a mapped target without a call, up to
 * INLINE_COPY_MAX bytes: 2 to 32 bytes as two overlapping moves of the
 * largest power of two that fits, above that 32-byte blocks and an
 * overlapping last block; larger copies are the C library's, out of line
 * (direct_get_large, direct_put_large). The call into the library and its
 * size dispatch cost 1-2 ns, as much as the copy itself at these sizes.
 * `bytes` is at least 2 (direct_move below).
 *
 * The two ranges may overlap: a unit may put from its own buffer into its
 * own portion, and a basic-type transfer then copies as memmove does
 * (dart_communication.h, "Overlapping buffers"). Each mover loads
 * everything before it stores up to the size its variant names
 * (OVERLAP_SAFE_*: every inline size for the AVX variants, 32 bytes for
 * the baseline's loop); above, overlapping ranges go out of line to
 * memmove. The AVX variants thus test nothing more; the baseline (x86-64
 * without AVX2) pays a register save per call for its test. */
#define INLINE_COPY_MAX 256

/* The put and get entries come in three variants, picked once when the
 * library is loaded (an ifunc, which the PLT call resolves anyway; see
 * DART_COPY_ENTRY below):
 * - CPUs with AVX-512 (BW, VL) and BMI2 copy up to 64 bytes with masked
 *   32-byte moves, the same instructions for every size up to 32 bytes
 *   (move_masked);
 * - CPUs with AVX2 move 33 to 256 bytes in 32-byte blocks from both ends
 *   (move_blocks);
 * - the baseline x86-64 one moves it in two 16-byte ones.
 * With only 16-byte moves a 128-byte get took 3.6 ns against 2.0 ns for
 * the C library's AVX copy; with 32-byte moves 2.7 ns. An entry must make
 * no call but tail calls: GCC realigns the stack of a function that uses
 * 32-byte registers and calls out, which cost the 8-byte path 0.3 ns. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DART_COPY_VARIANTS 1
#include <immintrin.h>
#define COPY_TARGET_AVX512 \
  __attribute__((target("avx2,avx512f,avx512bw,avx512vl,bmi2")))
#define COPY_TARGET_AVX2 __attribute__((target("avx2")))
#else
#define DART_COPY_VARIANTS 0
#endif

/* Four 8-byte moves, which GCC's vectorizer turns into one 32-byte move
 * where AVX2 is on and into two 16-byte moves elsewhere (a 32-byte vector
 * type would go through the stack there). */
static inline __attribute__((always_inline)) void
copy_32(char *dst, const char *src)
{
  uint64_t w0, w1, w2, w3;
  memcpy(&w0, src, 8);
  memcpy(&w1, src + 8, 8);
  memcpy(&w2, src + 16, 8);
  memcpy(&w3, src + 24, 8);
  memcpy(dst, &w0, 8);
  memcpy(dst + 8, &w1, 8);
  memcpy(dst + 16, &w2, 8);
  memcpy(dst + 24, &w3, 8);
}

/* Two moves of `width` bytes, from the start and from the end, both
 * loaded before either is stored. */
#define HEAD_AND_TAIL(width)                                                \
  do {                                                                      \
    unsigned char head[width], tail[width];                                 \
    memcpy(head, src, width);                                               \
    memcpy(tail, src + bytes - (width), width);                             \
    memcpy(dst, head, width);                                               \
    memcpy(dst + bytes - (width), tail, width);                             \
  } while (0)

/* Up to 32 bytes every byte is loaded before any is stored (the
 * overlapping ranges of OVERLAP_SAFE_OTHER); the loop above is not. */
static inline __attribute__((always_inline)) void
direct_copy(char *dst, const char *src, size_t bytes)
{
  if (bytes > 32) {
    for (size_t i = 0; i + 32 < bytes; i += 32) {
      copy_32(dst + i, src + i);
    }
    copy_32(dst + bytes - 32, src + bytes - 32);
  } else if (bytes >= 16) {
    HEAD_AND_TAIL(16);
  } else if (bytes >= 8) {
    HEAD_AND_TAIL(8);
  } else if (bytes >= 4) {
    HEAD_AND_TAIL(4);
  } else if (bytes >= 2) {
    HEAD_AND_TAIL(2);
  } /* 1 byte: move_other's */
}
#undef HEAD_AND_TAIL

/* Up to how many bytes each mover is right for overlapping ranges. */
#define OVERLAP_SAFE_OTHER 32
#define OVERLAP_SAFE_MASKED INLINE_COPY_MAX
#define OVERLAP_SAFE_BLOCKS INLINE_COPY_MAX

static inline __attribute__((always_inline)) bool
ranges_overlap(const char *dst, const char *src, size_t bytes)
{
  return (uintptr_t)dst - (uintptr_t)src < bytes ||
         (uintptr_t)src - (uintptr_t)dst < bytes;
}

/* How an entry moves anything but 8 bytes, inlined with a constant
 * pointer (the variant's own). */
typedef void move_fn(char *dst, const char *src, size_t bytes);

/* The other common element sizes first, each one move; the rest is
 * direct_copy's. An if chain rather than a switch, which GCC turns into a
 * search tree of taken branches. */
static inline __attribute__((always_inline)) void
move_other(char *dst, const char *src, size_t bytes)
{
  if (bytes == 4) {
    memcpy(dst, src, 4);
  } else if (bytes == 1) {
    *dst = *src;
  } else {
    direct_copy(dst, src, bytes);
  }
}

#if DART_COPY_VARIANTS
/* AVX2 suffices for these two; both variants inline them. */
static inline __attribute__((always_inline)) COPY_TARGET_AVX2 __m256i
load_256(const char *src)
{
  return _mm256_loadu_si256((const __m256i *)(const void *)src);
}

static inline __attribute__((always_inline)) COPY_TARGET_AVX2 void
store_256(char *dst, __m256i v)
{
  _mm256_storeu_si256((__m256i *)(void *)dst, v);
}

/* 65 to 128 bytes: the first two and the last two 32-byte blocks, all
 * loaded before any is stored (both variants below). */
static inline __attribute__((always_inline)) COPY_TARGET_AVX2 void
move_65_to_128(char *dst, const char *src, size_t bytes)
{
    __m256i head0 = load_256(src), head1 = load_256(src + 32);
    __m256i tail1 = load_256(src + bytes - 64);
    __m256i tail0 = load_256(src + bytes - 32);
    store_256(dst, head0);
    store_256(dst + 32, head1);
    store_256(dst + bytes - 64, tail1);
    store_256(dst + bytes - 32, tail0);
}

/* 129 to INLINE_COPY_MAX bytes: the first four and the last four 32-byte
 * blocks, all loaded before any is stored (both variants below). */
static inline __attribute__((always_inline)) COPY_TARGET_AVX2 void
move_129_to_256(char *dst, const char *src, size_t bytes)
{
  _Static_assert(INLINE_COPY_MAX <= 256, "four blocks from each end");
  __m256i head0 = load_256(src), head1 = load_256(src + 32);
  __m256i head2 = load_256(src + 64), head3 = load_256(src + 96);
  __m256i tail3 = load_256(src + bytes - 128);
  __m256i tail2 = load_256(src + bytes - 96);
  __m256i tail1 = load_256(src + bytes - 64);
  __m256i tail0 = load_256(src + bytes - 32);
  store_256(dst, head0);
  store_256(dst + 32, head1);
  store_256(dst + 64, head2);
  store_256(dst + 96, head3);
  store_256(dst + bytes - 128, tail3);
  store_256(dst + bytes - 96, tail2);
  store_256(dst + bytes - 64, tail1);
  store_256(dst + bytes - 32, tail0);
}

/* Up to 32 bytes, one masked load and one masked store of a 32-byte
 * register: no branch on the size. Up to 64 bytes, the first 32 and the
 * rest masked; up to 128, the first and the last two 32-byte blocks, up
 * to 256 the first and the last four, all loaded before any is stored
 * (so overlapping ranges come out right). A masked move
 * touches no byte outside its mask, so it cannot fault past the end of a
 * segment. Only 32-byte registers: code that uses 64-byte ones lowers the
 * clock of some Intel CPUs. Against move_other's if chain (gt harness,
 * dart_get_blocking, 2 units): 16-32 B 2.75 -> 2.35 ns, 48-64 B 2.65 ->
 * 2.35 ns, 128 B 2.95-3.2 -> 2.6-2.85 ns; 8 B (direct_move) 2.05 ns. */
static inline __attribute__((always_inline)) COPY_TARGET_AVX512 void
move_masked(char *dst, const char *src, size_t bytes)
{
  if (bytes <= 32) {
    __mmask32 mask = _bzhi_u32(UINT32_MAX, (unsigned)bytes);
    _mm256_mask_storeu_epi8(dst, mask, _mm256_maskz_loadu_epi8(mask, src));
  } else if (bytes <= 64) {
    __mmask32 mask = _bzhi_u32(UINT32_MAX, (unsigned)(bytes - 32));
    __m256i head = load_256(src);
    __m256i tail = _mm256_maskz_loadu_epi8(mask, src + 32);
    store_256(dst, head);
    _mm256_mask_storeu_epi8(dst + 32, mask, tail);
  } else if (bytes <= 128) {
    move_65_to_128(dst, src, bytes);
  } else {
    move_129_to_256(dst, src, bytes);
  }
}

/* The AVX2 variant: up to 32 bytes move_other's moves; above, the first
 * and the last 32-byte blocks (up to 64 bytes), the first two and the
 * last two (up to 128), the first four and the last four (up to
 * INLINE_COPY_MAX), each time all loaded before any is stored: no loop
 * and at most one more size test, as in the C library's copy. With
 * direct_copy's loop a 128-byte get took 75 instructions (valgrind
 * --tool=callgrind, 1000 gets) against 31 for the C library's memcpy and
 * its call. */
static inline __attribute__((always_inline)) COPY_TARGET_AVX2 void
move_blocks(char *dst, const char *src, size_t bytes)
{
  if (bytes <= 32) {
    move_other(dst, src, bytes);
  } else if (bytes <= 64) {
    __m256i head = load_256(src), tail = load_256(src + bytes - 32);
    store_256(dst, head);
    store_256(dst + bytes - 32, tail);
  } else if (bytes <= 128) {
    move_65_to_128(dst, src, bytes);
  } else {
    move_129_to_256(dst, src, bytes);
  }
}
#endif

/* 8 bytes (long, double, every DASH index type) before all, one move. */
static inline __attribute__((always_inline)) void
direct_move(char *dst, const char *src, size_t bytes, move_fn *other)
{
  if (__builtin_expect(bytes == 8, 1)) {
    memcpy(dst, src, 8);
  } else {
    other(dst, src, bytes);
  }
}

/* Copies above INLINE_COPY_MAX bytes, and overlapping ones above what
 * the mover takes, out of line so that the entries call nothing but tail
 * calls (see DART_COPY_VARIANTS). The C library's memcpy and memmove are
 * one function on x86-64 (glibc's __memmove_avx_unaligned_erms). */
static __attribute__((noinline)) dart_ret_t
direct_get_large(void *dest, const char *direct, size_t bytes)
{
  memmove(dest, direct, bytes);
  return target_direct_progress();
}

static __attribute__((noinline)) dart_ret_t
direct_put_large(char *direct, const void *src, size_t bytes, bool complete)
{
  direct_put_starting(complete);
  memmove(direct, src, bytes);
  direct_put_completed(complete);
  return DART_OK;
}

/* Whether a copy goes out of line: `overlap_safe` is the mover's
 * OVERLAP_SAFE_* (a constant in every caller). */
static inline __attribute__((always_inline)) bool
copy_out_of_line(const char *dst, const char *src, size_t bytes,
                 size_t overlap_safe)
{
  return bytes > overlap_safe &&
         (bytes > INLINE_COPY_MAX || ranges_overlap(dst, src, bytes));
}

static inline __attribute__((always_inline)) dart_ret_t
direct_put(char *direct, const void *src, size_t bytes, bool complete,
           move_fn *other, size_t overlap_safe)
{
  if (copy_out_of_line(direct, src, bytes, overlap_safe)) {
    return direct_put_large(direct, src, bytes, complete);
  }
  direct_put_starting(complete);
  direct_move(direct, src, bytes, other);
  direct_put_completed(complete);
  return DART_OK;
}

/* Only reads count towards MPI progress: a unit that waits for another
 * polls with gets, atomics or a barrier, and each of those enters MPI now
 * and then, so puts alone cannot starve anybody. Counting puts too put a
 * read-modify-write of the counter right behind the fence, which cost
 * 1-5 ns per 8-byte put. */
static inline __attribute__((always_inline)) dart_ret_t
direct_get(void *dest, const char *direct, size_t bytes, move_fn *other,
           size_t overlap_safe)
{
  if (copy_out_of_line(dest, direct, bytes, overlap_safe)) {
    return direct_get_large(dest, direct, bytes);
  }
  direct_move(dest, direct, bytes, other);
  return target_direct_progress();
}

/* How many bytes each MPI call of a contiguous transfer of `span` bytes
 * moves where the MPI is faster with pieces (core/quirks.h,
 * rma_piece_bytes), a whole number of elements of both sides; 0: the
 * transfer goes whole. */
static size_t rma_piece(const struct datatype *local_type,
                        const struct datatype *remote_type, size_t span)
{
  size_t piece = mpi_quirks.rma_piece_bytes;
  size_t elem = local_type->base_size;
  if (piece == 0 || elem != remote_type->base_size || elem > piece) {
    return 0;
  }
  piece -= piece % elem;
  return span > 2 * piece ? piece : 0;
}

/* At most this many pieces are in flight before a flush of the target:
 * MPICH aborted after some 20,000 MPI_Fetch_and_op calls without a flush
 * (docs/design.md, "MPI quirks"), and a 1 GiB transfer is 32768
 * pieces of 32 KiB. */
enum { PIECES_IN_FLIGHT = 64 };

/* Issues a contiguous transfer of `span` bytes as MPI_Put or MPI_Get of
 * `piece` bytes each; the caller completes it as one of a single call.
 * Returns an MPI error code and names the failing call in `what`. */
static int transfer_in_pieces(bool is_put, char *local,
                              const struct target *t, size_t span,
                              size_t piece, const char **what)
{
  size_t in_flight = 0;
  for (size_t done = 0; done < span; done += piece) {
    if (in_flight == PIECES_IN_FLIGHT) {
      *what = "MPI_Win_flush (between pieces)";
      int err = mpi_win_flush_settled(t->unit, t->win, t->disp, is_put);
      if (err != MPI_SUCCESS) {
        return err;
      }
      in_flight = 0;
    }
    int bytes = (int)(span - done < piece ? span - done : piece);
    MPI_Aint disp = t->disp + (MPI_Aint)done;
    int err = is_put ? MPI_Put(local + done, bytes, MPI_BYTE, t->unit, disp,
                               bytes, MPI_BYTE, t->win)
                     : MPI_Get(local + done, bytes, MPI_BYTE, t->unit, disp,
                               bytes, MPI_BYTE, t->win);
    if (err != MPI_SUCCESS) {
      *what = is_put ? "MPI_Put (a piece)" : "MPI_Get (a piece)";
      return err;
    }
    ++in_flight;
  }
  return MPI_SUCCESS;
}

static dart_ret_t transfer(const char *call, bool is_put, void *local,
                           dart_gptr_t gptr, size_t nelem,
                           dart_datatype_t src_type, dart_datatype_t dst_type,
                           enum completion completion, dart_handle_t *handle)
{
  if (completion == WITH_HANDLE) {
    if (handle == NULL) {
      return report_error(DART_ERR_INVAL, call, "handle is NULL");
    }
    *handle = DART_HANDLE_NULL;
  }
  /* Fast path: one basic type on both sides to a mapped target, which is
   * every element access of DASH inside a node. */
  if (src_type == dst_type && datatype_is_basic_id(src_type) &&
      local != NULL && nelem > 0 &&
      nelem <= SIZE_MAX / sizeof(long double)) {
    size_t bytes = nelem * basic_type_size(src_type);
    char *direct = NULL;
    if (!target_cached(gptr, bytes, &direct) &&
        !target_cached_watched(gptr, bytes, &direct)) {
      struct target t = { 0 };
      if (target_resolve(call, gptr, bytes, &t) != DART_OK) {
        return DART_ERR_INVAL;
      }
      if (t.direct != NULL) {
        target_remember(gptr, &t);
      }
      direct = t.direct;
    }
    /* The entries' own inline copy (get_entry, put_entry). */
    if (direct != NULL) {
      return is_put ? direct_put(direct, local, bytes,
                                 completion != START_ONLY, move_other,
                                 OVERLAP_SAFE_OTHER)
                    : direct_get(local, direct, bytes, move_other,
                                 OVERLAP_SAFE_OTHER);
    }
  }
  /* Everything is validated before any byte moves: the types, the spans
   * of both layouts (overflow-checked: a wrapped byte count would pass the
   * bounds check below), the local buffer, and the target's bounds. */
  const struct datatype *src, *dst;
  size_t src_span, dst_span;
  if (datatype_check_transfer_spans(call, src_type, dst_type, nelem, &src,
                                    &dst, &src_span, &dst_span) != DART_OK) {
    return DART_ERR_INVAL;
  }
  struct target t = { 0 };
  if (nelem == 0) {
    /* Nothing moves, but the pointer must name a live portion all the
     * same (dart_communication.h, "Validity of a target"). */
    return target_resolve(call, gptr, 0, &t);
  }
  if (local == NULL) {
    return report_error(DART_ERR_INVAL, call,
                        "%s buffer is NULL with nelem %zu",
                        is_put ? "source" : "destination", nelem);
  }
  size_t local_span = is_put ? src_span : dst_span;
  if ((uintptr_t)local > UINTPTR_MAX - local_span) {
    return report_error(DART_ERR_INVAL, call,
                        "%s buffer %p cannot hold %zu bytes (past the end of "
                        "the address space)",
                        is_put ? "source" : "destination", local, local_span);
  }
  const struct datatype *remote_type = is_put ? dst : src;
  const struct datatype *local_type = is_put ? src : dst;
  if (target_resolve(call, gptr, is_put ? dst_span : src_span, &t) !=
      DART_OK) {
    return DART_ERR_INVAL;
  }
  if (t.direct != NULL) {
    if (is_put) {
      direct_put_starting(completion != START_ONLY);
      datatype_copy(t.direct, dst, local, src, nelem);
      direct_put_completed(completion != START_ONLY);
    } else {
      datatype_copy(local, dst, t.direct, src, nelem);
    }
    target_direct_progress();
    return DART_OK; /* complete at once: the handle stays NULL */
  }

  /* MPICH 4.0's MPI_Rget completes its request before a strided or
   * indexed layout (either side) holds the data (seen on the local pool's
   * window): such transfers are tracked like Open MPI's, by a flush. */
  bool contiguous = is_contiguous_kind(local_type) &&
                    is_contiguous_kind(remote_type);
  size_t piece = contiguous ? rma_piece(local_type, remote_type, local_span)
                            : 0;
  /* Pieces go as bytes: the MPI layouts serve whole transfers only. */
  struct mpi_count lc = { 0, MPI_DATATYPE_NULL, false }, rc = lc;
  int err = MPI_SUCCESS;
  if (piece == 0) {
    err = datatype_mpi_layout(local_type, nelem, &lc);
    if (err != MPI_SUCCESS) {
      return report_mpi_error(call, "building the origin datatype", err);
    }
    err = datatype_mpi_layout(remote_type, nelem, &rc);
    if (err != MPI_SUCCESS) {
      mpi_count_release(&lc);
      return report_mpi_error(call, "building the target datatype", err);
    }
  }
  const char *what = is_put ? "MPI_Put" : "MPI_Get";
  MPI_Request request = MPI_REQUEST_NULL;
  bool by_request = completion == WITH_HANDLE && piece == 0 &&
                    !mpi_quirks.request_rma_broken && contiguous;
  /* A blocking get where MPI's own wait would spin without yielding
   * (core/quirks.h, mpi_rma_waits_yield) completes by its request. */
  bool yielding_get = completion == COMPLETE && !is_put && contiguous &&
                      piece == 0 && mpi_rma_waits_yield();
  mpi_serial_enter(); /* up to the flush (core/serialize.h) */
  if (piece != 0) {
    err = transfer_in_pieces(is_put, local, &t, local_span, piece, &what);
  } else if (by_request || yielding_get) {
    what = is_put ? "MPI_Rput" : "MPI_Rget";
    err = is_put ? MPI_Rput(local, lc.count, lc.type, t.unit, t.disp,
                            rc.count, rc.type, t.win, &request)
                 : MPI_Rget(local, lc.count, lc.type, t.unit, t.disp,
                            rc.count, rc.type, t.win, &request);
  } else {
    err = is_put ? MPI_Put(local, lc.count, lc.type, t.unit, t.disp,
                           rc.count, rc.type, t.win)
                 : MPI_Get(local, lc.count, lc.type, t.unit, t.disp,
                           rc.count, rc.type, t.win);
  }
  if (err == MPI_SUCCESS && completion != COMPLETE) {
    target_rma_issued(&t); /* a blocking transfer completes right here */
  }
  if (err == MPI_SUCCESS && yielding_get) {
    err = progress_wait_yielding(&request);
  } else if (err == MPI_SUCCESS && completion == COMPLETE) {
    what = "MPI_Win_flush";
    err = mpi_win_flush_settled(t.unit, t.win, t.disp, is_put);
  }
  mpi_serial_leave();
  mpi_count_release(&lc);
  mpi_count_release(&rc);
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, what, err);
  }
  if (completion == WITH_HANDLE) {
    struct pending_transfer now = { request, t.segment, t.win, t.unit,
                                    t.disp, is_put, by_request };
    struct pending_transfer *p = malloc(sizeof *p);
    if (p != NULL) {
      *p = now; /* filled before the insert publishes it to other threads
                   (onesided_segment_freed walks the table) */
    }
    intptr_t id = p == NULL ? 0 : handle_table_insert(&pending, p);
    if (id == 0) {
      /* No handle to give: complete the transfer here instead. */
      complete(&now, true);
      free(p);
      return DART_OK;
    }
    *handle = (dart_handle_t)(uintptr_t)id;
  }
  return DART_OK;
}

/* The slow paths of the four calls below, out of line and taking their
 * arguments in the public call's order: the fast path then ends in a
 * tail call without moving a register and needs no stack frame, which is
 * a good part of an 8-byte copy's cost. */
#define GET_SLOW_PATH(name, call, completion)                               \
  static __attribute__((noinline)) dart_ret_t name(                        \
    void *dest, dart_gptr_t gptr, size_t nelem, dart_datatype_t src_type,  \
    dart_datatype_t dst_type)                                              \
  {                                                                        \
    return transfer(call, false, dest, gptr, nelem, src_type, dst_type,    \
                    completion, NULL);                                     \
  }
#define PUT_SLOW_PATH(name, call, completion)                               \
  static __attribute__((noinline)) dart_ret_t name(                        \
    dart_gptr_t gptr, const void *src, size_t nelem,                       \
    dart_datatype_t src_type, dart_datatype_t dst_type)                    \
  {                                                                        \
    return transfer(call, true, (void *)src, gptr, nelem, src_type,        \
                    dst_type, completion, NULL);                           \
  }
GET_SLOW_PATH(dart_get_slow, "dart_get", START_ONLY)
PUT_SLOW_PATH(dart_put_slow, "dart_put", START_ONLY)
GET_SLOW_PATH(dart_get_blocking_slow, "dart_get_blocking", COMPLETE)
PUT_SLOW_PATH(dart_put_blocking_slow, "dart_put_blocking", COMPLETE)

typedef dart_ret_t get_slow_path(void *, dart_gptr_t, size_t, dart_datatype_t,
                                 dart_datatype_t);
typedef dart_ret_t put_slow_path(dart_gptr_t, const void *, size_t,
                                 dart_datatype_t, dart_datatype_t);

/* The bodies of the blocking and non-blocking forms, which differ only
 * in the put's fence and in their slow path (inlined with a constant
 * `slow`, a direct tail call), and of each variant, which differ in how
 * they move other than 8 bytes (`other`, right for overlapping ranges up
 * to `overlap_safe` bytes). The initialization check comes
 * after a cache miss, on behalf of the public `call`. */
static inline __attribute__((always_inline)) dart_ret_t
get_entry(const char *call, move_fn *other, size_t overlap_safe, void *dest,
          dart_gptr_t gptr, size_t nelem, dart_datatype_t src_type,
          dart_datatype_t dst_type, get_slow_path *slow)
{
  char *direct;
  size_t bytes;
  if (cached_direct(dest, gptr, nelem, src_type, dst_type, &direct, &bytes)) {
    return direct_get(dest, direct, bytes, other, overlap_safe);
  }
  REQUIRE_INIT_IN(call);
  return slow(dest, gptr, nelem, src_type, dst_type);
}

static inline __attribute__((always_inline)) dart_ret_t
put_entry(const char *call, move_fn *other, size_t overlap_safe,
          dart_gptr_t gptr, const void *src, size_t nelem,
          dart_datatype_t src_type, dart_datatype_t dst_type, bool complete,
          put_slow_path *slow)
{
  char *direct;
  size_t bytes;
  if (cached_direct(src, gptr, nelem, src_type, dst_type, &direct, &bytes)) {
    return direct_put(direct, src, bytes, complete, other, overlap_safe);
  }
  REQUIRE_INIT_IN(call);
  return slow(gptr, src, nelem, src_type, dst_type);
}

/* Defines the public entry `name`, whose body is `entry` (get_entry or
 * put_entry) with the arguments after `params`: with DART_COPY_VARIANTS
 * once per variant (name_avx512, name_avx2, name_baseline), and `name`
 * itself as an ifunc whose resolver (name_resolve) picks one. Resolvers
 * and variants are static: only `name` leaves the library. */
#if DART_COPY_VARIANTS
enum copy_variant { COPY_BASELINE, COPY_AVX2, COPY_AVX512 };

/* Resolvers run while the dynamic linker relocates, before any
 * constructor: in a program linked with the library's objects, before the
 * sanitizers' runtime has mapped its shadow memory, so they must not be
 * instrumented (an instrumented resolver crashed every such test program
 * of the address and of the thread sanitizer build at load). */
#define COPY_RESOLVER                                                       \
  __attribute__((no_sanitize_address, no_sanitize_undefined,               \
                 no_sanitize_thread))

/* The CPU model GCC fills in also checks that the OS saves the AVX and
 * AVX-512 registers. */
static COPY_RESOLVER enum copy_variant copy_variant_of_cpu(void)
{
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("bmi2")) {
    return COPY_AVX512;
  }
  return __builtin_cpu_supports("avx2") ? COPY_AVX2 : COPY_BASELINE;
}

#define DART_COPY_ENTRY(name, entry, params, ...)                           \
  DART_HOT_ENTRY COPY_TARGET_AVX512 static dart_ret_t name##_avx512 params  \
  {                                                                         \
    return entry(#name, move_masked, OVERLAP_SAFE_MASKED, __VA_ARGS__);     \
  }                                                                         \
  DART_HOT_ENTRY COPY_TARGET_AVX2 static dart_ret_t name##_avx2 params      \
  {                                                                         \
    return entry(#name, move_blocks, OVERLAP_SAFE_BLOCKS, __VA_ARGS__);     \
  }                                                                         \
  DART_HOT_ENTRY static dart_ret_t name##_baseline params                   \
  {                                                                         \
    return entry(#name, move_other, OVERLAP_SAFE_OTHER, __VA_ARGS__);       \
  }                                                                         \
  static COPY_RESOLVER __typeof__(&name##_baseline) name##_resolve(void)    \
  {                                                                         \
    switch (copy_variant_of_cpu()) {                                        \
    case COPY_AVX512:                                                       \
      return name##_avx512;                                                 \
    case COPY_AVX2:                                                         \
      return name##_avx2;                                                   \
    default:                                                                \
      return name##_baseline;                                               \
    }                                                                       \
  }                                                                         \
  dart_ret_t name params __attribute__((ifunc(#name "_resolve")))
#else
#define DART_COPY_ENTRY(name, entry, params, ...)                           \
  DART_HOT_ENTRY dart_ret_t name params                                     \
  {                                                                         \
    return entry(#name, move_other, OVERLAP_SAFE_OTHER, __VA_ARGS__);       \
  }                                                                         \
  _Static_assert(1, "a declaration, for the semicolon after the macro")
#endif

DART_COPY_ENTRY(dart_get, get_entry,
                (void *dest, dart_gptr_t gptr, size_t nelem,
                 dart_datatype_t src_type, dart_datatype_t dst_type),
                dest, gptr, nelem, src_type, dst_type, dart_get_slow);

DART_COPY_ENTRY(dart_put, put_entry,
                (dart_gptr_t gptr, const void *src, size_t nelem,
                 dart_datatype_t src_type, dart_datatype_t dst_type),
                gptr, src, nelem, src_type, dst_type, false, dart_put_slow);

DART_COPY_ENTRY(dart_get_blocking, get_entry,
                (void *dest, dart_gptr_t gptr, size_t nelem,
                 dart_datatype_t src_type, dart_datatype_t dst_type),
                dest, gptr, nelem, src_type, dst_type,
                dart_get_blocking_slow);

DART_COPY_ENTRY(dart_put_blocking, put_entry,
                (dart_gptr_t gptr, const void *src, size_t nelem,
                 dart_datatype_t src_type, dart_datatype_t dst_type),
                gptr, src, nelem, src_type, dst_type, true,
                dart_put_blocking_slow);

dart_ret_t dart_get_handle(void *dest, dart_gptr_t gptr, size_t nelem,
                           dart_datatype_t src_type, dart_datatype_t dst_type,
                           dart_handle_t *handle)
{
  REQUIRE_INIT();
  return transfer(__func__, false, dest, gptr, nelem, src_type, dst_type,
                  WITH_HANDLE, handle);
}

dart_ret_t dart_put_handle(dart_gptr_t gptr, const void *src, size_t nelem,
                           dart_datatype_t src_type, dart_datatype_t dst_type,
                           dart_handle_t *handle)
{
  REQUIRE_INIT();
  return transfer(__func__, true, (void *)src, gptr, nelem, src_type,
                  dst_type, WITH_HANDLE, handle);
}

/* --- flushes --- */

/* Raises a completion mark to `value` unless it is past it already. */
static void raise_mark(atomic_ulong *mark, unsigned long value)
{
  unsigned long seen = atomic_load_explicit(mark, memory_order_relaxed);
  while (seen < value &&
         !atomic_compare_exchange_weak_explicit(mark, &seen, value,
                                                memory_order_relaxed,
                                                memory_order_relaxed)) {
  }
}

static dart_ret_t flush(const char *call, dart_gptr_t gptr, bool all_units,
                        bool local_only)
{
  struct team *team = team_lookup(gptr.teamid);
  struct segment *seg =
    team == NULL ? NULL : segment_lookup(&team->segments, gptr.segid);
  int unit = gptr.unitid;
  if (seg == NULL || (!all_units && (unit < 0 || unit >= team->size))) {
    return target_report_invalid(call, gptr, 0);
  }
  if (!local_only) {
    /* Direct stores are complete already; order them before whatever
     * signals their completion. */
    direct_stores_order();
  }
  MPI_Win win = seg->win;
  unsigned long issued = atomic_load_explicit(&seg->rma_issued,
                                              memory_order_acquire);
  unsigned long done = atomic_load_explicit(&seg->rma_flushed,
                                            memory_order_relaxed);
  if (local_only && issued != done) {
    done = atomic_load_explicit(&seg->rma_flushed_local,
                                memory_order_relaxed);
  }
  if (win == MPI_WIN_NULL || issued == done) {
    return DART_OK; /* nothing went through MPI since the last flush */
  }
  /* Batched accumulates go out first, completed by the flush below
   * (acc_batch.h); those applied by their targets are complete there
   * once acknowledged (am_atomics.h). */
  struct acc_batch_sent *sent = NULL;
  int sent_err = acc_batch_send_for_flush(seg, all_units ? -1 : unit,
                                          &sent);
  int err;
  if (all_units) { /* serialized inside (rma_targets.c) */
    err = rma_targets_flush_all(&seg->rma_targets, seg, local_only);
  } else {
    MPI_SERIALIZED(err = mpi_win_flush_settled(unit, win,
                                               segment_probe(seg, unit),
                                               !local_only));
  }
  acc_batch_release(sent); /* complete, or MPI failed: not read again */
  if (sent_err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Accumulate", sent_err);
  }
  if (err == MPI_SUCCESS && !local_only && am_atomics_active() &&
      team->num_nodes > 1) {
    dart_ret_t refused =
        am_atomics_complete(call, team, all_units ? -1 : unit);
    if (refused != DART_OK) {
      return refused;
    }
  }
  /* Only a flush of all units completes everything issued before it. */
  if (err == MPI_SUCCESS && all_units) {
    raise_mark(&seg->rma_flushed_local, issued);
    if (!local_only) {
      raise_mark(&seg->rma_flushed, issued);
    }
  }
  return err == MPI_SUCCESS ? DART_OK
                            : report_mpi_error(call, "MPI_Win_flush", err);
}

/* Whether a flush of a cached segment has nothing to wait for: no RMA
 * went out on it since the last flush of all units (always so where the
 * team lives on one node). Direct stores are complete already; a remote
 * flush orders them before whatever signals their completion. */
static inline __attribute__((always_inline)) bool
cached_flush_done(dart_gptr_t gptr, bool all_units, bool local_only)
{
  const struct segment *seg = target_cached_segment(gptr, all_units);
  /* Unlikely, so that the path that returns true is the fall-through. */
  if (__builtin_expect(
        seg == NULL ||
          atomic_load_explicit(&seg->rma_issued, memory_order_acquire) !=
            atomic_load_explicit(&seg->rma_flushed, memory_order_relaxed),
        0)) {
    return false;
  }
  if (!local_only) {
    direct_stores_order();
  }
  return true;
}

/* The out-of-line parts, reached by tail calls. */
#define FLUSH_SLOW_PATH(name, call, all_units, local_only)                  \
  static __attribute__((noinline)) dart_ret_t name(dart_gptr_t gptr)        \
  {                                                                          \
    REQUIRE_INIT_IN(call);                                                   \
    return flush(call, gptr, all_units, local_only);                         \
  }
FLUSH_SLOW_PATH(flush_slow, "dart_flush", false, false)
FLUSH_SLOW_PATH(flush_all_slow, "dart_flush_all", true, false)
FLUSH_SLOW_PATH(flush_local_slow, "dart_flush_local", false, true)
FLUSH_SLOW_PATH(flush_local_all_slow, "dart_flush_local_all", true, true)

DART_HOT_ENTRY
dart_ret_t dart_flush(dart_gptr_t gptr)
{
  return cached_flush_done(gptr, false, false) ? DART_OK : flush_slow(gptr);
}

DART_HOT_ENTRY
dart_ret_t dart_flush_all(dart_gptr_t gptr)
{
  return cached_flush_done(gptr, true, false) ? DART_OK
                                              : flush_all_slow(gptr);
}

DART_HOT_ENTRY
dart_ret_t dart_flush_local(dart_gptr_t gptr)
{
  return cached_flush_done(gptr, false, true) ? DART_OK
                                              : flush_local_slow(gptr);
}

DART_HOT_ENTRY
dart_ret_t dart_flush_local_all(dart_gptr_t gptr)
{
  return cached_flush_done(gptr, true, true) ? DART_OK
                                             : flush_local_all_slow(gptr);
}

/* --- handles --- */

static struct pending_transfer *pending_of(dart_handle_t handle)
{
  return handle_table_lookup(&pending, (intptr_t)(uintptr_t)handle);
}

static dart_ret_t report_bad_handle(const char *call, dart_handle_t handle)
{
  return report_error(DART_ERR_INVAL, call,
                      "handle %p is not a live transfer handle",
                      (void *)handle);
}

/* Waits for local completion; with `remote`, a put is flushed too. */
static int complete(struct pending_transfer *p, bool remote)
{
  if (p->segment == NULL) {
    return MPI_SUCCESS; /* done when its segment was freed */
  }
  int err = MPI_SUCCESS;
  mpi_serial_enter(); /* core/serialize.h */
  if (p->by_request) {
    err = mpi_rma_waits_yield() ? progress_wait_yielding(&p->request)
                                : MPI_Wait(&p->request, MPI_STATUS_IGNORE);
  } else if (!(remote && p->is_put)) {
    err = mpi_win_flush_settled(p->unit, p->win, p->disp, false);
  }
  if (err == MPI_SUCCESS && remote && p->is_put) {
    err = mpi_win_flush_settled(p->unit, p->win, p->disp, true);
  }
  mpi_serial_leave();
  return err;
}

/* The API asks for every access to a segment to be complete (flushed,
 * then a barrier) before any member frees it, so the transfer is done:
 * only its MPI request, if any, is left to release. Nothing may reach the
 * target now, which may have unmapped its portion already (a flush that
 * probes the target first, mpi_win_flush_settled, crashed MPICH's). */
static void release_if_gone(void *entry, void *seg)
{
  struct pending_transfer *p = entry;
  if (p->segment == seg) {
    if (p->request != MPI_REQUEST_NULL) {
      MPI_SERIALIZED(MPI_Wait(&p->request, MPI_STATUS_IGNORE));
    }
    p->request = MPI_REQUEST_NULL;
    p->segment = NULL;
  }
}

void onesided_segment_freed(const struct segment *seg)
{
  handle_table_each(&pending, release_if_gone, (void *)seg);
}

static void consume(dart_handle_t *handle)
{
  free(handle_table_remove(&pending, (intptr_t)(uintptr_t)*handle));
  *handle = DART_HANDLE_NULL;
}

/* Completes the live handle *handle (its entry `p`) and consumes it. */
static dart_ret_t finish(const char *call, dart_handle_t *handle,
                         struct pending_transfer *p, bool remote)
{
  int err = complete(p, remote);
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, p->by_request ? "MPI_Wait"
                                                : "MPI_Win_flush",
                            err);
  }
  consume(handle);
  return DART_OK;
}

static dart_ret_t wait_one(const char *call, dart_handle_t *handle,
                           bool remote)
{
  if (handle == NULL || *handle == DART_HANDLE_NULL) {
    return DART_OK;
  }
  struct pending_transfer *p = pending_of(*handle);
  if (p == NULL) {
    return report_bad_handle(call, *handle);
  }
  return finish(call, handle, p, remote);
}

/* Every entry is checked before anything is waited for. A handle listed
 * more than once is one transfer: waited for at its first place, every
 * place set to DART_HANDLE_NULL. */
static dart_ret_t wait_all(const char *call, dart_handle_t handles[],
                           size_t n, bool remote)
{
  if (handles == NULL) {
    return DART_OK;
  }
  for (size_t i = 0; i < n; ++i) {
    if (handles[i] != DART_HANDLE_NULL && pending_of(handles[i]) == NULL) {
      return report_bad_handle(call, handles[i]);
    }
  }
  dart_ret_t ret = DART_OK;
  for (size_t i = 0; i < n; ++i) {
    if (handles[i] == DART_HANDLE_NULL) {
      continue;
    }
    struct pending_transfer *p = pending_of(handles[i]);
    if (p == NULL) {
      handles[i] = DART_HANDLE_NULL; /* consumed at an earlier place */
    } else if (finish(call, &handles[i], p, remote) != DART_OK) {
      ret = DART_ERR_OTHER;
    }
  }
  return ret;
}

/* Sets *done if every live handle is locally complete; then consumes all
 * (after flushing puts when `remote`), otherwise consumes none. */
static dart_ret_t test_all(const char *call, dart_handle_t handles[],
                           size_t n, int32_t *done, bool remote)
{
  if (done == NULL) {
    return report_error(DART_ERR_INVAL, call, "result pointer is NULL");
  }
  *done = 1;
  if (handles == NULL) {
    return DART_OK;
  }
  for (size_t i = 0; i < n; ++i) {
    if (handles[i] == DART_HANDLE_NULL) {
      continue;
    }
    struct pending_transfer *p = pending_of(handles[i]);
    if (p == NULL) {
      *done = 0;
      return report_bad_handle(call, handles[i]);
    }
    int flag = 1;
    if (p->request != MPI_REQUEST_NULL) {
      int err;
      MPI_SERIALIZED(err = MPI_Test(&p->request, &flag, MPI_STATUS_IGNORE));
      if (err != MPI_SUCCESS) {
        *done = 0;
        return report_mpi_error(call, "MPI_Test", err);
      }
    }
    if (!flag) {
      *done = 0;
    }
  }
  if (*done) {
    return wait_all(call, handles, n, remote);
  }
  return DART_OK;
}

dart_ret_t dart_wait(dart_handle_t *handle)
{
  REQUIRE_INIT();
  return wait_one(__func__, handle, true);
}

dart_ret_t dart_wait_local(dart_handle_t *handle)
{
  REQUIRE_INIT();
  return wait_one(__func__, handle, false);
}

dart_ret_t dart_waitall(dart_handle_t handles[], size_t n)
{
  REQUIRE_INIT();
  return wait_all(__func__, handles, n, true);
}

dart_ret_t dart_waitall_local(dart_handle_t handles[], size_t n)
{
  REQUIRE_INIT();
  return wait_all(__func__, handles, n, false);
}

dart_ret_t dart_test_local(dart_handle_t *handle, int32_t *result)
{
  REQUIRE_INIT();
  if (handle == NULL) {
    if (result == NULL) {
      return report_error(DART_ERR_INVAL, __func__, "result is NULL");
    }
    *result = 1;
    return DART_OK;
  }
  return test_all(__func__, handle, 1, result, false);
}

dart_ret_t dart_test(dart_handle_t *handleptr, int32_t *is_finished)
{
  REQUIRE_INIT();
  if (handleptr == NULL) {
    if (is_finished == NULL) {
      return report_error(DART_ERR_INVAL, __func__, "is_finished is NULL");
    }
    *is_finished = 1;
    return DART_OK;
  }
  return test_all(__func__, handleptr, 1, is_finished, true);
}

dart_ret_t dart_testall_local(dart_handle_t handles[], size_t n,
                              int32_t *result)
{
  REQUIRE_INIT();
  return test_all(__func__, handles, n, result, false);
}

dart_ret_t dart_testall(dart_handle_t handles[], size_t n,
                        int32_t *is_finished)
{
  REQUIRE_INIT();
  return test_all(__func__, handles, n, is_finished, true);
}

dart_ret_t dart_handle_free(dart_handle_t *handle)
{
  REQUIRE_INIT();
  if (handle == NULL || *handle == DART_HANDLE_NULL) {
    return DART_OK;
  }
  struct pending_transfer *p = pending_of(*handle);
  if (p == NULL) {
    return report_bad_handle(__func__, *handle);
  }
  /* The transfer goes on; a later flush completes it remotely. Its MPI
   * request cannot simply be dropped: MPICH and Open MPI reject
   * MPI_Request_free on RMA requests (fatal on MPI_COMM_WORLD), so the
   * request is completed locally here. */
  if (p->request != MPI_REQUEST_NULL) {
    MPI_SERIALIZED(MPI_Wait(&p->request, MPI_STATUS_IGNORE));
  }
  consume(handle);
  return DART_OK;
}

void onesided_module_finalize(void)
{
  handle_table_clear(&pending, free);
}
