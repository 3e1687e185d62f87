#!/usr/bin/env bash
# Benchmark 9c: projects the bootstrap's per-node cost to large machines
# from per-operation costs (see benchmarks/bootstrap_model.md for the
# model and its assumptions). Every input can be overridden:
#   T_READ_NS=16 ALPHA_US=2 NIC_GBS=12.5 MEM_GBS=10 UNITS_PER_NODE=64 \
#   benchmarks/bootstrap_model.sh [nodes...]
set -euo pipefail
t_read_ns="${T_READ_NS:-16}"     # one record read/written in memory (bench-nodedb)
alpha_us="${ALPHA_US:-2}"        # latency of one step of a network allgather
nic_gbs="${NIC_GBS:-12.5}"       # node injection bandwidth, GB/s (100 Gb/s)
mem_gbs="${MEM_GBS:-10}"         # node memory bandwidth for copies, GB/s
n="${UNITS_PER_NODE:-64}"
slot="${SLOT_BYTES:-304}"        # record + state word as node roots send it
rec="${RECORD_BYTES:-292}"       # struct unit_record, as naive units send it
nodes=("$@")
[ ${#nodes[@]} -gt 0 ] || nodes=(1000 16000)
printf '%-7s %-10s %9s %12s %12s %12s %12s %10s\n' nodes mode units \
  "in MB/node" "net ms" "copy ms" "read ms" "total ms"
for N in "${nodes[@]}"; do
  awk -v N="$N" -v n="$n" -v s="$slot" -v r="$rec" -v tr="$t_read_ns" \
      -v a="$alpha_us" -v nic="$nic_gbs" -v mem="$mem_gbs" 'BEGIN {
    P = N * n
    steps_roots = int(log(N) / log(2) + 0.999999)
    steps_all = int(log(P) / log(2) + 0.999999)
    # node-roots: the root receives the other nodes tables once; units
    # write one record each; the root indexes P records.
    in_nr = (P - n) * s + 32 * (N - 1)
    net_nr = steps_roots * a / 1e3 + in_nr / (nic * 1e6)
    copy_nr = in_nr / (mem * 1e6)
    read_nr = P * tr / 1e6
    # naive: every unit receives every record; the node receives n copies
    # and each unit scans its own copy (in parallel on the node).
    in_nv = n * (P - 1) * r
    net_nv = steps_all * a / 1e3 + in_nv / (nic * 1e6)
    copy_nv = in_nv / (mem * 1e6)
    read_nv = P * tr / 1e6
    # on-demand: only the job map (4 B per unit) at init.
    in_od = (P - n) * 4 + 32 * (N - 1)
    net_od = steps_roots * a / 1e3 + in_od / (nic * 1e6)
    copy_od = in_od / (mem * 1e6)
    printf "%-7d %-10s %9d %12.1f %12.2f %12.2f %12.2f %10.2f\n", N, "node-roots", P, in_nr / 1e6, net_nr, copy_nr, read_nr, net_nr + copy_nr + read_nr
    printf "%-7d %-10s %9d %12.1f %12.2f %12.2f %12.2f %10.2f\n", N, "naive", P, in_nv / 1e6, net_nv, copy_nv, read_nv, net_nv + copy_nv + read_nv
    printf "%-7d %-10s %9d %12.1f %12.2f %12.2f %12.2f %10.2f\n", N, "on-demand", P, in_od / 1e6, net_od, copy_od, 0, net_od + copy_od
  }'
done
