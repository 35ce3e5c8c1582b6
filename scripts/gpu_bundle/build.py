"""Builds the GPU bundle (docs/gpu.md, "The GPU bundle"): a folder that runs
Kiln's GPU checks and timings on a machine with a GPU but without LLVM, MLIR
or Kiln's compiler.

    python scripts/gpu_bundle/build.py --build build --out build/gpu-bundle

Everything is compiled here ahead of time (kiln-compile --target=gpu, host
code for x86-64-v3): every program of the interpreter-comparison suite, the
seeds, GEMM programs that go through cuBLAS, and the seed workloads at the
sizes of bench/ for timing. Each check carries its inputs and the reference
interpreter's outputs as .npy; run.py (numpy only, jax optional) runs them
and times Kiln against the machine's own XLA:GPU. No GPU is needed to build.
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "peers"))
import workloads  # noqa: E402  (bench/workloads.py: the seeds' programs at any size)

SEEDS = ROOT / "examples" / "seeds"
LIMIT_BYTES = 32 * 2**20
# The GPU machine's chip (an H200: sm_90) and a CPU every such host has.
CHIP = "sm_90"
HOST_CPU = "x86-64-v3"


def run(cmd, **kw):
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))}\n{proc.stdout}{proc.stderr}")
    return proc


TARGET = "gpu"  # --target=cpu: the same bundle for the CPU, to try run.py here


def aot(build, source, lib, prefix, entry=None, extra=()):
    cmd = [build / "bin" / "kiln-compile", source, "-o", lib, "--name", prefix,
           f"--target={TARGET}", f"--gpu-chip={CHIP}", f"--cpu={HOST_CPU}", *extra]
    if entry:
        cmd += ["--entry", entry]
    run(cmd)


def gemm_programs():
    """dot_generals that go to cuBLAS: every transpose combination (as
    dimension numbers), a batch, f32 and f64, shapes that are not multiples
    of a tile."""
    out = {}
    for dt in ("f32", "f64"):
        for ta in (0, 1):
            for tb in (0, 1):
                m, k, n = 67, 45, 33
                a = (k, m) if ta else (m, k)
                b = (n, k) if tb else (k, n)
                ca, cb = (0 if ta else 1), (1 if tb else 0)
                t = lambda s: "tensor<" + "x".join(map(str, s)) + f"x{dt}>"
                out[f"gemm_{dt}_t{ta}{tb}"] = (f"""func.func @g(%a: {t(a)}, %b: {t(b)}) -> {t((m, n))} {{
  %c = lax.dot_general %a, %b contracting = [{ca}] x [{cb}] batch = [] x []
      : ({t(a)}, {t(b)}) -> {t((m, n))}
  return %c : {t((m, n))}
}}
""", "g")
        t = lambda s: "tensor<" + "x".join(map(str, s)) + f"x{dt}>"
        out[f"gemm_{dt}_batched"] = (f"""func.func @g(%a: {t((5, 31, 17))}, %b: {t((5, 17, 23))}) -> {t((5, 31, 23))} {{
  %c = lax.dot_general %a, %b contracting = [2] x [1] batch = [0] x [0]
      : ({t((5, 31, 17))}, {t((5, 17, 23))}) -> {t((5, 31, 23))}
  return %c : {t((5, 31, 23))}
}}
""", "g")
    return out


def add_check(build, bundle, name, source, entry, seed, positive, launches=None):
    """One check: the AOT library, random inputs, the interpreter's outputs."""
    d = bundle / "checks" / name
    d.mkdir(parents=True)
    prefix = "k_" + "".join(c if c.isalnum() else "_" for c in name)
    # every GEMM-shaped dot_general through cuBLAS
    aot(build, source, d / "lib.so", prefix, entry, ["--runtime-gemm-min-macs=0"])
    cmd = [build / "bin" / "kiln-run", source, "--interpret", "--random-inputs",
           f"--seed={seed}", "--save-inputs", d, "--outputs", d]
    if positive:
        cmd.append("--positive-inputs")
    if entry:
        cmd += ["--entry", entry]
    run(cmd)
    shutil.copy(source, d / "program.mlir")
    for f in d.glob("out*.npy"):
        f.rename(d / f.name.replace("out", "expected"))
    return {"name": name, "dir": f"checks/{name}", "prefix": prefix, "entry": entry,
            "seed": seed, "positive": positive, "launches_per_call": launches}


