"""JAX's composite primitives (XLA compiles them from a JAX function, their
`mlir.lower_fun` lowering) through kiln.jit, against jax.jit: Kiln inlines
the same function (kiln/_inline_primitives.py), so results agree to
rounding, random samples included."""
import numpy as np
import pytest

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
from jax import lax

import kiln


def _check(f, *args, tol=2e-5):
    got = jax.tree_util.tree_leaves(kiln.jit(f, cache_dir=None)(*args))
    want = jax.tree_util.tree_leaves(jax.jit(f)(*args))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def test_random_gamma_beta_dirichlet():
    def f(key, a):
        k1, k2, k3 = jax.random.split(key, 3)
        return (jax.random.gamma(k1, a, (512,) + a.shape),
                jax.random.beta(k2, a, 2.0 * a, (256,) + a.shape),
                jax.random.dirichlet(k3, a, (128,)))

    _check(f, jax.random.key(3), np.array([0.3, 1.0, 2.5, 9.0], np.float32), tol=1e-4)


def test_special_functions():
    x = np.linspace(0.05, 12.0, 301).astype(np.float32)
    f = lambda v: (jss.i0e(v), jss.i0e(-v), jss.gammainc(2.5, v), jss.gammaincc(0.7, v),
                   jss.betainc(2.0, 3.5, v / 12.5))
    _check(f, x, tol=1e-5)


def test_tridiagonal_solve():
    rng = np.random.default_rng(0)
    n = 64
    dl, du = rng.standard_normal((2, 3, n)).astype(np.float32)
    d = (4.0 + rng.random((3, n))).astype(np.float32)
    dl[:, 0] = 0
    du[:, -1] = 0
    b = rng.standard_normal((3, n, 2)).astype(np.float32)
    _check(lambda dl, d, du, b: lax.linalg.tridiagonal_solve(dl, d, du, b), dl, d, du, b, tol=1e-4)


def test_a_primitive_kiln_reads_is_not_inlined():
    # cumsum has a lower_fun lowering in JAX but an importer handler in
    # Kiln: the program keeps it.
    lowered = kiln.jit(lambda v: jnp.cumsum(v)).lower(np.ones(8, np.float32))
    assert "cumsum" in lowered.jaxpr
