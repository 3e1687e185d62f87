"""The lock part of the bench.sh report: reads bench-locks' CSV files
(locks-node1.csv: 2 units on one node; locks-nodes2.csv: 2 units on two
simulated nodes), returns the summary.md lines and the gnuplot commands.
Standard library only."""
import csv
import os

RUNS = (("node1", "one node"), ("nodes2", "two simulated nodes"))
MODES = ("hybrid", "mpi-mcs", "mpi-win-lock")


def read(d, run):
    """{(section, mode, param, metric): value} of one run; -1 = n/a."""
    path = os.path.join(d, f"locks-{run}.csv")
    table = {}
    if os.path.exists(path):
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                try:
                    v = float(row["value"])
                except (TypeError, ValueError):
                    continue
                table[(row["section"], row["mode"], row["param"],
                       row["metric"])] = None if v < 0 else v
    return table


def fmt(v):
    return "n/a" if v is None else f"{v:.1f}"


def times(a, b):
    return "n/a" if a is None or not b else f"{a / b:.1f}x"


def summary(d):
    one, two = read(d, "node1"), read(d, "nodes2")
    if not one and not two:
        return []
    out = ["\n### Team locks, 2 units pinned (bench-locks, median)\n"]
    floor = one.get(("floor", "cpu", "", "xadd_store_ns"))
    xadd = one.get(("floor", "cpu", "", "lock_xadd_ns"))
    out.append(f"Hardware floor in the same run: lock xadd {fmt(xadd)} ns, "
               f"xadd + release store (an uncontended ticket lock) "
               f"{fmt(floor)} ns.\n")
    out.append("| mode | acquire+release, home (ns) | other unit of the node "
               "| vs hybrid | k=2 contending | from the other node | "
               "init, new team (us/lock) | init, reused | "
               "init, new team, 2 nodes |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    base = one.get(("a", "hybrid", "peer", "ns"))
    for m in MODES:
        peer = one.get(("a", m, "peer", "ns"))
        out.append(
            f"| {m} | {fmt(one.get(('a', m, 'home', 'ns')))} | {fmt(peer)} "
            f"| {times(peer, base)} | {fmt(one.get(('d', m, '2', 'ns')))} | "
            f"{fmt(two.get(('e', m, 'remote', 'ns')))} | "
            f"{fmt(one.get(('h', m, 'init_new', 'us')))} | "
            f"{fmt(one.get(('h', m, 'init_reused', 'us')))} | "
            f"{fmt(two.get(('h', m, 'init_new', 'us')))} |")
    return out


def write_dat(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(" ".join("NaN" if v is None else str(v) for v in r) + "\n")


def plot_script(d):
    """gnuplot commands for locks-uncontended.png, locks-creation.png and
    (two-node run) locks-migration.png; the caller's terminal is set."""
    one, two = read(d, "node1"), read(d, "nodes2")
    script = []
    if one:
        write_dat(os.path.join(d, "locks-uncontended.dat"),
                  [[f'"{m}"', one.get(("a", m, "home", "ns")),
                    one.get(("a", m, "peer", "ns")),
                    one.get(("d", m, "2", "ns"))] for m in MODES])
        floor = one.get(("floor", "cpu", "", "xadd_store_ns")) or 0
        script += [
            "set output 'locks-uncontended.png'", "unset logscale x",
            "set logscale y", "set style data histogram",
            "set style histogram clustered", "set style fill solid 0.7",
            "set xtics auto",
            "set title 'Lock acquire+release, 2 units on one node (median)'",
            "set xlabel 'lock mode'", "set ylabel 'ns per acquire+release'",
            f"plot 'locks-uncontended.dat' using 2:xtic(1) title 'home unit', "
            f"'' using 3 title 'other unit of the node', "
            f"'' using 4 title '2 units contending', "
            f"{floor} with lines title 'lock xadd + store (floor)'"]
        rows = [[f'"{m}"', one.get(("h", m, "init_new", "us")),
                 one.get(("h", m, "init_reused", "us")),
                 two.get(("h", m, "init_new", "us"))] for m in MODES]
        write_dat(os.path.join(d, "locks-creation.dat"), rows)
        script += [
            "set output 'locks-creation.png'",
            "set title 'dart_team_lock_init, 64 locks (median us per lock)'",
            "set ylabel 'us per lock'",
            "plot 'locks-creation.dat' using 2:xtic(1) title 'new team, "
            "one node', '' using 3 title 'reused slots, one node', "
            "'' using 4 title 'new team, two nodes'"]
    xs = sorted({int(k[2]) for k in two if k[0] == "f"})
    if xs:
        write_dat(os.path.join(d, "locks-migration.dat"),
                  [[x, two.get(("f", "hybrid", str(x), "home_ns")),
                    two.get(("f", "hybrid", str(x), "remote_ns")) or None,
                    two.get(("f", "hybrid", str(x), "migrations"))]
                   for x in xs])
        script += [
            "set output 'locks-migration.png'", "set style data linespoints",
            "set xtics auto", "set logscale y",
            "set title 'Hybrid lock: home locks, the other node x times "
            "in between'",
            "set xlabel 'x (remote acquisitions per run)'",
            "set ylabel 'ns per acquire+release'",
            "plot 'locks-migration.dat' using 1:2 title 'home unit', "
            "'' using 1:3 title 'remote unit'"]
    return script
