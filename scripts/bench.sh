#!/usr/bin/env bash
# The benchmark suite in one command: builds (Release, Open MPI) what it
# needs, then runs side by side DART, plain MPI RMA and OpenSHMEM:
#   - put/get latency by message size (and a raw shared-memory copy),
#   - atomics inside a node (and the CPU atomic on the same line),
#   - latency against target distance across simulated nodes,
#   - team locks (hybrid vs MCS on MPI atomics vs MPI_Win_lock),
#   - RandomAccess GUP/s and stencil time per iteration,
#   - collectives against MPI's (for the headline's barrier row),
#   - the local pool: dart_memalloc + dart_memfree against MPI_Win_allocate
#     and shmem_malloc, and the time of a growth beside its grace model,
# at 2 units pinned to cores, plus an oversubscribed run (marked as such).
# With --cluster the same runs go across 2 hosts of the virtual cluster
# (scripts/cluster.sh, root only), one unit per host, and the latency
# table and the apps at 2 units are repeated with DART on MPICH.
# Writes CSV files, PNG plots (gnuplot) and summary.md (a headline table
# first, then the ratios in detail) to bench-results/<UTC time>/, and
# prints the summary. --publish also copies them to
# bench-results/latest(-cluster) and regenerates docs/benchmarks.md from
# the published summaries; --publish-only does just that regeneration,
# without building or measuring.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

usage() {
  cat <<EOF
usage: scripts/bench.sh [--quick] [--cluster] [--units N] [--peers LIST]
                        [--out DIR] [--publish] [--no-plots]
       scripts/bench.sh --publish-only
  --quick       tiny sizes and few repetitions (a smoke run, ~1 minute)
  --cluster     across 2 hosts of a virtual cluster (scripts/cluster.sh;
                root only): 1 unit per host, 2 per host oversubscribed;
                locks from the other host; latency and the apps
                (2 units) with MPICH too
  --units N     also run the apps at N units, oversubscribed (4 to 16,
                default 4; 0: skip)
  --peers LIST  peers to compare against, comma-separated from mpi,shmem
                (default: both; OpenSHMEM is skipped with a message when
                oshcc is missing, unless named here explicitly)
  --out DIR     result directory (default bench-results/<UTC time>)
  --publish     also copy summary.md, the plots and instructions.md to
                bench-results/latest
                (bench-results/latest-cluster with --cluster) and rewrite
                docs/benchmarks.md from both published summaries
  --publish-only  only rewrite docs/benchmarks.md from the summaries in
                bench-results/latest and latest-cluster (no build, no runs)
  --no-plots    skip the PNG plots
Environment: OSHCC (default oshcc) names the OpenSHMEM compiler wrapper.
EOF
}

die_usage() {
  echo "bench.sh: $1" >&2
  usage >&2
  exit 2
}

