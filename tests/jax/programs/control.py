"""Control flow: scans (RNN and LSTM cells, reverse, several carries, consts,
unroll), cumulative ops, while/fori loops, cond and switch."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from corpus import integers, normal, program, uniform


def _rnn_args():
    return (normal(12, 4, 8, seed=50), normal(8, 16, seed=51, scale=0.3),
            normal(16, 16, seed=52, scale=0.2), normal(16, seed=53, scale=0.1))


@program("rnn_tanh_scan", args=_rnn_args,
         note="Elman RNN over time (xs[T, B, D]); weights are scan consts")
def rnn_tanh_scan(xs, wx, wh, b):
    def cell(h, x):
        h = jnp.tanh(x @ wx + h @ wh + b)
        return h, h

    h0 = jnp.zeros((xs.shape[1], wh.shape[0]), xs.dtype)
    h, hs = lax.scan(cell, h0, xs)
    return h, hs


def _lstm_args():
    d, h = 6, 8
    return (normal(10, 3, d, seed=54), normal(d, 4 * h, seed=55, scale=0.3),
            normal(h, 4 * h, seed=56, scale=0.3), normal(4 * h, seed=57, scale=0.1))


@program("lstm_scan_reverse", args=_lstm_args,
         note="LSTM cell, carries (h, c), reverse=True")
def lstm_scan_reverse(xs, wx, wh, b):
    def cell(carry, x):
        h, c = carry
        gates = x @ wx + h @ wh + b
        i, f, g, o = jnp.split(gates, 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h

    zeros = jnp.zeros((xs.shape[1], wh.shape[0]), xs.dtype)
    (h, c), hs = lax.scan(cell, (zeros, zeros), xs, reverse=True)
    return h, c, hs


@program("scan_carries_unroll2", args=lambda: (normal(16, 5, seed=58), normal(5, seed=59)),
         note="three carries (one int), stacked output pair, unroll=2")
def scan_carries_unroll2(xs, scale):
    def body(carry, x):
        total, prod_like, count = carry
        total = total + x * scale
        prod_like = prod_like * 0.9 + jnp.sin(x)
        return (total, prod_like, count + 1), (total - prod_like, jnp.max(x))

    init = (jnp.zeros(5), jnp.ones(5), jnp.int32(0))
    carry, ys = lax.scan(body, init, xs, unroll=2)
    return carry, ys


@program("scan_no_xs_length", args=lambda: (normal(3, seed=60),),
         note="scan with xs=None and length=20 (a recurrence)")
def scan_no_xs_length(x0):
    def body(x, _):
        x = 0.5 * x + jnp.cos(x)
        return x, x * x

    return lax.scan(body, x0, None, length=20)


@program("cumsum_cumprod", args=lambda: (uniform(6, 20, seed=61, low=0.5, high=1.5),))
def cumsum_cumprod(x):
    return jnp.cumsum(x, axis=1), jnp.cumprod(x, axis=1), jnp.cumsum(x[::-1], axis=0)


@program("cummax_cummin_cumlogsumexp", args=lambda: (normal(4, 25, seed=62),))
def cummax_cummin_cumlogsumexp(x):
    return (lax.cummax(x, axis=1), lax.cummin(x, axis=0, reverse=True),
            lax.cumlogsumexp(x, axis=1))


@program("cumsum_int", args=lambda: (integers(30, seed=63, low=-5, high=5),))
def cumsum_int(x):
    return jnp.cumsum(x), jnp.diff(x)


def _spd_args():
    n = 8
    a = normal(n, n, seed=64, scale=0.1)
    a = (a @ a.T + np.eye(n, dtype=np.float32) * 2.0).astype(np.float32)
    return a, normal(n, seed=65)


@program("while_jacobi_solver", args=_spd_args, k=4096.0,
         note="Jacobi iteration to tolerance 1e-5 in lax.while_loop; the iterate "
              "is compared loosely (k=4096: a different rounding can stop one step apart)")
def while_jacobi_solver(a, b):
    d = jnp.diag(a)
    r = a - jnp.diag(d)

    def cond(state):
        x, i, err = state
        return (err > 1e-5) & (i < 200)

    def body(state):
        x, i, _ = state
        x_new = (b - r @ x) / d
        return x_new, i + 1, jnp.max(jnp.abs(x_new - x))

    x, iters, _ = lax.while_loop(cond, body, (jnp.zeros_like(b), 0, jnp.inf))
    return x, iters


@program("while_newton_sqrt", args=lambda: (uniform(16, seed=66, low=0.5, high=50.0),))
def while_newton_sqrt(a):
    def cond(state):
        x, i = state
        return (jnp.max(jnp.abs(x * x - a) / a) > 1e-6) & (i < 50)

    def body(state):
        x, i = state
        return 0.5 * (x + a / x), i + 1

    x, i = lax.while_loop(cond, body, (a, 0))
    return x, i


@program("fori_loop_static", args=lambda: (normal(4, 4, seed=67, scale=0.5), normal(4, seed=68)),
         note="fori_loop with Python bounds (becomes a scan)")
def fori_loop_static(m, v):
    return lax.fori_loop(0, 10, lambda i, v: jnp.tanh(m @ v) + i.astype(v.dtype) * 0.01, v)


@program("fori_loop_dynamic", args=lambda: (normal(6, seed=69), np.int32(7)),
         note="fori_loop with a traced trip count (a while_loop)")
def fori_loop_dynamic(x, n):
    return lax.fori_loop(0, n, lambda i, x: x * 0.5 + jnp.sin(x), x)


@program("cond_scalar_pred", args=lambda: (normal(8, seed=70), np.float32(0.3)))
def cond_scalar_pred(x, t):
    return lax.cond(t > 0, lambda x: jnp.exp(x) - 1.0, lambda x: -x * x, x)


@program("cond_pytree_operands", args=lambda: (np.int32(3), normal(4, seed=71), normal(4, seed=72)))
def cond_pytree_operands(n, a, b):
    return lax.cond(n % 2 == 0, lambda a, b: (a + b, a * b), lambda a, b: (a - b, a / (1 + b * b)),
                    a, b)


@program("switch_three_branches", args=lambda: (np.int32(2), normal(8, seed=73)))
def switch_three_branches(i, x):
    return lax.switch(i, [jnp.sin, jnp.cos, lambda x: jnp.tanh(x) * 3.0], x)


@program("piecewise_select", args=lambda: (normal(32, seed=74, scale=2.0),),
         note="jnp.piecewise (switch under vmap becomes select_n)")
def piecewise_select(x):
    return jnp.piecewise(x, [x < -1, x > 1], [lambda x: -x - 0.5, lambda x: x * x, lambda x: x])
