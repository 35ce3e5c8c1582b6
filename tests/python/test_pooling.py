"""Pooling (reduce_window_sum/max/min, select_and_scatter_add,
select_and_gather_add) against jax.jit.

CNNs in flax, haiku and equinox pool with lax.reduce_window; their gradients
use reduce_window_sum on a padded cotangent (average pooling) and
select_and_scatter_add (max pooling). Each program runs through kiln.jit and
jax.jit on the same inputs; max/min must match exactly, sums within float32
rounding of the window's sum.
"""
import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

import kiln


def _x(shape, seed=0, ties=False):
    rng = np.random.default_rng(seed)
    if ties:  # repeated values: the selection's tie rule decides
        return rng.integers(-3, 3, shape).astype(np.float32)
    return rng.standard_normal(shape, dtype=np.float32)


def _check(f, *args, exact=False):
    want = jax.jit(f)(*args)
    got = kiln.jit(f, cache_dir=None)(*args)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        w = np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype
        if exact:
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=2e-6, atol=2e-6)


WINDOWS = [
    # dims, strides, padding, base dilation, window dilation
    ((1, 2, 2, 1), (1, 2, 2, 1), "VALID", None, None),
    ((1, 3, 3, 1), (1, 1, 1, 1), "SAME", None, None),
    ((1, 3, 3, 1), (1, 2, 2, 1), "SAME", None, None),
    ((1, 2, 3, 1), (1, 1, 2, 1), ((0, 0), (1, 0), (2, 1), (0, 0)), None, None),
    ((1, 2, 2, 1), (1, 1, 1, 1), "VALID", (1, 2, 1, 1), (1, 1, 2, 1)),
    ((1, 7, 7, 1), (1, 7, 7, 1), "VALID", None, None),  # global pooling (tiles)
]


@pytest.mark.parametrize("window", WINDOWS)
@pytest.mark.parametrize("kind", ["max", "min", "sum"])
def test_reduce_window(window, kind):
    dims, strides, padding, base, dil = window
    init, op = {"max": (-jnp.inf, lax.max), "min": (jnp.inf, lax.min), "sum": (0.0, lax.add)}[kind]

    def f(x):
        return lax.reduce_window(x, init, op, dims, strides, padding,
                                 base_dilation=base, window_dilation=dil)

    _check(f, _x((2, 7, 7, 3)), exact=kind != "sum")


@pytest.mark.parametrize("window", WINDOWS[:4])
@pytest.mark.parametrize("ties", [False, True])
def test_max_pool_gradient(window, ties):
    dims, strides, padding, _, _ = window

    def loss(x):
        y = lax.reduce_window(x, -jnp.inf, lax.max, dims, strides, padding)
        return jnp.sum(jnp.tanh(y) * jnp.arange(y.size, dtype=y.dtype).reshape(y.shape) / y.size)

    _check(jax.grad(loss), _x((2, 7, 7, 3), ties=ties))


@pytest.mark.parametrize("window", WINDOWS[:4])
def test_avg_pool_gradient(window):
    dims, strides, padding, _, _ = window

    def loss(x):
        y = lax.reduce_window(x, 0.0, lax.add, dims, strides, padding) / 9.0
        return jnp.sum(jnp.sin(y))

    _check(jax.grad(loss), _x((2, 7, 7, 3)))


def test_flax_cnn_training_step():
    flax = pytest.importorskip("flax")
    import flax.linen as nn
    optax = pytest.importorskip("optax")

    class CNN(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.relu(nn.Conv(8, (3, 3))(x))
            x = nn.max_pool(x, (2, 2), strides=(2, 2))
            x = nn.relu(nn.Conv(16, (3, 3))(x))
            x = nn.avg_pool(x, (2, 2), strides=(2, 2))
            return nn.Dense(10)(x.reshape(x.shape[0], -1))

    model = CNN()
    x = _x((4, 16, 16, 1), seed=3)
    labels = np.arange(4) % 10
    params = model.init(jax.random.PRNGKey(0), x)
    tx = optax.adam(1e-3)
    state = tx.init(params)

    def step(params, state, x, labels):
        def loss(p):
            logits = model.apply(p, x)
            return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()
        value, grads = jax.value_and_grad(loss)(params)
        updates, state = tx.update(grads, state, params)
        return optax.apply_updates(params, updates), state, value

    want = jax.jit(step)(params, state, x, labels)
    got = kiln.jit(step, cache_dir=None)(params, state, x, labels)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-4, atol=1e-5)


# select_and_gather_add: forward-mode derivatives of max/min pooling (jax.jvp,
# jax.jacfwd, hessians). Every window shape, ties included, and an input
# with -inf elements (a window of nothing but -inf gives tangent 0, as
# XLA's reduction from (-inf, 0) does).
@pytest.mark.parametrize("window", WINDOWS)
@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("ties", [False, True])
def test_pool_forward_derivative(window, kind, ties):
    dims, strides, padding, base, dil = window
    init, op = {"max": (-jnp.inf, lax.max), "min": (jnp.inf, lax.min)}[kind]

    def pool(x):
        return lax.reduce_window(x, init, op, dims, strides, padding,
                                 base_dilation=base, window_dilation=dil)

    def f(x, t):
        return jax.jvp(pool, (x,), (t,))

    x = _x((2, 7, 7, 3), ties=ties)
    if ties:
        x[0, :3, :3, 0] = -np.inf if kind == "max" else np.inf
    _check(f, x, _x((2, 7, 7, 3), seed=1), exact=True)


def test_max_pool_cnn_hessian_vector_product():
    """A CNN's loss, its Hessian-vector product (forward over reverse: both
    select_and_scatter_add and select_and_gather_add)."""
    def loss(w, x):
        y = lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
        y = lax.reduce_window(jax.nn.relu(y), -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1),
                              "VALID")
        return jnp.sum(jnp.tanh(y))

    def hvp(w, v, x):
        return jax.jvp(lambda w: jax.grad(loss)(w, x), (w,), (v,))

    w = _x((3, 3, 3, 4), seed=2) * 0.3
    _check(hvp, w, _x((3, 3, 3, 4), seed=3), _x((2, 8, 8, 3), seed=4))
