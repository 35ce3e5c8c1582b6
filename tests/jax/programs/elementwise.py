"""Elementwise math, integer and boolean arithmetic, conversions, reductions,
random numbers (threefry) and vmap."""

import jax
import jax.numpy as jnp
import numpy as np

from corpus import integers, normal, program, uniform


@program("int_arith", args=lambda: (integers(24, seed=110, low=-50, high=50),
                                    integers(24, seed=111, low=1, high=9)),
         note="floor division and remainder (Python semantics), shifts, bitwise ops")
def int_arith(a, b):
    return (a // b, a % b, jnp.fmod(a, b), a << 2, a >> 1, a & b, a | b, a ^ b, ~a,
            jnp.abs(a), jnp.sign(a), a * b - a, jnp.maximum(a, b), a ** 2)


@program("int_compare", args=lambda: (integers(16, seed=112, low=-5, high=5),
                                      integers(16, seed=113, low=-5, high=5)))
def int_compare(a, b):
    return a < b, a <= b, a == b, a != b, a > b, a >= b, jnp.sum(a > 0)


@program("uint32_bits", args=lambda: (integers(16, seed=114, high=2**31, dtype=np.uint32),),
         note="uint32 wrap-around multiply, logical shift, popcount-free bit tricks")
def uint32_bits(x):
    return (x * np.uint32(2654435761), x >> np.uint32(7), x ^ (x << np.uint32(13)),
            (x % np.uint32(1000)).astype(jnp.int32))


@program("bool_logic", args=lambda: (integers(20, seed=115, high=2).astype(bool),
                                     integers(20, seed=116, high=2).astype(bool)))
def bool_logic(p, q):
    return (p & q, p | q, p ^ q, ~p, jnp.logical_and(p, ~q), jnp.any(p), jnp.all(p | q),
            jnp.sum(p.astype(jnp.int32)), jnp.where(p, 1.5, -0.5))


@program("erf_gelu_family", args=lambda: (normal(40, seed=117, scale=2.0),))
def erf_gelu_family(x):
    return (jax.scipy.special.erf(x), jax.scipy.special.erfc(x),
            jax.scipy.special.erfinv(jnp.tanh(x) * 0.99))


@program("expm1_log1p", args=lambda: (normal(40, seed=118, scale=1e-3), uniform(40, seed=119)))
def expm1_log1p(small, u):
    return jnp.expm1(small), jnp.log1p(small), jnp.log1p(u), jnp.exp(u) - 1.0


@program("atan2_hypot_trig", args=lambda: (normal(30, seed=120), normal(30, seed=121)))
def atan2_hypot_trig(y, x):
    return (jnp.arctan2(y, x), jnp.hypot(y, x), jnp.tan(x * 0.5), jnp.arcsin(jnp.tanh(y)),
            jnp.arccos(jnp.tanh(x)), jnp.arctan(y), jnp.sinh(x), jnp.cosh(y), jnp.arctanh(jnp.tanh(x) * 0.9))


@program("rounding", args=lambda: (normal(40, seed=122, scale=5.0),),
         note="floor/ceil/round (half to even)/trunc and float->int conversion")
def rounding(x):
    halves = jnp.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], x.dtype)
    return (jnp.floor(x), jnp.ceil(x), jnp.round(x), jnp.round(halves), jnp.trunc(x),
            x.astype(jnp.int32), jnp.round(x, 2))


@program("isfinite_nan_to_num", args=lambda: (np.array([0.0, 1.0, -2.0, np.inf, -np.inf, np.nan,
                                                        3.5, np.nan], np.float32),))
def isfinite_nan_to_num(x):
    return (jnp.isfinite(x), jnp.isnan(x), jnp.isinf(x), jnp.nan_to_num(x, posinf=1e3, neginf=-1e3),
            x * 2.0, jnp.where(jnp.isfinite(x), x, 0.0).sum())


@program("pow_sqrt_family", args=lambda: (uniform(30, seed=123, low=0.1, high=4.0), normal(30, seed=124)))
def pow_sqrt_family(p, x):
    return (jnp.sqrt(p), jax.lax.rsqrt(p), jnp.cbrt(x), p ** x, x ** 3, jnp.square(x), 1.0 / p,
            jnp.power(p, 0.5), jnp.log(p), jnp.log2(p), jnp.exp2(x))


@program("conversions", args=lambda: (normal(16, seed=125, scale=100.0), integers(16, seed=126, low=-1000, high=1000)))
def conversions(x, i):
    return (x.astype(jnp.int32), i.astype(jnp.float32) / 3.0, (x > 0).astype(jnp.float32),
            i.astype(jnp.uint32), (i > 0).astype(jnp.int32) * 7, x.astype(jnp.bfloat16).astype(jnp.float32))


@program("reductions_stats", args=lambda: (normal(6, 9, seed=127, scale=2.0),))
def reductions_stats(x):
    return (jnp.sum(x), jnp.mean(x, axis=0), jnp.var(x, axis=1), jnp.std(x), jnp.max(x, axis=1),
            jnp.min(x), jnp.prod(x[:, :3] * 0.5 + 1.0, axis=1), jnp.linalg.norm(x, axis=1))


@program("random_uniform_normal", args=lambda: (np.array([0, 1234], np.uint32),),
         note="jax.random.split/uniform/normal (threefry2x32) from a raw uint32[2] key")
def random_uniform_normal(key):
    k1, k2 = jax.random.split(key)
    return jax.random.uniform(k1, (4, 8)), jax.random.normal(k2, (16,)), jax.random.randint(k2, (5,), 0, 10)


