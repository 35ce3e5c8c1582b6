#!/usr/bin/env python3
"""Compile time against program size: Kiln beside XLA (jax.jit's first call)
on families of JAX programs, each at growing sizes (jax-ml/jax#7155, seed
001, asked about compile time; issue 43 asks that time per equation stay
flat).

Each program is a JAX function; its jaxpr (jax.make_jaxpr, printed as JAX
prints it) is what Kiln compiles:

    kiln-run FILE.jaxpr --random-inputs --no-cache --repeat 1 --time-json

in a process of its own: its CPU time (user + system, os.wait4) and wall
time, and Kiln's own phases (wall, --time-json: lax -> linalg, bufferization
and linalg -> LLVM dialect, LLVM codegen, link). XLA's side is the same JAX
function under jax.jit, its first call (trace, lower, compile, one call,
blocked on) in a fresh process with no persistent compilation cache
(bench/peers/jax_peers.py first-call scaling:FAMILY:SIZE): the CPU time of
that process during the call (time.process_time, every thread) and its wall
time. The two sides alternate program by program, so a slow stretch of a
shared machine falls on both.

Kiln's CPU time is the whole process's (start, import, random inputs, the
compile, one call); XLA's is the first call's alone (after `import jax` and
the backend's start): the comparison leans towards XLA.

Used by bench/harness.py (`--only COMPILE_SCALING`); alone:

    bench/compile_scaling.py --build build [--quick] [--families chain,mlp]
                             [--timeout 300] [--jax-python .venv/bin/python]

Under the pinned .venv's python (the one with jax) it also writes programs:

    compile_scaling.py jaxprs OUTDIR FAMILY:SIZE...
        writes OUTDIR/FAMILY-SIZE.jaxpr for each and prints one JSON line
        each: {"family", "size", "path", "equations"} (equations: the
        jaxpr's, those of nested jaxprs (scan and loop bodies, inner jits)
        counted too).
"""
import argparse
import json
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# --- the families (JAX; built under the .venv's python) -------------------------
def chain(n):
    """Stacked row chain: jnp.stack([A[i] * 0.5 + A[i + 1] for i in range(n)])."""
    import jax.numpy as jnp

    def f(a):
        return jnp.stack([a[i] * 0.5 + a[i + 1] for i in range(n)])
    return f, [(n + 1, 64)]


def mlp(layers):
    """`layers` tanh layers of width 32 on a batch of 8, weights stacked."""
    import jax.numpy as jnp

    def f(x, ws, bs):
        for l in range(layers):
            x = jnp.tanh(x @ ws[l] + bs[l])
        return x
    return f, [(8, 32), (layers, 32, 32), (layers, 32)]


def unrolled(k):
    """A Python loop unrolled k times: x = x + 0.1 * sin(x) * roll(x, 1)."""
    import jax.numpy as jnp

    def f(x):
        for _ in range(k):
            x = x + 0.1 * jnp.sin(x) * jnp.roll(x, 1)
        return x
    return f, [(1024,)]


def fanout(k):
    """One input feeding k independent branches, summed."""
    import jax.numpy as jnp

    def f(x):
        total = None
        for i in range(k):
            branch = jnp.tanh(x * (1.0 + 0.01 * i) + 0.1 * i).sum(axis=0)
            total = branch if total is None else total + branch
        return total
    return f, [(64, 64)]


def nested_scans(m):
    """lax.scan over 8 steps whose body holds m blocks, each an inner
    lax.fori_loop (4 steps of tanh(h @ W + x)) and a matmul."""
    import jax
    import jax.numpy as jnp

    def f(h, xs, ws, vs):
        def body(c, x):
            for j in range(m):
                c = jax.lax.fori_loop(0, 4, lambda i, h, j=j: jnp.tanh(h @ ws[j] + x), c)
                c = (c @ vs[j]) * 0.5
            return c, jnp.sum(c)
        return jax.lax.scan(body, h, xs)
    return f, [(16, 16), (8, 16, 16), (m, 16, 16), (m, 16, 16)]


