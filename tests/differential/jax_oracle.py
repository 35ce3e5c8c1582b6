#!/usr/bin/env python3
"""jax.jit as a second oracle of the differential tests (docs/soundness.md).

    python tests/differential/jax_oracle.py --kiln-bin build/bin \\
        --seed S --programs N [--profile models|random] [--keep DIR]

For each seed, `kiln-difftest generate` writes the program and its inputs;
the program is exported back to JAX's primitives (kiln's Evaluator, the same
that kiln.rewrite runs), run by jax.jit (XLA), and `kiln-run --expect`
compares Kiln's JIT with XLA's outputs under the error model (magnitudes
from the interpreter). A defect shared by the interpreter and the JIT shows
up here and not in kiln-difftest. Outputs the generator marks unstable
(discrete functions of approximate values) are left out and counted.

Exit status 0 when every program agrees, 1 on a finding; one line per
finding, then a summary (--json: one JSON object).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kiln-bin", required=True, help="directory of kiln-difftest and kiln-run")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--programs", type=int, default=10)
    ap.add_argument("--profile", choices=["models", "random"], default="models")
    ap.add_argument("--keep", help="keep each finding's program directory here")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    import jax
    jax.config.update("jax_enable_x64", True)  # f64 and i64 programs as written
    import numpy as np
    from kiln import _kiln
    from kiln._to_jax import Evaluator

    bin_dir = Path(args.kiln_bin)
    findings, left_out, start = [], 0, time.time()
    for seed in range(args.seed, args.seed + args.programs):
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            subprocess.run([str(bin_dir / "kiln-difftest"), "generate", "--seed", str(seed),
                            "--profile", args.profile, "--out", str(d)], check=True)
            text = (d / "prog.mlir").read_text()
            inputs = sorted(d.glob("in*.npy"), key=lambda p: int(p.stem[2:]))
            arrays = [np.load(p) for p in inputs]
            marker = re.search(r"^// jit-unstable-outputs: ([\d,]+)$", text, re.M)
            unstable = {int(i) for i in marker.group(1).split(",")} if marker else set()
            ev = Evaluator(_kiln.Program.from_mlir(text, str(d / "prog.mlir")).export())
            try:
                xla = jax.jit(lambda *xs: ev.call("main", list(xs)))(*arrays)
            except Exception as e:  # JAX refused the exported program: a finding of the exporter
                findings.append({"seed": seed, "what": f"jax: {type(e).__name__}: {e}"})
                continue
            # XLA:CPU flushes subnormals (inputs and results); so does Kiln with
            # --flush-subnormals (kiln.jit's default), which the comparison needs.
            run = [str(bin_dir / "kiln-run"), str(d / "prog.mlir"), "--no-cache",
                   "--flush-subnormals",
                   "--inputs", ",".join(map(str, inputs))]
            expected = []
            if unstable:
                # Kiln's own outputs stand in for the unstable ones: left out.
                subprocess.run(run + ["--outputs", str(d / "kiln")], check=True,
                               capture_output=True)
            for i, out in enumerate(xla):
                path = d / f"xla{i}.npy"
                if i in unstable:
                    path = d / "kiln" / f"out{i}.npy"
                    left_out += 1
                else:
                    np.save(path, np.asarray(out))
                expected.append(str(path))
            r = subprocess.run(run + ["--expect", ",".join(expected)], capture_output=True,
                               text=True)
            if r.returncode != 0:
                lines = [l for l in (r.stderr + r.stdout).splitlines() if "error" in l]
                findings.append({"seed": seed, "what": lines[0] if lines else r.stderr[-300:]})
                if args.keep:
                    keep = Path(args.keep) / f"seed{seed}"
                    keep.mkdir(parents=True, exist_ok=True)
                    for p in d.iterdir():
                        if p.is_file():
                            (keep / p.name).write_bytes(p.read_bytes())
            if not args.json:
                status = "ok" if r.returncode == 0 else "FINDING"
                print(f"seed{seed}: {status}", flush=True)
    summary = {"profile": args.profile, "first_seed": args.seed, "programs": args.programs,
               "findings": findings, "unstable_outputs_left_out": left_out,
               "seconds": round(time.time() - start, 1)}
    if args.json:
        print(json.dumps(summary))
    else:
        for f in findings:
            print(f"finding: seed{f['seed']}: {f['what']}")
        print(f"{args.programs} programs ({args.profile}), {len(findings)} findings, "
              f"{left_out} unstable outputs left out, {summary['seconds']} s")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
