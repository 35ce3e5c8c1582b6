"""kiln.jit: trace with JAX, import, rewrite, compile for the CPU, call.

The callable kiln.jit returns is a native object (kiln._kiln.JitFunction):
a call whose positional arguments match a signature compiled before (numpy
arrays of the same dtype, shape and layout, Python scalars of the same type)
goes from C++ straight to the compiled code. Every other call comes here
(`Jitted._call_slow`): flatten the arguments as jax.jit does, look the
signature up in the in-memory cache, trace and compile on a miss (the compile
cache on disk makes a repeated compile cheap), call, and register the
signature for the fast path when it qualifies.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import operator
import os
import threading
import warnings
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from . import _kiln
from ._callbacks import extract_host_callbacks
from ._complex import join as join_complex, lower_complex, split as split_complex
from ._inline_primitives import inline_filter_primitives
from ._export import Exported, export as export_library
from ._jaxpr import hoisted_consts, jaxpr_tree, normalize_jaxpr_text
from ._rules import Rules, as_rules, tag_spec

DEFAULT_CACHE = object()


def _jax():
    import jax
    return jax


_STATE = threading.local()


def inlining() -> bool:
    """Whether a trace for Kiln is under way: a kiln.jit function called
    then runs its Python function, so that the traced jaxpr holds its
    primitives (which Kiln imports), not a kiln_call (_transforms.py)."""
    return getattr(_STATE, "depth", 0) > 0


@contextlib.contextmanager
def inline():
    _STATE.depth = getattr(_STATE, "depth", 0) + 1
    try:
        yield
    finally:
        _STATE.depth -= 1


@functools.lru_cache(maxsize=None)
def cpu_device():
    """JAX's first CPU device, asked for by name: kiln never changes which
    platforms JAX uses (no JAX_PLATFORMS, no jax.config update), so a user
    whose default device is a GPU keeps it for everything else."""
    return _jax().devices("cpu")[0]


def to_cpu(x):
    """`x` (a numpy array or scalar) as a JAX array on the CPU device."""
    return _jax().device_put(x, cpu_device())


_SCALARS = (bool, int, float, complex)


def _leaf_key(x) -> Any:
    """What of a leaf decides the compiled code: shape, dtype and weak type
    for arrays, the type for Python scalars (JAX traces them weakly typed)."""
    t = type(x)
    if t in _SCALARS:
        return t
    try:
        return (x.shape, x.dtype, getattr(x, "weak_type", False))
    except AttributeError:
        a = np.asarray(x)
        return (a.shape, a.dtype, False)


# jax.jit's numerics on CPU, where XLA runs its code with subnormal floats
# flushed to zero (docs/python.md, "Numerics"); compiler_options=
# {"flush_subnormals": False} keeps IEEE subnormals.
DEFAULT_COMPILER_OPTIONS = {"flush_subnormals": True}


def compiler_options_key(given: dict[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    """Kiln's default CPU pipeline options overridden by `given`, sorted."""
    return tuple(sorted({**DEFAULT_COMPILER_OPTIONS, **(given or {})}.items()))


@dataclass
class Options:
    rules: Rules | None = None
    tags: tuple[str, ...] = ()
    optimize: bool = True
    cache_dir: str = ""
    fp_contract: bool = False
    # CPU pipeline options by name (lowering/CpuPipelineOptions.def).
    compiler_options: tuple[tuple[str, Any], ...] = compiler_options_key(None)
    # The most threads a call's runtime GEMM uses (0: the process default).
    threads: int = 0

    @property
    def reassociate(self) -> bool:
        return any(t.lstrip("+") == "reassociates-float" for t in self.tags)


@dataclass
class Traced:
    """One traced signature: the closed jaxpr, its output tree."""
    closed: Any
    out_tree: Any
    name: str
    # Per output leaf: the PRNG implementation of a typed key (returned as
    # its key data, wrapped again by the caller), None for arrays.
    out_keys: tuple = ()
    # The Python callbacks the program calls (kiln/_callbacks.py), or None.
    callbacks: Any = None
    # The function as JAX evaluates it: `closed` before its callbacks were
    # numbered (JAX cannot evaluate kiln_host_callback); None: `closed`.
    jax_closed: Any = None
    # Where the traced function was defined: (file, line, column), or None.
    position: tuple | None = None

    @functools.cached_property
    def text(self) -> str:
        """The jaxpr as JAX prints it (Kiln imports it without printing)."""
        return normalize_jaxpr_text(str(self.closed))


def _is_key(x) -> bool:
    """Whether `x` is a typed PRNG key array (jax.random.key)."""
    dtype = getattr(x, "dtype", None)
    if dtype is None or isinstance(dtype, np.dtype):
        return False
    jax = _jax()
    return jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)


@dataclass(frozen=True)
class ComplexLeaf:
    """A complex leaf, which Kiln's code takes and gives as its interleaved
    real view ([..., 2], kiln/_complex.py)."""
    dtype: Any


def _is_complex(x) -> bool:
    dtype = getattr(x, "dtype", None)
    return isinstance(dtype, np.dtype) and dtype.kind == "c"


def leaf_encoding(x) -> Any:
    """How Kiln's code holds leaf `x`: a typed key's implementation (as its
    key data), a ComplexLeaf (as its real view), or None (as it is)."""
    if _is_key(x):
        return _jax().random.key_impl(x)
    if _is_complex(x):
        return ComplexLeaf(np.dtype(x.dtype))
    return None


def encode_leaf(x, encoding) -> Any:
    if encoding is None:
        return x
    if isinstance(encoding, ComplexLeaf):
        return split_complex(x)
    return _jax().random.key_data(x)


def decode_leaf(x, encoding) -> Any:
    """The leaf that `x` (Kiln's form of it) stands for."""
    if encoding is None:
        return x
    if isinstance(encoding, ComplexLeaf):
        return join_complex(x, encoding.dtype)
    jax = _jax()
    return jax.random.wrap_key_data(x if isinstance(x, jax.core.Tracer) else to_cpu(x),
                                    impl=encoding)


def unwrap_keys(leaves: Sequence[Any]) -> tuple[list, tuple]:
    """Typed PRNG keys among `leaves` as their key data (uint32[..., 2]
    for threefry) and complex arrays as their real views, which Kiln's code
    takes; and per leaf its encoding (leaf_encoding; None for arrays), by
    which the trace turns them back."""
    impls = tuple(leaf_encoding(x) for x in leaves)
    if not any(impls):
        return list(leaves), impls
    return [encode_leaf(x, impl) for x, impl in zip(leaves, impls)], impls


