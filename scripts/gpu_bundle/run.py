"""Runs the GPU bundle on a machine with a GPU (docs/gpu.md): no LLVM, MLIR or
Kiln compiler needed, only Python 3 with numpy (jax with CUDA for the XLA
timings, optional).

    python3 run.py [--out DIR] [--budget SECONDS] [--checks-only]

1. Every check (the interpreter-comparison suite, the seeds, cuBLAS GEMMs):
   its ahead-of-time library is called on the bundled inputs (host buffers,
   copied in and out), its outputs are saved in DIR/results.npz (NAME.out<i>) and
   compared with the reference interpreter's (a first look: the exact
   comparison is check.py's, on the machine with Kiln), and its kernel
   launches per call are counted.
2. The seed workloads at bench/'s sizes, on device buffers: Kiln's time per
   call and launches per call against the machine's jax.jit (XLA:GPU) on the
   same inputs, and how far the two results are apart.
DIR/report.json (rewritten after every step, so a run cut short still
reports) and DIR/report.md. Without a usable GPU it says why and exits 0
after checking that every library loads.
"""
import argparse
import ctypes
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # leave memory to Kiln
os.environ.setdefault("JAX_ENABLE_X64", "1")  # W2's f64 TDMA in f64, as Kiln runs it

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # python_peers.py, bench/'s JAX peers
DTYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": np.uint16,
          "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
          "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "bool": np.bool_}


class Runtime:
    """libKilnRuntimeGpu.so, loaded once (RTLD_GLOBAL: every library of the
    bundle binds to this copy, so they share its CUDA context, its error
    record and its launch counter)."""

    counts_launches = True

    def __init__(self):
        self.lib = ctypes.CDLL(str(HERE / "lib" / "libKilnRuntimeGpu.so"), mode=ctypes.RTLD_GLOBAL)
        L = self.lib
        for name in ("kiln_gpu_status", "kiln_gpu_take_error", "kiln_gpu_device_name",
                     "kiln_gpu_chip"):
            getattr(L, name).restype = ctypes.c_char_p
        L.kiln_gpu_launch_count.restype = ctypes.c_uint64
        L.kiln_gpu_profile_report.restype = ctypes.c_char_p
        L.mgpuMemAlloc.restype = ctypes.c_void_p
        L.mgpuMemAlloc.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_bool]
        L.mgpuMemFree.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        L.mgpuMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                 ctypes.c_void_p]
        L.mgpuStreamCreate.restype = ctypes.c_void_p
        L.mgpuStreamSynchronize.argtypes = [ctypes.c_void_p]

    def status(self):
        s = self.lib.kiln_gpu_status()
        return s.decode() if s else None

    def launches(self):
        return int(self.lib.kiln_gpu_launch_count())

    def profile(self, call, calls=100):
        """Host time per runtime entry over `calls` calls (microseconds per
        call), for the small programs whose time is mostly host side."""
        self.lib.kiln_gpu_profile(1)
        for _ in range(calls):
            call()
        self.lib.kiln_gpu_profile(0)
        rows = {}
        for line in self.lib.kiln_gpu_profile_report().decode().splitlines():
            name, n, _, us, _ = line.split()
            rows[name] = {"calls_per_call": int(n) / calls, "us_per_call": int(us) / calls}
        return rows

    def take_error(self):
        e = self.lib.kiln_gpu_take_error()
        return e.decode() if e else None

    def to_device(self, array, stream):
        ptr = self.lib.mgpuMemAlloc(max(array.nbytes, 1), stream, False)
        if array.nbytes:
            self.lib.mgpuMemcpy(ptr, array.ctypes.data, array.nbytes, stream)
        return ptr

    def to_host(self, ptr, array, stream):
        if array.nbytes:
            self.lib.mgpuMemcpy(array.ctypes.data, ptr, array.nbytes, stream)
        self.lib.mgpuStreamSynchronize(stream)

    def free(self, ptr, stream):
        self.lib.mgpuMemFree(ptr, stream)

    def stream(self):
        return self.lib.mgpuStreamCreate()

    def sync(self, stream):
        self.lib.mgpuStreamSynchronize(stream)

    def device_name(self):
        return self.lib.kiln_gpu_device_name().decode()

    def chip(self):
        return self.lib.kiln_gpu_chip().decode()


