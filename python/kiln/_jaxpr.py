"""Jaxprs as Kiln reads them: tracing a function, its printed text, and the
arrays Kiln's entry function takes besides the arguments.

Kiln's importer turns a closed jaxpr into one public function whose inputs
are: the main jaxpr's constvars, the argument leaves, then the constvars of
nested closed jaxprs (hoisted, each once, in a depth-first walk). This module
is the one place that knows that order on the Python side.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")


def normalize_jaxpr_text(text: str) -> str:
    """The printed jaxpr with what changes from run to run made stable:
    object addresses in ``<function f at 0x...>`` become ``0x0`` (the
    importer reads such parameters and ignores them). Ends with one newline."""
    return _ADDRESS.sub(" at 0x0>", text).rstrip("\n") + "\n"


def _jaxpr_types():
    from jax.extend import core
    return core.ClosedJaxpr, core.Jaxpr


def subjaxprs(value) -> Iterable[Any]:
    """The (closed) jaxprs in an equation parameter: the value itself, or the
    items of a tuple/list of them (``cond``'s branches)."""
    closed_t, jaxpr_t = _jaxpr_types()
    if isinstance(value, (closed_t, jaxpr_t)):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from subjaxprs(item)


def primitives(jaxpr) -> list[str]:
    """Sorted names of every primitive used by ``jaxpr`` (a Jaxpr or
    ClosedJaxpr), including those inside sub-jaxprs in equation parameters."""
    names: set[str] = set()

    def walk(j):
        j = getattr(j, "jaxpr", j)
        for eqn in j.eqns:
            names.add(eqn.primitive.name)
            for value in eqn.params.values():
                for sub in subjaxprs(value):
                    walk(sub)

    walk(jaxpr)
    return sorted(names)


def hoisted_consts(closed) -> list[Any]:
    """Values of the constvars of nested closed jaxprs, in the order in which
    Kiln's importer appends them to the entry function's arguments: a
    depth-first walk in equation order where a nested closed jaxpr's own
    constvars come before those of jaxprs nested inside it, each constvar once
    (a named jaxpr used twice is one object, so its constvars count once)."""
    closed_t, _ = _jaxpr_types()
    seen: set[tuple[int, int]] = set()
    out: list[Any] = []

    def walk(j):
        for eqn in j.eqns:
            for value in eqn.params.values():
                for sub in subjaxprs(value):
                    if isinstance(sub, closed_t):
                        for i, c in enumerate(sub.consts):
                            key = (id(sub.jaxpr), i)
                            if key not in seen:
                                seen.add(key)
                                out.append(c)
                        walk(sub.jaxpr)
                    else:
                        walk(sub)

    walk(closed.jaxpr)
    return out


def kiln_inputs(closed, leaves) -> list[Any]:
    """The values Kiln's entry function takes: main constvars, the argument
    leaves, then the hoisted nested constvars."""
    return list(closed.consts) + list(leaves) + hoisted_consts(closed)
