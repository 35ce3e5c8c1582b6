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
finding. With --reduce each finding is reduced (delta debugging over the
top-level ops of @main: an op is cut by replacing its results with function
arguments holding the values the interpreter computed for them, or with
constants; dead ops and unneeded outputs are dropped; inputs become
constants where the failure survives) and written to --save DIR as a lit
test (NAME.mlir, inputs in DIR/Inputs/).

    python run.py --programs 200 --seed 0 --bin build/bin --jobs 2
"""
import argparse
import concurrent.futures as cf
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TIMEOUT = 60


class Tools:
    def __init__(self, bindir, timeout=TIMEOUT):
        self.opt = os.path.join(bindir, "kiln-opt")
        self.run = os.path.join(bindir, "kiln-run")
        self.verify = os.path.join(bindir, "kiln-verify-rules")
        self.difftest = os.path.join(bindir, "kiln-difftest")
        self.timeout = timeout
        self.env = dict(os.environ, KILN_CACHE_DIR=os.environ.get("KILN_CACHE_DIR", "/tmp/kiln-difftest-cache"))
        # A snapshot of the tools (scripts/difftest.sh --snapshot) carries its libraries in BIN/lib.
        if os.path.isdir(os.path.join(bindir, "lib")):
            self.env["LD_LIBRARY_PATH"] = os.path.join(bindir, "lib") + os.pathsep + self.env.get("LD_LIBRARY_PATH", "")
        # [(name, pipeline, k)] of the pass comparisons, in kiln-difftest's order
        # (k = 0 exact, 64 the error model); the JIT comes after them.
        st, out = self.call([self.difftest, "--list-comparisons", "--json"])
        if st != "ok":
            raise SystemExit(f"run.py: {self.difftest} --list-comparisons failed:\n{out}")
        listed = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
        self.passes = [(c["name"], c["pipeline"], c["k"]) for c in listed if c["pipeline"]]

    def call(self, argv):
        """(status, output): status 'ok', 'fail' (exit 1..127), 'crash' (signal) or 'timeout'."""
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=self.timeout, env=self.env)
        except subprocess.TimeoutExpired as e:
            return "timeout", (e.stdout or "") if isinstance(e.stdout, str) else ""
        out = p.stdout + p.stderr
        if p.returncode == 0:
            return "ok", out
        if p.returncode < 0 or p.returncode >= 128:
            return "crash", out + f"\n[exit {p.returncode}]"
        return "fail", out


# --------------------------------------------------------------------------
# The interpreter alone (for the reducer) and kiln-difftest on batches

def reference(tools, wd, prog_path, inputs):
    ref = os.path.join(wd, "ref")
    shutil.rmtree(ref, ignore_errors=True)
    st, out = tools.call([tools.run, prog_path, "--interpret", "--inputs", ",".join(inputs), "--outputs", ref])
    if st != "ok":
        return None, (st, out)
    outs = sorted((f for f in os.listdir(ref) if f.startswith("out")), key=lambda f: int(f[3:-4]))
    return [os.path.join(ref, f) for f in outs], None


def generate(tools, seed, out, max_ops=None):
    """Writes generated program `seed` to out/prog.mlir and its inputs to
    out/in<i>.npy (kiln-difftest generate); returns it as a Case."""
    argv = [tools.difftest, "generate", "--seed", str(seed), "--out", out]
    if max_ops:
        argv += ["--max-ops", str(max_ops)]
    st, text = tools.call(argv)
    if st != "ok":
        raise SystemExit(f"run.py: {' '.join(argv)} failed:\n{text}")
    return Case.read(out)


def program_name(p):
    """kiln-difftest's name of a program: its directory, or seedN for a
    program it generates."""
    return p if isinstance(p, str) else f"seed{p}"


def difftest(tools, programs, jit=True, only=None, max_ops=None):
    """Runs kiln-difftest on programs, each a program directory (prog.mlir,
    in<i>.npy) or a seed (an int: generated in kiln-difftest), and returns
    {program: {"comparisons", "skipped", "findings"}}. `only` restricts the
    comparisons (names). A crash or a hang is a finding of the step in
    flight; that program's later comparisons and the later programs run in
    a new process."""
    results = {}
    pending = list(programs)
    while pending:
        argv = [tools.difftest, "--json"] + ([] if jit else ["--no-jit"])
        if only:
            argv.append("--comparisons=" + ",".join(only))
        seeds = [p for p in pending if not isinstance(p, str)]
        if seeds:
            argv.append("--generate-seeds=" + ",".join(map(str, seeds)))
            if max_ops:
                argv.append(f"--max-ops={max_ops}")
        dirs = [p for p in pending if isinstance(p, str)]
        with tempfile.TemporaryFile(mode="w+") as err:
            p = subprocess.Popen(argv + dirs, stdout=subprocess.PIPE, stderr=err, text=True, env=tools.env)
            lines = queue.Queue()
            threading.Thread(target=lambda: ([lines.put(l) for l in p.stdout], lines.put(None)), daemon=True).start()
            inflight, timed_out = None, False
            while True:
                try:
                    line = lines.get(timeout=tools.timeout)
                except queue.Empty:
                    timed_out = True
                    p.kill()
                    break
                if line is None:
                    break
                rec = json.loads(line)
                if rec.get("done"):
                    results[rec["program"]] = rec
                    inflight = None
                else:
                    inflight = (rec["program"], rec["step"])
            rc = p.wait()
            err.seek(0)
            stderr = err.read()
        if inflight is None:
            if rc not in (0, 1) or any(program_name(p) not in results for p in pending):
                raise SystemExit(f"run.py: kiln-difftest failed (exit {rc}):\n{stderr[-3000:]}")
            break
        name, step = inflight
        # kiln-difftest checks the directories first, then the seeds.
        prog = next(p for p in dirs + seeds if program_name(p) == name)
        kind = "timeout" if timed_out else "crash"
        names = [c for c in comparisons(tools, jit) if not only or c in only]
        res = {"comparisons": names.index(step) + 1 if step in names else 0, "skipped": "", "findings": [
            {"comparison": step, "kind": kind, "detail": stderr[-3000:] + f"\n[exit {rc}]"}]}
        # The same program's comparisons after the one that crashed.
        rest = names[names.index(step) + 1:] if step in names else []
        if rest:
            more = difftest(tools, [prog], jit="jit" in rest, only=rest, max_ops=max_ops)[name]
            res["comparisons"] += more["comparisons"]
            res["findings"] += more["findings"]
        results[name] = res
        order = dirs + seeds
        pending = order[order.index(prog) + 1:]
    return results


UNSTABLE_RE = re.compile(r"^// jit-unstable-outputs: ([\d,]+)$", re.M)


def jit_view(text):
    """The program the JIT comparison runs: without the outputs the generator
    marked unstable (discrete functions of approximate values, which the
    error model cannot compare), and the indices of the outputs kept; None
    when no output is left."""
    m = UNSTABLE_RE.search(text)
    if not m:
        return text, list(range(len(Mod(text).rets)))
    drop = {int(i) for i in m.group(1).split(",")}
    mod = Mod(text)
    keep = [i for i in range(len(mod.rets)) if i not in drop]
    if not keep:
        return None
    mod.rets = [mod.rets[i] for i in keep]
    mod.head = [l for l in mod.head if not UNSTABLE_RE.match(l)]
    mod.dce()
    return mod.text(), keep


def comparisons(tools, jit=True):
    return [p[0] for p in tools.passes] + (["jit"] if jit else [])


def run_batch(tools, seeds, workroot, jit_of, max_ops=None, keep=False):
    """Runs every comparison on generated programs `seeds` (the JIT where
    jit_of(seed)), generated in kiln-difftest, or first written to
    workroot/p<seed> when `keep`. Returns a result dict per seed, in order."""
    programs = {}
    for seed in seeds:
        programs[seed] = seed
        if keep:
            programs[seed] = os.path.join(workroot, f"p{seed}")
            generate(tools, seed, programs[seed], max_ops)
    results = {}
    for jit in (True, False):
        group = [programs[s] for s in seeds if jit_of(s) == jit]
        if group:
            results.update(difftest(tools, group, jit=jit, max_ops=max_ops))
    out = []
    for s in seeds:
        r = results[program_name(programs[s])]
        out.append({"seed": s, "findings": [{**f, "detail": f["detail"][-3000:]} for f in r["findings"]],
                    "skipped": r["skipped"] or None})
    return out


# --------------------------------------------------------------------------
# Reduction

STMT_RE = re.compile(r"^  (%[\w]+(?:, %[\w]+)*) = ")


class Mod:
    """@main split into top-level statements (the generator's layout)."""

    def __init__(self, text):
        lines = text.split("\n")
        i = next(i for i, l in enumerate(lines) if l.startswith("func.func @main("))
        self.head = lines[:i]
        j = next(k for k in range(i + 1, len(lines)) if lines[k].startswith("  return "))
        self.sig = lines[i]
        self.ret = lines[j]
        self.tail = lines[j + 1:]
        self.stmts = []  # (results, lines)
        cur = None
        for l in lines[i + 1:j]:
            m = STMT_RE.match(l)
            if m:
                cur = (m.group(1).split(", "), [l])
                self.stmts.append(cur)
            else:
                cur[1].append(l)
        m = re.match(r"func\.func @main\((.*)\) -> \((.*)\) \{$", self.sig)
        self.args = [tuple(a.split(": ")) for a in split_top(m.group(1))] if m.group(1) else []
        rm = re.match(r"  return (.*) : (.*)$", self.ret)
        self.rets = list(zip(rm.group(1).split(", "), split_top(rm.group(2))))

    def text(self):
        sig = f"func.func @main({', '.join(a + ': ' + t for a, t in self.args)}) -> ({', '.join(t for _, t in self.rets)}) {{"
        ret = f"  return {', '.join(n for n, _ in self.rets)} : {', '.join(t for _, t in self.rets)}"
        body = [l for _, ls in self.stmts for l in ls]
        return "\n".join(self.head + [sig] + body + [ret] + self.tail)

    def dce(self):
        """Drops statements whose results are unused (text-level use test)."""
        changed = True
        while changed:
            changed = False
            used = " ".join(n for n, _ in self.rets)
            alltext = "\n".join(l for _, ls in self.stmts for l in ls) + "\n" + used
            for s in list(self.stmts):
                body = "\n".join(s[1])
                rest = alltext.replace(body, "")
                if not any(re.search(re.escape(r) + r"\b", rest) for r in s[0]):
                    self.stmts.remove(s)
                    alltext = rest
                    changed = True
        # unused arguments go too (their inputs with them): handled by caller


def split_top(s):
    """Splits 'tensor<2xf32>, tensor<i1>' at top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def npy_of(dt_type):
    return dt_type.endswith("bf16>")


class Case:
    """A program with its inputs (arrays), reducible."""

    def __init__(self, text, inputs):
        self.text, self.inputs = text, list(inputs)

    @staticmethod
    def read(wd):
        with open(os.path.join(wd, "prog.mlir")) as f:
            text = f.read()
        inputs = []
        while os.path.exists(os.path.join(wd, f"in{len(inputs)}.npy")):
            inputs.append(np.load(os.path.join(wd, f"in{len(inputs)}.npy")))
        return Case(text, inputs)

    def write(self, wd):
        os.makedirs(wd, exist_ok=True)
        p = os.path.join(wd, "prog.mlir")
        with open(p, "w") as f:
            f.write(self.text)
        files = []
        for i, x in enumerate(self.inputs):
            q = os.path.join(wd, f"in{i}.npy")
            np.save(q, x)
            files.append(q)
        return p, files


def fails(tools, wd, case, comparison, kind):
    """Whether `case` still fails `comparison` the same way (kiln-difftest
    on it alone, that comparison only; parse and interpreter findings come
    before any comparison)."""
    shutil.rmtree(wd, ignore_errors=True)
    case.write(wd)
    names = comparisons(tools)
    only = [comparison] if comparison in names else [names[0]]
    res = difftest(tools, [wd], jit=comparison == "jit", only=only)[wd]
    return any(f["comparison"] == comparison and f["kind"] == kind for f in res["findings"])


def values_of(tools, wd, case, names_types):
    """The interpreter's values of some @main values (added as outputs)."""
    m = Mod(case.text)
    extra = []
    for n, t in names_types:
        if t.endswith("bf16>"):
            return None
        extra.append((n, t))
    m.rets = m.rets + extra
    c = Case(m.text(), case.inputs)
    shutil.rmtree(wd, ignore_errors=True)
    path, inputs = c.write(wd)
    refs, err = reference(tools, wd, path, inputs)
    if refs is None:
        return None
    return [np.load(r) for r in refs[len(m.rets) - len(extra):]]


def result_types(tools, wd, case):
    """Types of @main's top-level results, from kiln-opt's generic form (same order)."""
    m = Mod(case.text)
    os.makedirs(wd, exist_ok=True)
    p = os.path.join(wd, "types.mlir")
    with open(p, "w") as f:
        f.write(case.text)
    st, out = tools.call([tools.opt, p, "--mlir-print-op-generic"])
    if st != "ok":
        return None
    return parse_generic_types(out, m)


def parse_generic_types(out, m):
    # Find the main function's region; top-level ops are at indentation of its first op.
    lines = out.split("\n")
    idx = [i for i, l in enumerate(lines) if 'sym_name = "main"' in l]
    if not idx:
        return None
    # the function op's region starts after the line with ^bb0 or the first op after '"func.func"() <{' ... ({'
    i = idx[0]
    # walk back to the line opening the func.func op
    while i > 0 and '"func.func"' not in lines[i]:
        i -= 1
    j = i + 1
    if lines[j].lstrip().startswith("^bb0"):
        j += 1
    indent = len(lines[j]) - len(lines[j].lstrip())
    types = []
    cur = []
    for l in lines[j:]:
        ind = len(l) - len(l.lstrip())
        if ind < indent:
            break
        if ind == indent and not l.lstrip().startswith(("}", "^")):
            if cur:
                types.append(cur)
            cur = [l]
        else:
            cur.append(l)
    if cur:
        types.append(cur)
    res = []
    for op in types:
        last = op[-1]
        if '"func.return"' in op[0]:
            continue
        mm = re.search(r"\) -> (.*)$", last)
        if not mm:
            return None
        t = mm.group(1).strip()
        if t.startswith("("):
            t = t[1:-1]
        res.append(split_top(t))
    if len(res) != len(m.stmts):
        return None
    return res


def reduce_case(tools, wd, case, comparison, kind, log=lambda s: None, budget=400):
    """Greedy delta debugging over @main's top-level ops; returns the smallest failing Case."""
    tries = [0]

    def still(c):
        tries[0] += 1
        if tries[0] > budget:
            return False
        return fails(tools, os.path.join(wd, "try"), c, comparison, kind)

    def with_mod(c, m, inputs=None):
        return Case(m.text(), c.inputs if inputs is None else inputs)

    def drop_unused_args(c):
        m = Mod(c.text)
        body = "\n".join(l for _, ls in m.stmts for l in ls) + " " + " ".join(n for n, _ in m.rets)
        keep = [i for i, (a, _) in enumerate(m.args) if re.search(re.escape(a) + r"\b", body)]
        if len(keep) == len(m.args):
            return c
        # rename kept args %arg<i> stays valid (names are free-form in MLIR)
        m.args = [m.args[i] for i in keep]
        return Case(m.text(), [c.inputs[i] for i in keep])

    # 1. one output
    m = Mod(case.text)
    if len(m.rets) > 1:
        for r in list(m.rets):
            m2 = Mod(case.text)
            m2.rets = [r]
            m2.dce()
            c2 = drop_unused_args(with_mod(case, m2))
            if still(c2):
                case = c2
                break
    m = Mod(case.text)
    m.dce()
    c2 = drop_unused_args(with_mod(case, m))
    if c2.text != case.text and still(c2):
        case = c2
    # 2. cut statements, from the first (inputs side) to the last
    changed = True
    cnt = 0
    while changed and tries[0] < budget:
        changed = False
        m = Mod(case.text)
        types = result_types(tools, os.path.join(wd, "types"), case)
        if types is None:
            log("reduce: cannot read types")
            break
        for si in range(len(m.stmts)):
            m = Mod(case.text)
            if si >= len(m.stmts):
                break
            names = m.stmts[si][0]
            ts = types[si] if si < len(types) else None
            if ts is None or len(ts) != len(names):
                continue
            lines_only = len(m.stmts[si][1]) == 1
            # (a) constants: small splats of zero/one for single-line ops
            # (b) arguments holding the interpreter's values
            vals = values_of(tools, os.path.join(wd, "vals"), case, list(zip(names, ts)))
            if vals is None:
                continue
            m2 = Mod(case.text)
            del m2.stmts[si]
            newargs = []
            for n, t, v in zip(names, ts, vals):
                an = "%cut" + n[1:]
                m2.args.append((an, t))
                newargs.append(v)
                m2.stmts = [(rs, [re.sub(re.escape(n) + r"\b", an, l) for l in ls]) for rs, ls in m2.stmts]
                m2.rets = [(an if rn == n else rn, rt) for rn, rt in m2.rets]
            m2.dce()
            c2 = drop_unused_args(Case(m2.text(), case.inputs + newargs))
            if not lines_only or len(Mod(c2.text).stmts) < len(m.stmts):
                if still(c2):
                    case = c2
                    changed = True
                    cnt += 1
                    break
    # 3. inputs as constants
    m = Mod(case.text)
    i = 0
    while i < len(Mod(case.text).args) and tries[0] < budget:
        m = Mod(case.text)
        a, t = m.args[i]
        x = case.inputs[i]
        dt = t[t.rfind("x") + 1:-1] if "x" in t[7:] else t[7:-1]
        lit = dense_literal(x, dt)
        m.args.pop(i)
        m.stmts.insert(0, ([a], [f"  {a} = lax.constant dense<{lit}> : {t}"]))
        c2 = Case(m.text(), case.inputs[:i] + case.inputs[i + 1:])
        if still(c2):
            case = c2
        else:
            i += 1
    log(f"reduce: {tries[0]} tries, {len(Mod(case.text).stmts)} ops left")
    return case


def literal(dt, x):
    """The MLIR literal of a scalar (floats in hex, bit-exact), as the
    generator writes constants."""
    floats = {"f32": (np.float32, np.uint32, 8), "f64": (np.float64, np.uint64, 16),
              "f16": (np.float16, np.uint16, 4)}
    if dt in floats:
        f, u, width = floats[dt]
        return "0x%0*X" % (width, int(np.array([x], dtype=f).view(u)[0]))
    if dt == "i1":
        return "true" if x else "false"
    return str(int(x))


def dense_literal(x, dt):
    def rec(a):
        if a.ndim == 0:
            return literal(dt, a.item() if dt != "i1" else bool(a))
        return "[" + ", ".join(rec(b) for b in a) + "]"
    return rec(np.asarray(x))


def regression_text(tools, case, comparison, kind, name, seed, detail):
    nin = len(case.inputs)
    ins = ",".join(f"%S/Inputs/{name}.in{i}.npy" for i in range(nin))
    inflag = f"--inputs {ins}" if nin else ""
    lines = [f"// Reduced by tests/differential/run.py from generated program seed {seed}:",
             f"// {comparison} gave a {kind} against the reference interpreter on the original program.",
             "// RUN: rm -rf %t && mkdir -p %t",
             f"// RUN: kiln-run %s --interpret {inflag} --outputs %t/ref".replace("  ", " ")]
    m = Mod(case.text)
    refs = ",".join(f"%t/ref/out{i}.npy" for i in range(len(m.rets)))
    if comparison == "jit":
        lines.append(f"// RUN: kiln-run %s --no-cache {inflag} --expect {refs}".replace("  ", " "))
    elif comparison == "interpreter":
        pass
    else:
        _, pipeline, k = next(p for p in tools.passes if p[0] == comparison)
        lines.append(f"// RUN: kiln-opt %s --pass-pipeline='{pipeline}' -o %t/after.mlir")
        lines.append(f"// RUN: kiln-run %t/after.mlir --interpret {inflag} --expect {refs} --check-k {k}".replace("  ", " "))
    body = [l for l in case.text.split("\n") if not l.startswith("// generated by")]
    return "\n".join(lines) + "\n\n" + "\n".join(body).strip() + "\n"


def save_regression(tools, case, comparison, kind, seed, outdir, detail, name=None):
    name = name or f"seed{seed}-{comparison}"
    os.makedirs(os.path.join(outdir, "Inputs"), exist_ok=True)
    for i, x in enumerate(case.inputs):
        np.save(os.path.join(outdir, "Inputs", f"{name}.in{i}.npy"), x)
    p = os.path.join(outdir, f"{name}.mlir")
    with open(p, "w") as f:
        f.write(regression_text(tools, case, comparison, kind, name, seed, detail))
    return p


# --------------------------------------------------------------------------

RULE_DIRS = [os.path.join(ROOT, "rules", "library"), os.path.join(ROOT, "examples", "rules")]


def rules_check(tools, files, rule_dirs=RULE_DIRS):
    """kiln-verify-rules over `files` (generated programs rules-<seed>/prog.mlir):
    a finding naming the seeds whose programs a rule failed on."""
    argv = [tools.verify] + [f"--rules={d}" for d in rule_dirs] + ["--seeds=2"] + files
    st, text = tools.call(argv)
    if st == "ok":
        return None
    kind = "crash" if st in ("crash", "timeout") else "unsound" if "UNSOUND" in text else "error"
    detail = "\n".join(l for l in text.split("\n") if "ok (" not in l)
    # The tool names the program of each failing check; a crash names none,
    # so the whole batch is blamed.
    seeds = sorted({int(m) for m in re.findall(r"rules-(\d+)/prog\.mlir", detail)})
    if not seeds:
        seeds = [int(re.search(r"rules-(\d+)/", f).group(1)) for f in files]
    return {"comparison": "rules", "kind": kind, "seeds": seeds, "detail": detail[-3000:]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--programs", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0, help="first seed; program i uses seed + i")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--no-jit", action="store_true", help="skip the JIT comparison")
    ap.add_argument("--jit-every", type=int, default=1, help="JIT only every N-th program")
    ap.add_argument("--rules-every", type=int, default=10, help="every N-th program joins the kiln-verify-rules corpus (0: none)")
    ap.add_argument("--rules", action="append", default=None,
                    help="rule file or directory kiln-verify-rules checks (repeatable; default: "
                         "rules/library and examples/rules)")
    ap.add_argument("--max-ops", type=int, default=None)
    ap.add_argument("--reduce", action="store_true", help="reduce findings")
    ap.add_argument("--save", default=None, help="write reduced findings here as lit tests")
    ap.add_argument("--work", default=None, help="scratch directory (default: a temporary one, removed)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    ap.add_argument("--json", default=None, help="write a summary here")
    ap.add_argument("--timeout", type=int, default=TIMEOUT, help="seconds one step of one program may take")
    ap.add_argument("--batch", type=int, default=25, help="programs per kiln-difftest process")
    ap.add_argument("--ignore", action="append", default=[],
                    help="COMPARISON:KIND of known, reported findings not to fail on (repeatable)")
    a = ap.parse_args()

    tools = Tools(a.bin, a.timeout)
    work = a.work or tempfile.mkdtemp(prefix="kiln-difftest-")
    os.makedirs(work, exist_ok=True)
    t0 = time.time()
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
        files = []
        for s in sample:
            d = os.path.join(work, f"rules-{s}")
            generate(tools, s, d, a.max_ops)
            files.append(os.path.join(d, "prog.mlir"))
        for i in range(0, len(files), 20):
            f = rules_check(tools, files[i:i + 20], a.rules or RULE_DIRS)
            rules_programs += len(files[i:i + 20])
            if f:
                findings.append((f["seeds"][0], f))
                print(f"rules (seeds {', '.join(map(str, f['seeds']))}): {f['kind']}\n  " +
                      "\n  ".join(f["detail"].strip().split("\n")[-6:]), flush=True)
    elapsed = time.time() - t0
    ncomp = sum(len(comparisons(tools, jit_of(s))) for s in seeds)
    print(f"{len(seeds)} programs (seeds {a.seed}..{a.seed + a.programs - 1}), {ncomp} comparisons, "
          f"kiln-verify-rules on {rules_programs} programs, {len(findings)} findings, {elapsed:.0f} s")

    saved = []
    if a.reduce and findings:
        seen = set()
        for seed, f in findings:
            if f["comparison"] == "rules":
                continue
            key = (f["comparison"], f["kind"], f["detail"].strip().split("\n")[0][:80] if f["kind"] == "error" else "")
            if key in seen:
                continue
            seen.add(key)
            case = generate(tools, seed, os.path.join(work, f"gen-{seed}"), a.max_ops)
            if f["comparison"] == "jit":
                case = Case(jit_view(case.text)[0], case.inputs)
            rd = os.path.join(work, f"reduce-{seed}-{f['comparison']}")
            small = reduce_case(tools, rd, case, f["comparison"], f["kind"], log=print)
            print(f"--- seed {seed} {f['comparison']} {f['kind']}, reduced:\n{small.text}")
            if a.save:
                saved.append(save_regression(tools, small, f["comparison"], f["kind"], seed, a.save, f["detail"]))
                print("saved", saved[-1])
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


if __name__ == "__main__":
    sys.exit(main())
