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
from typing import Any, Callable, Iterable, Sequence

from . import _kiln
from ._jaxpr import hoisted_consts
from ._jit import (ArgSpec, Options, _jax, abstract_leaves, flatten, import_traced, resolve_argnums,
                   rewrite_program, trace, wrap_keys)
from ._rules import as_rules
from ._to_jax import Evaluator


class Rewritten:
    """What kiln.rewrite returns: call it (inside or outside jax.jit) like the
    function it wraps; ``.lower(*args)`` shows the rewritten lax program."""

    def __init__(self, fun: Callable, options: Options, argspec: ArgSpec):
        self._fun = fun
        self._options = options
        self._argspec = argspec
        self._cache: dict[Any, tuple] = {}
        functools.update_wrapper(self, fun, updated=())

    def _entry(self, args: tuple, kwargs: dict):
        flat = flatten(args, kwargs, self._argspec)
        entry = self._cache.get(flat.key)
        if entry is None:
            # Trace on abstract values: the arguments may be another
            # transformation's tracers (jit, grad, vmap).
            traced = trace(self._fun, flat, abstract_leaves(flat.leaves))
            program, _ = rewrite_program(import_traced(traced), self._options)
            entry = (traced, program, Evaluator(program.export(), traced.callbacks))
            self._cache[flat.key] = entry
        return entry, flat.leaves

    def __call__(self, *args, **kwargs):
        (traced, _, evaluator), leaves = self._entry(args, kwargs)
        inputs = list(traced.closed.consts) + list(leaves) + hoisted_consts(traced.closed)
        outs = evaluator.call("main", inputs)
        return wrap_keys(_jax().tree_util.tree_unflatten(traced.out_tree, outs), traced.out_tree,
                         traced.out_keys)

    def lower(self, *args, **kwargs) -> _kiln.Program:
        """The rewritten lax program for these arguments."""
        (_, program, _), _ = self._entry(args, kwargs)
        return program


def rewrite(fun: Callable | None = None, *, rules=None, tags: Sequence[str] = (),
            optimize: bool = False, static_argnums: int | Sequence[int] | None = None,
            static_argnames: str | Iterable[str] | None = None, plugins: Sequence[str] = ()):
    """`fun` with Kiln's rules applied, as a function JAX can trace.

    `rules`: a YAML file or directory, YAML text, a kiln.Rules or a list of
    them; `tags` enables tagged rules (e.g. ``("reassociates-float",)``);
    `optimize` also runs Kiln's own lax rewrites. The rewritten program is
    evaluated with JAX's primitives, so the result composes with jax.jit,
    jax.grad, jax.vmap and shardings, on any backend. `static_argnums` and
    `static_argnames` are jax.jit's.
    """
    if fun is None:
        return functools.partial(rewrite, rules=rules, tags=tags, optimize=optimize,
                                 static_argnums=static_argnums, static_argnames=static_argnames,
                                 plugins=plugins)
    argspec = resolve_argnums(fun, static_argnums, static_argnames)
    if isinstance(tags, str):
        tags = tuple(t for t in tags.split(",") if t)
    options = Options(as_rules(rules, plugins), tuple(tags), optimize, "")
    return Rewritten(fun, options, argspec)
