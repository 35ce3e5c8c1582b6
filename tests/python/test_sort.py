"""lax.sort and lax.top_k through kiln.jit against jax.jit, bit for bit.

Axes on both sides of the pipeline's sort-rank-max-length (16: short axes
sort by an n x n comparison, long ones by the runtime's sort), up to a
32,000-entry vocabulary, with every dtype JAX sorts and the values whose
order is subtle (NaNs of both signs, -0 and +0, infinities, ties).
"""
import ml_dtypes
import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

import kiln

LENGTHS = [1, 5, 16, 17, 300, 5000]


def _same(got, want):
    got, want = np.atleast_1d(np.asarray(got)), np.atleast_1d(np.asarray(want))
    assert got.dtype == want.dtype and got.shape == want.shape
    # Bit for bit (NaN payloads and zero signs included).
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def _check(f, *args):
    got = kiln.jit(f, cache_dir=None)(*args)
    want = jax.jit(f)(*args)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
        _same(g, w)


def _floats(n, dtype, seed):
    """Values with ties, signed zeros, infinities and NaNs of both signs."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-20, 20, size=n).astype(np.float32) / 4
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.5, 1.5],
                       dtype=np.float32)
    where = rng.integers(0, n, size=min(n, 8))
    x[where] = special[: len(where)]
    return x.astype(dtype)


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, ml_dtypes.bfloat16])
def test_sort_argsort_top_k_floats(n, dtype):
    with jax.enable_x64(dtype == np.float64):
        _floats_case(n, dtype)


def _floats_case(n, dtype):
    x = np.stack([_floats(n, dtype, s) for s in range(3)])
    k = min(n, 7)

    def f(x):
        return (jnp.sort(x, axis=-1), jnp.argsort(x, axis=-1, stable=True),
                lax.top_k(x, k), jnp.sort(x, axis=0))

    _check(f, x)


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, np.uint32, np.bool_,
                                   np.int64, np.uint64])
def test_sort_argsort_top_k_integers(n, dtype):
    with jax.enable_x64(np.dtype(dtype).itemsize == 8):
        _integers_case(n, dtype)


def _integers_case(n, dtype):
    rng = np.random.default_rng(n)
    if dtype == np.bool_:
        x = rng.integers(0, 2, size=(2, n)).astype(bool)
    else:
        info = np.iinfo(dtype)
        size = np.dtype(dtype).itemsize
        x = rng.integers(0, 256, size=(2, n * size), dtype=np.uint8).view(dtype).copy()
        x[:, : min(n, 3)] = info.max  # ties
        x[:, 3:6] = info.min
    k = min(n, 4)

    def f(x):
        return jnp.sort(x, axis=1), jnp.argsort(x, axis=1, stable=True), lax.top_k(x, k)

    _check(f, x)


@pytest.mark.parametrize("n", [12, 40, 3000])
def test_lexicographic_sort_carries_values(n):
    # Two keys (the first most significant) and two values of other dtypes,
    # along the middle axis of a rank-3 operand.
    rng = np.random.default_rng(1)
    a = rng.integers(0, 3, size=(2, n, 3)).astype(np.int32)
    b = _floats(2 * n * 3, np.float32, 2).reshape(2, n, 3)
    v = rng.standard_normal((2, n, 3)).astype(np.float32)
    w = rng.integers(0, 100, size=(2, n, 3)).astype(np.uint8)

    def f(a, b, v, w):
        return lax.sort((a, b, v, w), dimension=1, num_keys=2)

    _check(f, a, b, v, w)


def test_top_k_over_a_vocabulary():
    # Sampling's top-k over a 32,000-entry vocabulary (was an error: sorts
    # were limited to 4,096 elements) and jnp.sort of the logits.
    logits = jax.random.normal(jax.random.PRNGKey(0), (8, 32000), jnp.float32)

    def f(logits):
        values, indices = lax.top_k(logits, 50)
        return values, indices, jnp.sort(logits)[:, -5:], jnp.argsort(-logits)[:, :5]

    _check(f, logits)


def test_sort_inside_a_scan():
    def f(xs):
        def step(c, x):
            s = jnp.sort(x + c)
            return c + s[0], s
        return lax.scan(step, jnp.float32(0), xs)

    xs = np.random.default_rng(3).standard_normal((6, 200)).astype(np.float32)
    _check(f, xs)


@pytest.mark.parametrize("n", [0, 3])
def test_empty_axes(n):
    x = np.zeros((n, 0, 4), np.float32)

    def f(x):
        return jnp.sort(x, axis=1), jnp.sort(x, axis=2), lax.top_k(x, 0)

    _check(f, x)


@pytest.mark.parametrize("rounded", [False, True])
def test_approx_max_and_min_k_are_exact_as_on_xla_cpu(rounded):
    # XLA:CPU computes approx_max_k / approx_min_k exactly (it sorts): the
    # same values, NaNs, -0 and +0 in the same order; the indices of tied
    # values in an order of its own (along the last axis and axis 0; min
    # along axis 0 on columns without NaN: XLA's `<` sort lets a NaN stop
    # values passing it, test_approx_min_k_with_nans).
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 700)) * 4
    x = (np.round(x) if rounded else x).astype(np.float32)  # rounded: many ties
    x[0, [3, 9]] = np.nan
    x[1, [5, 6]] = [-0.0, 0.0]
    x[2, 11] = np.inf
    x[3, 12] = -np.inf
    fns = [lambda v: jax.lax.approx_max_k(v, 7),
           lambda v: jax.lax.approx_min_k(v, 7, recall_target=0.5),
           lambda v: jax.lax.approx_max_k(v, 3, reduction_dimension=0),
           lambda v: jax.lax.approx_min_k(v, 3, reduction_dimension=0)]
    for f, axis, arg in zip(fns, [1, 1, 0, 0], [x, x, x, x[:, 14:]]):
        (values, idx), (want_values, want_idx) = kiln.jit(f, cache_dir=None)(arg), jax.jit(f)(arg)
        np.testing.assert_array_equal(values, np.asarray(want_values))
        if not rounded:  # distinct values: the same indices too
            np.testing.assert_array_equal(idx, np.asarray(want_idx))
        # Among ties XLA's order is its own: each index must hold its value,
        # and no index may repeat.
        np.testing.assert_array_equal(np.take_along_axis(arg, np.asarray(idx), axis), values)
        assert all(len(set(r)) == len(r) for r in np.moveaxis(np.asarray(idx), axis, -1))
    # By hand: the 2 smallest of a row.
    vals, idx = kiln.jit(lambda v: jax.lax.approx_min_k(v, 2), cache_dir=None)(
        np.array([[5, 1, 4, 1]], np.float32))
    np.testing.assert_array_equal(vals, [[1, 1]])
    np.testing.assert_array_equal(idx, [[1, 3]])


def test_approx_min_k_with_nans():
    """With NaNs, approx_min_k is the k smallest, NaNs last, along any axis
    (numpy's sort, which puts NaNs last, is the oracle): jax.jit's sort
    compares with `<`, which a NaN breaks, and may return others
    (docs/importer.md)."""
    x = np.array([[3, np.nan, 1, -np.nan, 2, 0.5], [np.nan, 5, 4, 1, -1, np.nan],
                  [np.nan, np.nan, np.nan, 7, np.nan, np.nan]], np.float32)
    for axis, v in [(1, x), (0, x.T)]:
        values, idx = kiln.jit(lambda v: jax.lax.approx_min_k(v, 3, reduction_dimension=axis),
                               cache_dir=None)(v)
        want = np.take(np.sort(v, axis=axis), range(3), axis=axis)
        np.testing.assert_array_equal(values, want)
        np.testing.assert_array_equal(np.take_along_axis(v, np.asarray(idx), axis), values)
    # Row 0 by hand: 0.5 (index 5), 1 (2), 2 (4).
    values, idx = kiln.jit(lambda v: jax.lax.approx_min_k(v, 3), cache_dir=None)(x[:1])
    np.testing.assert_array_equal(idx, [[5, 2, 4]])

