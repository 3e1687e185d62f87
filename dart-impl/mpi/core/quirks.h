/* What DART does differently for the MPI library and one-sided component
 * it runs on, decided once at dart_init (mpi_quirks_detect) from the
 * library's version string and a probe window, whoever started MPI. Each
 * quirk names the plain-MPI test in dart-impl/test that shows it is still
 * there (quirk_*.c, expected to fail while the bug lives).
 *
 * The quirks of Open MPI 4.1's one-sided components:
 * - osc/rdma (the default when an application starts MPI on one host):
 *   through the shared-memory transport it crashes the target of a
 *   contended MPI_Compare_and_swap (ompi #11349, quirk_ompi_rdma_cas.c)
 *   and computes unsigned MIN and MAX and the logical operations wrong
 *   (test_app_mpi_atomics.c: the unsigned minimum of 5 and 2^63 came out
 *   2^63, LOR of 0 and 1 came out 0); the other operations are exact,
 *   contended too. Those atomics, when they would go through MPI, return
 *   DART_ERR_OTHER with a log line naming the fix (mpi_atomic_works,
 *   mpi_cas_works); atomics on node-shared memory use the CPU and work.
 * - osc/pt2pt: MPI_Win_flush_local on the calling process itself never
 *   returns after an MPI_Get from itself while a get from another process
 *   is outstanding (quirk_ompi_pt2pt_flush_local.c; test_onesided hung).
 *   MPI_Win_flush, which completes more, does: mpi_win_flush_local,
 *   for every target. Keeping MPI_Win_flush_local for the others (it
 *   would save a round trip: fetch-and-op + local flush across hosts 43
 *   against MPI's 16 us) hangs too: test_onesided_xfer, _types and
 *   test_fuzz_rma under osc-pt2pt at 4 units timed out with it. A
 *   fetch-and-op completes by the request of an MPI_Rget_accumulate
 *   instead, one round trip (rma/atomics.c, fetch_and_op_complete);
 *   MPI_Compare_and_swap has no request form and keeps the flush.
 *   osc/pt2pt also refuses windows at MPI_THREAD_MULTIPLE: dart_init
 *   fails with one line saying so.
 *
 * The quirks of Open MPI's osc/ucx, which serves DART's windows unless
 * the application chose otherwise or osc/pt2pt serves a job across hosts
 * (mpi_quirks_before_init). Seen on 4.1;
 * the upstream fixes named below are in 5.0, which no test here runs, so
 * they stay on for every Open MPI (they cost speed, never correctness):
 * - UCX has 4- and 8-byte atomics only, and osc/ucx 4.1 hands
 *   MPI_Fetch_and_op (NO_OP, REPLACE, SUM) and MPI_Compare_and_swap
 *   straight to them: 1-, 2- and 16-byte types fail silently (no update,
 *   garbage result) and FLOAT/DOUBLE sums add bit patterns (ompi #6777;
 *   fixed for 5.0 by ompi PR #9636). mpi_fetch_and_op_works says when
 *   MPI_Get_accumulate must serve instead; narrow_atomics_broken sends 1-
 *   and 2-byte compare-and-swaps through their aligned 4-byte word
 *   (quirk_ompi_ucx_narrow_atomics.c).
 * - MPI_Get_accumulate with MPI_REPLACE reads the old value and writes
 *   the new one as two transfers with nothing ordering them, so the read
 *   can come second and return the new value (fixed for 5.0 by ompi PR
 *   #10404, "fix the get/put race condition in get_accumulate"; the other
 *   operations flush in between). Seen as test_fuzz_rma.u4.n2 failing:
 *   a 1-byte dart_fetch_and_op REPLACE returned its own operand as the
 *   old value, in CI and once in about 50 runs here with a second run
 *   beside it (none in 400 such runs since).
 *   get_accumulate_replace_races sends a 1- or 2-byte fetch-and-replace
 *   through the 4-byte word like a compare-and-swap
 *   (rma/atomics.c, narrow_replace_by_swap) and makes a 16-byte
 *   LONG_DOUBLE one an MPI_MAX or MPI_MIN that writes the operand
 *   (rma/atomics.c, minmax_replace). Plain MPI programs
 *   with up to 4 processes and 100 000 calls did not show the race, so
 *   it has no quirk_*.c of its own.
 * - MPI_Rput/MPI_Rget on a dynamic window look up the wrong region and
 *   fail or crash (ompi #10328; fixed in 5.0 by ompi PR #11095):
 *   request_rma_broken makes handles track plain MPI_Put/MPI_Get
 *   (quirk_ompi_ucx_rget_dynamic.c).
 * - A dynamic window costs osc/ucx a region lookup per operation (8-byte
 *   put/get across hosts 188 against 92 us, bench-latency) and its region
 *   array breaks once regions come and go (ompi #6987) and processes hold
 *   different numbers of them (non-uniform attach works from 5.0 on, ompi
 *   PR #10591; quirk_ompi_ucx_dynamic_regions.c):
 *   window_per_segment gives every segment an MPI_Win_create window, and
 *   the local pool attaches one region per unit to a window of its own on
 *   either MPI (memory/pool_exposure.c).
 *   Elsewhere all portions of a team are attached to the team's dynamic
 *   window: MPICH 4.0.2 mixes up MPI_Win_create windows whose memory
 *   overlaps, which registered user memory may (the same buffer in two
 *   teams), and rounds a window's base down to 16 bytes
 *   (quirk_mpich_win_create.c); its dynamic window attaches without
 *   registering and over TCP is also faster (8 B: 15 against 25 us).
 * - Every MPI_Accumulate is lock, get, compute, put, unlock at the target
 *   (single-element accumulates become UCX atomics only in 5.0, ompi PR
 *   #6980): accumulate_by_fetch sends a one-element SUM or REPLACE of a
 *   4- or 8-byte integer as MPI_Fetch_and_op (one UCX atomic).
 * - Concurrent RMA from several threads of one process hangs or corrupts
 *   data under osc/ucx 4.1: core/serialize.h serializes those calls
 *   (test_threads_stress.c shows the need).
 *
 * MPICH before 4.2 with the ch4:ucx device, across hosts over UCX's TCP
 * transport: MPI_Finalize hangs in some runs (one unit spinning in
 * ucp_worker_progress, the others in the PMI barrier; plain MPI programs
 * too, scripts/mpich-finalize.sh measures it). UCX 1.13 marks a TCP
 * endpoint after every short or buffered message, and flushing a marked
 * endpoint sends an empty put the peer must acknowledge. MPICH's finalize
 * flushes and closes every endpoint, progresses until its own closes are
 * done and then waits in the PMI barrier without progressing UCX: a unit
 * whose flush needs a peer that is already waiting there never finishes
 * (pmodels/mpich PR #6596 removed that barrier; openucx/ucx #8738 is the
 * same shape). quiet_before_finalize: before MPI_Finalize,
 * mpi_quirks_before_finalize has every pair of units exchange a
 * message, meets in a barrier and then makes no MPI call for a while, so
 * that no unit acknowledges a peer's finalize flush before sending its
 * own. dart_exit runs it when DART finalizes MPI; when the application
 * does, its MPI_Finalize runs it (mpi_quirks_before_user_finalize).
 * test_init and test_onesided_types, 4 units on 2 hosts: 14 and 10
 * of 30 runs hung before, none of 60 each with it; test_init_borrowed_mpi
 * and test_app_mpi_atomics (the application finalizes): 6 of 20 and 6 of
 * 15 before, none of 40 and 15 with it; the plain program of
 * scripts/mpich-finalize.sh still hung in 2 of 70 runs with the same
 * order, and in 4 of 26 on a busier machine (variant quiet; about half
 * without), so it narrows the race and does not close it. MPICH 4.2
 * (Debian 13) has the fix: the plain program hung in none of 80 runs
 * there (mpich-finalize.sh --root), and scripts/test.sh cluster-mpich42
 * runs the suite against it with 2 units per host.
 *
 * MPICH 4.0 spins in its blocking RMA completions (MPI_Win_flush,
 * MPI_Win_flush_local, MPI_Wait) without ever yielding the core, and on
 * DART's dynamic windows its RMA is served by the target's progress
 * engine, inside node and across. With more units than cores a blocking
 * get then waits until the scheduler happens to run the target, a
 * timeslice or more: test_team_sync.noshm at 4 units on 2 cores took 80 s
 * against 0.7 s under Open MPI, which yields when idle. MPICH's
 * MPIR_CVAR_POLLS_BEFORE_YIELD is read by ch3 only. rma_waits_spin,
 * where a host runs more units than CPUs (mpi_rma_waits_yield): blocking
 * gets complete through MPI_Rget and progress_wait_yielding
 * (core/progress.h), and a flush of a known target first waits the same
 * way for a one-byte read of it (mpi_win_flush_settled), so that the
 * flush finds the target's acknowledgements on their way. The 148
 * MPICH tests with 3 or 4 units on 2 cores across 2 cliques or without
 * shared memory took 828 s before, 404 s with it. No quirk_*.c: what
 * the bug costs is time, never a result. The blocking calls DART cannot
 * replace spin as well: MPI_Win_allocate_shared took 51 ms at 3 units on
 * 2 cores (MPI_Win_create_dynamic 19 ms, MPI_Comm_split_type 51 ms,
 * MPI_Comm_split 16 ms, MPI_Comm_create_group 8 ms, a polled
 * MPI_Comm_idup 2 ms). Under the same condition node-shared memory comes
 * from DART's own files (memory/node_shm.c), and teams avoid the splits
 * (model/team.c).
 *
 * MPICH 4.0 with the ch4:ucx device moves RMA on dynamic windows (all of
 * DART's windows under MPICH) as active messages, and one message of
 * more than about 64 KiB goes much slower than the same bytes in 32 KiB
 * pieces issued together: over UCX's TCP transport between two hosts of
 * scripts/cluster.sh, a 1 MiB MPI_Put and flush took 1220-1535 us whole
 * against 351-433 us in pieces, a 1 MiB get 961-1329 against 326-425,
 * and MPI_Win_allocate's 733-1067 and 678-1072 (plain-MPI probe, median
 * of 11). No UCX or MPICH setting helped (UCX_RNDV_THRESH,
 * MPIR_CVAR_CH4_AM_PACK_BUFFER_SIZE). Under Open MPI's osc/ucx pieces
 * are slower (1 MiB put 1.1 ms whole, 5.1-5.3 ms in 16 KiB pieces), and
 * over RDMA the large message is served by zero-copy rendezvous, which
 * pieces would defeat. rma_piece_bytes, set by DART_RMA_PIECE_KIB or
 * else 32 KiB under MPICH's ch4:ucx on a node without RDMA devices and
 * 0 elsewhere: contiguous transfers through MPI of more than two pieces
 * go as pieces of that many bytes (rma/onesided.c, transfer_in_pieces).
 * No quirk_*.c: what it costs is time, never a result; bench-latency's
 * 1 MiB rows across hosts show it.
 *
 * Both libraries: MPI_MIN and MPI_MAX compare unsigned types as signed
 * (MPICH 4.0.2 every unsigned type, pmodels/mpich #6083, fixed by its PR
 * #6085; Open MPI 4.1.4 MPI_UNSIGNED_LONG, ompi #10525, fixed by ompi PR
 * #10527 but not in 4.1.x). A probe with MPI_Reduce_local at dart_init
 * finds for each unsigned type a same-width MPI type that orders right,
 * or none (mpi_minmax_type); reductions and MPI atomics use it, or compute
 * MIN/MAX themselves (quirk_unsigned_minmax.c). */
