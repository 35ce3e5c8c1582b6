"""Rules written as two JAX functions: a pattern and its replacement.

``kiln.Rules.from_functions(pattern, replacement, ...)`` traces both with
JAX on example arguments, imports the jaxprs into lax as ``kiln.jit``
does, and writes one YAML rule (docs/rules.md) that the same engine runs:
tags, traces, statistics, ``explain``, ``verify``, ``kiln.jit``,
``kiln.rewrite`` and, as a file, ``kiln-opt --rules``.

The pattern's operations become the match (the function's parameters are
its captures; the same parameter twice is the same value), the
replacement's the rewrite. Shapes and dtypes are not part of the rule: it
fires wherever the ops and their attributes match. A literal in the
pattern matches a constant whose every element equals it
(``is_splat``); a literal in the replacement becomes a constant of the
shape and dtype of the value it combined with in the example
(``splat(type_of(...), v)``). Attributes (axes, permutations, dimension
numbers, broadcast shapes) are matched and rebuilt as traced, so a
pattern holding a shape in an attribute (``broadcast_in_dim``'s) fires at
the example's shapes only. Loops and conditionals (``lax.scan``,
``lax.while_loop``, ``lax.cond``) cannot be patterns here: write those as
region rules in YAML.
"""

from __future__ import annotations

import inspect
import math
import re
from typing import Any, Callable, Sequence