def timing_programs(tmp):
    """The seed workloads at bench/'s sizes (inputs are made on the GPU
    machine: run.py's generators, by workload name)."""
    progs = []
    progs.append(("W1_f1", "W1", SEEDS / "seed000_f1.mlir", "f1", {}))
    progs.append(("W1_f2", "W1", SEEDS / "seed000_f2.mlir", "f2", {}))
    for systems, n, dt in ((100000, 100, "f32"), (100000, 100, "f64"), (1000000, 100, "f32")):
        src = tmp / f"tdma_{systems}_{n}_{dt}.mlir"
        src.write_text(workloads.tdma_program(systems, n, dt))
        progs.append((f"W2_tdma_{systems}x{n}_{dt}", "W2", src, "tdma",
                      {"systems": systems, "n": n, "dtype": dt}))
    # The seed's layout with the transposes kept as copy kernels (as XLA
    # runs them), so that the scans read step-major rows.
    for systems, n, dt in ((100000, 100, "f32"), (1000000, 100, "f32")):
        src = tmp / f"tdma_{systems}_{n}_{dt}.mlir"
        src.write_text(workloads.tdma_program(systems, n, dt))
        progs.append((f"W2_tdma_unfolded_{systems}x{n}_{dt}", "W2", src, "tdma",
                      {"systems": systems, "n": n, "dtype": dt,
                       "flags": ["--fold-scan-layout=false"]}))
    # The same TDMA on diagonals stored steps-outermost: neighbouring
    # threads (systems) read neighbouring addresses.
    for systems, n, dt in ((100000, 100, "f32"), (1000000, 100, "f32")):
        src = tmp / f"tdma_steps_outer_{systems}_{n}_{dt}.mlir"
        src.write_text(workloads.tdma_steps_outer_program(systems, n, dt))
        progs.append((f"W2_tdma_steps_outer_{systems}x{n}_{dt}", "W2", src, "tdma",
                      {"systems": systems, "n": n, "dtype": dt, "layout": "steps-outer"}))
    for label, carry, xs in (("seed", (10, 5, 8), (30, 15, 12)),
                             ("large", (256, 512), (64, 256, 512))):
        src = tmp / f"mse_{label}.mlir"
        src.write_text(workloads.mse_program(carry, xs))
        progs.append((f"W3_mse_{label}", "W3", src, "mse",
                      {"carry": list(carry), "xs": list(xs)}))
    progs.append(("W4_mlp", "W4", SEEDS / "seed004_mlp_eqx.mlir", "mlp", {}))
    return progs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=str(ROOT / "build"), help="Kiln's build directory")
    ap.add_argument("--out", default=None, help="bundle folder (default BUILD/gpu-bundle)")
    ap.add_argument("--target", default="gpu", choices=("gpu", "cpu"),
                    help="cpu: a CPU build of the same bundle, to try run.py without a GPU")
    args = ap.parse_args()
    global TARGET
    TARGET = args.target
    build = Path(args.build).resolve()
    bundle = Path(args.out or build / "gpu-bundle").resolve()
    runtime = build / "lib" / ("libKilnRuntimeGpu.so" if TARGET == "gpu" else "libKilnRuntimeCpu.so")
    if not runtime.exists():
        sys.exit("gpu-bundle: no libKilnRuntimeGpu.so in the build (CUDA headers missing at "
                 "configure time)")
    # Built beside, then moved into place: the folder is complete or absent.
    staging = bundle.with_name(bundle.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    (staging / "lib").mkdir(parents=True)
    tmp = staging / "tmp"
    tmp.mkdir()
    shutil.copy(runtime, staging / "lib")
    for f in ("run.py", "run.sh"):
        shutil.copy(Path(__file__).parent / f, staging / f)
    shutil.copy(ROOT / "bench" / "peers" / "python_peers.py", staging)

    checks = []
    # 1. The interpreter-comparison suite's programs, as the test runs them.
    dump = tmp / "suite"
    dump.mkdir()
    env = dict(os.environ, KILN_DUMP_PROGRAMS=str(dump))
    run([build / "bin" / "InterpreterComparisonTest"], env=env)
    for meta in sorted(dump.glob("*.json")):
        m = json.loads(meta.read_text())
        checks.append(add_check(build, staging, "suite_" + meta.stem, meta.with_suffix(".mlir"),
                                m["entry"], m["seed"], m["positive"]))
    # 2. The seeds (TDMA: one kernel per call).
    for src in sorted(SEEDS.glob("*.mlir")):
        if src.name.startswith("seed000"):
            # W1's batch cut from 32x100 to 2x10 (its inputs and outputs
            # would be 36 MiB); the timing runs the full size against XLA.
            small = tmp / src.name
            small.write_text(src.read_text().replace("32x100x", "2x10x"))
            src = small
        positive = "tdma" in src.name
        launches = 1 if "tdma" in src.name else None
        checks.append(add_check(build, staging, "seed_" + src.stem, src, None, 7, positive,
                                launches))
    # 3. cuBLAS GEMMs.
    for name, (text, entry) in gemm_programs().items():
        src = tmp / f"{name}.mlir"
        src.write_text(text)
        checks.append(add_check(build, staging, name, src, entry, 7, False))

    timing = []
    for name, workload, src, entry, params in timing_programs(tmp):
        d = staging / "timing" / name
        d.mkdir(parents=True)
        prefix = "t_" + name.lower()
        aot(build, src, d / "lib.so", prefix, entry, params.get("flags", []))
        timing.append({"name": name, "workload": workload, "dir": f"timing/{name}",
                       "prefix": prefix, "params": params})

    shutil.rmtree(tmp)
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    manifest = {"format": 1, "target": TARGET, "chip": CHIP, "host_cpu": HOST_CPU, "kiln_commit": commit,
                "built_on": platform.node(), "checks": checks, "timing": timing}
    (staging / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    size = sum(f.stat().st_size for f in staging.rglob("*") if f.is_file())
    if size > LIMIT_BYTES:
        sys.exit(f"gpu-bundle: {size / 2**20:.1f} MiB, over the {LIMIT_BYTES >> 20} MiB limit")
    shutil.rmtree(bundle, ignore_errors=True)
    staging.rename(bundle)
    print(f"gpu-bundle: {bundle} ({len(checks)} checks, {len(timing)} timed programs, "
          f"{size / 2**20:.1f} MiB)")


if __name__ == "__main__":
    main()
