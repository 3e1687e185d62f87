/* The local pool's exposure to RMA and its change protocol (see the
 * header). The protocol is the one Mehlan, Hoefler, Mietke and Rehm give
 * for memory that peers access without a handshake on the data path
 * (docs/design.md, "The local pool"): the owner raises a flag per peer,
 * waits a grace time in which every transfer a peer started before it saw
 * the flag completes, and only then changes the memory.
 *
 * Why one region per unit, re-attached whole: Open MPI 4.1's osc/ucx
 * crashes or misroutes puts and gets on a dynamic window whose processes
 * attach different numbers of regions once regions come and go
 * (dart-impl/test/quirk_ompi_ucx_dynamic_regions.c); one region per unit
 * that changes size works on both MPIs. Re-attaching leaves a moment in
 * which the region is not attached: that is what the grace time covers.
 *
 * Where the words live: every unit has a small block in an
 * MPI_Win_allocate window, `state` (my exposed bytes, with bit 0 set
 * while a change is under way) and `changed[u]` (unit u changed its
 * exposure since I last read its state). The owner writes its state and
 * others read it with MPI atomics only; flags are written with MPI_Put
 * and read here with a load. */
#define _GNU_SOURCE /* sched_rr_get_interval */
#include "mpi/memory/pool_exposure.h"
#include "base/cache_line.h"
#include "mpi/core/progress.h"
#include "mpi/core/quirks.h"
#include "mpi/core/runtime.h"
#include "mpi/core/serialize.h"
#include "mpi/model/target.h"

#include <dash/dart/if/dart_team_group.h>

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STATE_CHANGING ((uint64_t)1) /* extents are page multiples */
#define FLAGS_DISP     ((MPI_Aint)sizeof(uint64_t))

struct pool_ctl {
  uint64_t      state;
  unsigned char changed[]; /* one per unit of DART_TEAM_ALL */
};

static bool refresh(struct segment *seg, int unit);

static struct {
  MPI_Win              ctl_win;
  struct pool_ctl     *ctl;      /* mine, in ctl_win */
  MPI_Win              win;      /* the pool's dynamic window */
  char                *base;     /* my reservation */
  size_t               extent;   /* bytes of it attached */
  int                  me;
  int                 *rma_peers; /* units that reach me through `win` */
  int                  nrma_peers;
  bool                 whole;    /* the whole reservation, fixed */
  struct segment_watch watch;
  struct pool_exposure_stats stats;
} exposure = { .ctl_win = MPI_WIN_NULL, .win = MPI_WIN_NULL };

/* --- the grace time ---------------------------------------------------
 * t_delay = t_maxdata + t_rrsched * n: a peer that checked my flag just
 * before I raised it may still be inside one transfer (at most my whole
 * exposure, at memory bandwidth), and may have been descheduled between
 * the check and the transfer for up to one time slice per process that
 * competes for its core. */

/* Bytes per nanosecond of a large memcpy, measured once. */
static double copy_bandwidth(void)
{
  static double measured;
  if (measured > 0) {
    return measured;
  }
  const size_t bytes = (size_t)8 << 20;
  char *from = malloc(bytes), *to = malloc(bytes);
  double bw = 1.0; /* 1 GB/s if memory is too short to measure */
  if (from != NULL && to != NULL) {
    memset(from, 1, bytes);
    memset(to, 0, bytes); /* both committed before the clock starts */
    long long best = 0;
    for (int i = 0; i < 3; ++i) {
      long long t0 = progress_clock_ns();
      memcpy(to, from, bytes);
      __asm__ volatile("" : : "r"(to) : "memory");
      long long t = progress_clock_ns() - t0;
      best = best == 0 || t < best ? t : best;
    }
    bw = (double)bytes / (double)(best > 0 ? best : 1);
  }
  free(from);
  free(to);
  measured = bw;
  return bw;
}

/* The scheduler's round-robin quantum: this process's if it runs under a
 * round-robin policy, else the kernel's setting for such processes, which
 * bounds how long a runnable process waits for its core. */
static long long rr_slice_ns(void)
{
  struct timespec slice;
  if (sched_rr_get_interval(0, &slice) == 0 &&
      (slice.tv_sec > 0 || slice.tv_nsec > 0)) {
    return (long long)slice.tv_sec * 1000000000LL + slice.tv_nsec;
  }
  long long ms = 100; /* the kernel's default */
  FILE *f = fopen("/proc/sys/kernel/sched_rr_timeslice_ms", "r");
  if (f != NULL) {
    if (fscanf(f, "%lld", &ms) != 1 || ms <= 0) {
      ms = 100;
    }
    fclose(f);
  }
  return ms * 1000000LL;
}