#ifndef DART_MPI_MPI_QUIRKS_H
#define DART_MPI_MPI_QUIRKS_H

#include "base/basic_types.h"
#include "mpi/core/runtime.h"

#include <dash/dart/if/dart_types.h>

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

struct mpi_quirks {
  bool flush_local_is_flush; /* osc/pt2pt */
  bool atomics_partly_wrong; /* osc/rdma */
  bool narrow_atomics_broken; /* Open MPI 4.1: see above */
  bool get_accumulate_replace_races; /* Open MPI 4.1: see above */
  bool request_rma_broken;
  bool window_per_segment;
  bool accumulate_by_fetch;
  bool quiet_before_finalize; /* MPICH < 4.2, ch4:ucx: see above */
  bool rma_waits_spin; /* MPICH: see above */
  size_t rma_piece_bytes; /* MPICH ch4:ucx without RDMA: see above; 0 =
                             whole transfers */
};
extern struct mpi_quirks mpi_quirks;

/* Whether this node has RDMA devices, whose transports register (pin)
 * window memory and move large messages by zero-copy rendezvous. */
bool mpi_node_has_rdma_devices(void);

/* Whether MPI_Compare_and_swap can be used. */
static inline bool mpi_cas_works(void)
{
  return !mpi_quirks.atomics_partly_wrong;
}

