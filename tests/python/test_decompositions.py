"""QR (geqrf, householder_product, qr), SVD and symmetric eigendecompositions
through kiln.jit, against jax.jit (LAPACK) and float64 numpy.

Factors that are unique (R's magnitudes, Householder packed form with
LAPACK's sign convention, singular values, eigenvalues) are compared with
jax.jit directly; singular and eigenvectors, unique only up to sign, by
what determines them: reconstructions, orthogonality and projectors."""
import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

import kiln


def _normal(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _kiln(f, *args):
    return kiln.jit(f, cache_dir=None)(*args)


def _assert_close(got, want, tol):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


@pytest.mark.parametrize("shape", [(8, 5), (5, 8), (6, 6), (3, 40, 17), (2, 17, 40), (1, 1)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_matches_lapack(shape, mode):
    a = _normal(shape, sum(shape))
    f = lambda x: jnp.linalg.qr(x, mode=mode)
    got, want = _kiln(f, a), jax.jit(f)(a)
    if mode == "r":
        got, want = (got,), (want,)
    # Householder QR with LAPACK's convention is unique: Q and R as jax's.
    for g, w in zip(got, want):
        _assert_close(g, w, 2e-4)
    if mode != "r":
        q, r = (np.asarray(t, np.float64) for t in got)
        _assert_close(q @ r, a, 1e-5)
        k = q.shape[-1]
        _assert_close(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k)),
                      1e-5)


def test_geqrf_and_householder_product_directly():
    from jax._src.lax import linalg as lax_linalg
    a = _normal((4, 12, 7), 3)

    def f(x):
        packed, taus = lax_linalg.geqrf(x)
        return packed, taus, lax.linalg.householder_product(packed, taus)

    for g, w in zip(_kiln(f, a), jax.jit(f)(a)):
        _assert_close(g, w, 2e-4)


@pytest.mark.parametrize("shape", [(7, 4), (4, 7), (9, 9), (3, 30, 12)])
@pytest.mark.parametrize("full", [False, True])
def test_svd(shape, full):
    a = _normal(shape, 7 + sum(shape))
    f = lambda x: jnp.linalg.svd(x, full_matrices=full)
    (u, s, vt), (_, s_want, _) = _kiln(f, a), jax.jit(f)(a)
    s64 = np.linalg.svd(a.astype(np.float64), compute_uv=False)
    _assert_close(s, s_want, 1e-5)
    _assert_close(s, s64, 1e-5)
    u, s, vt = (np.asarray(t, np.float64) for t in (u, s, vt))
    k = s.shape[-1]
    recon = (u[..., :, :k] * s[..., None, :]) @ vt[..., :k, :]
    _assert_close(recon, a, 1e-5)
    for m in (u, np.swapaxes(vt, -1, -2)):
        n = m.shape[-1]
        _assert_close(np.swapaxes(m, -1, -2) @ m, np.broadcast_to(np.eye(n), m.shape[:-2] + (n, n)),
                      1e-5)
    f_values = lambda x: jnp.linalg.svd(x, compute_uv=False)
    _assert_close(_kiln(f_values, a), jax.jit(f_values)(a), 1e-5)


@pytest.mark.parametrize("n", [1, 6, 33])
@pytest.mark.parametrize("lower", [True, False])
def test_eigh(n, lower):
    g = _normal((3, n, n), n)
    a = (g + np.swapaxes(g, -1, -2)) / 2
    # Only the named triangle is read: garbage in the other one.
    junk = np.triu(np.full((n, n), 100.0, np.float32), 1)
    a = a + (junk if lower else junk.T)
    f = lambda x: lax.linalg.eigh(x, lower=lower, symmetrize_input=False)
    (v, w), (_, w_want) = _kiln(f, a), jax.jit(f)(a)
    _assert_close(w, w_want, 2e-5)
    sym = np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2) if lower else \
        np.triu(a) + np.swapaxes(np.triu(a, 1), -1, -2)
    v, w = np.asarray(v, np.float64), np.asarray(w, np.float64)
    _assert_close(w, np.linalg.eigvalsh(sym.astype(np.float64)), 2e-5)
    _assert_close((v * w[..., None, :]) @ np.swapaxes(v, -1, -2), sym, 2e-5)
    assert np.all(np.diff(w, axis=-1) >= 0)


def test_programs_built_on_them():
    # lstsq and pinv (SVD), matrix_rank and cond, the 2- and nuclear norms,
    # a Gaussian log-density through eigh, and gradients through QR and eigh.
    a, b = _normal((12, 4), 11), _normal((12,), 12)
    spd = a.T @ a + np.eye(4, dtype=np.float32)

    def f(a, b, s):
        x, _, rank, sv = jnp.linalg.lstsq(a, b)
        w, v = jnp.linalg.eigh(s)
        return (x, jnp.linalg.pinv(a) @ b, rank, sv, jnp.linalg.cond(a),
                jnp.linalg.norm(a, 2), jnp.linalg.norm(a, "nuc"), jnp.sum(jnp.log(w)),
                jax.grad(lambda m: jnp.sum(jnp.linalg.qr(m)[1] ** 2))(a),
                jax.grad(lambda m: jnp.sum(jnp.linalg.eigvalsh(m) ** 2))(s))

    for g, w in zip(_kiln(f, a, b, spd), jax.jit(f)(a, b, spd)):
        _assert_close(g, w, 1e-4)


def test_rewrite_round_trips_through_jax():
    a = _normal((6, 4), 5)
    f = lambda x: (jnp.linalg.qr(x)[1], jnp.linalg.svd(x, compute_uv=False),
                   jnp.linalg.eigvalsh(x.T @ x))
    for g, w in zip(jax.jit(kiln.rewrite(f))(a), jax.jit(f)(a)):
        _assert_close(g, w, 1e-5)


def test_pivoted_qr_is_a_located_error():
    f = lambda x: jax.scipy.linalg.qr(x, pivoting=True)
    with pytest.raises(kiln.JaxprImportError, match="pivoting=True"):
        _kiln(f, _normal((5, 4), 1))


@pytest.mark.parametrize("n", [1, 5, 24])
def test_eig_of_general_matrices(n):
    # Eigenvalues are unique (compared sorted with jax.jit's and numpy's in
    # float64); eigenvectors up to a complex phase: A v = w v, |v| = 1.
    a = _normal((2, n, n), 40 + n)
    f = lambda x: jnp.linalg.eig(x)
    (w, v), (w_want, _) = _kiln(f, a), jax.jit(f)(a)
    assert w.dtype == np.complex64 and v.dtype == np.complex64
    key = lambda z: np.sort_complex(np.round(np.asarray(z, np.complex128), 4))
    for b in range(2):
        np.testing.assert_allclose(key(w[b]), key(w_want[b]), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(key(w[b]), key(np.linalg.eigvals(a[b].astype(np.float64))),
                                   rtol=1e-4, atol=1e-4)
    w, v = np.asarray(w, np.complex128), np.asarray(v, np.complex128)
    a64 = a.astype(np.float64)
    _assert_close(np.abs(a64 @ v - v * w[:, None, :]), np.zeros(v.shape), 1e-4)
    _assert_close(np.linalg.norm(v, axis=-2), np.ones(w.shape), 1e-5)
    g = lambda x: jnp.sort_complex(jnp.linalg.eigvals(x))
    got, want = np.asarray(_kiln(g, a)), np.asarray(jax.jit(g)(a))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
