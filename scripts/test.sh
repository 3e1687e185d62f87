#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite under
# ctest: scripts/test.sh [openmpi|mpich|asan|all] (default openmpi).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
source "$root/scripts/env.sh"
variants=("${1:-openmpi}")
if [ "${1:-}" = all ]; then
  variants=(openmpi mpich asan)
fi
for variant in "${variants[@]}"; do
  echo "=== $variant: build"
  "$root/scripts/build.sh" "$variant"
  echo "=== $variant: ctest"
  if [ "$variant" = asan ]; then
    # MPI libraries keep allocations past MPI_Finalize; LeakSanitizer
    # would flag them. Memory errors and undefined behaviour still fail.
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
  fi
  ctest --test-dir "$root/build/$variant" --output-on-failure \
        --timeout 300 -j 2
done