class HostRuntime:
    """A CPU bundle's stand-in for Runtime (build.py --target=cpu): "device"
    buffers are host arrays, so run.py's logic can be tried without a GPU."""

    counts_launches = False

    def __init__(self):
        self.keep = {}

    def status(self):
        return None

    def launches(self):
        return 0

    def profile(self, call, calls=100):
        return None

    def to_device(self, array, stream):
        copy = np.array(array, copy=True)
        self.keep[copy.ctypes.data] = copy
        return copy.ctypes.data

    def to_host(self, ptr, array, stream):
        array[...] = self.keep[ptr].reshape(array.shape)

    def free(self, ptr, stream):
        self.keep.pop(ptr, None)

    def stream(self):
        return None

    def sync(self, stream):
        pass

    def device_name(self):
        return "host CPU (a CPU bundle)"

    def chip(self):
        return ""


class Library:
    """One ahead-of-time library (kiln-compile's C entry points)."""

    def __init__(self, path, prefix):
        self.lib = ctypes.CDLL(str(path))
        self.p = prefix
        f = self.fn
        f("error").restype = ctypes.c_char_p
        f("dtype").restype = ctypes.c_char_p
        f("target").restype = ctypes.c_char_p
        f("shape").restype = ctypes.POINTER(ctypes.c_int64)
        for name in ("call", "call_host"):
            f(name).argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        n_in, n_out = f("num_inputs")(), f("num_outputs")()
        self.specs = []
        for i in range(n_in + n_out):
            rank = f("rank")(i)
            shape = tuple(f("shape")(i)[k] for k in range(rank))
            self.specs.append((shape, f("dtype")(i).decode()))
        self.inputs, self.outputs = self.specs[:n_in], self.specs[n_in:]

    def fn(self, name):
        return getattr(self.lib, f"{self.p}_{name}")

    def error(self):
        e = self.fn("error")()
        return e.decode() if e else None

    def new_outputs(self):
        return [np.zeros(s, DTYPES[d]) for s, d in self.outputs]

    def call(self, pointers, host):
        arr = (ctypes.c_void_p * len(pointers))(*pointers)
        rc = self.fn("call_host" if host else "call")(arr)
        return None if rc == 0 else (self.error() or f"returned {rc}")


def as_float(x, dtype):
    if dtype == "bf16":
        return (x.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return x.astype(np.float64)


# Outputs of the checks by run folder, saved as one results.npz (NAME.out<i>).
RESULTS = {}


def first_look(got, want, dtype):
    """(ok, note): exact for integers and bools; floats within a loose
    scaled bound (check.py applies Kiln's error model exactly)."""
    if dtype not in ("f32", "f64", "f16", "bf16"):
        same = np.array_equal(got, want)
        return same, "equal" if same else f"{int(np.sum(got != want))} elements differ"
    g, w = as_float(got, dtype), as_float(want, dtype)
    nan_ok = np.array_equal(np.isnan(g), np.isnan(w))
    fin = np.isfinite(w) & np.isfinite(g)
    inf_ok = np.array_equal(g[~np.isfinite(w) & ~np.isnan(w)], w[~np.isfinite(w) & ~np.isnan(w)])
    scale = float(np.max(np.abs(w[fin]))) if fin.any() else 0.0
    err = float(np.max(np.abs(g[fin] - w[fin]))) / (scale or 1.0) if fin.any() else 0.0
    tol = {"f64": 1e-9, "f32": 1e-4, "f16": 1e-2, "bf16": 5e-2}[dtype]
    return nan_ok and inf_ok and err <= tol, f"scaled max error {err:.2e}"


class Report:
    def __init__(self, out):
        self.out = out
        self.data = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                     "machine": {}, "checks": [], "timing": [], "notes": []}

    def save(self):
        (self.out / "report.json").write_text(json.dumps(self.data, indent=1) + "\n")


