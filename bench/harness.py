#!/usr/bin/env python3
"""Kiln's benchmarks: each seed workload run by Kiln and by its peers, side by
side in one run, every result checked against a float64 reference.

Usage (through bench/run, which installs the peers and builds Kiln):
    bench/harness.py --build BUILD_DIR [--quick] [--only W1,W3] [--threads 2]
Writes bench/results/latest.json and bench/results/latest.png and prints a
table: median/min/max per peer and the ratio of each row's time to Kiln's and
to XLA's (jax.jit, run by bench/peers/jax_peers.py under the pinned .venv's
python, in processes of their own started with XLA's thread settings).
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench" / "peers"))


def pin_threads(n):
    # Before numpy/torch/numba load their thread pools.
    for var in ("KILN_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "NUMBA_NUM_THREADS"):
        os.environ[var] = str(n)


def xla_env(threads):
    """The environment of a process that runs XLA:CPU on `threads` threads;
    it must not have imported jax yet (jaxlib reads these when it creates
    its CPU client). PJRT_NPROC sizes XLA's intra-op pool
    (xla::DefaultThreadPoolSize, whose default is the number of CPUs; the
    pool's threads are named tf_XLAEigen, jax_peers.py counts them and
    run_jax checks the count); one CPU device
    (--xla_force_host_platform_device_count=1), so a jitted call runs on that
    one pool. For one thread also the usual recipe, XLA_FLAGS=
    "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1":
    the flag makes Eigen's runtime calls single-threaded; the second word is
    not a flag (XLA's parser skips words without "--" after the first, and
    alone it is taken for a file of flags), so without PJRT_NPROC=1 jaxlib
    0.10 still ran W1's GEMM on two threads of a 2-core machine."""
    flags = ["--xla_force_host_platform_device_count=1"]
    if threads == 1:
        flags += ["--xla_cpu_multi_thread_eigen=false", "intra_op_parallelism_threads=1"]
    return {"XLA_FLAGS": " ".join(flags), "PJRT_NPROC": str(threads), "JAX_PLATFORMS": "cpu"}


def default_jax_python():
    venv = os.environ.get("KILN_VENV") or str(ROOT / ".venv")
    return str(Path(venv) / "bin" / "python")