def wrap_keys(out, out_tree, out_keys: Sequence[Any]):
    """`out` (in `out_tree`'s structure) with the leaves at the positions
    of `out_keys` decoded: key data wrapped as typed keys again (on the CPU
    device), real views of complex results as complex arrays."""
    if not any(k is not None for k in out_keys):
        return out
    jax = _jax()
    leaves = jax.tree_util.tree_leaves(out)
    leaves = [decode_leaf(x, impl) for x, impl in zip(leaves, out_keys)]
    return jax.tree_util.tree_unflatten(out_tree, leaves)


def _is_array_leaf(x) -> bool:
    """Leaves traced as arrays: arrays and Python numbers (as jax.jit). Any
    other leaf (a function or a string inside an equinox module) is static,
    part of the signature, as equinox's filter_jit treats it."""
    return isinstance(x, (_jax_array_type(), np.ndarray, np.generic) + _SCALARS)


def _is_filter_array(x) -> bool:
    """Leaves traced by kiln.filter_jit (equinox's ``eqx.is_array``): arrays
    only; Python numbers are static there."""
    return isinstance(x, (_jax_array_type(), np.ndarray, np.generic))


class _Static:
    """A static argument in a cache key: equal to another when both the
    types and the values are (jax.jit's rule: f(x, 1) and f(x, 1.0) are two
    signatures, as `range(n)` may tell them apart)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __hash__(self):
        return hash(self.value)

    def __eq__(self, other):
        return (isinstance(other, _Static) and type(self.value) is type(other.value)
                and self.value == other.value)


def _static_key(x) -> Any:
    """A static argument as a cache key: the value itself, which must be
    hashable (jax.jit's rule and message: an id() would be reused by a new
    object once the old one is freed, and the new one get the old compile)."""
    try:
        hash(x)
    except TypeError as e:
        raise ValueError(
            "Non-hashable static arguments are not supported. An error occurred while "
            f"trying to hash an object of type {type(x)}, {x!r}. The error was:\n"
            f"{type(e).__name__}: {e}\n") from None
    return _Static(x)


# -- static_argnums/static_argnames, donate_argnums/donate_argnames -----------
# jax.jit's rules (jax._src.api_util.resolve_argnums), with its messages: the
# numbers and the names complete each other through the signature, both are
# checked against it when the function is wrapped.

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _index_tuple(x) -> tuple[int, ...]:
    try:
        return (operator.index(x),)
    except TypeError:
        return tuple(map(operator.index, x))


def _str_tuple(x) -> tuple[str, ...]:
    if isinstance(x, str):
        return (x,)

    def check(v):
        if not isinstance(v, str):
            raise TypeError(f"argument is not a string: {v}")
        return v
    return tuple(map(check, x))


def _signature(fun) -> inspect.Signature | None:
    try:
        return inspect.signature(fun)
    except (ValueError, TypeError):
        return None


def _infer(sig: inspect.Signature, nums, names) -> tuple[tuple[int, ...], tuple[str, ...]]:
    if nums is None and names is None:
        return (), ()
    if nums is not None and names is not None:
        return _index_tuple(nums), _str_tuple(names)
    params = list(sig.parameters.items())
    if nums is None:
        names = _str_tuple(names)
        nums = tuple(i for i, (k, p) in enumerate(params)
                     if p.kind == inspect.Parameter.POSITIONAL_OR_KEYWORD and k in names)
    else:
        nums = _index_tuple(nums)
        names = tuple(k for i, (k, p) in enumerate(params)
                      if p.kind == inspect.Parameter.POSITIONAL_OR_KEYWORD and i in nums)
    return nums, names


def _validate_nums(sig: inspect.Signature, nums: tuple[int, ...], what: str) -> None:
    n = 0
    for p in sig.parameters.values():
        if p.kind in _POSITIONAL:
            n += 1
        elif p.kind is inspect.Parameter.VAR_POSITIONAL:
            return  # any number of positional arguments
    if nums and (-min(nums) > n or max(nums) >= n):
        raise ValueError(f"Jitted function has {what}={nums}, "
                         f"but only accepts {n} positional arguments.")


def _validate_names(sig: inspect.Signature, names: tuple[str, ...], what: str) -> None:
    valid, invalid, var_kw = set(), set(), False
    for k, p in sig.parameters.items():
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            valid.add(k)
        elif p.kind is inspect.Parameter.VAR_KEYWORD:
            var_kw = True
        else:
            invalid.add(k)
    if bad := invalid & set(names):
        raise ValueError(f"Jitted function has invalid argnames {bad} "
                         f"in {what}. These are positional-only")
    if not var_kw and (bad := set(names) - valid):
        raise ValueError(f"Jitted function has invalid argnames {bad} "
                         f"in {what}. Function does not take these args.")


@dataclass(frozen=True)
class ArgSpec:
    """Which arguments are static and which donated, by position and name."""
    static_argnums: tuple[int, ...] = ()
    static_argnames: tuple[str, ...] = ()
    donate_argnums: tuple[int, ...] = ()
    donate_argnames: tuple[str, ...] = ()
    # kiln.filter_jit (_filter_jit.py): Python numbers are static leaves;
    # the arguments from position `donate_from` on (keyword ones too) donated.
    filter: bool = False
    donate_from: int | None = None

    @property
    def donates(self) -> bool:
        return bool(self.donate_argnums or self.donate_argnames) or self.donate_from is not None


def resolve_argnums(fun, static_argnums=None, static_argnames=None, donate_argnums=None,
                    donate_argnames=None) -> ArgSpec:
    """jax.jit's resolution of the four arguments (and its errors)."""
    sig = _signature(fun)
    if sig is None:
        if donate_argnames is not None:
            raise ValueError(f"Getting the signature of function {fun} failed. "
                             "Pass donate_argnums instead of donate_argnames.")
        spec = ArgSpec(() if static_argnums is None else _index_tuple(static_argnums),
                       () if static_argnames is None else _str_tuple(static_argnames),
                       () if donate_argnums is None else _index_tuple(donate_argnums), ())
    else:
        snums, snames = _infer(sig, static_argnums, static_argnames)
        dnums, dnames = _infer(sig, donate_argnums, donate_argnames)
        _validate_nums(sig, snums, "static_argnums")
        _validate_names(sig, snames, "static_argnames")
        _validate_nums(sig, dnums, "donate_argnums")
        _validate_names(sig, dnames, "donate_argnames")
        spec = ArgSpec(snums, snames, dnums, dnames)
    if both := set(spec.static_argnames) & set(spec.donate_argnames):
        raise ValueError(
            "static_argnames and donate_argnames cannot intersect. Argument names "
            f"{both} appear in both static_argnames and donate_argnames")
    return spec