/* Processes runnable on this node right now (including this one). */
static int runnable_processes(void)
{
  int n = 1;
  FILE *f = fopen("/proc/stat", "r");
  if (f == NULL) {
    return n;
  }
  char line[256];
  while (fgets(line, sizeof line, f) != NULL) {
    if (sscanf(line, "procs_running %d", &n) == 1) {
      break;
    }
  }
  fclose(f);
  return n > 0 ? n : 1;
}

void pool_exposure_grace(size_t extent, struct pool_grace *grace)
{
  grace->maxdata_ns = (long long)((double)extent / copy_bandwidth());
  grace->rrsched_ns = rr_slice_ns();
  grace->runnable = runnable_processes();
  grace->total_ns = runtime.env.pool_grace_us >= 0
                      ? (long long)runtime.env.pool_grace_us * 1000
                      : grace->maxdata_ns +
                          grace->rrsched_ns * grace->runnable;
}

/* --- the words ------------------------------------------------------- */

static int write_state(uint64_t state)
{
  uint64_t old = 0;
  int err;
  MPI_SERIALIZED(
    err = MPI_Fetch_and_op(&state, &old, MPI_UINT64_T, exposure.me, 0,
                           MPI_REPLACE, exposure.ctl_win);
    if (err == MPI_SUCCESS) {
      err = mpi_win_flush_settled(exposure.me, exposure.ctl_win, 0,
                                  true);
    });
  return err;
}

static int read_state(int unit, uint64_t *state)
{
  int err;
  MPI_SERIALIZED(
    err = MPI_Fetch_and_op(NULL, state, MPI_UINT64_T, unit, 0, MPI_NO_OP,
                           exposure.ctl_win);
    if (err == MPI_SUCCESS) {
      err = mpi_win_flush_settled(unit, exposure.ctl_win, 0, true);
    });
  return err;
}

static int put_flag(int unit)
{
  static const unsigned char up = 1;
  return MPI_Put(&up, 1, MPI_BYTE, unit, FLAGS_DISP + exposure.me, 1,
                 MPI_BYTE, exposure.ctl_win);
}

/* Raises my flag at every unit that reaches me by RMA; with `everyone`
 * also at my node peers, which keep a mapped portion's size in their
 * caches (model/target.h), and at myself, for my other threads'. */
static int raise_flags(bool everyone)
{
  int err = MPI_SUCCESS;
  mpi_serial_enter();
  if (everyone) {
    __atomic_store_n(&exposure.ctl->changed[exposure.me], 1,
                     __ATOMIC_SEQ_CST);
    int units = team_lookup(DART_TEAM_ALL)->size;
    for (int u = 0; err == MPI_SUCCESS && u < units; ++u) {
      err = u == exposure.me ? MPI_SUCCESS : put_flag(u);
    }
  } else {
    for (int i = 0; err == MPI_SUCCESS && i < exposure.nrma_peers; ++i) {
      err = put_flag(exposure.rma_peers[i]);
    }
  }
  if (err == MPI_SUCCESS) {
    err = MPI_Win_flush_all(exposure.ctl_win);
  }
  mpi_serial_leave();
  return err;
}

/* Segment 0's record of my portion, which my own accesses resolve
 * against. */
static void set_own_size(struct segment *seg, size_t size)
{
  /* Read without the pool's lock by other threads (dart_gptr_setaddr). */
  __atomic_store_n(&seg->my_size, size, __ATOMIC_RELAXED);
  __atomic_store_n(&seg->sizes[exposure.me], size, __ATOMIC_SEQ_CST);
}

/* One refresh at a time: two that read one unit's state at different
 * times must not store its sizes in the other order. Taken after
 * acc_batch.c's lock and before mpi_serial's; never for my own portion,
 * which serving another node's atomics refreshes from inside progress
 * (rma/am_atomics.c), maybe while this thread waits in a refresh. */
static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER;

/* segment_watch.refresh of segment 0: reads `unit`'s exposure, waiting
 * while it changes. */