def run_rows(items, rows, report, deadline, run_one):
    """`run_one(item, row)` for each item, a row each in `rows` ("name" and
    "workload" from the item), skipped past `deadline`; the report is saved
    after each (a run cut short still reports)."""
    for item in items:
        row = {k: item[k] for k in ("name", "workload") if k in item}
        rows.append(row)
        if time.time() > deadline:
            row["status"] = "skipped (time budget)"
            continue
        try:
            run_one(item, row)
        except Exception as e:  # one broken item must not end the run
            row["status"] = f"FAILED in run.py: {type(e).__name__}: {e}"
        report.save()


def run_checks(rt, manifest, report, out, deadline, gpu):
    run_rows(manifest["checks"], report.data["checks"], report, deadline,
             lambda c, row: run_check(rt, c, row, out, gpu))


def run_check(rt, c, row, out, gpu):
    d = HERE / c["dir"]
    if True:
        try:
            lib = Library(d / "lib.so", c["prefix"])
        except OSError as e:
            row["status"] = f"does not load: {e}"
            return
        if not gpu:
            row["status"] = "loaded (no GPU: not run)"
            return
        load_error = lib.error()
        if load_error:
            row["status"] = f"FAILED to load its kernels: {load_error}"
            return
        ins = [np.ascontiguousarray(np.load(d / f"in{i}.npy")) for i in range(len(lib.inputs))]
        ins = [x.view(np.uint16) if x.dtype.kind == "V" else x for x in ins]
        outs = lib.new_outputs()
        before = rt.launches()
        t0 = time.perf_counter()
        err = lib.call([x.ctypes.data for x in ins + outs], host=True)
        row["seconds_first_call"] = time.perf_counter() - t0
        row["launches_per_call"] = rt.launches() - before
        if err:
            row["status"] = f"FAILED: {err}"
            return
        results = RESULTS.setdefault(out, {})
        looks = []
        ok = True
        for i, (o, (shape, dt)) in enumerate(zip(outs, lib.outputs)):
            results[f"{c['name']}.out{i}"] = o
            want = np.load(d / f"expected{i}.npy")
            want = want.view(np.uint16) if want.dtype.kind == "V" else want
            good, note = first_look(o, want, dt)
            ok &= good
            looks.append(f"out{i} {dt}{list(shape)}: {note}")
        row["outputs"] = looks
        want_launches = c.get("launches_per_call")
        if (want_launches is not None and rt.counts_launches
                and row["launches_per_call"] != want_launches):
            ok = False
            looks.append(f"{row['launches_per_call']} launches per call, expected {want_launches}")
        # The device-pointer entry (what a C++ caller uses) on the same inputs.
        stream = rt.stream()
        dev = [rt.to_device(x, stream) for x in ins + lib.new_outputs()]
        rt.sync(stream)
        err = lib.call(dev, host=False)
        if not err:
            again = lib.new_outputs()
            for p, a in zip(dev[len(ins):], again):
                rt.to_host(p, a, stream)
            if not all(a.tobytes() == o.tobytes() for a, o in zip(again, outs)):
                ok = False
                looks.append("the device-pointer entry gave other bits than the host entry")
        else:
            ok = False
            looks.append(f"device-pointer entry failed: {err}")
        for p in dev:
            rt.free(p, stream)
        rt.sync(stream)
        row["status"] = "ok" if ok else "DIFFERS"