def _positions(nums: Sequence[int], n: int) -> frozenset:
    """Argument numbers (negative ones from the end) among `n` positional
    arguments; numbers beyond them are ignored, as jax.jit does (the
    argument was passed by keyword, or not at all)."""
    return frozenset(i if i >= 0 else n + i for i in nums if -n <= i < n)

class _Identity:
    """A non-array leaf that cannot be hashed (a callable object inside a
    module), keyed by identity: the key holds the object, so its id cannot
    be reused by another while the compiled entry lives."""
    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __eq__(self, other):
        return isinstance(other, _Identity) and other.obj is self.obj

    def __hash__(self):
        return id(self.obj)


def _leaf_static_key(x) -> Any:
    if type(x) in _SCALARS:  # kiln.filter_jit's static numbers: 1, 1.0, True differ
        return _Static(x)
    try:
        hash(x)
        return x
    except TypeError:
        return _Identity(x)


@dataclass
class Flat:
    """Arguments flattened as kiln.jit traces them: the array leaves
    (`leaves`, what the compiled code takes) and what rebuilds the rest."""
    args: tuple
    static: frozenset    # positions of the static positional arguments
    static_kwargs: dict  # the static keyword arguments
    in_tree: Any         # of (dynamic positional arguments, dynamic keyword arguments)
    mask: tuple          # per leaf of in_tree: True for array leaves
    others: tuple        # the non-array leaves, in order
    leaves: list
    key: Any
    donated: tuple = ()  # per array leaf: whether its argument is donated
    key_impls: tuple = ()  # per array leaf: a typed key's implementation (its data in `leaves`)


def flatten(args: tuple, kwargs: dict, static_argnums: Sequence[int] | ArgSpec,
            static_argnames: Sequence[str] = ()) -> Flat:
    """`args` and `kwargs` flattened as jax.jit does: positional arguments at
    `static_argnums` and keyword arguments named in `static_argnames` are
    static (part of the signature, hashable); the others are pytrees whose
    array leaves are traced. `static_argnums` may be an ArgSpec, which also
    says which arguments are donated."""
    jax = _jax()
    spec = static_argnums if isinstance(static_argnums, ArgSpec) else \
        ArgSpec(tuple(static_argnums), tuple(static_argnames))
    static = _positions(spec.static_argnums, len(args))
    static_kwargs = {k: v for k, v in kwargs.items() if k in spec.static_argnames}
    dyn = tuple(a for i, a in enumerate(args) if i not in static)
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in spec.static_argnames}
    all_leaves, in_tree = jax.tree_util.tree_flatten((dyn, dyn_kwargs))
    # A numpy array in the other byte order is converted by value (jax.jit
    # refuses some, converts others as it canonicalizes them); the fast path
    # never passes its bytes as they are.
    all_leaves = [np.asarray(x, x.dtype.newbyteorder("="))
                  if type(x) is np.ndarray and not x.dtype.isnative else x for x in all_leaves]
    is_array = _is_filter_array if spec.filter else _is_array_leaf
    mask = tuple(is_array(x) for x in all_leaves)
    leaves = [x for x, m in zip(all_leaves, mask) if m]
    others = tuple(x for x, m in zip(all_leaves, mask) if not m)
    key = (in_tree,
           tuple((i, _static_key(args[i])) for i in sorted(static)),
           tuple((k, _static_key(static_kwargs[k])) for k in sorted(static_kwargs)),
           tuple(_leaf_static_key(x) for x in others), tuple(_leaf_key(x) for x in leaves))
    donated = ()
    if spec.donates:
        dnums = _positions(spec.donate_argnums, len(args))
        start = len(args) if spec.donate_from is None else spec.donate_from
        flags = []
        for i, a in enumerate(args):
            if i not in static:
                flags += [i in dnums or i >= start] * len(jax.tree_util.tree_leaves(a))
        for k in sorted(dyn_kwargs):  # JAX flattens a dict in sorted key order
            flags += [k in spec.donate_argnames or spec.donate_from is not None] * \
                len(jax.tree_util.tree_leaves(dyn_kwargs[k]))
        donated = tuple(f for f, m in zip(flags, mask) if m)
    leaves, key_impls = unwrap_keys(leaves)
    return Flat(args, static, static_kwargs, in_tree, mask, others, leaves, key, donated, key_impls)


def trace(fun: Callable, flat: Flat, leaves: Sequence[Any] | None = None) -> Traced:
    """Traces `fun` as jax.jit would, on `flat`'s array leaves (or on
    `leaves`: abstract values of the same types): static arguments and
    non-array leaves fixed. Typed PRNG keys come in as their key data and
    are wrapped inside; a key output leaves as its data (Traced.out_keys)."""
    jax = _jax()
    out_store = {}
    impls = flat.key_impls or (None,) * len(flat.leaves)

    def flat_fun(*arrays):
        arrays = [decode_leaf(a, impl) for a, impl in zip(arrays, impls)]
        it_arrays, it_others = iter(arrays), iter(flat.others)
        all_leaves = [next(it_arrays) if m else next(it_others) for m in flat.mask]
        d, kw = jax.tree_util.tree_unflatten(flat.in_tree, all_leaves)
        it = iter(d)
        full = [flat.args[i] if i in flat.static else next(it) for i in range(len(flat.args))]
        out = fun(*full, **kw, **flat.static_kwargs)
        out_leaves, out_tree = jax.tree_util.tree_flatten(out)
        out_store["tree"] = out_tree
        out_store["keys"] = tuple(leaf_encoding(x) for x in out_leaves)
        return [encode_leaf(x, e) for x, e in zip(out_leaves, out_store["keys"])]

    with inline():  # kiln.jit functions called by `fun` are traced through
        closed = jax.make_jaxpr(flat_fun)(*(flat.leaves if leaves is None else leaves))
        # Equinox's filter primitives (lineax's linear_solve) print with
        # Python objects as parameters: their implementations instead.
        closed = inline_filter_primitives(closed)
        # Complex values inside: pairs of real arrays.
        closed = lower_complex(closed)
        # Callbacks into Python (jax.debug.print, pure_callback, equinox's
        # checks): numbered, run by the compiled code through a table.
        jax_closed = closed
        closed, callbacks = extract_host_callbacks(closed)
    name = getattr(fun, "__name__", "fun")
    return Traced(closed, out_store["tree"], name, out_store["keys"], callbacks, jax_closed,
                  definition_position(fun))


