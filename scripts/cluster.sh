#!/usr/bin/env bash
# A virtual cluster of separate hosts on this machine, for multi-node
# tests of DART across real host boundaries (root only).
#
#   scripts/cluster.sh up N [--root DIR]
#                                  N nodes (1..16), hostnames node0..node<N-1>
#   scripts/cluster.sh run [--mpi openmpi|mpich] [--nodes K] [--per-node P]
#                          [--timeout S] [--no-backtraces] -- <mpiexec args>
#   scripts/cluster.sh status      the nodes, their processes and addresses
#   scripts/cluster.sh down        removes every namespace, link and process
#   scripts/cluster.sh --help
#
# Each node is its own network, UTS, IPC and mount namespace, held by a
# "sleep infinity" process: its own hostname, /etc/hosts, sysfs (UCX finds
# its network device there), and a private tmpfs on /dev/shm and /tmp.
# One veth per node (cl0, 10.77.0.<10+i>/24) leads into a bridge that lives
# in a separate switch namespace; nothing is attached to the host's own
# interfaces and no address is configured outside these namespaces. The
# rest of the filesystem (the build tree) is the same on every node; a
# checkout that itself lies under /tmp or /dev/shm (CI may clone there)
# stays visible on every node at the same path.
#
# With --root DIR, what runs on the nodes runs chrooted into DIR, a root
# file system of another distribution (scripts/sysroot.sh makes one with
# Debian 13's MPICH 4.2), with the node's /proc, /sys, /dev, /dev/shm,
# /tmp, /etc/hosts, the checkout and the cluster's state directory mounted
# into it, inside the node's own mount namespace.
#
# run launches mpiexec inside node0's namespaces with a hostfile that puts
# P units on each of the first K nodes (default: all nodes, P = ceil(n/K)
# for "-n n"), and the launcher reaching the nodes through
# scripts/cluster-agent (nsenter, no ssh). It exports VCLUSTER_HOSTS
# ("node0:2,node1:2": host and units, in rank order) to every unit, bounds
# the run by --timeout (default $VCLUSTER_TIMEOUT or 300 s), prints the
# backtraces of every unit when the run hangs, and kills whatever the run
# left, by process id (each process of a run carries VCLUSTER_RUN=<id>
# in its environment). The exit code is mpiexec's, 124 on timeout.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${VCLUSTER_DIR:-/run/dart-cluster}"
net_prefix=10.77.0
subnet=$net_prefix.0/24
iface=cl0
max_nodes=16
# The checkout, when it lies where each node has its own tmpfs.
shared_tree=""
case "$root/" in /tmp/*|/dev/shm/*) shared_tree="$root" ;; esac

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}

die() {
  echo "cluster.sh: $*" >&2
  exit 2
}

need_root() {
  [ "$(id -u)" -eq 0 ] || die "must run as root (namespaces, veths, mounts)"
}

ns_of() { # ns_of PID KIND: "net:[4026...]", empty when the process is gone
  readlink "/proc/$1/ns/$2" 2>/dev/null || true
}

# The holder of a node is alive and still the process we started.
holder_ok() { # holder_ok PID NETNS
  [ -n "$1" ] && [ "$(ns_of "$1" net)" = "$2" ] &&
    [ "$(cat "/proc/$1/comm" 2>/dev/null)" = sleep ]
}

# Starts "sleep infinity" in new namespaces (unshare FLAGS...), detached
# from this shell, and prints its pid once it is inside them.
start_holder() {
  local pidfile="$dir/holder.tmp" pid="" i
  rm -f "$pidfile"
  # (9<&-: the holder must not keep the up/down lock open.)
  setsid sh -c 'echo $$ > "$0"; exec unshare "$@" sleep infinity' \
    "$pidfile" "$@" </dev/null >/dev/null 2>&1 9<&- &
  local self_net
  self_net="$(ns_of $$ net)"
  for ((i = 0; i < 200; ++i)); do
    if [ -s "$pidfile" ]; then
      pid="$(cat "$pidfile")"
      if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sleep ] &&
         [ "$(ns_of "$pid" net)" != "$self_net" ]; then
        rm -f "$pidfile"
        echo "$pid"
        return 0
      fi
    fi
    sleep 0.05
  done
  die "a namespace holder did not start"
}

in_ns() { # in_ns PID CMD...: run CMD in all of the node's namespaces
  local pid="$1"
  shift
  nsenter --target "$pid" --net --uts --ipc --mount -- "$@"
}

# Whether node PID reaches HOST: a TCP connection to its port 1, where
# nothing listens, is refused at once when the host is reachable.
reaches() { # reaches PID HOST
  local out
  out="$(in_ns "$1" timeout 2 bash -c ": > /dev/tcp/$2/1" 2>&1)" && return 0
  case "$out" in *refused*) return 0 ;; esac
  return 1
}

num_nodes() {
  cat "$dir/nodes" 2>/dev/null || echo 0
}

# node_field I FIELD (name ip pid netns)
node_field() {
  local name ip pid netns
  read -r name ip pid netns < "$dir/node.$1"
  case "$2" in
    name) echo "$name" ;; ip) echo "$ip" ;; pid) echo "$pid" ;;
    netns) echo "$netns" ;;
  esac
}

# Every process (pid) inside one of the cluster's network namespaces, the
# holders included.
cluster_pids() {
  local -A nets=()
  local i p n
  for ((i = 0; i < $(num_nodes); ++i)); do
    nets["$(node_field "$i" netns)"]=1
  done
  [ -f "$dir/switch" ] && nets["$(cut -d' ' -f2 "$dir/switch")"]=1
  for p in /proc/[0-9]*; do
    n="$(readlink "$p/ns/net" 2>/dev/null)" || continue
    if [ -n "${nets[$n]:-}" ]; then
      echo "${p#/proc/}"
    fi
  done
}

# The processes of one run: VCLUSTER_RUN=<id> in their environment.
run_pids() { # run_pids ID
  grep -lsxzF "VCLUSTER_RUN=$1" /proc/[0-9]*/environ |
    sed -n 's|^/proc/\([0-9]*\)/environ$|\1|p' || true
}

