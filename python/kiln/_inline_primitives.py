"""Primitives defined by JAX code, inlined before Kiln imports a jaxpr.

Two kinds of primitive are JAX functions under another name:

- equinox's filter primitives: libraries built on equinox (lineax's
  ``linear_solve``, optimistix's and diffrax's solvers through it) define
  primitives whose parameters are Python objects (``treedef``, ``static``,
  ``flatten``): a jaxpr printed with them cannot be read back, by Kiln or
  by JAX. Their forward meaning is their implementation rule.
- JAX's composite primitives that Kiln's importer has no op for
  (``random_gamma``, ``bessel_i0e``, ``igamma``, ``regularized_incomplete_beta``,
  ``tridiagonal_solve``, ...): XLA compiles them from a JAX function too (their
  lowering rule is ``mlir.lower_fun(fun)``), so Kiln inlines the same
  ``fun``, and computes what XLA computes.

``inline_filter_primitives`` re-traces a ClosedJaxpr with each such
equation replaced by its JAX function traced in place (in nested jaxprs too:
jit, scan, while and cond bodies), so what Kiln imports is made of
primitives it reads. The program was already differentiated or batched by
JAX before this point: only the forward meaning is ever needed.
"""
from __future__ import annotations

from typing import Any

from ._jaxpr import jax_core, subjaxprs

_FILTER_PARAMS = frozenset({"treedef", "static", "flatten"})


def _is_filter_primitive(eqn) -> bool:
    """An equinox filter primitive (equinox.internal.filter_primitive_def),
    a composite JAX primitive Kiln inlines, or equinox's maybe_set with a
    static index (a slice: the importer reads only a dynamic one)."""
    return (frozenset(eqn.params) == _FILTER_PARAMS or _composite(eqn.primitive) is not None
            or _static_maybe_set(eqn))


def _static_maybe_set(eqn) -> bool:
    return eqn.primitive.name == "maybe_set" and eqn.params.get("i_static") is not None


_importable: frozenset | None = None


def _composite(primitive):
    """The JAX function XLA lowers `primitive` from (its CPU lowering rule is
    ``mlir.lower_fun(fun, multiple_results)``), as a function returning a
    list; None for a primitive Kiln's importer reads or that is lowered
    otherwise."""
    global _importable
    if _importable is None:
        from . import _kiln
        _importable = frozenset(_kiln.importable_primitives())
    if primitive.name in _importable:
        return None
    return _lowered_fun(primitive)


def _lowered_fun(primitive):
    """`primitive`'s lower_fun function as a function returning a list, or
    None."""
    from jax._src.interpreters import mlir
    # The CPU rule first; where it calls a library (LAPACK's gtsv), the
    # generic rule, a JAX function computing the same.
    for rule in (mlir._platform_specific_lowerings.get("cpu", {}).get(primitive),
                 mlir._lowerings.get(primitive)):
        rule = getattr(rule, "rule", rule)
        if getattr(rule, "__name__", "") != "f_lowered" or not rule.__closure__:
            continue
        cells = dict(zip(rule.__code__.co_freevars, (c.cell_contents for c in rule.__closure__)))
        fun, multiple = cells.get("fun"), cells.get("multiple_results")
        if callable(fun):
            return (lambda *a, **kw: list(fun(*a, **kw))) if multiple else \
                (lambda *a, **kw: [fun(*a, **kw)])
    return None


def _implementation(eqn):
    """How `eqn` is evaluated when inlined: a function of its operands
    returning the list of its results."""
    composite = _lowered_fun(eqn.primitive) if _static_maybe_set(eqn) else _composite(eqn.primitive)
    if composite is not None:
        return lambda *args: composite(*args, **eqn.params)
    if eqn.primitive.multiple_results:
        return lambda *args: list(eqn.primitive.impl(*args, **eqn.params))
    return lambda *args: [eqn.primitive.impl(*args, **eqn.params)]


def _contains(jaxpr) -> bool:
    """Whether `jaxpr` (a Jaxpr or ClosedJaxpr) or one nested in it has a
    filter primitive."""
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
    for eqn in jaxpr.eqns:
        if _is_filter_primitive(eqn):
            return True
        for p in eqn.params.values():
            if any(_contains(j) for j in subjaxprs(p)):
                return True
    return False


def _rewrite_param(param):
    """`param` with each ClosedJaxpr in it that contains a filter primitive
    re-traced without it."""
    core = jax_core()
    if isinstance(param, core.ClosedJaxpr) and _contains(param):
        return inline_filter_primitives(param)
    if type(param) is tuple:  # not a NamedTuple (GatherDimensionNumbers)
        return tuple(_rewrite_param(p) for p in param)
    return param


def _filter_implementation(eqn):
    return _implementation(eqn) if _is_filter_primitive(eqn) else None


def _evaluate(jaxpr, consts, args, expand=_filter_implementation) -> list:
    """jax.core.eval_jaxpr, with filter primitives evaluated by their
    implementation rule and nested ClosedJaxprs rewritten the same way;
    `expand(eqn)`: the function to evaluate an equation by instead of its
    primitive, or None."""
    core = jax_core()
    env: dict[Any, Any] = {}

    def read(v):
        return v.val if isinstance(v, core.Literal) else env[v]

    for v, c in zip(jaxpr.constvars, consts):
        env[v] = c
    for v, a in zip(jaxpr.invars, args):
        env[v] = a
    for eqn in jaxpr.eqns:
        invals = [read(v) for v in eqn.invars]
        implementation = expand(eqn)
        if implementation is not None:
            outs = implementation(*invals)
        else:
            params = {k: _rewrite_param(p) for k, p in eqn.params.items()}
            outs = eqn.primitive.bind(*invals, **eqn.primitive.get_bind_params(params))
            if not eqn.primitive.multiple_results:
                outs = [outs]
        for v, o in zip(eqn.outvars, outs):
            if not isinstance(v, core.DropVar):
                env[v] = o
    return [read(v) for v in jaxpr.outvars]


# An inlined implementation may bind primitives inlined in turn (lineax's
# linear_solve binds maybe_set and ormqr): rounds until none is left.
_MAX_ROUNDS = 8


def _retrace(closed, expand=_filter_implementation):
    """`closed` traced again through _evaluate with `expand`, on abstract
    values of its inputs (weak types kept)."""
    import jax
    avals = [jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
             for a in closed.in_avals]
    return jax.make_jaxpr(lambda *args: _evaluate(closed.jaxpr, closed.consts, args, expand))(*avals)


def inline_filter_primitives(closed):
    """`closed` (a ClosedJaxpr) itself when it has no primitive to inline,
    else the same function re-traced with each inlined."""
    for _ in range(_MAX_ROUNDS):
        if not _contains(closed):
            return closed
        closed = _retrace(closed)
    return closed


def inline_calls(closed):
    """`closed` re-traced with every jit call (jnp.where, jax.nn.relu, a
    user's jitted helper) replaced by its body; loops and conditionals
    stay as they are."""
    def expand(eqn):
        if eqn.primitive.name not in ("jit", "pjit"):
            return None
        inner = eqn.params["jaxpr"]
        return lambda *a: _evaluate(inner.jaxpr, inner.consts, a, expand)
    return _retrace(closed, expand)
