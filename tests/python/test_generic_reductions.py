"""The generic `reduce` and `reduce_window` (a reducer jaxpr) against jax.jit.

JAX gives add/mul/max/min reducers with their identity init their own
primitives (reduce_sum, reduce_window_max, ...); the rest keep the reducer as
a jaxpr on scalars: argmax-like selections over several operands, a product
pooled from a non-identity init, bitwise reductions, anything a user writes
for lax.reduce / lax.reduce_window. Kiln applies the reducer to whole arrays
(importer/JaxprReductions.cpp, JaxprWindows.cpp); selections must match
exactly, ties included, arithmetic within float32 rounding.
"""
import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

import kiln


from test_pooling import _check as _check_pooling
from test_pooling import _x


def _check(f, *args, exact=True):
    _check_pooling(f, *args, exact=exact)


def _first_max(a, b):
    """(value, payload) pairs: the larger value; on ties the left one."""
    keep = a[0] >= b[0]
    return jnp.where(keep, a[0], b[0]), jnp.where(keep, a[1], b[1])


def _first_min_index(a, b):
    """(value, index) pairs: the smaller value; on ties the smaller index."""
    take_a = (a[0] < b[0]) | ((a[0] == b[0]) & (a[1] < b[1]))
    return lax.select(take_a, a[0], b[0]), lax.select(take_a, a[1], b[1])


WINDOWS = [
    # dims, strides, padding, base dilation, window dilation
    ((2, 2), (2, 2), "VALID", None, None),
    ((3, 3), (1, 1), "SAME", None, None),
    ((3, 2), (2, 1), ((1, 0), (2, 1)), None, None),
    ((2, 2), (1, 1), "VALID", (2, 1), (1, 2)),
    ((7, 7), (7, 7), "VALID", None, None),
]


@pytest.mark.parametrize("window", WINDOWS)
def test_reduce_window_argmax_pooling(window):
    dims, strides, padding, base, dil = window

    def f(x, payload):
        return lax.reduce_window((x, payload), (-jnp.inf, 0.0), _first_max, dims, strides,
                                 padding, base_dilation=base, window_dilation=dil)

    _check(f, _x((7, 9)), _x((7, 9), seed=1))


@pytest.mark.parametrize("window", WINDOWS)
def test_reduce_window_argmin_pooling_with_ties(window):
    """Ties broken by the index: a reducer whose result does not depend on the
    order XLA leaves unspecified (XLA:CPU visits most windows row-major, as
    Kiln does, but not all: a first-of-equals reducer can differ there)."""
    dims, strides, padding, base, dil = window

    def f(x):
        index = lax.broadcasted_iota(jnp.int32, x.shape, 0) * 100 + \
            lax.broadcasted_iota(jnp.int32, x.shape, 1)
        return lax.reduce_window((x, index), (jnp.inf, jnp.int32(2**31 - 1)), _first_min_index,
                                 dims, strides, padding, base_dilation=base,
                                 window_dilation=dil)

    _check(f, _x((7, 9), ties=True))


@pytest.mark.parametrize("window", WINDOWS[:4])
def test_reduce_window_product_from_non_identity(window):
    dims, strides, padding, base, dil = window

    def f(x):
        return lax.reduce_window(x, 1.5, lax.mul, dims, strides, padding,
                                 base_dilation=base, window_dilation=dil)

    _check(f, 1 + 0.1 * _x((6, 8)), exact=False)


def test_reduce_window_integers_and_a_literal_in_the_body():
    def f(x):
        xor = lax.reduce_window(x, np.int32(0), lax.bitwise_xor, (2, 3), (1, 1), "SAME")
        clipped = lax.reduce_window(x, np.int32(-100), lambda a, b: jnp.maximum(a, b - 1),
                                    (3, 1), (1, 1), "VALID")
        return xor, clipped

    _check(f, np.random.default_rng(2).integers(-50, 50, (5, 6)).astype(np.int32))


@pytest.mark.parametrize("shape,dims", [
    ((13, 5), (0,)), ((4, 7), (1,)), ((3, 5, 6), (0, 2)), ((2, 1, 3), (1,)),
    ((6, 9), (0, 1)), ((5, 4), ()), ((0, 3), (0,)),
])
@pytest.mark.parametrize("ties", [False, True])
def test_reduce_argmax_pairs(shape, dims, ties):
    def f(x, payload):
        return lax.reduce((x, payload), (-jnp.inf, 0.0), _first_max, dims)

    _check(f, _x(shape, ties=ties), _x(shape, seed=1))


@pytest.mark.parametrize("n", [1, 2, 3, 31, 64, 1000])
def test_reduce_value_and_index(n):
    """argmin with the index tie rule, the way users write it with lax.reduce."""
    def f(x):
        index = lax.broadcasted_iota(jnp.int32, x.shape, 1)
        return lax.reduce((x, index), (jnp.inf, jnp.int32(2**31 - 1)), _first_min_index, (1,))

    _check(f, _x((3, n), ties=True))


def test_reduce_inside_vmap_grad_and_scan():
    def step(c, x):
        v, _ = lax.reduce((x, x * 2), (-jnp.inf, 0.0), _first_max, (0,))
        return c + v, v

    def f(xs):
        return lax.scan(step, jnp.zeros(3), xs)

    _check(f, _x((4, 5, 3)))


def test_reducer_that_is_not_elementwise_is_a_located_error():
    def body(a, b):
        return jnp.sum(jnp.stack([a, b]))  # a reduction inside the reducer

    def f(x):
        return lax.reduce_window(x, 0.0, body, (2, 2), (1, 1), "VALID")

    with pytest.raises(kiln.JaxprImportError, match=r"test_generic_reductions\.py:\d+"):
        kiln.jit(f, cache_dir=None)(_x((4, 4)))
