"""The four seed workloads (W1..W4). Each generates inputs, computes a float64
reference, and runs every peer through the Bench object of harness.py."""
import re
from pathlib import Path

import numpy as np

import python_peers as py

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "examples" / "seeds"
RNG = np.random.default_rng(0)


def gflops(flops, seconds):
    return flops / seconds / 1e9


# --- W1: seed 000 ------------------------------------------------------------
def w1(b):
    print("\nW1 (seed 000): batched matvec w f32[600,821], a f32[32,100,821]")
    w = RNG.standard_normal((600, 821), dtype=np.float32)
    a = RNG.standard_normal((32, 100, 821), dtype=np.float32)
    ref = np.einsum("ab,...b->...a", w.astype(np.float64), a.astype(np.float64))
    rtol = 1e-5
    flops = 2 * 3200 * 600 * 821
    note = f"{flops / 1e9:.2f} GFLOP"
    rate = {"work": (flops, "GF/s")}  # each row shows its GF/s
    t = b.args.threads
    b.guarded("W1", "numpy einsum", lambda: b.time_python(py.w1_numpy_einsum, w, a),
              ref, rtol, t, note, **rate)
    b.guarded("W1", "numpy matmul (OpenBLAS)", lambda: b.time_python(py.w1_numpy_matmul, w, a),
              ref, rtol, t, note, **rate)
    if py.torch is not None:
        py.torch.set_num_threads(t)
        b.guarded("W1", "torch matmul", lambda: b.time_python(py.w1_torch, w, a),
                  ref, rtol, t, note, **rate)
    wp, ap = b.save("w1_w", w), b.save("w1_a", a)
    b.guarded("W1", "C++ Eigen", lambda: cpp(b, "w1-eigen", wp, ap), ref, rtol, t, note, **rate)
    if b.jax_available():
        # The seed's f1 (double vmap) and f2 (einsum), both @jax.jit.
        for name, peer in (("XLA: jax.jit f1 (double vmap)", "w1-f1"),
                           ("XLA: jax.jit f2 (einsum)", "w1-f2")):
            b.guarded("W1", name, lambda: b.run_jax(peer, [wp, ap], t), ref, rtol, t, note,
                      **rate)
    if b.kiln_available():
        for name, file, entry, passes in (
                ("Kiln f1 (as written)", "seed000_f1.mlir", "f1", ()),
                ("Kiln f1 (kiln-optimize)", "seed000_f1.mlir", "f1", ("kiln-optimize",)),
                ("Kiln f2", "seed000_f2.mlir", "f2", ())):
            b.guarded("W1", name, lambda: b.run_kiln(name.replace(" ", "_"), SEEDS / file, entry,
                                                     [wp, ap], passes), ref, rtol, t, note, **rate)
    if b.gpu_available():
        # On the GPU (threads column 0): Kiln's dot_general through cuBLAS,
        # JAX's einsum; inputs stay on the device.
        for name, file, entry in (("GPU: Kiln f1 (cuBLAS)", "seed000_f1.mlir", "f1"),
                                  ("GPU: Kiln f2 (cuBLAS)", "seed000_f2.mlir", "f2")):
            if b.kiln_available():
                b.guarded("W1", name, lambda: b.run_kiln(name.replace(" ", "_"), SEEDS / file,
                                                         entry, [wp, ap], target="gpu"),
                          ref, 1e-3, 0, note, **rate)
        if py.jax is not None:
            b.guarded("W1", "GPU: XLA jax.jit einsum", lambda: b.time_jax(py.w1_jax(), w, a),
                      ref, 1e-3, 0, note, **rate)


def cpp(b, workload, *args, binary="kiln-bench-peers"):
    times, threads, out = b.run_cpp(workload, *args, binary=binary)
    return times, out