quick=0 cluster=0 extra_units=4 peers="" peers_explicit=0 out="" publish=0
plots=1 publish_only=0 nargs=$#
while (($#)); do
  case "$1" in
    --quick) quick=1 ;;
    --cluster) cluster=1 ;;
    --publish) publish=1 ;;
    --publish-only) publish_only=1 ;;
    --no-plots) plots=0 ;;
    --units)
      (($# >= 2)) || die_usage "--units needs a value"
      [[ "$2" =~ ^[0-9]+$ ]] && { (($2 == 0)) || (($2 >= 4 && $2 <= 16)); } ||
        die_usage "--units must be 0 or 4..16, not '$2'"
      extra_units="$2"; shift ;;
    --peers)
      (($# >= 2)) || die_usage "--peers needs a value"
      [[ "$2" =~ ^(mpi|shmem)(,(mpi|shmem))*$ ]] ||
        die_usage "--peers takes mpi and/or shmem, comma-separated, not '$2'"
      peers="$2" peers_explicit=1; shift ;;
    --out)
      (($# >= 2)) && [ -n "$2" ] || die_usage "--out needs a directory"
      out="$2"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die_usage "unknown option '$1'" ;;
  esac
  shift
done
# docs/benchmarks.md from what is published (benchmarks/report.py
# write_docs): python3 only, nothing built or run.
publish_docs() {
  python3 "$root/benchmarks/report.py" --docs "$root"
}
if ((publish_only)); then
  ((nargs == 1)) || die_usage "--publish-only takes no other option"
  publish_docs
  exit
fi
[ -n "$peers" ] || peers="mpi,shmem"
want_mpi=0 want_shmem=0
[[ ",$peers," == *,mpi,* ]] && want_mpi=1
[[ ",$peers," == *,shmem,* ]] && want_shmem=1

# Peers and tools, checked before anything is built.
oshcc="${OSHCC:-oshcc}"
if ((want_shmem)) && ! command -v "$oshcc" >/dev/null 2>&1; then
  if ((peers_explicit)); then
    echo "bench.sh: OpenSHMEM peer requested but '$oshcc' was not found" \
         "(Debian: libopenmpi-dev; or set OSHCC)" >&2
    exit 3
  fi
  echo "bench.sh: OpenSHMEM not found ('$oshcc'): skipping the OpenSHMEM peers"
  want_shmem=0
fi
if ((cluster)) && [ "$(id -u)" -ne 0 ]; then
  echo "bench.sh: --cluster needs root (network namespaces)" >&2
  exit 3
fi
tools=(cmake mpiexec.openmpi python3)
((cluster)) && tools+=(mpiexec.mpich ip nsenter)
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null 2>&1 ||
    { echo "bench.sh: '$tool' not found (scripts/install-deps.sh installs it)" >&2
      exit 3; }
done
if ((plots)) && ! command -v gnuplot >/dev/null 2>&1; then
  echo "bench.sh: gnuplot not found: no plots (scripts/install-deps.sh" \
       "installs gnuplot-nox)"
  plots=0
fi

# (An arithmetic test that fails inside the command substitution would
# make the assignment fail, and set -e end the script without a word.)
suffix=""
((cluster)) && suffix=-cluster
[ -n "$out" ] || out="$root/bench-results/$(date -u +%Y%m%dT%H%M%SZ)$suffix"
mkdir -p "$out" || { echo "bench.sh: cannot create $out" >&2; exit 3; }
out="$(cd "$out" && pwd)"
source "$root/scripts/env.sh"
# Open MPI's one-sided components. DART picks its own when it starts MPI
# (dart-impl/mpi/core/quirks.h, mpi_quirks_before_init): sm,ucx on one
# host, sm,pt2pt for a job across hosts without RDMA devices. The plain-MPI
# peers get the same, so that both sit on the same transport (and the
# programs that start MPI before dart_init need one: Open MPI's default
# cannot create windows over TCP). Across hosts the DART runs get nothing,
# so that they show DART's own choice. A value the caller set holds for all.
user_osc="${OMPI_MCA_osc:-}"
if ((cluster)); then
  peer_osc="${user_osc:-sm,pt2pt}"
  osc_note="${user_osc:-chosen by DART (sm,pt2pt across hosts), the MPI apps $peer_osc}"
else
  peer_osc="${user_osc:-sm,ucx}"
  export OMPI_MCA_osc="$peer_osc"
  osc_note="$peer_osc"
fi

# --- sizes -------------------------------------------------------------
if ((quick)); then
  lat_args=(--reps 3 --iters 50 --max-bytes 32768)
  dist_args=(--reps 3 --iters 20 --max-bytes 65536)
  lock_args=(--reps 3 --iters 200)
  coll_args=(--reps 3 --iters 100)
  pool_args=(--reps 3 --iters 50) pool_bytes=4194304 pool_growth_reps=1
  lat_launches=1
  ra_k=14 ra_k_over=12 st_n=256 st_iters=50 st_small=32 app_runs=1
else
  lat_args=(--reps 11 --iters 300)
  dist_args=(--reps 7 --iters 200 --max-bytes 1048576)
  lock_args=(--reps 11 --iters 2000)
  coll_args=(--reps 11 --iters 1000)
  # Up to 1 GiB blocks; bench-pool lowers that to what memory allows.
  pool_args=(--reps 11 --iters 1000) pool_bytes=1073741824 pool_growth_reps=5
  # This VM runs a whole launch in a faster or a slower state: the latency
  # table is the median over several launches, ratios taken per launch.
  lat_launches=5
  ra_k=20 ra_k_over=16 st_n=1024 st_iters=300 st_small=64 app_runs=7
fi
dist_units=8 dist_per_node=4
if ((cluster)); then
  # Every operation crosses veth and TCP (tens of microseconds): the same
  # kinds of runs with fewer operations, and no simulated-node distance
  # run (the hosts are real).
  if ((quick)); then
    lat_args=(--reps 3 --iters 20 --max-bytes 32768)
    lock_args=(--reps 3 --iters 20)
    coll_args=(--reps 3 --iters 10)
    ra_k=8 ra_k_over=8 st_n=128 st_iters=10 st_small=16
  else
    lat_args=(--reps 9 --iters 200 --max-bytes 1048576)
    lock_args=(--reps 7 --iters 200)
    coll_args=(--reps 7 --iters 100)
    lat_launches=3
    ra_k=12 ra_k_over=10 st_n=512 st_iters=50 st_small=32 app_runs=3
  fi
fi

# --- build -------------------------------------------------------------
build="$root/build/bench"
targets=(bench-latency bench-locks bench-collectives random-access stencil)
((cluster)) || targets+=(bench-distance bench-pool bench-instructions)
((want_mpi)) && targets+=(mpi-random-access mpi-stencil)
((want_shmem)) && targets+=(shmem-latency shmem-random-access shmem-stencil)
((want_shmem)) && ! ((cluster)) && targets+=(shmem-pool)
# build_in DIR FLAVOUR TARGET...: a Release build without the tests, its
# output appended to build.log, fatal on failure.
build_in() {
  local dir="$1" flavour="$2"
  shift 2
  local flags=(-DCMAKE_BUILD_TYPE=Release -DDART_MPI_FLAVOUR="$flavour"
               -DDART_BUILD_TESTS=OFF)
  [ "$flavour" = openmpi ] && ((want_shmem)) &&
    flags+=(-DDART_OSHCC="$(command -v "$oshcc")")
  echo "== building $* (Release, $flavour) in $dir"
  cmake -S "$root" -B "$dir" "${flags[@]}" >>"$out/build.log" 2>&1 &&
    cmake --build "$dir" -j 2 --target "$@" >>"$out/build.log" 2>&1 ||
    { tail -20 "$out/build.log" >&2; echo "bench.sh: build failed" >&2
      exit 1; }
}
# bin PROGRAM [DIR]: the built executable (default: the Open MPI build).
bin() { find "${2:-$build}" -type f -name "$1" -perm -u+x | head -1; }
build_in "$build" openmpi "${targets[@]}"
if ((cluster)); then
  build_mpich="$root/build/bench-mpich"
  build_in "$build_mpich" mpich bench-latency random-access stencil
  export VCLUSTER_DIR="/run/dart-cluster-bench.$$"
  trap '"$root/scripts/cluster.sh" down >/dev/null 2>&1 || true' EXIT
  "$root/scripts/cluster.sh" up 2 >"$out/cluster.log" 2>&1 ||
    { cat "$out/cluster.log" >&2; echo "bench.sh: cluster.sh up failed" >&2
      exit 1; }
fi

# --- runs --------------------------------------------------------------
steps=$((3 + lat_launches))
((want_shmem)) && steps=$((steps + 1 + lat_launches))
# --cluster: no distance runs; MPICH and atomics-by-message latency
# launches.
((cluster)) && steps=$((steps - 1 - want_shmem + 2 * lat_launches))
# The local pool on one node: 2 layouts, and OpenSHMEM's allocation; the
# instruction counts where valgrind is installed.
((cluster)) || steps=$((steps + 2 + want_shmem))
((cluster)) || ! command -v valgrind >/dev/null || steps=$((steps + 1))
models=(dart)
((want_mpi)) && models+=(mpi)
((want_shmem)) && models+=(shmem)
# Across hosts DART runs the apps with MPICH too, at 2 units (1 per host):
# Open MPI 4.1's osc/ucx makes every accumulate a locked read-modify-write
# at the target (core/quirks.h), MPICH one active message.
((cluster)) && models+=(dart-mpich)
# And DART on Open MPI with its atomics by message (DART_REMOTE_ATOMICS,
# rma/am_atomics.h): RandomAccess only, the stencil has no atomics.
((cluster)) && models+=(dart-message)
unit_counts=(2)
((extra_units > 0)) && unit_counts+=("$extra_units")
for n in "${unit_counts[@]}"; do # one step per run of the apps
  steps=$((steps + (n > 2 ? 1 : app_runs)))
done
step=0 t_start=$SECONDS
# Other work on the machine skews every number: record how busy it was.
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, mode: $([ $quick = 1 ] && echo quick || echo full)"
  echo "cpu: $(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
  echo "MPI: $(mpiexec.openmpi --version 2>&1 | head -1), OMPI_MCA_osc=$osc_note"
  ((cluster)) && echo "placement: 2 hosts of the virtual cluster" \
    "(scripts/cluster.sh: namespaces, veth, TCP), units spread evenly;" \
    "MPICH: $(mpiexec.mpich --version 2>&1 | grep -m1 Version | tr -s ' ')"
  echo "load average (1/5/15 min) before the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/env.txt"
# The headings of the report say where the units ran.
if ((cluster)); then
  echo "2 hosts of the virtual cluster" >"$out/layout.txt"
else
  echo "one node" >"$out/layout.txt"
fi
progress() {
  step=$((step + 1))
  printf "[%2d/%d %4ds] %s\n" "$step" "$steps" $((SECONDS - t_start)) "$*"
}

# launch UNITS LOG PROGRAM ARGS...: pinned at 2 units, free when
# oversubscribed; across the cluster's 2 hosts with --cluster (MPI names
# the library there, default Open MPI). OpenSHMEM dies in shmem_finalize
# on this Open MPI, so the exit status is not trusted: a run counts when
# it printed its result.
launch() {
  local n="$1" log="$2"
  shift 2
  if ((cluster)); then
    "$root/scripts/cluster.sh" run --mpi "${MPI:-openmpi}" \
      --timeout "${LIMIT:-900}" -- -n "$n" "$@" >"$log" 2>&1 || true
    return
  fi
  local pin=()
  ((n <= 2)) && pin=(--bind-to core)
  mpiexec.openmpi -n "$n" "${pin[@]}" "$@" >"$log" 2>&1 || true
}

for ((r = 1; r <= lat_launches; ++r)); do
  progress "latency by size, launch $r of $lat_launches: DART, MPI RMA," \
           "raw shm copy (2 units)"
  launch 2 "$out/latency-dart-mpi-$r.log" "$(bin bench-latency)" \
    "${lat_args[@]}" --csv "$out/latency-dart-mpi-$r.csv"
  if ((want_shmem)); then
    progress "latency by size, launch $r of $lat_launches: OpenSHMEM (2 PEs)"
    launch 2 "$out/latency-shmem-$r.log" "$(bin shmem-latency)" \
      "${lat_args[@]}" --csv "$out/latency-shmem-$r.csv"
  fi
  if ((cluster)); then
    progress "latency by size, launch $r of $lat_launches: DART, MPI RMA" \
             "with MPICH (2 units)"
    MPI=mpich launch 2 "$out/latency-mpich-$r.log" \
      "$(bin bench-latency "$build_mpich")" \
      "${lat_args[@]}" --csv "$out/latency-mpich-$r.csv"
    progress "latency by size, launch $r of $lat_launches: DART atomics by" \
             "message (2 units)"
    DART_REMOTE_ATOMICS=message launch 2 "$out/latency-message-$r.log" \
      "$(bin bench-latency)" "${lat_args[@]}" --max-bytes 8 \
      --csv "$out/latency-message-$r.csv"
  fi
done
if ((cluster)); then
  progress "locks: hybrid, MCS on MPI atomics, MPI_Win_lock (2 units on" \
           "two hosts)"
  launch 2 "$out/locks-nodes2.log" "$(bin bench-locks)" "${lock_args[@]}" \
    --csv "$out/locks-nodes2.csv"
else
  progress "latency by distance: DART, MPI RMA ($dist_units units," \
           "$dist_per_node per simulated node, oversubscribed)"
  DART_UNITS_PER_NODE=$dist_per_node launch "$dist_units" \
    "$out/distance-dart-mpi.log" "$(bin bench-distance)" "${dist_args[@]}" \
    --csv "$out/distance-dart-mpi.csv"
  if ((want_shmem)); then
    progress "latency by distance: OpenSHMEM ($dist_units PEs, oversubscribed)"
    launch "$dist_units" "$out/distance-shmem.log" "$(bin shmem-latency)" \
      --distance "${dist_args[@]}" --csv "$out/distance-shmem.csv"
  fi
  progress "locks: hybrid, MCS on MPI atomics, MPI_Win_lock (2 units, one" \
           "node, then two simulated nodes)"
  launch 2 "$out/locks-node1.log" "$(bin bench-locks)" "${lock_args[@]}" \
    --csv "$out/locks-node1.csv"
  DART_UNITS_PER_NODE=1 launch 2 "$out/locks-nodes2.log" \
    "$(bin bench-locks)" "${lock_args[@]}" --csv "$out/locks-nodes2.csv"
fi

progress "collectives: DART against MPI (barrier, allreduce, ...; 2 units)"
launch 2 "$out/collectives.log" "$(bin bench-collectives)" "${coll_args[@]}" \
  --csv "$out/collectives.csv"

if ! ((cluster)); then
  # Not across the cluster's hosts: they share this machine's memory, and
  # simulated nodes already take the pool's guarded (RMA) path.
  progress "local pool: dart_memalloc vs MPI_Win_allocate, growth (2" \
           "units, one node)"
  launch 2 "$out/pool-node1.log" "$(bin bench-pool)" "${pool_args[@]}" \
    --max-bytes "$pool_bytes" --growth-reps "$pool_growth_reps" \
    --csv "$out/pool-node1.csv" --growth-csv "$out/pool-growth-node1.csv" \
    --shrink-csv "$out/pool-shrink-node1.csv"
  progress "local pool: the same on two simulated nodes (growth raises" \
           "flags and waits its grace time)"
  DART_UNITS_PER_NODE=1 launch 2 "$out/pool-nodes2.log" "$(bin bench-pool)" \
    "${pool_args[@]}" --max-bytes "$pool_bytes" \
    --growth-reps "$pool_growth_reps" --csv "$out/pool-nodes2.csv" \
    --growth-csv "$out/pool-growth-nodes2.csv" \
    --shrink-csv "$out/pool-shrink-nodes2.csv"
  if ((want_shmem)); then
    # bench-pool's largest block when memory allowed it (its log says);
    # Open MPI's oshmem sizes its symmetric heap from SMA_SYMMETRIC_SIZE
    # (256 MiB by default), with room for its own headers.
    pool_max=$(sed -n 's/.*largest block \([0-9]*\) \(KiB\|MiB\).*/\1 \2/p' \
      "$out/pool-node1.log" |
      awk '{ print $1 * ($2 == "MiB" ? 1048576 : 1024) }')
    pool_max=${pool_max:-$pool_bytes}
    progress "local pool: OpenSHMEM shmem_malloc + shmem_free (2 PEs)"
    SMA_SYMMETRIC_SIZE=$((pool_max / 1048576 + 64))M launch 2 \
      "$out/pool-shmem.log" "$(bin shmem-pool)" "${pool_args[@]}" \
      --max-bytes "$pool_max" --csv "$out/pool-shmem.csv"
  fi
fi

program_of() { # model kernel
  case "$1" in
    dart | dart-message) bin "$2" ;;
    dart-mpich) bin "$2" "$build_mpich" ;;
    mpi) bin "mpi-$2" ;;
    shmem) bin "shmem-$2" ;;
  esac
}
results="$out/apps.txt"
: >"$results"
app_run() { # model units run label program args...
  local m="$1" n="$2" r="$3" label="$4" prog="$5"
  shift 5
  local log="$out/$label-$m-u$n-$r.log"
  if [ "$m" = dart-mpich ]; then
    # A run that printed its result and then hung in MPICH's
    # MPI_Finalize (README, known problems) ends after 5 minutes.
    MPI=mpich LIMIT=300 launch "$n" "$log" "$prog" "$@"
  elif [ "$m" = dart-message ]; then
    DART_REMOTE_ATOMICS=message launch "$n" "$log" "$prog" "$@"
  elif [ "$m" = mpi ]; then
    OMPI_MCA_osc="$peer_osc" launch "$n" "$log" "$prog" "$@"
  else
    launch "$n" "$log" "$prog" "$@"
  fi
  grep '^RESULT' "$log" | sed -e "s/ model=dart / model=$m /" \
    -e "s/\$/ oversubscribed=$over run=$r/" \
    >>"$results" || echo "   no result (see $log)"
}
for n in "${unit_counts[@]}"; do
  over=no runs=$app_runs k=$ra_k
  # Oversubscribed runs are a functional view: one run, a smaller table.
  ((n > 2)) && over=yes runs=1 k=$ra_k_over
  # The models take turns run by run, so that a slow spell of the machine
  # hits all of them alike instead of one model's block of runs.
  for ((r = 1; r <= runs; ++r)); do
    progress "apps, $n units, run $r of $runs: RandomAccess 2^$k words per" \
             "unit, stencil ${st_n}^2 x $st_iters iterations and" \
             "${st_small}^2 to convergence; ${models[*]}"
    for m in "${models[@]}"; do
      [ "$m" = dart-mpich ] && ((n > 2)) && continue
      app_run "$m" "$n" "$r" ra "$(program_of "$m" random-access)" -k "$k"
      [ "$m" = dart-message ] && continue
      # The large grid also reports where its time goes (--phases): a
      # clock read costs nothing there next to a sweep of N^2/units points.
      app_run "$m" "$n" "$r" "stencil-n$st_n" "$(program_of "$m" stencil)" \
        -n "$st_n" -i "$st_iters" -t 0 --phases
      app_run "$m" "$n" "$r" "stencil-n$st_small" \
        "$(program_of "$m" stencil)" -n "$st_small"
    done
  done