# --- timing ------------------------------------------------------------------
def workload_inputs(t, rng):
    w, p = t["workload"], t["params"]
    if w == "W1":
        return [rng.standard_normal((600, 821), dtype=np.float32),
                rng.standard_normal((32, 100, 821), dtype=np.float32)]
    if w == "W2":
        dt = np.float32 if p["dtype"] == "f32" else np.float64
        shape = (p["systems"], p["n"])
        return [rng.uniform(-1, 1, shape).astype(dt), rng.uniform(3, 4, shape).astype(dt),
                rng.uniform(-1, 1, shape).astype(dt), rng.uniform(-1, 1, shape).astype(dt)]
    if w == "W3":
        return [rng.standard_normal(tuple(p["carry"]), dtype=np.float32),
                rng.standard_normal(tuple(p["xs"]), dtype=np.float32),
                rng.standard_normal(tuple(p["xs"]), dtype=np.float32)]
    if w == "W4":
        shapes = [(4,), (64, 4), (64,), (64, 64), (64,), (2, 64), (2,)]
        return [rng.standard_normal(s, dtype=np.float32) * 0.3 for s in shapes]
    raise KeyError(w)


def jax_function(t):
    """The seed's JAX code for workload `t` (what bench/ times on the CPU)."""
    import jax
    import jax.numpy as jnp
    name = t["name"]
    if name == "W1_f1":  # seed 000 f1: w @ a under a double vmap
        return jax.jit(jax.vmap(jax.vmap(lambda w, a: w @ a, (None, 0)), (None, 0)))
    # W1 f2 and W2 as bench/ times them (bench/peers/python_peers.py, copied
    # into the bundle).
    import python_peers
    if name == "W1_f2":
        return python_peers.w1_jax()
    if t["workload"] == "W2":  # seed 003 as the seed writes it
        return python_peers.w2_jax()
    if t["workload"] == "W3":  # seed 002 before: mean((y - scan(...).ys) ** 2)
        def mse(c0, xs, y):
            _, ys = jax.lax.scan(lambda c, x: (jnp.sin(c), jnp.cos(x)), c0, xs)
            return jnp.mean((y - ys) ** 2)
        return jax.jit(mse)
    if t["workload"] == "W4":  # seed 004's MLP 4-64-64-2 with relu
        def mlp(x, w1, b1, w2, b2, w3, b3):
            h = jax.nn.relu(w1 @ x + b1)
            h = jax.nn.relu(w2 @ h + b2)
            return w3 @ h + b3
        return jax.jit(mlp)
    raise KeyError(name)


def median_seconds(call, repeat, budget):
    times = []
    start = time.perf_counter()
    for _ in range(repeat):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
        if time.perf_counter() - start > budget:
            break
    return float(np.median(times)), len(times)


def count_xla_kernels(manifest):
    """--count-xla-kernels (a child process, so that a profiler that hangs or
    crashes costs only this step): prints {program: kernels per call} of
    XLA:GPU, counted by CUPTI through PyTorch's profiler (process-wide, so it
    sees XLA's launches)."""
    import jax
    rng = np.random.default_rng(0)
    counts = {}
    for t in manifest["timing"]:
        try:
            fn = jax_function(t)
            args = [jax.device_put(x) for x in workload_inputs(t, rng)]
            counts[t["name"]] = xla_kernels_per_call(fn, args)
        except Exception as e:
            counts[t["name"]] = f"not counted: {type(e).__name__}: {e}"
    print(json.dumps(counts))


def xla_kernels_per_call(fn, args):
    """Kernels per call of `fn`, or why they were not counted."""
    try:
        import torch
        from torch.profiler import ProfilerActivity, profile
    except Exception as e:
        return f"not counted: no PyTorch profiler ({e})"
    try:
        fn(*args).block_until_ready()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(3):
                fn(*args).block_until_ready()
            torch.cuda.synchronize()
        kernels = [e for e in prof.events() if e.device_type.name == "CUDA"
                   and "memcpy" not in e.name.lower() and "memset" not in e.name.lower()]
        return len(kernels) / 3 if kernels else None
    except Exception as e:  # a profiler that cannot attach: say so, go on
        return f"not counted: {type(e).__name__}: {e}"


def run_timing(rt, manifest, report, deadline, with_jax):
    jax = None
    if with_jax:
        try:
            import jax
            report.data["machine"]["jax"] = jax.__version__
            report.data["machine"]["jax_devices"] = [str(d) for d in jax.devices()]
        except Exception as e:
            report.data["notes"].append(f"jax unavailable: {e}")
            jax = None
    rng = np.random.default_rng(0)
    run_rows(manifest["timing"], report.data["timing"], report, deadline,
             lambda t, row: time_one(rt, t, row, rng, jax))


