"""Kiln from Python in one page (docs/python.md has the whole tutorial).

    .venv/bin/python examples/python/quickstart.py

Seed 002's loss, compiled by kiln.jit with the standard library's push-up
rules, then handed back to JAX by kiln.rewrite; seed 004's MLP per call.
"""

import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import kiln

RULES = Path(__file__).resolve().parents[1] / "rules" / "scan_pushup.yaml"


def mse(x1, x2, y):  # seed 002, verbatim
    return jnp.square(y - lax.scan(lambda c, xs: (jnp.sin(c), jnp.cos(xs)), x1, x2)[1]).mean()


r = np.random.default_rng(0)
x1, x2, y = (r.standard_normal(s).astype(np.float32) for s in [(10, 5, 8), (30, 15, 12), (30, 15, 12)])

f = kiln.jit(mse, rules=RULES, tags=["reassociates-float"], optimize=False)
print("== the loss after the push-up rules (a running sum carried by the scan):")
print(f.lower(x1, x2, y).optimized().as_text())
print(f"kiln.jit: {float(f(x1, x2, y)):.7f}   jax.jit: {float(jax.jit(mse)(x1, x2, y)):.7f}")

pushed = jax.jit(kiln.rewrite(mse, rules=RULES, tags=["reassociates-float"]))
before = jax.jit(mse).lower(x1, x2, y).compile().memory_analysis().temp_size_in_bytes
after = pushed.lower(x1, x2, y).compile().memory_analysis().temp_size_in_bytes
print(f"kiln.rewrite under jax.jit: {float(pushed(x1, x2, y)):.7f}; "
      f"XLA's temporaries {before} -> {after} bytes")


def mlp(params, x):  # seed 004's shape: 4-64-64-2, batch 1
    for i, (w, b) in enumerate(params):
        x = x @ w + b
        x = jax.nn.relu(x) if i < 2 else x
    return x


params = [(r.standard_normal((m, n)).astype(np.float32) * 0.3, np.zeros(n, np.float32))
          for m, n in [(4, 64), (64, 64), (64, 2)]]
x = np.ones(4, np.float32)
for name, fn in (("jax.jit", jax.jit(lambda x: mlp(params, x))), ("kiln.jit", kiln.jit(lambda x: mlp(params, x)))):
    jax.block_until_ready(fn(x))
    t = time.perf_counter()
    for _ in range(20000):
        jax.block_until_ready(fn(x)) if name == "jax.jit" else fn(x)
    print(f"seed 004 MLP per call, {name}: {(time.perf_counter() - t) / 20000 * 1e6:.2f} us")
