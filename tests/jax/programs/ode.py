"""ODE solves with diffrax at a constant step size (a fixed number of steps),
saving only the final state, as a JAX user writes them."""

import diffrax
import jax.numpy as jnp

from corpus import normal, program


def _decay_field(t, y, args):
    return -args * y + jnp.sin(t)


def _lotka_volterra(t, y, args):
    prey, predator = y
    a, b, c, d = args
    return jnp.stack([a * prey - b * prey * predator, d * prey * predator - c * predator])


@program("diffrax_euler_fixed_step", args=lambda: (normal(4, seed=150), jnp.float32(0.7)),
         note="diffrax.Euler, dt0=0.05 over [0, 1] (20 steps), SaveAt(t1=True)")
def diffrax_euler_fixed_step(y0, rate):
    sol = diffrax.diffeqsolve(diffrax.ODETerm(_decay_field), diffrax.Euler(), t0=0.0, t1=1.0,
                              dt0=0.05, y0=y0, args=rate, saveat=diffrax.SaveAt(t1=True),
                              stepsize_controller=diffrax.ConstantStepSize(), max_steps=32)
    return sol.ys


@program("diffrax_tsit5_fixed_step", args=lambda: (jnp.array([1.0, 0.5], jnp.float32),),
         k=256.0,
         note="diffrax.Tsit5 on Lotka-Volterra, dt0=0.1 over [0, 2], SaveAt(t1=True); "
              "k=256: 20 steps of a 7-stage method")
def diffrax_tsit5_fixed_step(y0):
    sol = diffrax.diffeqsolve(diffrax.ODETerm(_lotka_volterra), diffrax.Tsit5(), t0=0.0, t1=2.0,
                              dt0=0.1, y0=y0, args=(1.1, 0.4, 0.4, 0.1),
                              saveat=diffrax.SaveAt(t1=True),
                              stepsize_controller=diffrax.ConstantStepSize(), max_steps=32)
    return sol.ys


def _errors_as_nan(fn):
    """`fn` traced with equinox's EQX_ON_ERROR=nan: its runtime checks
    (eqx.error_if, which diffrax uses) give NaN instead of calling back into
    Python to raise (a pure_callback, which no compiler can run). The mode
    is equinox's own, read when the function is traced."""
    import functools

    import equinox._errors as eqx_errors

    import jax

    @functools.wraps(fn)
    def wrapped(*args):
        # JAX caches the traces of diffeqsolve's inner jits, which do not
        # see the mode: traced afresh here, and forgotten afterwards so that
        # the "raise" programs are traced afresh too.
        jax.clear_caches()
        saved, eqx_errors.EQX_ON_ERROR = eqx_errors.EQX_ON_ERROR, "nan"
        try:
            return fn(*args)
        finally:
            eqx_errors.EQX_ON_ERROR = saved
            jax.clear_caches()
    return wrapped


program("diffrax_euler_errors_as_nan", args=lambda: (normal(4, seed=150), jnp.float32(0.7)),
        note="diffrax_euler_fixed_step traced with EQX_ON_ERROR=nan (no pure_callback)")(
    _errors_as_nan(diffrax_euler_fixed_step))
program("diffrax_tsit5_errors_as_nan", args=lambda: (jnp.array([1.0, 0.5], jnp.float32),), k=256.0,
        note="diffrax_tsit5_fixed_step traced with EQX_ON_ERROR=nan (no pure_callback)")(
    _errors_as_nan(diffrax_tsit5_fixed_step))