def time_one(rt, t, row, rng, jax):
    if True:
        lib = Library(HERE / t["dir"] / "lib.so", t["prefix"])
        if lib.error():
            row["status"] = f"FAILED to load: {lib.error()}"
            return
        ins = workload_inputs(t, rng)
        # Diagonals stored steps-outermost for Kiln; XLA runs the seed's code
        # on the same values, and its result is compared transposed.
        steps_outer = t["params"].get("layout") == "steps-outer"
        kiln_ins = [np.ascontiguousarray(x.T) for x in ins] if steps_outer else ins
        stream = rt.stream()
        outs = lib.new_outputs()
        dev = [rt.to_device(x, stream) for x in kiln_ins + outs]
        rt.sync(stream)
        err = lib.call(dev, host=False)  # warm-up (first launch loads nothing more)
        if err:
            row["status"] = f"FAILED: {err}"
            return
        before = rt.launches()
        lib.call(dev, host=False)
        row["kiln_launches_per_call"] = rt.launches() - before
        small = t["workload"] == "W4"
        secs, n = median_seconds(lambda: lib.call(dev, host=False), 2000 if small else 30, 20)
        row["kiln_seconds"] = secs
        row["kiln_samples"] = n
        if secs < 5e-3:  # mostly host side: where it goes
            row["kiln_host_profile"] = rt.profile(lambda: lib.call(dev, host=False))
        for p, a in zip(dev[len(kiln_ins):], outs):
            rt.to_host(p, a, stream)
        for p in dev:
            rt.free(p, stream)
        rt.sync(stream)
        row["status"] = "ok"
        if jax is not None:
            try:
                fn = jax_function(t)
                args = [jax.device_put(x) for x in ins]
                t0 = time.perf_counter()
                ref = np.asarray(fn(*args).block_until_ready())
                row["xla_first_call_seconds"] = time.perf_counter() - t0
                secs, n = median_seconds(lambda: fn(*args).block_until_ready(),
                                         2000 if small else 30, 20)
                row["xla_seconds"] = secs
                row["xla_over_kiln"] = secs / row["kiln_seconds"]
                got = (outs[0].T if steps_outer else outs[0]).astype(np.float64)
                scale = float(np.max(np.abs(ref))) or 1.0
                row["max_scaled_difference_vs_xla"] = float(
                    np.max(np.abs(got - ref.astype(np.float64)))) / scale
            except Exception as e:
                row["xla_status"] = f"{type(e).__name__}: {e}"


