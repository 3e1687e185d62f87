#!/usr/bin/env bash
# Before/after for the intra-node fast path: builds bench-latency (Release,
# Open MPI) at a base revision and in the working tree, runs the two in
# alternating launches on the same machine (the order flips every launch:
# this VM drifts between a faster and a slower state over a run), and
# prints, per operation and size, the median over the launches of DART /
# raw copy for each build, with the median times. A change of the fast
# path is judged by these ratios, never by one launch.
#
# usage: scripts/bench-compare.sh [--base REV] [--launches N]
#                                 [--max-bytes B] [--out DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

usage() {
  cat <<EOF
usage: scripts/bench-compare.sh [--base REV] [--launches N] [--max-bytes B]
                                [--out DIR]
  --base REV     revision to compare the working tree with (default HEAD)
  --launches N   launches of each build, alternating (default 10, 1 ... 100)
  --max-bytes B  largest message size (default 4096, 1 ... 4194304)
  --out DIR      where the CSV files go (default bench-results/compare-<time>)
EOF
}

die_usage() {
  echo "bench-compare.sh: $1" >&2
  usage >&2
  exit 2
}

base=HEAD launches=10 max_bytes=4096 out=""
while (($#)); do
  case "$1" in
    --base) (($# > 1)) || die_usage "--base needs a revision"
            base="$2"; shift ;;
    --launches) (($# > 1)) || die_usage "--launches needs a number"
                launches="$2"; shift ;;
    --max-bytes) (($# > 1)) || die_usage "--max-bytes needs a number"
                 max_bytes="$2"; shift ;;
    --out) (($# > 1)) || die_usage "--out needs a directory"
           out="$2"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die_usage "unknown option '$1'" ;;
  esac
  shift
done
[[ "$launches" =~ ^[0-9]+$ ]] && ((launches >= 1 && launches <= 100)) ||
  die_usage "--launches must be 1 ... 100"
[[ "$max_bytes" =~ ^[0-9]+$ ]] && ((max_bytes >= 1 && max_bytes <= 4194304)) ||
  die_usage "--max-bytes must be 1 ... 4194304"
git -C "$root" rev-parse --verify -q "$base^{commit}" >/dev/null ||
  die_usage "'$base' is no revision of this repository"

[ -n "$out" ] || out="$root/bench-results/compare-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
source "$root/scripts/env.sh"
export OMPI_MCA_osc="${OMPI_MCA_osc:-sm,ucx}"

# The base revision in a worktree of its own, removed on exit.
tree="$(mktemp -d)"
trap 'git -C "$root" worktree remove --force "$tree" >/dev/null 2>&1 || true;
      rm -rf "$tree"' EXIT
git -C "$root" worktree add -q --detach "$tree" "$base"

build() { # source dir, build dir
  cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DDART_MPI_FLAVOUR=openmpi \
    -DDART_BUILD_TESTS=OFF >"$out/build.log" 2>&1 &&
    cmake --build "$2" -j2 --target bench-latency >>"$out/build.log" 2>&1 ||
    { echo "bench-compare.sh: build of $1 failed (see $out/build.log)" >&2
      exit 1; }
}
echo "== building bench-latency at $base and in the working tree (Release)"
build "$tree" "$tree/build"
build "$root" "$root/build/bench"

for ((i = 1; i <= launches; ++i)); do
  if ((i % 2)); then order="base tree"; else order="tree base"; fi
  for which in $order; do
    dir="$tree/build"
    [ "$which" = tree ] && dir="$root/build/bench"
    mpiexec.openmpi -n 2 --bind-to core "$dir/benchmarks/bench-latency" \
      --reps 11 --iters 300 --max-bytes "$max_bytes" \
      --csv "$out/$which-$i.csv" >"$out/$which-$i.log" 2>&1 ||
      { echo "bench-compare.sh: launch $i ($which) failed," \
             "see $out/$which-$i.log" >&2; exit 1; }
  done
  echo "launch $i of $launches done"
done

python3 - "$out" "$base" <<'PY'
import csv, glob, statistics, sys
out, base = sys.argv[1], sys.argv[2]
rows = {}
for which in ("base", "tree"):
    for path in glob.glob(f"{out}/{which}-*.csv"):
        for r in csv.DictReader(open(path)):
            try:
                ratio, ns = float(r["dart_over_raw"]), float(r["dart_ns"])
            except ValueError:
                continue  # no raw copy in this row (no node peer)
            key = (r["operation"], int(r["bytes"]))
            rows.setdefault(key, {}).setdefault(which, []).append((ratio, ns))
def med(samples, i):
    return statistics.median(s[i] for s in samples) if samples else float("nan")
print(f"\n| operation | bytes | DART / raw, {base} | DART / raw, working tree "
      f"| ns, {base} | ns, working tree |")
print("|---|---:|---:|---:|---:|---:|")
for (op, size) in sorted(rows):
    b, t = rows[(op, size)].get("base", []), rows[(op, size)].get("tree", [])
    print(f"| {op} | {size} | {med(b, 0):.2f} | {med(t, 0):.2f} | "
          f"{med(b, 1):.1f} | {med(t, 1):.1f} |")
PY
echo "CSV files and logs in $out"
