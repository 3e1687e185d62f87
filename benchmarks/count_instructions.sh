#!/usr/bin/env bash
# Instructions per operation of DART's shared-memory fast paths next to the
# raw copy or CPU atomic, counted by valgrind --tool=callgrind in
# bench-instructions (benchmarks/bench_instructions.c says why and what it
# does not show). The same binary gives the same counts in every run (to
# within half an instruction per operation: the progress probe reads the
# clock and enters MPI only when due), so a change of one instruction in a
# fast path shows where bench-latency's times cannot tell it from the VM's
# noise.
#
# Usage: benchmarks/count_instructions.sh [-b BUILD_DIR] [-o FILE]
#   -b BUILD_DIR  a configured build of DART (default build/bench, the one
#                 scripts/bench.sh makes; built here if it lacks the target)
#   -o FILE       also write the table there
# Needs valgrind (Debian package valgrind) and mpiexec.openmpi, or the
# launcher of the build's MPI in MPIEXEC.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build/bench" out=""
usage() { sed -n '/^# Usage:/,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
while (($#)); do
  case "$1" in
    -b|-o)
      (($# >= 2)) || { echo "count_instructions.sh: $1 needs a value" >&2; exit 2; }
      case "$1" in -b) build="$2" ;; -o) out="$2" ;; esac
      shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "count_instructions.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
for tool in valgrind callgrind_annotate cmake; do
  command -v "$tool" >/dev/null ||
    { echo "count_instructions.sh: $tool not found (apt-get install valgrind cmake)" >&2; exit 2; }
done
if [ ! -f "$build/CMakeCache.txt" ]; then
  echo "count_instructions.sh: $build is not a configured build (scripts/bench.sh makes build/bench)" >&2
  exit 2
fi
cmake --build "$build" --target bench-instructions -j 2 >/dev/null
prog="$build/benchmarks/bench-instructions"
# shellcheck source=scripts/env.sh
source "$root/scripts/env.sh"
launcher="${MPIEXEC:-mpiexec.openmpi}"

iters=1000
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# count SIZE: runs every kernel at SIZE bytes under callgrind; prints
# "row model instructions-per-operation" lines.
count() {
  "$launcher" -n 1 valgrind --tool=callgrind --callgrind-out-file="$work/cg.$1" \
    "$prog" --bytes "$1" --iters "$iters" >"$work/log.$1" 2>&1 ||
    { cat "$work/log.$1" >&2; echo "count_instructions.sh: run at $1 B failed" >&2; exit 1; }
  callgrind_annotate --inclusive=yes --threshold=100 "$work/cg.$1" |
    sed -n 's/^ *\([0-9,]*\) .*kernel_\([a-z]*\)_\(dart\|raw\).*/\2 \3 \1/p' |
    tr -d , | awk -v n="$iters" '{ printf "%s %s %.1f\n", $1, $2, $3 / n }'
}

{
  echo "### Instructions per operation, one unit on its own portion (valgrind --tool=callgrind)"
  echo
  echo "Counted $(date -u '+%Y-%m-%d %H:%M') UTC at revision" \
       "$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)," \
       "$("${CC:-cc}" --version 2>/dev/null | head -n1), $(valgrind --version)," \
       "$iters operations per kernel, the loop included; valgrind runs the" \
       "AVX2 variant of the copy entries whatever the CPU."
  echo
  echo "Raw: memcpy (+ seq_cst fence for put), __atomic_fetch_add, __atomic_compare_exchange_n, __atomic_fetch_xor."
  echo
  echo "| operation | bytes | DART | raw | DART - raw |"
  echo "|---|---:|---:|---:|---:|"
  for bytes in 1 2 4 8 16 32 64 128 256 512 1024 4096; do
    count "$bytes" > "$work/rows.$bytes"
    for row in get put getflush putflush; do
      d=$(awk -v r="$row" '$1 == r && $2 == "dart" { print $3 }' "$work/rows.$bytes")
      base=${row%flush}
      r=$(awk -v r="$base" '$1 == r && $2 == "raw" { print $3 }' "$work/rows.$bytes")
      case $row in
        get) name="dart_get_blocking" ;; put) name="dart_put_blocking" ;;
        getflush) name="dart_get + dart_flush_local" ;;
        putflush) name="dart_put + dart_flush" ;;
      esac
      awk -v a="$d" -v b="$r" -v name="$name" -v s="$bytes" \
        'BEGIN { printf "| %s | %d | %.1f | %.1f | %.1f |\n", name, s, a, b, a - b }'
    done
  done
  for row in fao cas acc; do
    d=$(awk -v r="$row" '$1 == r && $2 == "dart" { print $3 }' "$work/rows.8")
    r=$(awk -v r="$row" '$1 == r && $2 == "raw" { print $3 }' "$work/rows.8")
    case $row in
      fao) name="dart_fetch_and_op SUM long + dart_flush_local" ;;
      cas) name="dart_compare_and_swap long + dart_flush_local" ;;
      acc) name="dart_accumulate BXOR long + dart_flush" ;;
    esac
    awk -v a="$d" -v b="$r" -v name="$name" \
      'BEGIN { printf "| %s | 8 | %.1f | %.1f | %.1f |\n", name, a, b, a - b }'
  done
} | tee "${out:-/dev/null}"