def markdown(data):
    m = data["machine"]
    lines = [f"# Kiln GPU bundle report ({data['started']})", "",
             f"- GPU: {m.get('device')} ({m.get('chip')}); status: {m.get('gpu_status') or 'usable'}",
             f"- host: {m.get('host')}; Python {m.get('python')}; numpy {m.get('numpy')}; "
             f"jax {m.get('jax', 'n/a')}", f"- bundle: Kiln {m.get('kiln_commit')}, "
             f"kernels for {m.get('bundle_chip')}", ""]
    checks = data["checks"]
    ok = sum(1 for c in checks if c.get("status") == "ok")
    lines += [f"## Checks: {ok} of {len(checks)} ok", "",
              "| check | status | launches/call | outputs |", "|---|---|---|---|"]
    for c in checks:
        lines.append(f"| {c['name']} | {c.get('status')} | {c.get('launches_per_call', '')} | "
                     f"{'; '.join(c.get('outputs', []))} |")
    lines += ["", "## Timing (device buffers, one call to completion, median)", "",
              "| program | Kiln ms | XLA ms | XLA/Kiln | Kiln launches | XLA kernels | "
              "max diff vs XLA |", "|---|---|---|---|---|---|---|"]
    for t in data["timing"]:
        f = lambda k, s=1e3: f"{t[k] * s:.4g}" if isinstance(t.get(k), float) else str(t.get(k, ""))
        lines.append(f"| {t['name']} | {f('kiln_seconds')} | {f('xla_seconds')} | "
                     f"{f('xla_over_kiln', 1)} | {t.get('kiln_launches_per_call', '')} | "
                     f"{t.get('xla_kernels_per_call', '')} | "
                     f"{f('max_scaled_difference_vs_xla', 1)} {t.get('status', '')} "
                     f"{t.get('xla_status', '')} |")
    profiled = [t for t in data["timing"] if t.get("kiln_host_profile")]
    if profiled:
        lines += ["", "## Host time of Kiln's small programs per call (runtime entries)", ""]
        for t in profiled:
            parts = [f"{k} {v['calls_per_call']:g}x {v['us_per_call']:.1f} us"
                     for k, v in sorted(t["kiln_host_profile"].items(),
                                        key=lambda kv: -kv[1]["us_per_call"])]
            lines.append(f"- {t['name']}: " + "; ".join(parts))
    lines += [""] + [f"- {n}" for n in data["notes"]]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", str(HERE / "out")))
    ap.add_argument("--budget", type=float, default=240, help="seconds for the whole run")
    ap.add_argument("--checks-only", action="store_true")
    ap.add_argument("--no-jax", action="store_true")
    ap.add_argument("--no-xla-kernel-count", action="store_true")
    ap.add_argument("--count-xla-kernels", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.count_xla_kernels:
        count_xla_kernels(json.loads((HERE / "manifest.json").read_text()))
        return 0
    start = time.time()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    manifest = json.loads((HERE / "manifest.json").read_text())
    report = Report(out)
    rt = Runtime() if manifest.get("target", "gpu") == "gpu" else HostRuntime()
    status = rt.status()
    report.data["machine"] = {
        "host": f"{platform.node()} {platform.machine()} {platform.processor()}",
        "python": platform.python_version(), "numpy": np.__version__,
        "gpu_status": status, "device": rt.device_name(),
        "chip": rt.chip(), "kiln_commit": manifest["kiln_commit"],
        "bundle_chip": manifest["chip"]}
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        report.data["machine"]["nvidia_smi"] = smi.stdout.strip()
    except Exception:
        pass
    try:
        cpu = [l for l in Path("/proc/cpuinfo").read_text().splitlines() if l.startswith("model name")]
        report.data["machine"]["cpu"] = f"{cpu[0].split(':', 1)[1].strip()} x{len(cpu)}" if cpu else ""
    except OSError:
        pass
    report.save()
    gpu = status is None
    if not gpu:
        report.data["notes"].append(f"no GPU can run the bundle: {status}")
    run_checks(rt, manifest, report, out, start + args.budget * 0.5, gpu)
    report.data["checks_seconds"] = time.time() - start
    report.save()
    if RESULTS.get(out):
        np.savez(out / "results.npz", **RESULTS[out])
    if gpu and not args.checks_only:
        run_timing(rt, manifest, report, start + args.budget * 0.85, not args.no_jax)
        if not args.no_jax and not args.no_xla_kernel_count:
            left = max(10.0, start + args.budget - time.time())
            try:
                child = subprocess.run([sys.executable, __file__, "--count-xla-kernels"],
                                       capture_output=True, text=True, timeout=left)
                counts = json.loads(child.stdout.strip().splitlines()[-1])
                for row in report.data["timing"]:
                    row["xla_kernels_per_call"] = counts.get(row["name"])
            except Exception as e:
                report.data["notes"].append(f"XLA kernels not counted: {type(e).__name__}: {e}")
    report.data["seconds"] = time.time() - start
    report.save()
    (out / "report.md").write_text(markdown(report.data))
    print(markdown(report.data))
    bad = [c for c in report.data["checks"]
           if gpu and c.get("status") not in ("ok",)]
    loads = [c for c in report.data["checks"] if c.get("status", "").startswith("does not load")]
    return 1 if (bad or loads) else 0


if __name__ == "__main__":
    sys.exit(main())