import numpy as np

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Ops whose two operands may come in either order (the rule's any_order).
_COMMUTATIVE = {"lax.add", "lax.mul", "lax.max", "lax.min", "lax.and", "lax.or", "lax.xor"}


class _Traced:
    """A function's lax ops (the main function of its import)."""

    def __init__(self, fn: Callable, args: Sequence[Any], what: str, name: str):
        import jax
        from ._inline_primitives import inline_calls
        from ._jit import import_closed
        # jnp functions that JAX wraps in jit (jnp.where, ...) as their
        # primitives, not as calls.
        closed = inline_calls(jax.make_jaxpr(fn)(*args))
        if closed.consts:
            raise ValueError(f"Rules.from_functions: the {what} closes over arrays "
                             f"({len(closed.consts)}); pass them as parameters")
        if len(closed.jaxpr.outvars) != 1:
            raise ValueError(f"Rules.from_functions: the {what} must return one array, "
                             f"it returns {len(closed.jaxpr.outvars)}")
        functions = import_closed(closed, name).export()["functions"]
        if set(functions) != {"main"}:
            raise ValueError(f"Rules.from_functions: the {what} calls other functions "
                             f"({', '.join(sorted(set(functions) - {'main'}))})")
        main = functions["main"]
        self.args: list[int] = main["args"]
        self.ops: list[dict] = main["ops"][:-1]
        ret = main["ops"][-1]
        assert ret["name"] == "func.return"
        self.output: int = ret["operands"][0]
        self.types: dict[int, Any] = dict(zip(main["args"], map(tuple_type, main["arg_types"])))
        for op in self.ops:
            if op["regions"]:
                raise ValueError(
                    f"Rules.from_functions: the {what} holds {op['name']} (a loop or a "
                    "conditional); write such a rule as a region rule in YAML "
                    "(docs/rules.md, 'Region rules')")
            for r, t in zip(op["results"], op["result_types"]):
                self.types[r] = tuple_type(t)


def tuple_type(t) -> tuple:
    shape, dtype = t
    return (tuple(shape), dtype)


def _quote(expr: str) -> str:
    """A YAML single-quoted scalar."""
    return "'" + expr.replace("'", "''") + "'"


def _number(value: float) -> str:
    """A literal as the rule language writes it; splat's names for the
    values that have no literal."""
    if math.isnan(value):
        return '"nan"'
    if math.isinf(value):
        return '"inf"' if value > 0 else '"-inf"'
    if float(value).is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(float(value))


def _splat_value(op: dict, what: str) -> float:
    kind, _dtype, _shape, values, splat = op["attrs"]["value"]
    flat = np.asarray(values, dtype=np.float64).ravel()
    if not (splat or flat.size == 0 or np.all(flat == flat[0]) or np.all(np.isnan(flat))):
        raise ValueError(f"Rules.from_functions: the {what} holds a constant that is not one "
                         "number repeated; pass it as a parameter")
    return float(flat[0]) if flat.size else 0.0


def _attributes(op: dict) -> str:
    texts = op.get("attr_text", {})
    items = [f"{k} = `{texts[k]}`" for k in sorted(texts)]
    return " {" + ", ".join(items) + "}" if items else ""


def rule_from_functions(pattern: Callable, replacement: Callable, *, name: str,
                        example_args: Sequence[Any] | None = None,
                        tags: Sequence[str] = (), where: Sequence[str] | str = (),
                        description: str = "", any_order: bool = True) -> str:
    """The YAML text of one rule rewriting `pattern` into `replacement`
    (both functions of the same parameters; see the module's docstring)."""
    import jax
    if not _IDENTIFIER.fullmatch(name.replace("-", "_")):
        raise ValueError(f"Rules.from_functions: name {name!r}: use letters, digits, '-' and '_'")
    params = list(inspect.signature(pattern).parameters)
    if len(inspect.signature(replacement).parameters) != len(params):
        raise TypeError("Rules.from_functions: pattern and replacement must take the same "
                        f"parameters (the pattern takes {len(params)})")
    if example_args is None:
        example_args = [jax.ShapeDtypeStruct((8,), np.float32)] * len(params)
    if len(example_args) != len(params):
        raise TypeError(f"Rules.from_functions: {len(example_args)} example arguments for "
                        f"{len(params)} parameters")
    captures = [p if _IDENTIFIER.fullmatch(p) else f"p{i}" for i, p in enumerate(params)]
    pat = _Traced(pattern, example_args, "pattern", name)
    rep = _Traced(replacement, example_args, "replacement", name)

    # The match: one node per op; parameters and literals are captures.
    refs: dict[int, str] = {v: f"${c}" for v, c in zip(pat.args, captures)}
    conditions: list[str] = []
    nodes: list[tuple[str, str]] = []
    for i, op in enumerate(pat.ops):
        if op["name"] == "lax.constant":
            c = f"$c{i}"
            conditions.append(f"is_splat({c}, {_number(_splat_value(op, 'pattern'))})")
            refs[op["results"][0]] = c
            continue
        node = f"n{i}"
        operands = ", ".join(refs[v] for v in op["operands"])
        nodes.append((node, f"{op['name']}({operands}){_attributes(op)}"))
        for k, r in enumerate(op["results"]):
            refs[r] = node if k == 0 else f"{node}#{k}"
    if not nodes or refs.get(pat.output) != nodes[-1][0]:
        raise ValueError("Rules.from_functions: the pattern's result must be computed by its "
                         "last operation (a pattern that returns a parameter or a literal "
                         "matches nothing)")
    match = nodes[:-1] + [("root", nodes[-1][1])]
    # `x * 2.0` should match `2.0 * x` too: commutative nodes either way.
    either_way = [n for n, e in match if e.split("(", 1)[0] in _COMMUTATIVE] if any_order else []
    bound = {c for _, e in match for c in re.findall(r"\$\w+", e)}

    # The rewrite: parameters by position; new nodes r<i>.
    rrefs: dict[int, str] = {v: f"${c}" for v, c in zip(rep.args, captures)}
    rtypes: dict[str, tuple] = {f"${c}": pat.types[v] for v, c in zip(pat.args, captures)}
    rewrite: list[tuple[str, str]] = []
    for i, op in enumerate(rep.ops):
        node = f"r{i}"
        if op["name"] == "lax.constant":
            value = _number(_splat_value(op, "replacement"))
            like = next((ref for ref, t in rtypes.items()
                         if t == rep.types[op["results"][0]]), None)
            attr = (f"splat(type_of({like}), {value})" if like is not None
                    else f"`{op['attr_text']['value']}`")
            expr = f"lax.constant() {{value = {attr}}}"
        else:
            expr = f"{op['name']}({', '.join(rrefs[v] for v in op['operands'])}){_attributes(op)}"
        rewrite.append((node, expr))
        for k, r in enumerate(op["results"]):
            rrefs[r] = node if k == 0 else f"{node}#{k}"
            rtypes.setdefault(rrefs[r], rep.types[r])
    used = {c for _, e in rewrite for c in re.findall(r"\$\w+", e)}
    out = rrefs[rep.output]
    if out.startswith("$"):
        used.add(out)
    unbound = sorted(u for u in used if u not in bound)
    if unbound:
        raise ValueError(f"Rules.from_functions: the replacement reads {', '.join(unbound)}, "
                         "which the pattern does not use")

    conditions += [where] if isinstance(where, str) else list(where)
    lines = [f"- name: {name}"]
    if description:
        lines.append(f"  description: {_quote(description)}")
    if tags:
        lines.append(f"  tags: [{', '.join(tags)}]")
    if either_way:
        lines.append(f"  any_order: [{', '.join(either_way)}]")
    lines.append("  match:")
    lines += [f"    {n}: {_quote(e)}" for n, e in match]
    if conditions:
        lines.append("  where:")
        lines += [f"    - {_quote(c)}" for c in conditions]
    lines.append("  rewrite:")
    lines += [f"    {n}: {_quote(e)}" for n, e in rewrite]
    lines.append(f"    root: {_quote(out)}")
    return "\n".join(lines) + "\n"