/* Whether MPI's accumulates and fetch-and-ops of `op` on `dtype` are
 * exact. */
bool mpi_atomic_works(dart_operation_t op, dart_datatype_t dtype);

/* Whether the one-sided calls of several threads must take turns
 * (core/serialize.h): Open MPI before 5 at MPI_THREAD_MULTIPLE. Asked at
 * run time: the shared library may be newer than the headers. */
bool mpi_quirks_serialize_rma(int thread_level);

/* Before MPI_Init, when DART starts MPI at thread level `requested`:
 * under Open MPI, chooses the one-sided components DART's windows work
 * best with unless the environment already chose: sm for shared windows,
 * and for the rest pt2pt where Open MPI 4's launcher spread the job over
 * hosts without RDMA devices and `requested` is below
 * MPI_THREAD_MULTIPLE, else ucx. */
void mpi_quirks_before_init(int requested);

/* Before DART's own MPI_Finalize: the teardown quiet_before_finalize
 * asks for (collective over MPI_COMM_WORLD; nothing elsewhere). */
void mpi_quirks_before_finalize(void);

/* At dart_exit when the application started MPI (collective like
 * dart_exit): the same teardown is run by the application's own
 * MPI_Finalize, through a delete callback of an attribute on
 * MPI_COMM_SELF. Nothing where quiet_before_finalize is off. */
