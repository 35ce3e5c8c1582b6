"""The five seed issues' programs (the public threads README.md lists), their code kept verbatim.

Sizes are smaller than the seeds' where the seed sizes would make the corpus
slow (seed 000's 600x821 weights times 32x100 vectors, seed 003's 100000x100
systems); the programs are the same.
"""

import functools as ft
from functools import partial

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from flax import linen as nn
from jax import lax

from corpus import normal, program, uniform

# ---------------------------------------------------------------------------
# Seed 000: order of the arguments to dot_general (double vmap vs einsum).
# ---------------------------------------------------------------------------


@jax.jit
@ft.partial(jax.vmap, in_axes=(None, 0))
@ft.partial(jax.vmap, in_axes=(None, 0))
def f1(w, a):
    return w @ a


@jax.jit
def f2(w, a):
    return jnp.einsum('a b, ... b -> ... a', w, a)


def _seed000_args():
    # Seed: w (600, 821), a (32, 100, 821).
    return normal(64, 96, seed=0), normal(8, 16, 96, seed=1)


def _seed000_mag(w, a):
    # Terms of each dot product: sum_b |w_ab * a_..b|.
    return [np.einsum("ab,...b->...a", np.abs(w), np.abs(a))]


program("seed000_f1_double_vmap", args=_seed000_args, mag=_seed000_mag,
        note="seed 000 at w[64,96], a[8,16,96]")(f1)
program("seed000_f2_einsum", args=_seed000_args, mag=_seed000_mag,
        note="seed 000 at w[64,96], a[8,16,96]")(f2)

# ---------------------------------------------------------------------------
# Seed 001: an inner jit function called ten times, with and without inline.
# ---------------------------------------------------------------------------


@partial(jax.jit, inline=True)
def inner_fn(state):
    print("entering inner_fn now")
    return 2*state


@jax.jit
def outer_fn(x):
    print("entering outer_fn now")
    old_x = x
    for _ in range(10):
        x = inner_fn(x)
    x = x + old_x
    return x


@jax.jit
def inner_fn_noinline(state):
    return 2*state


@jax.jit
def outer_fn_noinline(x):
    old_x = x
    for _ in range(10):
        x = inner_fn_noinline(x)
    x = x + old_x
    return x


def _seed001_args():
    return (np.arange(5, dtype=np.uint32),)


# print() above runs at trace time only; silence it for the corpus.
def _quiet(f):
    @ft.wraps(f)
    def wrapped(*args):
        import contextlib
        import io
        with contextlib.redirect_stdout(io.StringIO()):
            return f(*args)
    return wrapped


program("seed001_ten_calls_inline", args=_seed001_args,
        note="jit(inline=True) inner_fn, uint32")(_quiet(outer_fn))
program("seed001_ten_calls", args=_seed001_args,
        note="jit inner_fn without inline: ten jit calls, uint32")(outer_fn_noinline)

# ---------------------------------------------------------------------------
# Seed 002: an MSE over a scan's stacked output, and the same with the
# reduction pushed into the scan.
# ---------------------------------------------------------------------------


def _seed002_args():
    # x1 = jnp.ones((10, 5, 8)); x2 = jnp.ones((30, 15, 12)); y = jnp.ones((30, 15, 12))
    return normal(10, 5, 8, seed=2), normal(30, 15, 12, seed=3), normal(30, 15, 12, seed=4)


seed002_before = program("seed002_mse_before", args=_seed002_args)(
    lambda x1, x2, y: jnp.square(y - lax.scan(lambda c, xs: (jnp.sin(c), jnp.cos(xs)), x1, x2)[1]).mean()
)


@program("seed002_mse_after", args=_seed002_args,
         note="the seed's hand-written 'after' jaxpr in Python")
def seed002_after(x1, x2, y):
    def body(c, xs):
        x, yy = xs
        return jnp.sin(c), jnp.sum(jnp.square(yy - jnp.cos(x)), axis=(0, 1))

    _, sums = lax.scan(body, x1, (x2, y))
    return jnp.sum(sums, axis=0) / 5400.0


# ---------------------------------------------------------------------------
# Seed 003: TDMA (tridiagonal solver) as two scans.
# ---------------------------------------------------------------------------


