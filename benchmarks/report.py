#!/usr/bin/env python3
"""Turns one scripts/bench.sh result directory into summary.md (a headline
table of DART against the physical limit and the best peer, then markdown
tables with DART's ratios to each peer), apps.csv and, with gnuplot, PNG
plots. Usage: report.py DIR PLOTS(0|1). With --docs ROOT instead, writes
ROOT/docs/benchmarks.md from the published summaries (write_docs).
Standard library only."""
import csv
import os
import re
import statistics
import subprocess
import sys

import report_locks


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def fmt(v, digits=1):
    """digits decimals; three significant digits where that many decimals
    would show nothing (GUP/s across hosts)."""
    if v is None:
        return "n/a"
    if v != 0 and abs(v) < 10 ** -digits:
        return f"{v:.3g}"
    return f"{v:.{digits}f}"


def ratio(a, b):
    """a / b to two decimals, or n/a."""
    return "n/a" if a is None or not b else f"{a / b:.2f}"


def size_label(b):
    b = int(b)
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale and b % scale == 0:
            return f"{b // scale} {unit}"
    return f"{b} B"


def launch_files(d, stem):
    """stem-1.csv, stem-2.csv, ... (one per launch), or stem.csv alone
    (result directories from before launches were repeated)."""
    runs = sorted((f for f in os.listdir(d)
                   if f.startswith(stem + "-") and f.endswith(".csv")),
                  key=lambda f: int(f[len(stem) + 1:-4])
                  if f[len(stem) + 1:-4].isdigit() else 0)
    if runs:
        return [os.path.join(d, f) for f in runs]
    return [os.path.join(d, stem + ".csv")]


# bench-latency's operations in the report, by the prefix of their name;
# the keys are also the operation names shmem-latency writes.
LATENCY_OPS = (("dart_put_blocking", "put"), ("dart_get_blocking", "get"),
               ("dart_fetch_and_op", "fetch_and_op"),
               ("dart_compare_and_swap", "compare_and_swap"),
               ("dart_accumulate", "accumulate"))
# The atomics (one long, 8 B), with what each model runs for them.
ATOMIC_OPS = (("fetch_and_op", "fetch-and-op SUM long",
               "dart_fetch_and_op + dart_flush_local",
               "__atomic_fetch_add", "MPI_Fetch_and_op + MPI_Win_flush_local",
               "shmem_long_atomic_fetch_add"),
              ("compare_and_swap", "compare-and-swap long",
               "dart_compare_and_swap + dart_flush_local",
               "__atomic_compare_exchange_n",
               "MPI_Compare_and_swap + MPI_Win_flush_local",
               "shmem_long_atomic_compare_swap"),
              ("accumulate", "accumulate BXOR long",
               "dart_accumulate + dart_flush", "__atomic_fetch_xor",
               "MPI_Accumulate + MPI_Win_flush",
               "shmem_long_atomic_xor + shmem_quiet"))
ATOMIC_BYTES = 8
# The target for an atomic inside a node: DART at most this many times
# the CPU atomic it ends in, i.e. the bookkeeping around the instruction
# (checks, the flush) costs no more than the instruction itself.
ATOMIC_GOAL = 2.0


def latency_op(name):
    for prefix, op in LATENCY_OPS:
        if name.startswith(prefix):
            return op
    return None


def layout(d):
    """Where the units ran (layout.txt of bench.sh), "one node" before."""
    path = os.path.join(d, "layout.txt")
    if os.path.exists(path):
        with open(path) as f:
            return f.read().strip() or "one node"
    return "one node"


def latency_by_size(d, stem="latency-dart-mpi", shmem_stem="latency-shmem"):
    """{(op, bytes): {model: median ns over launches, "dart/raw": [ratio in
    each launch]}} from bench-latency (files `stem`-N.csv) and
    shmem-latency (`shmem_stem`-N.csv; None: no OpenSHMEM column)."""
    samples = {}
    for path in launch_files(d, stem):
        for row in read_csv(path):
            op = latency_op(row["operation"])
            if op is None or " + dart_flush" in row["operation"] and \
                    op in ("put", "get"):
                continue
            cell = samples.setdefault((op, int(row["bytes"])), {})
            for model, column in (("dart", "dart_ns"),
                                  ("mpi-allocate", "mpi_allocate_ns"),
                                  ("mpi-dynamic", "mpi_dynamic_ns"),
                                  ("raw-shm", "raw_shm_ns")):
                cell.setdefault(model, []).append(num(row[column]))
            dart, raw = num(row["dart_ns"]), num(row["raw_shm_ns"])
            if dart is not None and raw:
                cell.setdefault("dart/raw", []).append(dart / raw)
    known = {op for _, op in LATENCY_OPS}
    for path in launch_files(d, shmem_stem) if shmem_stem else []:
        for row in read_csv(path):
            if row["operation"] not in known:
                continue
            cell = samples.setdefault((row["operation"], int(row["bytes"])),
                                      {})
            cell.setdefault("openshmem", []).append(num(row["ns"]))
    table = {}
    for key, cell in samples.items():
        out = table.setdefault(key, {})
        for model, values in cell.items():
            if model == "dart/raw":
                out[model] = values
                continue
            ok = [v for v in values if v is not None]
            out[model] = statistics.median(ok) if ok else None
    return table


def latency_by_target(d):
    """{(op, bytes, target): {model: ns, 'same': bool}}."""
    table = {}
    for name in ("distance-dart-mpi.csv", "distance-shmem.csv"):
        for row in read_csv(os.path.join(d, name)):
            key = (row["operation"], int(row["bytes"]), int(row["target"]))
            cell = table.setdefault(key, {})
            cell[row["model"]] = num(row["ns"])
            if row["model"] != "openshmem":
                cell["same"] = row["same_node"] == "1"
    return table


def app_results(d):
    """RESULT lines of apps.txt as dicts."""
    rows = []
    path = os.path.join(d, "apps.txt")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                fields = dict(kv.split("=", 1) for kv in line.split()[1:]
                              if "=" in kv)
                rows.append(fields)
    return rows


