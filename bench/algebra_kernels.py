#!/usr/bin/env python3
"""The algebra library's kernels: jax.numpy functions as users write them,
at realistic sizes, each containing a pattern that rules/library/algebra/
rewrites into less work (bench/run's ALGEBRA section; runs under the
project's .venv):

    algebra_kernels.py [--quick] [--only NAME,...] [--json OUT]

For each kernel, in one process: kiln.jit without the library, kiln.jit
with it (rules=rules/library/algebra, tags: the ones the kernel's rule
needs, which the no-library run gets too, so that Kiln's own rewrites are
the same), and jax.jit. Time per call is the median over alternating blocks
(base, library, XLA, base, ...). Both Kiln results are compared with
jax.jit's within the kernel's tolerance before any time counts; the
library's rules must fire (rule_stats) for a row to count. Prints the
ratios (base/library: the library's speed-up; XLA/library) and their
geometric means; --json writes the rows.
"""
import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ecosystem_speed import geomean, host, per_call, run_record  # noqa: E402  (one copy each)

os.environ.setdefault("JAX_PLATFORMS", "cpu")

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "rules" / "library" / "algebra"

RA = ("reassociates-float",)
CP = ("changes-precision",)
POS = ("changes-precision", "assumes-positive")
FIN = ("changes-precision", "assumes-finite")
NOOVF = ("changes-precision", "assumes-no-overflow")
POSNOOVF = ("changes-precision", "assumes-positive", "assumes-no-overflow")
NONNEG = ("changes-precision", "assumes-nonnegative")


