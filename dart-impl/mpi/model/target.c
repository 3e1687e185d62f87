#include "mpi/model/target.h"
#include "mpi/core/progress.h"

__thread struct direct_target_cache target_cache
  __attribute__((tls_model("initial-exec")));
__thread struct atomic_target_cache atomic_target_cache
  __attribute__((tls_model("initial-exec")));
__thread struct watched_target_cache watched_target_cache
  __attribute__((tls_model("initial-exec")));
/* Starts above every cache entry's zero generation: no entry is valid
 * before it was filled. */
_Atomic uint64_t segment_generation = 1;

dart_ret_t target_report_invalid(const char *call, dart_gptr_t gptr,
                                 size_t span)
{
  struct team *team = team_lookup(gptr.teamid);
  if (team == NULL) {
    return report_error(DART_ERR_INVAL, call, "unknown team %d in gptr",
                        (int)gptr.teamid);
  }
  struct segment *seg = segment_lookup(&team->segments, gptr.segid);
  if (seg == NULL) {
    return report_error(DART_ERR_INVAL, call,
                        "unknown segment %d on team %d (never allocated or "
                        "freed)", (int)gptr.segid, (int)gptr.teamid);
  }
  int unit = gptr.unitid;
  if (unit < 0 || unit >= team->size) {
    return report_error(DART_ERR_INVAL, call,
                        "unit %d is not in [0, %d) of team %d", unit,
                        team->size, (int)gptr.teamid);
  }
  uint64_t offset = gptr.addr_or_offs.offset;
  return report_error(DART_ERR_INVAL, call,
                      "bytes [%llu, %llu) are past the end of unit %d's "
                      "%zu-byte portion of segment %d",
                      (unsigned long long)offset,
                      (unsigned long long)(offset + span), unit,
                      seg->sizes[unit], (int)seg->id);
}

static bool span_fits(size_t size, uint64_t offset, size_t span)
{
  return offset <= size && span <= size - offset;
}

bool target_watch_ok(struct segment *seg, int unit, uint64_t offset,
                     size_t span)
{
  const struct segment_watch *w = seg->watch;
  /* The flag, then the refreshes, then the size: a flag that another
   * thread's refresh took down is seen with that refresh under way or
   * with its size in place (segment.h, struct segment_watch). */
  if (!__atomic_load_n(&w->changed[unit], __ATOMIC_ACQUIRE) &&
      !__atomic_load_n(&w->refreshing, __ATOMIC_ACQUIRE) &&
      span_fits(__atomic_load_n(&seg->sizes[unit], __ATOMIC_RELAXED), offset,
                span)) {
    return true;
  }
  if (!w->refresh(seg, unit)) {
    return false;
  }
  return span_fits(__atomic_load_n(&seg->sizes[unit], __ATOMIC_RELAXED),
                   offset, span);
}

bool target_key_layout_ok(void)
{
  dart_gptr_t a = { .unitid = 0x654321, .flags = 0xff, .segid = -2,
                    .teamid = 7 };
  dart_gptr_t b = a;
  b.flags = 0;
  uint64_t expect = (uint64_t)0x654321 | ((uint64_t)(uint16_t)-2 << 32) |
                    ((uint64_t)7 << 48);
  return target_cache_key(a) == expect && target_cache_key(b) == expect;
}

dart_ret_t target_progress_probe(void)
{
  static __thread long long last_probe_ns;
  target_cache.direct_ops_left = TARGET_PROBE_EVERY - 1;
  long long now_ns = progress_clock_ns();
  if (now_ns - last_probe_ns < TARGET_PROBE_INTERVAL_NS) {
    return DART_OK;
  }
  last_probe_ns = now_ns;
  int flag;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, runtime.user_p2p_comm, &flag,
             MPI_STATUS_IGNORE);
  return DART_OK;
}