env_of() { # env_of PID VAR
  { grep -sxz "$2=.*" "/proc/$1/environ" || true; } | tr -d '\0' |
    sed -n "1s/^$2=//p"
}

kill_pids() { # kill_pids PID...: TERM, then KILL what is left after 2 s
  local p left i
  [ $# -gt 0 ] || return 0
  kill -TERM "$@" 2>/dev/null || true
  for ((i = 0; i < 20; ++i)); do
    left=()
    for p in "$@"; do
      kill -0 "$p" 2>/dev/null && left+=("$p")
    done
    [ ${#left[@]} -gt 0 ] || return 0
    sleep 0.1
  done
  kill -KILL "${left[@]}" 2>/dev/null || true
}

cmd_up() {
  local n="${1:-}" sysroot=""
  [ $# -eq 1 ] || { [ $# -eq 3 ] && [ "$2" = --root ]; } ||
    die "usage: cluster.sh up N [--root DIR]"
  if [ $# -eq 3 ]; then
    sysroot="$(cd "$3" 2>/dev/null && pwd)" || die "up: no directory '$3'"
    local d
    for d in bin/sh proc sys dev tmp etc/hosts usr/sbin/chroot; do
      [ -e "$sysroot/$d" ] || die "up: $sysroot is no root file system (no /$d)"
    done
  fi
  [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le $max_nodes ] ||
    die "up: N must be 1..$max_nodes, got '$n'"
  need_root
  if [ -f "$dir/nodes" ]; then
    die "a cluster of $(num_nodes) nodes is up ($dir); run 'cluster.sh down' first"
  fi
  mkdir -p "$dir"
  [ -z "$sysroot" ] || echo "$sysroot" > "$dir/root"
  # Partial set-ups are removed again.
  trap 'echo "cluster.sh: up failed, removing what was made" >&2; cmd_down >&2' ERR
  local sw i pid hosts="$dir/hosts"
  sw="$(start_holder --net)"
  echo "$sw $(ns_of "$sw" net)" > "$dir/switch"
  nsenter --target "$sw" --net -- sh -c \
    'ip link set dev lo up && ip link add name br0 type bridge &&
     ip link set dev br0 up'
  {
    echo "127.0.0.1 localhost"
    for ((i = 0; i < n; ++i)); do
      echo "$net_prefix.$((10 + i)) node$i"
    done
  } > "$hosts"
  for ((i = 0; i < n; ++i)); do
    pid="$(start_holder --net --uts --ipc --mount --propagation private)"
    echo "node$i $net_prefix.$((10 + i)) $pid $(ns_of "$pid" net)" \
      > "$dir/node.$i"
    echo "$((i + 1))" > "$dir/nodes"
    # The veth: the switch's end on the bridge, the node's end as cl0.
    nsenter --target "$sw" --net -- sh -c \
      "ip link add name sw$i type veth peer name $iface netns $pid &&
       ip link set dev sw$i master br0 && ip link set dev sw$i up"
    in_ns "$pid" sh -c "
      set -e
      hostname node$i
      ip link set dev lo up
      ip addr add $net_prefix.$((10 + i))/24 dev $iface
      ip link set dev $iface up
      mount -t sysfs sysfs /sys
      keep='$dir/keep.$i' tree='$shared_tree'
      if [ -n \"\$tree\" ]; then
        mkdir -p \"\$keep\"
        mount --bind \"\$tree\" \"\$keep\"
      fi
      mount -t tmpfs -o mode=1777 tmpfs /dev/shm
      mount -t tmpfs -o mode=1777 tmpfs /tmp
      if [ -n \"\$tree\" ]; then
        mkdir -p \"\$tree\"
        mount --move \"\$keep\" \"\$tree\"
      fi
      mount --bind '$hosts' /etc/hosts
      r='$sysroot' state='$dir' tree='$root'
      if [ -n \"\$r\" ]; then
        mount -t proc proc \"\$r/proc\"
        mount -t sysfs sysfs \"\$r/sys\"
        mount --bind /dev \"\$r/dev\"
        mount --bind /dev/shm \"\$r/dev/shm\"
        mount --bind /tmp \"\$r/tmp\"
        mount --bind /etc/hosts \"\$r/etc/hosts\"
        mkdir -p \"\$r\$tree\" \"\$r\$state\"
        mount --bind \"\$tree\" \"\$r\$tree\"
        mount --bind \"\$state\" \"\$r\$state\"
      fi"
  done
  trap - ERR
  # Every node reaches every other before anyone uses the cluster.
  for ((i = 0; i < n; ++i)); do
    local j ok=0 k
    pid="$(node_field "$i" pid)"
    for ((k = 0; k < 50 && ok == 0; ++k)); do
      ok=1
      for ((j = 0; j < n; ++j)); do
        reaches "$pid" "node$j" || ok=0
      done
      [ $ok -eq 1 ] || sleep 0.1
    done
    [ $ok -eq 1 ] || { cmd_down >&2; die "node$i does not reach all nodes"; }
  done
  echo "cluster up: $n nodes (node0..node$((n - 1)), $subnet on $iface)"
}

cmd_down() {
  [ $# -eq 0 ] || die "usage: cluster.sh down"
  need_root
  [ -d "$dir" ] || { echo "cluster down: nothing was up"; return 0; }
  local pids=() p
  # Whatever runs in the nodes (holders, launchers, units), by pid.
  mapfile -t pids < <(cluster_pids)
  kill_pids "${pids[@]}"
  # The namespaces go with their last process; so do the veths, the
  # bridge and the mounts (/sys, /dev/shm, /tmp, /etc/hosts) inside them.
  for ((p = 0; p < 50; ++p)); do
    [ -z "$(cluster_pids)" ] && break
    sleep 0.1
  done
  if [ -n "$(cluster_pids)" ]; then
    echo "cluster.sh: processes left in the cluster: $(cluster_pids | xargs)" >&2
    return 1
  fi
  rm -rf "$dir"
  echo "cluster down: ${#pids[@]} processes ended, namespaces removed"
}

cmd_status() {
  [ $# -eq 0 ] || die "usage: cluster.sh status"
  if [ ! -f "$dir/nodes" ]; then
    echo "cluster: down"
    return 3
  fi
  local n i pid netns bad=0 sw swns
  n="$(num_nodes)"
  read -r sw swns < "$dir/switch"
  echo "cluster: $n nodes, subnet $subnet, state in $dir"
  if [ "$(ns_of "$sw" net)" = "$swns" ]; then
    echo "  switch: pid $sw ($swns)"
  else
    echo "  switch: GONE (pid $sw)"
    bad=1
  fi
  for ((i = 0; i < n; ++i)); do
    pid="$(node_field "$i" pid)"
    netns="$(node_field "$i" netns)"
    if holder_ok "$pid" "$netns"; then
      echo "  $(node_field "$i" name): pid $pid, hostname $(in_ns "$pid" hostname)," \
           "$(in_ns "$pid" ip -4 -br addr show dev $iface | awk '{print $1, $3}')"
    else
      echo "  $(node_field "$i" name): GONE (pid $pid)"
      bad=1
    fi
  done
  echo "  processes in the cluster: $(cluster_pids | wc -l) (holders included)"
  return $bad
}

cmd_run() {
  local mpi=openmpi use_nodes="" per_node="" limit="${VCLUSTER_TIMEOUT:-300}"
  local backtraces=1
  while [ $# -gt 0 ]; do
    case "$1" in
      --mpi) [ $# -ge 2 ] || die "run: --mpi needs a value"
             mpi="$2"; shift 2 ;;
      --mpi=*) mpi="${1#--mpi=}"; shift ;;
      --nodes) [ $# -ge 2 ] || die "run: --nodes needs a value"
               use_nodes="$2"; shift 2 ;;
      --per-node) [ $# -ge 2 ] || die "run: --per-node needs a value"
                  per_node="$2"; shift 2 ;;
      --timeout) [ $# -ge 2 ] || die "run: --timeout needs a value"
                 limit="$2"; shift 2 ;;
      --no-backtraces) backtraces=0; shift ;;
      --) shift; break ;;
      *) die "run: unknown option '$1' (mpiexec arguments go after --)" ;;
    esac
  done
  case "$mpi" in openmpi|mpich) ;; *) die "run: --mpi must be openmpi or mpich" ;; esac
  [ $# -gt 0 ] || die "run: no mpiexec arguments after --"
  [[ "$limit" =~ ^[0-9]+$ ]] && [ "$limit" -gt 0 ] || die "run: bad --timeout '$limit'"
  need_root
  [ -f "$dir/nodes" ] || die "no cluster is up (cluster.sh up N)"
  case "$PWD/" in
    "${shared_tree:-/nonexistent}"/*) ;;
    /tmp/*|/dev/shm/*|/sys/*)
      die "run: the working directory $PWD is private to each node; run from elsewhere" ;;
  esac
  local n i units=""
  n="$(num_nodes)"
  for ((i = 0; i < n; ++i)); do
    holder_ok "$(node_field "$i" pid)" "$(node_field "$i" netns)" ||
      die "node$i is gone; run 'cluster.sh down' and 'up' again"
  done
  [ -z "$use_nodes" ] && use_nodes="$n"
  [[ "$use_nodes" =~ ^[0-9]+$ ]] && [ "$use_nodes" -ge 1 ] &&
    [ "$use_nodes" -le "$n" ] || die "run: --nodes must be 1..$n"
  # The unit count, from mpiexec's -n / -np: the first one, which comes
  # before the program (whose own arguments may have a -n too, as the
  # stencil's grid size).
  local a prev=""
  for a in "$@"; do
    case "$prev" in -n|-np|--np) units="$a"; break ;; esac
    prev="$a"
  done
  if [ -z "$per_node" ]; then
    if [[ "$units" =~ ^[0-9]+$ ]] && [ "$units" -gt 0 ]; then
      per_node=$(((units + use_nodes - 1) / use_nodes))
    else
      per_node=1
    fi
  fi
  [[ "$per_node" =~ ^[0-9]+$ ]] && [ "$per_node" -ge 1 ] || die "run: bad --per-node"
  # Units fill node0 first, then node1, ... (P each).
  local id rundir hostfile placed=0 left="${units:-$((per_node * use_nodes))}" hosts=""
  id="$(date +%s%N).$$"
  rundir="$dir/runs/$id"
  mkdir -p "$rundir"
  hostfile="$rundir/hostfile"
  : > "$hostfile"
  for ((i = 0; i < use_nodes; ++i)); do
    if [ "$mpi" = openmpi ]; then
      echo "node$i slots=$per_node" >> "$hostfile"
    else
      echo "node$i:$per_node" >> "$hostfile"
    fi
    if [ "$left" -gt 0 ]; then
      placed=$((left < per_node ? left : per_node))
      hosts="${hosts:+$hosts,}node$i:$placed"
      left=$((left - placed))
    fi
  done
  # Only mpiexec and what it starts carry the run's id (not this shell).
  local run_env=(VCLUSTER_RUN="$id" VCLUSTER_DIR="$dir"
                 VCLUSTER_HOSTS="$hosts")
  local agent="$root/scripts/cluster-agent" flags=()
  local tls="${UCX_TLS:-tcp,posix,self}" devs="${UCX_NET_DEVICES:-$iface}"
  if [ "$mpi" = openmpi ]; then
    flags=(--hostfile "$hostfile" --mca plm_rsh_agent "$agent"
           --mca plm_rsh_no_tree_spawn 1 --mca oob_tcp_if_include "$subnet"
           --mca btl self,vader,tcp --mca btl_tcp_if_include "$subnet"
           --mca pml ob1 -x UCX_TLS="$tls" -x UCX_NET_DEVICES="$devs"
           -x VCLUSTER_RUN -x VCLUSTER_DIR -x VCLUSTER_HOSTS)
    # No one-sided components: DART chooses its own (core/quirks.h,
    # mpi_quirks_before_init). A program that starts MPI itself needs
    # OMPI_MCA_osc=sm,ucx in the environment (mpiexec passes it on):
    # Open MPI's default, osc rdma, cannot run over TCP (MPI_ERR_WIN in
    # MPI_Win_allocate).
    # The hosts share this machine's cores, and Open MPI binds each host's
    # first unit to its core 0 (its default up to 2 units): the units of
    # both hosts then take turns on one core, and every message waits for
    # a context switch (8 B put across hosts 91 us bound, 29 us not). A
    # binding given after -- wins.
    case " $* " in
      *" --bind-to "*|*" --bind-to="*) ;;
      *) flags+=(--bind-to none) ;;
    esac
    # Remote units see what the environment of the test sets.
    local v
    while IFS='=' read -r v _; do
      case "$v" in
        UCX_TLS|UCX_NET_DEVICES|VCLUSTER_*) ;;
        DART_*|UCX_*|ASAN_*|UBSAN_*|LSAN_*) flags+=(-x "$v") ;;
      esac
    done < <(env)
    mpiexec=mpiexec.openmpi
  else
    flags=(-launcher rsh -launcher-exec "$agent" -f "$hostfile" -iface "$iface"
           -genv UCX_TLS "$tls" -genv UCX_NET_DEVICES "$devs")
    mpiexec=mpiexec.mpich
  fi
  local pid0 mpid tpid rc=0
  pid0="$(node_field 0 pid)"
  local sysroot=""
  [ -f "$dir/root" ] && sysroot="$(cat "$dir/root")"
  in_ns_wd() {
    if [ -n "$sysroot" ]; then
      nsenter --target "$pid0" --net --uts --ipc --mount -- chroot "$sysroot" \
        /bin/sh -c 'cd "$0" && exec "$@"' "$PWD" "$@"
    else
      nsenter --target "$pid0" --net --uts --ipc --mount --wdns="$PWD" -- "$@"
    fi
  }
  finish() { # kill what is left of this run, remove its files
    local left=()
    mapfile -t left < <(run_pids "$id")
    kill_pids "${left[@]}"
    rm -rf "$rundir"
  }
  trap 'finish; exit 143' TERM INT HUP
  in_ns_wd env "${run_env[@]}" "$mpiexec" "${flags[@]}" "$@" &
  mpid=$!
  sleep "$limit" &
  tpid=$!
  wait -n "$mpid" "$tpid" || true
  if kill -0 "$mpid" 2>/dev/null; then
    rc=124
    echo "cluster.sh: run timed out after $limit s: $*" >&2
    local p rank host
    for p in $(run_pids "$id"); do
      rank="$(env_of "$p" OMPI_COMM_WORLD_RANK)"
      [ -n "$rank" ] || rank="$(env_of "$p" PMI_RANK)"
      [ -n "$rank" ] && [ $backtraces -eq 1 ] || continue
      host="$(readlink "/proc/$p/ns/uts")"
      echo "=== unit $rank (pid $p, $(cat "/proc/$p/comm" 2>/dev/null)," \
           "node $(nsenter --target "$p" --uts hostname 2>/dev/null || echo "$host"))" >&2
      timeout 60 gdb -batch -nx -ex "thread apply all bt" -p "$p" 2>&1 |
        grep -E '^(Thread|#)' >&2 || true
    done
    finish
    wait "$mpid" 2>/dev/null || true
  else
    wait "$mpid" || rc=$?
  fi
  kill "$tpid" 2>/dev/null || true
  wait "$tpid" 2>/dev/null || true
  # A unit still alive after mpiexec returned is a failure too.
  local stray=()
  mapfile -t stray < <(for p in $(run_pids "$id"); do
                         [ -n "$(env_of "$p" OMPI_COMM_WORLD_RANK)$(env_of "$p" PMI_RANK)" ] &&
                           echo "$p"
                       done)
  if [ ${#stray[@]} -gt 0 ] && [ $rc -eq 0 ]; then
    echo "cluster.sh: units still running after mpiexec returned: ${stray[*]}" >&2
    rc=125
  fi
  trap - TERM INT HUP
  finish
  return $rc
}

[ $# -gt 0 ] || { usage >&2; exit 2; }
cmd="$1"
shift
case "$cmd" in
  # One up or down at a time (the lock is on this script, no file is left).
  up) exec 9<"$0"; flock 9; cmd_up "$@" ;;
  down) exec 9<"$0"; flock 9; cmd_down "$@" ;;
  status) cmd_status "$@" ;;
  run) cmd_run "$@" ;;
  -h|--help|help) usage ;;
  *) echo "cluster.sh: unknown command or option '$cmd'" >&2
     echo "usage: scripts/cluster.sh up N | run [options] -- <mpiexec args>" \
          "| status | down | --help" >&2
     exit 2 ;;
esac
