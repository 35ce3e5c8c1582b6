#!/usr/bin/env python3
"""Kiln's benchmark history: the runs recorded in bench/results/*.json.

    python3 bench/results/history.py                      # every run, one line each
    python3 bench/results/history.py --workload W2        # W2's figures over time, as CSV
    python3 bench/results/history.py --workload W2 --metric "paired floor share"

Each file is one run (bench/results/<YYYY-MM-DD>-<label>.json): "date", "host",
"commit" (null where not recorded), "source" and "rows", each row
{"workload", "metric", "kiln", "peer", "ratio", "ratio_is", "unit",
"kiln_variant", "peer_name", "note"}. A figure is a number, a [low, high]
range (printed as two columns, the second empty for a single number) or
null. "ratio_is" says which way the ratio reads ("kiln/peer": below 1 Kiln is
faster). A file in the schema of bench/run's latest.json (a "results" list)
without "rows" is read too: its rows are derived as bench/report.py's
table derives them (each Kiln row against XLA's best median of its group,
the other rows against Kiln's best).

--workload NAME selects the rows whose workload is NAME or starts with
"NAME " (case-insensitive: W2 selects "W2 f32" and "W2 f64"). Python 3
standard library only.
"""
import argparse
import csv
import json
import signal
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
COLUMNS = ["date", "label", "host", "commit", "workload", "metric", "kiln", "kiln_max",
           "peer", "peer_max", "ratio", "ratio_max", "ratio_is", "unit", "kiln_variant",
           "peer_name", "note"]


def derived_rows(results):
    """History rows of a latest.json "results" list (median_s per peer)."""
    def group(res):
        tag = res["peer"].split("]", 1)[0] + "]" if res["peer"].startswith("[") else ""
        gpu = " GPU" if "GPU:" in res["peer"] else ""
        return (res["workload"] + (" " + tag.strip("[]") if tag else "") + gpu)

    groups = {}
    for res in results:
        if res.get("correct", True) and res.get("median_s") is not None:
            groups.setdefault(group(res), []).append(res)
    rows = []
    for name, members in groups.items():
        kiln = [m for m in members if "Kiln" in m["peer"]]
        xla = [m for m in members if "XLA" in m["peer"]]
        best_k = min(kiln, key=lambda m: m["median_s"]) if kiln else None
        best_x = min(xla, key=lambda m: m["median_s"]) if xla else None
        for m in members:
            mine, other = (m, best_x) if m in kiln else (best_k, m)
            ratio, ratio_is = None, None
            if m in kiln and best_x:
                ratio, ratio_is = round(m["median_s"] / best_x["median_s"], 4), "kiln/peer"
            elif m not in kiln and best_k:
                ratio, ratio_is = round(m["median_s"] / best_k["median_s"], 4), "peer/kiln"
            rows.append({"workload": name, "metric": "median",
                         "kiln": mine["median_s"] if mine else None,
                         "peer": other["median_s"] if other else None,
                         "ratio": ratio, "ratio_is": ratio_is, "unit": "s",
                         "kiln_variant": mine["peer"] if mine else None,
                         "peer_name": other["peer"] if other else None, "note": None})
    return rows


def load_runs(directory):
    runs = []
    for path in sorted(directory.glob("*.json")):
        if path.name.startswith("latest."):
            continue  # bench/run's last output, not yet recorded
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            print(f"{path.name}: skipped ({e})", file=sys.stderr)
            continue
        if not isinstance(data, dict):
            continue
        rows = data.get("rows")
        if rows is None:
            rows = derived_rows(data.get("results", []))
        host = data.get("host") or (data.get("machine") or {}).get("cpu")
        runs.append({"date": data.get("date") or path.name[:10], "label": path.stem,
                     "host": host, "commit": data.get("commit"),
                     "command": data.get("command"), "rows": rows})
    runs.sort(key=lambda run: (run["date"], run["label"]))
    return runs


def split(value):
    """A figure as (value, max): a [low, high] range as its two ends."""
    if isinstance(value, list) and len(value) == 2:
        return value[0], value[1]
    return value, None


def print_runs(runs):
    print(f"{'date':<10}  {'run':<40} {'rows':>4}  {'commit':<8}  host")
    for run in runs:
        host = (run["host"] or "-")
        host = host if len(host) <= 60 else host[:57] + "..."
        print(f"{run['date']:<10}  {run['label']:<40} {len(run['rows']):>4}  "
              f"{run['commit'] or '-':<8}  {host}")
    workloads = sorted({row["workload"] for run in runs for row in run["rows"]})
    print(f"\n{len(runs)} runs; workloads: {', '.join(workloads)}")


def print_csv(runs, workload, metric):
    name = workload.lower()
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(COLUMNS)
    for run in runs:
        for row in run["rows"]:
            w = row["workload"].lower()
            if w != name and not w.startswith(name + " "):
                continue
            if metric and metric.lower() not in (row.get("metric") or "").lower():
                continue
            kiln, kiln_max = split(row.get("kiln"))
            peer, peer_max = split(row.get("peer"))
            ratio, ratio_max = split(row.get("ratio"))
            out.writerow([run["date"], run["label"], run["host"], run["commit"],
                          row["workload"], row.get("metric"), kiln, kiln_max, peer, peer_max,
                          ratio, ratio_max, row.get("ratio_is"), row.get("unit"),
                          row.get("kiln_variant"), row.get("peer_name"), row.get("note")])


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workload", help="print this workload's rows over time as CSV")
    ap.add_argument("--metric", help="with --workload: only metrics containing this text")
    ap.add_argument("--dir", default=str(HERE), help="the results directory (default: this "
                                                     "script's)")
    args = ap.parse_args()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    runs = load_runs(Path(args.dir))
    if args.workload:
        print_csv(runs, args.workload, args.metric)
    else:
        print_runs(runs)


if __name__ == "__main__":
    main()