def definition_position(fun: Callable) -> tuple | None:
    """Where `fun` was defined, (file, line, column), if Python knows."""
    code = getattr(inspect.unwrap(fun), "__code__", None) if callable(fun) else None
    return None if code is None else (code.co_filename, code.co_firstlineno, 1)


def abstract_leaves(leaves: Sequence[Any]) -> list:
    """ShapeDtypeStructs of `leaves` (which may be another transformation's
    tracers), weak types kept."""
    jax = _jax()
    return [jax.ShapeDtypeStruct(jax.numpy.shape(x), jax.numpy.result_type(x),
                                 weak_type=bool(getattr(jax.typeof(x), "weak_type", False)))
            for x in leaves]


def import_closed(closed, name: str, position: tuple | None = None) -> _kiln.Program:
    """A ClosedJaxpr as lax, imported from JAX's objects (no text)."""
    return _kiln.Program.from_jaxpr_tree(jaxpr_tree(closed, name, position), name)


def import_traced(t: Traced) -> _kiln.Program:
    return import_closed(t.closed, t.name, t.position)


def parse_released(text: str) -> _kiln.Program:
    """A program kept as text (with its locations) by a cached signature,
    parsed again. Each live Program holds an MLIR context of about 2.5 MB,
    which a compiled signature needs only for as_text, export and the rule
    reports: kept live, jit's memory per signature was 2.7 MB (jax.jit's
    1.5)."""
    return _kiln.Program.from_mlir(text, "<kiln>")


def rewrite_program(program: _kiln.Program, options: Options, *, trace_rules: bool = False):
    """The user's rules, then Kiln's optimizations. Returns (program, trace)."""
    trace_text = ""
    if options.rules is not None:
        options.rules.load_plugins()
        try:
            program, trace_text = program.apply_rules(options.rules.files, tag_spec(options.tags), trace_rules,
                                                      plugins=options.rules.plugins)
        except _kiln.Error as e:
            raise type(e)(options.rules.readable(str(e))) from None
        trace_text = options.rules.readable(trace_text)
    if options.optimize:
        program = program.optimize(reassociate=options.reassociate)
    return program, trace_text


class Lowered:
    """A traced function as lax, before compilation (jax's ``.lower()``):
    ``as_text()`` is the program as imported from the jaxpr; ``optimized()``
    the program after the rules and Kiln's rewrites; ``trace()`` which rules
    fired where, ``rule_stats()`` how often each fired, ``explain(rule)``
    why a rule does (not) match each op; ``compile()`` the compiled
    function (for a ``kiln.jit`` function, the one its calls use)."""

    def __init__(self, traced: Traced, program: _kiln.Program, options: Options, leaves: list,
                 owner: "Jitted | None" = None, flat: "Flat | None" = None):
        self._traced = traced
        self._program = program
        self._program_text = ""  # what _release kept of the program
        self._options = options
        self._leaves = leaves
        self._owner = owner
        self._flat = flat

    @property
    def jaxpr(self) -> str:
        """The jaxpr as JAX printed it."""
        return self._traced.text

    @property
    def program(self) -> _kiln.Program:
        if self._program is None:
            self._program = parse_released(self._program_text)
        return self._program

    def _release(self) -> None:
        """Keeps the program as text until it is used again (see
        parse_released)."""
        if self._program is not None:
            self._program_text, self._program = self._program.text(True), None

    def as_text(self, *, locations: bool = False) -> str:
        return self.program.text(locations)

    def __str__(self) -> str:
        return self.as_text()

    def optimized(self) -> "Lowered":
        program, _ = rewrite_program(self.program, self._options)
        options = self._options
        return Lowered(self._traced, program,
                       Options(None, options.tags, False, options.cache_dir, options.fp_contract,
                               options.compiler_options), self._leaves)

    def trace(self) -> str:
        """The rule engine's trace: each rule application with its location,
        the op before and after (empty when no rules are given)."""
        _, text = rewrite_program(self.program, self._options, trace_rules=True)
        return text

    def rule_stats(self) -> dict[str, int]:
        """How often each rule applied to this program ({} without rules):
        the rule engine's --rule-stats, by rule name in the order printed.
        Runs the kiln-opt tool (the native module does not expose the
        statistics)."""
        rules = self._options.rules
        if rules is None or not (rules.files or rules.plugins):
            return {}
        text = rules.run_opt(self.program.text(True), ["--rule-stats"], self._options.tags)
        stats = {}
        for line in text.splitlines():
            name, sep, count = line.strip().rpartition(": ")
            if sep and count.isdigit() and not line.startswith("rule-stats"):
                stats[name] = int(count)
        return stats

    def explain(self, rule: str) -> str:
        """For each op named like `rule`'s root, why the rule matches it or
        not, with the op's jaxpr location (the rule engine's
        --rule-explain); runs the kiln-opt tool."""
        rules = self._options.rules
        if rules is None or not (rules.files or rules.plugins):
            raise ValueError("explain: this function has no rules")
        return rules.run_opt(self.program.text(True), [f"--rule-explain={rule}"],
                             self._options.tags)

    def _small(self) -> tuple["Lowered", str]:
        """This function traced again on small arrays, for Rules.verify
        (the interpreter's time grows with the sizes): each dimension above
        4 becomes 5, 6, 7, ... in the order of the sizes, so that equal
        sizes stay equal and a larger one stays larger. Returns (lowered,
        a note of the shapes checked); self when it does not trace so."""
        given = ", ".join(a.str_short() for a in self._traced.closed.in_avals) or "no arrays"
        if self._owner is None or self._flat is None:
            return self, f"checked on the shapes given ({given})"
        jax = _jax()
        avals = abstract_leaves(self._flat.leaves)
        sizes = sorted({d for a in avals for d in a.shape if d > 4})
        if not sizes:
            return self, f"checked on the shapes given, small already ({given})"
        size = {d: 5 + k for k, d in enumerate(sizes)}
        small = [jax.ShapeDtypeStruct(tuple(size.get(d, d) for d in a.shape), a.dtype,
                                      weak_type=a.weak_type) for a in avals]
        try:
            traced = trace(self._owner._fun, self._flat, small)
            lowered = Lowered(traced, import_traced(traced), self._options, [])
        except Exception as e:  # the function needs its sizes: check those
            return self, (f"checked on the shapes given ({given}): it does not trace on "
                          f"small ones ({type(e).__name__})")
        checked = ", ".join(a.str_short() for a in traced.closed.in_avals)
        return lowered, (f"checked on small shapes ({checked}) for the shapes given ({given}); "
                         "small_shapes=False checks those")

    def compile(self) -> "Compiled":
        """The compiled function. For ``kiln.jit(f).lower(*args)`` it is the
        entry the calls of ``f`` with such arguments use: compiled here
        when ``f`` had not compiled it yet, taken from ``f`` when it had."""
        if self._owner is not None and self._flat is not None:
            return self._owner._entry(self._flat, self._traced, self.program)
        compiled = Compiled.build(self._traced, self.program, self._options)
        compiled.lowered = self
        return compiled


