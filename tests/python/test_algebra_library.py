"""rules/library/algebra/ in kiln.jit, as users load it: the rules fire on
jnp code as written (calls, per-row loops), only with the tags they need,
and the results match jax.jit."""

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import kiln

LIBRARY = str(Path(__file__).resolve().parents[2] / "rules" / "library" / "algebra")
RNG = np.random.default_rng(0)


def fired(fn, *args):
    return {n for n, c in fn.lower(*args).rule_stats().items() if c}


def test_exact_rules_run_without_tags(cache_dir):
    """Exact rules (opening jnp.trace's call, a per-row loop) need no tag;
    the inexact trace rule waits for reassociates-float."""
    A = RNG.standard_normal((16, 8)).astype(np.float32)
    B = RNG.standard_normal((16, 8)).astype(np.float32)

    def trace(A, B):
        return jnp.trace(A @ B.T)

    plain = kiln.jit(trace, rules=LIBRARY, cache_dir=cache_dir)
    assert "inline-small-call" in fired(plain, A, B)
    assert "trace-of-matmul" not in fired(plain, A, B)
    tagged = kiln.jit(trace, rules=LIBRARY, tags=["reassociates-float"], cache_dir=cache_dir)
    assert "trace-of-matmul" in fired(tagged, A, B)
    np.testing.assert_allclose(tagged(A, B), jax.jit(trace)(A, B), rtol=1e-5)

    def rows(A):
        return jnp.stack([jnp.tanh(A[i] * 2.0 + 1.0) for i in range(A.shape[0])])

    rowwise = kiln.jit(rows, rules=LIBRARY, cache_dir=cache_dir)
    assert "concatenate-of-elementwise" in fired(rowwise, A)
    assert "lax.slice" not in str(rowwise.lower(A).optimized())
    np.testing.assert_array_equal(rowwise(A), jax.jit(rows)(A))


def test_assumptions_are_opt_in(cache_dir):
    """exp(log a - log b) -> a / b needs changes-precision and
    assumes-positive both."""
    a = (RNG.random(64) + 0.5).astype(np.float32)
    b = (RNG.random(64) + 0.5).astype(np.float32)

    def f(a, b):
        return jnp.exp(jnp.log(a) - jnp.log(b))

    half = kiln.jit(f, rules=LIBRARY, tags=["changes-precision"], cache_dir=cache_dir)
    assert "exp-log-ratio" not in fired(half, a, b)
    full = kiln.jit(f, rules=LIBRARY, tags=["changes-precision", "assumes-positive"],
                    cache_dir=cache_dir)
    assert "exp-log-ratio" in fired(full, a, b)
    assert "lax.exp" not in str(full.lower(a, b).optimized())
    np.testing.assert_allclose(full(a, b), jax.jit(f)(a, b), rtol=1e-6)


def test_diag_and_stack(cache_dir):
    """jnp.diag(A @ B) (a call, a cond on a constant, a gather) becomes a
    sum of a product; jnp.max of a stack a chain of max (exact)."""
    A = RNG.standard_normal((12, 7)).astype(np.float32)
    B = RNG.standard_normal((7, 12)).astype(np.float32)

    def diag(A, B):
        return jnp.diag(A @ B)

    fn = kiln.jit(diag, rules=LIBRARY, tags=["reassociates-float"], cache_dir=cache_dir)
    assert "diagonal-of-matmul-transposed" in fired(fn, A, B)
    assert "dot_general" not in str(fn.lower(A, B).optimized())
    np.testing.assert_allclose(fn(A, B), jax.jit(diag)(A, B), rtol=1e-5, atol=1e-5)

    def stacked(a, b, c):
        return jnp.max(jnp.stack([a, b, c]), axis=0)

    x, y, z = (RNG.standard_normal(50).astype(np.float32) for _ in range(3))
    fn = kiln.jit(stacked, rules=LIBRARY, cache_dir=cache_dir)
    assert "max-of-stack-of-3" in fired(fn, x, y, z)
    np.testing.assert_array_equal(fn(x, y, z), jax.jit(stacked)(x, y, z))


def test_output_projection_sinks_and_the_states_are_not_stacked(cache_dir):
    """rules/library/loops.yaml's sink-ys-projection with the push-up of
    scan-pushup.yaml: an RNN whose loss projects the stacked states computes
    the projection, its square and its sum per step (no stacked state left in
    the program), and matches jax.jit; without reassociates-float the sum
    stays outside, the projection still sinks (exact)."""
    loops = str(Path(LIBRARY).parent / "loops.yaml")
    pushup = str(Path(LIBRARY).parent / "scan-pushup.yaml")
    h0 = RNG.standard_normal((8, 16)).astype(np.float32)
    xs = RNG.standard_normal((12, 8, 16)).astype(np.float32)
    w = RNG.standard_normal((16, 4)).astype(np.float32)

    def loss(h0, xs, w):
        def step(h, x):
            h = jnp.tanh(h + x)
            return h, h
        _, hs = jax.lax.scan(step, h0, xs)
        return jnp.sum((hs @ w) ** 2)

    want = np.asarray(jax.jit(loss)(h0, xs, w))
    exact = kiln.jit(loss, rules=[loops, pushup], cache_dir=cache_dir)
    assert "sink-ys-projection" in fired(exact, h0, xs, w)
    np.testing.assert_allclose(exact(h0, xs, w), want, rtol=1e-5)
    summed = kiln.jit(loss, rules=[loops, pushup], tags=["reassociates-float"],
                      cache_dir=cache_dir)
    assert {"sink-ys-projection", "sink-elementwise-into-scan"} <= fired(summed, h0, xs, w)
    text = summed.lower(h0, xs, w).compile().as_text()
    results = text.split("lax.scan")[1].split("->")[1].split("{")[0]
    assert "tensor<12x8x16xf32>" not in results, text
    np.testing.assert_allclose(summed(h0, xs, w), want, rtol=1e-5)
