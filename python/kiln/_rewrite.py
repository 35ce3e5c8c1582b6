"""kiln.rewrite: Kiln's rules inside a JAX program.

``kiln.rewrite(f, rules=...)`` is a function JAX can trace: on each call it
traces `f` for the arguments' shapes and dtypes (once per signature),
imports the jaxpr, applies the rules (and, with ``optimize=True``, Kiln's own
rewrites), and evaluates the rewritten lax program with JAX's primitives
(kiln/_to_jax.py). Under jax.jit, XLA compiles the rewritten program; under
jax.grad, JAX differentiates it; with shardings, XLA partitions it. This is
how a user-written rewrite reaches every backend and every scale JAX has.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from . import _kiln
from ._jaxpr import hoisted_consts
from ._jit import Options, _jax, _leaf_key, import_traced, rewrite_program, trace
from ._rules import as_rules
from ._to_jax import Evaluator


class Rewritten:
    """What kiln.rewrite returns: call it (inside or outside jax.jit) like the
    function it wraps; ``.lower(*args)`` shows the rewritten lax program."""

    def __init__(self, fun: Callable, options: Options, static_argnums: tuple[int, ...]):
        self._fun = fun
        self._options = options
        self._static_argnums = static_argnums
        self._cache: dict[Any, tuple] = {}
        functools.update_wrapper(self, fun, updated=())

    def _entry(self, args: tuple, kwargs: dict):
        jax = _jax()
        static = set(i if i >= 0 else len(args) + i for i in self._static_argnums)
        dyn = tuple(a for i, a in enumerate(args) if i not in static)
        leaves, in_tree = jax.tree_util.tree_flatten((dyn, kwargs))
        key = (in_tree, tuple(args[i] for i in sorted(static)), tuple(_leaf_key(x) for x in leaves))
        entry = self._cache.get(key)
        if entry is None:
            # Trace on abstract values: the arguments may be another
            # transformation's tracers (jit, grad, vmap).
            abstract = [jax.ShapeDtypeStruct(jax.numpy.shape(x), jax.numpy.result_type(x),
                                             weak_type=bool(getattr(jax.typeof(x), "weak_type", False)))
                        for x in leaves]
            a_dyn, a_kw = jax.tree_util.tree_unflatten(in_tree, abstract)
            it = iter(a_dyn)
            a_args = tuple(args[i] if i in static else next(it) for i in range(len(args)))
            traced, _ = trace(self._fun, self._static_argnums, a_args, a_kw)
            program, _ = rewrite_program(import_traced(traced), self._options)
            entry = (traced, program, Evaluator(program.export()))
            self._cache[key] = entry
        return entry, leaves

    def __call__(self, *args, **kwargs):
        (traced, _, evaluator), leaves = self._entry(args, kwargs)
        inputs = list(traced.closed.consts) + list(leaves) + hoisted_consts(traced.closed)
        outs = evaluator.call("main", inputs)
        return _jax().tree_util.tree_unflatten(traced.out_tree, outs)

    def lower(self, *args, **kwargs) -> _kiln.Program:
        """The rewritten lax program for these arguments."""
        (_, program, _), _ = self._entry(args, kwargs)
        return program


def rewrite(fun: Callable | None = None, *, rules=None, tags: Sequence[str] = (),
            optimize: bool = False, static_argnums: int | Sequence[int] = (),
            plugins: Sequence[str] = ()):
    """`fun` with Kiln's rules applied, as a function JAX can trace.

    `rules`: a YAML file or directory, YAML text, a kiln.Rules or a list of
    them; `tags` enables tagged rules (e.g. ``("reassociates-float",)``);
    `optimize` also runs Kiln's own lax rewrites. The rewritten program is
    evaluated with JAX's primitives, so the result composes with jax.jit,
    jax.grad, jax.vmap and shardings, on any backend.
    """
    if fun is None:
        return functools.partial(rewrite, rules=rules, tags=tags, optimize=optimize,
                                 static_argnums=static_argnums, plugins=plugins)
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    if isinstance(tags, str):
        tags = tuple(t for t in tags.split(",") if t)
    options = Options(as_rules(rules, plugins), tuple(tags), optimize, "")
    return Rewritten(fun, options, tuple(static_argnums))
