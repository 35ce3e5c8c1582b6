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


def write_report(results, args, outdir, compile_rows=()):
    outdir.mkdir(parents=True, exist_ok=True)
    groups = OrderedDict()
    for r in results:
        groups.setdefault(r.workload, []).append(r)

    print("\n" + "=" * 100)
    print(f"{'workload':<16} {'peer':<40} {'median':>11} {'min':>11} {'max':>11} "
          f"{'thr':>4} {'vs Kiln':>8}  check")
    for workload, rows in groups.items():
        kiln = [r for r in rows if r.peer.startswith("Kiln") or "Kiln" in r.peer]
        best_kiln = min((r.median for r in kiln if r.ok), default=None)
        for r in rows:
            ratio = f"{r.median / best_kiln:7.2f}x" if best_kiln else "      -"
            check = "ok" if r.ok else f"WRONG {r.error:.1e}"
            print(f"{workload:<16} {r.peer:<40} {fmt(r.median)} {fmt(min(r.times))} "
                  f"{fmt(max(r.times))} {r.threads:>4} {ratio:>8}  {check}")
    print("(vs Kiln: the peer's median time divided by Kiln's best median; > 1 means Kiln is faster)")

    if getattr(args, "write_docs", None):
        write_markdown(groups, args, args.write_docs, compile_rows)

    payload = {"machine": machine(), "threads": args.threads, "quick": args.quick,
               "results": [r.as_dict() for r in results],
               "compile": [{"program": r[0], "cold_s": r[1], "warm_s": r[2]}
                           for r in compile_rows]}
    (outdir / "latest.json").write_text(json.dumps(payload, indent=1))
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


def write_markdown(groups, args, path, compile_rows=()):
    """The same table as markdown, for docs/performance.md."""
    m = machine()
    lines = ["# Performance", "",
             "Measured by `bench/run" + (" --quick" if args.quick else "") +
             f" --threads {args.threads}` on {m['cpu']} ({m['cores']} cores), {m['platform']}.",
             "Times are medians of repeated runs (min and max beside them); `vs Kiln` is the",
             "peer's median divided by Kiln's best median in the same workload (> 1: Kiln is",
             "faster). Every result is checked against a float64 reference.", ""]
    for workload, rows in groups.items():
        kiln = [r for r in rows if "Kiln" in r.peer and r.ok]
        best = min((r.median for r in kiln), default=None)
        lines += [f"## {workload}", "", "| peer | median | min | max | threads | vs Kiln | check |",
                  "|---|---|---|---|---|---|---|"]
        for r in rows:
            ratio = f"{r.median / best:.2f}x" if best else "-"
            check = "ok" if r.ok else f"wrong ({r.error:.1e})"
            lines.append(f"| {r.peer} | {fmt(r.median).strip()} | {fmt(min(r.times)).strip()} | "
                         f"{fmt(max(r.times)).strip()} | {r.threads} | {ratio} | {check} |")
        lines.append("")
    if compile_rows:
        lines += ["## Compile time: cold vs warm compile cache", "",
                  "`kiln-run FILE --random-inputs --repeat 1 --time-json --cache-dir=DIR`, twice:",
                  "the first run compiles (lowering, LLVM -O3, code generation) and stores the",
                  "object, the second links the cached object.", "",
                  "| program | cold | warm | cold / warm |", "|---|---|---|---|"]
        for label, cold, warm in compile_rows:
            ratio = f"{cold / warm:.0f}x" if cold and warm else "-"
            lines.append(f"| {label} | {fmt(cold).strip() if cold else '-'} | "
                         f"{fmt(warm).strip() if warm else '-'} | {ratio} |")
        lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    print(f"wrote {path}")
