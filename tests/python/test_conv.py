"""Grouped, depthwise and transposed convolutions against a float64
reference and jax.jit, at the sizes CNNs use (haiku's DepthwiseConv2D,
flax's feature_group_count and ConvTranspose, the input gradient of a
strided convolution, which JAX writes with lhs_dilation and, for some
paddings, negative edge padding)."""
import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

import kiln


def _x(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _check(f, *args):
    """kiln.jit(f) against f on float64 inputs (jax.jit with x64 off runs
    f32, so the float64 reference is numpy-side: the same program under
    jax.jit on float64 copies, with jax_enable_x64) and against jax.jit in
    f32: Kiln no further from the reference than a few times XLA."""
    got = np.asarray(kiln.jit(f, cache_dir=None)(*args), np.float64)
    xla = np.asarray(jax.jit(f)(*args), np.float64)
    with jax.enable_x64(True):
        ref = np.asarray(jax.jit(f)(*[np.asarray(a, np.float64) for a in args]))
    assert got.shape == ref.shape
    scale = np.abs(ref).max()
    kiln_err, xla_err = np.abs(got - ref).max(), np.abs(xla - ref).max()
    assert kiln_err <= max(4 * xla_err, 1e-6 * scale), (kiln_err, xla_err, scale)


@pytest.mark.parametrize("stride", [1, 2])
def test_depthwise_conv2d(stride):
    # haiku.DepthwiseConv2D / flax Conv(feature_group_count=C): one 3x3
    # filter per channel, channel multiplier 2.
    x, w = _x((8, 32, 32, 32), 0), _x((3, 3, 1, 64), 1)
    f = lambda a, b: lax.conv_general_dilated(
        a, b, (stride, stride), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
        feature_group_count=32)
    _check(f, x, w)


def test_grouped_conv2d_nchw():
    x, w = _x((4, 64, 16, 16), 2), _x((32, 16, 3, 3), 3)  # 4 groups of 16 -> 8
    f = lambda a, b: lax.conv_general_dilated(
        a, b, (1, 1), ((1, 1), (2, 0)), rhs_dilation=(1, 2), feature_group_count=4)
    _check(f, x, w)


@pytest.mark.parametrize("padding", ["SAME", "VALID", ((2, 1), (0, 3))])
def test_conv_transpose2d(padding):
    # flax.linen.ConvTranspose / equinox ConvTranspose: lhs_dilation.
    x, w = _x((4, 16, 16, 32), 4), _x((4, 4, 32, 16), 5)
    f = lambda a, b: lax.conv_transpose(a, b, (2, 2), padding,
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))
    _check(f, x, w)


def test_input_gradient_of_strided_conv():
    # The backward pass of a stride-2 convolution: a transposed
    # convolution of the cotangent (lhs_dilation 2, negative padding for
    # this kernel and padding).
    x, w = _x((4, 15, 15, 8), 6), _x((3, 3, 8, 16), 7)
    conv = lambda a, b: lax.conv_general_dilated(
        a, b, (2, 2), ((0, 0), (0, 0)), dimension_numbers=("NHWC", "HWIO", "NHWC"))
    f = lambda a, b: jax.grad(lambda v: jnp.sum(jnp.tanh(conv(v, b)) ** 2))(a)
    _check(f, x, w)


def test_grad_through_depthwise_conv_input():
    x, w = _x((2, 12, 12, 8), 8), _x((3, 3, 1, 8), 9)
    conv = lambda a, b: lax.conv_general_dilated(
        a, b, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=8)
    f = lambda a, b: jax.grad(lambda v: jnp.sum(jnp.sin(conv(v, b))))(a)
    _check(f, x, w)


@pytest.mark.parametrize("multiplier", [1, 2])
def test_kernel_gradient_of_depthwise_conv(multiplier):
    # JAX writes it with batch_group_count = the groups (the input's
    # channels become the batch).
    x, w = _x((4, 12, 12, 8), 10), _x((3, 3, 1, 8 * multiplier), 11)
    conv = lambda a, b: lax.conv_general_dilated(
        a, b, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=8)
    f = lambda a, b: jax.grad(lambda k: jnp.sum(jnp.tanh(conv(a, k))))(b)
    _check(f, x, w)


def test_kernel_gradient_of_grouped_conv():
    x, w = _x((2, 32, 10, 10), 12), _x((16, 8, 3, 3), 13)  # 4 groups of 8 -> 4
    conv = lambda a, b: lax.conv_general_dilated(a, b, (1, 1), "VALID", feature_group_count=4)
    f = lambda a, b: jax.grad(lambda k: jnp.sum(conv(a, k) ** 2))(b)
    _check(f, x, w)
