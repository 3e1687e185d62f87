#include "target.h"
#include "runtime.h"

#include <mpi.h>

dart_ret_t target_resolve(const char *call, dart_gptr_t gptr, size_t span,
                          struct target *t)
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
  size_t size = seg->sizes[unit];
  if (offset > size || span > size - offset) {
    return report_error(DART_ERR_INVAL, call,
                        "bytes [%llu, %llu) are past the end of unit %d's "
                        "%zu-byte portion of segment %d",
                        (unsigned long long)offset,
                        (unsigned long long)(offset + span), unit, size,
                        (int)seg->id);
  }
  t->team = team;
  t->segment = seg;
  t->unit = unit;
  t->direct = NULL;
  t->win = seg->win;
  t->disp = seg->disps[unit] + (MPI_Aint)offset;
  bool shm = runtime.env.shared_memory_path || t->win == MPI_WIN_NULL;
  int node_rank = team->node_rank_of[unit];
  if (shm && seg->node_bases != NULL && node_rank >= 0) {
    t->direct = seg->node_bases[node_rank] + offset;
  } else if (shm && unit == team->my_rank) {
    t->direct = seg->my_base + offset;
  }
  return DART_OK;
}

void target_direct_progress(void)
{
  static _Thread_local unsigned direct_ops;
  if (++direct_ops % 1024 == 0) {
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, runtime.user_p2p_comm, &flag,
               MPI_STATUS_IGNORE);
  }
}