def tdma_jax_kernel(a, b, c, d):
    def compute_primes(last_primes, x):
        last_cp, last_dp = last_primes
        a, b, c, d = x
        denom = 1. / (b - a * last_cp)
        cp = c * denom
        dp = (d - a * last_dp) * denom
        new_primes = (cp, dp)
        return new_primes, new_primes

    diags = (a.T, b.T, c.T, d.T)
    init = jnp.zeros((a.shape[1], a.shape[0]))
    _, (cp, dp) = jax.lax.scan(compute_primes, (init, init), diags)

    def backsubstitution(last_x, x):
        cp, dp = x
        new_x = dp - cp * last_x
        return new_x, new_x

    _, sol = jax.lax.scan(backsubstitution, init, (cp[::-1], dp[::-1]))
    return sol[::-1].T


def _seed003_args():
    # Seed: (100_000, 100). Diagonally dominant systems (|b| > |a| + |c|).
    n, m = 256, 32
    return (uniform(n, m, seed=5), uniform(n, m, seed=6, low=3.0, high=4.0),
            uniform(n, m, seed=7), normal(n, m, seed=8))


program("seed003_tdma", args=_seed003_args,
        note="seed 003 verbatim at (256, 32): its init zeros((m, n)) broadcasts the "
             "carry to [m, n], so the result is [n, m, m]")(tdma_jax_kernel)


@program("seed003_tdma_batch_carry", args=_seed003_args,
         note="seed 003 with init = zeros(n), the carry one row per system "
              "(examples/seeds/seed003_tdma.jaxpr)")
def tdma_batch_carry(a, b, c, d):
    def compute_primes(last_primes, x):
        last_cp, last_dp = last_primes
        a, b, c, d = x
        denom = 1. / (b - a * last_cp)
        cp = c * denom
        dp = (d - a * last_dp) * denom
        new_primes = (cp, dp)
        return new_primes, new_primes

    diags = (a.T, b.T, c.T, d.T)
    init = jnp.zeros(a.shape[0])
    _, (cp, dp) = jax.lax.scan(compute_primes, (init, init), diags)

    def backsubstitution(last_x, x):
        cp, dp = x
        new_x = dp - cp * last_x
        return new_x, new_x

    _, sol = jax.lax.scan(backsubstitution, init, (cp[::-1], dp[::-1]))
    return sol[::-1].T

# ---------------------------------------------------------------------------
# Seed 004: Equinox and Flax MLPs, the model closed over or passed in.
# ---------------------------------------------------------------------------


class EqxMLP(eqx.Module):
    layers: list

    def __init__(self, key):
        keys = jax.random.split(key, 3)
        self.layers = [
            eqx.nn.Linear(4, 64, key=keys[0]),
            eqx.nn.Linear(64, 64, key=keys[1]),
            eqx.nn.Linear(64, 2, key=keys[2]),
        ]

    def __call__(self, x):
        x = jax.nn.relu(self.layers[0](x))
        x = jax.nn.relu(self.layers[1](x))
        return self.layers[2](x)


class FlaxMLP(nn.Module):

    @nn.compact
    def __call__(self, x):
        x = jax.nn.relu(nn.Dense(64)(x))
        x = jax.nn.relu(nn.Dense(64)(x))
        x = nn.Dense(2)(x)
        return x


key = jax.random.key(42)
key, subkey = jax.random.split(key)
init = jax.random.uniform(subkey, shape=(4,))

key, subkey = jax.random.split(key)
eqxmlp = EqxMLP(subkey)
flaxmlp = FlaxMLP()
params = flaxmlp.init(key, jnp.ones((4,)))


def _seed004_x():
    return np.asarray(init)


# The model captured by the jitted function (closure).

@jax.jit
def f_eqx(x):
    return eqxmlp(x)

@jax.jit
def f_flax(x):
    return flaxmlp.apply(params, x)


program("seed004_eqx_closure", args=lambda: (_seed004_x(),))(f_eqx)
program("seed004_flax_closure", args=lambda: (_seed004_x(),))(f_flax)

# The model (its parameters) passed as an argument (the seed's second part
# redefines f_eqx and f_flax; the closure versions are registered above).

@jax.jit
def f_eqx(x, model):
    return model(x)

@eqx.filter_jit
def filter_eqx(x, model):
    return model(x)

@partial(jax.jit, static_argnums=(1))
def f_flax(x, model, params):
    return model.apply(params, x)


program("seed004_eqx_arg", args=lambda: (_seed004_x(), eqxmlp),
        note="jax.jit(f_eqx)(x, model)")(f_eqx)
program("seed004_eqx_filter_jit_arg", args=lambda: (_seed004_x(), eqxmlp),
        note="eqx.filter_jit(filter_eqx)(x, model)")(filter_eqx)
program("seed004_flax_arg", args=lambda: (_seed004_x(), params),
        note="f_flax(x, model, params) with the model static")(
    lambda x, params: f_flax(x, flaxmlp, params))
