#!/usr/bin/env python3
"""Differential testing of Kiln against its reference interpreter.

For each generated program (the generator of tools/kiln-difftest, seeds S,
S+1, ...: `kiln-difftest generate --seed S` prints one), the reference
interpreter runs the ORIGINAL program on the generated inputs (hard values
included); its outputs are the oracle. Then:

  pass:<P>   pass pipeline P alone (every Kiln lax->lax pass, --kiln-optimize,
             --canonicalize), then the interpreter on the result: exact
             passes must give identical results (k = 0: the same bits, signed
             zeros and NaN positions included, NaN payloads aside);
             reassociating ones (reassociate=true) are within the error model
             (k = 64, docs/interpreter.md).
  jit        the CPU pipeline (LLVM JIT) on the original, under the error
             model (k = 64).
  rules      every --rules-every-th program goes into a corpus on which
             kiln-verify-rules checks rules/library/ and examples/rules/.

The pass and JIT comparisons run in kiln-difftest (tools/kiln-difftest), a
batch of programs per process (--batch), generated in that process
(--generate-seeds; with --keep they are written to the work directory
first); its list of comparisons
(--list-comparisons) is the one this script uses. A crash or a hang of a
batch is blamed on the step in flight (the tool's progress lines), and the
rest of that program and of the batch run in a new process.

A crash (signal), a timeout, an error on a valid program or a mismatch is a
finding. With --reduce each finding is reduced (calls inlined, then delta
debugging over the top-level ops of @main: an op is cut by replacing its results with function
arguments holding the values the interpreter computed for them, or with
constants; dead ops and unneeded outputs are dropped; inside regions, dead
ops go and an op is replaced by a same-typed operand; inputs become
constants where the failure survives) and written to --save DIR as a lit
test (NAME.mlir, inputs in DIR/Inputs/).

    python run.py --programs 200 --seed 0 --bin build/bin --jobs 2
    python run.py --programs 500 --comparison 'mine=builtin.module(kiln-apply-rules{rules=my.yaml})' --reduce

The checks are in checks.py, the reducer in reduction.py (over the textual
view of a program in program.py).
"""
import argparse
import concurrent.futures as cf
import json
import os
import shutil
import sys
import tempfile
import time

from checks import JIT_COMPARISONS, RULE_DIRS, ROOT, TIMEOUT, Tools, comparisons, difftest, generate, program_name, rules_check, run_batch
from program import Case, jit_view
from reduction import fails, reduce_case, save_regression


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--programs", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0, help="first seed; program i uses seed + i")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--no-jit", action="store_true", help="skip the JIT comparison")
    ap.add_argument("--jit-every", type=int, default=1, help="JIT only every N-th program")
    ap.add_argument("--min-thresholds-every", type=int, default=10,
                    help="jit-min-thresholds (the JIT with the cost model's size thresholds at their "
                         "minimum) on the programs whose seed is a multiple of N (0: none)")
    ap.add_argument("--rules-every", type=int, default=10, help="every N-th program joins the kiln-verify-rules corpus (0: none)")
    ap.add_argument("--rules", action="append", default=None,
                    help="rule file or directory kiln-verify-rules checks (repeatable; default: "
                         "rules/library and examples/rules)")
    ap.add_argument("--comparison", action="append", default=[],
                    help="add a comparison NAME=PIPELINE[:K] to kiln-difftest's (repeatable), e.g. "
                         "'mine=builtin.module(kiln-apply-rules{rules=my.yaml})'")
    ap.add_argument("--program", action="append", default=[],
                    help="check (and with --reduce, reduce) this program directory (prog.mlir, "
                         "in<i>.npy: `kiln-difftest generate --bytes FUZZ-INPUT --out DIR` writes one "
                         "from a kiln-fuzz-generated input) instead of generated seeds (repeatable)")
    ap.add_argument("--max-ops", type=int, default=None)
    ap.add_argument("--profile", choices=["random", "models"], default="random",
                    help="what the generated programs are like (kiln-difftest --profile: "
                         "models = training steps at realistic sizes)")
    ap.add_argument("--size-scale", type=int, default=1,
                    help="generated programs' dimension sizes from ranges N times longer, up to 48 N^2 "
                         "elements a tensor (kiln-difftest --size-scale; other programs than the default's)")
    ap.add_argument("--reduce", action="store_true", help="reduce findings")
    ap.add_argument("--save", default=None, help="write reduced findings here as lit tests")
    ap.add_argument("--work", default=None, help="scratch directory (default: a temporary one, removed)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    ap.add_argument("--json", default=None, help="write a summary here")
    ap.add_argument("--timeout", type=int, default=TIMEOUT, help="seconds one step of one program may take")
    ap.add_argument("--batch", type=int, default=100,
                    help="programs per kiln-difftest process (a process's start-up is about 0.1 s)")
    ap.add_argument("--ignore", action="append", default=[],
                    help="COMPARISON:KIND of known, reported findings not to fail on (repeatable)")
    a = ap.parse_args()

    tools = Tools(a.bin, a.timeout, a.comparison, a.min_thresholds_every, a.size_scale,
                  a.profile)
    work = a.work or tempfile.mkdtemp(prefix="kiln-difftest-")
    os.makedirs(work, exist_ok=True)
    t0 = time.time()
    if a.program:
        return check_programs(tools, a, work)
    seeds = list(range(a.seed, a.seed + a.programs))
    results = []

    def jit_of(s):
        return not a.no_jit and (s - a.seed) % a.jit_every == 0

    def job(batch):
        rs = run_batch(tools, batch, work, jit_of, max_ops=a.max_ops, keep=a.keep)
        for r in rs:
            if r["findings"] and not a.keep:
                # The program of a finding stays in the work directory.
                generate(tools, r["seed"], os.path.join(work, f"p{r['seed']}"), a.max_ops)
        return rs

    batches = [seeds[i:i + a.batch] for i in range(0, len(seeds), max(1, a.batch))]
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for rs in ex.map(job, batches):
            for r in rs:
                results.append(r)
                for f in r["findings"]:
                    print(f"seed {r['seed']}: {f['comparison']}: {f['kind']}\n  " +
                          "\n  ".join(f["detail"].strip().split("\n")[-6:]), flush=True)
    findings = [(r["seed"], f) for r in results for f in r["findings"]]
    # kiln-verify-rules on a sample of the programs
    rules_programs = 0
    if a.rules_every:
        sample = [s for s in seeds if (s - a.seed) % a.rules_every == 0]

        def rules_job(chunk):
            files = []
            for s in chunk:
                d = os.path.join(work, f"rules-{s}")
                generate(tools, s, d, a.max_ops)
                files.append(os.path.join(d, "prog.mlir"))
            return len(files), rules_check(tools, files, a.rules or RULE_DIRS)

        chunks = [sample[i:i + 20] for i in range(0, len(sample), 20)]
        with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
            for n, f in ex.map(rules_job, chunks):
                rules_programs += n
                if f:
                    findings.append((f["seeds"][0], f))
                    print(f"rules (seeds {', '.join(map(str, f['seeds']))}): {f['kind']}\n  " +
                          "\n  ".join(f["detail"].strip().split("\n")[-6:]), flush=True)
    elapsed = time.time() - t0
    ncomp = sum(len(comparisons(tools, jit_of(s), a.min_thresholds_every > 0 and s % a.min_thresholds_every == 0))
                for s in seeds)
    print(f"{len(seeds)} programs (seeds {a.seed}..{a.seed + a.programs - 1}), {ncomp} comparisons, "
          f"kiln-verify-rules on {rules_programs} programs, {len(findings)} findings, {elapsed:.0f} s")

    saved = reduce_findings(tools, a, work, findings) if a.reduce else []
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"programs": len(seeds), "first_seed": a.seed, "comparisons": ncomp,
                       "rules_programs": rules_programs, "seconds": round(elapsed, 1),
                       "findings": [{"seed": s, **f} for s, f in findings], "saved": saved}, fh, indent=1)
    if not a.keep and not a.work:
        shutil.rmtree(work, ignore_errors=True)
    ignored = {tuple(x.split(":", 1)) for x in a.ignore}
    real = [f for _, f in findings if (f["comparison"], f["kind"]) not in ignored]
    return 1 if real else 0