def many_inputs(k):
    """A weighted sum of k f32[4] inputs (a model's many small parameters)."""
    def f(*xs):
        total = xs[0]
        for i, x in enumerate(xs[1:], 1):
            total = total + x * float(i % 7)
        return total
    return f, [(4,)] * k


# name -> (label, builder, what the size counts, sizes, --quick sizes)
FAMILIES = {
    "chain": ("stacked row chain, A f32[n+1, 64]", chain, "n", [50, 100, 200, 400, 800],
              [50, 200]),
    "mlp": ("tanh MLP 8x32", mlp, "layers", [10, 20, 40, 80], [10, 20]),
    "unrolled": ("unrolled loop x + 0.1 sin(x) roll(x), f32[1024]", unrolled, "k",
                 [100, 200, 400, 800], [100, 200]),
    "fanout": ("fan-out: k tanh-sum branches of f32[64, 64], summed", fanout, "k",
               [50, 100, 200, 400], [50, 100]),
    "nested_scans": ("scan (8 steps) of m blocks: fori_loop (4 steps) + matmul, 16x16",
                     nested_scans, "m", [4, 8, 16, 32], [4, 8]),
    "inputs": ("weighted sum of k f32[4] inputs", many_inputs, "k",
               [300, 600, 1200, 2400, 4800], [300, 1200]),
}


def build(family, size):
    """(function, input shapes) of one program; all inputs are float32."""
    return FAMILIES[family][1](size)


def count_equations(jaxpr):
    """Equations of a jaxpr, those of the jaxprs in its equations' parameters
    (scan and loop bodies, cond branches, inner jits) counted too."""
    def subjaxprs(value):
        if hasattr(value, "eqns"):  # a Jaxpr
            yield value
        elif hasattr(value, "jaxpr") and hasattr(value.jaxpr, "eqns"):  # a ClosedJaxpr
            yield value.jaxpr
        elif isinstance(value, (tuple, list)):
            for v in value:
                yield from subjaxprs(v)
    total = 0
    for eqn in jaxpr.eqns:
        total += 1
        for value in eqn.params.values():
            total += sum(count_equations(j) for j in subjaxprs(value))
    return total


def write_jaxprs(outdir, specs):
    """compile_scaling.py jaxprs: each FAMILY:SIZE's jaxpr into outdir."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp
    for spec in specs:
        family, size = spec.split(":")
        fn, shapes = build(family, int(size))
        closed = jax.make_jaxpr(fn)(*[jax.ShapeDtypeStruct(s, jnp.float32) for s in shapes])
        path = Path(outdir) / f"{family}-{size}.jaxpr"
        path.write_text(str(closed) + "\n")
        print(json.dumps({"family": family, "size": int(size), "path": str(path),
                          "equations": count_equations(closed.jaxpr)}), flush=True)


# --- measuring (the harness's python; no jax here) -----------------------------------
def run_with_rusage(cmd, env=None, timeout=None):
    """Runs `cmd`; returns (exit code, stdout, stderr, CPU seconds (user +
    system, the process and the children it waited for), wall seconds,
    timed out). Past `timeout` seconds the process (and its group) is
    killed; so it is when this one is interrupted (it runs in a session of
    its own, out of the terminal's reach)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, text=True,
                                start_new_session=True)

        def kill():
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            return os.wait4(proc.pid, 0)
        timed_out = False
        try:
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                if timeout is not None and time.perf_counter() - start > timeout:
                    timed_out = True
                    _, status, usage = kill()
                    break
                time.sleep(0.02)
        except BaseException:
            kill()
            proc.returncode = -signal.SIGKILL
            raise
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        return (proc.returncode, out.read(), err.read(), usage.ru_utime + usage.ru_stime, wall,
                timed_out)


def kiln_compile(kiln_run, path, timeout):
    """One cold compile of `path` by kiln-run: a dict of cpu_s, wall_s,
    compile_s, phases_s, or {"timeout": True} or {"error": text}."""
    rc, out, err, cpu, wall, timed_out = run_with_rusage(
        [str(kiln_run), str(path), "--random-inputs", "--no-cache", "--repeat", "1",
         "--time-json"], timeout=timeout)
    if timed_out:
        return {"timeout": True, "cpu_s": cpu, "wall_s": wall}
    if rc != 0:
        return {"error": (err.strip().splitlines() or [f"exit {rc}"])[-1]}
    data = json.loads(next(l for l in out.splitlines() if l.startswith("{")))
    return {"cpu_s": cpu, "wall_s": wall, "compile_s": data["compile_s"],
            "call_s": data["median_s"], "phases_s": data["phases_s"]}


