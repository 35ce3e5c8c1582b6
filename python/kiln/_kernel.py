"""kiln.kernel: a Kiln-compiled function inside a jax.jit program.

``kiln.kernel(f)`` is a function JAX can trace whose body runs as one XLA
FFI custom call (CPU): on each call it traces `f` for the operands' shapes
and dtypes (once per signature), compiles it with Kiln (the user's rules,
Kiln's rewrites, the LLVM JIT) and emits ``jax.ffi.ffi_call("kiln_call",
...)`` with the compiled function's address as an attribute. XLA then calls
Kiln's code on its own buffers, without copies — for a kernel Kiln does
better than XLA (the TDMA scans of seed 003) inside an otherwise-XLA program.

Not differentiable (an opaque call to JAX; use kiln.rewrite for that);
``jax.vmap`` runs it once per batch element.
"""

from __future__ import annotations

import functools
from typing import Callable, Sequence

import numpy as np

from . import _kiln
from ._jit import (DEFAULT_CACHE, Compiled, Options, _jax, abstract_leaves, flatten, import_traced,
                   trace, wrap_keys)
from ._rules import as_rules

TARGET = "kiln_call"
# Every compiled kernel, for the life of the process: XLA's cached
# executables hold their addresses.
_KEPT: list[Compiled] = []


@functools.lru_cache(maxsize=None)
def _register() -> None:
    jax = _jax()
    jax.ffi.register_ffi_target(TARGET, _kiln.ffi_handler(), platform="cpu")


class Kernel:
    """What kiln.kernel returns: call it inside (or outside) jax.jit."""

    def __init__(self, fun: Callable, options: Options):
        self._fun = fun
        self._options = options
        self._cache: dict = {}
        functools.update_wrapper(self, fun, updated=())

    def __call__(self, *args):
        jax = _jax()
        _register()
        flat = flatten(args, {}, ())
        leaves = flat.leaves
        entry = self._cache.get(flat.key)
        if entry is None:
            traced = trace(self._fun, flat, abstract_leaves(leaves))
            compiled = Compiled.build(traced, import_traced(traced), self._options)
            _KEPT.append(compiled)
            in_avals = traced.closed.in_avals
            outs = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in traced.closed.out_avals]
            call = jax.ffi.ffi_call(TARGET, outs, vmap_method="sequential")
            entry = (compiled, in_avals, call, traced.out_tree, traced.out_keys)
            self._cache[flat.key] = entry
        compiled, in_avals, call, out_tree, out_keys = entry
        operands = [jax.numpy.asarray(x, dtype=a.dtype) for x, a in zip(leaves, in_avals)]
        outs = call(*operands, executable=np.int64(compiled.function.address))
        return wrap_keys(jax.tree_util.tree_unflatten(out_tree, outs), out_tree, out_keys)


def kernel(fun: Callable | None = None, *, rules=None, tags: Sequence[str] = (), optimize: bool = True,
           cache_dir=DEFAULT_CACHE, plugins: Sequence[str] = (), fp_contract: bool = False):
    """`fun` compiled by Kiln and called by XLA as a custom call (CPU), so
    that it can run inside a jax.jit program. Options as kiln.jit's."""
    if fun is None:
        return functools.partial(kernel, rules=rules, tags=tags, optimize=optimize,
                                 cache_dir=cache_dir, plugins=plugins, fp_contract=fp_contract)
    if isinstance(tags, str):
        tags = tuple(t for t in tags.split(",") if t)
    if cache_dir is DEFAULT_CACHE:
        cache_dir = _kiln.default_cache_dir()
    return Kernel(fun, Options(as_rules(rules, plugins), tuple(tags), optimize, str(cache_dir or ""),
                               fp_contract))
