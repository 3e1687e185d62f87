#!/usr/bin/env bash
# Configures and builds one variant into build/<variant>:
#   openmpi (default) | mpich | asan (Open MPI, address+undefined sanitizers)
# Warnings are errors in every variant.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
variant="${1:-openmpi}"
case "$variant" in
  openmpi) flags=(-DDART_MPI_FLAVOUR=openmpi) ;;
  mpich)   flags=(-DDART_MPI_FLAVOUR=mpich) ;;
  asan)    flags=(-DDART_MPI_FLAVOUR=openmpi -DDART_SANITIZE=ON
                  -DCMAKE_BUILD_TYPE=Debug) ;;
  *) echo "usage: $0 [openmpi|mpich|asan]" >&2; exit 2 ;;
esac
build="$root/build/$variant"
cmake -S "$root" -B "$build" -DDART_WERROR=ON "${flags[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)"
