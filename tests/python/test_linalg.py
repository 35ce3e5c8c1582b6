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


@pytest.mark.parametrize("shape", [(6, 6), (3, 5, 5), (7, 4), (4, 7), (1, 1)])
def test_lu_matches_lapack(shape):
    # Pivots and permutation bit for bit (the same pivot rule as getrf);
    # the factors within rounding.
    rng = np.random.default_rng(len(shape) * 10 + shape[-1])
    a = rng.normal(size=shape).astype(np.float32)
    got, want = kiln.jit(lax.linalg.lu, cache_dir=None)(a), jax.jit(lax.linalg.lu)(a)
    _close(got[0], want[0])
    np.testing.assert_array_equal(got[1], np.asarray(want[1]))
    np.testing.assert_array_equal(got[2], np.asarray(want[2]))


def test_lu_of_a_singular_matrix():
    a = np.array([[1, 2, 3], [2, 4, 6], [1, 0, 1]], np.float32)
    got, want = kiln.jit(lax.linalg.lu, cache_dir=None)(a), jax.jit(lax.linalg.lu)(a)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-6, atol=1e-6)


def test_solve_det_inv_slogdet_and_their_gradients():
    # jnp.linalg.solve and inv are lu + custom_linear_solve (its solve
    # jaxpr: the pivots gathered, two triangular solves).
    rng = np.random.default_rng(11)
    a = (rng.normal(size=(3, 8, 8)) + 3 * np.eye(8)).astype(np.float32)
    b = rng.normal(size=(3, 8)).astype(np.float32)

    def f(a, b):
        sign, logdet = jnp.linalg.slogdet(a)
        return (jnp.linalg.solve(a, b[..., None])[..., 0], jnp.linalg.det(a), jnp.linalg.inv(a),
                sign, logdet)

    got, want = kiln.jit(f, cache_dir=None)(a, b), jax.jit(f)(a, b)
    for g, w in zip(got, want):
        _close(g, w, tol=1e-4)
    x64 = np.linalg.solve(a.astype(np.float64), b.astype(np.float64)[..., None])[..., 0]
    _close(got[0], want[0], x64, tol=1e-4)

    loss = lambda a, b: (jnp.linalg.solve(a, b[..., None]) ** 2).sum()  # noqa: E731
    g = jax.grad(loss, argnums=(0, 1))
    for gk, gj in zip(kiln.jit(g, cache_dir=None)(a, b), jax.jit(g)(a, b)):
        _close(gk, gj, tol=1e-3)


def test_kiln_rewrite_round_trips_lu():
    a = np.random.default_rng(4).normal(size=(5, 5)).astype(np.float32)
    got, want = jax.jit(kiln.rewrite(lax.linalg.lu))(a), jax.jit(lax.linalg.lu)(a)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("shape,size", [((4,), 4), ((5,), 8), ((3, 4), 4), ((2, 3, 7), 9)])
def test_lu_pivots_to_permutation(shape, size):
    # The swaps i <-> pivots[i] applied in order to 0..size-1, against
    # jax.jit, batched too; and a hand-derived case: pivots (2, 2, 3, 3)
    # swap 0-2, 1-2, 2-3: (0 1 2 3) -> (2 1 0 3) -> (2 0 1 3) -> (2 0 3 1).
    from jax._src.lax.linalg import lu_pivots_to_permutation
    rng = np.random.default_rng(3)
    pivots = rng.integers(0, size, shape).astype(np.int32)
    pivots = np.maximum(pivots, np.arange(shape[-1], dtype=np.int32))  # lu's are >= i
    f = lambda p: lu_pivots_to_permutation(p, size)
    np.testing.assert_array_equal(kiln.jit(f)(pivots), jax.jit(f)(pivots))
    hand = kiln.jit(lambda p: lu_pivots_to_permutation(p, 4))(np.array([2, 2, 3, 3], np.int32))
    np.testing.assert_array_equal(hand, [2, 0, 3, 1])


def test_scipy_lu_factor_and_lu_solve():
    # jax.scipy.linalg.lu_solve turns lu_factor's pivots into a permutation.
    rng = np.random.default_rng(4)
    a = rng.normal(size=(6, 6)).astype(np.float32)
    b = rng.normal(size=(6, 2)).astype(np.float32)
    f = lambda a, b: jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(a), b)
    ref64 = np.linalg.solve(a.astype(np.float64), b.astype(np.float64))
    _close(kiln.jit(f)(a, b), jax.jit(f)(a, b), ref64, tol=1e-4)