def reduce_findings(tools, a, work, findings):
    """Reduces each distinct finding (source, finding) -- source a seed or a
    program directory -- and saves it with --save; returns the saved paths."""
    saved, seen = [], set()
    for source, f in findings:
        if f["comparison"] == "rules":
            continue
        key = (f["comparison"], f["kind"], f["detail"].strip().split("\n")[0][:80] if f["kind"] == "error" else "")
        if key in seen:
            continue
        seen.add(key)
        if isinstance(source, int):
            case = generate(tools, source, os.path.join(work, f"gen-{source}"), a.max_ops)
            label = f"seed {source}"
        else:
            case, label = Case.read(source), source
        if f["comparison"] in JIT_COMPARISONS:
            # Within the error model on every output kept; if that passes,
            # the finding is an output marked exact: only those, bit for bit.
            view = Case(jit_view(case.text)[0], case.inputs)
            exact = jit_view(case.text, exact_only=True)
            if exact and not fails(tools, os.path.join(work, f"view-{source}"), view,
                                   f["comparison"], f["kind"]):
                view = Case(exact[0], case.inputs)
            case = view
        rd = os.path.join(work, f"reduce-{len(saved)}-{f['comparison']}")
        small = reduce_case(tools, rd, case, f["comparison"], f["kind"], log=print)
        print(f"--- {label} {f['comparison']} {f['kind']}, reduced:\n{small.text}")
        if a.save:
            saved.append(save_regression(tools, small, f["comparison"], f["kind"], source, a.save, f["detail"]))
            print("saved", saved[-1])
    return saved


def check_programs(tools, a, work):
    """--program: every comparison on the given program directories, their
    findings reduced with --reduce."""
    dirs = [os.path.abspath(d) for d in a.program]
    results = difftest(tools, dirs, jit=not a.no_jit)
    findings = []
    for d in dirs:
        for f in results[program_name(d)]["findings"]:
            findings.append((d, f))
            print(f"{d}: {f['comparison']}: {f['kind']}\n  " +
                  "\n  ".join(f["detail"].strip().split("\n")[-6:]), flush=True)
    print(f"{len(dirs)} programs, {len(findings)} findings")
    reduce_findings(tools, a, work, findings) if a.reduce else None
    if not a.keep and not a.work:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