static bool refresh(struct segment *seg, int unit)
{
  if (exposure.ctl_win == MPI_WIN_NULL) {
    return true;
  }
  unsigned char *flag = &exposure.ctl->changed[unit];
  if (unit == exposure.me) {
    /* My own size is always current; my other threads' entries go. */
    target_forget_all();
    __atomic_store_n(flag, 0, __ATOMIC_SEQ_CST);
    return true;
  }
  pthread_mutex_lock(&refresh_lock);
  /* Counted, every thread's entries dropped, and only then the flag down
   * (segment.h, struct segment_watch); down before the read, so that a
   * change that raises it again from here on is seen by the next
   * access. */
  __atomic_add_fetch(&exposure.watch.refreshing, 1, __ATOMIC_SEQ_CST);
  target_forget_all();
  __atomic_store_n(flag, 0, __ATOMIC_SEQ_CST);
  bool ok = false;
  for (;;) {
    uint64_t state = 0;
    int err = read_state(unit, &state);
    if (err != MPI_SUCCESS) {
      report_mpi_error("dart_put/get", "MPI_Fetch_and_op", err);
      break;
    }
    if (!(state & STATE_CHANGING)) {
      __atomic_store_n(&seg->sizes[unit], (size_t)state, __ATOMIC_RELAXED);
      ok = true;
      break;
    }
    progress_sleep(20000); /* the change takes its grace time */
  }
  __atomic_sub_fetch(&exposure.watch.refreshing, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&refresh_lock);
  return ok;
}

/* --- life cycle ------------------------------------------------------ */

/* Prefix exposure costs Open MPI 4.1's osc/ucx a region lookup per
 * operation on the dynamic window (bench: 8-byte put between simulated
 * nodes 42 against 2 us, core/quirks.h): where no transport pins memory
 * the whole reservation in one window costs nothing and is faster. */
static bool expose_whole(void)
{
  switch (runtime.env.pool_exposure) {
  case POOL_EXPOSE_WHOLE:
    return true;
  case POOL_EXPOSE_PREFIX:
    return false;
  default:
    return mpi_quirks.window_per_segment && !mpi_node_has_rdma_devices();
  }
}

/* The pool's window over the whole reservation, which never changes;
 * what peers may reach of it is still the committed prefix, which the
 * state word tells them. */
static dart_ret_t init_whole(const char *call, struct team *all,
                             size_t reserve)
{
  int err = MPI_Win_create(exposure.base, (MPI_Aint)reserve, 1,
                           MPI_INFO_NULL, all->comm, &exposure.win);
  if (err != MPI_SUCCESS) {
    exposure.win = MPI_WIN_NULL;
    return report_mpi_error(call, "MPI_Win_create", err);
  }
  MPI_Win_set_errhandler(exposure.win, MPI_ERRORS_RETURN);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, exposure.win);
  exposure.whole = true;
  exposure.stats.exposed = reserve;
  return DART_OK;
}

/* The pool's dynamic window with the first `extent` bytes attached. */
static dart_ret_t init_prefix(const char *call, struct team *all,
                              size_t extent)
{
  int err = MPI_Win_create_dynamic(MPI_INFO_NULL, all->comm, &exposure.win);
  if (err != MPI_SUCCESS) {
    exposure.win = MPI_WIN_NULL;
    return report_mpi_error(call, "MPI_Win_create_dynamic", err);
  }
  MPI_Win_set_errhandler(exposure.win, MPI_ERRORS_RETURN);
  err = MPI_Win_lock_all(MPI_MODE_NOCHECK, exposure.win);
  if (err == MPI_SUCCESS) {
    err = MPI_Win_attach(exposure.win, exposure.base, (MPI_Aint)extent);
  }
  if (err != MPI_SUCCESS) {
    MPI_Win_free(&exposure.win);
    return report_mpi_error(call, "MPI_Win_attach", err);
  }
  return DART_OK;
}