@dataclass
class Compiled:
    """A compiled signature: the native function with its constants bound
    and its output tree set. Callable as jax's compiled functions are, with
    the arguments' dynamic part (without the static arguments), or with the
    flattened array leaves."""
    function: _kiln.CompiledFunction
    out_tree: Any
    # The program compiled, or its text once released (_release).
    program_or_text: _kiln.Program | str
    lowered: Any = field(default=None, repr=False)
    # Positions among the array leaves of the donated inputs that an output
    # of the same shape and dtype takes (jax.jit's pairing): deleted after
    # each call when they are JAX arrays.
    donate: tuple[int, ...] = ()
    # The arguments' structure (Flat.in_tree, mask, others) when known, and
    # whether to give JAX arrays back (kiln.jit's return_jax_arrays).
    in_tree: Any = field(default=None, repr=False)
    mask: tuple = field(default=(), repr=False)
    others: tuple = field(default=(), repr=False)
    return_jax: bool = False
    out_keys: tuple = ()  # Traced.out_keys
    filter: bool = False  # kiln.filter_jit's: Python numbers are static leaves

    @staticmethod
    def build(traced: Traced, program: _kiln.Program, options: Options) -> "Compiled":
        rewritten, _ = rewrite_program(program, options)
        function = rewritten.compile("main", options.cache_dir, options.fp_contract,
                                     dict(options.compiler_options))
        consts = [np.asarray(c) for c in traced.closed.consts]
        nested = [np.asarray(c) for c in hoisted_consts(traced.closed)]
        function.bind(consts, nested)
        function.set_host_callback(traced.callbacks)
        function.set_threads(options.threads)
        jax = _jax()
        n = traced.out_tree.num_leaves
        if n == 1 and traced.out_tree == jax.tree_util.tree_structure(0):
            function.set_output_tree(None)
        elif n > 1 and traced.out_tree == jax.tree_util.tree_structure((0,) * n):
            function.set_output_tree(None)
        else:
            function.set_output_tree(traced.out_tree)
        return Compiled(function, traced.out_tree, rewritten,
                        lowered=Lowered(traced, program, options, []), out_keys=traced.out_keys)

    @property
    def program(self) -> _kiln.Program:
        """The lax program compiled: after the rules and Kiln's rewrites."""
        if isinstance(self.program_or_text, str):
            self.program_or_text = parse_released(self.program_or_text)
        return self.program_or_text

    def _release(self) -> None:
        """Keeps the programs (this one and the Lowered's) as text until
        they are used again: a cached signature needs neither to run."""
        if not isinstance(self.program_or_text, str):
            self.program_or_text = self.program_or_text.text(True)
        if self.lowered is not None:
            self.lowered._release()

    def as_text(self) -> str:
        """The lax program compiled: after the rules and Kiln's rewrites."""
        return self.program.text(False)

    def export(self, path: str | os.PathLike, *, header: str | os.PathLike | None = None,
               name: str | None = None, target: str = "cpu", cpu: str = "host",
               gpu_chip: str | None = None) -> Exported:
        """Writes this signature ahead of time as a shared library (`path`
        ending in .so; .o: the object alone) with the C entry point
        ``NAME_call(buffers)`` (NAME: `name`, default the file name without
        "lib"), and its C header at `header` if given, with kiln-compile
        (_export.py, docs/aot.md). The library takes exactly the flattened
        array leaves of the call (the constants the function closes over
        are compiled in) and writes the flattened output leaves. `target`:
        "cpu" or "gpu" (`gpu_chip`: its architecture); `cpu`: "host" or an
        LLVM CPU name. Returns a kiln.Exported (``.load()`` calls it)."""
        traced, options = self.lowered._traced, self.lowered._options
        if traced.callbacks:
            raise _kiln.Error(
                f"kiln: cannot export '{traced.name}': it calls back into Python "
                f"({len(traced.callbacks)} host callbacks: jax.debug.print, pure_callback or "
                "equinox's runtime checks), and an exported library runs without Python")
        return export_library(
            self.program, traced.closed.consts, hoisted_consts(traced.closed), path,
            inputs=self.function.input_types, outputs=self.function.output_types,
            out_tree=self.out_tree, header=header, name=name, target=target, cpu=cpu,
            gpu_chip=gpu_chip, fp_contract=options.fp_contract,
            compiler_options=dict(options.compiler_options),
            plugins=options.rules.plugins if options.rules is not None else ())

    def rule_stats(self) -> dict[str, int]:
        """How often each rule applied (Lowered.rule_stats)."""
        return self.lowered.rule_stats()

    def explain(self, rule: str) -> str:
        """Why `rule` matches each op or not (Lowered.explain)."""
        return self.lowered.explain(rule)

    def _leaves_of(self, args: tuple, kwargs: dict) -> list | None:
        """The array leaves of a call with the dynamic arguments, or None
        when the arguments are not of the compiled structure."""
        if self.in_tree is None:
            return None
        jax = _jax()
        all_leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
        if tree != self.in_tree:
            return None
        others = tuple(x for x, m in zip(all_leaves, self.mask) if not m)
        is_array = _is_filter_array if self.filter else _is_array_leaf
        if any(not is_array(x) for x, m in zip(all_leaves, self.mask) if m) or \
                tuple(map(_leaf_static_key, others)) != tuple(map(_leaf_static_key, self.others)):
            return None
        return unwrap_keys([x for x, m in zip(all_leaves, self.mask) if m])[0]

    def __call__(self, *args, **kwargs):
        leaves = self._leaves_of(args, kwargs)
        if leaves is None:
            if kwargs:
                raise TypeError("the compiled function was called with keyword arguments of "
                                "another structure than it was compiled for")
            leaves = list(args)  # the flattened array leaves
        for x in leaves:
            if isinstance(x, _jax_array_type()):
                check_not_deleted(x)
        out = self.function.call_flat(leaves)
        delete_donated(leaves, self.donate)
        if self.return_jax:
            out = _jax().tree_util.tree_map(to_cpu, out)
        return wrap_keys(out, self.out_tree, self.out_keys)


