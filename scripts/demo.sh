#!/usr/bin/env bash
# Installs what is missing, builds (Open MPI), and runs the demo apps on
# this machine: scripts/demo.sh [units] (default 4).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
units="${1:-4}"
"$root/scripts/install-deps.sh"
source "$root/scripts/env.sh"
"$root/scripts/build.sh" openmpi >/dev/null
build="$root/build/openmpi"
echo "=== team-demo on $units units"
mpiexec.openmpi -n "$units" "$build/apps/team-demo/team-demo"
echo
echo "=== bench-collectives on 2 units (DART vs plain MPI)"
mpiexec.openmpi -n 2 --bind-to core "$build/benchmarks/bench-collectives"
