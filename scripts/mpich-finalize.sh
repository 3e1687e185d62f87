#!/usr/bin/env bash
# Measures how often MPICH's MPI_Finalize hangs across the hosts of the
# virtual cluster (README "Other known problems"), with a plain MPI program
# and no DART: scripts/mpich-finalize.sh [-n RUNS] [-u UNITS] [-t SECONDS]
# [VARIANT]. Root only; the cluster (2 hosts) is private to this run.
#
# Why it hangs (Debian 12: MPICH 4.0.2 ch4:ucx, UCX 1.13.1): UCX's TCP
# transport marks an endpoint after every short or buffered active message,
# and flushing such an endpoint sends an empty put that the peer must
# acknowledge. MPICH 4.0.2's finalize closes (flushes) every endpoint,
# progresses only until its own closes are done, then waits in the PMI
# barrier, where nothing progresses UCX any more. A unit whose close needs
# an acknowledgement from a peer that already sits in that barrier spins in
# ucp_worker_progress forever. pmodels/mpich PR #6596 removed that barrier.
#
# UCX_* and MPIR_CVAR_* variables of the environment reach every unit, so
# a setting is measured as e.g. "UCX_TCP_PUT_ENABLE=n scripts/mpich-finalize.sh".
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

usage() {
  cat <<USAGE
usage: scripts/mpich-finalize.sh [-n RUNS] [-u UNITS] [-t SECONDS]
                                 [--root DIR] [VARIANT]
  Runs a plain MPI program RUNS times (default 30) with UNITS units
  (default 4: 2 per host) across 2 hosts of a private virtual cluster with
  MPICH, and counts the runs that did not end within SECONDS (default 10;
  a normal run takes well under one). VARIANT is what the program does
  before MPI_Finalize:
    none     a barrier only
    window   one-sided: MPI_Win_allocate, a put to the next unit, flush,
             a barrier, MPI_Win_free (the default)
    pairs    window, then every pair of units exchanges a message
    quiet    pairs, a barrier, then 100 ms without any MPI call (the
             best order found: it lowers the rate, it does not remove it)
  UCX_* and MPIR_CVAR_* variables of the environment reach every unit.
  Root only (the cluster lives in Linux namespaces).
  --root DIR  build and run the program in the root file system DIR and
              its MPICH (scripts/sysroot.sh make DIR: Debian 13, MPICH 4.2)
  -h, --help  this text
USAGE
}

runs=30 units=4 limit=10 variant=window sysroot=""
while (($#)); do
  case "$1" in
    --root) (($# >= 2)) || { echo "mpich-finalize.sh: --root needs a directory" >&2; exit 2; }
            sysroot="$(cd "$2" 2>/dev/null && pwd)" ||
              { echo "mpich-finalize.sh: no directory '$2'" >&2; exit 2; }
            shift 2 ;;
    -n|-u|-t)
      if (($# < 2)) || ! [[ "$2" =~ ^[1-9][0-9]*$ ]]; then
        echo "mpich-finalize.sh: $1 needs a positive number" >&2
        exit 2
      fi
      case "$1" in -n) runs="$2" ;; -u) units="$2" ;; -t) limit="$2" ;; esac
      shift 2 ;;
    -h|--help) usage; exit 0 ;;
    none|window|pairs|quiet) variant="$1"; shift ;;
    *) echo "mpich-finalize.sh: unknown variant or option '$1'" >&2
       usage >&2; exit 2 ;;
  esac
done
if [ "$(id -u)" -ne 0 ]; then
  echo "mpich-finalize.sh: the cluster needs root (namespaces)" >&2
  exit 2
fi
[ -n "$sysroot" ] || command -v mpicc.mpich >/dev/null ||
  { echo "mpich-finalize.sh: mpicc.mpich not found (apt-get install libmpich-dev)" >&2; exit 2; }

out="$root/build/mpich-finalize"
mkdir -p "$out"
cat > "$out/finalize.c" <<'PROGRAM'
/* Written by scripts/mpich-finalize.sh: the variant in argv[1], then
 * MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Every unit sends one int to every other and receives one from each. */
static void exchange_with_all(int me, int n)
{
  for (int d = 1; d < n; ++d) {
    int to = (me + d) % n, from = (me - d + n) % n, out = me, in;
    MPI_Sendrecv(&out, 1, MPI_INT, to, 1, &in, 1, MPI_INT, from, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int me, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const char *variant = argc > 1 ? argv[1] : "window";
  if (strcmp(variant, "none") != 0) {
    long *base, value = me;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)sizeof(long) * n, sizeof(long),
                     MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_lock_all(0, win);
    MPI_Put(&value, 1, MPI_LONG, (me + 1) % n, me, 1, MPI_LONG, win);
    MPI_Win_flush_all(win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
  }
  if (strcmp(variant, "pairs") == 0 || strcmp(variant, "quiet") == 0) {
    exchange_with_all(me, n);
  }
  if (strcmp(variant, "none") == 0 || strcmp(variant, "quiet") == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (strcmp(variant, "quiet") == 0) {
    /* A unit that still progresses MPI when a peer's finalize flushes
     * reach it acknowledges them before it sends its own; the peer may
     * then be gone when those come. A pause without MPI calls keeps
     * every unit quiet until all are in MPI_Finalize. */
    struct timespec pause = { 0, 100 * 1000 * 1000 };
    nanosleep(&pause, NULL);
  }
  MPI_Finalize();
  return 0;
}
PROGRAM
# With --root, the root's own compiler and MPICH.
in_root=()
[ -z "$sysroot" ] || in_root=("$root/scripts/sysroot.sh" run "$sysroot" --)
(cd "$root" && "${in_root[@]}" mpicc.mpich -O2 -Wall -Wextra -Werror \
   -o "$out/finalize" "$out/finalize.c")

export VCLUSTER_DIR="/run/dart-cluster-finalize.$$"
trap '"$root/scripts/cluster.sh" down >/dev/null || true' EXIT
"$root/scripts/cluster.sh" up 2 ${sysroot:+--root "$sysroot"} >/dev/null
hangs=0 failed=0
for ((i = 1; i <= runs; ++i)); do
  rc=0
  "$root/scripts/cluster.sh" run --mpi mpich --timeout "$limit" \
    --no-backtraces -- -n "$units" "$out/finalize" "$variant" \
    >"$out/last.log" 2>&1 || rc=$?
  case $rc in
    0) ;;
    124) hangs=$((hangs + 1)) ;;
    *) failed=$((failed + 1))
       echo "run $i failed (exit $rc):" >&2; tail -n 5 "$out/last.log" >&2 ;;
  esac
done
echo "mpich-finalize: $variant, $units units on 2 hosts: $hangs of $runs" \
     "runs hung in MPI_Finalize, $failed failed otherwise"