dart_ret_t pool_exposure_init(const char *call, struct team *all,
                              char *base, size_t extent, size_t reserve,
                              MPI_Win *win, bool *attached,
                              const struct segment_watch **watch)
{
  *win = MPI_WIN_NULL;
  *attached = false;
  *watch = NULL;
  exposure.base = base;
  exposure.extent = extent;
  exposure.me = all->my_rank;
  exposure.whole = false;
  exposure.stats.exposed = extent;
  if (all->size == 1) {
    return DART_OK; /* nobody to expose anything to */
  }
  /* Every unit must take the same way (the windows are collective), and
   * a node with RDMA devices decides for all. */
  int whole = expose_whole(), all_whole = 0;
  int err = MPI_Allreduce(&whole, &all_whole, 1, MPI_INT, MPI_MIN,
                          all->comm);
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Allreduce", err);
  }
  exposure.rma_peers = malloc((size_t)all->size * sizeof(int));
  if (exposure.rma_peers == NULL) {
    return report_error(DART_ERR_NOMEM, call, "out of memory");
  }
  for (int u = 0; u < all->size; ++u) {
    bool by_load_store = runtime.env.shared_memory_path &&
                         all->node_rank_of[u] >= 0;
    if (u != all->my_rank && !by_load_store) {
      exposure.rma_peers[exposure.nrma_peers++] = u;
    }
  }
  /* A whole number of cache lines: units' blocks may lie side by side in
   * one node-shared allocation, and each unit's state word is written by
   * MPI atomics that want it aligned. */
  MPI_Aint ctl_bytes = (MPI_Aint)((sizeof(struct pool_ctl) +
                                   (size_t)all->size + CACHE_LINE - 1) /
                                  CACHE_LINE * CACHE_LINE);
  err = MPI_Win_allocate(ctl_bytes, 1, MPI_INFO_NULL, all->comm,
                         &exposure.ctl, &exposure.ctl_win);
  if (err != MPI_SUCCESS) {
    exposure.ctl_win = MPI_WIN_NULL;
    return report_mpi_error(call, "MPI_Win_allocate", err);
  }
  MPI_Win_set_errhandler(exposure.ctl_win, MPI_ERRORS_RETURN);
  /* Written before the collective calls below, so before anyone can
   * read it (they read it only after their dart_init returned). */
  memset(exposure.ctl, 0, (size_t)ctl_bytes);
  exposure.ctl->state = extent;
  MPI_Win_lock_all(MPI_MODE_NOCHECK, exposure.ctl_win);
  dart_ret_t ret = all_whole ? init_whole(call, all, reserve)
                             : init_prefix(call, all, extent);
  if (ret != DART_OK) {
    return ret;
  }
  exposure.watch.changed = exposure.ctl->changed;
  exposure.watch.refresh = refresh;
  *win = exposure.win;
  *attached = !exposure.whole;
  *watch = &exposure.watch;
  return DART_OK;
}

dart_ret_t pool_exposure_grow(const char *call, size_t extent)
{
  if (extent <= exposure.extent) {
    return DART_OK;
  }
  struct segment *seg = team_lookup(DART_TEAM_ALL)->segments.local_pool;
  if (exposure.whole) {
    /* The window covers it already: peers that run past the size they
     * know read the new one. */
    exposure.extent = extent;
    set_own_size(seg, extent);
    int err = write_state(extent);
    return err == MPI_SUCCESS
             ? DART_OK
             : report_mpi_error(call, "MPI_Fetch_and_op (pool state)", err);
  }
  long long start = progress_clock_ns();
  if (exposure.win != MPI_WIN_NULL) {
    bool guarded = exposure.nrma_peers > 0;
    int err = MPI_SUCCESS;
    if (guarded) {
      pool_exposure_grace(exposure.extent, &exposure.stats.last_grace);
      err = write_state(exposure.extent | STATE_CHANGING);
      if (err == MPI_SUCCESS) {
        err = raise_flags(false);
      }
      if (err != MPI_SUCCESS) {
        write_state(exposure.extent);
        return report_mpi_error(call, "MPI_Put (pool change flags)", err);
      }
      progress_sleep(exposure.stats.last_grace.total_ns);
      exposure.stats.guarded++;
    }
    MPI_SERIALIZED(
      MPI_Win_detach(exposure.win, exposure.base);
      err = MPI_Win_attach(exposure.win, exposure.base, (MPI_Aint)extent);
      if (err != MPI_SUCCESS) {
        /* The old region at least, so peers keep what they had. */
        MPI_Win_attach(exposure.win, exposure.base,
                       (MPI_Aint)exposure.extent);
      });
    if (err != MPI_SUCCESS) {
      if (guarded) {
        write_state(exposure.extent);
      }
      return report_mpi_error(call, "MPI_Win_attach (local pool)", err);
    }
    exposure.extent = extent;
    /* Also unguarded: node peers read it when an access runs past the
     * size they know. */
    if ((err = write_state(extent)) != MPI_SUCCESS) {
      return report_mpi_error(call, "MPI_Fetch_and_op (pool state)", err);
    }
  }
  exposure.extent = extent;
  set_own_size(seg, extent);
  exposure.stats.exposed = extent;
  exposure.stats.changes++;
  exposure.stats.last_change_ns = progress_clock_ns() - start;
  LOG_DEBUG(call, "local pool exposes %zu bytes (%.3f ms)", extent,
            (double)exposure.stats.last_change_ns / 1e6);
  return DART_OK;
}

