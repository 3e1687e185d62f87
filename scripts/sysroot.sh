#!/usr/bin/env bash
# A root file system of Debian 13 ("trixie") beside this Debian 12 machine,
# to build and test DART against Debian 13's MPICH 4.2 (root only):
#
#   scripts/sysroot.sh make [DIR]         creates it (debootstrap, then
#                                         apt-get) or adds what it misses
#   scripts/sysroot.sh run DIR -- CMD...  runs CMD chrooted into DIR
#   scripts/sysroot.sh --help
#
# DIR defaults to build/sysroot-debian13 in the checkout (about 1.5 GB;
# a minute to make over a fast mirror). Why: Debian 12's MPICH 4.0.2 hangs
# in MPI_Finalize across hosts when a host runs more than one unit (README,
# known problems; pmodels/mpich PR #6596 fixed it in MPICH 4.2), so the
# runs with 2 units per host are tested against MPICH 4.2 in this root
# (scripts/test.sh cluster-mpich42, cluster.sh up --root).
#
# run enters a private mount namespace, mounts /proc, /sys, /dev,
# /dev/shm, the checkout and, when set, $VCLUSTER_DIR at the same paths
# inside DIR, and runs CMD there in the caller's working directory (which
# must lie in the checkout). Nothing is mounted outside that namespace.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
suite=trixie
packages=(gcc libc6-dev make cmake pkg-config python3 mpich libmpich-dev
          libhwloc-dev libhdf5-mpich-dev procps gdb)

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}

die() {
  echo "sysroot.sh: $*" >&2
  exit 2
}

need_root() {
  [ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, chroot, mounts)"
}

cmd_make() {
  (($# <= 1)) || die "usage: sysroot.sh make [DIR]"
  local dir="${1:-$root/build/sysroot-debian13}"
  need_root
  if [ ! -x "$dir/usr/bin/apt-get" ]; then
    if ! command -v debootstrap >/dev/null; then
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
    fi
    rm -rf "$dir.new"
    mkdir -p "$(dirname "$dir")"
    echo "sysroot.sh: debootstrap $suite into $dir"
    # minbase only: Debian 12's debootstrap fails to configure Debian 13's
    # base when --include adds packages; apt-get adds them below.
    debootstrap --variant=minbase "$suite" "$dir.new" "$mirror" \
      > "$dir.debootstrap.log" 2>&1 ||
      die "debootstrap failed (log: $dir.debootstrap.log)"
    mv "$dir.new" "$dir"
  fi
  # The virtual cluster binds each node's own /etc/hosts over this one.
  [ -e "$dir/etc/hosts" ] || echo "127.0.0.1 localhost" > "$dir/etc/hosts"
  local missing=() p
  for p in "${packages[@]}"; do
    chroot "$dir" dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
      grep -q "ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "sysroot.sh: installing into $dir: ${missing[*]}"
    in_root "$dir" / sh -c 'apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends "$@" >/dev/null' sh "${missing[@]}"
  fi
  echo "sysroot.sh: $dir: $(in_root "$dir" / sh -c 'mpichversion | head -1')"
}

# in_root DIR WD CMD...: CMD chrooted into DIR, in WD, in a private mount
# namespace with the machine's /proc, /sys, /dev (/dev/shm, /dev/pts),
# resolv.conf,
# the checkout and $VCLUSTER_DIR mounted in.
in_root() {
  local dir="$1" wd="$2"
  shift 2
  unshare --mount --propagation private -- /bin/sh -c '
    set -e
    dir="$1" wd="$2" tree="$3" state="$4"
    shift 4
    mount -t proc proc "$dir/proc"
    mount -t sysfs sysfs "$dir/sys"
    mount --bind /dev "$dir/dev"
    mount --bind /dev/shm "$dir/dev/shm"
    mount --bind /dev/pts "$dir/dev/pts"
    [ ! -f /etc/resolv.conf ] || mount --bind /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null ||
      cp /etc/resolv.conf "$dir/etc/resolv.conf"
    mkdir -p "$dir$tree"
    mount --bind "$tree" "$dir$tree"
    if [ -n "$state" ] && [ -d "$state" ]; then
      mkdir -p "$dir$state"
      mount --bind "$state" "$dir$state"
    fi
    exec chroot "$dir" /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$wd" "$@"
  ' sh "$dir" "$wd" "$root" "${VCLUSTER_DIR:-}" "$@"
}

cmd_run() {
  [ $# -ge 3 ] && [ "$2" = -- ] || die "usage: sysroot.sh run DIR -- CMD..."
  local dir
  dir="$(cd "$1" 2>/dev/null && pwd)" || die "run: no directory '$1'"
  shift 2
  need_root
  [ -x "$dir/bin/sh" ] || die "run: $dir is no root file system (sysroot.sh make)"
  case "$PWD/" in
    "$root"/*) ;;
    *) die "run: the working directory must lie in the checkout $root" ;;
  esac
  in_root "$dir" "$PWD" "$@"
}

[ $# -gt 0 ] || { usage >&2; exit 2; }
cmd="$1"
shift
case "$cmd" in
  make) cmd_make "$@" ;;
  run) cmd_run "$@" ;;
  -h|--help|help) usage ;;
  *) echo "sysroot.sh: unknown command '$cmd'" >&2
     echo "usage: scripts/sysroot.sh make [DIR] | run DIR -- CMD... | --help" >&2
     exit 2 ;;
esac
