#!/usr/bin/env bash
# Soak mode of the one-sided fuzz test (dart-impl/test/test_fuzz_rma.c):
# many seeds, 4 units, Open MPI and MPICH, one node and two simulated
# nodes (or, with --cluster, the separate hosts of scripts/cluster.sh),
# shared-memory path on and off, for a bounded time. Every run
# must pass; a failed or hung run keeps its log and prints the command
# that reproduces it. Ends with 'soak: N passed, M failed'.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

usage() {
  cat <<EOF
usage: scripts/soak.sh [--minutes M] [--mpi LIST] [--units N] [--iters K]
                       [--seed S] [--build-root DIR] [--no-build] [--out DIR]
                       [--cluster]
  --minutes M       time budget in minutes (default 10): runs start while
                    it lasts, and at least one run of each configuration
  --mpi LIST        MPIs to soak, comma-separated from openmpi,mpich
                    (default: both)
  --units N         units per run (default 4)
  --iters K         calls per unit and run (default 3000)
  --seed S          first seed (default: from the clock; printed); run i
                    uses seed S+i
  --build-root DIR  builds live in DIR/<mpi> (default: build/, or the
                    BUILD_ROOT environment variable); configured and built
                    there (only the fuzz test) unless --no-build
  --no-build        use the existing builds as they are
  --out DIR         logs of failed runs (default: a new directory in /tmp)
  --cluster         run across the hosts of the virtual cluster instead
                    (scripts/cluster.sh; as root, with the cluster up and
                    VCLUSTER_DIR as for cluster.sh): the units spread over
                    its hosts, and the builds are build-root/cluster-<mpi>
  -h, --help        this text
Each run: mpiexec -n N test_fuzz_rma --seed S --iters K, cycling through
(MPI) x (1 node, 2 simulated nodes) x (shared-memory path on, off); two
nodes are MPICH's MPIR_CVAR_NUM_CLIQUES=2 or the runtime's
DART_UNITS_PER_NODE. With --cluster: (MPI) x (shared-memory path on,
off), every run across the cluster's hosts. A run still going after
120 s + 1 s per 50 calls (ten times the slowest seen) has hung: it is
killed and counts as failed.
EOF
}

die_usage() {
  echo "soak.sh: $1" >&2
  usage >&2
  exit 2
}

