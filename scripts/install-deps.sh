#!/usr/bin/env bash
# Installs the Debian packages that building, testing and the demo need
# (both MPIs side by side, hwloc, the toolchain). Does nothing when all
# are present.
set -euo pipefail
case "${1:-}" in
  "") ;;
  -h|--help)
    echo "usage: scripts/install-deps.sh"
    echo "  Installs the missing Debian packages for building, testing, the"
    echo "  demo and the benchmark plots (apt-get, through sudo when not root)."
    exit 0 ;;
  *) echo "install-deps.sh: unknown option '$1'" >&2
     echo "usage: scripts/install-deps.sh [-h|--help]" >&2
     exit 2 ;;
esac
packages=(build-essential cmake pkg-config openmpi-bin libopenmpi-dev
          mpich libmpich-dev hwloc libhwloc-dev gnuplot-nox doxygen
          libhdf5-openmpi-dev libhdf5-mpich-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo=sudo
fi
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