def xla_first_call(jax_python, family, size, env, timeout):
    """jax.jit's first call of the same program in a fresh process
    (jax_peers.py first-call, no persistent cache): a dict of cpu_s (the
    call's, every thread), wall_s (the call's), process_cpu_s (the whole
    process: python, import jax, the call), or {"timeout"} or {"error"}."""
    rc, out, err, cpu, _, timed_out = run_with_rusage(
        [str(jax_python), str(ROOT / "bench" / "peers" / "jax_peers.py"), "first-call",
         f"scaling:{family}:{size}"], env=env, timeout=timeout)
    if timed_out:
        return {"timeout": True}
    if rc != 0:
        return {"error": (err.strip().splitlines() or [f"exit {rc}"])[-1]}
    data = json.loads(out.strip().splitlines()[-1])
    return {"cpu_s": data["first_cpu_s"], "wall_s": data["first_s"], "process_cpu_s": cpu}


def pass_breakdown(bindir, path, timeout):
    """Where the lowering's time goes, pass by pass (--passes): the jaxpr's
    import alone (kiln-translate --import-jaxpr, process CPU), then
    `kiln-opt --kiln-lower-cpu --mlir-timing` on the module, one thread (the
    pipeline behind kiln-run's lax -> linalg and LLVM dialect phases, as
    kiln-opt spells it; its times need not add up to kiln-run's):
    {"import_cpu_s", "bufferize_s" (the bufferization passes, wall),
    "lower_s" (all passes, wall), "top": [[pass, seconds], ...]}."""
    mlir = Path(path).with_suffix(".mlir")
    rc, _, err, import_cpu, _, timed_out = run_with_rusage(
        [str(Path(bindir) / "kiln-translate"), "--import-jaxpr", str(path), "-o", str(mlir)],
        timeout=timeout)
    if rc or timed_out:
        return {"error": "import: " + ("timeout" if timed_out else err.strip()[-200:])}
    rc, _, err, _, _, timed_out = run_with_rusage(
        [str(Path(bindir) / "kiln-opt"), str(mlir), "--kiln-lower-cpu", "--mlir-timing",
         "--mlir-disable-threading", "-o", os.devnull], timeout=timeout)
    if rc or timed_out:
        return {"import_cpu_s": import_cpu,
                "error": "lowering: " + ("timeout" if timed_out else err.strip()[-200:])}
    passes, total = {}, None
    for line in err.splitlines():
        m = re.match(r"\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(.*\S)", line)
        if m and m.group(2) == "Total":
            total = float(m.group(1))
        elif m and m.group(2) not in ("Parser", "Output", "Rest") and "Pipeline" not in m.group(2):
            passes[m.group(2)] = passes.get(m.group(2), 0.0) + float(m.group(1))
    top = sorted(passes.items(), key=lambda kv: -kv[1])
    bufferize = sum(t for name, t in passes.items()
                    if "Bufferiz" in name or "EmptyTensor" in name)
    return {"import_cpu_s": import_cpu, "bufferize_s": bufferize, "lower_s": total,
            "top": [[name, t] for name, t in top[:3]]}


