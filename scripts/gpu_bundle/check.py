"""Judges a GPU bundle run's results exactly, on a machine with Kiln: each
check's outputs (RUN_OUT/results.npz, NAME.out<i>, brought back from the GPU
machine) against the reference interpreter on the bundled inputs, under
Kiln's error model (kiln-run --interpret --expect; docs/interpreter.md).

    python scripts/gpu_bundle/check.py BUNDLE RUN_OUT [--build build]

Prints one line per check and exits 1 if any differs or is missing.
"""
import argparse
import shutil
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bundle")
    ap.add_argument("run_out")
    ap.add_argument("--build", default=str(ROOT / "build"))
    args = ap.parse_args()
    bundle, out = Path(args.bundle), Path(args.run_out)
    kiln_run = Path(args.build) / "bin" / "kiln-run"
    manifest = json.loads((bundle / "manifest.json").read_text())
    bad = 0
    results = np.load(out / "results.npz")
    tmp = Path(tempfile.mkdtemp(prefix="kiln-gpu-check-"))
    for c in manifest["checks"]:
        d = bundle / c["dir"]
        ins = sorted(d.glob("in*.npy"), key=lambda p: int(p.stem[2:]))
        outs = []
        while f"{c['name']}.out{len(outs)}" in results:
            path = tmp / f"{c['name']}.out{len(outs)}.npy"
            np.save(path, results[f"{c['name']}.out{len(outs)}"])
            outs.append(path)
        if not outs:
            print(f"{c['name']}: MISSING (no results)")
            bad += 1
            continue
        cmd = [str(kiln_run), str(d / "program.mlir"), "--interpret",
               "--inputs", ",".join(map(str, ins)), "--expect", ",".join(map(str, outs))]
        if c.get("entry"):
            cmd += ["--entry", c["entry"]]
        p = subprocess.run(cmd, capture_output=True, text=True)
        worst = [l for l in p.stdout.splitlines() + p.stderr.splitlines() if "worst" in l]
        status = "ok" if p.returncode == 0 else "DIFFERS"
        bad += p.returncode != 0
        print(f"{c['name']}: {status} {worst[-1].strip() if worst else ''}")
        if p.returncode != 0:
            print(p.stdout + p.stderr)
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(manifest['checks']) - bad} of {len(manifest['checks'])} checks within the bound")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
