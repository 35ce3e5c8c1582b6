"""Numerics of ordinary programs through kiln.jit, with independent oracles:
a float64 reference computed by numpy, jax.jit on the same inputs, values
derived by hand. Each case was a wrong result or a refusal before."""

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import kiln


@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float16])
def test_narrow_dot_error_no_larger_than_xla(cache_dir, dtype):
    # A mixed-precision MLP layer pair (bf16/f16 inputs, weights and
    # outputs): XLA accumulates the dots in f32 and rounds once; Kiln must
    # be no further from the float64 reference than jax.jit (it had
    # accumulated in the narrow type: 3x jax.jit's error in bf16).
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal((256, 512)), dtype)
    w = jnp.asarray(rng.standard_normal((512, 512)) / 22.6, dtype)
    f = lambda a, b: jnp.tanh(a @ b) @ b
    x64, w64 = np.asarray(x, np.float64), np.asarray(w, np.float64)
    ref = np.tanh(x64 @ w64) @ w64
    got = np.asarray(kiln.jit(f, cache_dir=cache_dir)(x, w), np.float64)
    xla = np.asarray(jax.jit(f)(x, w), np.float64)
    kiln_err, xla_err = np.abs(got - ref).max(), np.abs(xla - ref).max()
    assert kiln_err <= xla_err * 1.05, (kiln_err, xla_err)
    # And within a few of the narrow type's ulps of the reference's scale:
    # a narrow accumulation of 512 terms is several times further.
    ulp = float(jnp.finfo(dtype).eps) * np.abs(ref).max()
    assert kiln_err <= 4 * ulp, (kiln_err, ulp)


def test_narrow_sum_rounds_once(cache_dir):
    # Hand-derived: 1 + 256 * 2^-9 = 1.5 exactly; accumulated in bf16 (8
    # significant bits) every 2^-9 term after the 1 rounds away, giving 1.
    x = np.concatenate([[1.0], np.full(256, 2.0 ** -9)]).astype(ml_dtypes.bfloat16)
    got = kiln.jit(lambda a: jnp.sum(a, dtype=jnp.bfloat16), cache_dir=cache_dir)(x)
    assert float(got) == 1.5


def test_residual_mlp_gradient_matches_xla(cache_dir):
    # h = x + x @ W1; loss = sum(h.T @ tanh(h @ W2)): three GEMMs sharing
    # operands across a transpose, and their gradients. The runtime GEMM
    # had read a tanh's output in place of h (4089 of 4096 elements wrong).
    rng = np.random.default_rng(1)
    x = rng.standard_normal((32, 64)).astype(np.float32)
    w1 = (rng.standard_normal((64, 64)) / 8).astype(np.float32)
    w2 = (rng.standard_normal((64, 64)) / 8).astype(np.float32)

    def forward(x, w1, w2):
        h = x + x @ w1
        return h.T @ jnp.tanh(h @ w2)

    loss = lambda w1, w2, x: jnp.sum(forward(x, w1, w2) ** 2)
    for f, args in [(forward, (x, w1, w2)), (jax.grad(loss, argnums=(0, 1)), (w1, w2, x))]:
        got = kiln.jit(f, cache_dir=cache_dir)(*args)
        want = jax.jit(f)(*args)
        for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
            np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-4 * np.abs(w).max())


def test_empty_slices_and_sums(cache_dir):
    # x[:, 2:] of an 8x2 x starts at the axis' end; jnp.roll by 0 and
    # concatenation make zero-size pieces. Hand-derived: the empty sums are
    # +0 (JAX's), the rolls are x.
    x = np.arange(16, dtype=np.float32).reshape(8, 2)

    def f(x):
        e = x[:, 2:]
        return e, jnp.roll(x, 0, axis=1), jnp.concatenate([x, e], 1), e.sum(1), e.sum()

    e, rolled, cat, rows, total = kiln.jit(f, cache_dir=cache_dir)(x)
    assert e.shape == (8, 0)
    np.testing.assert_array_equal(rolled, x)
    np.testing.assert_array_equal(cat, x)
    assert rows.shape == (8,) and not np.signbit(rows).any() and not rows.any()
    assert float(total) == 0.0 and not np.signbit(total)
    ys = kiln.jit(lambda v: jax.lax.associative_scan(jnp.add, v), cache_dir=cache_dir)(x[:, 0])
    np.testing.assert_array_equal(ys, np.cumsum(x[:, 0]))