def app_table(rows):
    """Medians per (kernel, config, units, oversubscribed, model)."""
    groups = {}
    for r in rows:
        if r.get("kernel") == "random-access":
            config = f"RandomAccess 2^{r['log2_local']} words/unit"
            # From the counts: the printed GUP/s has 6 decimals, which
            # rounds runs across hosts (1e-6 GUP/s) to nothing.
            updates, seconds = num(r.get("updates")), num(r.get("seconds"))
            value = updates / seconds / 1e9 if updates and seconds \
                else num(r["gups"])
            better = "higher"
        else:
            conv = " to convergence" if r.get("converged") == "yes" else ""
            config = f"stencil {r['n']}^2, {r['iters']} it.{conv}"
            value, better = num(r["us_per_iter"]), "lower"
        key = (r["kernel"], config, int(r["units"]), r["oversubscribed"])
        g = groups.setdefault(key, {"better": better, "models": {},
                                    "runs": {}, "failed": set(),
                                    "phases": {}})
        g["models"].setdefault(r["model"], []).append(value)
        split = [num(r.get(k)) for k in ("sweep_us_fastest",
                                          "sweep_us_slowest", "halo_us")]
        if value is not None and None not in split:
            g["phases"].setdefault(r["model"], []).append([value] + split)
        if value is not None and "run" in r:
            g["runs"].setdefault(r["model"], {})[r["run"]] = value
        if r.get("verify") == "fail":
            g["failed"].add(r["model"])
    return groups


def runs_ahead(g, peer):
    """'k/n': of the n runs with results for DART and `peer`, the k in
    which DART was faster."""
    mine, theirs = g["runs"].get("dart", {}), g["runs"].get(peer, {})
    both = [r for r in mine if r in theirs]
    if not both:
        return "n/a"
    higher = g["better"] == "higher"
    ahead = sum(1 for r in both
                if (mine[r] > theirs[r] if higher else mine[r] < theirs[r]))
    return f"{ahead}/{len(both)}"


