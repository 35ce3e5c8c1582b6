"""Primitives the JAX libraries emit, through kiln.jit against jax.jit."""
import numpy as np
import pytest

import jax
import jax.numpy as jnp

import kiln


def test_equinox_nondifferentiable_backward():
    eqx = pytest.importorskip("equinox")

    def f(x):
        return jnp.sin(eqx.internal.nondifferentiable_backward(x)) * 2

    assert "nondifferentiable_backward" in str(jax.make_jaxpr(f)(jnp.ones(3)))
    x = np.linspace(-1, 1, 5).astype(np.float32)
    np.testing.assert_allclose(kiln.jit(f, cache_dir=None)(x), np.asarray(jax.jit(f)(x)),
                               rtol=1e-6, atol=1e-6)