void mpi_quirks_before_user_finalize(void);

/* Whether MPI_Fetch_and_op of `op` on basic `dtype` computes the right
 * result (else MPI_Get_accumulate must serve). */
static inline bool mpi_fetch_and_op_works(dart_datatype_t dtype,
                                          dart_operation_t op)
{
  if (!mpi_quirks.narrow_atomics_broken) {
    return true;
  }
  size_t bytes = basic_type_size(dtype);
  bool floating = basic_type_class(dtype) == BASIC_FLOAT;
  return (bytes == 4 || bytes == 8) && !(floating && op == DART_OP_SUM);
}

/* The MPI datatype whose MPI_MIN and MPI_MAX order basic `type` right:
 * its own for signed and floating types, for an unsigned type the first
 * same-width type the probe found correct, or MPI_DATATYPE_NULL when none
 * is (then DART computes MIN and MAX itself). Valid after
 * mpi_quirks_detect. */
MPI_Datatype mpi_minmax_type(dart_datatype_t type);

/* Collective over `world`: probes the library, sets mpi_quirks. Fails
 * (one log line) when MPI cannot create a window at all, since nothing of
 * DART's memory could be reached then. */
dart_ret_t mpi_quirks_detect(const char *call, MPI_Comm world);

/* Whether RMA waits must yield the core themselves: MPI's do not
 * (rma_waits_spin) and this host runs more units than CPUs. Elsewhere
 * the yielding forms cost time and win nothing: 8-byte put and get
 * between simulated nodes under MPICH took 3.1-3.7 us instead of
 * 1.5-1.7, atomics 6.7-7.1 us instead of 1.8-2.1 (bench-latency). */
static inline bool mpi_rma_waits_yield(void)
{
  return mpi_quirks.rma_waits_spin && runtime.oversubscribed;
}

/* For mpi_win_flush_settled: no byte of the target is known. */
#define MPI_NO_PROBE ((MPI_Aint)-1)

/* MPI_Win_flush of `unit` (`remote`) or mpi_win_flush_local, where RMA
 * waits must yield (mpi_rma_waits_yield) preceded by a one-byte
 * MPI_Rget_accumulate with MPI_NO_OP from displacement `probe` of `unit`
 * (a byte of its memory in `win`, or MPI_NO_PROBE), completed by
 * progress_wait_yielding: the target serves this origin's operations in
 * order, so once the probe is back the flush finds little or nothing
 * left to wait for. An accumulate rather than a get: it cannot conflict
 * with atomics of other units on the same byte. */
int mpi_win_flush_settled(int unit, MPI_Win win, MPI_Aint probe,
                          bool remote);

/* MPI_Win_flush_local, or MPI_Win_flush where the former hangs. */
static inline int mpi_win_flush_local(int unit, MPI_Win win)
{
  return mpi_quirks.flush_local_is_flush ? MPI_Win_flush(unit, win)
                                         : MPI_Win_flush_local(unit, win);
}

#endif