def check_not_deleted(x) -> None:
    """jax.jit's error for a JAX array deleted with .delete() (or donated
    to an earlier call)."""
    if x.is_deleted():
        raise RuntimeError(f"Array has been deleted with shape={x.aval.str_short()}.")


def usable_donations(donated: Sequence[bool], closed) -> tuple[int, ...]:
    """The donated array leaves an output can take, as jax.jit pairs them
    (jax._src.interpreters.mlir._set_up_aliases): each output, in order,
    with the first donated input left of the same shape and dtype; then each
    donated input left, in order, with the first output left of as many
    elements. Warns about the donated inputs no output takes. An input the
    function does not read is not donated (jax.jit drops it)."""
    if not any(donated):
        return ()
    jaxpr = closed.jaxpr
    read = {id(v) for e in jaxpr.eqns for v in e.invars} | {id(v) for v in jaxpr.outvars}
    waiting: dict = {}
    for i, (d, aval, var) in enumerate(zip(donated, closed.in_avals, jaxpr.invars)):
        if d and id(var) in read:
            waiting.setdefault((aval.shape, aval.dtype), []).append(i)
    used, outputs_left = [], {}
    for o, aval in enumerate(closed.out_avals):
        queue = waiting.get((aval.shape, aval.dtype))
        if queue:
            used.append(queue.pop(0))
        else:
            outputs_left.setdefault(int(np.prod(aval.shape, dtype=np.int64)), []).append(o)
    unused = []
    for i in sorted(i for q in waiting.values() for i in q):
        queue = outputs_left.get(int(np.prod(closed.in_avals[i].shape, dtype=np.int64)))
        if queue:
            queue.pop(0)
            used.append(i)
        else:
            unused.append(i)
    if unused:
        names = ", ".join(closed.in_avals[i].str_short() for i in unused)
        warnings.warn(f"Some donated buffers were not usable: {names}.\n"
                      "See an explanation at https://docs.jax.dev/en/latest/faq.html#buffer-donation.",
                      stacklevel=4)
    return tuple(sorted(used))


def delete_donated(leaves: Sequence[Any], donate: Sequence[int]) -> bool:
    """Deletes the JAX arrays among the donated `leaves` (as jax.jit does
    with the buffers it donated); whether there were any."""
    any_jax = False
    for i in donate:
        x = leaves[i]
        if isinstance(x, _jax_array_type()):
            any_jax = True
            if not x.is_deleted():
                x.delete()
    return any_jax