def _f32_ulps(got, want):
    """|got - want| in units of the f32 spacing at |want| (want: float64)."""
    spacing = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    return np.abs(np.asarray(got, np.float64) - want) / spacing


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_f32_trig_over_the_whole_range(cache_dir, name):
    # f32 sin/cos reduce their argument exactly over the whole f32 range
    # (Payne-Hanek in f64): sin(1e16) was -0.129 (exact -0.497), sin(FLT_MAX)
    # 0. Oracle: glibc's double sin/cos of the same f32 values (correctly
    # reduced), within 2 f32 ulps, and no further from it than jax.jit.
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 0x7F800000, 4000, dtype=np.int64).astype(np.uint32)
    special = np.array([1e16, 3.4028235e38, 16367173 * 2.0**72, 1e12, 1e9, 100.0, 0.5,
                        3.1415927, 1.5707964, 1e-45, 0.0], np.float32)
    x = np.concatenate([bits.view(np.float32), special, -special])
    f = getattr(jnp, name)
    want = getattr(np, name)(x.astype(np.float64))
    got = kiln.jit(f, cache_dir=cache_dir)(x)
    ulps = _f32_ulps(got, want)
    xla = _f32_ulps(jax.jit(f)(x), want)
    assert ulps.max() <= 2, (x[ulps.argmax()], ulps.max())
    assert np.all(ulps <= np.maximum(xla, 2))
    if name == "sin":
        assert abs(float(got[len(bits)]) - (-0.4965746)) < 1e-6  # sin(f32(1e16))
        assert np.signbit(got[-1])  # sin(-0) = -0
    assert not np.any(np.isnan(got))
    assert np.all(np.isnan(kiln.jit(f, cache_dir=cache_dir)(
        np.array([np.inf, -np.inf, np.nan], np.float32))))


# Each op as a JAX function and as numpy's IEEE arithmetic.
_SUBNORMAL_OPS = {
    "sign": (jnp.sign, np.sign),
    "times_2^100": (lambda x: x * np.float32(2.0**100), lambda x: x * np.float32(2.0**100)),
    "positive": (lambda x: (x > 0).astype(jnp.float32), lambda x: (x > 0).astype(np.float32)),
    "reciprocal": (lambda x: 1 / x, lambda x: np.float32(1) / x),
    "double": (lambda x: x + x, lambda x: x + x),
    "half": (lambda x: x * np.float32(0.5), lambda x: x * np.float32(0.5)),
    "log": (jnp.log, None),
}


@pytest.mark.parametrize("name", sorted(_SUBNORMAL_OPS))
def test_subnormals_flushed_like_jax_jit(cache_dir, name):
    # XLA:CPU flushes subnormals (inputs read as zero, subnormal results
    # written as zero), so jax.jit's sign(1e-45) is 0; kiln.jit does the
    # same by default, bit for bit, and keeps IEEE subnormals with
    # compiler_options={"flush_subnormals": False} (oracle: numpy's IEEE
    # arithmetic).
    x = np.array([1e-45, -1e-45, 3e-39, 1e-40, 1.2e-38, 1.0, -2.5, 0.0], np.float32)
    f, numpy_f = _SUBNORMAL_OPS[name]
    got = np.asarray(kiln.jit(f, cache_dir=cache_dir)(x))
    want = np.asarray(jax.jit(f)(x))
    if name == "log":
        np.testing.assert_allclose(got, want, rtol=2e-7)
    else:
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    ieee = np.asarray(kiln.jit(f, cache_dir=cache_dir,
                               compiler_options={"flush_subnormals": False})(x))
    if name == "log":
        positive = [0, 2, 3]  # the subnormals
        np.testing.assert_allclose(ieee[positive], np.log(x[positive].astype(np.float64)),
                                   rtol=1e-6)
    else:
        with np.errstate(divide="ignore"):
            numpy_result = np.asarray(numpy_f(x), np.float32)
        np.testing.assert_array_equal(ieee.view(np.uint32), numpy_result.view(np.uint32))
    # The caller's floating-point mode is put back: numpy still sees
    # subnormals after the call.
    assert np.float32(1e-45) * np.float32(2.0) > 0


