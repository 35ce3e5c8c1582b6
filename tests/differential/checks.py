"""The tools a campaign drives: kiln-difftest on batches of programs (its
comparisons, a crash or hang blamed on the step in flight), the generator,
the reference interpreter alone, and kiln-verify-rules on a corpus."""
import json
import os
import queue
import re
import shutil
import subprocess
import tempfile
import threading

from program import Case

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TIMEOUT = 60
# The JIT comparisons: the CPU JIT, and the same with the cost model's size
# thresholds at their minimum (kiln-difftest runs the second on every N-th
# program, --min-thresholds-every).
JIT_COMPARISONS = ("jit", "jit-min-thresholds")


class Tools:
    def __init__(self, bindir, timeout=TIMEOUT, extra_comparisons=(), min_thresholds_every=1,
                 size_scale=1, profile="random"):
        self.opt = os.path.join(bindir, "kiln-opt")
        self.run = os.path.join(bindir, "kiln-run")
        self.verify = os.path.join(bindir, "kiln-verify-rules")
        self.difftest = os.path.join(bindir, "kiln-difftest")
        self.timeout = timeout
        self.min_thresholds_every = min_thresholds_every
        # The generator's options besides the seed (kiln-difftest generate and
        # --generate-seeds alike).
        self.gen_args = [f"--size-scale={size_scale}"] if size_scale != 1 else []
        if profile != "random":
            self.gen_args.append(f"--profile={profile}")
        self.env = dict(os.environ, KILN_CACHE_DIR=os.environ.get("KILN_CACHE_DIR", "/tmp/kiln-difftest-cache"))
        # A snapshot of the tools (scripts/difftest.sh --snapshot) carries its libraries in BIN/lib.
        if os.path.isdir(os.path.join(bindir, "lib")):
            self.env["LD_LIBRARY_PATH"] = os.path.join(bindir, "lib") + os.pathsep + self.env.get("LD_LIBRARY_PATH", "")
        # Comparisons added to kiln-difftest's own (--comparison NAME=PIPELINE[:K]),
        # on every call.
        self.extra = [f"--comparison={c}" for c in extra_comparisons]
        # [(name, pipeline, k)] of the pass comparisons, in kiln-difftest's order
        # (k = 0 exact, 64 the error model); the JIT comes after them.
        st, out = self.call([self.difftest, "--list-comparisons", "--json"] + self.extra)
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
    argv = [tools.difftest, "generate", "--seed", str(seed), "--out", out] + tools.gen_args
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
        argv = [tools.difftest, "--json"] + tools.extra + ([] if jit else ["--no-jit"])
        if only:
            # Asked for by name (the reducer, the rest of a crashed program):
            # jit-min-thresholds runs on every program.
            argv.append("--comparisons=" + ",".join(only))
            argv.append("--min-thresholds-every=1")
        else:
            argv.append(f"--min-thresholds-every={tools.min_thresholds_every}")
        seeds = [p for p in pending if not isinstance(p, str)]
        if seeds:
            argv.append("--generate-seeds=" + ",".join(map(str, seeds)))
            argv += tools.gen_args
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
            more = difftest(tools, [prog], jit=any(c in JIT_COMPARISONS for c in rest), only=rest,
                            max_ops=max_ops)[name]
            res["comparisons"] += more["comparisons"]
            res["findings"] += more["findings"]
        results[name] = res
        order = dirs + seeds
        pending = order[order.index(prog) + 1:]
    return results


def comparisons(tools, jit=True, min_thresholds=True):
    """The comparisons' names in kiln-difftest's order: the passes, then the
    JIT ones."""
    return [p[0] for p in tools.passes] + (["jit"] if jit else []) + \
        (["jit-min-thresholds"] if jit and min_thresholds else [])


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