class Jitted(_kiln.JitFunction):
    """What kiln.jit returns; call it like the function it wraps."""

    def __init__(self, fun: Callable, options: Options, argspec: ArgSpec, return_jax: bool):
        super().__init__(type(self)._call_slow)  # a subclass's own (kiln.filter_jit)
        self._fun = fun
        self._options = options
        self._argspec = argspec
        self._return_jax = return_jax
        self._cache: dict[Any, Compiled] = {}
        functools.update_wrapper(self, fun, updated=())

    @property
    def static_argnums(self) -> tuple[int, ...]:
        return self._argspec.static_argnums

    @property
    def static_argnames(self) -> tuple[str, ...]:
        return self._argspec.static_argnames

    @property
    def donate_argnums(self) -> tuple[int, ...]:
        return self._argspec.donate_argnums

    @property
    def donate_argnames(self) -> tuple[str, ...]:
        return self._argspec.donate_argnames

    def _entry(self, flat: Flat, traced: Traced | None = None,
               program: _kiln.Program | None = None) -> Compiled:
        """The compiled entry of `flat`'s signature: from the cache, or
        traced (unless `traced` is given), imported and compiled."""
        compiled = self._cache.get(flat.key)
        if compiled is None:
            if traced is None:
                traced = trace(self._fun, flat)
            if program is None:
                program = import_traced(traced)
            compiled = Compiled.build(traced, program, self._options)
            compiled.donate = usable_donations(flat.donated, traced.closed)
            compiled.in_tree, compiled.mask, compiled.others = flat.in_tree, flat.mask, flat.others
            compiled.return_jax = self._return_jax
            compiled.filter = self._argspec.filter
            compiled._release()
            self._cache[flat.key] = compiled
        return compiled

    def _compiled(self, args: tuple, kwargs: dict) -> tuple[Compiled, Flat]:
        flat = flatten(args, kwargs, self._argspec)
        return self._entry(flat), flat

    def _cache_size(self) -> int:
        """How many signatures are compiled (jax.jit's ``_cache_size()``)."""
        return len(self._cache)

    def _call_slow(self, *args, **kwargs):
        if inlining():  # inside a trace for Kiln: the function's own primitives
            return self._fun(*args, **kwargs)
        flat = flatten(args, kwargs, self._argspec)
        leaves = flat.leaves
        tracer = _jax().core.Tracer
        if any(isinstance(x, tracer) for x in leaves):
            return self._call_traced(flat)
        compiled = self._entry(flat)
        out = compiled.function.call_flat([self._host_view(x) for x in leaves])
        donated_jax = delete_donated(leaves, compiled.donate)
        keys = any(flat.key_impls) or any(k is not None for k in compiled.out_keys)
        if self._return_jax:
            out = _jax().tree_util.tree_map(to_cpu, out)
        elif not kwargs and not self._argspec.static_argnums and not donated_jax and not keys:
            # The C++ path neither reads static arguments, nor deletes
            # donated JAX arrays, nor takes or gives typed keys: such calls
            # stay here.
            self._register_fast_path(args, compiled)
        return wrap_keys(out, compiled.out_tree, compiled.out_keys)

    def _call_traced(self, flat: Flat):
        """A call under a JAX transformation (some leaves are tracers): one
        kiln_call primitive on the array leaves (_transforms.py)."""
        from . import _transforms
        fns = self.__dict__.setdefault("_traced_fns", {})
        fn = fns.get(flat.key)
        if fn is None:
            traced = trace(self._fun, flat, abstract_leaves(flat.leaves))
            fn = _transforms.Fn(traced.jax_closed, self._options, traced.name)
            fn.out_tree, fn.out_keys = traced.out_tree, traced.out_keys
            fns[flat.key] = fn
        out = _jax().tree_util.tree_unflatten(fn.out_tree, _transforms.call(fn, flat.leaves))
        return wrap_keys(out, fn.out_tree, fn.out_keys)

    def _register_fast_path(self, args: tuple, compiled: Compiled) -> None:
        """Lets later calls with this signature take the C++ path: numpy
        arrays and scalars are passed as they come; dicts, lists and tuples
        of arrays (flax's parameters) are walked on every call (their JAX
        arrays matched by identity); another pytree argument passed again as
        the same object (a model) is pinned when it is immutable."""
        last, self._last_args = getattr(self, "_last_args", ()), args
        dtypes = compiled.function.input_dtypes
        pinned, at = [], 0
        filter_ = self._argspec.filter
        for i, a in enumerate(args):
            # (kiln.filter_jit's Python numbers are static: pinned below.)
            if type(a) is np.ndarray or isinstance(a, (_jax_array_type(),) if filter_ else
                                                   (bool, int, float, _jax_array_type())):
                pinned.append(None)  # passed as it comes (JAX arrays: their buffer)
                at += 1
                continue
            if type(a) in (dict, list, tuple):
                # Registered once its JAX arrays are the previous call's
                # (inference with fixed parameters), not on every step of a
                # training loop, whose parameters change each call.
                spec = _tree_spec(a, dtypes, at, convert=False)
                if spec is None:
                    return
                held = tuple(n[1] for n in _held_leaves(spec[0]))
                seen = self.__dict__.setdefault("_last_held", {})
                previous, seen[i] = seen.get(i, ()), held
                if len(previous) != len(held) or any(p is not h for p, h in zip(previous, held)):
                    return
                spec = _tree_spec(a, dtypes, at, convert=True)
                pinned.append(("tree", spec[0]))
                at += spec[1]
                continue
            leaves = _pinnable_leaves(a, filter_) if i < len(last) and last[i] is a else None
            if leaves is None:
                return
            pinned.append(("pinned",
                           [np.array(x, dtype=dtypes[at + k], order="C", copy=True)
                            for k, x in enumerate(leaves)],
                           _watched_containers(a)))
            at += len(leaves)
        self._add_fast_path(tuple(args), compiled.function, pinned)

    def _host_view(self, x):
        """A JAX array as a numpy array, converted once per array object
        (JAX arrays are immutable): parameters passed again and again (a
        dict of weights) are not converted on every call. The cache holds
        the arrays weakly: an array nobody else holds leaves it."""
        if not isinstance(x, _jax_array_type()):
            return x
        check_not_deleted(x)
        views = self.__dict__.setdefault("_views", {})
        hit = views.get(id(x))
        if hit is not None and hit[0]() is x:
            return hit[1]
        key = id(x)
        view = np.asarray(x)
        try:
            ref = weakref.ref(x, lambda _, views=views, key=key: views.pop(key, None))
        except TypeError:  # not weakly referenceable: convert every time
            return view
        views[key] = (ref, view)
        return view

    def lower(self, *args, **kwargs) -> Lowered:
        flat = flatten(args, kwargs, self._argspec)
        traced = trace(self._fun, flat)
        return Lowered(traced, import_traced(traced), self._options, flat.leaves, self, flat)

    def clear_cache(self) -> None:
        self._cache.clear()
        self.__dict__.pop("_traced_fns", None)
        self._clear_fast_paths()

    def __repr__(self) -> str:
        return f"<kiln.jit of {getattr(self._fun, '__qualname__', self._fun)!r}>"

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)


@functools.lru_cache(maxsize=None)
def _jax_array_type() -> type:
    return _jax().Array


def _is_equinox_module(t: type) -> bool:
    return any(c.__name__ == "Module" and c.__module__.startswith("equinox") for c in t.__mro__)


def _immutable_nodes(treedef, in_module: bool = False) -> bool:
    """Whether every node of `treedef` is immutable: tuples (named ones too),
    None, frozen dataclasses, flax's FrozenDict, equinox Modules (whose
    fields cannot be reassigned). Lists and dicts inside a module can change
    in place (`model.layers[0] = new_layer`): they are allowed there and
    watched on every call (_watched_containers)."""
    data = treedef.node_data()
    if data is None:
        return True
    t = data[0]
    if _is_equinox_module(t):
        in_module = True
    elif not (issubclass(t, tuple) or t is type(None) or t.__name__ == "FrozenDict"
              or (dataclasses.is_dataclass(t) and t.__dataclass_params__.frozen)
              or (in_module and t in (list, dict))):
        return False
    return all(_immutable_nodes(c, in_module) for c in treedef.children())


def _watched_containers(obj) -> list:
    """The lists and dicts inside a pinned object, each with its items as
    they are now: [(list, items)] or [(dict, keys, values)]. JitFunction
    compares them by identity on every call, so a change in place unpins."""
    out, seen = [], set()

    def walk(v):
        if id(v) in seen:
            return
        seen.add(id(v))
        t = type(v)
        if t is list:
            out.append((v, tuple(v)))
            for c in v:
                walk(c)
        elif t is dict:
            keys = tuple(v)
            out.append((v, keys, tuple(v[k] for k in keys)))
            for c in v.values():
                walk(c)
        elif t is tuple or (isinstance(v, tuple) and hasattr(v, "_fields")):
            for c in v:
                walk(c)
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            for f in dataclasses.fields(v):
                walk(getattr(v, f.name, None))

    walk(obj)
    return out


class _NotATree(Exception):
    pass