def kernels(quick):
    """{name: (tags, function, args, rtol, atol)}: args built lazily."""
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    N = 1_000_000 if quick else 4_000_000     # transcendental elementwise kernels
    # Cheap elementwise ops (powers, products) are bound by memory at 4e6
    # elements, where removing a multiplication changes no time; at 1e5 the
    # smaller loop the library leaves falls under the CPU backend's
    # parallel-work threshold and runs on one thread (slower on 2 cores
    # than the original's two). These run at 1e6 elements.
    S = 1_000_000
    M = 512 if quick else 1024                # matrices
    R = 64 if quick else 256                  # rows of the per-row loops

    def normal(i, shape):
        return jax.random.normal(jax.random.fold_in(key, i), shape, jnp.float32)

    def positive(i, shape):
        return jax.random.uniform(jax.random.fold_in(key, i), shape, jnp.float32, 0.5, 2.0)

    vec = lambda i: normal(i, (N,))
    pvec = lambda i: positive(i, (N,))
    svec = lambda i: normal(i, (S,))
    spvec = lambda i: positive(i, (S,))
    mat = lambda i, m=M, n=M: normal(i, (m, n))

    k = {}
    # exp/log and pow/sqrt identities.
    k["exp_log_ratio"] = (POS, lambda a, b: jnp.exp(jnp.log(a) - jnp.log(b)), lambda: (pvec(1), pvec(2)), 1e-5, 0)
    k["log_sum_of_logs"] = (POSNOOVF, lambda a, b: jnp.log(a) + jnp.log(b), lambda: (pvec(1), pvec(2)), 1e-5, 1e-6)
    k["exp_product"] = (NOOVF, lambda a, b: jnp.exp(a) * jnp.exp(b), lambda: (vec(1), vec(2)), 1e-5, 0)
    k["log_ratio"] = (POSNOOVF, lambda a, b: jnp.log(a) - jnp.log(b), lambda: (pvec(1), pvec(2)), 1e-5, 1e-6)
    k["exp_over_exp"] = (NOOVF, lambda a, b: jnp.exp(a) / jnp.exp(b), lambda: (vec(1), vec(2)), 1e-5, 0)
    k["x_over_sqrt_x"] = (POS, lambda x: x / jnp.sqrt(x), lambda: (spvec(1),), 1e-6, 0)
    k["sqrt_pow4"] = (NONNEG, lambda x: jnp.sqrt(x) ** 4, lambda: (spvec(1),), 1e-5, 0)
    k["pow6_over_pow4"] = (POS, lambda x: x ** 6 / x ** 4, lambda: (spvec(1),), 1e-5, 0)
    k["pow_float_exponent"] = (CP, lambda x: x ** 3.0 + x ** 2.0, lambda: (vec(1),), 1e-5, 1e-6)
    # Reductions of products that are contractions.
    k["trace_A_B"] = (RA, lambda A, B: jnp.trace(A @ B), lambda: (mat(1), mat(2)), 1e-4, 1e-1)
    k["trace_A_Bt"] = (RA, lambda A, B: jnp.trace(A @ B.T), lambda: (mat(1), mat(2)), 1e-4, 1e-1)
    k["diag_A_Bt"] = (RA, lambda A, B: jnp.diagonal(A @ B.T), lambda: (mat(1), mat(2)), 1e-4, 1e-3)
    k["diag_A_B"] = (RA, lambda A, B: jnp.diag(A @ B), lambda: (mat(1), mat(2)), 1e-4, 1e-3)
    k["sum_diag_A_B"] = (RA, lambda A, B: jnp.sum(jnp.diag(A @ B)), lambda: (mat(1), mat(2)), 1e-4, 1e-1)
    k["outer_sum_matmul"] = (RA, lambda A, B: jnp.sum(A[:, :, None] * B[None, :, :], axis=1), lambda: (mat(1, M // 4, M // 4), mat(2, M // 4, M // 4)), 1e-4, 1e-3)
    # Reductions over a stack or a concatenation.
    k["sum_of_stack"] = (RA, lambda a, b, c: jnp.sum(jnp.stack([a, b, c]), axis=0), lambda: (vec(1), vec(2), vec(3)), 1e-6, 1e-6)
    k["max_of_stack"] = ((), lambda a, b, c, d: jnp.max(jnp.stack([a, b, c, d]), axis=0), lambda: (vec(1), vec(2), vec(3), vec(4)), 0, 0)
    k["mean_of_array"] = (RA, lambda a, b: jnp.mean(jnp.array([a, b]), axis=0), lambda: (vec(1), vec(2)), 1e-6, 1e-6)
    k["sum_of_concat"] = (RA, lambda A, B: jnp.sum(jnp.concatenate([A, B], axis=0), axis=0), lambda: (mat(1, 2 * M, M), mat(2, 2 * M, M)), 1e-4, 1e-3)
    # Factoring and collecting.
    k["factor_common"] = (RA, lambda a, b, c: a * b + c * b, lambda: (svec(1), svec(2), svec(3)), 1e-5, 1e-6)
    k["factor_divisor"] = (("reassociates-float", "assumes-positive", "assumes-no-overflow"), lambda a, b, s: a / s + b / s, lambda: (spvec(1), spvec(2), spvec(3)), 1e-5, 0)
    k["collect_x_3x"] = (RA, lambda x: x + x + x + 3 * x, lambda: (svec(1),), 1e-6, 1e-6)
    k["repeated_product"] = (CP, lambda x: x * x * x * x * x * x * x * x, lambda: (svec(1),), 1e-5, 1e-6)
    # Scalars past contractions and reductions.
    k["scaled_matmul"] = (RA + ("assumes-finite",), lambda B, C: (0.37 * B) @ C, lambda: (mat(1, 4 * M, M), mat(2, M, M // 8)), 1e-4, 1e-3)
    k["softmax_shift"] = ((), lambda X: jnp.max(X - 3.0, axis=1), lambda: (mat(1, 4 * M, M),), 0, 0)
    # Per-row loops stacked into one op.
    k["rowwise_loop"] = ((), lambda A: jnp.stack([jnp.tanh(A[i] * 2.0 + 1.0) for i in range(A.shape[0])]), lambda: (mat(1, R, 4096),), 0, 0)
    k["rowwise_loop_array"] = ((), lambda A: jnp.array([jnp.exp(-A[i]) for i in range(A.shape[0])]), lambda: (mat(1, R, 4096),), 0, 0)
    return k


def compare(got, want, rtol, atol):
    import numpy as np
    g = np.asarray(got, dtype=np.float64)
    w = np.asarray(want, dtype=np.float64)
    if g.shape != w.shape:
        return False, f"shape {g.shape} vs {w.shape}"
    if rtol == 0 and atol == 0:
        return bool(np.array_equal(g, w, equal_nan=True)), "exact"
    err = float((np.abs(g - w) / (atol + rtol * np.abs(w))).max(initial=0.0))
    return err <= 1.0, f"worst {err:.2f} x tol"


def record(rows, args, jax_version):
    """A run in bench/results' schema (history.py): per kernel the time per
    call with the library against Kiln without it and against jax.jit; the
    raw rows under "algebra"."""
    history = []
    for r in rows:
        if "lib_s" not in r:
            continue
        for peer, key in (("kiln.jit without the library", "base_s"), ("jax.jit", "xla_s")):
            history.append({"workload": "ALGEBRA " + r["kernel"], "metric": "time per call",
                            "kiln": r["lib_s"], "peer": r[key], "ratio": r["lib_s"] / r[key],
                            "ratio_is": "kiln/peer", "unit": "s",
                            "kiln_variant": "kiln.jit, rules/library/algebra, tags "
                            + (",".join(r["tags"]) or "(exact only)"),
                            "peer_name": peer, "note": ""})
    command = "bench/algebra_kernels.py" + (" --quick" if args.quick else "")
    return {**run_record("bench/algebra_kernels.py", command, jax_version, history),
            "algebra": rows}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller arrays, fewer blocks")
    parser.add_argument("--only", default="", help="comma-separated kernel names")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()

    import jax
    import kiln

    table = kernels(args.quick)
    only = [n for n in args.only.split(",") if n]
    blocks, sample_s = (3, 0.15) if args.quick else (7, 0.3)
    rows = []
    print(f"ALGEBRA: kiln.jit without and with rules/library/algebra, and jax.jit, one process "
          f"({host()}, {os.cpu_count()} cores); per call: median of {blocks} alternating blocks")
    print(f"{'kernel':<20} {'Kiln/call':>10} {'+library':>10} {'XLA/call':>10} "
          f"{'speed-up':>8} {'vs XLA':>7}  tags; check")
    for name, (tags, f, make_args, rtol, atol) in table.items():
        if only and name not in only:
            continue
        row = {"kernel": name, "tags": list(tags)}
        try:
            fargs = make_args()
            with tempfile.TemporaryDirectory() as cache:
                base = kiln.jit(f, tags=tags, cache_dir=cache)
                lib = kiln.jit(f, rules=str(LIBRARY), tags=tags, cache_dir=cache)
                xla = jax.jit(f)
                want = jax.block_until_ready(xla(*fargs))
                notes = []
                ok = True
                for label, fn in (("base", base), ("library", lib)):
                    good, note = compare(fn(*fargs), want, rtol, atol)
                    ok &= good
                    notes.append(f"{label} {note}")
                stats = lib.lower(*fargs).rule_stats()
                fired = sorted(n for n, c in stats.items() if c)
                row.update(rules=fired, ok=ok and bool(fired), check="; ".join(notes))
                if not fired:
                    row["check"] += "; no rule fired"
                if row["ok"]:
                    bt, lt, xt = per_call([base, lib, xla], fargs, blocks, sample_s)
                    row.update(base_s=bt, lib_s=lt, xla_s=xt, speedup=bt / lt, vs_xla=xt / lt)
        except Exception as e:  # noqa: BLE001 -- a failing kernel is a row
            row.update(ok=False, check=f"{type(e).__name__}: {str(e).splitlines()[0][:120]}")
        rows.append(row)

        def ms(key):
            return f"{row[key] * 1e3:8.3f}ms" if key in row else f"{'-':>10}"
        sp = f"{row['speedup']:8.2f}" if "speedup" in row else f"{'-':>8}"
        vx = f"{row['vs_xla']:7.2f}" if "vs_xla" in row else f"{'-':>7}"
        print(f"{name:<20} {ms('base_s')} {ms('lib_s')} {ms('xla_s')} {sp} {vx}  "
              f"{','.join(tags) or 'exact'}; {'ok' if row['ok'] else 'FAILED'}: {row['check']}",
              flush=True)
    sp = [r["speedup"] for r in rows if "speedup" in r]
    vx = [r["vs_xla"] for r in rows if "vs_xla" in r]
    if sp:
        print(f"geometric mean over {len(sp)} kernels: library speed-up {geomean(sp):.2f}x "
              f"(min {min(sp):.2f}), library vs jax.jit {geomean(vx):.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps(record(rows, args, jax.__version__), indent=1) + "\n")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
