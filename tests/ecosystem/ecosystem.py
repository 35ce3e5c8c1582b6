"""The ecosystem corpus: programs written with the JAX libraries people use.

Each program is a small function written with the public API of one library
(flax, haiku, equinox, optax, numpyro, blackjax, jraph, jax-md, optimistix,
jaxopt, lineax, diffrax, distrax, chex, jax.scipy, jnp.linalg, jnp.fft, jax
itself), as that library's users write it, plus a builder of example inputs.
``tests/ecosystem/run.py`` runs every program under ``jax.jit`` (the oracle)
and ``kiln.jit`` (``eqx.filter_jit`` and ``kiln.filter_jit`` for the
``filter_jit`` programs) and compares the results (docs/ecosystem.md).

A program registers itself with :func:`program`::

    @program("flax_mlp", "flax", args=_mlp_args)
    def flax_mlp(params, x):
        return _MLP().apply(params, x)

``args`` builds the example arguments (a tuple of pytrees of arrays) outside
of any trace: model parameters from the library's own initialisers, inputs
from fixed numpy seeds, PRNG keys as ``jax.random.PRNGKey`` (raw uint32[2]).

Comparison (:func:`compare`): the outputs are flattened with
``jax.tree_util``; every leaf must have the oracle's shape and dtype;
integer, boolean and key leaves must be equal; float and complex leaves must
satisfy ``|kiln - jax| <= atol * scale + rtol * |jax|`` elementwise, with
``scale = max(1, max |jax|)`` of the leaf, NaN equal to NaN. *worst* is the
largest ratio of the error to that bound (a match is <= 1).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import importlib.util
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
PROGRAMS_DIR = HERE / "programs"
EXPECTED_FILE = HERE / "expected_failures.txt"
QUICK_FILE = HERE / "quick.txt"


@dataclasses.dataclass(frozen=True)
class Program:
    """One ecosystem program.

    name: unique name (letters, digits, '_').
    library: the library whose API it is written with (the report groups by it).
    fn: the function, called as ``fn(*args())``.
    args: builder of the example arguments.
    rtol, atol: the tolerance of float leaves (see the module docstring).
    note: free text: what the program is, why a tolerance.
    filter_jit: the oracle is ``eqx.filter_jit(fn)`` (and the jaxpr
      ``eqx.filter_make_jaxpr``'s), as equinox users write it: arguments may
      hold non-array leaves (activation functions, Python numbers), which
      are static, and the outputs may too. Kiln runs it with
      ``kiln.filter_jit(fn)``, as an equinox user would.
    module: the programs module that defined it.
    """

    name: str
    library: str
    fn: Callable[..., Any]
    args: Callable[[], tuple]
    rtol: float = 1e-4
    atol: float = 1e-5
    note: str = ""
    filter_jit: bool = False
    module: str = ""


_REGISTRY: dict[str, Program] = {}


def program(name: str, library: str, args: Callable[[], tuple], rtol: float = 1e-4,
            atol: float = 1e-5, note: str = "", filter_jit: bool = False):
    """Decorator registering ``fn`` as program ``name`` of ``library``."""
    if not re.fullmatch(r"[A-Za-z0-9_]+", name):
        raise ValueError(f"program name {name!r}: use letters, digits and '_'")

    def register(fn):
        if name in _REGISTRY:
            raise ValueError(f"program {name!r} is registered twice")
        module = (getattr(fn, "__module__", "") or "").rsplit(".", 1)[-1]
        _REGISTRY[name] = Program(name, library, fn, args, rtol, atol, note, filter_jit,
                                  module)
        return fn

    return register


def load_programs() -> dict[str, Program]:
    """Imports every ``programs/*.py`` once; the registry in definition order."""
    for path in sorted(PROGRAMS_DIR.glob("*.py")):
        if path.name.startswith("_"):
            continue
        modname = f"kiln_ecosystem_programs.{path.stem}"
        if modname in sys.modules:
            continue
        spec = importlib.util.spec_from_file_location(modname, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[modname] = module
        spec.loader.exec_module(module)
    return dict(_REGISTRY)


def select(programs: dict[str, Program], filt: str | None = None,
           names: list[str] | None = None) -> list[Program]:
    """Programs whose name or library matches ``filt`` (comma-separated
    substrings or fnmatch patterns), restricted to ``names`` when given."""
    chosen = list(programs.values())
    if names is not None:
        unknown = [n for n in names if n not in programs]
        if unknown:
            raise SystemExit(f"ecosystem: unknown programs {unknown}")
        chosen = [programs[n] for n in names]
    if filt:
        pats = [p.strip() for p in filt.split(",") if p.strip()]

        def hit(p: Program, pat: str) -> bool:
            if any(c in pat for c in "*?["):
                return fnmatch.fnmatchcase(p.name, pat) or fnmatch.fnmatchcase(p.library, pat)
            return pat in p.name or pat == p.library
        chosen = [p for p in chosen if any(hit(p, pat) for pat in pats)]
    return chosen


def read_name_list(path: Path) -> dict[str, str]:
    """``NAME rest-of-line`` per line, '#' comments: name -> rest."""
    out: dict[str, str] = {}
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, rest = line.partition(" ")
        out[name] = rest.strip()
    return out


def read_expected() -> dict[str, str]:
    """expected_failures.txt: name -> 'status: reason'."""
    return read_name_list(EXPECTED_FILE)


def read_quick() -> list[str]:
    """quick.txt: the programs of the CI subset."""
    return list(read_name_list(QUICK_FILE))


# ---------------------------------------------------------------------------
# Inputs. Every program uses its own seeds, so that adding one never changes
# another's inputs.
# ---------------------------------------------------------------------------

def normal(*shape: int, seed: int = 0, scale: float = 1.0, dtype=np.float32) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


def uniform(*shape: int, seed: int = 0, low: float = 0.0, high: float = 1.0,
            dtype=np.float32) -> np.ndarray:
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


def integers(*shape: int, seed: int = 0, low: int = 0, high: int = 10,
             dtype=np.int32) -> np.ndarray:
    return np.random.default_rng(seed).integers(low, high, shape).astype(dtype)


def key(seed: int):
    """A raw PRNG key, uint32[2], as numpy (jax.random.PRNGKey(seed))."""
    import jax
    return np.asarray(jax.random.PRNGKey(seed))


def spd(n: int, seed: int = 0, shift: float = 1.0) -> np.ndarray:
    """A symmetric positive definite n x n matrix, well conditioned."""
    a = normal(n, n, seed=seed)
    return (a @ a.T / n + shift * np.eye(n)).astype(np.float32)


# ---------------------------------------------------------------------------
# Jaxpr facts: primitives (sub-jaxprs included), dtypes, equation count.
# ---------------------------------------------------------------------------

def jaxpr_facts(fn, args, filter_jit: bool = False) -> tuple[list[str], list[str], int]:
    import jax
    from jax.extend import core as jcore

    prims: set[str] = set()
    dtypes: set[str] = set()
    count = 0
    seen: set[int] = set()

    def note_vars(vs):
        for v in vs:
            dt = getattr(getattr(v, "aval", None), "dtype", None)
            if dt is not None:
                dtypes.add(str(dt))

    def walk(jaxpr):
        nonlocal count
        if id(jaxpr) in seen:
            return
        seen.add(id(jaxpr))
        note_vars(jaxpr.invars)
        note_vars(jaxpr.constvars)
        for eqn in jaxpr.eqns:
            count += 1
            prims.add(eqn.primitive.name)
            note_vars(eqn.outvars)
            for p in eqn.params.values():
                walk_param(p)

    def walk_param(p):
        if isinstance(p, jcore.ClosedJaxpr):
            walk(p.jaxpr)
        elif isinstance(p, jcore.Jaxpr):
            walk(p)
        elif isinstance(p, (tuple, list)):
            for q in p:
                walk_param(q)

    if filter_jit:
        import equinox as eqx
        closed = eqx.filter_make_jaxpr(fn)(*args)[0]
    else:
        closed = jax.make_jaxpr(fn)(*args)
    walk(closed.jaxpr)
    return sorted(prims), sorted(dtypes), count


# ---------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------

def _host(x):
    """A leaf as a numpy array (key arrays as their uint32 data)."""
    import jax
    if hasattr(x, "dtype") and jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key):
        x = jax.random.key_data(x)
    return np.asarray(x)


def compare(got, want, rtol: float, atol: float) -> tuple[bool, float | None, float | None, str]:
    """(matches, worst ratio, max abs error, detail) of kiln's outputs against
    the oracle's, leaf by leaf."""
    import jax
    g_leaves, g_tree = jax.tree_util.tree_flatten(got)
    w_leaves, w_tree = jax.tree_util.tree_flatten(want)
    if len(g_leaves) != len(w_leaves):
        return False, None, None, (f"{len(g_leaves)} output leaves, the oracle has "
                                   f"{len(w_leaves)} ({g_tree} vs {w_tree})")
    worst, max_abs, detail = 0.0, 0.0, ""
    for i, (g, w) in enumerate(zip(g_leaves, w_leaves)):
        if not hasattr(w, "dtype") and not isinstance(w, (int, float, complex, bool)):
            # a static leaf (an activation function in an equinox module)
            if g is not w and g != w:
                return False, None, None, f"leaf {i}: {g!r}, the oracle's {w!r}"
            continue
        g, w = _host(g), _host(w)
        if g.shape != w.shape:
            return False, None, None, f"leaf {i}: shape {g.shape}, the oracle's {w.shape}"
        if g.dtype != w.dtype:
            return False, None, None, f"leaf {i}: dtype {g.dtype}, the oracle's {w.dtype}"
        if g.size == 0:
            continue
        if not (np.issubdtype(w.dtype, np.inexact) or w.dtype.name in ("bfloat16", "float8_e4m3fn")):
            bad = g != w
            if bad.any():
                idx = np.unravel_index(np.argmax(bad), bad.shape)
                n = int(bad.sum())
                return False, float("inf"), None, (
                    f"leaf {i} ({w.dtype}{list(w.shape)}): {n} of {w.size} elements differ, "
                    f"first at {tuple(int(j) for j in idx)}: {g[idx]} vs {w[idx]}")
            continue
        if not np.iscomplexobj(w):
            g = g.astype(np.float64)
            w = w.astype(np.float64)
        else:
            g = g.astype(np.complex128)
            w = w.astype(np.complex128)
        both_nan = np.isnan(g) & np.isnan(w)
        same_inf = np.isinf(w) & (g == w)
        err = np.abs(g - w)
        err = np.where(both_nan | same_inf, 0.0, err)
        err = np.where(np.isnan(err), np.inf, err)
        finite_w = np.abs(w[np.isfinite(w)])
        scale = max(1.0, float(finite_w.max()) if finite_w.size else 1.0)
        bound = atol * scale + rtol * np.where(np.isfinite(w), np.abs(w), 0.0)
        ratio = err / bound
        k = int(np.argmax(ratio))
        r = float(ratio.flat[k])
        m = float(np.max(err))
        max_abs = max(max_abs, m)
        if r > worst:
            worst = r
            idx = np.unravel_index(k, ratio.shape)
            detail = (f"leaf {i} ({w.dtype}{list(w.shape)}) at {tuple(int(j) for j in idx)}: "
                      f"kiln {g.flat[k]:.7g}, jax {w.flat[k]:.7g}, |err| {err.flat[k]:.3g}, "
                      f"{r:.3g}x the bound")
    return worst <= 1.0, worst, max_abs, detail


# ---------------------------------------------------------------------------
# Running one program
# ---------------------------------------------------------------------------

_LOC = re.compile(r"^\S+?:\d+:\d+: error: ")


REPO = HERE.parent.parent


def first_line(e: BaseException) -> str:
    """``Type: first line of the message``, paths relative to the repository."""
    text = str(e).strip()
    line = text.splitlines()[0] if text else ""
    return f"{type(e).__name__}: {line}".replace(f"{REPO}/", "")[:400]


# Errors that are not an unsupported primitive or dtype, by what they are due
# to (checked against the jaxprs JAX prints; see docs/ecosystem.md).
_KNOWN_CAUSES = [
    (r"expected ',' or '\)', found 'jaxpr\d+'",
     "importer: a tuple of named jaxprs without commas (cond branches=(jaxpr1 jaxpr2))"),
    (r"expected an equation or 'in', found ':'",
     "importer: complex literals (1j:c64[], 0j:c64[])"),
    (r"use of undefined variable '_'",
     "importer: '_' (a dropped variable) among a sub-jaxpr's outputs (in (_,))"),
    (r"update_window_dims must be a tuple",
     "importer: range(0, 0) in ScatterDimensionNumbers"),
    (r"'lax.argmin' op operand #0 must be",
     "argmin/argmax of a bool array"),
    (r"lhs_dilation \(a transposed convolution\)",
     "conv_general_dilated: lhs_dilation (transposed convolutions)"),
    (r"feature_group_count = batch_group_count",
     "conv_general_dilated: feature_group_count > 1 (grouped, depthwise)"),
    (r"reduce_window got inconsistent dtypes|reduce_window jvp does not support non-zero"
     r"|Attempted boolean conversion of traced array",
     "kiln.jit: Python numbers/bools inside an equinox module are traced "
     "(eqx.filter_jit keeps them static)"),
    (r"returned a value of type .* which is not a valid JAX type",
     "kiln.jit: non-array outputs (eqx.filter_jit returns them)"),
]


def failure_cause(status: str, message: str) -> str:
    """The primitive, dtype or message class that a failure is due to."""
    if status == "mismatch":
        return "wrong result"
    if status == "timeout":
        return "timeout"
    if "PRNGKey dtype" in message or re.search(r"key<\w+>", message):
        return "dtype key<fry> (typed PRNG keys)"
    for pattern, label in _KNOWN_CAUSES:
        if re.search(pattern, message):
            return label
    m = re.search(r"unsupported jaxpr primitive '([^']+)'", message)
    if m:
        return f"primitive {m.group(1)}"
    m = re.search(r"unsupported (?:element )?(?:dtype|type) '([^']+)'", message)
    if m:
        return f"dtype {m.group(1)}"
    m = re.search(r"unsupported [^']*'([^']+)'", message)
    if m:
        return f"unsupported {m.group(1)}"
    msg = message.split(": ", 1)[-1] if ": " in message else message
    msg = _LOC.sub("", msg)
    msg = re.sub(r"\d+", "N", msg)
    return msg[:100]


def _block(tree):
    import jax
    return jax.tree_util.tree_map(
        lambda x: x.block_until_ready() if hasattr(x, "block_until_ready") else x, tree)


def oracle_jit(p: Program):
    import jax
    if p.filter_jit:
        import equinox as eqx
        return eqx.filter_jit(p.fn)
    return jax.jit(p.fn)


def run_one(p: Program, repeat: int = 0, cache_dir: Any = None, facts: bool = True) -> dict:
    """Runs ``p`` under jax.jit and kiln.jit (eqx.filter_jit and
    kiln.filter_jit for a filter_jit program); returns its result record."""
    import jax
    import kiln

    rec: dict[str, Any] = dict(name=p.name, library=p.library, module=p.module, status="",
                               message="", cause="", worst=None, max_abs_err=None,
                               primitives=[], dtypes=[], eqns=None, jax_first_s=None,
                               kiln_first_s=None, jax_call_s=None, kiln_call_s=None)
    try:
        args = p.args()
        if facts:
            rec["primitives"], rec["dtypes"], rec["eqns"] = jaxpr_facts(p.fn, args, p.filter_jit)
        jitted = oracle_jit(p)
        t = time.perf_counter()
        want = _block(jitted(*args))
        rec["jax_first_s"] = time.perf_counter() - t
    except Exception as e:  # the program itself is broken under JAX
        rec.update(status="oracle-error", message=first_line(e))
        rec["cause"] = "oracle error"
        return rec
    try:
        # An equinox user swaps eqx.filter_jit for kiln.filter_jit.
        fast = (kiln.filter_jit if p.filter_jit else kiln.jit)(p.fn, cache_dir=cache_dir)
        t = time.perf_counter()
        got = fast(*args)
        rec["kiln_first_s"] = time.perf_counter() - t
    except Exception as e:
        rec.update(status="error", message=first_line(e))
        rec["cause"] = failure_cause("error", rec["message"])
        return rec
    ok, worst, max_abs, detail = compare(got, want, p.rtol, p.atol)
    rec.update(worst=worst, max_abs_err=max_abs)
    if ok:
        rec["status"] = "pass"
    else:
        rec.update(status="mismatch", message=detail, cause="wrong result")
    if repeat > 0:
        def median_call(f):
            ts = []
            for _ in range(repeat):
                t = time.perf_counter()
                _block(f(*args))
                ts.append(time.perf_counter() - t)
            return float(np.median(ts))
        rec["jax_call_s"] = median_call(jitted)
        rec["kiln_call_s"] = median_call(fast)
    return rec
