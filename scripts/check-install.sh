#!/usr/bin/env bash
# Installs a build tree into a scratch prefix, then builds the README's
# example (examples/hello.c) against it the two documented ways,
# pkg-config and CMake's find_package, and runs both on 4 units.
# Usage: check-install.sh <build-dir> <mpiexec>
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

usage() {
  cat <<USAGE
usage: scripts/check-install.sh BUILD-DIR MPIEXEC
  Installs BUILD-DIR into a scratch prefix, builds examples/hello.c
  against it with pkg-config and with CMake's find_package(dart), checks
  that README.md shows the example verbatim and that both report MPIEXEC
  as the launcher, and runs the programs on 4 and 2 units with MPIEXEC.
  ctest runs it as the test install_check.
  -h, --help  this text
USAGE
}

case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  -*) echo "check-install.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
esac
(($# == 2)) || { echo "check-install.sh: expected BUILD-DIR and MPIEXEC" >&2
                 usage >&2; exit 2; }
build="$1"
mpiexec="$2"
source "$root/scripts/env.sh"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
prefix="$scratch/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null

# The README must show the example exactly as it is tested here.
python3 - "$root/README.md" "$root/examples/hello.c" <<'PY'
import sys
readme, example = (open(p).read() for p in sys.argv[1:3])
if example.strip() not in readme:
    sys.exit("README.md does not show examples/hello.c verbatim")
PY

export PKG_CONFIG_PATH="$(dirname "$(find "$prefix" -name dart.pc)")"
cc -Wall -Wextra -Werror -o "$scratch/hello-pc" \
   "$root/examples/hello.c" $(pkg-config --cflags --libs dart)

mkdir -p "$scratch/app"
cp "$root/examples/hello.c" "$scratch/app/"
cat > "$scratch/app/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(hello C)
find_package(dart REQUIRED)
add_executable(hello hello.c)
target_link_libraries(hello PRIVATE dart::dart)
# The names a C++ library on top links to and launches with.
add_executable(hello-mpi hello.c)
target_link_libraries(hello-mpi PRIVATE dart-mpi)
file(WRITE ${CMAKE_BINARY_DIR}/mpiexec.txt "${DART_MPIEXEC_EXECUTABLE}")
CM
cmake -S "$scratch/app" -B "$scratch/app/build" \
      -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$scratch/app/build" >/dev/null
pc_mpiexec="$(pkg-config --variable=mpiexec dart)"
cmake_mpiexec="$(cat "$scratch/app/build/mpiexec.txt")"
if [ "$pc_mpiexec" != "$mpiexec" ] || [ "$cmake_mpiexec" != "$mpiexec" ]; then
  echo "launcher: pkg-config '$pc_mpiexec', CMake '$cmake_mpiexec', built with '$mpiexec'" >&2
  exit 1
fi

"$mpiexec" -n 4 "$scratch/hello-pc"
"$mpiexec" -n 4 "$scratch/app/build/hello"
"$cmake_mpiexec" -n 2 "$scratch/app/build/hello-mpi"
echo "install check passed"