done
for log in "$out"/*shmem*.log; do
  [ -e "$log" ] || continue
  if grep -q 'signal 11' "$log"; then
    echo "note: OpenSHMEM crashed in shmem_finalize (SIGSEGV) after" \
         "printing its results, as on every run with this Open MPI"
    break
  fi
done

echo "load average (1/5/15 min) after the runs: $(cut -d' ' -f1-3 /proc/loadavg)" \
  >>"$out/env.txt"

# Instruction counts of the same fast paths (benchmarks/count_instructions.sh):
# a view without the VM's noise, where valgrind is installed.
if ! ((cluster)) && command -v valgrind >/dev/null; then
  progress "instructions per operation (valgrind --tool=callgrind)"
  "$root/benchmarks/count_instructions.sh" -b "$build" \
    -o "$out/instructions.md" >/dev/null ||
    echo "   instruction counts failed (see above)"
fi

# --- report ------------------------------------------------------------
echo "== report in $out"
python3 "$root/benchmarks/report.py" "$out" "$plots"
if ((publish)); then
  latest="$root/bench-results/latest$suffix"
  mkdir -p "$latest"
  cp "$out/summary.md" "$latest/"
  cp "$out"/*.png "$latest/" 2>/dev/null || true
  [ -f "$out/instructions.md" ] && cp "$out/instructions.md" "$latest/"
  echo "published to $latest"
  publish_docs
fi
