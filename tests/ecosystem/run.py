#!/usr/bin/env python3
"""Runs the ecosystem corpus: every program under jax.jit and kiln.jit.

    python tests/ecosystem/run.py [--filter S] [--quick] [--json OUT]
                                  [--docs OUT] [--timeout 120] [--repeat 3]
                                  [--write-expected] [--report] [--list]
                                  [--oracle-only] [--from-json FILE]

Each program runs in a worker process (restarted after a timeout or a
crash): its jaxpr's primitives, dtypes and equation count
(``jax.make_jaxpr``, sub-jaxprs included), ``jax.jit(fn)(*args)`` as the
oracle, ``kiln.jit(fn)(*args)`` (no compile cache unless ``--cache``; for
equinox's ``filter_jit`` programs ``eqx.filter_jit`` and ``kiln.filter_jit``), the
comparison of every output leaf (tests/ecosystem/ecosystem.py), and the time
of each one's first call (trace + compile + run) and, with ``--repeat N``,
the median of N later calls.

Statuses: pass, mismatch (a wrong result: the worst error is reported),
error (Kiln raised: the exception and the first line of its message),
timeout, oracle-error (the program does not run under JAX: a corpus bug).

The results are compared with ``expected_failures.txt``: a failing program
not listed there, or a listed one that now passes, is *unexpected*; the run
exits 1 when there is anything unexpected (or an oracle error), unless
``--report``. ``--write-expected`` rewrites the file from this run.
A full run writes ``report.json`` beside this file unless ``--json`` says
otherwise; ``--docs docs/ecosystem.md`` writes the report page.

Run it with the project's venv and the built package:

    PYTHONPATH=build/python KILN_BIN=build/bin JAX_PLATFORMS=cpu \\
      .venv/bin/python tests/ecosystem/run.py --docs docs/ecosystem.md
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import ecosystem  # noqa: E402

FAILING = ("mismatch", "error", "timeout", "oracle-error")


# ---------------------------------------------------------------------------
# Worker: runs programs named on stdin, one JSON record per line on a pipe.
# ---------------------------------------------------------------------------

def worker_main(result_fd: int, repeat: int, cache: bool, oracle_only: bool) -> int:
    programs = ecosystem.load_programs()
    out = os.fdopen(result_fd, "w", buffering=1)
    cache_dir = ecosystem_cache_dir() if cache else None
    for line in sys.stdin:
        name = line.strip()
        if not name:
            continue
        p = programs[name]
        if oracle_only:
            rec = oracle_only_run(p)
        else:
            rec = ecosystem.run_one(p, repeat=repeat, cache_dir=cache_dir)
        out.write(json.dumps(rec) + "\n")
    return 0


def ecosystem_cache_dir():
    from kiln import _kiln
    return _kiln.default_cache_dir()


def oracle_only_run(p) -> dict:
    import jax
    rec = dict(name=p.name, library=p.library, module=p.module, status="pass", message="",
               cause="", primitives=[], dtypes=[], eqns=None)
    try:
        args = p.args()
        rec["primitives"], rec["dtypes"], rec["eqns"] = ecosystem.jaxpr_facts(
            p.fn, args, p.filter_jit)
        t = time.perf_counter()
        jax.block_until_ready(ecosystem.oracle_jit(p)(*args))
        rec["jax_first_s"] = time.perf_counter() - t
    except Exception as e:
        rec.update(status="oracle-error", message=ecosystem.first_line(e), cause="oracle error")
    return rec


class Worker:
    """A worker process and its result pipe: ``script --worker FD *options``
    reads one request a line on its stdin and writes one JSON record a line
    to FD (tests/differential/corpus_mutants.py uses it too)."""

    def __init__(self, script: Path, options: list[str]):
        self.log = tempfile.NamedTemporaryFile("w+", prefix="ecosystem-worker-", suffix=".log",
                                               delete=False)
        r, w = os.pipe()
        cmd = [sys.executable, str(script), "--worker", str(w), *options]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=self.log,
                                     stderr=subprocess.STDOUT, pass_fds=(w,), text=True,
                                     start_new_session=True)
        os.close(w)
        self.fd = r
        self.buf = b""

    def run(self, request: str, timeout: float) -> dict | str:
        """The record, or 'timeout' / 'crash: ...'."""
        self.proc.stdin.write(request + "\n")
        self.proc.stdin.flush()
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout"
            ready, _, _ = select.select([self.fd], [], [], min(left, 5.0))
            if ready:
                chunk = os.read(self.fd, 1 << 20)
                if not chunk:
                    self.proc.wait()
                    return f"crash: worker exited with status {self.proc.returncode}: " + \
                        self.log_tail()
                self.buf += chunk
            elif self.proc.poll() is not None:
                return f"crash: worker exited with status {self.proc.returncode}: " + \
                    self.log_tail()
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def log_tail(self) -> str:
        self.log.flush()
        try:
            lines = [l for l in Path(self.log.name).read_text(errors="replace").splitlines()
                     if l.strip()]
        except OSError:
            return ""
        return lines[-1][:300] if lines else ""

    def close(self, kill: bool = False):
        try:
            if kill:
                os.killpg(self.proc.pid, 9)
            else:
                self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except Exception:
            try:
                os.killpg(self.proc.pid, 9)
            except Exception:
                pass
        os.close(self.fd)
        self.log.close()
        os.unlink(self.log.name)


# ---------------------------------------------------------------------------
# The run and its report
# ---------------------------------------------------------------------------

def fmt_s(t):
    if t is None:
        return "-"
    return f"{t * 1e3:.1f}ms" if t < 1 else f"{t:.2f}s"


def run_all(programs, args) -> list[dict]:
    results = []
    worker = None
    width = max(len(p.name) for p in programs)
    started = time.monotonic()
    for i, p in enumerate(programs):
        if worker is None:
            options = ["--repeat", str(args.repeat)]
            options += ["--cache"] if args.cache else []
            options += ["--oracle-only"] if args.oracle_only else []
            worker = Worker(Path(__file__).resolve(), options)
        got = worker.run(p.name, args.timeout + 20.0 if i == 0 else args.timeout)
        if isinstance(got, str):
            worker.close(kill=True)
            worker = None
            status = "timeout" if got == "timeout" else "error"
            msg = (f"no result within {args.timeout:.0f} s" if got == "timeout"
                   else got)
            got = dict(name=p.name, library=p.library, module=p.module, status=status,
                       message=msg, cause="timeout" if status == "timeout" else "crash",
                       primitives=[], dtypes=[], eqns=None)
        results.append(got)
        extra = ""
        if got["status"] in ("mismatch",):
            extra = f"  worst {got.get('worst'):.3g}: {got['message']}"
        elif got["status"] != "pass":
            extra = f"  {got['message']}"
        print(f"[{i + 1:3d}/{len(programs)}] {p.name:<{width}} {got['status']:<8} "
              f"jax {fmt_s(got.get('jax_first_s')):>8} kiln {fmt_s(got.get('kiln_first_s')):>8}"
              f"{extra}", flush=True)
    if worker is not None:
        worker.close()
    print(f"ran {len(programs)} programs in {time.monotonic() - started:.0f} s", flush=True)
    return results


def classify(results, expected: dict[str, str]) -> tuple[list[dict], list[dict]]:
    """(unexpected failures, newly passing) against expected_failures.txt."""
    unexpected = [r for r in results if r["status"] in FAILING and r["name"] not in expected]
    newly = [r for r in results if r["status"] == "pass" and r["name"] in expected]
    return unexpected, newly


def cause_ranking(results) -> list[tuple[str, int, str, list[str], int]]:
    """(cause, programs blocked, an example message, program names, programs
    needing it), most blocked first. A program is blocked by the first error
    Kiln reports for it; *needing* counts, for an unsupported primitive or
    dtype, every failing program whose jaxpr has it (what stays blocked until
    it is supported, whatever else they need)."""
    by = collections.OrderedDict()
    for r in results:
        if r["status"] in FAILING:
            by.setdefault(r["cause"] or r["status"], []).append(r)
    failing = [r for r in results if r["status"] in FAILING]

    def needing(cause: str, blocked: int) -> int:
        kind, _, what = cause.partition(" ")
        if kind == "primitive":
            return sum(what in (r.get("primitives") or []) for r in failing)
        if kind == "dtype" and not what.startswith("key"):
            return sum(what in (r.get("dtypes") or []) for r in failing)
        return blocked

    ranked = sorted(by.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return [(c, len(rs), rs[0]["message"], [r["name"] for r in rs], needing(c, len(rs)))
            for c, rs in ranked]


def summary(results) -> dict:
    counts = collections.Counter(r["status"] for r in results)
    libs = collections.OrderedDict()
    for r in sorted(results, key=lambda r: r["library"]):
        d = libs.setdefault(r["library"], collections.Counter())
        d["programs"] += 1
        d[r["status"]] += 1
    return dict(totals=dict(counts), libraries={k: dict(v) for k, v in libs.items()})


def write_expected(results, path: Path):
    lines = ["# Ecosystem corpus programs that do not match jax.jit yet, one per line:",
             "# NAME STATUS: REASON (the cause and first error line of tests/ecosystem/run.py).",
             "# run.py reports a failing program not listed here, and a listed one that passes;",
             "# `run.py --write-expected` rewrites this file from a run.",
             ""]
    for r in results:
        if r["status"] in FAILING:
            msg = r["message"].replace("\n", " ")
            lines.append(f"{r['name']} {r['status']}: [{r['cause']}] {msg}")
    path.write_text("\n".join(lines) + "\n")
    print(f"wrote {path}")


def write_docs(report: dict, path: Path):
    results = report["results"]
    s = summary(results)
    tot = s["totals"]
    n = len(results)
    passed = tot.get("pass", 0)
    lines = [
        "# The ecosystem corpus",
        "",
        "`tests/ecosystem/` holds programs written with the public APIs of the libraries",
        "JAX users use — flax (linen and nnx), haiku, equinox, optax, numpyro, blackjax,",
        "jraph, jax-md, optimistix, jaxopt, lineax, diffrax, distrax, chex — and of",
        "`jax.scipy`, `jnp.linalg`, `jnp.fft`, `jax.random` and `jax.lax`, as their",
        "users write them, at realistic but test-friendly sizes: models (MLPs, CNNs with",
        "pooling, LSTM/GRU, transformer blocks, BatchNorm and Dropout in eval mode, bf16",
        "mixed precision), full training steps (value_and_grad + optax), numpyro log",
        "densities and HMC/NUTS steps, blackjax kernels, jraph graph networks, jax-md",
        "energies, forces and integrators, solvers (optimistix, jaxopt, lineax, diffrax",
        "with adaptive steps, an SDE), distrax flows, linear algebra and FFT programs,",
        "sampling (top-k, top-p, categorical) and scatter/gather-heavy code. It is the",
        "corpus of issue 42; the libraries are pinned in `requirements.txt` (CPU only).",
        "",
        "Each program is a function and a builder of its example inputs, registered",
        "with `@program(name, library, args=..., rtol=..., atol=...)` in",
        "`tests/ecosystem/programs/*.py` (the registry and the comparison:",
        "`tests/ecosystem/ecosystem.py`). The runner calls `jax.jit(fn)(*args)` (the",
        "oracle) and `kiln.jit(fn)(*args)` and compares every output leaf: shapes and",
        "dtypes equal, integer, boolean and key outputs equal, float and complex outputs",
        "within `|kiln - jax| <= atol * max(1, max|jax|) + rtol * |jax|` (default rtol",
        "1e-4, atol 1e-5 for f32; looser where a program says why, e.g. bf16). It also",
        "records each program's jaxpr primitives (sub-jaxprs included), dtypes and",
        "equation count, and the first-call time (trace + compile + run) of both.",
        "",
        "## Running it",
        "",
        "```sh",
        f"# the whole corpus ({n} programs, each in a worker process with a 120 s limit;",
        f"# {report.get('seconds') or 400:.0f} s on a 2-core machine): writes",
        "# tests/ecosystem/report.json, and this page with --docs",
        "export PYTHONPATH=build/python KILN_BIN=build/bin JAX_PLATFORMS=cpu",
        ".venv/bin/python tests/ecosystem/run.py --docs docs/ecosystem.md",
        "# some programs: names (substrings or patterns) or a library",
        ".venv/bin/python tests/ecosystem/run.py --filter numpyro,flax_cnn* --report",
        "# the CI subset (quick.txt), also run by ctest as `ecosystem-quick`",
        ".venv/bin/python tests/ecosystem/run.py --quick",
        ".venv/bin/python -m pytest -q tests/ecosystem",
        "# the corpus itself: every program under jax.jit only",
        ".venv/bin/python tests/ecosystem/run.py --oracle-only",
        "```",
        "",
        "The run compares its results with `tests/ecosystem/expected_failures.txt`",
        "(each known failure with its reason): a program failing that is not listed, or",
        "a listed one that now passes, is reported as unexpected and makes the command",
        "exit 1 (`--report` exits 0 anyway). When Kiln gains a primitive, run",
        "`run.py --write-expected` and commit the shorter file with the new report.",
        "`ctest -R ecosystem-quick` runs the quick subset (`tests/ecosystem/quick.txt`,",
        "programs that pass and run fast, about a minute) on every change; the full",
        "corpus is this documented command, not part of ctest.",
        "",
        "Some outputs are deliberately not compared: iterative solvers' step counts",
        "(optimistix BFGS on Rosenbrock takes 71 steps under Kiln and 76 under XLA:",
        "a 1-ulp difference after about 20 steps grows along the valley, and both",
        "reach (1, 1, 1)), and eigen/QR factors only up to sign (programs compare",
        "reconstructions). Equinox programs use `eqx.filter_jit` as the oracle, as",
        "equinox users do, and Kiln runs them with `kiln.filter_jit`, as an equinox",
        "user would swap it in: array leaves traced, every other leaf (Python numbers",
        "and bools, activation functions) static, non-array outputs returned as traced",
        "(`kiln.jit` follows `jax.jit`: it would trace a module's Python numbers and",
        "refuse non-array outputs; docs/python.md).",
        "",
        "## Latest result",
        "",
        f"{report.get('when', '')}: jax {report.get('jax', '?')}, "
        f"{n} programs, **{passed} pass** ({100.0 * passed / max(n, 1):.0f} %)"
        + "".join(f", {tot.get(k, 0)} {k}" for k in FAILING if tot.get(k)) + ".",
        "",
        "| library | programs | pass | mismatch | error | timeout |",
        "|---|---|---|---|---|---|",
    ]
    for lib, c in s["libraries"].items():
        lines.append(f"| {lib} | {c['programs']} | {c.get('pass', 0)} | {c.get('mismatch', 0)} "
                     f"| {c.get('error', 0)} | {c.get('timeout', 0)} |")
    lines += ["", "### What blocks the failing programs", "",
              "Each cause (an unsupported primitive or dtype, an importer defect, a",
              "kiln.jit difference, a wrong result) with the number of programs it",
              "blocks, most first: a program is counted under the first error Kiln",
              "reports for it. *Needed by* counts, for a primitive or dtype, every",
              "failing program whose jaxpr has it.", "",
              "| cause | blocks | needed by | example (program) |", "|---|---|---|---|"]
    for cause, count, example, names, need in cause_ranking(results):
        ex = example.replace("|", "\\|")[:170]
        lines.append(f"| {cause.replace('|', '/')} | {count} | {need} | `{ex}` ({names[0]}) |")
    slow = [r for r in results if r["status"] == "pass" and r.get("kiln_first_s")
            and r.get("jax_first_s") and r["kiln_first_s"] > max(2.0, 3 * r["jax_first_s"])]
    if slow:
        lines += ["", "### Compile-time outliers", "",
                  "Passing programs whose first kiln.jit call (trace, import, compile,",
                  "run; no compile cache) takes over 3x jax.jit's and over 2 s:", "",
                  "| program | eqns | jax first call | kiln first call |", "|---|---|---|---|"]
        for r in sorted(slow, key=lambda r: -r["kiln_first_s"]):
            lines.append(f"| {r['name']} | {r.get('eqns') or '-'} | {fmt_s(r['jax_first_s'])} | "
                         f"{fmt_s(r['kiln_first_s'])} |")
    lines += ["", "### Failing programs", "",
              "| program | library | status | located error |", "|---|---|---|---|"]
    for r in results:
        if r["status"] in FAILING:
            msg = r["message"].replace("|", "\\|").replace("\n", " ")[:220]
            lines.append(f"| {r['name']} | {r['library']} | {r['status']} | `{msg}` |")
    lines += ["", "### Every program", "",
              "First calls: trace + compile + run (Kiln without its compile cache), on a",
              "shared 2-core machine.", "",
              "| program | library | status | eqns | jax first call | kiln first call | primitives |",
              "|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['name']} | {r['library']} | {r['status']} | {r.get('eqns') or '-'} | "
                     f"{fmt_s(r.get('jax_first_s'))} | {fmt_s(r.get('kiln_first_s'))} | "
                     f"{' '.join(r.get('primitives') or [])} |")
    path.write_text("\n".join(lines) + "\n")
    print(f"wrote {path}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--filter", help="comma-separated name substrings, fnmatch patterns or "
                                     "library names")
    ap.add_argument("--quick", action="store_true", help="only the CI subset (quick.txt)")
    ap.add_argument("--json", help="write the report here (default for a full run: "
                                   "tests/ecosystem/report.json)")
    ap.add_argument("--docs", help="write the markdown report page here")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per program")
    ap.add_argument("--repeat", type=int, default=3,
                    help="timed later calls per program (median; 0: none)")
    ap.add_argument("--cache", action="store_true", help="use Kiln's compile cache")
    ap.add_argument("--write-expected", action="store_true",
                    help="rewrite expected_failures.txt from this run")
    ap.add_argument("--report", action="store_true", help="exit 0 whatever the results")
    ap.add_argument("--list", action="store_true", help="list the selected programs")
    ap.add_argument("--oracle-only", action="store_true",
                    help="run the programs under jax.jit only (checks the corpus itself)")
    ap.add_argument("--from-json", help="no run: write --docs/--write-expected from a report")
    ap.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.worker is not None:
        return worker_main(args.worker, args.repeat, args.cache, args.oracle_only)

    if args.from_json:
        report = json.loads(Path(args.from_json).read_text())
        for r in report["results"]:  # causes as this version names them
            if r["status"] == "error":
                r["cause"] = ecosystem.failure_cause(r["status"], r["message"])
        if args.docs:
            write_docs(report, Path(args.docs))
        if args.write_expected:
            write_expected(report["results"], ecosystem.EXPECTED_FILE)
        return 0

    programs = ecosystem.load_programs()
    chosen = ecosystem.select(programs, args.filter,
                              ecosystem.read_quick() if args.quick else None)
    if args.list:
        for p in chosen:
            print(f"{p.name:<40} {p.library:<12} {p.note}")
        print(f"{len(chosen)} programs, {len({p.library for p in chosen})} libraries")
        return 0
    if not chosen:
        print("ecosystem: no program selected")
        return 1

    started = time.monotonic()
    results = run_all(chosen, args)
    seconds = time.monotonic() - started
    import jax
    report = dict(when=time.strftime("%Y-%m-%d"), jax=jax.__version__,
                  python=sys.version.split()[0], oracle_only=args.oracle_only,
                  seconds=round(seconds, 1),
                  summary=summary(results),
                  causes=[dict(cause=c, programs=n, needed_by=need, example=e, names=ns)
                          for c, n, e, ns, need in cause_ranking(results)],
                  results=results)
    full = not args.filter and not args.quick
    json_out = args.json or (str(HERE / "report.json") if full and not args.oracle_only else None)
    if json_out:
        Path(json_out).write_text(json.dumps(report, indent=1) + "\n")
        print(f"wrote {json_out}")
    if args.docs:
        write_docs(report, Path(args.docs))
    if args.write_expected:
        write_expected(results, ecosystem.EXPECTED_FILE)

    tot = report["summary"]["totals"]
    print("\n" + ", ".join(f"{tot.get(k, 0)} {k}" for k in ("pass",) + FAILING) +
          f" (of {len(results)} programs)")
    print("\nfailure causes (programs blocked (programs needing it)):")
    for c, n, e, ns, need in cause_ranking(results):
        print(f"  {n:3d} ({need:3d})  {c}   e.g. {ns[0]}: {e[:150]}")
    if args.oracle_only:
        return 0 if not tot.get("oracle-error") else 1
    expected = ecosystem.read_expected()
    unexpected, newly = classify(results, expected)
    for r in unexpected:
        print(f"UNEXPECTED {r['status']}: {r['name']}: {r['message']}")
    for r in newly:
        print(f"NEWLY PASSING: {r['name']} (remove it from expected_failures.txt)")
    if (unexpected or newly) and not args.report:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