def app_rows(groups, how):
    """Markdown table of the app results, each model summarised by `how`:
    the median of its runs, or its best run (the one least disturbed by
    other work on the machine)."""
    title = {"median": "Median of the runs",
             "best": "Best run of each (highest GUP/s, lowest time)"}[how]
    out = [f"### RandomAccess and stencil: DART vs the peers ({how})\n",
           f"{title}; speed-up = how many times faster DART is (GUP/s "
           "ratio, or peer time / DART time), > 1 means DART is ahead.\n",
           "| kernel | units | DART | MPI RMA | OpenSHMEM | "
           "speed-up vs MPI RMA | speed-up vs OpenSHMEM |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    if how == "median":
        out[1] += ("The models take turns run by run; \"DART ahead\" k/n: "
                   "in k of the n runs DART beat the peer's run next to "
                   "it.\n")
        out[2] += " DART ahead of MPI RMA | DART ahead of OpenSHMEM |"
        out[3] += "---:|---:|"
    for key in sorted(groups, key=lambda k: (k[2], k[0], k[1])):
        kernel, config, units, over = key
        g = groups[key]
        higher = g["better"] == "higher"
        pick = {}
        for m, v in g["models"].items():
            if None in v:
                continue
            if how == "median":
                pick[m] = statistics.median(v)
            else:
                pick[m] = max(v) if higher else min(v)
        unit = "GUP/s" if higher else "us/iteration"
        d_ = pick.get("dart")

        def speedup(peer):
            p = pick.get(peer)
            if d_ is None or p is None:
                return "n/a"
            return ratio(d_, p) if higher else ratio(p, d_)
        digits = 4 if higher else 1
        label = f"{units}" + (" (oversubscribed)" if over == "yes" else "")
        if g["failed"]:
            config += " - VERIFICATION FAILED: " + ", ".join(
                sorted(g["failed"]))
        row = (f"| {config} ({unit}) | {label} | "
               f"{fmt(d_, digits)} | {fmt(pick.get('mpi-rma'), digits)} | "
               f"{fmt(pick.get('openshmem'), digits)} | "
               f"{speedup('mpi-rma')} | {speedup('openshmem')} |")
        if how == "median":
            row += (f" {runs_ahead(g, 'mpi-rma')} |"
                    f" {runs_ahead(g, 'openshmem')} |")
        out.append(row)
    out.append("")
    return out


VARIANTS = (
    ("dart-mpich", "The apps with DART on MPICH (median)",
     "DART on MPICH",
     "Same hosts, network and runs as above: DART built against MPICH, "
     "next to DART and the peers on Open MPI (OpenSHMEM exists only "
     "there); speed-up = how many times faster DART on MPICH is. Across "
     "hosts DART on Open MPI runs on osc/pt2pt (scripts/bench.sh), which "
     "sends a flush's batch of accumulates as one message; MPICH sends "
     "one active message per batch as well.\n"),
    ("dart-message", "RandomAccess with DART's atomics by message (median)",
     "DART, atomics by message",
     "Same hosts, network and runs as above: DART on Open MPI with "
     "DART_REMOTE_ATOMICS=message (dart-impl/mpi/rma/am_atomics.h): a "
     "flush's accumulates to a unit go as one message that DART at the "
     "unit applies, instead of one MPI_Accumulate that MPI applies; "
     "speed-up = how many times faster that is.\n"),
)


def variant_app_rows(groups, model, title, label, text):
    """Across hosts: a variant of DART (`model` in apps.txt) next to DART
    and the peers on Open MPI, same hosts and runs (bench.sh)."""
    keys = [k for k in groups if model in groups[k]["models"]]
    if not keys:
        return []
    out = [f"### {title}\n", text,
           f"| kernel | units | {label} | DART on Open MPI | MPI RMA | "
           "OpenSHMEM | speed-up vs DART on Open MPI | speed-up vs "
           "OpenSHMEM |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for key in sorted(keys, key=lambda k: (k[2], k[0], k[1])):
        kernel, config, units, over = key
        g = groups[key]
        higher = g["better"] == "higher"
        med = {m: statistics.median(v) for m, v in g["models"].items()
               if v and None not in v}
        mine = med.get(model)

        def speedup(peer):
            p = med.get(peer)
            if mine is None or p is None:
                return "n/a"
            return ratio(mine, p) if higher else ratio(p, mine)
        digits = 4 if higher else 1
        unit = "GUP/s" if higher else "us/iteration"
        if g["failed"]:
            config += " - VERIFICATION FAILED: " + ", ".join(
                sorted(g["failed"]))
        label_units = f"{units}" + (" (oversubscribed)" if over == "yes"
                                    else "")
        out.append(f"| {config} ({unit}) | {label_units} | "
                   f"{fmt(mine, digits)} | "
                   f"{fmt(med.get('dart'), digits)} | "
                   f"{fmt(med.get('mpi-rma'), digits)} | "
                   f"{fmt(med.get('openshmem'), digits)} | "
                   f"{speedup('dart')} | {speedup('openshmem')} |")
    out.append("")
    return out


def median_range(v, digits=1):
    """'median (min-max)' of per-run or per-launch values, the value alone
    for one, n/a for none: "1.21 (1.08-1.35)"."""
    if not v:
        return "n/a"
    if len(v) == 1:
        return fmt(v[0], digits)
    return (f"{fmt(statistics.median(v), digits)} "
            f"({fmt(min(v), digits)}-{fmt(max(v), digits)})")


def phase_rows(d, groups):
    """Where a stencil iteration goes, from the runs made with --phases;
    every run is also written to stencil-phases.csv."""
    names = (("dart", "DART"), ("mpi-rma", "MPI RMA"),
             ("openshmem", "OpenSHMEM"))
    csv_rows = [("config", "units", "oversubscribed", "model", "us_per_iter",
                 "sweep_us_fastest", "sweep_us_slowest", "halo_us")]
    out = []
    for key in sorted(groups, key=lambda k: (k[2], k[1])):
        _, config, units, over = key
        runs = groups[key]["phases"]
        csv_rows += [(config, units, over, m) + tuple(r)
                     for m in sorted(runs) for r in runs[m]]
        if not runs:
            continue
        if not out:
            out = ["### Stencil: where an iteration goes (us, median of the "
                   "runs)\n",
                   "From `--phases`: the local sweeps of the fastest and of "
                   "the slowest unit (with their range over the runs), the "
                   "halo puts of the unit slowest in them, and the rest of "
                   "the iteration (total - slowest sweeps - halo puts): the "
                   "barrier, the reduction and the wait for the slower "
                   "unit. The sweeps are the same code in every model; only "
                   "the halo puts and the rest depend on the runtime.\n",
                   "| kernel | units | model | per iteration | "
                   "sweeps, fastest unit | sweeps, slowest unit | "
                   "halo puts | rest |",
                   "|---|---:|---|---:|---:|---:|---:|---:|"]
        label = f"{units}" + (" (oversubscribed)" if over == "yes" else "")
        for m, name in names:
            if m not in runs:
                continue
            cols = list(zip(*runs[m]))
            rest = [t - slow - halo for t, _, slow, halo in runs[m]]
            out.append(f"| {config} | {label} | {name} | "
                       f"{fmt(statistics.median(cols[0]))} | "
                       f"{median_range(cols[1])} | "
                       f"{median_range(cols[2])} | "
                       f"{fmt(statistics.median(cols[3]), 2)} | "
                       f"{fmt(statistics.median(rest))} |")
    if not out:
        return []
    with open(os.path.join(d, "stencil-phases.csv"), "w", newline="") as f:
        csv.writer(f).writerows(csv_rows)
    return out + [""]


def latency_rows(title, launches, size_tab):
    out = [f"\n### {title} (ns, median)\n",
           f"Median of {launches} launch(es), each the median of its "
           "rounds; DART / raw is taken inside each launch (median, and "
           "range over the launches), since this VM runs a whole launch "
           "in a faster or a slower state.\n",
           "| op | size | DART | raw shm copy | MPI Win_allocate | "
           "MPI dynamic window | OpenSHMEM | DART / raw | "
           "DART / MPI allocate | DART / MPI dynamic | DART / OpenSHMEM |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    order = {op: i for i, (_, op) in enumerate(LATENCY_OPS)}
    for (op, b) in sorted(size_tab, key=lambda k: (order[k[0]], k[1])):
        if op not in ("put", "get"):
            continue
        c = size_tab[(op, b)]
        raw = c.get("dart/raw", [])
        out.append(f"| {op} | {size_label(b)} | {fmt(c.get('dart'))} | "
                   f"{fmt(c.get('raw-shm'))} | {fmt(c.get('mpi-allocate'))} | "
                   f"{fmt(c.get('mpi-dynamic'))} | "
                   f"{fmt(c.get('openshmem'))} | "
                   f"{median_range(raw, 2) if raw else 'n/a'} | "
                   f"{ratio(c.get('dart'), c.get('mpi-allocate'))} | "
                   f"{ratio(c.get('dart'), c.get('mpi-dynamic'))} | "
                   f"{ratio(c.get('dart'), c.get('openshmem'))} |")
    return out


def atomics_rows(title, launches, size_tab):
    """The atomics at 8 B, DART beside the CPU atomic and the peers; []
    when the latency runs have no atomics (result directories from before
    they were measured)."""
    cells = [(a, size_tab.get((a[0], ATOMIC_BYTES))) for a in ATOMIC_OPS]
    cells = [(a, c) for a, c in cells if c]
    if not cells:
        return []
    out = [f"\n### {title} (ns, median)\n",
           f"One long on unit 1, each operation followed by the flush that "
           f"completes it. Median of {launches} launch(es), each the median "
           "of its rounds; DART / raw is taken inside each launch (median, "
           "and range over the launches). The target of every model is "
           "checked after the runs; a model that left a wrong value there "
           "shows n/a. Goal: DART at most "
           f"{ATOMIC_GOAL:g}x the CPU atomic.\n",
           "| operation | DART | raw CPU atomic | MPI Win_allocate | "
           "OpenSHMEM | DART / raw | DART / MPI | DART / OpenSHMEM | "
           f"DART <= {ATOMIC_GOAL:g}x raw |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for (op, label, *_), c in cells:
        raw = c.get("dart/raw", [])
        goal = "n/a"
        if raw:
            goal = "yes" if statistics.median(raw) <= ATOMIC_GOAL else "no"
        out.append(f"| {label} | {fmt(c.get('dart'))} | "
                   f"{fmt(c.get('raw-shm'))} | "
                   f"{fmt(c.get('mpi-allocate'))} | "
                   f"{fmt(c.get('openshmem'))} | "
                   f"{median_range(raw, 2) if raw else 'n/a'} | "
                   f"{ratio(c.get('dart'), c.get('mpi-allocate'))} | "
                   f"{ratio(c.get('dart'), c.get('openshmem'))} | {goal} |")
    out.append("")
    out.append("Calls: " + "; ".join(
        f"{label}: DART {dart}, raw {raw}, MPI {mpi}, OpenSHMEM {shmem}"
        for _, label, dart, raw, mpi, shmem in ATOMIC_OPS) + ".")
    return out


def env_lines(d):
    """env.txt of bench.sh, one entry per line."""
    path = os.path.join(d, "env.txt")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.strip() for line in f if line.strip()]


def machine(d):
    """"2 cores, <CPU model>; MPI: ..." from env.txt, saying what it lacks."""
    env = env_lines(d)
    cores = next((m.group(1) for m in (re.search(r"(\d+) cores", line)
                                       for line in env) if m), None)
    cpu = next((line.split(":", 1)[1].strip() for line in env
                if line.startswith("cpu:")), None)
    mpi = next((line.split(":", 1)[1].strip() for line in env
                if line.startswith("MPI:")), None)
    return (f"{cores + ' cores' if cores else 'cores not recorded'}, "
            f"{cpu or 'CPU model not recorded'}; MPI: "
            f"{mpi or 'not recorded'}")


def best_of(peers, higher=False):
    """(name, value) of the best of (name, value) pairs, or (None, None)."""
    ok = [(n, v) for n, v in peers if v is not None]
    if not ok:
        return None, None
    return (max if higher else min)(ok, key=lambda p: p[1])


def headline(d, size_tab, groups):
    """The headline table: one row per measure with DART's value, the
    physical limit and the best peer, computed from the run's CSV files;
    a measure whose input is missing says so."""
    where = layout(d)
    rows, notes = [], []

    def row(name, dart, limit=None, over_limit="n/a", peer=None,
            over_peer="n/a"):
        rows.append(f"| {name} | {dart} | {limit or 'n/a'} | {over_limit} "
                    f"| {peer or 'n/a'} | {over_peer} |")

    def missing(name, why):
        row(name, f"not measured ({why})")

    def ns(v):
        return f"{fmt(v)} ns"

    lat_peers = (("mpi-allocate", "MPI Win_allocate"),
                 ("mpi-dynamic", "MPI dynamic window"),
                 ("openshmem", "OpenSHMEM"))

    def lat_row(name, op, b, limit_name):
        c = size_tab.get((op, b))
        if not c or c.get("dart") is None:
            missing(name, f"no {op} at {size_label(b)} in "
                          "latency-dart-mpi-*.csv")
            return
        peer, pv = best_of((label, c.get(m)) for m, label in lat_peers)
        raw = c.get("dart/raw", [])
        row(name, ns(c["dart"]),
            f"{ns(c['raw-shm'])} ({limit_name})"
            if c.get("raw-shm") is not None else None,
            median_range(raw, 2) if raw else "n/a",
            f"{ns(pv)} ({peer})" if peer else None,
            ratio(c["dart"], pv))

    def worst_row(op):
        sizes = sorted(b for (o, b) in size_tab if o == op)
        by = [(statistics.median(size_tab[(op, b)]["dart/raw"]), b)
              for b in sizes if size_tab[(op, b)].get("dart/raw")]
        name = f"{op}, worst DART / raw copy"
        if not sizes:
            missing(name, f"no {op} in latency-dart-mpi-*.csv")
            return
        if not by:
            row(name, "n/a (no raw copy: the target is on another node)")
            return
        _, b = max(by)
        lat_row(f"{name} over {size_label(sizes[0])} to "
                f"{size_label(sizes[-1])} (at {size_label(b)})", op, b,
                "raw copy")

    lat_row("put 8 B", "put", 8, "raw copy")
    lat_row("put 1 KiB", "put", 1024, "raw copy")
    worst_row("put")
    lat_row("get 8 B", "get", 8, "raw copy")
    worst_row("get")
    for op, label, *_ in ATOMIC_OPS:
        lat_row(f"{label} + flush", op, ATOMIC_BYTES, "CPU atomic")

    def lock_row(name, run, section, who, with_floor=False):
        """Hybrid lock against the MPI locks in one run of bench-locks,
        and against the run's ticket-lock floor where asked."""
        locks = report_locks.read(d, run)
        floor = (locks.get(("floor", "cpu", "", "xadd_store_ns"))
                 if with_floor else None)
        hybrid = locks.get((section, "hybrid", who, "ns"))
        if hybrid is None:
            missing(name, f"no locks-{run}.csv")
            return
        peer, pv = best_of((
            ("MCS lock on MPI atomics",
             locks.get((section, "mpi-mcs", who, "ns"))),
            ("MPI_Win_lock", locks.get((section, "mpi-win-lock", who, "ns")))))
        row(name, ns(hybrid),
            f"{ns(floor)} (lock xadd + store)" if floor else None,
            ratio(hybrid, floor), f"{ns(pv)} ({peer})" if peer else None,
            ratio(hybrid, pv))

    lock_row("lock acquire+release, other unit of the node", "node1", "a",
             "peer", with_floor=True)
    lock_row("lock acquire+release, unit on the other node", "nodes2", "e",
             "remote")

    app_peers = (("mpi-rma", "MPI RMA"), ("openshmem", "OpenSHMEM"))

    def app_row(name, key, unit, digits, model="dart"):
        if key is None:
            missing(name, "no result at 2 units in apps.txt")
            return
        g = groups[key]
        higher = g["better"] == "higher"
        med = {m: statistics.median(v) for m, v in g["models"].items()
               if v and None not in v}
        dart = med.get(model)
        if dart is None:
            missing(name, "no DART result in apps.txt")
            return
        if g["failed"]:
            name += " (VERIFICATION FAILED: " + ", ".join(
                sorted(g["failed"])) + ")"
        peer, pv = best_of(((label, med.get(m)) for m, label in app_peers),
                           higher)
        # Time ratio in every row: for GUP/s that is peer / DART.
        over = "n/a"
        if peer:
            over = ratio(pv, dart) if higher else ratio(dart, pv)
        row(name, f"{fmt(dart, digits)} {unit}", None, "n/a",
            f"{fmt(pv, digits)} {unit} ({peer})" if peer else None, over)

    pinned = [k for k in groups if k[2] == 2 and k[3] == "no"]
    ra = [k for k in pinned if k[0] == "random-access"]
    app_row("RandomAccess (2 units)", ra[0] if ra else None, "GUP/s", 4)
    if ra and "dart-mpich" in groups[ra[0]]["models"]:
        app_row("RandomAccess, DART on MPICH (2 units)", ra[0], "GUP/s", 4,
                "dart-mpich")
    if ra and "dart-message" in groups[ra[0]]["models"]:
        app_row("RandomAccess, DART atomics by message (2 units)", ra[0],
                "GUP/s", 4, "dart-message")

    def grid(k):
        m = re.search(r"stencil (\d+)\^2", k[1])
        return int(m.group(1)) if m else 0
    st = sorted((k for k in pinned if k[0] != "random-access"), key=grid)
    app_row(f"stencil small{f' {grid(st[0])}^2' if st else ''} (2 units)",
            st[0] if st else None, "us/it.", 1)
    app_row(f"stencil large{f' {grid(st[-1])}^2' if st else ''} (2 units)",
            st[-1] if len(st) > 1 else None, "us/it.", 1)

    barrier = [r for r in read_csv(os.path.join(d, "collectives.csv"))
               if r.get("operation") == "barrier"]
    if barrier:
        b = barrier[0]
        dart_us, mpi_us = num(b["dart_us"]), num(b["mpi_us"])
        row(f"barrier ({b['units']} units)", f"{fmt(dart_us, 2)} us", None,
            "n/a", f"{fmt(mpi_us, 2)} us (MPI_Barrier)",
            ratio(dart_us, mpi_us))
    else:
        notes.append("No barrier row: this directory has no collectives.csv "
                     "(bench-collectives was not run).")

    return ([f"### Headline: DART against the physical limit and the best "
             f"peer, 2 units on {where}\n",
             f"Machine: {machine(d)}.\n",
             "| measure | DART | physical limit | DART / physical limit | "
             "best peer | DART / best peer |",
             "|---|---:|---:|---:|---:|---:|"] + rows +
            ["",
             "Ratios are DART's time over the other's: below 1 DART is "
             "faster (for GUP/s the ratio of the times per update, peer "
             "GUP/s / DART GUP/s). Physical limit: the raw copy into the "
             "target's shared memory (put, get), the CPU atomic on the same "
             "line (atomics), an uncontended ticket lock (locks); n/a where "
             "there is none. DART / physical limit is taken inside each "
             "launch (median, and range over the launches). Best peer: the "
             "faster of MPI (Win_allocate or dynamic window; for locks "
             "MPI_Win_lock or the MCS lock on MPI atomics) and OpenSHMEM, "
             "as the detailed tables below show them."] +
            [line for n in notes for line in ("", n)] + [""])


# bench-pool's layouts as bench.sh runs them: (file suffix, heading).
POOL_LAYOUTS = (("node1", "one node"), ("nodes2", "2 simulated nodes"))


# bench-pool's tables of exposure changes: (CSV file stem, heading, what
# it shows, size column, timed call, CSV size field, CSV time field).
POOL_CHANGES = (
    ("pool-growth", "Local pool growth: one chunk per dart_memalloc "
     "(bench-pool, us, median of fresh pools)",
     "A fresh 1 MiB pool; every block is as large as what the pool has "
     "committed, so each dart_memalloc adds one chunk (commit + exposure "
     "change). change: the exposure change alone (local_pool_stats: "
     "exposure.last_change_ns); grace: the model t_maxdata + t_rrsched * "
     "runnable it waited, only when some unit reaches the pool by RMA "
     "(guarded: in how many of the pools). change - grace is what "
     "re-attaching the pool and publishing its size cost.",
     "block", "dart_memalloc", "block_bytes", "alloc_us"),
    ("pool-shrink", "Local pool shrink: one chunk per dart_memfree "
     "(bench-pool, us, median of the pools)",
     "The way back after each growth series: the blocks freed newest first "
     "with DART_POOL_SHRINK_MS=0, so each dart_memfree that empties the top "
     "chunk gives it back (flags at every unit, node peers included, grace, "
     "the smaller prefix re-attached, pages punched out; docs/design.md, "
     "\"The local pool\", step 6). change: that shrink "
     "(exposure.last_change_ns); grace: its model, from the size before "
     "it. Every shrink is guarded, on one node too.",
     "chunk released", "dart_memfree", "chunk_bytes", "free_us"),
)


def change_table(changes, heading, text, size_col, op, size_key, op_key):
    """One of POOL_CHANGES as markdown lines from its CSV rows (changes:
    layout -> rows), one row per exposure change: the chunk's size, the
    timed dart_memalloc or dart_memfree, the change and its grace model.
    [] without rows."""
    if not any(changes.values()):
        return []
    out = [f"\n### {heading}\n", text + "\n",
           f"| layout | {size_col} | committed after | {op} | change | "
           "grace (model) | t_maxdata | t_rrsched | runnable | "
           "change - grace | guarded |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for k, where in POOL_LAYOUTS:
        for r in changes[k]:
            change, grace = num(r["change_us"]), num(r["grace_us"])
            rest = change - grace if change is not None and \
                grace is not None else None
            out.append(f"| {where} | {size_label(r[size_key])} | "
                       f"{size_label(r['committed_bytes'])} | "
                       f"{fmt(num(r[op_key]))} | {fmt(change)} | "
                       f"{fmt(grace)} | {fmt(num(r['maxdata_us']))} | "
                       f"{fmt(num(r['rrsched_us']))} | "
                       f"{fmt(num(r['runnable']))} | {fmt(rest)} | "
                       f"{r['guarded']}/{r.get('pools', '?')} |")
    return out


def pool_rows(d):
    """The local pool's tables from bench-pool (pool-LAYOUT.csv,
    pool-growth-LAYOUT.csv, pool-shrink-LAYOUT.csv) and shmem-pool
    (pool-shmem.csv): allocate + free by size against MPI_Win_allocate and
    shmem_malloc, then every growth step's time and every shrink step's
    (the way back) beside the grace model. [] without those files."""
    alloc = {k: read_csv(os.path.join(d, f"pool-{k}.csv"))
             for k, _ in POOL_LAYOUTS}
    changes = [({k: read_csv(os.path.join(d, f"{stem}-{k}.csv"))
                 for k, _ in POOL_LAYOUTS}, *rest)
               for stem, *rest in POOL_CHANGES]
    shmem = {int(r["bytes"]): num(r["shmem_us"])
             for r in read_csv(os.path.join(d, "pool-shmem.csv"))}
    if not any(alloc.values()) and \
            not any(any(c[0].values()) for c in changes):
        return []
    out = []
    by_size = {}
    for k, _ in POOL_LAYOUTS:
        for r in alloc[k]:
            by_size.setdefault(int(r["bytes"]), {})[k] = r
    if by_size:
        out += ["\n### Local pool: allocate + free of one block, 2 units "
                "(bench-pool, us, median)\n",
                "dart_memalloc + dart_memfree in a pool that has room, "
                "against MPI_Win_allocate + MPI_Win_free of the same size on "
                "MPI_COMM_SELF and on MPI_COMM_WORLD (collective) measured "
                "in the same run, and OpenSHMEM's shmem_malloc + shmem_free "
                "(collective, shmem-pool). Every unit allocates at once; "
                "the slowest unit's time per operation, median of the "
                "rounds. Nothing is touched. The MPI columns are the "
                "one-node run's (MPI does not see simulated nodes).\n",
                "| size | DART, one node | DART, 2 simulated nodes | "
                "MPI Win_allocate SELF | MPI Win_allocate WORLD | "
                "OpenSHMEM | SELF / DART | WORLD / DART | "
                "OpenSHMEM / DART |",
                "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for b in sorted(by_size):
            one, two = by_size[b].get("node1", {}), by_size[b].get("nodes2",
                                                                     {})
            mpi = one or two
            dart = num(one.get("dart_us"))
            self_us, world_us = num(mpi.get("mpi_self_us")), \
                num(mpi.get("mpi_world_us"))
            out.append(f"| {size_label(b)} | {fmt(dart, 2)} | "
                       f"{fmt(num(two.get('dart_us')), 2)} | "
                       f"{fmt(self_us, 2)} | {fmt(world_us, 2)} | "
                       f"{fmt(shmem.get(b), 2)} | {ratio(self_us, dart)} | "
                       f"{ratio(world_us, dart)} | "
                       f"{ratio(shmem.get(b), dart)} |")
    for c in changes:
        out += change_table(*c)
    return out + [""]


def write_summary(d, size_tab, dist_tab, groups):
    out = headline(d, size_tab, groups)
    env = env_lines(d)
    if env:
        out += [f"- {line}" for line in env]
        out.append("")
    csv_rows = [("kernel", "config", "units", "oversubscribed", "model",
                 "runs", "median", "best", "unit")]
    for key in sorted(groups):
        g = groups[key]
        for m, v in g["models"].items():
            ok = [x for x in v if x is not None]
            best = (max(ok) if g["better"] == "higher" else min(ok)) if ok \
                else None
            csv_rows.append((key[0], key[1], key[2], key[3], m, len(v),
                             statistics.median(ok) if ok else None, best,
                             "GUP/s" if g["better"] == "higher"
                             else "us/iteration"))
    with open(os.path.join(d, "apps.csv"), "w", newline="") as f:
        csv.writer(f).writerows(csv_rows)
    out += app_rows(groups, "median")
    out += app_rows(groups, "best")
    for variant in VARIANTS:
        out += variant_app_rows(groups, *variant)
    out += phase_rows(d, groups)
    where = layout(d)
    launches = len(launch_files(d, "latency-dart-mpi"))
    out += atomics_rows("Atomics inside a node" if where == "one node" else
                        f"Atomics, 2 units on {where}", launches, size_tab)
    out += latency_rows(f"Blocking put/get latency by size, 2 units on "
                        f"{where}, Open MPI", launches, size_tab)
    mpich = latency_by_size(d, "latency-mpich", shmem_stem=None)
    if mpich:
        out += atomics_rows(f"Atomics with MPICH, 2 units on {where}",
                            len(launch_files(d, "latency-mpich")), mpich)
        out += latency_rows(f"The same with MPICH, 2 units on {where}",
                            len(launch_files(d, "latency-mpich")), mpich)
    message = latency_by_size(d, "latency-message")
    if message:
        out += atomics_rows(f"Atomics by message (DART_REMOTE_ATOMICS="
                            f"message), 2 units on {where}",
                            len(launch_files(d, "latency-message")), message)
    if dist_tab:
        out.append("\n### Latency by target unit (unit 0 to each), simulated "
                   "nodes, oversubscribed (ns, median)\n")
        out.append("Open MPI does not see DART's simulated nodes: its "
                   "Win_allocate window and OpenSHMEM stay on shared memory "
                   "there; DART and the MPI dynamic window cross the simulated "
                   "node boundary.\n")
        out.append("| op | size | target | same node | DART | MPI Win_allocate | "
                   "MPI dynamic window | OpenSHMEM | DART / MPI dynamic |")
        out.append("|---|---:|---:|---|---:|---:|---:|---:|---:|")
        for (op, b, t) in sorted(dist_tab):
            c = dist_tab[(op, b, t)]
            same = {True: "yes", False: "no"}.get(c.get("same"), "?")
            out.append(f"| {op} | {size_label(b)} | {t} | {same} | "
                       f"{fmt(c.get('dart'))} | {fmt(c.get('mpi-rma'))} | "
                       f"{fmt(c.get('mpi-dyn'))} | {fmt(c.get('openshmem'))} | "
                       f"{ratio(c.get('dart'), c.get('mpi-dyn'))} |")
    out += report_locks.summary(d)
    out += pool_rows(d)
    text = "\n".join(out) + "\n"
    with open(os.path.join(d, "summary.md"), "w") as f:
        f.write(text)
    return text


MODELS = (("dart", "DART"), ("raw-shm", "raw shm copy"),
          ("mpi-allocate", "MPI Win_allocate"),
          ("mpi-dynamic", "MPI dynamic window"), ("openshmem", "OpenSHMEM"))
DIST_MODELS = (("dart", "DART"), ("mpi-rma", "MPI Win_allocate"),
               ("mpi-dyn", "MPI dynamic window"), ("openshmem", "OpenSHMEM"))


def write_dat(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(" ".join("NaN" if v is None else str(v) for v in r) + "\n")


def plot(d, size_tab, dist_tab):
    script = ["set terminal pngcairo size 900,560 noenhanced",
              "set grid", "set key below horizontal", "set logscale y"]
    for op in ("put", "get"):
        sizes = sorted(b for (o, b) in size_tab if o == op)
        if not sizes:
            continue
        write_dat(os.path.join(d, f"latency-{op}.dat"),
                  [[b] + [size_tab[(op, b)].get(m) for m, _ in MODELS]
                   for b in sizes])
        series = ", ".join(
            f"'latency-{op}.dat' using 1:{i + 2} with linespoints "
            f"title '{name}'" for i, (_, name) in enumerate(MODELS))
        # Every size is plotted; with more than a dozen, every other one
        # is labelled so that the labels do not run into each other.
        step = 2 if len(sizes) > 12 else 1
        tics = ", ".join(f'"{size_label(b).replace(" ", "")}" {b}'
                         for b in sizes[::step])
        script += [f"set output 'latency-{op}.png'", "set logscale x 2",
                   f"set xtics ({tics})",
                   f"set title 'Blocking {op} latency, 2 units, "
                   f"{layout(d)} (median, log-log)'",
                   "set xlabel 'message size (bytes)'",
                   "set ylabel 'ns per operation'", f"plot {series}"]
    script.append("unset logscale x")
    for op in ("put", "get"):
        keys = sorted(t for (o, b, t) in dist_tab if o == op and b == 8)
        if not keys:
            continue
        write_dat(os.path.join(d, f"distance-{op}.dat"),
                  [[t] + [dist_tab[(op, 8, t)].get(m) for m, _ in DIST_MODELS]
                   for t in keys])
        series = ", ".join(
            f"'distance-{op}.dat' using 1:{i + 2} with linespoints "
            f"title '{name}'" for i, (_, name) in enumerate(DIST_MODELS))
        script += [f"set output 'distance-{op}.png'",
                   f"set title 'Blocking {op} 8 B from unit 0 to each unit "
                   "(simulated nodes, oversubscribed)'",
                   "set xlabel 'target unit'", "set xtics 1",
                   "set ylabel 'ns per operation'", f"plot {series}"]
    script += report_locks.plot_script(d)
    gp = os.path.join(d, "plots.gp")
    with open(gp, "w") as f:
        f.write("\n".join(script) + "\n")
    done = subprocess.run(["gnuplot", "plots.gp"], cwd=d,
                          capture_output=True, text=True)
    if done.returncode != 0:
        print("report.py: gnuplot failed:\n" + done.stderr, file=sys.stderr)
        return False
    return True


# docs/benchmarks.md: the published summaries (bench.sh --publish) with
# the text that says how to read them. The text lives here, next to the
# tables it explains, so that regenerating the page never loses it.
DOCS_TITLE = """\
# Benchmark results

This page is generated: `scripts/bench.sh --publish` (or, without
measuring again, `scripts/bench.sh --publish-only`) writes it from
`bench-results/latest/summary.md` and `bench-results/latest-cluster/summary.md`
through `benchmarks/report.py --docs`. Edit the text in that script, not here.
"""

# After the headline tables of the published summaries.
DOCS_HOW = """\
## How the numbers are taken

- **Machine.** A 2-core virtual machine; each section starts with the date,
  the MPI and the load average before and after the runs. Other work on the
  machine skews every number, so read ratios rather than absolute times.
  Each section is as of its date: code changed since then shows in
  `git log -- bench-results/` and in the next published run.
- **Who is compared.** DART against the same kernels on plain MPI RMA
  (`benchmarks/peers/mpi-*`: an `MPI_Win_allocate` window, and for latency
  also a dynamic window) and on OpenSHMEM (`shmem-*`, Open MPI's oshmem),
  and for latency against a raw copy into a node peer's shared memory, the
  floor of any put or get inside a node. Open MPI's one-sided components
  are the ones DART chooses, for every model: `OMPI_MCA_osc=sm,ucx` on one
  host, `sm,pt2pt` across hosts (`scripts/bench.sh`).
- **Placement.** 2 units pinned to the 2 cores unless a row says
  *oversubscribed* (4 units on 2 cores: one run, a functional view where
  the order changes from run to run). Across hosts: 2 hosts of the virtual
  cluster (`scripts/cluster.sh`: namespaces joined by veth, TCP), one unit
  per host.
- **Apps.** The models take turns run by run (a full run: 7 runs on one
  node, 3 across hosts), so a slow spell hits all of them alike; "DART ahead k/n" counts
  the runs in which DART beat the peer's run next to it. Speed-up > 1 means
  DART is faster. The large stencil also reports where an iteration goes
  (`--phases`): the local sweeps are the same compiled code in every model,
  only the halo puts and the synchronisation depend on the runtime, so when
  the sweeps take 95% of an iteration the order of the models follows the
  sweeps.
- **Latency by size.** Each launch reports the median of its rounds; the
  table gives the median over several launches (5 on one node, 3 across
  hosts), and DART / raw is taken inside each launch, because this VM runs
  a whole launch in a faster or a slower state. Every power of two from
  1 B to 4 MiB (1 MiB across hosts). A round is 300 operations of a size,
  more where 300 take less than 250 us (bench-latency's `ROUND_MIN_NS`):
  direct gets and atomics enter MPI for the others' progress at most every
  200 us (`target_direct_progress`), and the MPI kernels run between two
  DART rounds make that probe due at the start of each round. After
  one-sided traffic through MPI a probe costs 1.6-11 us: it doubled the
  time per get in a round of 1000 fast gets (bench-latency's default) and
  fell into a minority of the rounds of 300. In a round of 250 us or more
  it weighs what it does in a steady stream of gets (one probe per
  200 us, up to 5 %). The OpenSHMEM rounds stay at 300 operations: they
  run back to back, with no other traffic between them.
- **Atomics.** `fetch_and_op` SUM, `compare_and_swap` and `accumulate`
  BXOR on one long, each with the flush that completes it, beside the CPU
  atomic on the same cache line (`__atomic_fetch_add`,
  `__atomic_compare_exchange_n`, `__atomic_fetch_xor`), the MPI calls on an
  `MPI_Win_allocate` window and OpenSHMEM's `shmem_long_atomic_*`. Every
  model's target is checked after the runs; a wrong one shows n/a.
- **Headline.** The tables at the top of this page (the first table of
  each `summary.md`), computed from the run's CSV files: DART over the
  physical limit (raw copy, CPU atomic, an uncontended ticket lock) and
  over the best peer, named in the row.
- **Latency by target.** Unit 0 to every other unit of 8, 4 per simulated
  node (`DART_UNITS_PER_NODE=4`, oversubscribed): flat inside a node, then
  DART moves to MPI RMA. Open MPI does not see simulated nodes, so its
  `Win_allocate` window and OpenSHMEM stay on shared memory for every
  target; the dynamic window is the fair comparison there. With 8 units on
  2 cores every cross-node operation waits until its target is scheduled.
- **Locks.** `bench-locks` runs the hybrid lock, the MCS lock on MPI
  atomics and `MPI_Win_lock` in one run, with the hardware floor (`lock
  xadd` + release store) measured in the same run; the two-node columns
  come from two simulated nodes (one node) or the two hosts (cluster).
- **Local pool.** `bench-pool` (one node, then two simulated nodes):
  `dart_memalloc` + `dart_memfree` in a pool that has room against
  `MPI_Win_allocate` + `MPI_Win_free` on `MPI_COMM_SELF` and
  `MPI_COMM_WORLD` in the same run, and `shmem_malloc` + `shmem_free`
  (`shmem-pool`), 1 KiB to 1 GiB or what memory allows; then a fresh pool
  grown one chunk per allocation, each growth beside the exposure change
  and the grace model `local_pool_stats` reports (docs/design.md, "The
  local pool"), and the way back: the blocks freed newest first with
  `DART_POOL_SHRINK_MS=0`, so each `dart_memfree` that empties the top
  chunk gives it back, timed beside its change and grace model. On one
  node nobody reaches the pool by RMA, so no growth waits a grace time
  there; every shrink waits it, on one node too (node peers cache the
  pool's size).
- **Across hosts** the absolute times are large (a put round trip over veth
  takes about 90 us because the target process must be scheduled); the
  ratios to plain MPI are the point. OpenSHMEM of Open MPI 4.1.4 dies with
  SIGSEGV in `shmem_finalize` after printing its results; the runner keeps
  the results.
"""

DOCS_OTHER = """\
## Benchmarks the runner does not publish

Run by hand from a build (`scripts/build.sh openmpi`, then
`source scripts/env.sh`):

- `mpiexec.openmpi -n 2 --bind-to core build/openmpi/benchmarks/bench-collectives`:
  DART's collectives and two-sided calls against the same MPI calls (median
  of repetitions of 1000 calls, the slowest unit's time per call);
  `DART_SHM_SYNC=off` shows MPI's own barrier and reductions. The runner
  launches it too, for the barrier row of the headline, but publishes
  only that row.
- `build/openmpi/benchmarks/bench-nodedb [--max-readers 8] [--write-rate 1000]`:
  node database reads from 1 to 8 forked readers under the 2N-lock, a
  pthread rwlock and no lock, interleaved batch by batch in one run.
- `benchmarks/run_bootstrap.sh [openmpi|mpich] [max-units] [reps]`:
  `dart_init` + `dart_exit` at 2 to 32 units on 1, 2 and 4 simulated nodes,
  node-roots against naive; `benchmarks/bootstrap_model.md` projects both
  modes to large machines.
- `benchmarks/count_instructions.sh [-b BUILD_DIR] [-o FILE]`: instructions
  per operation of the shared-memory put, get, flush and atomic fast paths
  next to the raw copy or CPU atomic, counted by `valgrind --tool=callgrind`
  in `bench-instructions` (1 B to 4 KiB): the same in every run to within
  half an instruction per operation (the progress probe reads the clock),
  so a change of a few instructions shows where times vary by 10-20 % from
  launch to launch. Not a time: valgrind runs the AVX2 copy variant on any
  CPU.
- `bench-latency`, `bench-distance` and `bench-locks` (`--reps R`,
  `--iters K`, `--csv FILE`) are what the runner launches; they run on
  their own too, e.g. `mpiexec.openmpi -n 2 --bind-to core
  build/openmpi/benchmarks/bench-locks`.
"""

# Captions of the plots report.py draws, by file name.
PLOT_TITLES = (
    ("latency-put.png", "Blocking put latency by size"),
    ("latency-get.png", "Blocking get latency by size"),
    ("distance-put.png", "Put latency, 8 B, by target unit"),
    ("distance-get.png", "Get latency, 8 B, by target unit"),
    ("locks-uncontended.png", "Lock acquire+release"),
    ("locks-creation.png", "Lock creation"),
    ("locks-migration.png", "Hybrid lock migration"),
)

DOCS_RUNS = (("latest", "One node"),
             ("latest-cluster", "Across two hosts of the virtual cluster"))


def split_headline(lines):
    """(headline lines, the rest) of a summary.md: the headline table runs
    from its heading to the machine list (env.txt, "- date: ...") or the
    next heading; summaries from before it have none."""
    if not lines or not lines[0].startswith("### Headline"):
        return [], lines
    for i in range(1, len(lines)):
        if lines[i].startswith("- date:") or lines[i].startswith("### "):
            return lines[:i], lines[i:]
    return lines, []


def docs_section(root, sub, title):
    """The docs/benchmarks.md lines of one published result directory:
    (its headline table under a heading of its own, or []; its header as a
    list, its other tables one heading level down, its plots)."""
    d = os.path.join(root, "bench-results", sub)
    path = os.path.join(d, "summary.md")
    if not os.path.exists(path):
        return [], []
    with open(path) as f:
        top, lines = split_headline(f.read().rstrip("\n").split("\n"))
    if top:
        top = [f"## Headline: {title.lower()}", "",
               f"From [bench-results/{sub}/summary.md]"
               f"(../bench-results/{sub}/summary.md); "
               f"{top[0][len('### Headline: '):].strip()}."] + top[1:] + [""]
    out = [f"## {title}", "",
           f"From [bench-results/{sub}/summary.md]"
           f"(../bench-results/{sub}/summary.md).", "",
           "### Machine and MPI", ""] + lines
    plots = [(name, caption) for name, caption in PLOT_TITLES
             if os.path.exists(os.path.join(d, name))]
    if plots:
        out += ["", "### Plots", ""]
        out += [f"![{caption}](../bench-results/{sub}/{name})"
                for name, caption in plots]
    return top, out + [""]


def write_docs(root):
    """(Re)writes ROOT/docs/benchmarks.md from the published summaries,
    their headline tables first; returns its path, or None when nothing is
    published."""
    headlines, sections = [], []
    for sub, title in DOCS_RUNS:
        top, section = docs_section(root, sub, title)
        headlines += top
        sections += section
    if not sections:
        return None
    # The instruction counts (benchmarks/count_instructions.sh), where the
    # one-node run published them.
    counts = os.path.join(root, "bench-results", "latest", "instructions.md")
    if os.path.isfile(counts):
        with open(counts) as f:
            sections.append(f.read())
    text = (DOCS_TITLE + "\n" + "\n".join(headlines) + "\n" + DOCS_HOW +
            "\n" + "\n".join(sections) + "\n" + DOCS_OTHER)
    # Blank lines never pile up, whatever the summaries end with.
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    os.makedirs(os.path.join(root, "docs"), exist_ok=True)
    out = os.path.join(root, "docs", "benchmarks.md")
    with open(out, "w") as f:
        f.write(text)
    return out


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--docs":
        out = write_docs(sys.argv[2])
        if out is None:
            print(f"report.py: no bench-results/latest*/summary.md under "
                  f"{sys.argv[2]}", file=sys.stderr)
            return 1
        print(f"wrote {out}")
        return 0
    if len(sys.argv) != 3 or sys.argv[2] not in ("0", "1"):
        print("usage: report.py DIR PLOTS(0|1)\n"
              "       report.py --docs ROOT   (docs/benchmarks.md from "
              "ROOT/bench-results/latest*)", file=sys.stderr)
        return 2
    d = sys.argv[1]
    if not os.path.isdir(d):
        print(f"report.py: no such directory: {d}", file=sys.stderr)
        return 2
    size_tab = latency_by_size(d)
    dist_tab = latency_by_target(d)
    groups = app_table(app_results(d))
    if not size_tab and not groups and not report_locks.summary(d) \
            and not pool_rows(d):
        print(f"report.py: no results in {d}", file=sys.stderr)
        return 1
    print(write_summary(d, size_tab, dist_tab, groups))
    if sys.argv[2] == "1" and not plot(d, size_tab, dist_tab):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