@program("random_categorical_permutation", args=lambda: (np.array([7, 7], np.uint32), normal(3, 6, seed=128)))
def random_categorical_permutation(key, logits):
    k1, k2 = jax.random.split(key)
    return jax.random.categorical(k1, logits, axis=-1), jax.random.permutation(k2, 10)


@program("vmap_softmax_columns", args=lambda: (normal(5, 7, seed=129),),
         note="vmap over axis 1 of a per-vector softmax")
def vmap_softmax_columns(x):
    return jax.vmap(jax.nn.softmax, in_axes=1, out_axes=1)(x)


@program("vmap_per_example_grads", args=lambda: (normal(4, seed=130), normal(10, 4, seed=131), normal(10, seed=132)),
         note="per-example gradients: vmap(grad(loss)) over a batch")
def vmap_per_example_grads(w, xs, ys):
    def loss(w, x, y):
        return (jnp.tanh(x @ w) - y) ** 2

    return jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(w, xs, ys)


@program("vmap_gather_rows", args=lambda: (normal(3, 10, seed=133), integers(3, 4, seed=134, high=10)),
         note="vmap over batched indexing (a batched gather)")
def vmap_gather_rows(x, idx):
    return jax.vmap(lambda row, i: row[i])(x, idx)


@program("vmap_cond", args=lambda: (normal(8, seed=135),),
         note="lax.cond under vmap (becomes select_n)")
def vmap_cond(x):
    return jax.vmap(lambda v: jax.lax.cond(v > 0, jnp.sin, jnp.cos, v))(x)


@program("vmap_while", args=lambda: (uniform(6, seed=136, low=1.0, high=30.0),),
         note="a while_loop under vmap (batched predicate)")
def vmap_while(a):
    def collatz_like(v):
        return jax.lax.while_loop(lambda s: s[0] > 1.0, lambda s: (s[0] * 0.5, s[1] + 1), (v, 0))

    return jax.vmap(collatz_like)(a)


@program("matmul_bias_transpose", args=lambda: (normal(16, 32, seed=137), normal(24, 32, seed=138), normal(24, seed=139)),
         mag=lambda x, w, b: [np.abs(x) @ np.abs(w).T + np.abs(b)])
def matmul_bias_transpose(x, w, b):
    return x @ w.T + b


@program("batched_matmul_einsum", args=lambda: (normal(3, 5, 6, seed=140), normal(3, 6, 4, seed=141)),
         mag=lambda a, b: [np.abs(a) @ np.abs(b), np.abs(a).sum(-1).sum(-1)])
def batched_matmul_einsum(a, b):
    return jnp.einsum("bij,bjk->bik", a, b), jnp.einsum("bij->b", a)


@program("conv2d_nhwc", args=lambda: (normal(2, 8, 8, 3, seed=142), normal(3, 3, 3, 4, seed=143, scale=0.3)),
         note="lax.conv_general_dilated, NHWC/HWIO, SAME padding")
def conv2d_nhwc(x, k):
    return jax.lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


@program("conv2d_nchw_strided_dilated",
         args=lambda: (normal(2, 3, 11, 9, seed=147), normal(5, 3, 3, 2, seed=148, scale=0.3)),
         note="NCHW/OIHW, stride (2, 1), rhs dilation (2, 3), explicit asymmetric padding")
def conv2d_nchw_strided_dilated(x, k):
    return jax.lax.conv_general_dilated(x, k, (2, 1), ((1, 2), (0, 3)), rhs_dilation=(2, 3),
                                        dimension_numbers=("NCHW", "OIHW", "NCHW"))


@program("conv1d_cnn_layer", args=lambda: (normal(4, 16, 2, seed=149), normal(5, 2, 6, seed=150, scale=0.4),
                                           normal(6, seed=151)),
         note="1-D convolution (NWC/WIO, VALID) + bias + relu, as a CNN layer")
def conv1d_cnn_layer(x, k, b):
    y = jax.lax.conv_general_dilated(x, k, (1,), "VALID", dimension_numbers=("NWC", "WIO", "NWC"))
    return jax.nn.relu(y + b)


@program("outer_kron_tri", args=lambda: (normal(4, seed=144), normal(3, seed=145), normal(4, 4, seed=146)))
def outer_kron_tri(a, b, m):
    return jnp.outer(a, b), jnp.kron(a[:2], b), jnp.triu(m, 1), jnp.trace(m), jnp.diag(m)


# Integers halfway (or just short of halfway) between two bf16 numbers once
# rounded to f32: XLA converts to bf16 through f32, rounding twice, so
# uint32 4286578687 (0xFF7FFFFF) becomes 2^32 where one rounding gives
# 4278190080. Kiln's interpreter and JIT convert as XLA does (also
# tests/differential/regressions/convert-bf16-through-f32.mlir).
@program("convert_to_bf16_through_f32",
         args=lambda: (np.array([4286578687, 16777217, 2155872255, 4278190079, 3, 0],
                                dtype=np.uint32),
                       np.array([2139095039, -2139095039, 33587199, -33587199, 16777217, -7],
                                dtype=np.int32)),
         note="uint32/int32 -> bfloat16: rounded through float32, as XLA")
def convert_to_bf16_through_f32(u, i):
    return (u.astype(jnp.bfloat16).astype(jnp.float32),
            i.astype(jnp.bfloat16).astype(jnp.float32))