bool pool_exposure_shrinks(void)
{
  return exposure.ctl_win != MPI_WIN_NULL;
}

dart_ret_t pool_exposure_shrink(const char *call, size_t extent)
{
  if (!pool_exposure_shrinks() || extent >= exposure.extent) {
    return report_error(DART_ERR_INVAL, call, "the local pool cannot "
                        "shrink its exposure from %zu to %zu bytes",
                        exposure.extent, extent);
  }
  long long start = progress_clock_ns();
  struct segment *seg = team_lookup(DART_TEAM_ALL)->segments.local_pool;
  /* My own accesses that resolve from here on see the new size at once;
   * the ones my threads cached see my flag below. */
  set_own_size(seg, extent);
  /* Every unit may hold my old size: node peers and my threads in their
   * caches, RMA peers in their records. Until the grace time is over, a
   * transfer one of them started before it saw the flag may still run
   * into the part that goes. */
  pool_exposure_grace(exposure.extent, &exposure.stats.last_grace);
  int err = write_state(exposure.extent | STATE_CHANGING);
  if (err == MPI_SUCCESS) {
    err = raise_flags(true);
  }
  if (err != MPI_SUCCESS) {
    /* Nobody was told for sure: the exposure stays as it was (a raised
     * flag only makes its holder read the old size again). */
    set_own_size(seg, exposure.extent);
    write_state(exposure.extent);
    return report_mpi_error(call, "MPI_Put (pool change flags)", err);
  }
  progress_sleep(exposure.stats.last_grace.total_ns);
  if (!exposure.whole) {
    MPI_SERIALIZED(
      MPI_Win_detach(exposure.win, exposure.base);
      err = MPI_Win_attach(exposure.win, exposure.base, (MPI_Aint)extent));
    /* Past the grace time the smaller size is safe whatever the window
     * holds (nobody reaches past it), so it is published all the same:
     * RMA to the rest then fails in MPI with an error, not silently. */
    if (err != MPI_SUCCESS) {
      report_mpi_error(call, "MPI_Win_attach (local pool)", err);
    }
  }
  exposure.extent = extent;
  if ((err = write_state(extent)) != MPI_SUCCESS) {
    /* Peers wait while the state says "changing": log it, and the next
     * change writes it again. */
    report_mpi_error(call, "MPI_Fetch_and_op (pool state)", err);
  }
  if (!exposure.whole) {
    exposure.stats.exposed = extent;
  }
  exposure.stats.changes++;
  exposure.stats.guarded++;
  exposure.stats.shrinks++;
  exposure.stats.last_change_ns = progress_clock_ns() - start;
  LOG_DEBUG(call, "local pool shrank its exposure to %zu bytes (%.3f ms)",
            extent, (double)exposure.stats.last_change_ns / 1e6);
  return DART_OK;
}

void pool_exposure_stats(struct pool_exposure_stats *stats)
{
  *stats = exposure.stats;
  stats->whole = exposure.whole;
}

void pool_exposure_finalize(void)
{
  /* Segment 0 outlives the flags (it goes with DART_TEAM_ALL): what it
   * still sends at its free must not look at them. */
  struct team *all = team_lookup(DART_TEAM_ALL);
  if (all != NULL && all->segments.local_pool != NULL) {
    all->segments.local_pool->watch = NULL;
  }
  if (exposure.ctl_win != MPI_WIN_NULL) {
    MPI_Win_unlock_all(exposure.ctl_win);
    MPI_Win_free(&exposure.ctl_win);
  }
  free(exposure.rma_peers);
  exposure.rma_peers = NULL;
  exposure.nrma_peers = 0;
  exposure.win = MPI_WIN_NULL; /* freed with segment 0 */
  exposure.ctl = NULL;
  memset(&exposure.stats, 0, sizeof exposure.stats);
}
