"""The benchmark report: a table on stdout, bench/results/latest.json and a
PNG chart (python3-matplotlib)."""
import json
import os
import platform
import subprocess
from collections import OrderedDict


def machine():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "platform": platform.platform()}


def fmt(seconds):
    """A time with a unit that keeps 4 significant digits readable."""
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if seconds >= scale:
            return f"{seconds / scale:8.3f} {unit:<2}"
    return f"{seconds / 1e-9:8.3f} ns"


def ratio_group(peer):
    """Rows compared with each other: the same element type tag ("[f32]")
    and the same device ("GPU:" rows apart from the CPU rows)."""
    tag = peer.split("]", 1)[0] + "]" if peer.startswith("[") else ""
    return tag, "GPU:" in peer


def best_kiln_medians(rows):
    """The best Kiln median of each ratio group."""
    best = {}
    for r in rows:
        if "Kiln" in r.peer and r.ok:
            key = ratio_group(r.peer)
            best[key] = min(best.get(key, r.median), r.median)
    return best


def median(values):
    return values[len(values) // 2]


def limit_cell(r, rows):
    """What the row achieves against the machine: its rate (`work` per
    median), its share of the group's limit row (W2's copy floor), and the
    median share of a roofline program timed beside each of its samples."""
    cells = []
    if r.work:
        amount, unit = r.work
        cells.append(f"{amount / r.median / 1e9:.0f} {unit}")
    limit = next((x for x in rows if x.limit and ratio_group(x.peer) == ratio_group(r.peer)), None)
    if limit is not None and limit is not r and r.ok:
        cells.append(f"{limit.median / r.median:.0%} of floor")
    if r.floor_ratios and r.ok:
        cells.append(f"paired {median(r.floor_ratios):.0%}")
    return ", ".join(cells) or "-"


def write_report(results, args, outdir, tables=()):
    """`tables`: Table rows measured beside the peer workloads (compile
    times, rule engine scale), printed, stored in the JSON under their key
    and written to the markdown after the workloads."""
    outdir.mkdir(parents=True, exist_ok=True)
    groups = OrderedDict()
    for r in results:
        groups.setdefault(r.workload, []).append(r)
    for rows in groups.values():  # the floors first, the other rows in the order run
        rows.sort(key=lambda r: not (r.limit or r.roofline))

    print("\n" + "=" * 100)
    print(f"{'workload':<16} {'peer':<40} {'median':>11} {'min':>11} {'max':>11} "
          f"{'thr':>4} {'vs Kiln':>8}  {'limit':<15} check")
    for workload, rows in groups.items():
        best = best_kiln_medians(rows)
        for r in rows:
            best_kiln = best.get(ratio_group(r.peer))
            ratio = f"{r.median / best_kiln:7.2f}x" if best_kiln else "      -"
            check = "ok" if r.ok else f"WRONG {r.error:.1e}"
            print(f"{workload:<16} {r.peer:<40} {fmt(r.median)} {fmt(min(r.times))} "
                  f"{fmt(max(r.times))} {r.threads:>4} {ratio:>8}  {limit_cell(r, rows):<15} {check}")
    print("(vs Kiln: the peer's median time divided by Kiln's best median for the same element type"
          " and device; > 1 means Kiln is faster. limit: the rate reached, or the floor's time as a"
          " share of the row's; paired: the median share over samples each taken beside one of"
          " the floor as a lax program)")
    for table in tables:
        print(f"\n{table.title}")
        print("  " + " | ".join(table.columns))
        for row in table.cells():
            print("  " + " | ".join(row))

    if getattr(args, "write_docs", None):
        write_markdown(groups, args, args.write_docs, tables)

    payload = {"machine": machine(), "threads": args.threads, "quick": args.quick,
               "rounds": args.rounds,
               "results": [r.as_dict() for r in results]}
    for table in tables:
        payload[table.key] = [dict(zip(table.keys, row)) for row in table.rows]
    (outdir / "latest.json").write_text(json.dumps(payload, indent=1))
    if not groups:  # only the tables (--only COMPILE,RULES): no chart
        print(f"wrote {outdir / 'latest.json'}")
        return
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(len(groups), 1, figsize=(10, 2.2 * max(1, len(groups))))
        if len(groups) == 1:
            axes = [axes]
        for ax, (workload, rows) in zip(axes, groups.items()):
            names = [r.peer for r in rows]
            ax.barh(names, [r.median * 1e3 for r in rows],
                    color=["tab:red" if "Kiln" in n else "tab:gray" for n in names])
            ax.set_xscale("log")
            ax.set_title(workload, fontsize=9)
            ax.tick_params(labelsize=7)
            ax.set_xlabel("median ms (log)", fontsize=7)
        fig.tight_layout()
        fig.savefig(outdir / "latest.png", dpi=110)
        print(f"wrote {outdir / 'latest.json'} and {outdir / 'latest.png'}")
    except ImportError:
        print(f"wrote {outdir / 'latest.json'} (no matplotlib: no chart)")


class Table:
    """Rows of raw values (`keys` name them in the JSON) and how each row
    reads as text cells under `columns`."""

    def __init__(self, key, title, intro, columns, keys, rows, format_row):
        self.key, self.title, self.intro = key, title, intro
        self.columns, self.keys, self.rows, self.format_row = columns, keys, rows, format_row

    def cells(self):
        return [self.format_row(row) for row in self.rows]


def write_markdown(groups, args, path, tables=()):
    """The same table as markdown, for docs/performance.md."""
    m = machine()
    lines = ["# Performance", "",
             "Measured by `bench/run" + (" --quick" if args.quick else "") +
             f" --threads {args.threads}` on {m['cpu']} ({m['cores']} cores), {m['platform']}.",
             *(["The workloads ran once."] if args.rounds == 1 else
               [f"The workloads ran {args.rounds} times in turn, each row's samples pooled (a",
                "slow stretch of the shared machine falls on every peer alike)."]),
             "Times are medians of repeated runs (min and max beside them); `vs Kiln` is the",
             "peer's median divided by Kiln's best median in the same workload, element type",
             "and device (> 1: Kiln is faster). `limit`: the rate reached (W1: GF/s; the",
             "floors: GB/s) or the floor's time as a share of the row's (100 %: at the",
             "floor; W2: copying the diagonals, W3 large: reading xs and y once).",
             "`paired`: each sample of the row was taken right beside one of the same",
             "floor written as a lax program (kiln-bench --paired, the order alternating),",
             "and this is the median of the floor's share over those pairs: a slow",
             "stretch of the shared machine falls on both of a pair. Every result is",
             "checked against a float64 reference. Threads 0: the row ran on the GPU.", ""]
    for workload, rows in groups.items():
        best_of = best_kiln_medians(rows)
        lines += [f"## {workload}", "",
                  "| peer | median | min | max | threads | vs Kiln | limit | check |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in rows:
            best = best_of.get(ratio_group(r.peer))
            ratio = f"{r.median / best:.2f}x" if best else "-"
            check = "ok" if r.ok else f"wrong ({r.error:.1e})"
            lines.append(f"| {r.peer} | {fmt(r.median).strip()} | {fmt(min(r.times)).strip()} | "
                         f"{fmt(max(r.times)).strip()} | {r.threads} | {ratio} | "
                         f"{limit_cell(r, rows)} | {check} |")
        lines.append("")
    for table in tables:
        lines += [f"## {table.title}", "", *table.intro, "",
                  "| " + " | ".join(table.columns) + " |",
                  "|" + "---|" * len(table.columns)]
        lines += ["| " + " | ".join(row) + " |" for row in table.cells()]
        lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    print(f"wrote {path}")
