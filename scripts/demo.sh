#!/usr/bin/env bash
# Installs what is missing, builds (Open MPI), and runs the demo apps on
# this machine: scripts/demo.sh [units] (default 4).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

usage() {
  cat <<USAGE
usage: scripts/demo.sh [UNITS]
  Installs the Debian packages that are missing (scripts/install-deps.sh),
  builds with Open MPI into build/openmpi, and runs on UNITS units
  (default 4): the team demo, RandomAccess (2^18 words per unit) and the
  256 x 256 stencil checked against a serial solve; then the collectives
  benchmark on 2 units.
  -h, --help  this text
USAGE
}

case "${1:-}" in
  -h|--help) usage; exit 0 ;;
esac
if (($# > 1)) || { (($# == 1)) && ! [[ "$1" =~ ^[1-9][0-9]*$ ]]; }; then
  echo "demo.sh: expected a number of units, got '$*'" >&2
  usage >&2
  exit 2
fi
units="${1:-4}"
"$root/scripts/install-deps.sh"
source "$root/scripts/env.sh"
"$root/scripts/build.sh" openmpi >/dev/null
build="$root/build/openmpi"
echo "=== team-demo on $units units"
mpiexec.openmpi -n "$units" "$build/apps/team-demo/team-demo"
echo
echo "=== random-access (HPCC RandomAccess, 2^18 words per unit) on $units units"
mpiexec.openmpi -n "$units" "$build/apps/random-access/random-access" -k 18
echo
echo "=== stencil (256 x 256 Poisson, red-black Gauss-Seidel, checked against a serial solve) on $units units"
mpiexec.openmpi -n "$units" "$build/apps/stencil/stencil" -n 256 --verify
echo
echo "=== bench-collectives on 2 units (DART vs plain MPI)"
mpiexec.openmpi -n 2 --bind-to core "$build/benchmarks/bench-collectives"
