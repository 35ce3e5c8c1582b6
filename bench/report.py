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


def is_kiln(peer):
    return "Kiln" in peer


def is_xla(peer):
    """XLA's rows: jax.jit (XLA:CPU; on the GPU rows XLA:GPU)."""
    return "XLA" in peer


def best_medians(rows, which):
    """The best median of each ratio group among the correct rows `which`
    picks by name (is_kiln, is_xla)."""
    best = {}
    for r in rows:
        if which(r.peer) and r.ok:
            key = ratio_group(r.peer)
            best[key] = min(best.get(key, r.median), r.median)
    return best


def best_kiln_medians(rows):
    """The best Kiln median of each ratio group."""
    return best_medians(rows, is_kiln)


def ratio_cells(r, best_kiln, best_xla):
    """`vs Kiln` and `vs XLA`: the row's median over the best Kiln (XLA)
    median of its group; > 1: that one is faster than this row."""
    cells = []
    for best in (best_kiln, best_xla):
        ref = best.get(ratio_group(r.peer))
        cells.append(f"{r.median / ref:.2f}x" if ref else "-")
    return cells


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
    write_console_json_chart(groups, results, args, outdir, tables)
    if getattr(args, "write_docs", None):  # last: it stops the run where the markers are missing
        write_markdown(groups, args, args.write_docs, tables)


def write_console_json_chart(groups, results, args, outdir, tables):
    """The table on stdout, latest.json and latest.png."""
    print("\n" + "=" * 100)
    print(f"{'workload':<16} {'peer':<40} {'median':>11} {'min':>11} {'max':>11} "
          f"{'thr':>4} {'vs Kiln':>8} {'vs XLA':>8}  {'limit':<15} check")
    for workload, rows in groups.items():
        best_kiln, best_xla = best_medians(rows, is_kiln), best_medians(rows, is_xla)
        for r in rows:
            vs_kiln, vs_xla = ratio_cells(r, best_kiln, best_xla)
            check = "ok" if r.ok else f"WRONG {r.error:.1e}"
            print(f"{workload:<16} {r.peer:<40} {fmt(r.median)} {fmt(min(r.times))} "
                  f"{fmt(max(r.times))} {r.threads:>4} {vs_kiln:>8} {vs_xla:>8}  "
                  f"{limit_cell(r, rows):<15} {check}")
    print("(vs Kiln, vs XLA: the row's median time divided by the best median of Kiln's rows,"
          " of XLA's (jax.jit) rows, for the same element type and device; > 1 means that one is"
          " faster than the row: Kiln's rows read vs XLA < 1 where Kiln is ahead. limit: the rate"
          " reached, or the floor's time as a share of the row's; paired: the median share over"
          " samples each taken beside one of the floor as a lax program)")
    for table in tables:
        print(f"\n{table.title}")
        print("  " + " | ".join(table.columns))
        for row in table.cells():
            print("  " + " | ".join(row))

    payload = {"machine": machine(), "threads": args.threads, "quick": args.quick,
               "rounds": args.rounds,
               "results": [r.as_dict() for r in results]}
    for table in tables:
        payload[table.key] = [dict(zip(table.keys, row)) for row in table.rows]
    (outdir / "latest.json").write_text(json.dumps(payload, indent=1))
    for table in tables:  # the tables with a chart of their own (compile scaling)
        if table.chart and table.rows:
            if table.chart(table.rows, outdir / table.chart_name):
                print(f"wrote {outdir / table.chart_name}")
            else:
                print(f"no matplotlib: no {table.chart_name}")
    if not groups:  # only the tables (--only COMPILE,RULES): no chart
        print(f"wrote {outdir / 'latest.json'}")
        return
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        compile_rows = next((t.rows for t in tables if t.key == "compile"), None)
        # Each panel as high as its rows need.
        heights = [len(rows) + 2 for rows in groups.values()]
        heights += [2 * len(compile_rows) + 2] if compile_rows else []
        fig, axes = plt.subplots(len(heights), 1, figsize=(11, 0.2 * sum(heights) + 1),
                                 gridspec_kw={"height_ratios": heights})
        axes = list(axes) if len(heights) > 1 else [axes]
        compile_ax = axes.pop() if compile_rows else None
        from matplotlib.patches import Patch
        colors = {"Kiln": "tab:red", "XLA (jax.jit)": "tab:blue", "other peers": "tab:gray"}

        def color(peer):
            return colors["Kiln" if is_kiln(peer) else "XLA (jax.jit)" if is_xla(peer)
                          else "other peers"]
        for ax, (workload, rows) in zip(axes, groups.items()):
            names = [r.peer for r in rows]
            ax.barh(names, [r.median * 1e3 for r in rows], color=[color(n) for n in names])
            ax.invert_yaxis()  # in the table's order, top down
            ax.set_xscale("log")
            ax.set_title(workload, fontsize=9)
            ax.tick_params(labelsize=7)
            ax.set_xlabel("median ms (log)", fontsize=7)
        if compile_ax is not None:
            compile_chart(compile_ax, compile_rows, colors)
        fig.legend(handles=[Patch(color=c, label=k) for k, c in colors.items()],
                   loc="upper right", fontsize=7, ncol=3)
        fig.tight_layout(rect=(0, 0, 1, 0.985))
        fig.savefig(outdir / "latest.png", dpi=110)
        print(f"wrote {outdir / 'latest.json'} and {outdir / 'latest.png'}")
    except ImportError:
        print(f"wrote {outdir / 'latest.json'} (no matplotlib: no chart)")