def measure(kiln_run, jax_python, env, families=None, quick=False, timeout=300.0,
            samples=None, log=print, passes=False):
    """Yields one row per program (ROW_KEYS), Kiln and XLA alternated
    program by program. A family's larger sizes are skipped once Kiln (or
    XLA) ran past `timeout` on a smaller one. `samples`: runs of each side
    per program, the median kept (default 1; the full run: 3 where one run
    takes under 10 s). `passes`: also row["passes"], pass_breakdown's."""
    families = families or list(FAMILIES)
    specs = [(f, s) for f in families for s in FAMILIES[f][4 if quick else 3]]
    with tempfile.TemporaryDirectory(prefix="kiln-compile-scaling-") as tmp:
        proc = subprocess.run([str(jax_python), str(Path(__file__).resolve()), "jaxprs", tmp,
                               *[f"{f}:{s}" for f, s in specs]],
                              capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            raise RuntimeError("writing the jaxprs: " +
                               (proc.stderr.strip().splitlines() or ["no output"])[-1])
        programs = {(d["family"], d["size"]): d for d in map(json.loads, proc.stdout.splitlines())}
        stopped = {}  # family -> why its larger sizes are skipped
        for k, (family, size) in enumerate(specs):
            prog = programs[(family, size)]
            row = {"family": family, "size": size, "equations": prog["equations"],
                   "kiln": None, "xla": None, "samples": 0}
            if family in stopped:
                row["kiln"] = row["xla"] = {"skipped": stopped[family]}
                log(f"  {family:<13} {size:<6} skipped: {stopped[family]}")
                yield row
                continue
            runs = {"kiln": [], "xla": []}
            want = samples or 1
            i = 0
            while i < want:
                # Alternate which side goes first, program by program and run by run.
                order = ("kiln", "xla") if (k + i) % 2 == 0 else ("xla", "kiln")
                for side in order:
                    if side == "kiln":
                        runs[side].append(kiln_compile(kiln_run, prog["path"], timeout))
                    else:
                        runs[side].append(xla_first_call(jax_python, family, size, env, timeout))
                i += 1
                if samples is None and i == 1 and not quick and all(
                        r[-1].get("cpu_s") is not None and r[-1].get("cpu_s", 1e9) < 10
                        and "timeout" not in r[-1] for r in runs.values()):
                    want = 3
            row["samples"] = i
            for side, results in runs.items():
                row[side] = summarize(results)
                if "timeout" in row[side]:
                    stopped.setdefault(family, f"{side} past {timeout:.0f} s at {size}")
            log(format_progress(row))
            if passes and "timeout" not in row["kiln"] and "error" not in row["kiln"]:
                row["passes"] = pass_breakdown(Path(kiln_run).parent, prog["path"], timeout)
                log(format_passes(row))
            yield row


def summarize(results):
    """The median run of one side (by CPU time), or its timeout/error."""
    for bad in ("timeout", "error"):
        hit = next((r for r in results if bad in r), None)
        if hit is not None:
            return hit
    return median_by(results, "cpu_s")


def median_by(results, key):
    results = sorted(results, key=lambda r: r[key])
    return results[len(results) // 2]


# --- rows, table, growth ------------------------------------------------------------
ROW_KEYS = ["family", "size", "equations", "kiln_cpu_s", "kiln_wall_s", "compile_wall_s",
            "to_linalg_s", "to_llvm_s", "codegen_s", "link_s", "xla_cpu_s", "xla_wall_s",
            "xla_process_cpu_s", "status"]
# Kiln's phases: kiln-run's own (wall) and what the rest of its process is.
PHASES = [("rest_s", "start, import, run"), ("to_linalg_s", "lax -> linalg"),
          ("to_llvm_s", "bufferize + to LLVM dialect"), ("codegen_s", "LLVM codegen")]


def phase_cpu(d):
    """Kiln's phases in CPU seconds, estimated: each phase's wall time (and
    the process's wall time outside the compile: start, import, inputs, the
    call) times the process's CPU / wall (a loaded machine stretches wall
    time; the compile is one thread). {key: seconds} of PHASES, or {} where
    the compile did not finish."""
    if not d["kiln_cpu_s"] or not d["kiln_wall_s"] or d["compile_wall_s"] is None:
        return {}
    share = d["kiln_cpu_s"] / d["kiln_wall_s"]
    out = {k: d[k] * share for k, _ in PHASES[1:] if d[k] is not None}
    out["rest_s"] = max(0.0, d["kiln_wall_s"] - d["compile_wall_s"]) * share
    return out


def flat_row(row):
    """A measured row (measure()) as the JSON row of ROW_KEYS: seconds, None
    where a side did not finish; `status` says why ("" when both did)."""
    kiln, xla = row["kiln"] or {}, row["xla"] or {}
    phases = kiln.get("phases_s") or {}
    status = []
    for side, r in (("Kiln", kiln), ("XLA", xla)):
        if "timeout" in r:
            status.append(f"{side} timeout")
        elif "error" in r:
            status.append(f"{side} error: {r['error']}")
        elif "skipped" in r:
            status.append(f"{side} skipped")
    ran = "error" not in kiln and "skipped" not in kiln
    done = ran and "timeout" not in kiln
    return [row["family"], row["size"], row["equations"],
            kiln.get("cpu_s") if ran else None, kiln.get("wall_s") if ran else None,
            kiln.get("compile_s") if done else None,
            *(phases.get(k) if done else None for k in ("to_linalg", "to_llvm", "codegen", "link")),
            xla.get("cpu_s"), xla.get("wall_s"), xla.get("process_cpu_s"), "; ".join(status)]


def fmt_s(seconds, bound=False):
    if seconds is None:
        return "-"
    text = f"{seconds:.3f} s" if seconds >= 1 else f"{seconds * 1e3:.1f} ms"
    return ("> " if bound else "") + text


def fmt_per_eq(seconds, equations, bound=False):
    if seconds is None or not equations:
        return "-"
    return ("> " if bound else "") + f"{seconds / equations * 1e3:.2f} ms"


COLUMNS = ["family", "size", "equations", "Kiln CPU", "Kiln wall", "start, import, run",
           "lax -> linalg", "bufferize + to LLVM", "LLVM codegen", "XLA CPU", "XLA wall",
           "XLA / Kiln", "Kiln CPU / eq", "XLA CPU / eq"]


def format_cells(r):
    """The text cells (COLUMNS) of one JSON row (ROW_KEYS). A Kiln compile
    stopped at the timeout shows its CPU time as a lower bound."""
    d = dict(zip(ROW_KEYS, r))
    kiln_bound = "Kiln timeout" in (d["status"] or "")
    if d["kiln_cpu_s"] and d["xla_cpu_s"]:
        ratio = f"{'< ' if kiln_bound else ''}{d['xla_cpu_s'] / d['kiln_cpu_s']:.2f}x"
    else:
        ratio = "-"
    label = FAMILIES[d["family"]][2] if d["family"] in FAMILIES else ""
    size = f"{label} = {d['size']}" if label else str(d["size"])
    cells = [d["family"], size, str(d["equations"]),
             fmt_s(d["kiln_cpu_s"], kiln_bound), fmt_s(d["kiln_wall_s"], kiln_bound),
             *(fmt_s(phase_cpu(d).get(k)) for k, _ in PHASES),
             fmt_s(d["xla_cpu_s"]), fmt_s(d["xla_wall_s"]), ratio,
             fmt_per_eq(d["kiln_cpu_s"], d["equations"], kiln_bound),
             fmt_per_eq(d["xla_cpu_s"], d["equations"])]
    if d["status"] and not (d["kiln_cpu_s"] and d["xla_cpu_s"] and not kiln_bound):
        cells[-1] += f" ({d['status']})"
    return cells


# Growth of time per equation, largest size over smallest, above which a
# family is flagged: issue 43's goal, ten times the program in at most twelve
# times the time.
SUPERLINEAR = 1.2

GROWTH_KEYS = ["family", "equations_from", "equations_to", "kiln_growth", "xla_growth",
               "kiln_exponent", "worst_phase", "worst_phase_growth", "superlinear", "note"]
GROWTH_COLUMNS = ["family", "equations", "Kiln per-eq growth", "XLA per-eq growth",
                  "Kiln exponent", "phase growing most", "flag"]


def growth(rows):
    """Per family: time per equation at the largest size both sides (Kiln;
    XLA apart) finished, over that at the smallest; the exponent b of time ~
    equations^b; the Kiln phase (phase_cpu) whose time per equation rose
    most (in ms per equation, so that a phase too small to matter does not
    count), with its own growth; none where no phase's rose. A Kiln timeout makes its growth a lower
    bound (to the timed-out size)."""
    by_family = {}
    for r in rows:
        by_family.setdefault(r[0], []).append(dict(zip(ROW_KEYS, r)))
    out = []
    for family, rs in by_family.items():
        rs = sorted(rs, key=lambda d: d["equations"])
        kiln = [d for d in rs if d["kiln_cpu_s"]]
        xla = [d for d in rs if d["xla_cpu_s"]]
        note = ""
        if kiln and "Kiln timeout" in (kiln[-1]["status"] or ""):
            note = f"Kiln stopped at the timeout at {kiln[-1]['equations']} equations: a lower bound"

        def per_eq_growth(ds, key):
            if len(ds) < 2 or not ds[0][key] or not ds[-1][key]:
                return None
            return (ds[-1][key] / ds[-1]["equations"]) / (ds[0][key] / ds[0]["equations"])
        kg, xg = per_eq_growth(kiln, "kiln_cpu_s"), per_eq_growth(xla, "xla_cpu_s")
        exponent = None
        if kg is not None and kiln[-1]["equations"] != kiln[0]["equations"]:
            exponent = 1 + math.log(kg) / math.log(kiln[-1]["equations"] / kiln[0]["equations"])
        phased = [dict(phase_cpu(d), equations=d["equations"]) for d in kiln if phase_cpu(d)]
        worst, worst_g, worst_rise = None, None, None
        for key, name in PHASES:
            g = per_eq_growth(phased, key)
            if g is None:
                continue
            rise = phased[-1][key] / phased[-1]["equations"] - phased[0][key] / phased[0]["equations"]
            if rise > 0 and (worst_rise is None or rise > worst_rise):
                worst, worst_g, worst_rise = name, g, rise
        out.append([family, kiln[0]["equations"] if kiln else None,
                    kiln[-1]["equations"] if kiln else None, kg, xg, exponent, worst, worst_g,
                    bool(kg is not None and kg > SUPERLINEAR), note])
    return out


def format_growth(g):
    d = dict(zip(GROWTH_KEYS, g))
    bound = "> " if d["note"] else ""
    x = lambda v, b="": f"{b}{v:.2f}x" if v is not None else "-"
    span = f"{d['equations_from']} -> {d['equations_to']}" if d["equations_from"] else "-"
    phase = f"{d['worst_phase']} ({x(d['worst_phase_growth'])})" if d["worst_phase"] else "-"
    exponent = f"{bound}{d['kiln_exponent']:.2f}" if d["kiln_exponent"] is not None else "-"
    flag = "SUPERLINEAR" if d["superlinear"] else "ok" if d["kiln_growth"] is not None else "-"
    if d["note"]:
        flag += " (Kiln timed out)"
    return [d["family"], span, x(d["kiln_growth"], bound), x(d["xla_growth"]), exponent, phase,
            flag]


def format_progress(row):
    """One line as a program's measurement ends."""
    c = format_cells(flat_row(row))
    return (f"  {c[0]:<13} {c[1]:<12} {c[2]:>6} eqns  Kiln {c[3]:>11} (rest {c[5]}, linalg "
            f"{c[6]}, LLVM dialect {c[7]}, codegen {c[8]})  XLA {c[9]:>10}  XLA/Kiln {c[11]}")


def format_passes(row):
    """One line of pass_breakdown's figures for a program (--passes)."""
    b = row.get("passes") or {}
    if "error" in b:
        return f"    passes: {b['error']}"
    top = ", ".join(f"{name} {fmt_s(t)}" for name, t in b["top"])
    return (f"    import {fmt_s(b['import_cpu_s'])} CPU; lowering {fmt_s(b['lower_s'])}, "
            f"of which bufferization {fmt_s(b['bufferize_s'])}; top passes: {top}")


def print_table(rows, out=sys.stdout):
    for title, columns, cells in (
            ("compile time against size", COLUMNS, [format_cells(r) for r in rows]),
            ("time per equation, largest size over smallest", GROWTH_COLUMNS,
             [format_growth(g) for g in growth(rows)])):
        print(f"\n{title}", file=out)
        widths = [max(len(c[i]) for c in [columns, *cells]) for i in range(len(columns))]
        for line in [columns, *cells]:
            print("  " + "  ".join(c.ljust(w) for c, w in zip(line, widths)), file=out)


def format_growth_lines(rows):
    """The growth summary as console lines (the harness prints them after
    the programs' lines)."""
    lines = ["  time per equation, largest size over smallest (flag: over "
             f"{SUPERLINEAR:.1f}x):"]
    for g in growth(rows):
        family, span, kiln, xla, exponent, phase, flag = format_growth(g)
        lines.append(f"    {family:<13} {span:<16} Kiln {kiln:>8} (exponent {exponent})  "
                     f"XLA {xla:>7}  phase growing most: {phase}  {flag}")
    return lines


def tables(rows, args):
    """The report's tables (bench/report.py Table) of the rows (ROW_KEYS):
    the programs, with the chart (latest.compile-scaling.png), and the
    growth per family."""
    from report import Table
    threads = getattr(args, "threads", 2)
    intro = [
        "`bench/compile_scaling.py`: program families written in JAX, each at growing",
        "sizes; `equations`: the jaxpr's, nested ones (scan and loop bodies) counted.",
        "Kiln: `kiln-run FILE.jaxpr --random-inputs --no-cache --repeat 1 --time-json` in a",
        "process of its own, its CPU time (user + system: start, import, inputs, compile,",
        "one call) and wall time, and where the CPU time went: kiln-run's phases (lax ->",
        "linalg, bufferize and lower to the LLVM dialect, LLVM codegen: -O3 and machine",
        "code) and the rest of the process (start, import, inputs, the call), each its",
        "wall time times the process's CPU / wall (a loaded machine stretches wall time;",
        "the compile runs on one thread). XLA: `jax.jit`",
        "of the same function, its first call (trace, compile, one call) in a fresh",
        f"process with no persistent compilation cache, on {threads} threads: the CPU time",
        "of the call (every thread) and its wall time. The two sides alternate program",
        "by program. `XLA / Kiln`: CPU time (> 1: Kiln compiles faster). `> `: Kiln",
        "was stopped at the timeout (a lower bound); the family's larger sizes are",
        "skipped. Chart: `bench/results/latest.compile-scaling.png` (time per equation",
        "against equations, log-log)."]
    growth_intro = [
        "Per family, Kiln's CPU time per equation at its largest finished size over",
        "that at its smallest (XLA's beside it), the exponent b of time ~ equations^b,",
        "and the Kiln phase whose time per equation grew most. Flagged SUPERLINEAR",
        f"above {SUPERLINEAR:.1f}x (issue 43: ten times the program in at most twelve times",
        "the time)."]
    return [Table("compile_scaling", "Compile time against program size: Kiln vs jax.jit",
                  intro, COLUMNS, ROW_KEYS, rows, format_cells, chart=chart,
                  chart_name="latest.compile-scaling.png"),
            Table("compile_scaling_growth", "Compile time per equation: growth per family",
                  growth_intro, GROWTH_COLUMNS, GROWTH_KEYS, growth(rows), format_growth)]


# --- the chart ----------------------------------------------------------------
def chart(rows, path):
    """Time per equation against equations, log-log, one panel per family:
    Kiln's CPU (red) and XLA's first call (blue), Kiln's phases (CPU
    shares, phase_cpu) dashed;
    a Kiln compile stopped at the timeout as an open triangle (a lower
    bound). Returns False without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib import ticker
    except ImportError:
        return False
    by_family = {}
    for r in rows:
        by_family.setdefault(r[0], []).append(dict(zip(ROW_KEYS, r)))
    n = len(by_family)
    cols = min(3, n)
    nrows = -(-n // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 3.4 * nrows), squeeze=False)
    styles = [("rest_s", ":", "tab:gray", "start, import, run"),
              ("to_linalg_s", ":", "tab:red", "lax -> linalg"),
              ("to_llvm_s", "--", "tab:red", "bufferize + LLVM dialect"),
              ("codegen_s", "-.", "tab:red", "LLVM codegen")]
    for ax, (family, ds) in zip(axes.flat, by_family.items()):
        ds = sorted(ds, key=lambda d: d["equations"])
        done = [d for d in ds if d["kiln_cpu_s"] and "Kiln timeout" not in (d["status"] or "")]
        bound = [d for d in ds if d["kiln_cpu_s"] and "Kiln timeout" in (d["status"] or "")]
        xla = [d for d in ds if d["xla_cpu_s"]]
        per = lambda d, k: d[k] / d["equations"] * 1e3
        ax.plot([d["equations"] for d in done], [per(d, "kiln_cpu_s") for d in done], "o-",
                color="tab:red", label="Kiln (process CPU)")
        if bound:
            ax.plot([d["equations"] for d in bound], [per(d, "kiln_cpu_s") for d in bound], "^",
                    color="tab:red", mfc="none", label="Kiln timed out (at least)")
        ax.plot([d["equations"] for d in xla], [per(d, "xla_cpu_s") for d in xla], "s-",
                color="tab:blue", label="XLA first call (CPU)")
        for key, style, color, name in styles:
            pts = [dict(phase_cpu(d), equations=d["equations"]) for d in done]
            pts = [d for d in pts if d.get(key)]
            ax.plot([d["equations"] for d in pts], [per(d, key) for d in pts], linestyle=style,
                    color=color, alpha=0.6, linewidth=1, label=f"Kiln {name}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        # The programs' own sizes as the ticks, in plain numbers.
        ax.set_xticks([d["equations"] for d in ds])
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:.0f}"))
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.set_title(FAMILIES[family][0] if family in FAMILIES else family, fontsize=8)
        ax.set_xlabel("equations (log)", fontsize=7)
        ax.set_ylabel("ms per equation (log)", fontsize=7)
        ax.tick_params(which="both", labelsize=7)
        ax.grid(True, which="both", alpha=0.2)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    handles = {}
    for ax in axes.flat:  # every kind of line once, whichever panel has it
        for h, l in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(l, h)
    fig.legend(list(handles.values()), list(handles), loc="lower center", fontsize=7, ncol=3)
    fig.suptitle("compile time per equation: Kiln vs jax.jit's first call (flat: linear)",
                 fontsize=9)
    fig.tight_layout(rect=(0, 0.12 / nrows, 1, 0.96))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "jaxprs":
        write_jaxprs(sys.argv[2], sys.argv[3:])
        return
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=str(ROOT / "build"))
    p.add_argument("--jax-python", default=str(Path(os.environ.get("KILN_VENV") or
                                                    ROOT / ".venv") / "bin" / "python"))
    p.add_argument("--quick", action="store_true", help="two sizes a family")
    p.add_argument("--families", default="", help=f"comma-separated, of {', '.join(FAMILIES)}")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="seconds one compile may take; larger sizes of its family are skipped")
    p.add_argument("--threads", type=int, default=2, help="XLA:CPU's thread pool (PJRT_NPROC)")
    p.add_argument("--passes", action="store_true",
                   help="also time the import alone and the lowering pass by pass "
                        "(kiln-translate, kiln-opt --kiln-lower-cpu --mlir-timing)")
    p.add_argument("--json", help="also write the rows here")
    args = p.parse_args()
    sys.path.insert(0, str(ROOT / "bench"))
    from harness import xla_env
    env = dict(os.environ, **xla_env(args.threads))
    families = [f for f in args.families.split(",") if f] or None
    measured = list(measure(Path(args.build) / "bin" / "kiln-run", args.jax_python, env,
                            families, args.quick, args.timeout, passes=args.passes))
    rows = [flat_row(r) for r in measured]
    print_table(rows)
    if args.json:
        payload = {"compile_scaling": [dict(zip(ROW_KEYS, r)) for r in rows],
                   "compile_scaling_growth": [dict(zip(GROWTH_KEYS, g)) for g in growth(rows)]}
        if args.passes:
            payload["compile_scaling_passes"] = [
                {"family": r["family"], "size": r["size"], **r["passes"]}
                for r in measured if "passes" in r]
        Path(args.json).write_text(json.dumps(payload, indent=1))


if __name__ == "__main__":
    main()