minutes=10 mpis="openmpi,mpich" units=4 iters=3000 seed="" build=1 out=""
cluster=0
build_root="${BUILD_ROOT:-$root/build}"
while (($#)); do
  case "$1" in
    --minutes)
      (($# >= 2)) && [[ "$2" =~ ^[0-9]+$ ]] && (($2 >= 1)) ||
        die_usage "--minutes takes a whole number of minutes >= 1"
      minutes="$2"; shift ;;
    --mpi)
      (($# >= 2)) && [[ "$2" =~ ^(openmpi|mpich)(,(openmpi|mpich))*$ ]] ||
        die_usage "--mpi takes openmpi and/or mpich, comma-separated"
      mpis="$2"; shift ;;
    --units)
      (($# >= 2)) && [[ "$2" =~ ^[0-9]+$ ]] && (($2 >= 1 && $2 <= 64)) ||
        die_usage "--units takes a number from 1 to 64"
      units="$2"; shift ;;
    --iters)
      (($# >= 2)) && [[ "$2" =~ ^[0-9]+$ ]] && (($2 >= 1)) ||
        die_usage "--iters takes a number >= 1"
      iters="$2"; shift ;;
    --seed)
      (($# >= 2)) && [[ "$2" =~ ^[0-9]+$ ]] ||
        die_usage "--seed takes a non-negative number"
      seed="$2"; shift ;;
    --build-root)
      (($# >= 2)) && [ -n "$2" ] || die_usage "--build-root needs a directory"
      build_root="$2"; shift ;;
    --no-build) build=0 ;;
    --cluster) cluster=1 ;;
    --out)
      (($# >= 2)) && [ -n "$2" ] || die_usage "--out needs a directory"
      out="$2"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die_usage "unknown option '$1'" ;;
  esac
  shift
done
IFS=, read -r -a mpi_list <<<"$mpis"
[ -n "$seed" ] || seed=$(( $(date +%s) % 1000000 * 1000 ))
[ -n "$out" ] || out="$(mktemp -d /tmp/dart-soak-XXXXXX)"
mkdir -p "$out" "$build_root"
out="$(cd "$out" && pwd)"
build_root="$(cd "$build_root" && pwd)"

if ((build)); then
  "$root/scripts/install-deps.sh"
fi
source "$root/scripts/env.sh"
if ((cluster)) && ! "$root/scripts/cluster.sh" status >/dev/null 2>&1; then
  echo "soak.sh: --cluster needs the virtual cluster up" \
       "(scripts/cluster.sh up 2, as root)" >&2
  exit 1
fi

# --- build ---------------------------------------------------------------
declare -A binary launcher
for mpi in "${mpi_list[@]}"; do
  dir="$build_root/$mpi"
  ((cluster)) && dir="$build_root/cluster-$mpi"
  if ((build)); then
    echo "== building test_fuzz_rma ($mpi) in $dir"
    if ! { cmake -S "$root" -B "$dir" -DDART_WERROR=ON \
             -DDART_MPI_FLAVOUR="$mpi" -DDART_TEST_CLUSTER="$cluster" \
             >"$out/build-$mpi.log" 2>&1 &&
           cmake --build "$dir" -j "$(nproc)" --target test_fuzz_rma \
             >>"$out/build-$mpi.log" 2>&1; }; then
      tail -20 "$out/build-$mpi.log" >&2
      echo "soak.sh: the $mpi build failed (log: $out/build-$mpi.log)" >&2
      exit 1
    fi
  fi
  binary[$mpi]="$dir/dart-impl/test/test_fuzz_rma"
  [ -x "${binary[$mpi]}" ] ||
    { echo "soak.sh: no ${binary[$mpi]} (build it, or drop --no-build)" >&2
      exit 1; }
  launcher[$mpi]="mpiexec.$mpi"
  command -v "${launcher[$mpi]}" >/dev/null 2>&1 ||
    { echo "soak.sh: ${launcher[$mpi]} not found" >&2; exit 1; }
done

# --- runs ----------------------------------------------------------------
configs=()
for mpi in "${mpi_list[@]}"; do
  node_counts=(1 2)
  ((cluster)) && node_counts=(hosts)
  for nodes in "${node_counts[@]}"; do
    for shm in on off; do
      configs+=("$mpi $nodes $shm")
    done
  done
done

budget=$((minutes * 60))
run_timeout=$((120 + units * iters / 50))
passed=0 failed=0 calls=0 run=0 start=$SECONDS
echo "== soak: ${#configs[@]} configurations, $units units, $iters calls" \
     "per unit and run, seeds from $seed, $minutes min; logs of failures" \
     "in $out"
while ((run < ${#configs[@]} || SECONDS - start < budget)); do
  read -r mpi nodes shm <<<"${configs[run % ${#configs[@]}]}"
  s=$((seed + run))
  run=$((run + 1))
  env_vars=("DART_SHM_PATH=$shm")
  launch=("${launcher[$mpi]}" -n "$units")
  if ((cluster)); then
    # cluster.sh hands DART_* on to the remote units and stops a run that
    # outlives the same limit as below.
    launch=("$root/scripts/cluster.sh" run --mpi "$mpi"
            --timeout "$run_timeout" -- -n "$units")
  elif [ "$nodes" -gt 1 ]; then
    if [ "$mpi" = mpich ]; then
      env_vars+=("MPIR_CVAR_NUM_CLIQUES=$nodes")
    else
      env_vars+=("DART_UNITS_PER_NODE=$(((units + nodes - 1) / nodes))")
    fi
  fi
  cmd=(env "${env_vars[@]}" "${launch[@]}"
       "${binary[$mpi]}" --seed "$s" --iters "$iters")
  log="$out/run-$run-$mpi-n$nodes-shm$shm-seed$s.log"
  t0=$SECONDS
  status=0
  timeout --kill-after=10 "$run_timeout" "${cmd[@]}" >"$log" 2>&1 ||
    status=$?
  line="$(grep -m1 '^test_fuzz_rma: seed' "$log" || true)"
  place="$nodes node(s)"
  [ "$nodes" = hosts ] && place="across hosts"
  label="$(printf '[%3d %4ds] %-7s %s, shm %-3s seed %d' "$run" \
           $((SECONDS - start)) "$mpi" "$place" "$shm" "$s")"
  if ((status == 0)) && [ -n "$line" ]; then
    n="$(sed -E 's/.* units, ([0-9]+) calls.*/\1/' <<<"$line")"
    calls=$((calls + n))
    passed=$((passed + 1))
    echo "$label: passed, $n calls in $((SECONDS - t0)) s"
    rm -f "$log"
  else
    failed=$((failed + 1))
    why="exit status $status"
    ((status == 124 || status == 137)) && why="hung (timed out)"
    echo "$label: FAILED ($why), log $log"
    grep -m3 -E '^(FAIL|CRASH)' "$log" | sed 's/^/    /' || true
    echo "    reproduce: ${cmd[*]}"
  fi
done

where="1 and 2 nodes"
((cluster)) && where="across the cluster's hosts"
echo "soak: seeds $seed to $((seed + run - 1)), $calls calls in $run runs" \
     "($((SECONDS - start)) s; ${mpi_list[*]}; $units units; $where;" \
     "shared-memory path on and off)"
echo "soak: $passed passed, $failed failed"
((failed == 0))
