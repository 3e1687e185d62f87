#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite under
# ctest: scripts/test.sh [openmpi|mpich|asan|tsan|all] (default openmpi).
# tsan runs the tests whose units run threads of their own (ctest label
# threads, cmake/DartTesting.cmake): the only ones where the thread
# sanitizer can see a race in DART.
#
# scripts/test.sh cluster|cluster-openmpi|cluster-mpich|cluster-asan (root
# only) runs the suite and the apps across a virtual cluster of 2 hosts in
# Linux namespaces (scripts/cluster.sh): each build (build/cluster-<variant>,
# with -DDART_TEST_CLUSTER=ON) launches every test through that cluster, 2
# units as 1 per host and 4 as 2 per host. "cluster" is both MPIs;
# cluster-asan is Open MPI with the sanitizers. The cluster is private to
# this run and removed at its end, whatever happens. --one-per-host after
# a cluster variant runs only the runs with at most one unit per host
# (ctest label one-per-host). cluster-mpich42 is cluster-mpich built and
# run inside a Debian 13 root file system (scripts/sysroot.sh, made on
# first use) against its MPICH 4.2: Debian 12's MPICH 4.0 can hang in
# MPI_Finalize when a host runs more than one unit (README, known
# problems), 4.2 does not.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

usage() {
  cat <<USAGE
usage: scripts/test.sh [openmpi|mpich|asan|tsan|all|cluster|cluster-openmpi|
                       cluster-mpich|cluster-mpich42|cluster-asan
                       [--one-per-host]]
  Installs the Debian packages that are missing, builds into
  build/<variant> with warnings as errors, and runs the whole suite under
  ctest (1 to 4 units, one node and two simulated nodes).
  openmpi          the default
  mpich            against MPICH (two-node runs as MPICH cliques)
  asan             address + undefined-behaviour sanitizer build
  tsan             thread sanitizer build (Open MPI), the tests whose units
                   run threads (ctest -L threads); any data race, lock
                   order inversion or misused mutex fails the test
                   (cmake/tsan.supp: what inside MPI and UCX is ignored)
  all              openmpi, mpich, asan and tsan in turn
  cluster-openmpi  across 2 hosts of a virtual cluster (root only)
  cluster-mpich    the same with MPICH; cluster: both
  cluster-mpich42  the same with Debian 13's MPICH 4.2, built and run in a
                   Debian 13 root (build/sysroot-debian13, scripts/sysroot.sh)
  cluster-asan     across the virtual cluster, Open MPI, with the sanitizers
  --one-per-host   after a cluster variant: only the runs with at most one
                   unit per host (ctest -L one-per-host)
  -h, --help       this text
USAGE
}

# Checked before anything is installed or built.
ctest_filter=()
if (($# == 2)) && [ "$2" = --one-per-host ]; then
  case "$1" in
    cluster|cluster-openmpi|cluster-mpich|cluster-mpich42|cluster-asan) ;;
    *) echo "test.sh: --one-per-host goes with a cluster variant" >&2
       usage >&2; exit 2 ;;
  esac
  ctest_filter=(-L one-per-host)
  set -- "$1"
fi
(($# <= 1)) || { echo "test.sh: one variant at most" >&2; usage >&2; exit 2; }
case "${1:-}" in
  ""|openmpi|mpich|asan|tsan|all|cluster|cluster-openmpi|cluster-mpich|\
  cluster-mpich42|cluster-asan) ;;
  -h|--help) usage; exit 0 ;;
  *) echo "test.sh: unknown variant or option '$1'" >&2; usage >&2; exit 2 ;;
esac
"$root/scripts/install-deps.sh"
source "$root/scripts/env.sh"

# MPI libraries keep allocations past MPI_Finalize; LeakSanitizer would
# flag them. Memory errors and undefined behaviour still fail.
sanitizer_options="detect_leaks=0:abort_on_error=1"

# run_cluster VARIANT... (openmpi, mpich, asan; or mpich42 alone: MPICH
# built and run inside the Debian 13 root, whose MPICH 4.2 the nodes run
# too, cluster.sh up --root).
run_cluster() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "test.sh: the cluster variants need root (namespaces)" >&2
    exit 2
  fi
  local sysroot="" in_root=()
  if [ "$1" = mpich42 ]; then
    sysroot="$root/build/sysroot-debian13"
    "$root/scripts/sysroot.sh" make "$sysroot"
    in_root=("$root/scripts/sysroot.sh" run "$sysroot" --)
  fi
  export VCLUSTER_DIR="/run/dart-cluster-test.$$"
  trap '"$root/scripts/cluster.sh" down >/dev/null || true' EXIT
  "$root/scripts/cluster.sh" up 2 ${sysroot:+--root "$sysroot"}
  cd "$root" # sysroot.sh run works in the checkout only
  local variant status=0 build_args
  for variant in "$@"; do
    if [ "$variant" = asan ]; then
      export ASAN_OPTIONS="$sanitizer_options" # cluster.sh passes it on
    fi
    build_args=(--cluster "$variant")
    if [ "$variant" = mpich42 ]; then
      build_args=(--cluster --name cluster-mpich42 mpich)
    fi
    echo "=== cluster-$variant: build${sysroot:+ in $sysroot}"
    "${in_root[@]}" "$root/scripts/build.sh" "${build_args[@]}"
    echo "=== cluster-$variant: ctest across 2 hosts"
    "${in_root[@]}" ctest --test-dir "$root/build/cluster-$variant" \
          --output-on-failure --timeout 300 -j 2 --no-tests=error \
          "${ctest_filter[@]}" || status=1
  done
  "$root/scripts/cluster.sh" down
  trap - EXIT
  return $status
}

case "${1:-}" in
  cluster) run_cluster openmpi mpich; exit ;;
  cluster-openmpi|cluster-mpich|cluster-mpich42|cluster-asan)
    run_cluster "${1#cluster-}"
    exit ;;
esac

variants=("${1:-openmpi}")
if [ "${1:-}" = all ]; then
  variants=(openmpi mpich asan tsan)
fi
for variant in "${variants[@]}"; do
  echo "=== $variant: build"
  "$root/scripts/build.sh" "$variant"
  if [ "$variant" = openmpi ]; then cmake --build "$root/build/openmpi" --target docs; fi
  echo "=== $variant: ctest"
  if [ "$variant" = asan ]; then
    export ASAN_OPTIONS="$sanitizer_options"
  fi
  labels=()
  if [ "$variant" = tsan ]; then
    labels=(-L threads)
  fi
  ctest --test-dir "$root/build/$variant" --output-on-failure \
        --timeout 300 -j 2 --no-tests=error "${labels[@]}"
done