_FLOAT_OPS = {
    **{n: getattr(jax.lax, n) for n in [
        "abs", "neg", "sign", "floor", "ceil", "round", "exp", "exp2", "expm1", "log", "log1p",
        "sqrt", "rsqrt", "cbrt", "tanh", "logistic", "sin", "cos", "tan", "asin", "acos", "atan",
        "sinh", "cosh", "asinh", "acosh", "atanh", "erf", "erfc", "erf_inv", "square",
        "is_finite"]},
    "to_bf16": lambda x: x.astype(jnp.bfloat16).astype(jnp.float32),
    "to_f16": lambda x: x.astype(jnp.float16).astype(jnp.float32),
    "scaled_to_int": lambda x: (x * np.float32(1e38)).astype(jnp.int32),
    "sum": jnp.sum,
    "max0": lambda x: jnp.maximum(x, 0.0),
    "min0": lambda x: jnp.minimum(x, 0.0),
    "eq0": lambda x: (x == 0).astype(jnp.float32),
    "reciprocal": lambda x: 1.0 / x,
    "atan2_x": lambda x: jax.lax.atan2(x, jnp.ones_like(x)),
    "atan2_y": lambda x: jax.lax.atan2(jnp.ones_like(x), x),
    "nextafter_up": lambda x: jax.lax.nextafter(x, jnp.ones_like(x)),
    "nextafter_1e-40": lambda x: jax.lax.nextafter(x, jnp.full_like(x, 1e-40)),
    "clip": lambda x: jnp.clip(x, -1e-39, 1e-39),
    "where": lambda x: jnp.where(x > 0, x, -x),
    "dot": lambda x: jnp.dot(x, x),
    "cumsum": jnp.cumsum,
    "sort": jnp.sort,
    "copysign": lambda x: jnp.copysign(1.0, x),
}


@pytest.mark.parametrize("name", sorted(_FLOAT_OPS))
def test_subnormal_inputs_as_jax_jit(cache_dir, name):
    # Each op on subnormal, zero and ordinary inputs under kiln.jit's
    # default (subnormals flushed) against jax.jit: zeros, subnormals and
    # signs exactly (XLA flushes some functions' tiny arguments to +-0 and
    # returns others' as they are: asin gives 0, tan x), the rest within
    # the functions' few-ulp approximations.
    x = np.array([1e-45, -1e-45, 3e-39, -1e-40, 1.17e-38, 5.8e-39, 0.0, -0.0, 1.0, -2.5,
                  1e-30, 0.5], np.float32)
    f = _FLOAT_OPS[name]
    got = np.asarray(kiln.jit(f, cache_dir=cache_dir)(x))
    want = np.asarray(jax.jit(f)(x))
    assert got.dtype == want.dtype
    if got.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
        return
    tiny = np.abs(want) < np.finfo(np.float32).tiny  # zeros and subnormals
    np.testing.assert_array_equal(got[tiny].view(np.uint32), want[tiny].view(np.uint32))
    number = ~np.isnan(want)  # a NaN's sign bit means nothing
    np.testing.assert_array_equal(np.signbit(got[number]), np.signbit(want[number]))
    np.testing.assert_allclose(got, want, rtol=4e-6)
