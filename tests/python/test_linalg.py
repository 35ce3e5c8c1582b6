"""Cholesky factors and triangular solves (jnp.linalg, jax.scipy.linalg,
jax.lax.linalg) through kiln.jit against jax.jit (LAPACK) and a float64
reference."""
import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
from jax.scipy.linalg import cho_solve, solve_triangular

import kiln


def _spd(rng, batch, n, dtype=np.float32):
    a = rng.normal(size=batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def _close(got, want, ref64=None, tol=2e-5):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)
    if ref64 is not None:  # Kiln no farther from float64 than XLA, within rounding
        err_k = np.abs(got - ref64).max()
        err_x = np.abs(want - ref64).max()
        assert err_k <= 4 * err_x + 1e-6 * scale


@pytest.mark.parametrize("n", [1, 7, 64, 130])
def test_cholesky_and_solves_match_jax(n):
    rng = np.random.default_rng(n)
    a, b = _spd(rng, (2,), n), rng.normal(size=(2, n, 3)).astype(np.float32)

    def f(a, b):
        l = jnp.linalg.cholesky(a)
        return (l, solve_triangular(l, b, lower=True),
                solve_triangular(l, b, lower=True, trans=1),
                jax.vmap(lambda l, b: cho_solve((l, True), b))(l, b))

    got, want = kiln.jit(f, cache_dir=None)(a, b), jax.jit(f)(a, b)
    l64 = np.linalg.cholesky(a.astype(np.float64))
    x64 = np.linalg.solve(a.astype(np.float64), b.astype(np.float64))
    _close(got[0], want[0], l64)
    _close(got[1], want[1])
    _close(got[2], want[2])
    _close(got[3], want[3], x64, tol=1e-4)


@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a", [True, False])
@pytest.mark.parametrize("unit_diagonal", [True, False])
def test_triangular_solve_every_flag(left_side, lower, transpose_a, unit_diagonal):
    rng = np.random.default_rng(3)
    m = 9
    a = (rng.normal(size=(3, m, m)) + 4 * np.eye(m)).astype(np.float32)  # both triangles set
    b = rng.normal(size=(3, m, 4) if left_side else (3, 4, m)).astype(np.float32)

    def f(a, b):
        return lax.linalg.triangular_solve(a, b, left_side=left_side, lower=lower,
                                           transpose_a=transpose_a, unit_diagonal=unit_diagonal)

    _close(kiln.jit(f, cache_dir=None)(a, b), jax.jit(f)(a, b), tol=1e-4)


def test_cholesky_of_a_matrix_that_is_not_positive_definite_is_nan():
    a = np.stack([np.eye(3, dtype=np.float32), -np.eye(3, dtype=np.float32)])
    got = np.asarray(kiln.jit(jnp.linalg.cholesky, cache_dir=None)(a))
    want = np.asarray(jax.jit(jnp.linalg.cholesky)(a))
    np.testing.assert_array_equal(got, want)
    assert np.isnan(got[1][np.tril_indices(3)]).all()


def test_float64_under_x64():
    jax.config.update("jax_enable_x64", True)
    try:
        rng = np.random.default_rng(1)
        a, b = _spd(rng, (), 20, np.float64), rng.normal(size=(20, 2))

        def f(a, b):
            return cho_solve((jnp.linalg.cholesky(a), True), b)

        _close(kiln.jit(f, cache_dir=None)(a, b), jax.jit(f)(a, b), np.linalg.solve(a, b), 1e-10)
    finally:
        jax.config.update("jax_enable_x64", False)


def test_gaussian_process_log_likelihood_and_its_gradient():
    # A GP's negative log marginal likelihood and its gradient in the kernel
    # parameters (cholesky, triangular solves and their transposes).
    rng = np.random.default_rng(7)
    x = np.sort(rng.uniform(-3, 3, 40)).astype(np.float32)
    y = (np.sin(x) + 0.1 * rng.normal(size=40)).astype(np.float32)

    def nll(params, x, y):
        ls, amp, noise = jnp.exp(params)
        k = amp * jnp.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / ls**2) + (noise + 1e-4) * jnp.eye(x.size)
        l = jnp.linalg.cholesky(k)
        alpha = cho_solve((l, True), y)
        return 0.5 * y @ alpha + jnp.log(jnp.diag(l)).sum()

    params = np.log(np.array([1.0, 1.0, 0.1], np.float32))
    f = jax.value_and_grad(nll)
    got, want = kiln.jit(f, cache_dir=None)(params, x, y), jax.jit(f)(params, x, y)
    _close(got[0], want[0], tol=1e-4)
    _close(got[1], want[1], tol=1e-3)


def test_kiln_rewrite_round_trips_through_jax():
    rng = np.random.default_rng(2)
    a, b = _spd(rng, (), 6), rng.normal(size=(6, 2)).astype(np.float32)

    def f(a, b):
        l = lax.linalg.cholesky(a, symmetrize_input=False)
        return l, lax.linalg.triangular_solve(l, b, left_side=True, lower=True)

    got, want = jax.jit(kiln.rewrite(f))(a, b), jax.jit(f)(a, b)
    for g, w in zip(got, want):
        _close(g, w)