def _tree_spec(arg, dtypes, at: int, convert: bool) -> tuple | None:
    """(description, number of leaves) of `arg` for JitFunction's Tree
    signature when `arg` is made of dicts, lists, tuples and None (exact
    types: their flattening order is JAX's own) over numpy arrays (passed as
    they come) and JAX arrays (matched by identity, converted once to the
    inputs' dtypes; without `convert`, None in their place); None
    otherwise. The C++ side walks the same nodes on every call, so a dict
    changed in place is seen."""
    count = 0

    def node(v):
        nonlocal count
        t = type(v)
        if t is dict:
            keys = tuple(sorted(v))  # JAX flattens a dict in sorted key order
            return ("dict", keys, tuple(node(v[k]) for k in keys))
        if t is list or t is tuple:
            return (t.__name__, tuple(node(c) for c in v))
        if v is None:
            return ("none",)
        if t is np.ndarray:
            count += 1
            return ("array", v)
        if isinstance(v, _jax_array_type()):
            dtype = dtypes[at + count]
            count += 1
            # A copy, as a pinned model's: it stays valid whatever becomes
            # of the JAX array's buffer (donated, deleted).
            return ("held", v, np.array(v, dtype=dtype, order="C", copy=True) if convert else None)
        raise _NotATree

    try:
        return node(arg), count
    except (_NotATree, TypeError, IndexError):
        return None


def _held_leaves(spec):
    """The ("held", ...) nodes of a _tree_spec description, in order."""
    if spec[0] == "held":
        yield spec
    elif spec[0] == "dict":
        for c in spec[2]:
            yield from _held_leaves(c)
    elif spec[0] in ("list", "tuple"):
        for c in spec[1]:
            yield from _held_leaves(c)


def _pinnable_leaves(arg, filter_: bool = False) -> list | None:
    """The leaves of `arg` when it can be pinned (flattened once, matched by
    identity later): immutable nodes, and leaves that are JAX arrays or
    Python scalars (immutable too). None otherwise. With `filter_`
    (kiln.filter_jit) Python scalars are static leaves, not arrays."""
    jax = _jax()
    leaves, treedef = jax.tree_util.tree_flatten(arg)
    if not leaves or not _immutable_nodes(treedef):
        return None
    # Array leaves must be JAX arrays or numbers (immutable); the others are
    # static, part of the signature already.
    arrays = [x for x in leaves if (_is_filter_array if filter_ else _is_array_leaf)(x)]
    if not all(isinstance(x, (jax.Array,) + _SCALARS) for x in arrays):
        return None
    return arrays


def jit(fun: Callable | None = None, *, rules=None, tags: Sequence[str] = (), optimize: bool = True,
        static_argnums: int | Sequence[int] | None = None,
        static_argnames: str | Iterable[str] | None = None,
        donate_argnums: int | Sequence[int] | None = None,
        donate_argnames: str | Iterable[str] | None = None,
        cache_dir: Any = DEFAULT_CACHE, plugins: Sequence[str] = (), fp_contract: bool = False,
        return_jax_arrays: bool = False, compiler_options: dict[str, Any] | None = None,
        threads: int | None = None):
    """Compiles `fun` with Kiln for the CPU, like ``jax.jit``.

    On the first call for each input signature (shapes, dtypes, pytree
    structure, static arguments) `fun` is traced with JAX, its jaxpr imported
    into lax, rewritten by `rules` (a YAML file or directory, YAML text, a
    kiln.Rules, or a list of them; `plugins`: plugin .so files) with `tags`
    enabled, then by Kiln's own optimizations (`optimize`), and compiled with
    the LLVM JIT; the result is cached in memory and in the compile cache on
    disk (`cache_dir`; default: $KILN_CACHE_DIR or ~/.cache/kiln; None: off).

    Calls take numpy arrays, JAX arrays and Python scalars (and pytrees of
    them) and return numpy arrays in `fun`'s output structure (JAX arrays with
    `return_jax_arrays`). Arrays that are aligned, C-contiguous and of the
    traced dtype are passed without a copy.

    `static_argnums`/`static_argnames` and `donate_argnums`/`donate_argnames`
    are jax.jit's: numbers and names complete each other through `fun`'s
    signature and are checked against it here; a static argument must be
    hashable. A donated JAX array that an output of the same shape and dtype
    can take is deleted after the call, as jax.jit deletes it (Kiln's code
    writes its results to new buffers: donation frees the input early, it
    does not reuse it).

    `compiler_options` sets options of Kiln's CPU pipeline by name, as
    ``jax.jit``'s sets XLA's: ``{"scan_vector_bits": 256, "use_runtime_gemm":
    False}`` (every option: docs/pipeline.md); an unknown name is a
    ValueError, a value of the wrong type a TypeError, at the first call.

    `threads` bounds the threads each call uses for its large matrix
    products (default: every CPU the process may run on, or
    $KILN_NUM_THREADS); ``threads=1`` also keeps the compiled parallel
    loops on the calling thread. Kiln's worker threads never hold a core
    spinning for longer than 0.1 ms after their last job.
    """
    if fun is None:
        return functools.partial(jit, rules=rules, tags=tags, optimize=optimize,
                                 static_argnums=static_argnums, static_argnames=static_argnames,
                                 donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                                 cache_dir=cache_dir, plugins=plugins, fp_contract=fp_contract,
                                 return_jax_arrays=return_jax_arrays,
                                 compiler_options=compiler_options, threads=threads)
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    threads = check_threads(threads)
    if threads == 1:
        compiler_options = {"parallel_loops": False, **(compiler_options or {})}
    argspec = resolve_argnums(fun, static_argnums, static_argnames, donate_argnums,
                              donate_argnames)
    if isinstance(tags, str):
        tags = tuple(t for t in tags.split(",") if t)
    if cache_dir is DEFAULT_CACHE:
        cache_dir = _kiln.default_cache_dir()
    options = Options(as_rules(rules, plugins), tuple(tags), optimize, str(cache_dir or ""), fp_contract,
                      compiler_options_key(compiler_options), threads)
    return Jitted(fun, options, argspec, return_jax_arrays)


def check_threads(threads: Any) -> int:
    """kiln.jit's `threads`: None (0, the default) or a positive int."""
    if threads is None:
        return 0
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)):
        raise TypeError(f"threads must be a positive int or None, got {threads!r}")
    if threads < 1:
        raise ValueError(f"threads must be a positive int or None, got {threads}")
    return int(threads)