class JaxWorker:
    """A `jax_peers.py serve` process pinned to one thread count: requests
    and answers as JSON lines; what it prints goes to `log`."""

    def __init__(self, python, threads, log):
        self.log, self.log_file = log, open(log, "w")
        self.proc = subprocess.Popen(
            [python, str(ROOT / "bench" / "peers" / "jax_peers.py"), "serve"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log_file, text=True,
            env=dict(os.environ, **xla_env(threads)))

    def alive(self):
        return self.proc.poll() is None

    def request(self, **req):
        try:
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except BrokenPipeError:
            line = ""
        if not line:
            self.proc.wait()
            tail = Path(self.log).read_text().strip().splitlines()[-1:] or ["no output"]
            raise RuntimeError(f"the JAX process ended (exit {self.proc.returncode}): {tail[0]}")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log_file.close()


class Result:
    """One row. `work`: (amount, unit) the row does per call, e.g. (flops,
    "GF/s"), shown as a rate; `limit`: the row is the machine's limit for its
    group (W2's copy floor), the others show their time as a % of it.
    `floor_ratios`: per sample, the time of a roofline program run right
    beside it (kiln-bench --paired) over the sample's own time; `roofline`:
    the row is such a program's (it comes first in the report, beside the
    limit row)."""

    def __init__(self, workload, peer, times, threads, ok, error, note="", work=None, limit=False,
                 floor_ratios=(), roofline=False):
        self.workload, self.peer, self.times = workload, peer, sorted(times)
        self.threads, self.ok, self.error, self.note = threads, ok, error, note
        self.work, self.limit, self.roofline = work, limit, roofline
        self.floor_ratios = sorted(floor_ratios)

    @property
    def median(self):
        t = self.times
        return t[len(t) // 2] if t else float("nan")

    def as_dict(self):
        return {"workload": self.workload, "peer": self.peer, "times_s": self.times,
                "median_s": self.median, "min_s": min(self.times, default=None),
                "max_s": max(self.times, default=None), "threads": self.threads,
                "correct": self.ok, "max_rel_error": self.error, "note": self.note,
                "work": list(self.work) if self.work else None, "limit": self.limit,
                "paired_floor_ratios": self.floor_ratios or None}


class Bench:
    def __init__(self, args):
        self.args = args
        self.build = Path(args.build).resolve()
        self.bin = self.build / "bin"
        # Samples per round; the rounds together give each row 10 or more.
        self.repeat = 5 if args.quick else max(4, -(-10 // args.rounds))
        self.warmup = 1 if args.quick else 3
        self.round = 0
        self.results = []
        self.compile_times = {}
        self.peak_heap = {}    # run_kiln name -> heap bytes one call needs (CPU)
        self.memory_rows = []  # [workload, peer, bytes] for the report
        self.tmp = Path(tempfile.mkdtemp(prefix="kiln-bench-"))
        self.jax_python = args.jax_python
        self.jax_workers = {}  # thread count -> JaxWorker

    # -- helpers ------------------------------------------------------------
    def save(self, name, array):
        import numpy as np
        path = self.tmp / f"{name}.npy"
        np.save(path, np.ascontiguousarray(array))
        return str(path)

    def check(self, out, ref, rtol):
        import numpy as np
        out = np.asarray(out, dtype=np.float64)
        ref = np.asarray(ref, dtype=np.float64)
        if out.shape != ref.shape:
            return False, float("inf")
        scale = max(float(np.max(np.abs(ref))), 1e-30)
        err = float(np.max(np.abs(out - ref))) / scale
        return err <= rtol, err

    def record(self, workload, peer, times, threads, out, ref, rtol, note="", floor_times=None,
               **row):
        ok, err = self.check(out, ref, rtol)
        ratios = [f / t for f, t in zip(floor_times, times)] if floor_times else []
        # A later round adds its samples to the row of the first.
        same = next((r for r in self.results if (r.workload, r.peer) == (workload, peer)), None)
        if same is None:
            self.results.append(Result(workload, peer, times, threads, ok, err, note,
                                       floor_ratios=ratios, **row))
        else:
            same.times = sorted(same.times + list(times))
            same.floor_ratios = sorted(same.floor_ratios + ratios)
            same.ok, same.error = same.ok and ok, max(same.error, err)
        status = "ok" if ok else f"WRONG (rel err {err:.2e})"
        med = sorted(times)[len(times) // 2] if times else float("nan")
        print(f"  {peer:<40} median {med * 1e3:12.4f} ms  {status}", flush=True)

    def time_python(self, fn, *inputs):
        # `warmup` calls and at least 20 ms, as kiln-bench and the C++ peers.
        start, calls = time.perf_counter(), 0
        while calls < self.warmup or (time.perf_counter() - start < 0.02 and calls < 100000):
            out = fn(*inputs)
            calls += 1
        times = []
        for _ in range(self.repeat):
            start = time.perf_counter()
            out = fn(*inputs)
            times.append(time.perf_counter() - start)
        return times, out

    def run_cpp(self, workload, *args, binary="kiln-bench-peers"):
        import numpy as np
        out = self.tmp / f"cpp-{workload}.npy"
        env = dict(os.environ, BENCH_REPEAT=str(self.repeat), BENCH_WARMUP=str(self.warmup))
        proc = subprocess.run([str(self.bin / binary), workload, *args, str(out)],
                              capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr.strip())
        line = json.loads(proc.stdout.strip().splitlines()[-1])
        return line["times_s"], line["threads"], np.load(out)

    def gpu_available(self):
        """Whether a CUDA device can run (the driver loads, one device or more)."""
        try:
            import ctypes
            cuda = ctypes.CDLL("libcuda.so.1")
            count = ctypes.c_int(0)
            return (cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(count)) == 0
                    and count.value > 0)
        except OSError:
            return False

    def jax_available(self):
        """Whether the XLA peer can run: the pinned environment's python
        (scripts/setup.sh creates .venv) is there."""
        return os.access(self.jax_python, os.X_OK)

    def run_jax(self, peer, inputs, threads, x64=False, per_call=False, repeat=None,
                warmup=None):
        """XLA's row: `peer` (a name in bench/peers/jax_peers.py) jitted on the
        .npy `inputs`, timed by a JAX process pinned to `threads` (one
        process per thread count, kept for the whole run), each call waited
        for (block_until_ready), the warm-up (compilation) excluded. With
        `per_call`: time per call over batches of calls (W4)."""
        import numpy as np
        if threads in self.jax_workers and not self.jax_workers[threads].alive():
            self.jax_workers.pop(threads).close()  # ended (killed for memory?): a new one
        if threads not in self.jax_workers:
            self.jax_workers[threads] = JaxWorker(self.jax_python, threads,
                                                  self.tmp / f"jax-{threads}-threads.log")
        out = self.tmp / f"jax-{peer}.npy"
        answer = self.jax_workers[threads].request(
            peer=peer, inputs=[str(p) for p in inputs], out=str(out), x64=x64,
            per_call=per_call, repeat=repeat or self.repeat, warmup=warmup or self.warmup,
            sample_s=0.05 if self.args.quick else 0.2)
        if answer["threads"] != threads:
            raise RuntimeError(f"XLA's pool has {answer['threads']} threads, not {threads}")
        return answer["times_s"], np.load(out)

    def jax_first_call(self, program, cache_dir, threads):
        """Time to first result of a seed program under jax.jit, in a fresh
        process (jax_peers.py first-call): jax imported and its backend
        started, then the first call, blocked on; `cache_dir`: jax's
        persistent compilation cache (empty: cold)."""
        proc = subprocess.run(
            [self.jax_python, str(ROOT / "bench" / "peers" / "jax_peers.py"), "first-call",
             program, "--cache-dir", str(cache_dir)],
            capture_output=True, text=True, env=dict(os.environ, **xla_env(threads)))
        if proc.returncode != 0:
            raise RuntimeError((proc.stderr.strip().splitlines() or ["no output"])[-1])
        return json.loads(proc.stdout.strip().splitlines()[-1])

    def close(self):
        for worker in self.jax_workers.values():
            worker.close()

    def time_jax(self, fn, *inputs):
        """Times a jitted JAX function on device-resident inputs, waiting for
        each result (block_until_ready)."""
        import jax
        import numpy as np
        args = [jax.device_put(x) for x in inputs]
        for _ in range(self.warmup):
            out = fn(*args).block_until_ready()
        times = []
        for _ in range(self.repeat):
            start = time.perf_counter()
            out = fn(*args).block_until_ready()
            times.append(time.perf_counter() - start)
        return times, np.asarray(out)

    def run_kiln(self, name, mlir, entry, inputs, passes=(), calls_per_sample=1, target="cpu",
                 paired=None, fp_contract=False):
        """Compiles with kiln::Compiler after `passes` (pipeline elements such as
        "kiln-optimize"), times callRaw on fixed buffers; returns per-call
        times and the first output, and with `paired` (a roofline program's
        file and function, on the same inputs) its times, sample by sample
        beside Kiln's."""
        import numpy as np
        outdir = self.tmp / f"kiln-{name}"
        outdir.mkdir(exist_ok=True)
        cmd = [str(self.bin / "kiln-bench"), str(mlir), "--entry", entry,
               "--inputs", ",".join(inputs), "--outputs", str(outdir),
               "--repeat", str(self.repeat), "--warmup", str(self.warmup),
               "--calls-per-sample", str(calls_per_sample), "--target", target]
        if passes:
            cmd += ["--passes", "builtin.module(" + ",".join(passes) + ")"]
        if paired:
            cmd += ["--paired", str(paired[0]), "--paired-entry", paired[1]]
        if fp_contract:
            cmd.append("--fp-contract")
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr.strip() or proc.stdout.strip())
        line = next(l for l in reversed(proc.stdout.splitlines()) if l.startswith("{"))
        data = json.loads(line)
        self.compile_times[name] = data.get("compile_s")
        self.peak_heap[name] = data.get("peak_heap_bytes")
        out = np.load(outdir / "out0.npy")
        return (data["times_s"], out) + ((data["paired_times_s"],) if paired else ())

    def kiln_available(self):
        return (self.bin / "kiln-bench").exists()

    def guarded(self, workload, peer, thunk, ref, rtol, threads, note="", floor=None, **row):
        """Runs and records one row; `row`: Result's `work` and `limit`.
        When the thunk also returns a paired roofline program's times
        (run_kiln(paired=...)), `floor` = (peer, work) names the row that
        collects them."""
        try:
            times, out, *paired = thunk()
            floor_times = paired[0] if paired else None
            self.record(workload, peer, times, threads, out, ref, rtol, note, floor_times, **row)
            if floor_times and floor:
                self.record(workload, floor[0], floor_times, threads, ref, ref, float("inf"),
                            work=floor[1], roofline=True)
        except Exception as e:  # a missing peer must not stop the others
            print(f"  {peer:<34} skipped: {str(e).splitlines()[0] if str(e) else e!r}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller W2")
    parser.add_argument("--only", default="",
                        help="comma-separated workloads (W1..W4, COMPILE, COMPILE_SCALING, "
                             "RULES, ECOSYSTEM, ALGEBRA)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=None,
                        help="run the workloads this many times in turn and pool each row's "
                             "samples, so that a slow stretch of a shared machine falls on "
                             "every peer alike (default 3, --quick 1)")
    parser.add_argument("--compile-timeout", type=float, default=None,
                        help="COMPILE_SCALING: seconds one compile may take, Kiln's or XLA's; "
                             "the family's larger sizes are then skipped (default 300, "
                             "--quick 120)")
    parser.add_argument("--keep-tmp", action="store_true",
                        help="keep the scratch directory (inputs as .npy, programs, outputs) "
                             "and print its path; by default it is removed at the end")
    parser.add_argument("--write-docs", metavar="PATH",
                        help="also write the tables as markdown into PATH (docs/performance.md), "
                             "between its <!-- bench:begin --> and <!-- bench:end --> lines")
    parser.add_argument("--jax-python", default=default_jax_python(),
                        help="python of the environment with jax (the XLA peer; default "
                             "$KILN_VENV/bin/python, else .venv/bin/python)")
    args = parser.parse_args()
    if args.rounds is None:
        args.rounds = 1 if args.quick else 3
    args.rounds = max(1, args.rounds)
    pin_threads(args.threads)

    bench = Bench(args)
    try:
        run_all(bench, args)
    finally:
        bench.close()
        # The inputs alone are over a GiB for a full run (W2's .npy files).
        if args.keep_tmp:
            print(f"scratch files kept in {bench.tmp}")
        else:
            shutil.rmtree(bench.tmp, ignore_errors=True)


def run_all(bench, args):
    import workloads  # numpy, torch, numba: after main() pinned their threads
    only = {w.strip().upper() for w in args.only.split(",") if w.strip()}
    for bench.round in range(args.rounds):
        if args.rounds > 1:
            print(f"\n=== round {bench.round + 1} of {args.rounds}", flush=True)
        for name, fn in workloads.ALL:
            if only and name not in only:
                continue
            fn(bench)
    if not only or "COMPILE" in only:
        compile_times(bench)
    if not only or "COMPILE_SCALING" in only:
        compile_scaling(bench)
    if not only or "RULES" in only:
        rules_scale(bench)
    if not only or "ECOSYSTEM" in only:
        ecosystem(bench)
    if not only or "ALGEBRA" in only:
        algebra(bench)

    report(bench, args)


def compile_times(bench):
    """Compile time of each seed program through kiln-run, with an empty
    compile cache (cold) and again with the entry the first run stored
    (warm); beside it XLA's time to first result of the same seed program
    under jax.jit in a fresh process, with an empty persistent compilation
    cache (cold) and again with the entry the first process stored (warm).
    Each a median over `samples` runs, every cold one with a cache of its own."""
    print("\nCompile: kiln-run, cold (empty cache) vs warm (cached object); "
          "jax.jit's first call in a fresh process, cold vs warm (persistent cache)", flush=True)
    programs = [("seed 001 outer_fn (10 inner_fn calls)", "seed001_ten_calls.jaxpr", [],
                 "seed001"),
                ("seed 004 MLP (eqx)", "seed004_mlp_eqx.mlir", [], "seed004_mlp_eqx"),
                ("seed 000 f2", "seed000_f2.mlir", [], "seed000_f2"),
                ("seed 002 MSE, push-up rules", "seed002_mse_before.mlir",
                 ["--rules", str(ROOT / "examples" / "rules")], "seed002_mse"),
                ("seed 003 TDMA", "seed003_tdma.mlir", ["--positive-inputs"], "seed003_tdma")]
    threads = bench.args.threads

    def kiln_run(path, extra, cache):
        try:
            proc = subprocess.run(
                [str(bench.bin / "kiln-run"), str(ROOT / "examples" / "seeds" / path),
                 "--random-inputs", "--repeat", "1", "--time-json",
                 f"--cache-dir={cache}", *extra], capture_output=True, text=True)
        except OSError:
            return None
        if proc.returncode != 0:
            return None
        return json.loads(next(l for l in proc.stdout.splitlines() if l.startswith("{")))

    def med(values):
        values = sorted(v for v in values if v is not None)
        return values[len(values) // 2] if values else None

    bench.compile_rows = []
    for k, (label, path, extra, xla_program) in enumerate(programs):
        # Seed 001's row is the seed's question (time to first result): more samples.
        samples = (3 if bench.args.quick else 5) if xla_program == "seed001" else \
            (1 if bench.args.quick else 3)
        cold, warm, call, xla_cold, xla_warm, xla_error = [], [], [], [], [], None
        for i in range(samples):
            cache = bench.tmp / f"compile-cache-{k}-{i}"
            cache.mkdir(mode=0o700)  # the compile cache uses only private directories
            first, second = kiln_run(path, extra, cache), kiln_run(path, extra, cache)
            cold.append(first and first["compile_s"])
            call.append(first and first["median_s"])
            warm.append(second and second["compile_s"])
            if bench.jax_available() and xla_error is None:
                jax_cache = bench.tmp / f"jax-cache-{k}-{i}"
                jax_cache.mkdir()
                try:
                    xla_cold.append(bench.jax_first_call(xla_program, jax_cache, threads)["first_s"])
                    xla_warm.append(bench.jax_first_call(xla_program, jax_cache, threads)["first_s"])
                except Exception as e:  # a missing peer must not stop the others
                    xla_error = str(e) or repr(e)
        row = [label, med(cold), med(warm), med(call), med(xla_cold), med(xla_warm), samples]
        bench.compile_rows.append(row)
        text = f"  {label:<40}"
        if row[1] and row[2]:
            text += f" cold {row[1] * 1e3:9.1f} ms  warm {row[2] * 1e3:7.1f} ms  ({row[1] / row[2]:.0f}x)"
        if row[4] and row[5]:
            text += f"  XLA cold {row[4] * 1e3:7.1f} ms  warm {row[5] * 1e3:7.1f} ms"
        if xla_error:
            text += f"  XLA skipped: {xla_error.splitlines()[0]}"
        print(text, flush=True)


def compile_scaling(bench):
    """Compile time against program size (bench/compile_scaling.py): Kiln's
    cold compile (kiln-run, process CPU and its phases) beside jax.jit's first
    call in a fresh process, program families at growing sizes."""
    import compile_scaling as cs
    print("\nCompile scaling: kiln-run --no-cache (process CPU, phases) vs jax.jit's first call "
          "(CPU, fresh process, no persistent cache), per program size", flush=True)
    if not bench.jax_available():
        print(f"  skipped: no python with jax at {bench.jax_python} (it writes the jaxprs)")
        return
    if not (bench.bin / "kiln-run").exists():
        print(f"  skipped: no {bench.bin / 'kiln-run'}")
        return
    quick = bench.args.quick
    timeout = getattr(bench.args, "compile_timeout", None) or (120.0 if quick else 300.0)
    env = dict(os.environ, **xla_env(bench.args.threads))
    rows = []
    try:
        for row in cs.measure(bench.bin / "kiln-run", bench.jax_python, env, quick=quick,
                              timeout=timeout, log=lambda line: print(line, flush=True)):
            rows.append(cs.flat_row(row))
    except Exception as e:  # the rows measured so far are still reported
        print(f"  stopped: {str(e).splitlines()[0] if str(e) else e!r}")
    bench.scaling_rows = rows
    for line in cs.format_growth_lines(rows):
        print(line)


def rules_scale(bench):
    """The rule engine at scale (bench/rules_scale.py): YAML rules compiled to
    PDL against the same rewrites as C++ patterns, growing module sizes."""
    import rules_scale as rs
    print("\nRule engine scale: YAML rules (PDL) vs C++ patterns", flush=True)
    sizes = [25000, 50000] if bench.args.quick else [25000, 50000, 100000, 200000]
    bench.rules_rows = []
    for row in rs.measure(bench.bin / "kiln-opt", sizes):
        (size, (yaml, yaml_cpu), (cpp, cpp_cpu)) = row
        bench.rules_rows.append((size, yaml, cpp, yaml_cpu, cpp_cpu))
        print("  " + rs.format_row(row), flush=True)


def ecosystem(bench):
    """Realistic-size programs of the kinds JAX users write
    (bench/ecosystem_speed.py), kiln.jit beside jax.jit in one process of
    the jax environment: per-call time and first call."""
    print("\nEcosystem: realistic-size programs, kiln.jit vs jax.jit in one process", flush=True)
    out = run_jax_script(bench, "ecosystem_speed.py", "ecosystem.json")
    if out:
        bench.ecosystem_rows = json.loads(out.read_text())["ecosystem"]


def algebra(bench):
    """The algebra rule library's kernels (bench/algebra_kernels.py):
    kiln.jit without and with rules/library/algebra, and jax.jit, in one
    process of the jax environment (printed; the rows are in its --json)."""
    print("\nAlgebra: kiln.jit without and with rules/library/algebra, and jax.jit", flush=True)
    run_jax_script(bench, "algebra_kernels.py", "algebra.json")


def run_jax_script(bench, script, json_name):
    """Runs bench/`script` --json in the jax environment, printing its
    output; the JSON file's path, or None (no jax, or it failed)."""
    if not bench.jax_available():
        print(f"  skipped: no python with jax at {bench.jax_python}")
        return None
    out = bench.tmp / json_name
    env = dict(os.environ, **xla_env(bench.args.threads),
               PYTHONPATH=str(bench.bin.parent / "python"), KILN_BIN=str(bench.bin))
    cmd = [bench.jax_python, str(ROOT / "bench" / script), "--json", str(out)]
    if bench.args.quick:
        cmd.append("--quick")
    proc = subprocess.run(cmd, env=env, text=True, capture_output=True)
    for line in proc.stdout.splitlines():
        print("  " + line, flush=True)
    if not out.exists():
        print(f"  failed: {proc.stderr.strip().splitlines()[-1:] or proc.returncode}")
        return None
    return out


def fmt_bytes(n):
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def report(bench, args, outdir=None):
    """The tables of `bench`'s rows: printed, in `outdir` (default
    bench/results/) as latest.json and latest.png, and in --write-docs."""
    from report import Table, fmt, write_report
    tables = []
    if getattr(bench, "compile_rows", None):
        def ms(v):
            return fmt(v).strip() if v else "-"

        def compile_cells(r):
            label, cold, warm, call, xla_cold, xla_warm, _ = r
            vs_xla = f"{(cold + (call or 0)) / xla_cold:.2f}x" if cold and xla_cold else "-"
            return [label, ms(cold), ms(warm), f"{cold / warm:.0f}x" if cold and warm else "-",
                    ms(xla_cold), ms(xla_warm), vs_xla]
        tables.append(Table(
            "compile", "Compile time: cold vs warm compile cache, and jax.jit's first call",
            ["`kiln-run FILE --random-inputs --repeat 1 --time-json --cache-dir=DIR`, twice:",
             "the first run compiles (lowering, LLVM -O3, code generation) and stores the",
             "object, the second links the cached object. XLA: `jax.jit` of the seed's own",
             "code (tests/jax/programs/seeds.py) at the same shapes, the time to first result",
             "(trace, lower, compile, one call, `block_until_ready`) in a fresh process after",
             "`import jax` and the backend's start, with jax's persistent compilation cache in",
             "an empty directory (cold; the entry is written) and again in a second process",
             f"(warm; the entry read); XLA on {args.threads} threads as the workloads.",
             "`vs XLA`: Kiln's time to first result (cold compile plus one call) divided by",
             "XLA's cold one (< 1: Kiln is first). Medians over fresh runs (seed 001: 5, the",
             "others 3; `--quick`: 3 and 1)."],
            ["program", "Kiln cold", "Kiln warm", "cold / warm", "XLA cold", "XLA warm",
             "vs XLA"],
            ["program", "cold_s", "warm_s", "call_s", "xla_cold_s", "xla_warm_s", "samples"],
            bench.compile_rows, compile_cells))
    if bench.memory_rows:
        tables.append(Table(
            "peak_heap", "Extra memory: heap the compiled code needs per call",
            ["kiln-bench: the most heap the compiled code holds during one call (the",
             "runtime allocator's count, `kiln::runtimeHeapStats`) beyond what it holds",
             "between calls. The materializing C++ peer keeps the stacked cos(xs) by",
             "construction (W3 large: 32 MiB); the hand-fused one keeps nothing."],
            ["workload", "peer", "peak heap"], ["workload", "peer", "bytes"], bench.memory_rows,
            lambda r: [r[0], r[1], fmt_bytes(r[2])]))
    if getattr(bench, "scaling_rows", None):
        import compile_scaling as cs
        tables += cs.tables(bench.scaling_rows, args)
    if getattr(bench, "ecosystem_rows", None):
        keys = ["program", "xla_s", "kiln_s", "ratio", "xla_first_cpu_s", "kiln_first_cpu_s",
                "ok", "check"]

        def eco_cells(r):
            def t(v):
                return fmt(v).strip() if v is not None else "-"
            program, xla, kiln, ratio, xla_first, kiln_first, ok, check = r
            return [program, t(xla), t(kiln), f"{ratio:.2f}x" if ratio else "-", t(xla_first),
                    t(kiln_first), "ok" if ok else "FAILED: " + check]
        tables.append(Table(
            "ecosystem", "Realistic-size programs: kiln.jit vs jax.jit",
            ["`bench/ecosystem_speed.py`: each program traced once, kiln.jit (empty compile",
             "cache) and jax.jit in one process of the jax environment; per call: the median",
             "of alternating blocks (7; `--quick` 3) of about 0.4 s each; `XLA / Kiln` above",
             "1: Kiln faster. First call: process CPU seconds of the first call (trace,",
             "compile, run). Results checked against jax.jit before timing."],
            ["program", "XLA per call", "Kiln per call", "XLA / Kiln", "XLA first (CPU)",
             "Kiln first (CPU)", "check"], keys,
            [tuple(r.get("description", r["program"]) if k == "program" else r.get(k)
                   for k in keys) for r in bench.ecosystem_rows], eco_cells))
    if getattr(bench, "rules_rows", None):
        tables.append(Table(
            "rules_scale", "Rule engine scale: YAML rules vs C++ patterns",
            ["`bench/rules_scale.py`: a generated module of N ops that both rule sets rewrite",
             "completely (transpose pairs, dot_general of a transpose); the rewrite passes' own",
             "time (`--mlir-timing`, wall, and the process's CPU time in the passes' share),",
             "best of 3 runs of each, the two sides alternated, one thread."],
            ["ops", "YAML rules (PDL)", "C++ patterns", "YAML / C++", "YAML CPU", "C++ CPU",
             "YAML / C++ CPU"],
            ["ops", "yaml_s", "cpp_s", "yaml_cpu_s", "cpp_cpu_s"], bench.rules_rows,
            lambda r: [str(r[0]), fmt(r[1]).strip(), fmt(r[2]).strip(), f"{r[1] / r[2]:.2f}x",
                       fmt(r[3]).strip(), fmt(r[4]).strip(), f"{r[3] / r[4]:.2f}x"]))
    write_report(bench.results, args, outdir or ROOT / "bench" / "results", tables)


if __name__ == "__main__":
    main()
