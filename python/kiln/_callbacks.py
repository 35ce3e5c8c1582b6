"""Host callbacks: the Python functions a traced program calls.

A jaxpr can call back into Python: ``jax.pure_callback``, ``io_callback``,
``jax.debug.callback``, ``jax.debug.print`` and equinox's runtime checks
(``eqx.error_if``, which lineax, optimistix and diffrax use, raise through a
``pure_callback``). Their parameters are Python objects that no printed
jaxpr can carry. ``extract_host_callbacks`` replaces each such equation by
``kiln_host_callback[index=k name=...]`` (the importer's
``lax.host_callback``) and keeps what it replaced in a ``HostCallbacks``
table; the compiled code calls the table with the callback's number and
the addresses of its buffers (runtime/cpu/KilnGuardedCall.cpp). An
exception raised by a callback ends the compiled call and is raised again,
as it was raised, by the call of the kiln.jit function.

The callbacks run as JAX runs them under jax.jit on the CPU (JAX's own
implementation rules: arguments as jax Arrays, copied out of Kiln's
buffers, so a callback may keep them). The table belongs to one traced
signature: the compiled code only knows the numbers, so two programs that
differ only in their callbacks share compiled code (and cache entries).
"""
from __future__ import annotations

import ctypes
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _kiln
from ._jaxpr import jax_core, primitives

# Primitives that call back into Python.
CALLBACK_PRIMITIVES = frozenset({"pure_callback", "io_callback", "debug_callback", "debug_print"})

_primitive = None


def _host_callback_primitive():
    """The stand-in primitive the importer reads (never bound or evaluated)."""
    global _primitive
    if _primitive is None:
        core = jax_core()
        _primitive = core.Primitive("kiln_host_callback")
        _primitive.multiple_results = True
    return _primitive


@dataclass
class _Callback:
    primitive: Any
    params: dict
    in_avals: tuple
    out_avals: tuple

    def run(self, args: list) -> list:
        """Runs the callback on `args` (NumPy arrays) as JAX's own CPU
        implementation of the primitive does: arguments placed on the CPU
        device as jax Arrays, results as NumPy arrays."""
        return list(_impl(self.primitive)(*args, **self.params) or ())


def _impl(primitive):
    """JAX's evaluation rule of a callback primitive, without the XLA
    compilation that `primitive.impl` (dispatch.apply_primitive) adds."""
    from jax._src import callback, debugging
    return {"pure_callback": callback.pure_callback_impl,
            "io_callback": callback.io_callback_impl,
            "debug_callback": debugging.debug_callback_impl}.get(primitive.name, primitive.impl)


def _callback_name(eqn) -> str:
    """A readable name of the Python function an equation calls (for
    messages and the printed lax), as a jaxpr identifier."""
    cb = eqn.params.get("callback")
    fn = getattr(cb, "callback_func", cb)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    name = name or eqn.primitive.name
    name = re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_") or "callback"
    return name if not name[0].isdigit() else "f_" + name


def _buffer(address: int, aval) -> np.ndarray:
    """A writable NumPy view of Kiln's dense buffer at `address`."""
    dtype = np.dtype(aval.dtype)
    nbytes = math.prod(aval.shape) * dtype.itemsize
    if nbytes == 0:
        return np.zeros(aval.shape, dtype)
    raw = (ctypes.c_char * nbytes).from_address(address)
    return np.frombuffer(raw, dtype=dtype).reshape(aval.shape)


class HostCallbacks:
    """The callbacks of one traced signature, numbered as the compiled code
    calls them. Calling it runs one (the native module does, from inside
    the compiled code)."""

    def __init__(self, callbacks: list[_Callback]):
        self.callbacks = callbacks

    def __len__(self) -> int:
        return len(self.callbacks)

    def __call__(self, index: int, address: int) -> None:
        cb = self.callbacks[index]
        n_in = len(cb.in_avals)
        pointers = (ctypes.c_void_p * (n_in + len(cb.out_avals))).from_address(address)
        args = [np.array(_buffer(pointers[i] or 0, a)) for i, a in enumerate(cb.in_avals)]
        try:
            outs = cb.run(args)
        except RuntimeError as e:
            _raise_equinox_error(e)
            raise
        if len(outs) != len(cb.out_avals):
            raise TypeError(f"host callback {_describe(cb)} returned {len(outs)} values, "
                            f"its declared results are {len(cb.out_avals)}")
        for j, (value, aval) in enumerate(zip(outs, cb.out_avals)):
            value = np.asarray(value)
            if value.shape != tuple(aval.shape) or value.dtype != np.dtype(aval.dtype):
                raise TypeError(
                    f"host callback {_describe(cb)}: result {j} is "
                    f"{value.dtype}{list(value.shape)}, declared as "
                    f"{np.dtype(aval.dtype)}{list(aval.shape)} (result_shape_dtypes)")
            np.copyto(_buffer(pointers[n_in + j] or 0, aval), value, casting="no")