def lax_type(shape, dtype="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


# --- W2: seed 003 ------------------------------------------------------------
def copy_floor_program(shape, dtype):
    """W2's floor as a lax program on the TDMA's four inputs: out = a + b +
    c + d, 4 reads and 1 write as the TDMA. Timed beside each sample of
    Kiln's rows (kiln-bench --paired)."""
    t = lax_type(shape, dtype)
    return f"""func.func @floor(%a: {t}, %b: {t}, %c: {t}, %d: {t}) -> {t} {{
  %ab = lax.add %a, %b : {t}
  %abc = lax.add %ab, %c : {t}
  %abcd = lax.add %abc, %d : {t}
  return %abcd : {t}
}}
"""


def tdma_program(systems, n, dtype):
    """seed003_tdma.mlir resized: (systems, n) diagonals of `dtype`."""
    text = (SEEDS / "seed003_tdma.mlir").read_text()
    text = re.sub(r"(?<=[<x])1000(?=[x>])", str(systems), text)
    text = re.sub(r"(?<=[<x])100(?=[x>])", str(n), text)
    text = text.replace("length = 100", f"length = {n}")
    return text.replace("f32", dtype)


def tdma_steps_outer_program(systems, n, dtype):
    """The same TDMA on diagonals already laid out steps-outermost, (n,
    systems), as JAX's scan over axis 0 wants them: no transposes, so each
    step reads one contiguous row of every diagonal (the vector lanes are
    contiguous: several groups of them per iteration, no block tiles)."""
    text = tdma_program(systems, n, dtype)
    long, steps = f"tensor<{systems}x{n}x{dtype}>", f"tensor<{n}x{systems}x{dtype}>"
    for x in "abcd":
        text = text.replace(f"%{x}: {long}", f"%{x}t: {steps}")
        text = re.sub(rf"\n *%{x}t = lax.transpose [^\n]*", "", text)
    text = re.sub(r"\n *%out = lax.transpose [^\n]*", "", text)
    text = text.replace(f"return %out : {long}", f"return %solr : {steps}")
    return text.replace(f") -> {long} {{", f") -> {steps} {{", 1)


def w2(b):
    systems = 10000 if b.args.quick else 100000
    n = 100
    for dtype in ("f32", "f64"):
        np_type = np.float32 if dtype == "f32" else np.float64
        print(f"\nW2 (seed 003): TDMA on ({systems}, {n}) {dtype}")
        a = RNG.uniform(-1, 1, (systems, n)).astype(np_type)
        c = RNG.uniform(-1, 1, (systems, n)).astype(np_type)
        bd = RNG.uniform(3, 4, (systems, n)).astype(np_type)
        d = RNG.uniform(-1, 1, (systems, n)).astype(np_type)
        ref = py.w2_numpy(*(x.astype(np.float64) for x in (a, bd, c, d)))
        rtol = 1e-4 if dtype == "f32" else 1e-10
        t = b.args.threads
        paths = [b.save(f"w2_{k}_{dtype}", x) for k, x in zip("abcd", (a, bd, c, d))]
        bytes_moved = 5 * a.nbytes
        b.guarded("W2", f"[{dtype}] copy floor (4 reads + 1 write)",
                  lambda: (cpp(b, "w2-copy", dtype, *paths)[0], ref), ref, float("inf"), t,
                  f"{bytes_moved / 1e6:.0f} MB moved", work=(bytes_moved, "GB/s"), limit=True)
        b.guarded("W2", f"[{dtype}] C++ native layout (OpenMP)",
                  lambda: cpp(b, "w2-cpp", dtype, *paths), ref, rtol, t)
        b.guarded("W2", f"[{dtype}] numpy (seed's loop)",
                  lambda: b.time_python(py.w2_numpy, a, bd, c, d), ref, rtol, 1)
        if py.numba is not None:
            b.guarded("W2", f"[{dtype}] Numba serial",
                      lambda: b.time_python(py.w2_numba_serial, a, bd, c, d), ref, rtol, 1)
            b.guarded("W2", f"[{dtype}] Numba parallel",
                      lambda: b.time_python(py.w2_numba_parallel, a, bd, c, d), ref, rtol, t)
        if b.jax_available():
            # The seed's kernel with its carry one row per system (seeds.
            # tdma_batch_carry: the program Kiln's rows compile); f64 with
            # jax_enable_x64.
            b.guarded("W2", f"[{dtype}] XLA: jax.jit seed's kernel, carry zeros(n)",
                      lambda: b.run_jax("w2-carry-row", paths, t, x64=dtype == "f64"),
                      ref, rtol, t)
            if dtype == "f32":
                # tdma_jax_kernel verbatim (f32 as the seed ran it, x64 off):
                # its carry zeros((m, n)) is [m, n], m times the work and a
                # [n, m, m] result (checked: m equal copies of the solution).
                # Seconds a call and gigabytes: 2 samples, skipped where it
                # does not fit in memory (the full run's 100000 systems:
                # ~22 GiB), so only --quick (10000 systems) has this row.
                b.guarded("W2", "[f32] XLA: jax.jit tdma_jax_kernel verbatim (carry [m, n])",
                          lambda: b.run_jax("w2-verbatim", paths, t, repeat=2, warmup=1),
                          ref, rtol, t)
        if b.kiln_available():
            src = b.tmp / f"tdma_{dtype}.mlir"
            src.write_text(tdma_program(systems, n, dtype))
            floor = b.tmp / f"copy_floor_{dtype}.mlir"
            floor.write_text(copy_floor_program((systems, n), dtype))
            paired = {"floor": (f"[{dtype}] copy floor as a lax program (paired)",
                                (bytes_moved, "GB/s"))}

            def kiln(name, source, inputs, floor_source, **options):
                return lambda: b.run_kiln(name, source, "tdma", inputs,
                                          paired=(floor_source, "floor"), **options)
            b.guarded("W2", f"[{dtype}] Kiln (seed's scans as written)",
                      kiln(f"tdma0_{dtype}", src, paths, floor), ref, rtol, t, **paired)
            b.guarded("W2", f"[{dtype}] Kiln (seed's scans, FMA contraction)",
                      kiln(f"tdma3_{dtype}", src, paths, floor, fp_contract=True),
                      ref, rtol, t, **paired)
            b.guarded("W2", f"[{dtype}] Kiln (kiln-optimize, one element per iteration)",
                      kiln(f"tdma1_{dtype}", src, paths, floor,
                           passes=("kiln-optimize",
                                   "func.func(kiln-scan-to-parallel-loops{vector-bits=0})")),
                      ref, rtol, t, **paired)
            # The diagonals stored steps-outermost (the seed's transposed
            # layout as the input): the same bytes, read a row per step.
            steps_src = b.tmp / f"tdma_steps_outer_{dtype}.mlir"
            steps_src.write_text(tdma_steps_outer_program(systems, n, dtype))
            steps_floor = b.tmp / f"copy_floor_steps_outer_{dtype}.mlir"
            steps_floor.write_text(copy_floor_program((n, systems), dtype))
            steps_paths = [b.save(f"w2t_{k}_{dtype}", x.T) for k, x in zip("abcd", (a, bd, c, d))]
            steps = kiln(f"tdma2_{dtype}", steps_src, steps_paths, steps_floor)
            b.guarded("W2", f"[{dtype}] Kiln (diagonals stored steps-outermost)",
                      lambda: (lambda r: (r[0], r[1].T, *r[2:]))(steps()),
                      ref, rtol, t, **paired)
        if b.gpu_available():
            w2_gpu(b, dtype, paths, (a, bd, c, d), ref, rtol)


def w2_gpu(b, dtype, paths, arrays, ref, rtol):
    """W2 on the GPU (threads column 0): the hand-written CUDA kernel, Kiln's
    one-kernel TDMA, JAX as the seed writes it. Inputs stay on the device;
    each time is one call up to its completion."""
    b.guarded("W2", f"[{dtype}] GPU: hand-written CUDA kernel",
              lambda: cpp(b, dtype, *paths, binary="kiln-bench-tdma-cuda"), ref, rtol, 0)
    if b.kiln_available():
        src = b.tmp / f"tdma_{dtype}.mlir"
        b.guarded("W2", f"[{dtype}] GPU: Kiln (seed's scans, one kernel)",
                  lambda: b.run_kiln(f"tdmagpu_{dtype}", src, "tdma", paths, target="gpu"),
                  ref, rtol, 0)
    if py.jax is not None:
        b.guarded("W2", f"[{dtype}] GPU: XLA jax.jit (seed's scans)",
                  lambda: b.time_jax(py.w2_jax(), *arrays), ref, rtol, 0)


# --- W3: seed 002 ------------------------------------------------------------
def mse_program(carry_shape, xs_shape):
    """Seed 002's "before" program for any shapes (scan over axis 0 of xs)."""
    t = lax_type
    slice_shape = xs_shape[1:]
    n = int(np.prod(xs_shape))
    axes = ", ".join(str(i) for i in range(len(xs_shape)))
    return f"""func.func @mse(%c0: {t(carry_shape)}, %xs: {t(xs_shape)}, %y: {t(xs_shape)}) -> tensor<f32> {{
  %c, %ys = lax.scan length = {xs_shape[0]} carry(%c0) xs(%xs)
      : ({t(carry_shape)}, {t(xs_shape)}) -> ({t(carry_shape)}, {t(xs_shape)}) {{
  ^bb0(%carry: {t(carry_shape)}, %x: {t(slice_shape)}):
    %s = lax.sin %carry : {t(carry_shape)}
    %cs = lax.cos %x : {t(slice_shape)}
    lax.yield %s, %cs : {t(carry_shape)}, {t(slice_shape)}
  }}
  %e = lax.sub %y, %ys : {t(xs_shape)}
  %f = lax.integer_pow %e y = 2 : {t(xs_shape)}
  %g = lax.reduce_sum %f axes = [{axes}] : {t(xs_shape)} -> tensor<f32>
  %n = lax.constant dense<{float(n)}> : tensor<f32>
  %h = lax.div %g, %n : tensor<f32>
  return %h : tensor<f32>
}}
"""


def read_floor_program(carry_shape, xs_shape):
    """W3's floor as a lax program on the MSE's inputs: mean((y - xs)^2)
    reads xs and y once, as the pushed-up MSE does (c0 is not read)."""
    c, x = lax_type(carry_shape), lax_type(xs_shape)
    axes = ", ".join(str(i) for i in range(len(xs_shape)))
    return f"""func.func @floor(%c0: {c}, %xs: {x}, %y: {x}) -> tensor<f32> {{
  %e = lax.sub %y, %xs : {x}
  %f = lax.mul %e, %e : {x}
  %g = lax.reduce_sum %f axes = [{axes}] : {x} -> tensor<f32>
  %n = lax.constant dense<{float(np.prod(xs_shape))}> : tensor<f32>
  %h = lax.div %g, %n : tensor<f32>
  return %h : tensor<f32>
}}
"""


def w3(b):
    for label, carry, xs_shape in (("seed shapes", (10, 5, 8), (30, 15, 12)),
                                   ("large", (256, 512), (64, 256, 512))):
        print(f"\nW3 (seed 002, {label}): carry {list(carry)}, xs and y {list(xs_shape)}")
        c0 = RNG.standard_normal(carry, dtype=np.float32)
        xs = RNG.standard_normal(xs_shape, dtype=np.float32)
        y = RNG.standard_normal(xs_shape, dtype=np.float32)
        ref = np.asarray(np.mean((y.astype(np.float64) - np.cos(xs.astype(np.float64))) ** 2))
        rtol = 1e-5
        t = b.args.threads
        wl = f"W3 {label}"
        b.guarded(wl, "numpy materialized", lambda: b.time_python(py.w3_numpy_materialized, xs, y), ref, rtol, t)
        b.guarded(wl, "numpy hand-fused", lambda: b.time_python(py.w3_numpy_fused, xs, y), ref, rtol, t)
        xp, yp, cp = b.save(f"w3_xs_{label}", xs), b.save(f"w3_y_{label}", y), b.save(f"w3_c_{label}", c0)
        b.guarded(wl, "C++ materialized", lambda: cpp(b, "w3-materialized", xp, yp), ref, rtol, t)
        b.guarded(wl, "C++ hand-fused", lambda: cpp(b, "w3-fused", xp, yp), ref, rtol, t)
        # The large case is bound by memory: its floor reads xs and y once
        # (no one-pass version can do less), also timed beside Kiln's rows.
        bytes_read = xs.nbytes + y.nbytes
        paired, floor = {}, None
        if label == "large":
            b.guarded(wl, "C++ read floor (xs and y once)",
                      lambda: (cpp(b, "w3-read", xp, yp)[0], ref), ref, float("inf"), t,
                      f"{bytes_read / 1e6:.0f} MB read", work=(bytes_read, "GB/s"), limit=True)
            floor = b.tmp / "read_floor_large.mlir"
            floor.write_text(read_floor_program(carry, xs_shape))
            paired = {"floor": ("read floor as a lax program (paired)", (bytes_read, "GB/s"))}
        if b.jax_available():
            # The seed's MSE as written (the scan's stacked ys materialised)
            # and its hand-pushed-up version, each under jax.jit.
            b.guarded(wl, "XLA: jax.jit MSE materializing (seed's before)",
                      lambda: b.run_jax("w3-before", [cp, xp, yp], t), ref, rtol, t)
            b.guarded(wl, "XLA: jax.jit MSE hand-pushed (seed's after)",
                      lambda: b.run_jax("w3-after", [cp, xp, yp], t), ref, rtol, t)
        if b.kiln_available():
            src = b.tmp / f"mse_{label.replace(' ', '_')}.mlir"
            src.write_text(mse_program(carry, xs_shape))

            def kiln(name, passes=()):
                return lambda: b.run_kiln(name, src, "mse", [cp, xp, yp], passes,
                                          paired=(floor, "floor") if floor else None)
            b.guarded(wl, "Kiln without push-up", kiln(f"mse0_{label[:4]}"), ref, rtol, t,
                      **paired)
            b.guarded(wl, "Kiln with push-up (reassociates-float)",
                      kiln(f"mse1_{label[:4]}", ("kiln-optimize{reassociate=1}",)),
                      ref, rtol, t, **paired)
            for peer, name in (("Kiln without push-up", f"mse0_{label[:4]}"),
                               ("Kiln with push-up", f"mse1_{label[:4]}")):
                peak = b.peak_heap.get(name)
                if peak is not None and peak >= 0 and b.round == 0:
                    b.memory_rows.append([wl, peer, peak])
                    print(f"  {peer:<40} extra heap per call {peak / 2**20:8.2f} MiB", flush=True)


# --- W4: seed 004 ------------------------------------------------------------
def w4(b):
    print("\nW4 (seed 004): MLP 4-64-64-2, batch 1, time per call")
    shapes = [(64, 4), (64,), (64, 64), (64,), (2, 64), (2,)]
    params = [RNG.standard_normal(s, dtype=np.float32) * 0.3 for s in shapes]
    x = RNG.standard_normal((4,), dtype=np.float32)
    ref = py.w4_numpy(*(p.astype(np.float64) for p in [x] + params))
    rtol = 1e-5
    calls = 10000

    def per_call(fn):
        def run():
            out = None
            times = []
            for _ in range(b.repeat):
                start = py.np.float64(0)
                import time
                t0 = time.perf_counter()
                for _ in range(calls):
                    out = fn()
                times.append((time.perf_counter() - t0) / calls)
            return times, out
        return run

    b.guarded("W4", "numpy", per_call(lambda: py.w4_numpy(x, *params)), ref, rtol, 1, "per call")
    if py.torch is not None:
        py.torch.set_num_threads(1)
        call = py.make_w4_torch(*params)
        tx = py.torch.from_numpy(x)
        for _ in range(100):
            call(tx)
        b.guarded("W4", "torch.jit.script", per_call(lambda: call(tx).numpy()), ref, rtol, 1, "per call")
    paths = [b.save(f"w4_{i}", p) for i, p in enumerate([x] + params)]

    def eigen():
        times, out = cpp(b, "w4-eigen", *paths)
        return [t / 1e6 for t in times], out
    b.guarded("W4", "C++ Eigen fixed-size", eigen, ref, rtol, 1, "per call")
    if b.jax_available():
        # The seed's Equinox and Flax MLPs (these weights), called from
        # Python with a device array, each call waited for: the model
        # captured by the jitted function, or passed as an argument.
        for name, peer in (("XLA: equinox, model captured (jax.jit)", "w4-eqx-closure"),
                           ("XLA: equinox, model as argument (jax.jit)", "w4-eqx-arg"),
                           ("XLA: equinox, model as argument (eqx.filter_jit)",
                            "w4-eqx-filter-jit"),
                           ("XLA: flax, params captured (jax.jit)", "w4-flax-closure"),
                           ("XLA: flax, params as argument (jax.jit)", "w4-flax-arg")):
            b.guarded("W4", name, lambda: b.run_jax(peer, paths, 1, per_call=True),
                      ref, rtol, 1, "per call")
        # Kiln from Python: kiln.jit of the same functions, numpy in and out.
        for name, peer in (("Kiln from Python: equinox, model captured (kiln.jit)",
                            "w4-kiln-eqx-closure"),
                           ("Kiln from Python: equinox, model as argument (kiln.jit)",
                            "w4-kiln-eqx-arg"),
                           ("Kiln from Python: flax, params captured (kiln.jit)",
                            "w4-kiln-flax-closure"),
                           ("Kiln from Python: flax, params as argument (kiln.jit)",
                            "w4-kiln-flax-arg")):
            b.guarded("W4", name, lambda: b.run_jax(peer, paths, 1, per_call=True),
                      ref, rtol, 1, "per call")
    if b.kiln_available():
        def kiln_api():
            return b.run_kiln("mlp", SEEDS / "seed004_mlp_eqx.mlir", "mlp", paths,
                              ("kiln-optimize",), calls_per_sample=100000)
        b.guarded("W4", "Kiln C++ API (callRaw)", kiln_api, ref, rtol, 1, "per call")


ALL = [("W1", w1), ("W2", w2), ("W3", w3), ("W4", w4)]