def compile_chart(ax, rows, colors):
    """Kiln's cold and warm compile beside XLA's cold and warm first call,
    per seed program (harness.py's compile rows)."""
    import numpy as np
    y = np.arange(len(rows))
    bars = [("Kiln cold", 1, colors["Kiln"], 1.0), ("Kiln warm", 2, colors["Kiln"], 0.45),
            ("XLA cold", 4, colors["XLA (jax.jit)"], 1.0),
            ("XLA warm", 5, colors["XLA (jax.jit)"], 0.45)]
    height = 0.2
    for i, (label, col, c, alpha) in enumerate(bars):
        ax.barh(y + (i - 1.5) * height, [(r[col] or 0) * 1e3 for r in rows], height,
                color=c, alpha=alpha, label=label)
    ax.set_yticks(y)
    ax.set_yticklabels([r[0] for r in rows])
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_title("compile: Kiln cold/warm cache vs jax.jit's first call cold/warm (faded: warm)",
                 fontsize=9)
    ax.tick_params(labelsize=7)
    ax.set_xlabel("ms (log)", fontsize=7)


class Table:
    """Rows of raw values (`keys` name them in the JSON) and how each row
    reads as text cells under `columns`. `chart(rows, path)`: draws the rows
    into a PNG of their own, `chart_name` in the results directory (returns
    False without matplotlib)."""

    def __init__(self, key, title, intro, columns, keys, rows, format_row, chart=None,
                 chart_name=None):
        self.key, self.title, self.intro = key, title, intro
        self.columns, self.keys, self.rows, self.format_row = columns, keys, rows, format_row
        self.chart, self.chart_name = chart, chart_name

    def cells(self):
        return [self.format_row(row) for row in self.rows]


BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"


def write_markdown(groups, args, path, tables=()):
    """The same tables as markdown into `path` (docs/performance.md): they
    replace what lies between its BEGIN and END lines, the rest of the file
    (the hand-written sections) is kept. A new file gets a title and the
    markers; an existing one without them is left alone (an error)."""
    m = machine()
    lines = ["Measured by `bench/run" + (" --quick" if args.quick else "") +
             f" --threads {args.threads}` on {m['cpu']} ({m['cores']} cores), {m['platform']}.",
             *(["The workloads ran once."] if args.rounds == 1 else
               [f"The workloads ran {args.rounds} times in turn, each row's samples pooled (a",
                "slow stretch of the shared machine falls on every peer alike)."]),
             "Times are medians of repeated runs (min and max beside them); `vs Kiln` is the",
             "row's median divided by Kiln's best median in the same workload, element type",
             "and device (> 1: Kiln is faster), `vs XLA` the same against XLA's best row",
             "(`jax.jit` on XLA:CPU, jaxlib from the pinned .venv; > 1: XLA is faster, so a",
             "Kiln row below 1 is ahead of XLA). XLA runs the seeds' own JAX code",
             "(tests/jax/programs/seeds.py) on the same inputs, in a process of its own",
             "pinned to the row's threads (`PJRT_NPROC`, the size of XLA:CPU's pool; one",
             "thread: also `--xla_cpu_multi_thread_eigen=false`), every call waited for",
             "(`block_until_ready`), the compiling first call not timed. `limit`: the rate",
             "reached (W1: GF/s; the floors: GB/s) or the floor's time as a share of the",
             "row's (100 %: at the floor; W2: copying the diagonals, W3 large: reading xs and",
             "y once). `paired`: each sample of the row was taken right beside one of the",
             "same floor written as a lax program (kiln-bench --paired, the order",
             "alternating), and this is the median of the floor's share over those pairs: a",
             "slow stretch of the shared machine falls on both of a pair. Every result is",
             "checked against a float64 reference. Threads 0: the row ran on the GPU.", ""]
    for workload, rows in groups.items():
        best_kiln, best_xla = best_medians(rows, is_kiln), best_medians(rows, is_xla)
        lines += [f"## {workload}", "",
                  "| peer | median | min | max | threads | vs Kiln | vs XLA | limit | check |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            vs_kiln, vs_xla = ratio_cells(r, best_kiln, best_xla)
            check = "ok" if r.ok else f"wrong ({r.error:.1e})"
            lines.append(f"| {r.peer} | {fmt(r.median).strip()} | {fmt(min(r.times)).strip()} | "
                         f"{fmt(max(r.times)).strip()} | {r.threads} | {vs_kiln} | {vs_xla} | "
                         f"{limit_cell(r, rows)} | {check} |")
        lines.append("")
    for table in tables:
        lines += [f"## {table.title}", "", *table.intro, "",
                  "| " + " | ".join(table.columns) + " |",
                  "|" + "---|" * len(table.columns)]
        lines += ["| " + " | ".join(row) + " |" for row in table.cells()]
        lines.append("")
    block = "\n".join([BEGIN, *lines, END])
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        text = f"# Performance\n\n{BEGIN}\n{END}\n"
    begin, end = text.find(BEGIN), text.find(END)
    if begin < 0 or end < begin:
        raise SystemExit(f"{path}: no {BEGIN} ... {END} lines around the generated tables; "
                         "add them (the text outside them is kept), then run again")
    with open(path, "w") as f:
        f.write(text[:begin] + block + text[end + len(END):])
    print(f"wrote the tables into {path} (between {BEGIN} and {END})")
