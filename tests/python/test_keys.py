"""Typed PRNG keys (jax.random.key) as inputs and outputs of kiln.jit,
kiln.rewrite and kiln.kernel, against jax.jit: a key goes into Kiln's code
as its key data and comes back as a typed key."""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kiln


def noisy(key, x):
    k1, k2 = jax.random.split(key)
    return x + jax.random.normal(k1, x.shape), k2


def tree_fun(state, x):
    key, sub = jax.random.split(state["key"])
    u = jax.random.uniform(sub, x.shape)
    return {"key": key, "y": x * u, "bits": jax.random.bits(jax.random.fold_in(sub, 3), (2,))}


KEY = jax.random.key(0)
X = jnp.linspace(-1, 1, 5, dtype=jnp.float32)


def assert_same(got, want):
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    assert got_tree == want_tree
    for g, w in zip(got_leaves, want_leaves):
        if jax.dtypes.issubdtype(w.dtype, jax.dtypes.prng_key):
            assert g.dtype == w.dtype and isinstance(g, jax.Array)
            np.testing.assert_array_equal(jax.random.key_data(g), jax.random.key_data(w))
        else:
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("fun,args", [(noisy, (KEY, X)), (tree_fun, ({"key": KEY}, X))],
                         ids=["split-normal", "pytree"])
def test_keys_in_and_out_of_kiln_jit(cache_dir, fun, args):
    f = kiln.jit(fun, cache_dir=cache_dir)
    want = jax.jit(fun)(*args)
    for _ in range(3):  # the later calls too (they never take the C++ path)
        assert_same(f(*args), want)
    assert_same(f.lower(*args).compile()(*args), want)


def test_a_key_returned_goes_into_the_next_call(cache_dir):
    f = kiln.jit(noisy, cache_dir=cache_dir)
    key_k = key_j = KEY
    for _ in range(4):
        yk, key_k = f(key_k, X)
        yj, key_j = jax.jit(noisy)(key_j, X)
        assert_same((yk, key_k), (yj, key_j))


def test_keys_through_rewrite_and_kernel(cache_dir):
    want = jax.jit(noisy)(KEY, X)
    assert_same(kiln.rewrite(noisy)(KEY, X), want)
    assert_same(jax.jit(kiln.rewrite(noisy))(KEY, X), want)
    assert_same(jax.jit(kiln.kernel(noisy, cache_dir=cache_dir))(KEY, X), want)


def test_keys_under_transformations(cache_dir):
    f = kiln.jit(noisy, cache_dir=cache_dir)
    assert_same(jax.jit(f)(KEY, X), jax.jit(noisy)(KEY, X))
    grad = jax.grad(lambda x: f(KEY, x)[0].sum() ** 2)(X)
    assert_same(grad, jax.grad(lambda x: noisy(KEY, x)[0].sum() ** 2)(X))
    keys = jax.random.split(KEY, 4)
    with warnings.catch_warnings():
        # A batch of keys: Kiln's importer splits one key at a time, so the
        # batched function may be JAX's (kiln.FallbackWarning).
        warnings.simplefilter("ignore", kiln.FallbackWarning)
        got = jax.vmap(f, in_axes=(0, None))(keys, X)
    assert_same(got, jax.vmap(noisy, in_axes=(0, None))(keys, X))


def test_legacy_uint32_keys_still_work(cache_dir):
    key = jax.random.PRNGKey(1)
    f = kiln.jit(lambda k, x: x + jax.random.normal(k, x.shape), cache_dir=cache_dir)
    assert_same(f(key, X), jax.jit(lambda k, x: x + jax.random.normal(k, x.shape))(key, X))
