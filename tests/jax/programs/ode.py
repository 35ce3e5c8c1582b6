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


def _euler(y0, rate):
    sol = diffrax.diffeqsolve(diffrax.ODETerm(_decay_field), diffrax.Euler(), t0=0.0, t1=1.0,
                              dt0=0.05, y0=y0, args=rate, saveat=diffrax.SaveAt(t1=True),
                              stepsize_controller=diffrax.ConstantStepSize(), max_steps=32)
    return sol.ys


def _tsit5(y0):
    sol = diffrax.diffeqsolve(diffrax.ODETerm(_lotka_volterra), diffrax.Tsit5(), t0=0.0, t1=2.0,
                              dt0=0.1, y0=y0, args=(1.1, 0.4, 0.4, 0.1),
                              saveat=diffrax.SaveAt(t1=True),
                              stepsize_controller=diffrax.ConstantStepSize(), max_steps=32)
    return sol.ys


# equinox's error mode for each trace: EQX_ON_ERROR=raise (its default) emits
# a pure_callback (a call back into Python, which no compiler can run) for
# each runtime check (eqx.error_if, which diffrax uses); EQX_ON_ERROR=nan
# gives NaN instead. The mode is read when a function is traced, but JAX
# caches the traces of diffeqsolve's inner jits without it: the caches are
# cleared whenever a trace switches mode (not on every trace, so that jax.jit
# of one program stays cached while it is timed).
_TRACED_MODE: list = [None]


def _errors_as(mode, fn):
    import functools

    import equinox._errors as eqx_errors
    import jax

    @functools.wraps(fn)
    def wrapped(*args):
        if _TRACED_MODE[0] != mode:
            jax.clear_caches()
            _TRACED_MODE[0] = mode
        saved, eqx_errors.EQX_ON_ERROR = eqx_errors.EQX_ON_ERROR, mode
        try:
            return fn(*args)
        finally:
            eqx_errors.EQX_ON_ERROR = saved
    return wrapped


@program("diffrax_euler_fixed_step", args=lambda: (normal(4, seed=150), jnp.float32(0.7)),
         note="diffrax.Euler, dt0=0.05 over [0, 1] (20 steps), SaveAt(t1=True)")
def diffrax_euler_fixed_step(y0, rate):
    return _errors_as("raise", _euler)(y0, rate)


@program("diffrax_tsit5_fixed_step", args=lambda: (jnp.array([1.0, 0.5], jnp.float32),),
         k=256.0,
         note="diffrax.Tsit5 on Lotka-Volterra, dt0=0.1 over [0, 2], SaveAt(t1=True); "
              "k=256: 20 steps of a 7-stage method")
def diffrax_tsit5_fixed_step(y0):
    return _errors_as("raise", _tsit5)(y0)


program("diffrax_euler_errors_as_nan", args=lambda: (normal(4, seed=150), jnp.float32(0.7)),
        note="diffrax_euler_fixed_step traced with EQX_ON_ERROR=nan (no pure_callback)")(
    _errors_as("nan", _euler))
program("diffrax_tsit5_errors_as_nan", args=lambda: (jnp.array([1.0, 0.5], jnp.float32),), k=256.0,
        note="diffrax_tsit5_fixed_step traced with EQX_ON_ERROR=nan (no pure_callback)")(
    _errors_as("nan", _tsit5))
