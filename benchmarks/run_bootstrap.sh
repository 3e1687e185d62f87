#!/usr/bin/env bash
# Benchmark 9b: dart_init + dart_exit time and per-node bootstrap work,
# node-roots vs naive, at 2..32 units on 1, 2 and 4 simulated nodes.
#   benchmarks/run_bootstrap.sh [openmpi|mpich] [max-units] [reps]
# Units are oversubscribed on small machines: counts are exact, times
# only indicative there.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
flavour="${1:-openmpi}"
max_units="${2:-32}"
reps="${3:-5}"
bench="$root/build/$flavour/benchmarks/bench-bootstrap"
[ -x "$bench" ] || { echo "build $bench first (scripts/build.sh $flavour)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
printf '%-10s %5s %5s %10s %10s %9s %9s %9s %11s %11s\n' mode units nodes \
  init+exit bootstrap written read received bytes_in bytes_out
printf '%-10s %5s %5s %10s %10s %9s %9s %9s %11s %11s\n' "" "" "" ms ms \
  "/node" "/node" "/node" "/node" "/node"
for units in 2 4 8 16 32; do
  [ "$units" -le "$max_units" ] || break
  for nodes in 1 2 4; do
    [ "$nodes" -le "$units" ] || continue
    for mode in node-roots naive; do
      env=(DART_BOOTSTRAP=$mode)
      if [ "$nodes" -gt 1 ]; then
        if [ "$flavour" = mpich ]; then
          env+=(MPIR_CVAR_NUM_CLIQUES=$nodes)
        else
          env+=(DART_UNITS_PER_NODE=$(( (units + nodes - 1) / nodes )))
        fi
      fi
      env "${env[@]}" "mpiexec.$flavour" -n "$units" "$bench" --reps "$reps"
    done
  done
done
