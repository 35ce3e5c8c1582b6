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


def jax_core():
    """The module of jax.extend.core's names (ClosedJaxpr, Jaxpr, Literal,
    DropVar, Primitive, jaxpr_as_fun): jax.extend.core itself once anything
    imported it, else jax._src.core, from which it re-exports them unchanged.
    Importing jax.extend runs its package's __init__, which imports Pallas:
    20-40 ms of the first kiln.jit call of a process, for names JAX has
    loaded already."""
    import sys
    module = sys.modules.get("jax.extend.core")
    if module is None:
        from jax._src import core as module
    return module


def _jaxpr_types():
    core = jax_core()
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


def _user_frame_fn():
    try:
        from jax._src import source_info_util
        return source_info_util.user_frame
    except ImportError:  # pragma: no cover - a JAX without it: no positions
        return lambda traceback: None


def jaxpr_tree(closed, name: str, position: tuple[str, int, int] | None = None) -> tuple:
    """``closed`` as the plain tuples Kiln's importer reads without printing
    the jaxpr (``Program.from_jaxpr_tree``; python/JaxprFromPython.cpp):

    * program: ``(positions, jaxpr)``, positions a list of ``(file, line,
      column)``: where each equation was traced (JAX's user frame), the
      operations' locations; the first is ``position`` (the function).
    * jaxpr: ``(key, position, constvars, invars, equations, outs)``; the
      same Jaxpr object gives the same tuple (one key).
    * binder: ``(name, dtype, shape)``, ``_`` for a dropped result.
    * atom: a variable's name, or a literal ``(kind, value, text, dtype,
      shape)``, kind ``'f'``, ``'i'`` or ``'b'``.
    * equation: ``(position, outs, primitive, params, ins)``, params
      ``[(name, value)]``.
    * value: the text JAX's printer writes for it (``str(value)``), or, when
      it holds jaxprs, ``('jaxpr', jaxpr)``, ``('list', [values])`` or
      ``('call', type name, [(field, value)])`` (a named tuple).
    """
    core = jax_core()
    closed_t, jaxpr_t = _jaxpr_types()
    drop_t, literal_t = core.DropVar, core.Literal
    user_frame = _user_frame_fn()
    positions: list[tuple[str, int, int]] = [position or (f"<{name}>", 1, 1)]
    position_index: dict[tuple[str, int, int], int] = {positions[0]: 0}
    names: dict[Any, str] = {}
    dtype_names: dict[Any, str] = {}
    nodes: dict[int, tuple] = {}

    def dtype_name(aval) -> str:
        d = aval.dtype
        n = dtype_names.get(d)
        if n is None:
            n = dtype_names[d] = aval.str_short(short_dtypes=True).split("[", 1)[0]
        return n

    def shape(aval) -> tuple:
        s = aval.shape
        if not all(type(d) is int for d in s):
            s = tuple(int(d) for d in s)  # numpy ints; a symbolic one raises
        return s

    def binder(v) -> tuple:
        if isinstance(v, drop_t):
            n = "_"
        else:
            n = names.get(v)
            if n is None:
                n = names[v] = f"v{len(names)}"
        return (n, dtype_name(v.aval), shape(v.aval))

    def atom(v):
        if not isinstance(v, literal_t):
            return names[v]
        aval, val = v.aval, v.val
        kind = getattr(aval.dtype, "kind", "f")
        if kind == "b":
            tag, value = "b", bool(val)
        elif kind in "iu":
            tag, value = "i", int(val)
            if value >= 1 << 63:  # uint64: the same 64 bits
                value -= 1 << 64
        else:
            tag, value = "f", float(val)
        return (tag, value, str(val), dtype_name(aval), shape(aval))

    def where(eqn, default: int) -> int:
        tb = eqn.source_info.traceback
        frame = user_frame(tb) if tb is not None else None
        if frame is None:
            return default
        key = (frame.file_name, frame.start_line, frame.start_column + 1)
        i = position_index.get(key)
        if i is None:
            i = position_index[key] = len(positions)
            positions.append(key)
        return i

    def param(value, at: int):
        if isinstance(value, (closed_t, jaxpr_t)):
            return ("jaxpr", node(value, at))
        if next(subjaxprs(value), None) is None:
            return str(value)
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            return ("call", type(value).__name__,
                    [(f, param(x, at)) for f, x in zip(value._fields, value)])
        return ("list", [param(x, at) for x in value])

    def node(j, at: int) -> tuple:
        j = getattr(j, "jaxpr", j)
        found = nodes.get(id(j))
        if found is not None:
            return found
        constvars = [binder(v) for v in j.constvars]
        invars = [binder(v) for v in j.invars]
        eqns = []
        for eqn in j.eqns:
            pos = where(eqn, at)
            ins = [atom(v) for v in eqn.invars]
            params = [(k, param(v, pos)) for k, v in eqn.params.items()]
            outs = [binder(v) for v in eqn.outvars]
            eqns.append((pos, outs, eqn.primitive.name, params, ins))
        result = (id(j), at, constvars, invars, eqns, [atom(v) for v in j.outvars])
        nodes[id(j)] = result
        return result

    main = node(closed, 0)
    return (positions, main)
