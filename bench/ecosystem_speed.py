#!/usr/bin/env python3
"""Realistic-size programs of the kinds JAX users write, kiln.jit beside
jax.jit in one process (bench/run's ECOSYSTEM section; runs under the
project's .venv):

    ecosystem_speed.py [--quick] [--only NAME,...] [--json OUT] [--busy N]

For each program: the first call of each (trace, compile and run; wall and
process CPU seconds, Kiln with an empty compile cache of its own), then the
time per call, median over alternating blocks (Kiln's block, XLA's block,
...) so that a slow stretch of a shared machine falls on both alike; the
results are compared (Kiln against jax.jit, within each program's
tolerance) before any time counts. Prints a table with XLA/Kiln ratios
(above 1: Kiln faster) and their geometric mean; --json writes the rows.
--busy N keeps N other processes spinning on the CPU meanwhile (a shared
machine: how each compiler's time per call holds up when a core is taken).
"""
import argparse
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")

ROOT = Path(__file__).resolve().parent.parent


def _cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


# --- the programs -------------------------------------------------------------
def programs(quick):
    """{name: (description, function, args, rtol, atol)}: each built lazily."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    key = jax.random.PRNGKey(0)

    def normal(i, shape, scale=1.0, dtype=jnp.float32):
        return (jax.random.normal(jax.random.fold_in(key, i), shape) * scale).astype(dtype)

    def gru():
        T, B, D, H = (128, 64, 128, 128) if quick else (512, 64, 128, 128)
        xs = normal(1, (T, B, D))
        Wx, Wh = normal(2, (D, 3 * H), 0.1), normal(3, (H, 3 * H), 0.1)
        b = normal(4, (3 * H,), 0.1)

        def f(xs, Wx, Wh, b):
            def step(h, x):
                gx, gh = x @ Wx + b, h @ Wh
                r = jax.nn.sigmoid(gx[:, :H] + gh[:, :H])
                z = jax.nn.sigmoid(gx[:, H:2 * H] + gh[:, H:2 * H])
                n = jnp.tanh(gx[:, 2 * H:] + r * gh[:, 2 * H:])
                h = (1 - z) * n + z * h
                return h, h
            _, hs = lax.scan(step, jnp.zeros((B, H), xs.dtype), xs)
            return jnp.mean(hs ** 2)
        return (f"GRU, T {T}, batch {B}, hidden {H}, loss on the stacked states", f,
                (xs, Wx, Wh, b), 1e-4, 1e-6)

    def lstm_grad():
        import equinox as eqx
        T, B, D, H = (64, 32, 64, 128) if quick else (256, 32, 64, 128)
        cell = eqx.nn.LSTMCell(D, H, key=jax.random.fold_in(key, 5))
        xs = normal(6, (T, B, D))
        params, static = eqx.partition(cell, eqx.is_array)

        def loss(params, xs):
            c = eqx.combine(params, static)

            def step(state, x):
                state = jax.vmap(c)(x, state)
                return state, state[0]
            init = (jnp.zeros((B, H)), jnp.zeros((B, H)))
            _, hs = lax.scan(step, init, xs)
            return jnp.mean(hs ** 2)

        f = jax.value_and_grad(loss)
        return (f"LSTM (equinox LSTMCell), T {T}, batch {B}, hidden {H}, value_and_grad", f,
                (params, xs), 1e-3, 1e-6)

    def bf16_mlp():
        x = normal(7, (256, 512), 1.0, jnp.bfloat16)
        w1, w2 = normal(8, (512, 1024), 0.05, jnp.bfloat16), normal(9, (1024, 512), 0.05,
                                                                 jnp.bfloat16)

        def f(x, w1, w2):
            h = jax.nn.relu(jnp.dot(x, w1, preferred_element_type=jnp.float32))
            return jnp.dot(h.astype(jnp.bfloat16), w2, preferred_element_type=jnp.float32)
        return ("bf16 MLP 256x512 -> 1024 -> 512, f32 accumulation", f, (x, w1, w2), 2e-2, 1e-2)

    def gcn():
        N, E, F = 2000, 10000, 128
        senders = jax.random.randint(jax.random.fold_in(key, 10), (E,), 0, N)
        receivers = jax.random.randint(jax.random.fold_in(key, 11), (E,), 0, N)
        x = normal(12, (N, F))
        w1, w2 = normal(13, (F, F), 0.1), normal(14, (F, F), 0.1)

        def f(x, w1, w2, senders, receivers):
            deg = jax.ops.segment_sum(jnp.ones((E,)), receivers, N) + 1.0
            for w in (w1, w2):
                h = x @ w
                msg = jax.ops.segment_sum(h[senders], receivers, N)
                x = jax.nn.relu((msg + h) / deg[:, None])
            return x
        return (f"two GCN layers, segment sums ({N} nodes, {E} edges)", f,
                (x, w1, w2, senders, receivers), 1e-4, 1e-5)

    def transformer():
        import flax.linen as nn
        B, L, D = 8, 128, 256

        class Block(nn.Module):
            @nn.compact
            def __call__(self, x):
                h = nn.LayerNorm()(x)
                h = nn.MultiHeadDotProductAttention(num_heads=4)(h, h)
                x = x + h
                h = nn.LayerNorm()(x)
                h = nn.Dense(1024)(h)
                h = nn.gelu(h)
                return x + nn.Dense(D)(h)

        x = normal(15, (B, L, D))
        block = Block()
        params = block.init(jax.random.fold_in(key, 16), x)
        return (f"flax transformer block ({B} x {L} x {D}, 4 heads, MLP 1024)",
                lambda p, x: block.apply(p, x), (params, x), 1e-3, 1e-4)

    def attention():
        B, Hh, L, Dh = 8, 4, 256, 64
        q, k, v = (normal(17 + i, (B, Hh, L, Dh)) for i in range(3))

        def f(q, k, v):
            s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(Dh)
            mask = jnp.tril(jnp.ones((L, L), bool))
            s = jnp.where(mask, s, -jnp.inf)
            return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, axis=-1), v)
        return (f"causal attention ({B} x {Hh} x {L} x {Dh})", f, (q, k, v), 1e-4, 1e-5)

    def layernorm_gelu():
        x = normal(20, (512, 1024))
        g, b = normal(21, (1024,)), normal(22, (1024,))

        def f(x, g, b):
            m = x.mean(-1, keepdims=True)
            v = ((x - m) ** 2).mean(-1, keepdims=True)
            return jax.nn.gelu((x - m) * lax.rsqrt(v + 1e-5) * g + b)
        return ("layer norm + gelu (512 x 1024)", f, (x, g, b), 1e-4, 1e-5)

    def top_k():
        logits = normal(23, (8, 32000))

        def f(logits):
            values, indices = lax.top_k(logits, 50)
            return jax.nn.softmax(values), indices
        return ("top-k (k 50) over a 32,000-entry vocabulary, batch 8", f, (logits,), 1e-6, 0)

    def argsort():
        x = normal(24, (64, 4096))

        def f(x):
            order = jnp.argsort(x, axis=-1)
            return jnp.take_along_axis(x, order, axis=-1)[:, ::512], order[:, :8]
        return ("argsort of 64 rows of 4,096 (ranking, quantiles)", f, (x,), 0, 0)

    return {"gru": gru, "lstm_grad": lstm_grad, "bf16_mlp": bf16_mlp, "gcn": gcn,
            "transformer": transformer, "attention": attention,
            "layernorm_gelu": layernorm_gelu, "top_k": top_k, "argsort": argsort}


# --- measuring ----------------------------------------------------------------
def first_call(fn, args):
    import jax
    w0, c0 = time.perf_counter(), _cpu_seconds()
    out = jax.block_until_ready(fn(*args))
    return out, time.perf_counter() - w0, _cpu_seconds() - c0


def per_call(fns, args, blocks, sample_s):
    """Seconds per call of each of `fns`, median over `blocks` alternating
    blocks of about `sample_s` seconds each."""
    import jax
    calls = []
    for fn in fns:  # calls per block, from one timed call
        t0 = time.perf_counter()
        jax.block_until_ready(fn(*args))
        calls.append(max(1, int(sample_s / max(time.perf_counter() - t0, 1e-7))))
    samples = [[] for _ in fns]
    for _ in range(blocks):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            for _ in range(calls[i]):
                out = fn(*args)
            jax.block_until_ready(out)
            samples[i].append((time.perf_counter() - t0) / calls[i])
    return [statistics.median(s) for s in samples]


def compare(got, want, rtol, atol):
    import jax
    import numpy as np
    worst = 0.0
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
        g = np.asarray(g, dtype=np.float64)
        w = np.asarray(w, dtype=np.float64)
        if g.shape != w.shape:
            return False, f"shape {g.shape} vs {w.shape}"
        if rtol == 0 and atol == 0:  # exact
            if not np.array_equal(g, w, equal_nan=True):
                return False, "not equal"
            continue
        err = np.abs(g - w) / (atol + rtol * np.abs(w))
        worst = max(worst, float(err.max(initial=0.0)))
    return worst <= 1.0, f"worst {worst:.2f} x tolerance"


def host():
    """The CPU's model name (Linux), else the machine."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def run_record(source, command, jax_version, history):
    """The envelope of a run in bench/results' schema (history.py): date,
    host, commit, how it was run, and its history rows."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or None
    return {"date": time.strftime("%Y-%m-%d"), "host": f"{host()}, {os.cpu_count()} cores",
            "commit": commit, "source": source, "command": command,
            "notes": f"jax {jax_version}", "rows": history}


def record(rows, args, jax_version):
    """A run in bench/results' schema (history.py): its history rows (time
    per call and first-call CPU per program, kiln/peer ratios) and the raw
    rows under "ecosystem"."""
    history = []
    for r in rows:
        for metric, kiln, xla in (("time per call", "kiln_s", "xla_s"),
                                  ("first call CPU", "kiln_first_cpu_s", "xla_first_cpu_s")):
            if kiln in r and xla in r:
                history.append({
                    "workload": "ECOSYSTEM " + r["program"]
                    + (f" ({args.busy} busy)" if args.busy else ""), "metric": metric,
                    "kiln": r[kiln], "peer": r[xla], "ratio": r[kiln] / r[xla],
                    "ratio_is": "kiln/peer", "unit": "s", "kiln_variant": "kiln.jit",
                    "peer_name": "jax.jit", "note": r.get("description", "")})
    command = ("bench/ecosystem_speed.py" + (" --quick" if args.quick else "")
               + (f" --busy {args.busy}" if args.busy else ""))
    return {**run_record("bench/ecosystem_speed.py", command, jax_version, history),
            "ecosystem": rows}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="shorter sequences, fewer blocks")
    parser.add_argument("--only", default="", help="comma-separated program names")
    parser.add_argument("--json", help="write the rows here")
    parser.add_argument("--busy", type=int, default=0,
                        help="other processes spinning on the CPU while this runs")
    args = parser.parse_args()
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(args.busy)]
    try:
        return run(args)
    finally:
        for p in busy:
            p.kill()


def run(args):

    import jax
    import kiln

    table = programs(args.quick)
    only = [n for n in args.only.split(",") if n]
    blocks, sample_s = (3, 0.2) if args.quick else (7, 0.4)
    rows = []
    print(f"ECOSYSTEM: kiln.jit vs jax.jit, one process ({platform.processor() or platform.machine()},"
          f" {os.cpu_count()} cores{f', {args.busy} busy processes beside' if args.busy else ''});"
          f" per call: median of {blocks} alternating blocks", flush=True)
    print(f"{'program':<16} {'XLA/call':>10} {'Kiln/call':>10} {'ratio':>6}   "
          f"{'XLA 1st (cpu)':>15} {'Kiln 1st (cpu)':>15}  check")
    for name, make in table.items():
        if only and name not in only:
            continue
        row = {"program": name}
        try:
            description, f, fargs, rtol, atol = make()
            row["description"] = description
            with tempfile.TemporaryDirectory() as cache:
                kfn, xfn = kiln.jit(f, cache_dir=cache), jax.jit(f)
                want, xw, xc = first_call(xfn, fargs)
                got, kw, kc = first_call(kfn, fargs)
                ok, note = compare(got, want, rtol, atol)
                row.update(xla_first_s=xw, xla_first_cpu_s=xc, kiln_first_s=kw,
                           kiln_first_cpu_s=kc, ok=ok, check=note)
                if ok:
                    kt, xt = per_call([kfn, xfn], fargs, blocks, sample_s)
                    row.update(kiln_s=kt, xla_s=xt, ratio=xt / kt)
        except Exception as e:  # noqa: BLE001 -- a failing program is a row, not the end
            row.update(ok=False, check=f"{type(e).__name__}: {str(e).splitlines()[0][:120]}")
        rows.append(row)

        def ms(key):
            return f"{row[key] * 1e3:9.2f}ms" if key in row else f"{'-':>11}"
        first = (f"{row['xla_first_s']:6.2f}s ({row['xla_first_cpu_s']:5.2f})"
                 f" {row['kiln_first_s']:6.2f}s ({row['kiln_first_cpu_s']:5.2f})"
                 if "kiln_first_s" in row else f"{'':>31}")
        ratio = f"{row['ratio']:6.2f}" if "ratio" in row else f"{'-':>6}"
        print(f"{name:<16} {ms('xla_s')} {ms('kiln_s')} {ratio}   {first}  "
              f"{'ok' if row['ok'] else 'FAILED'}: {row['check']}", flush=True)
    ratios = [r["ratio"] for r in rows if "ratio" in r]
    if ratios:
        geo = geomean(ratios)
        print(f"geometric mean XLA/Kiln per call over {len(ratios)} programs: {geo:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(record(rows, args, jax.__version__), indent=1)
                                   + "\n")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
