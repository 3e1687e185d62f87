#!/usr/bin/env bash
# Configures and builds one variant into build/<variant>:
#   openmpi (default) | mpich | asan (Open MPI, address+undefined sanitizers)
#   | tsan (Open MPI, thread sanitizer)
# or, with --cluster, into build/cluster-<variant> with its tests launched
# across the virtual cluster (-DDART_TEST_CLUSTER=ON; scripts/test.sh's
# cluster variants). Warnings are errors in every variant.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

usage() {
  cat <<USAGE
usage: scripts/build.sh [--cluster] [--name DIR] [openmpi|mpich|asan|tsan]
  Configures and builds one variant into build/<variant> with warnings as
  errors (-DDART_WERROR=ON):
  openmpi  the default: against Open MPI
  mpich    against MPICH
  asan     Open MPI, Debug, address + undefined-behaviour sanitizers
  tsan     Open MPI, thread sanitizer (-O1); not with --cluster
  --cluster   into build/cluster-<variant> instead, its tests launched
              across the virtual cluster of scripts/cluster.sh
  --name DIR  into build/DIR instead (scripts/test.sh cluster-mpich42)
  -h, --help  this text
Source scripts/env.sh first when you run the tests as root.
USAGE
}

cluster=0 name=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cluster) cluster=1; shift ;;
    --name) [ $# -ge 2 ] && [[ "$2" =~ ^[A-Za-z0-9._-]+$ ]] ||
              { echo "build.sh: --name needs a directory name" >&2; exit 2; }
            name="$2"; shift 2 ;;
    *) break ;;
  esac
done
(($# <= 1)) || { echo "build.sh: one variant at most" >&2; usage >&2; exit 2; }
variant="${1:-openmpi}"
case "$variant" in
  openmpi) flags=(-DDART_MPI_FLAVOUR=openmpi) ;;
  mpich)   flags=(-DDART_MPI_FLAVOUR=mpich) ;;
  asan)    flags=(-DDART_MPI_FLAVOUR=openmpi -DDART_SANITIZE=ON
                  -DCMAKE_BUILD_TYPE=Debug) ;;
  tsan)    flags=(-DDART_MPI_FLAVOUR=openmpi -DDART_SANITIZE=thread
                  -DCMAKE_BUILD_TYPE=Debug) ;;
  -h|--help) usage; exit 0 ;;
  *) echo "build.sh: unknown variant or option '$variant'" >&2; usage >&2
     exit 2 ;;
esac
build="$root/build/$variant"
if ((cluster)) && [ "$variant" = tsan ]; then
  # The cluster's launcher passes on ASan's settings only (cluster.sh).
  echo "build.sh: tsan has no cluster variant" >&2
  exit 2
fi
if ((cluster)); then
  build="$root/build/cluster-$variant"
  flags+=(-DDART_TEST_CLUSTER=ON)
fi
[ -z "$name" ] || build="$root/build/$name"
cmake -S "$root" -B "$build" -DDART_WERROR=ON -DDART_WITH_HDF5=ON "${flags[@]}" \
  >/dev/null
cmake --build "$build" -j "$(nproc)"
