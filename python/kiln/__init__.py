"""Kiln from Python: compile JAX functions with Kiln, rewrite them with rules.

- ``kiln.jit(f, rules=..., tags=...)``: like ``jax.jit``, but traced once per
  signature, rewritten by Kiln's rules and optimizations, compiled by LLVM for
  the CPU and called from C++ (``.lower(*args)`` shows the lax program).
- ``kiln.filter_jit(f)``: ``equinox.filter_jit``'s rules (array leaves traced,
  every other leaf static, non-array outputs returned) compiled as kiln.jit.
- ``kiln.rewrite(f, rules=...)``: ``f`` with the rules applied, evaluated by
  JAX's own primitives: it composes with jax.jit, jax.grad, jax.vmap,
  shardings, on every backend JAX has.
- ``kiln.kernel(f)``: ``f`` compiled by Kiln and called by XLA as an FFI
  custom call (CPU), so that a kernel Kiln does better runs inside a jax.jit
  program.
- A kiln.jit function called inside jax.jit, jax.grad, jax.vmap, lax.scan or
  jax.checkpoint is one JAX primitive whose evaluation, derivatives and
  batched form are Kiln's compilations of JAX's (``kiln.FallbackWarning``
  names a derived function JAX evaluates instead).
- ``kiln.jit(f).lower(*args).compile().export("libf.so", header="f.h")``:
  ahead of time, a shared library with a C entry point (``f_call``) that
  takes the call's array leaves (``kiln.Exported``; ``.load()`` calls it).
- ``kiln.Rules``: rule files, rule text and plugins; ``Rules.verify()``.
- ``kiln.Error`` and its subclasses carry the diagnostics as Kiln's tools
  print them (``file:line:col: error: ...``).

See docs/python.md.
"""

from ._kiln import CompileError, Error, JaxprImportError, Program, RuleError
from ._export import Exported
from ._jit import Compiled, Jitted, Lowered, jit
from ._filter_jit import FilterJitted, filter_jit
from ._kernel import Kernel, kernel
from ._rewrite import rewrite
from ._rules import Rules
from ._transforms import FallbackWarning

__all__ = [
    "CompileError",
    "Compiled",
    "Error",
    "Exported",
    "FallbackWarning",
    "FilterJitted",
    "JaxprImportError",
    "Kernel",
    "Jitted",
    "Lowered",
    "Program",
    "RuleError",
    "Rules",
    "filter_jit",
    "jit",
    "kernel",
    "rewrite",
]
