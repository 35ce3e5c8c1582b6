"""kiln.jit's `threads`: the runtime GEMM's threads per call, one thread
staying one thread, and jax.jit's results whatever the count."""

import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import kiln


def rnn(h0, xs, w, u):
    """A GRU-like recurrence: per step a [64,128] x [128,384] product, over
    the runtime GEMM's parallel threshold (2 m n k >= 2^22 flops)."""
    def step(h, x):
        g = jnp.tanh(x @ w + h @ u)
        return g[:, :128] * h + g[:, 128:256], g[:, 256:].sum(axis=1)
    return lax.scan(step, h0, xs)


def args():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((64, 128), np.float32) * 0.5,
            rng.standard_normal((12, 64, 96), np.float32),
            rng.standard_normal((96, 384), np.float32) * 0.1,
            rng.standard_normal((128, 384), np.float32) * 0.1)


@pytest.mark.parametrize("threads", [None, 1, 2, 3, 8])
def test_results_match_jax_at_every_thread_count(threads):
    a = args()
    want = jax.jit(rnn)(*a)
    got = kiln.jit(rnn, threads=threads)(*a)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-5)


def test_one_thread_starts_no_thread(python_env):
    """threads=1: the GEMM on the calling thread and the compiled parallel
    loops too (no worker): the process has as many threads after the calls
    as before them (with the default, the first call starts the pool's
    workers)."""
    script = """
import os, numpy as np, jax, jax.numpy as jnp, kiln
def f(a, b, x):
    return jnp.tanh(a @ b) , jnp.exp(x) * 2.0 + x   # a big GEMM, a big elementwise op
a = np.ones((512, 512), np.float32); x = np.ones((1 << 20,), np.float32)
jax.jit(f)(a, a, x)  # JAX's own threads first
compiled = kiln.jit(f, threads=1, cache_dir=None).lower(a, a, x).compile()
before = len(os.listdir("/proc/self/task"))
for _ in range(3):
    compiled(a, a, x)
print(before, len(os.listdir("/proc/self/task")))
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300, env=python_env)
    assert run.returncode == 0, run.stderr[-2000:]
    before, after = map(int, run.stdout.split())
    assert after == before, (before, after)


@pytest.mark.parametrize("threads,error", [(0, ValueError), (-2, ValueError), ("2", TypeError),
                                           (True, TypeError), (1.5, TypeError)])
def test_bad_thread_counts_are_refused(threads, error):
    with pytest.raises(error, match="threads must be a positive int or None"):
        kiln.jit(lambda x: x, threads=threads)
