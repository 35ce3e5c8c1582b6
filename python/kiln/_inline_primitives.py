"""Equinox's filter primitives, inlined before Kiln imports a jaxpr.

Libraries built on equinox (lineax's ``linear_solve``, optimistix's and
diffrax's solvers through it) define primitives whose parameters are Python
objects (``treedef``, ``static``, ``flatten``): a jaxpr printed with them
cannot be read back, by Kiln or by JAX. Their forward meaning is their
implementation rule, which is JAX code. ``inline_filter_primitives``
re-traces a ClosedJaxpr with each such equation replaced by its
implementation traced in place (in nested jaxprs too: jit, scan, while and
cond bodies), so what Kiln imports is made of JAX's own primitives. The
program was already differentiated or batched by JAX before this point:
only the forward implementation is ever needed.
"""
from __future__ import annotations

from typing import Any

_FILTER_PARAMS = frozenset({"treedef", "static", "flatten"})


def _is_filter_primitive(eqn) -> bool:
    """An equinox filter primitive (equinox.internal.filter_primitive_def)."""
    return frozenset(eqn.params) == _FILTER_PARAMS


def _contains(jaxpr) -> bool:
    """Whether `jaxpr` (a Jaxpr or ClosedJaxpr) or one nested in it has a
    filter primitive."""
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
    for eqn in jaxpr.eqns:
        if _is_filter_primitive(eqn):
            return True
        for p in eqn.params.values():
            if any(_contains(j) for j in _jaxprs_in(p)):
                return True
    return False


def _jaxprs_in(param) -> list:
    from jax.extend import core
    if isinstance(param, (core.Jaxpr, core.ClosedJaxpr)):
        return [param]
    if isinstance(param, (tuple, list)):
        return [j for p in param for j in _jaxprs_in(p)]
    return []


def _rewrite_param(param):
    """`param` with each ClosedJaxpr in it that contains a filter primitive
    re-traced without it."""
    from jax.extend import core
    if isinstance(param, core.ClosedJaxpr) and _contains(param):
        return inline_filter_primitives(param)
    if type(param) is tuple:  # not a NamedTuple (GatherDimensionNumbers)
        return tuple(_rewrite_param(p) for p in param)
    return param


def _evaluate(jaxpr, consts, args) -> list:
    """jax.core.eval_jaxpr, with filter primitives evaluated by their
    implementation rule and nested ClosedJaxprs rewritten the same way."""
    from jax.extend import core
    env: dict[Any, Any] = {}

    def read(v):
        return v.val if isinstance(v, core.Literal) else env[v]

    for v, c in zip(jaxpr.constvars, consts):
        env[v] = c
    for v, a in zip(jaxpr.invars, args):
        env[v] = a
    for eqn in jaxpr.eqns:
        invals = [read(v) for v in eqn.invars]
        if _is_filter_primitive(eqn):
            outs = eqn.primitive.impl(*invals, **eqn.params)
        else:
            params = {k: _rewrite_param(p) for k, p in eqn.params.items()}
            outs = eqn.primitive.bind(*invals, **eqn.primitive.get_bind_params(params))
        if not eqn.primitive.multiple_results:
            outs = [outs]
        for v, o in zip(eqn.outvars, outs):
            if not isinstance(v, core.DropVar):
                env[v] = o
    return [read(v) for v in jaxpr.outvars]


def inline_filter_primitives(closed):
    """`closed` (a ClosedJaxpr) itself when it has no filter primitive,
    else the same function re-traced with each inlined."""
    if not _contains(closed):
        return closed
    import jax
    avals = [jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
             for a in closed.in_avals]
    return jax.make_jaxpr(lambda *args: _evaluate(closed.jaxpr, closed.consts, args))(*avals)
