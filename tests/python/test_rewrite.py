"""kiln.rewrite: the rules applied, the result evaluated by JAX. Oracles:
jax.jit of the original function (values, gradients), XLA's own memory
analysis, the compiled HLO's shardings."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kiln

ROOT = Path(__file__).resolve().parents[2]
PUSHUP = ROOT / "examples" / "rules" / "scan_pushup.yaml"
UNSUPPORTED = {line.split()[0] for line in (ROOT / "tests/jax/expected_unsupported.txt").read_text().splitlines()
               if line.strip() and not line.startswith("#")}


def leaves_close(got, want, rtol=1e-5, atol=1e-6):
    g, gt = jax.tree_util.tree_flatten(got)
    w, wt = jax.tree_util.tree_flatten(want)
    assert gt == wt
    for a, b in zip(g, w):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype
        if a.dtype.kind in "fc":
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
        else:
            np.testing.assert_array_equal(a, b)


def test_seed002_pushup_inside_jax(programs):
    """Seed 002's MSE with the push-up rules: the same loss as float64, the
    stacked ys gone from XLA's temporaries, the same gradient."""
    mse = programs["seed002_mse_before"].fn
    args = programs["seed002_mse_before"].args()
    pushed = kiln.rewrite(mse, rules=PUSHUP, tags=("reassociates-float",))

    text = str(pushed.lower(*args))
    assert "lax.scan" in text and "tensor<30x15x12xf32> -> tensor<f32>" not in text

    loss = jax.jit(pushed)(*args)
    x1, x2, y = (a.astype(np.float64) for a in args)
    ys = np.cos(x2)  # the scan's stacked output, in float64
    want = np.mean(np.square(y - ys))
    assert abs(float(loss) - want) <= 1e-6 * max(1.0, abs(want))

    stacked = 30 * 15 * 12 * 4
    before = jax.jit(mse).lower(*args).compile().memory_analysis().temp_size_in_bytes
    after = jax.jit(pushed).lower(*args).compile().memory_analysis().temp_size_in_bytes
    # Before: the stacked ys (21600 bytes) plus a little; after: only the
    # loop's own state (the running sum, the counter: ~160 bytes).
    assert before >= stacked and after <= stacked // 100, (before, after)

    g_want = jax.grad(mse, argnums=(0, 1, 2))(*args)
    g_got = jax.jit(jax.grad(pushed, argnums=(0, 1, 2)))(*args)
    leaves_close(g_got, g_want, rtol=1e-4, atol=1e-7)


def test_composes_with_vmap_and_grad():
    def f(x, w):
        return jnp.sum(jnp.tanh(x @ w) ** 2)

    g = kiln.rewrite(f, optimize=True)
    r = np.random.default_rng(1)
    x = r.standard_normal((7, 3, 4)).astype(np.float32)
    w = r.standard_normal((4, 5)).astype(np.float32)
    leaves_close(jax.vmap(g, in_axes=(0, None))(x, w), jax.vmap(f, in_axes=(0, None))(x, w))
    leaves_close(jax.grad(g, argnums=1)(x[0], w), jax.grad(f, argnums=1)(x[0], w), rtol=1e-5)


def test_every_corpus_program_evaluates_as_jax(programs):
    """Without rules, kiln.rewrite(f) must compute what f computes: the
    import and the mapping back to JAX's primitives lose nothing. Every
    corpus program Kiln imports, against jax.jit."""
    checked = 0
    for name, p in programs.items():
        if name in UNSUPPORTED:
            continue
        args = p.args()
        want = jax.jit(p.fn)(*args)
        got = jax.jit(kiln.rewrite(p.fn))(*args)
        try:
            leaves_close(got, want, rtol=1e-5, atol=1e-6)
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from None
        checked += 1
    assert checked >= 80


SHARDED = textwrap.dedent("""
    import os
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    os.environ["JAX_PLATFORMS"] = "cpu"
    import jax, jax.numpy as jnp, numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    import kiln

    def loss(w, x, y):
        def step(c, xy):
            xi, yi = xy
            return c, jnp.square(jnp.tanh(xi @ w) - yi)
        return jax.lax.scan(step, 0.0, (x, y))[1].sum()

    assert len(jax.devices()) == 8
    r = np.random.default_rng(0)
    w = r.standard_normal((16, 16)).astype(np.float32)
    x = r.standard_normal((4, 64, 16)).astype(np.float32)
    y = r.standard_normal((4, 64, 16)).astype(np.float32)
    pushed = kiln.rewrite(loss, rules=os.environ["PUSHUP"], tags=("reassociates-float",))
    mesh = Mesh(np.array(jax.devices()), ("batch",))
    xs = jax.device_put(x, NamedSharding(mesh, P(None, "batch")))
    ys = jax.device_put(y, NamedSharding(mesh, P(None, "batch")))
    f = jax.jit(pushed)
    hlo = f.lower(w, xs, ys).compile().as_text()
    out = f(w, xs, ys)
    want = jax.jit(loss)(w, x, y)
    print("sharded-ok" if ("sharding" in hlo and np.allclose(out, want, rtol=1e-5)) else "FAILED",
          len(out.sharding.device_set) if hasattr(out, "sharding") else 0)
""")


def test_rewritten_function_runs_sharded_on_8_devices():
    env = dict(os.environ, PUSHUP=str(PUSHUP))
    proc = subprocess.run([sys.executable, "-c", SHARDED], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "sharded-ok" in proc.stdout, proc.stdout + proc.stderr[-2000:]