def _raise_equinox_error(e: RuntimeError) -> None:
    """equinox's runtime checks (eqx.error_if) raise an internal exception
    that eqx.filter_jit turns into equinox.EquinoxRuntimeError with the
    check's message; Kiln's call does the same (under kiln.jit too: the
    compiled call raises the exception itself, not an XLA error around it)."""
    if type(e).__name__ != "_EquinoxRuntimeError":
        return
    try:
        from equinox import _jit as eqx_jit
    except ImportError:
        return
    info = getattr(eqx_jit, "last_error_info", None)
    msg = info[0] if info else str(e)
    raise eqx_jit.EquinoxRuntimeError(msg) from None


def _describe(cb: _Callback) -> str:
    fn = cb.params.get("callback")
    fn = getattr(fn, "callback_func", fn)
    return f"'{getattr(fn, '__qualname__', cb.primitive.name)}'"


class _Extraction:
    def __init__(self):
        self.callbacks: list[_Callback] = []
        self.memo: dict[int, tuple[Any, Any]] = {}  # id -> (original, rewritten)

    def jaxpr(self, jaxpr):
        hit = self.memo.get(id(jaxpr))
        if hit is not None and hit[0] is jaxpr:
            return hit[1]
        core = jax_core()
        eqns, changed = [], False
        for eqn in jaxpr.eqns:
            if eqn.primitive.name in CALLBACK_PRIMITIVES:
                in_avals = tuple(v.aval for v in eqn.invars)
                out_avals = tuple(v.aval for v in eqn.outvars)
                self._check_avals(eqn, in_avals + out_avals)
                index = len(self.callbacks)
                self.callbacks.append(_Callback(eqn.primitive, dict(eqn.params), in_avals,
                                                out_avals))
                eqn = eqn.replace(primitive=_host_callback_primitive(),
                                  params={"index": index, "name": _callback_name(eqn)})
                changed = True
            else:
                params = {k: self.param(v) for k, v in eqn.params.items()}
                if any(params[k] is not eqn.params[k] for k in params):
                    eqn = eqn.replace(params=params)
                    changed = True
            eqns.append(eqn)
        out = jaxpr.replace(eqns=eqns) if changed else jaxpr
        self.memo[id(jaxpr)] = (jaxpr, out)
        return out

    def param(self, value):
        core = jax_core()
        if isinstance(value, core.ClosedJaxpr):
            hit = self.memo.get(id(value))
            if hit is not None and hit[0] is value:
                return hit[1]
            inner = self.jaxpr(value.jaxpr)
            out = value if inner is value.jaxpr else core.ClosedJaxpr(inner, value.consts)
            self.memo[id(value)] = (value, out)
            return out
        if isinstance(value, core.Jaxpr):
            return self.jaxpr(value)
        if type(value) is tuple:  # not a NamedTuple (GatherDimensionNumbers)
            items = tuple(self.param(v) for v in value)
            return value if all(a is b for a, b in zip(items, value)) else items
        return value

    @staticmethod
    def _check_avals(eqn, avals) -> None:
        import jax
        for a in avals:
            if jax.dtypes.issubdtype(a.dtype, jax.dtypes.prng_key):
                raise _kiln.Error(
                    f"kiln.jit: a host callback ({eqn.primitive.name}) that takes or returns "
                    "typed PRNG keys is not supported; pass jax.random.key_data(key)")


def extract_host_callbacks(closed) -> tuple[Any, HostCallbacks | None]:
    """`closed` (a ClosedJaxpr) with its callback equations replaced by
    numbered ``kiln_host_callback`` equations, and their table; `closed`
    itself and None when it has none."""
    if CALLBACK_PRIMITIVES.isdisjoint(primitives(closed)):
        return closed, None
    core = jax_core()
    extraction = _Extraction()
    inner = extraction.jaxpr(closed.jaxpr)
    return core.ClosedJaxpr(inner, closed.consts), HostCallbacks(extraction.callbacks)
