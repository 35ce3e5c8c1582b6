"""kiln.filter_jit: equinox's ``eqx.filter_jit``, compiled by Kiln.

A kiln.jit function (`FilterJitted`, a Jitted) with equinox's rules:

- arguments: the array leaves (JAX arrays, numpy arrays and scalars,
  ``eqx.is_array``) are traced; every other leaf, Python numbers and bools
  included, is static: part of the signature, compared by value (ArgSpec.filter
  in _jit.py). Arguments are bound to the function's signature first, as
  equinox binds them.
- outputs: the function's output is split at trace time into its array
  leaves, which the compiled code returns, and the rest (the tree structure
  and the non-array leaves, as the trace produced them), kept in the output
  tree: `_Split` is a pytree node whose children are the arrays and whose
  unflattening gives the whole output back, so that every path that
  unflattens kiln's output tree (the C++ fast path, calls under JAX
  transformations, ``.lower().compile()``) returns the output as
  ``eqx.filter_jit`` does.
- ``donate``: equinox's "all", "all-except-first", "warn",
  "warn-except-first", "none".
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

from ._jit import (ArgSpec, Jitted, _is_filter_array, _jax, _signature, decode_leaf, encode_leaf,
                   inlining, jit, leaf_encoding, to_cpu)

_DONATE = {  # donate: (first donated position, silence the unused-buffer warning)
    "all": (0, True),
    "all-except-first": (1, True),
    "warn": (0, False),
    "warn-except-first": (1, False),
    "none": (None, False),
}


class _Aux:
    """A _Split's static part: fun's output tree, its non-array leaves
    (None at the arrays), the typed PRNG keys' implementations (per array),
    and whether to give JAX arrays back. Compared by identity: the values
    may be anything (functions, objects without ==)."""
    __slots__ = ("treedef", "static", "keys", "return_jax")

    def __init__(self, treedef, static, keys, return_jax):
        self.treedef, self.static, self.keys, self.return_jax = treedef, static, keys, return_jax


class _Split:
    """fun's output as the trace returns it (see the module docstring)."""
    __slots__ = ("arrays", "aux")

    def __init__(self, arrays, aux):
        self.arrays, self.aux = arrays, aux


def _unflatten(aux: _Aux, arrays) -> Any:
    """fun's output: the arrays (numpy arrays after a call, tracers under a
    transformation) put back among the static leaves."""
    jax = _jax()
    tracer = jax.core.Tracer
    arrays = list(arrays)
    for i, impl in enumerate(aux.keys):
        if impl is not None and _is_filter_array(arrays[i]):
            arrays[i] = decode_leaf(arrays[i], impl)
    if aux.return_jax:
        arrays = [to_cpu(x) if _is_filter_array(x) and not isinstance(x, (tracer, jax.Array)) else x
                  for x in arrays]
    it = iter(arrays)
    leaves = [next(it) if s is None else s for s in aux.static]
    return jax.tree_util.tree_unflatten(aux.treedef, leaves)


@functools.lru_cache(maxsize=None)
def _register() -> None:
    _jax().tree_util.register_pytree_node(_Split, lambda s: (s.arrays, s.aux), _unflatten)


def _split_outputs(fun: Callable, return_jax: bool) -> Callable:
    """`fun` returning a _Split of its output (called while Kiln traces)."""
    _register()

    @functools.wraps(fun)
    def split(*args, **kwargs):
        jax = _jax()
        leaves, treedef = jax.tree_util.tree_flatten(fun(*args, **kwargs))
        mask = [_is_filter_array(x) for x in leaves]
        arrays = [x for x, m in zip(leaves, mask) if m]
        keys = tuple(leaf_encoding(x) for x in arrays)
        arrays = [encode_leaf(x, k) for x, k in zip(arrays, keys)]
        static = tuple(None if m else x for x, m in zip(leaves, mask))
        # A None leaf is a node (no leaf) in JAX's trees: None marks the arrays.
        return _Split(arrays, _Aux(treedef, static, keys, return_jax))
    return split


class FilterJitted(Jitted):
    """What kiln.filter_jit returns; call it like the function it wraps."""

    def _bind(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """The arguments bound to the function's signature (equinox's
        rule): a positional parameter passed by name becomes positional."""
        sig = self._filter_signature
        if sig is None or not kwargs:
            return args, kwargs
        bound = sig.bind(*args, **kwargs)
        return bound.args, bound.kwargs

    def _call_slow(self, *args, **kwargs):
        if inlining():  # inside a trace for Kiln: the function itself
            return self._filter_fun(*args, **kwargs)
        args, kwargs = self._bind(args, kwargs)
        if not self._filter_quiet:
            return Jitted._call_slow(self, *args, **kwargs)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Some donated buffers were not usable")
            return Jitted._call_slow(self, *args, **kwargs)

    def lower(self, *args, **kwargs):
        args, kwargs = self._bind(args, kwargs)
        return Jitted.lower(self, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<kiln.filter_jit of {getattr(self._filter_fun, '__qualname__', self._filter_fun)!r}>"


_REFUSED = ("static_argnums", "static_argnames", "donate_argnums", "donate_argnames")


def filter_jit(fun: Callable | None = None, *, donate: str = "none", **kiln_jit_options):
    """Compiles `fun` with Kiln as ``equinox.filter_jit`` compiles it with
    JAX: every array leaf of the arguments (JAX arrays, numpy arrays) is
    traced, every other leaf (Python numbers and bools, functions, strings,
    None, ...) is static: part of the signature, hashed and compared by
    value (an unhashable one by identity), so that another value compiles
    again. The output may hold non-array leaves: they are returned as the
    trace produced them, beside the arrays the compiled code computes.

    `donate` is equinox's: "all" (every array argument is donated; the
    warning about buffers no output takes is silenced), "all-except-first"
    (not the first argument's), "warn", "warn-except-first" (the same,
    warnings kept) or "none". The other keyword arguments are kiln.jit's
    (`rules`, `tags`, `cache_dir`, `return_jax_arrays`, ...); as
    eqx.filter_jit, static_argnums, static_argnames and donate_argnums are
    refused. Usable as ``@kiln.filter_jit`` and ``@kiln.filter_jit(...)``;
    ``.lower(*args)`` as kiln.jit's.
    """
    if fun is None:
        return functools.partial(filter_jit, donate=donate, **kiln_jit_options)
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    if bad := [k for k in _REFUSED if k in kiln_jit_options]:
        raise ValueError(f"kiln.filter_jit does not take {', '.join(map(repr, bad))}: array "
                         "leaves are traced, the others static; donate= says what is donated.")
    if donate not in _DONATE:
        raise ValueError("`filter_jit(..., donate=...)` must be one of 'all', 'all-except-first', "
                         "'warn', 'warn-except-first', or 'none'.")
    return_jax = bool(kiln_jit_options.pop("return_jax_arrays", False))
    split = _split_outputs(fun, return_jax)
    options = jit(split, **kiln_jit_options)._options  # kiln.jit's checks and defaults
    donate_from, quiet = _DONATE[donate]
    # Outputs become JAX arrays in _unflatten (the C++ fast path's too),
    # not in Jitted's calls (return_jax False).
    out = FilterJitted(split, options, ArgSpec(filter=True, donate_from=donate_from), False)
    out._filter_fun = fun
    out._filter_signature = _signature(fun)
    out._filter_quiet = quiet
    functools.update_wrapper(out, fun, updated=())
    return out
