"""kiln.jit under JAX's transformations: one JAX primitive, ``kiln_call``.

A kiln.jit function called with tracers (inside jax.jit, jax.grad,
jax.vmap, a lax.scan body, jax.checkpoint, or any nesting of them) binds
``kiln_call`` on its array leaves instead of reading them. The primitive's
parameter is a `Fn`: a function of array leaves as a closed jaxpr (traced
once per signature, other kiln.jit functions inside it inlined), with what
Kiln compiled of it and the functions derived from it:

- evaluation: on the CPU, Kiln's compiled code — called directly on
  concrete arrays, or, inside an XLA program, through the XLA FFI custom
  call ``kiln_call`` that kiln.kernel uses; on another platform, the jaxpr
  lowered by JAX (Kiln compiles for the CPU only);
- JVP: ``kiln_call`` of the function itself, and ``kiln_call`` of JAX's JVP
  of it (``jax.jvp`` traced once per set of nonzero tangents), linear in
  the tangents;
- transposition (of such a linear function, for reverse mode: jax.grad,
  jax.vjp): ``kiln_call`` of JAX's VJP of it with respect to the linear
  inputs, so that ``jax.grad(kiln.jit(f))`` runs Kiln's code forward and
  backward;
- batching: ``kiln_call`` of ``jax.vmap`` of it for the batched axes.

Every derived function is compiled by Kiln with the kiln.jit function's
rules and options. One that Kiln cannot import or compile (a primitive of
JAX's derivative its importer does not read) is evaluated by JAX instead,
with a `kiln.FallbackWarning` naming it, once; the function the user gave
kiln.jit raises kiln.jit's error, as a call outside a transformation does.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable, Sequence

import numpy as np

from . import _kiln
from ._callbacks import extract_host_callbacks
from ._jaxpr import jax_core
from ._jit import Compiled, Options, Traced, _jax, inline, to_cpu


class FallbackWarning(UserWarning):
    """A function derived from a kiln.jit function under a JAX
    transformation (its JVP, its transpose, its batched form) that Kiln
    cannot compile, evaluated by JAX instead."""


def is_tracer(x) -> bool:
    return isinstance(x, _jax().core.Tracer)


def _is_float(dtype) -> bool:
    return np.issubdtype(dtype, np.inexact)


def _sds(aval):
    jax = _jax()
    return jax.ShapeDtypeStruct(aval.shape, aval.dtype, weak_type=getattr(aval, "weak_type", False))


def _zeros(aval):
    return _jax().numpy.zeros(aval.shape, aval.dtype)


# Every Fn compiled, for the life of the process: XLA's cached executables
# hold the addresses of their code.
_KEPT: list = []


class Fn:
    """A function of array leaves for kiln_call: its closed jaxpr, what Kiln
    compiled of it (or why not), the functions derived from it. Hashed by
    identity (JAX's caches key on equation parameters)."""

    def __init__(self, closed, options: Options, name: str, derived_from: "Fn | None" = None):
        self.closed = closed
        self.options = options
        self.name = name
        self.derived_from = derived_from
        self.out_avals = tuple(closed.out_avals)
        self._compiled: Compiled | None = None
        self._error: Exception | None = None
        self._derived: dict = {}
        self._jitted_jax = None

    @staticmethod
    def trace(fun: Callable, avals: Sequence[Any], options: Options, name: str,
              derived_from: "Fn | None" = None) -> "Fn":
        with inline():
            closed = _jax().make_jaxpr(fun)(*avals)
        return Fn(_dce(closed), options, name, derived_from)

    def __repr__(self) -> str:
        return self.name

    @property
    def fun(self) -> Callable:
        """The function as JAX evaluates it (the jaxpr's primitives)."""
        jaxpr_as_fun = jax_core().jaxpr_as_fun
        return jaxpr_as_fun(self.closed)

    def derived(self, key, make: Callable[[], "Fn"]) -> "Fn":
        fn = self._derived.get(key)
        if fn is None:
            fn = self._derived[key] = make()
        return fn

    def compiled(self) -> Compiled | None:
        """Kiln's compiled code of the function, compiled on first use; None
        when Kiln cannot compile a derived function (warned once)."""
        if self._compiled is None and self._error is None:
            jax = _jax()
            n = len(self.out_avals)
            closed, callbacks = extract_host_callbacks(self.closed)
            traced = Traced(closed, jax.tree_util.tree_structure([0] * n), self.name,
                            callbacks=callbacks, jax_closed=self.closed)
            from ._jit import import_traced
            try:
                compiled = Compiled.build(traced, import_traced(traced), self.options)
            except _kiln.Error as e:
                if self.derived_from is None:
                    raise
                self._error = e
                first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                warnings.warn(f"kiln.jit: {self.name} is evaluated by JAX, not compiled by Kiln: "
                              f"{first}", FallbackWarning, stacklevel=2)
                return None
            _KEPT.append(compiled)
            self._compiled = compiled
        return self._compiled

    def evaluate(self, args: Sequence[Any]) -> list:
        """The function on concrete arrays: Kiln's code, or JAX's jit."""
        compiled = self.compiled()
        if compiled is None:
            jax = _jax()
            if self._jitted_jax is None:
                self._jitted_jax = jax.jit(self.fun)
            return list(self._jitted_jax(*args))
        in_avals = self.closed.in_avals
        outs = compiled.function.call_flat([np.asarray(a, dtype=v.dtype) for a, v in zip(args, in_avals)])
        if len(self.out_avals) == 1 and not isinstance(outs, list):
            outs = [outs]
        return [_with_weak_type(to_cpu(o), aval) for o, aval in zip(outs, self.out_avals)]


def _dce(closed):
    """`closed` without the equations and the nested jaxprs' outputs nobody
    reads (JAX's derivatives leave some: a select of the primal inside a
    jitted `where` whose tangent alone is used); every input kept."""
    try:
        from jax._src.interpreters import partial_eval as pe
        ClosedJaxpr = jax_core().ClosedJaxpr
        jaxpr, _ = pe.dce_jaxpr(closed.jaxpr, [True] * len(closed.jaxpr.outvars), instantiate=True)
        return ClosedJaxpr(jaxpr, closed.consts)
    except Exception:  # pragma: no cover - JAX moved it: the jaxpr as traced
        return closed


def _with_weak_type(x, aval):
    if getattr(aval, "weak_type", False):
        from jax._src.lax.lax import _convert_element_type
        return _convert_element_type(x, aval.dtype, weak_type=True)
    return x


# -- the primitive -------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def primitive():
    """kiln_call, defined (with its rules) once per process, when first
    needed: importing kiln touches none of JAX's tables."""
    jax = _jax()
    Primitive = jax_core().Primitive
    from jax.interpreters import ad, batching, mlir

    p = Primitive("kiln_call")
    p.multiple_results = True

    p.def_impl(lambda *args, fn: fn.evaluate(args))
    p.def_abstract_eval(lambda *avals, fn: list(fn.out_avals))

    def lower_jax(ctx, *args, fn):
        return mlir.lower_fun(fn.fun, multiple_results=True)(ctx, *args)

    def lower_cpu(ctx, *args, fn):
        compiled = fn.compiled()
        if compiled is None:
            return lower_jax(ctx, *args, fn=fn)
        from ._kernel import TARGET, _register
        _register()
        return jax.ffi.ffi_lowering(TARGET)(ctx, *args,
                                            executable=np.int64(compiled.function.address))

    mlir.register_lowering(p, lower_jax)
    mlir.register_lowering(p, lower_cpu, platform="cpu")

    def jvp(primals, tangents, *, fn):
        outs = p.bind(*primals, fn=fn)
        nonzero = tuple(type(t) is not ad.Zero and _is_float(a.dtype)
                        for t, a in zip(tangents, fn.closed.in_avals))
        float_out = [_is_float(a.dtype) for a in fn.out_avals]
        zero_out = [ad.Zero(a.to_tangent_aval()) for a in fn.out_avals]
        if not any(nonzero) or not any(float_out):
            return outs, zero_out
        jfn = fn.derived(("jvp", nonzero), lambda: _jvp_fn(fn, nonzero))
        touts = iter(p.bind(*primals, *[ad.instantiate_zeros(t) for t, m in zip(tangents, nonzero) if m],
                            fn=jfn))
        return outs, [next(touts) if f else z for f, z in zip(float_out, zero_out)]

    ad.primitive_jvps[p] = jvp

    def transpose(cts, *args, fn):
        undefined = tuple(ad.is_undefined_primal(a) for a in args)
        nonzero = tuple(type(c) is not ad.Zero for c in cts)
        if not any(nonzero):
            return [None] * len(args)
        tfn = fn.derived(("transpose", undefined, nonzero),
                         lambda: _transpose_fn(fn, undefined, nonzero))
        known = [a for a, u in zip(args, undefined) if not u]
        outs = iter(p.bind(*known, *[c for c, m in zip(cts, nonzero) if m], fn=tfn))
        return [next(outs) if u else None for u in undefined]

    ad.primitive_transposes[p] = transpose

    def batch(args, dims, *, fn):
        size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
        dims = tuple(dims)
        bfn = fn.derived(("vmap", dims, size), lambda: _vmap_fn(fn, dims, size))
        return p.bind(*args, fn=bfn), [0] * len(fn.out_avals)

    batching.primitive_batchers[p] = batch
    return p


def _jvp_fn(fn: Fn, nonzero: tuple[bool, ...]) -> Fn:
    """(primals, the nonzero tangents) -> the float outputs' tangents."""
    jax = _jax()
    in_avals = fn.closed.in_avals
    float_out = [_is_float(a.dtype) for a in fn.out_avals]
    n = len(in_avals)

    def jvp_fun(*args):
        primals, given = args[:n], iter(args[n:])
        tangents = [next(given) if m else
                    (np.zeros(a.shape, jax.dtypes.float0) if not _is_float(a.dtype) else _zeros(a))
                    for a, m in zip(in_avals, nonzero)]
        _, touts = jax.jvp(fn.fun, list(primals), tangents)
        return [t for t, f in zip(touts, float_out) if f]

    avals = [_sds(a) for a in in_avals] + [_sds(a.to_tangent_aval())
                                           for a, m in zip(in_avals, nonzero) if m]
    return Fn.trace(jvp_fun, avals, fn.options, f"jvp({fn.name})", fn)


def _transpose_fn(fn: Fn, undefined: tuple[bool, ...], nonzero: tuple[bool, ...]) -> Fn:
    """(the known inputs, the nonzero cotangents) -> the cotangents of the
    undefined (linear) inputs: JAX's VJP of `fn` with respect to them."""
    jax = _jax()
    in_avals = fn.closed.in_avals
    known_avals = [a for a, u in zip(in_avals, undefined) if not u]
    linear_avals = [a for a, u in zip(in_avals, undefined) if u]
    nk = len(known_avals)

    def transpose_fun(*args):
        known, given = args[:nk], iter(args[nk:])
        cts = [next(given) if m else _zeros(a) for a, m in zip(fn.out_avals, nonzero)]

        def linear(*lin):
            k, l = iter(known), iter(lin)
            return fn.fun(*[next(l) if u else next(k) for u in undefined])

        _, vjp = jax.vjp(linear, *[_zeros(a) for a in linear_avals])
        return list(vjp(cts))

    avals = [_sds(a) for a in known_avals] + [_sds(a) for a, m in zip(fn.out_avals, nonzero) if m]
    return Fn.trace(transpose_fun, avals, fn.options, f"transpose({fn.name})", fn)


def _vmap_fn(fn: Fn, dims: tuple, size: int) -> Fn:
    """`fn` batched over axis `dims[i]` of input i (None: not batched), the
    batch axis first in every output."""
    jax = _jax()
    batched = jax.vmap(fn.fun, in_axes=dims, out_axes=0, axis_size=size)
    avals = []
    for a, d in zip(fn.closed.in_avals, dims):
        shape = a.shape if d is None else a.shape[:d] + (size,) + a.shape[d:]
        avals.append(jax.ShapeDtypeStruct(shape, a.dtype, weak_type=getattr(a, "weak_type", False)))
    return Fn.trace(lambda *args: list(batched(*args)), avals, fn.options, f"vmap({fn.name})", fn)


def call(fn: Fn, leaves: Sequence[Any]) -> list:
    """kiln_call of `fn` on `leaves` (tracers, arrays, Python numbers)."""
    jax = _jax()
    values = [x if is_tracer(x) else jax.numpy.asarray(x, dtype=a.dtype)
              for x, a in zip(leaves, fn.closed.in_avals)]
    return primitive().bind(*values, fn=fn)
