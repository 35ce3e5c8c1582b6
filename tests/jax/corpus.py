#!/usr/bin/env python3
"""The JAX conformance corpus: real JAX programs run by Kiln and compared with JAX.

Programs live in ``tests/jax/programs/*.py``. Each registers itself with the
:func:`program` decorator, giving a name, the function and a factory of example
arguments (deterministic numpy arrays, float32 unless said otherwise; pytrees
such as Equinox modules or Flax parameter dicts are fine)::

    @program("softmax", args=lambda: (normal(8, 32),))
    def softmax(x):
        return jax.nn.softmax(x, axis=-1)

Command line (run it with the corpus venv, ``bash scripts/python-env.sh``)::

    python tests/jax/corpus.py list
    python tests/jax/corpus.py dump [--out tests/jax/jaxprs] [--only NAMES]
    python tests/jax/corpus.py check
    python tests/jax/corpus.py run --kiln-bin build/bin [--only NAMES] [--json FILE]
                                   [--repeat N] [--report | --allow-failures]
                                   [--write-expected FILE]

``dump`` writes ``NAME.jaxpr``, the text of ``jax.make_jaxpr(f)(*args)``, for
every program; ``check`` fails with a unified diff when freshly printed text
differs from the committed files (a change of JAX's text format shows up
there). ``run`` imports each program with ``kiln-translate --import-jaxpr``,
runs it with ``kiln-run`` on the same inputs and compares the outputs with
``jax.jit(f)(*args)`` (see :func:`compare` for the error model), timing both.
It exits non-zero when a program does not match, unless ``--report`` or
``--allow-failures`` is given. Inputs and expected outputs are never
committed: they are regenerated every run.

Kiln's inputs are, in order, the main jaxpr's constvars (values closed over at
the top level), the flattened pytree leaves of the arguments
(``jax.tree_util.tree_leaves``), then the constvars of nested closed jaxprs
(``jit`` bodies, scan bodies, ``custom_jvp_call`` primals closing over
weights), which the importer hoists to trailing arguments of the entry
function in order of first use (docs/importer.md); outputs are the flattened
leaves of the result.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import fnmatch
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
PROGRAMS_DIR = HERE / "programs"
JAXPRS_DIR = HERE / "jaxprs"
EXPECTED_UNSUPPORTED = HERE / "expected_unsupported.txt"
DEFAULT_KILN_BIN = REPO / "build" / "bin"

# ---------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Program:
    """One corpus program.

    Attributes:
      name: unique name, also the stem of its ``.jaxpr`` file.
      fn: the function, called as ``fn(*args)``.
      args: factory of the example arguments (a tuple of pytrees of arrays).
      note: optional free text (why a tolerance or a size was chosen, ...).
      k: the error bound's multiple of the dtype's epsilon (see :func:`compare`).
      mag: optional ``mag(*args)`` returning, per flattened output, an array (or
        scalar) of magnitudes of the summed terms, for outputs that are sums
        with cancellation; ``None`` uses max |ref| of each output.
      module: the programs module that defined it.
    """

    name: str
    fn: Callable[..., Any]
    args: Callable[[], tuple]
    note: str | None = None
    k: float = 64.0
    mag: Callable[..., Sequence[Any]] | None = None
    module: str = ""


_REGISTRY: dict[str, Program] = {}


def program(name: str, args: Callable[[], tuple], note: str | None = None,
            k: float = 64.0, mag: Callable[..., Sequence[Any]] | None = None):
    """Decorator registering ``fn`` as corpus program ``name``; returns ``fn``.

    Also usable as a plain call on an existing function, e.g. for seed code
    kept verbatim: ``program("seed000_f1", args=...)(f1)``.
    """
    if not re.fullmatch(r"[A-Za-z0-9_]+", name):
        raise ValueError(f"program name {name!r}: use letters, digits and '_'")

    def register(fn):
        if name in _REGISTRY:
            raise ValueError(f"program {name!r} is registered twice")
        module = getattr(fn, "__module__", "") or ""
        _REGISTRY[name] = Program(name, fn, args, note, k, mag, module)
        return fn

    return register


def load_programs() -> dict[str, Program]:
    """Imports every ``programs/*.py`` (once) and returns the registry in
    definition order."""
    # The seeds first, then the other modules alphabetically.
    for path in sorted(PROGRAMS_DIR.glob("*.py"), key=lambda f: (f.stem != "seeds", f.stem)):
        if path.name.startswith("_"):
            continue
        modname = f"kiln_corpus_programs.{path.stem}"
        if modname in sys.modules:
            continue
        spec = importlib.util.spec_from_file_location(modname, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[modname] = module
        spec.loader.exec_module(module)
    return dict(_REGISTRY)


def select(programs: dict[str, Program], only: str | None) -> list[Program]:
    """The programs named by ``only`` (comma-separated names or fnmatch
    patterns), all of them when ``only`` is empty."""
    if not only:
        return list(programs.values())
    patterns = [p.strip() for p in only.split(",") if p.strip()]
    chosen = [p for p in programs.values()
              if any(fnmatch.fnmatchcase(p.name, pat) for pat in patterns)]
    unknown = [pat for pat in patterns
               if not any(fnmatch.fnmatchcase(n, pat) for n in programs)]
    if unknown:
        raise SystemExit(f"corpus: no program matches {', '.join(unknown)}")
    return chosen


# Deterministic inputs. Every program uses its own seed so that adding a
# program never changes another's inputs.

def rng(seed: int = 0) -> np.random.Generator:
    """numpy's default generator with a fixed seed."""
    return np.random.default_rng(seed)


def normal(*shape: int, seed: int = 0, scale: float = 1.0, dtype=np.float32) -> np.ndarray:
    """Standard normal samples (times ``scale``) of ``shape``."""
    return (rng(seed).standard_normal(shape) * scale).astype(dtype)


def uniform(*shape: int, seed: int = 0, low: float = 0.0, high: float = 1.0,
            dtype=np.float32) -> np.ndarray:
    """Uniform samples in [low, high) of ``shape``."""
    return rng(seed).uniform(low, high, shape).astype(dtype)


def integers(*shape: int, seed: int = 0, low: int = 0, high: int = 10,
             dtype=np.int32) -> np.ndarray:
    """Uniform integers in [low, high) of ``shape``."""
    return rng(seed).integers(low, high, shape).astype(dtype)


# ---------------------------------------------------------------------------
# Jaxprs
# ---------------------------------------------------------------------------


def _jax():
    import jax
    return jax


def _jaxpr_types():
    from jax.extend import core
    return core.ClosedJaxpr, core.Jaxpr


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")


def normalize_jaxpr_text(text: str) -> str:
    """The printed jaxpr with what changes from run to run made stable: object
    addresses in ``<function f at 0x...>`` become ``0x0`` (the importer reads
    such parameters and ignores them). Ends with one newline."""
    return _ADDRESS.sub(" at 0x0>", text).rstrip("\n") + "\n"


def make_jaxpr(prog: Program, args: tuple | None = None):
    """``(closed_jaxpr, normalized text)`` of ``prog`` on its example args."""
    args = prog.args() if args is None else args
    closed = _jax().make_jaxpr(prog.fn)(*args)
    return closed, normalize_jaxpr_text(str(closed))


def _subjaxprs(value) -> Iterable[Any]:
    """The (closed) jaxprs in an equation parameter: the value itself, or the
    items of a tuple/list of them (``cond``'s branches)."""
    closed_t, jaxpr_t = _jaxpr_types()
    if isinstance(value, (closed_t, jaxpr_t)):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _subjaxprs(item)


def primitives(jaxpr) -> list[str]:
    """Sorted names of every primitive used by ``jaxpr`` (a Jaxpr or
    ClosedJaxpr), including those inside sub-jaxprs in equation parameters."""
    names: set[str] = set()

    def walk(j):
        j = getattr(j, "jaxpr", j)
        for eqn in j.eqns:
            names.add(eqn.primitive.name)
            for value in eqn.params.values():
                for sub in _subjaxprs(value):
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
                for sub in _subjaxprs(value):
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


def kiln_inputs(closed, args: tuple) -> list[np.ndarray]:
    """The arrays Kiln's entry function takes: main constvars, the flattened
    argument leaves, then the hoisted nested constvars."""
    leaves = _jax().tree_util.tree_leaves(args)
    values = list(closed.consts) + list(leaves) + hoisted_consts(closed)
    return [np.asarray(v) for v in values]


# ---------------------------------------------------------------------------
# Error model
# ---------------------------------------------------------------------------


def compare(kiln: np.ndarray, ref: np.ndarray, ref_abs_bound=None, k: float = 64.0):
    """Compares one Kiln output with JAX's. Returns ``(ok, worst, message)``.

    Floating point: every finite element must satisfy

        |kiln_i - ref_i| <= k * eps(dtype) * (|ref_i| + mag_i)

    where ``mag_i`` is ``ref_abs_bound`` (broadcast; an array or scalar of the
    magnitudes of the terms summed into element i, e.g. ``sum_j |a_ij*b_j|``
    for a matvec) or, when that is unknown, ``max |ref|`` over the finite
    elements of the output, the same for every element. ``k`` is 64 by
    default: a few ulps per op for a short chain of ops, or accumulated
    rounding of sums whose terms are bounded by ``mag``. NaN must appear at
    exactly the positions where JAX has NaN, and +-inf exactly where JAX has
    the same infinity. ``worst`` is the largest error as a multiple of its
    bound (0 when equal; inf for a NaN/inf mismatch or a nonzero error
    against a zero bound).

    Integers and booleans must be exactly equal (``worst`` is 0 or inf).
    Shapes and dtypes must be equal.
    """
    kiln = np.asarray(kiln)
    ref = np.asarray(ref)
    if kiln.shape != ref.shape or kiln.dtype != ref.dtype:
        return False, float("inf"), (f"got {kiln.dtype}{list(kiln.shape)}, "
                                     f"expected {ref.dtype}{list(ref.shape)}")
    if not np.issubdtype(ref.dtype, np.floating):
        bad = np.flatnonzero(kiln.ravel() != ref.ravel())
        if bad.size == 0:
            return True, 0.0, "exact"
        i = int(bad[0])
        return False, float("inf"), (f"{bad.size} of {ref.size} elements differ; first at "
                                     f"{np.unravel_index(i, ref.shape)}: {kiln.ravel()[i]} vs "
                                     f"{ref.ravel()[i]}")
    k_nan, r_nan = np.isnan(kiln), np.isnan(ref)
    if (k_nan != r_nan).any():
        i = int(np.flatnonzero((k_nan != r_nan).ravel())[0])
        return False, float("inf"), (f"NaN positions differ ({int(k_nan.sum())} vs "
                                     f"{int(r_nan.sum())}); first at "
                                     f"{np.unravel_index(i, ref.shape)}: {kiln.ravel()[i]} vs "
                                     f"{ref.ravel()[i]}")
    k_inf, r_inf = np.isinf(kiln), np.isinf(ref)
    if (k_inf != r_inf).any() or (kiln[r_inf] != ref[r_inf]).any():
        diff = (k_inf != r_inf) | (r_inf & (kiln != ref))
        i = int(np.flatnonzero(diff.ravel())[0])
        return False, float("inf"), (f"infinities differ; first at "
                                     f"{np.unravel_index(i, ref.shape)}: {kiln.ravel()[i]} vs "
                                     f"{ref.ravel()[i]}")
    finite = np.isfinite(ref)
    if not finite.any():
        return True, 0.0, "no finite elements"
    r = np.where(finite, ref.astype(np.float64), 0.0)
    d = np.where(finite, np.abs(kiln.astype(np.float64) - r), 0.0)
    if ref_abs_bound is None:
        mag = float(np.max(np.abs(r[finite])))
    else:
        mag = np.broadcast_to(np.abs(np.asarray(ref_abs_bound, np.float64)), ref.shape)
    bound = k * float(np.finfo(ref.dtype).eps) * (np.abs(r) + mag)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(d == 0, 0.0, d / bound)
    ratio = np.where(finite, ratio, 0.0)
    i = int(np.argmax(ratio))
    worst = float(ratio.ravel()[i])
    where = np.unravel_index(i, ref.shape)
    msg = (f"worst at {where}: {kiln.ravel()[i]!r} vs {ref.ravel()[i]!r}, "
           f"error {d.ravel()[i]:.3g} = {worst:.3g} x bound {bound.ravel()[i]:.3g}")
    return worst <= 1.0, worst, msg


# ---------------------------------------------------------------------------
# Running Kiln
# ---------------------------------------------------------------------------

_MLIR_DTYPES = {"float16": "f16", "float32": "f32", "float64": "f64", "bool": "i1",
                "int8": "i8", "int32": "i32", "int64": "i64", "uint32": "ui32"}


def mlir_type(a: np.ndarray) -> str:
    """The MLIR tensor type of an array, e.g. ``tensor<2x3xf32>``."""
    dt = _MLIR_DTYPES.get(a.dtype.name, a.dtype.name)
    return "tensor<" + "".join(f"{d}x" for d in a.shape) + dt + ">"


def entry_argument_types(mlir: str, entry: str = "main") -> list[str] | None:
    """Argument types of ``func.func @entry`` in printed MLIR, or None."""
    m = re.search(r"func\.func @" + re.escape(entry) + r"\((.*?)\)\s*(->|attributes|\{)",
                  mlir, re.S)
    if not m:
        return None
    return re.findall(r"%[\w$.-]+\s*:\s*(tensor<[^>]*>)", m.group(1))


def first_error_line(text: str, strip: str | None = None) -> str:
    """The first line of a tool's stderr that says ``error``, without the
    scratch directory's path; otherwise the first non-empty line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    line = next((ln for ln in lines if "error" in ln), lines[0] if lines else "(no output)")
    if strip:
        line = line.replace(strip.rstrip("/") + "/", "")
    return line


@dataclasses.dataclass
class Result:
    """What :func:`run_program` found for one program."""

    name: str
    primitives: list[str]
    import_ok: bool = False
    run_ok: bool = False
    worst: float | None = None
    kiln_s: float | None = None
    jax_s: float | None = None
    status: str = ""
    detail: str = ""

    @property
    def matched(self) -> bool:
        return self.status == "match"


def _median_time(f, args, repeat: int) -> float:
    jax = _jax()
    jax.block_until_ready(f(*args))
    times = []
    for _ in range(max(repeat, 1)):
        t0 = time.perf_counter()
        jax.block_until_ready(f(*args))
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def classify_import_error(line: str) -> str:
    """``unsupported: LINE`` for what the importer does not support yet
    (unknown primitives, dtypes, ...), ``import error: LINE`` otherwise."""
    if "unknown jaxpr primitive" in line or "unsupported" in line or "not supported" in line:
        return f"unsupported: {line}"
    return f"import error: {line}"


def tool_env(kiln_bin: Path) -> dict[str, str]:
    """The environment for Kiln's tools: a ``lib`` directory beside ``kiln_bin``
    goes first on LD_LIBRARY_PATH, so that a copy of a build's ``bin`` and
    ``lib`` runs with its own libraries (the tools' RUNPATH names the build
    tree's lib, which LD_LIBRARY_PATH overrides)."""
    env = dict(os.environ)
    lib = kiln_bin.resolve().parent / "lib"
    if lib.is_dir():
        env["LD_LIBRARY_PATH"] = os.pathsep.join(
            p for p in (str(lib), env.get("LD_LIBRARY_PATH", "")) if p)
    return env


def run_program(prog: Program, kiln_bin: Path | str, repeat: int = 20,
                workdir: Path | str | None = None, timeout: float = 600.0) -> Result:
    """Imports and runs ``prog`` with Kiln and compares it with JAX.

    Scratch files go to ``workdir`` (a fresh temporary directory when None):
    ``NAME.jaxpr``, ``NAME.mlir``, ``in<i>.npy`` and ``out/out<i>.npy``.
    """
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix=f"kiln-corpus-{prog.name}-") as tmp:
            return run_program(prog, kiln_bin, repeat, Path(tmp), timeout)
    jax = _jax()
    kiln_bin = Path(kiln_bin)
    env = tool_env(kiln_bin)
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)

    args = prog.args()
    closed, text = make_jaxpr(prog, args)
    res = Result(prog.name, primitives(closed))
    jitted = jax.jit(prog.fn)
    ref = [np.asarray(x) for x in jax.tree_util.tree_leaves(jitted(*args))]
    res.jax_s = _median_time(jitted, args, repeat)

    jaxpr_file = work / f"{prog.name}.jaxpr"
    mlir_file = work / f"{prog.name}.mlir"
    jaxpr_file.write_text(text)
    try:
        proc = subprocess.run([str(kiln_bin / "kiln-translate"), "--import-jaxpr",
                               str(jaxpr_file), "-o", str(mlir_file)],
                              capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        res.status = f"import error: kiln-translate took more than {timeout:.0f} s"
        return res
    if proc.returncode != 0 or not mlir_file.exists():
        res.status = classify_import_error(first_error_line(proc.stderr or proc.stdout,
                                                            str(work)))
        res.detail = proc.stderr
        return res
    res.import_ok = True

    inputs = kiln_inputs(closed, args)
    expected = entry_argument_types(mlir_file.read_text())
    given = [mlir_type(a) for a in inputs]
    if expected is not None and expected != given:
        res.status = (f"run error: the entry takes {len(expected)} inputs "
                      f"({', '.join(expected)}) but the corpus has {len(given)} "
                      f"({', '.join(given)})")
        return res
    names = []
    for i, a in enumerate(inputs):
        path = work / f"in{i}.npy"
        np.save(path, np.array(a, order="C"))  # C order; keeps 0-d arrays 0-d
        names.append(str(path))
    out_dir = work / "out"
    out_dir.mkdir(exist_ok=True)
    cmd = [str(kiln_bin / "kiln-run"), str(mlir_file), "--outputs", str(out_dir),
           "--repeat", str(max(repeat, 1)), "--warmup", "2", "--time-json"]
    if names:
        cmd += ["--inputs", ",".join(names)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        res.status = f"run error: kiln-run took more than {timeout:.0f} s"
        return res
    if proc.returncode != 0:
        res.status = "run error: " + first_error_line(proc.stderr or proc.stdout, str(work))
        res.detail = proc.stderr
        return res
    timing = next((json.loads(ln) for ln in proc.stdout.splitlines() if ln.startswith("{")),
                  None)
    if timing:
        res.kiln_s = timing.get("median_s")

    outs = []
    for i in range(len(ref)):
        path = out_dir / f"out{i}.npy"
        if not path.exists():
            res.status = f"run error: kiln-run wrote no {path.name} (JAX has {len(ref)} outputs)"
            return res
        outs.append(np.load(path))
    if (out_dir / f"out{len(ref)}.npy").exists():
        res.status = f"run error: kiln-run wrote more than the {len(ref)} outputs JAX has"
        return res
    res.run_ok = True

    mags = prog.mag(*args) if prog.mag else [None] * len(ref)
    worst, messages, ok = 0.0, [], True
    for i, (got, want, mag) in enumerate(zip(outs, ref, mags)):
        good, w, msg = compare(got, want, mag, prog.k)
        worst = max(worst, w)
        if not good:
            ok = False
            messages.append(f"output {i}: {msg}")
    res.worst = worst
    res.status = "match" if ok else "MISMATCH"
    res.detail = "; ".join(messages)
    return res


# ---------------------------------------------------------------------------
# Expected failures
# ---------------------------------------------------------------------------


def read_expected_unsupported(path: Path = EXPECTED_UNSUPPORTED) -> dict[str, str]:
    """``{name: reason}`` from ``expected_unsupported.txt``: one program per
    line, its name then the reason; ``#`` starts a comment line."""
    expected: dict[str, str] = {}
    if not path.exists():
        return expected
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, reason = line.partition(" ")
        expected[name] = reason.strip() or "expected unsupported"
    return expected


def write_expected_unsupported(results: Sequence[Result], path: Path) -> None:
    """Writes every non-matching program of ``results`` with its status."""
    lines = ["# Corpus programs that do not match JAX yet: NAME REASON (the first error",
             "# line of `python tests/jax/corpus.py run`). tests/jax/test_corpus.py skips",
             "# these; every other program must match.",
             *[f"{r.name} {r.status}" + (f" ({r.detail.splitlines()[0]})"
                                         if r.status == "MISMATCH" and r.detail else "")
               for r in results if not r.matched]]
    path.write_text("\n".join(lines) + "\n")


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------


def _fmt_time(t: float | None) -> str:
    if t is None:
        return "-"
    if t < 1e-6:
        return f"{t * 1e9:.0f}ns"
    if t < 1e-3:
        return f"{t * 1e6:.1f}us"
    if t < 1:
        return f"{t * 1e3:.2f}ms"
    return f"{t:.2f}s"


def _fmt_worst(w: float | None) -> str:
    return "-" if w is None else ("inf" if w == float("inf") else f"{w:.3g}")


def print_row(r: Result, width: int, header: bool = False) -> None:
    """One line of the status table, then the program's primitives."""
    if header:
        print(f"{'program':<{width}} {'import':>6} {'run':>4} {'worst/bound':>11} "
              f"{'kiln':>9} {'jax':>9}  status")
        print("-" * (width + 56))
    print(f"{r.name:<{width}} {'ok' if r.import_ok else 'FAIL':>6} "
          f"{'ok' if r.run_ok else ('FAIL' if r.import_ok else '-'):>4} "
          f"{_fmt_worst(r.worst):>11} {_fmt_time(r.kiln_s):>9} {_fmt_time(r.jax_s):>9}  "
          f"{r.status}", flush=True)
    print(f"{'':<{width}}   primitives: {' '.join(r.primitives)}", flush=True)
    if r.status == "MISMATCH" and r.detail:
        print(f"{'':<{width}}   {r.detail}", flush=True)


def cmd_list(args) -> int:
    for p in select(load_programs(), args.only):
        print(f"{p.name:<36} {p.module.rsplit('.', 1)[-1]:<12} {p.note or ''}")
    return 0


def cmd_dump(args) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    programs = select(load_programs(), args.only)
    for p in programs:
        _, text = make_jaxpr(p)
        (out / f"{p.name}.jaxpr").write_text(text)
    if not args.only:
        names = {p.name for p in programs}
        for stale in sorted(out.glob("*.jaxpr")):
            if stale.stem not in names:
                stale.unlink()
                print(f"removed {stale}")
    print(f"wrote {len(programs)} jaxprs to {out}")
    return 0


def check_jaxprs(directory: Path = JAXPRS_DIR, only: str | None = None) -> list[str]:
    """Unified diffs between freshly printed jaxprs and the committed ones (one
    entry per program that differs, is missing, or has no program)."""
    programs = select(load_programs(), only)
    problems = []
    for p in programs:
        path = directory / f"{p.name}.jaxpr"
        _, fresh = make_jaxpr(p)
        if not path.exists():
            problems.append(f"{path}: missing (run `corpus.py dump`)")
            continue
        committed = path.read_text()
        if committed != fresh:
            problems.append("".join(difflib.unified_diff(
                committed.splitlines(keepends=True), fresh.splitlines(keepends=True),
                fromfile=f"{path} (committed)", tofile=f"{path} (jax now)")))
    if not only:
        names = {p.name for p in programs}
        problems += [f"{f}: no program of this name" for f in sorted(directory.glob("*.jaxpr"))
                     if f.stem not in names]
    return problems


def cmd_check(args) -> int:
    problems = check_jaxprs(Path(args.dir), args.only)
    for p in problems:
        print(p, end="" if p.endswith("\n") else "\n")
    if problems:
        print(f"corpus check: {len(problems)} jaxpr(s) differ from JAX's printing; "
              "if the change is intended run `python tests/jax/corpus.py dump`")
        return 1
    print("corpus check: committed jaxprs are current")
    return 0


def cmd_run(args) -> int:
    programs = select(load_programs(), args.only)
    kiln_bin = Path(args.kiln_bin)
    for tool in ("kiln-translate", "kiln-run"):
        if not (kiln_bin / tool).exists():
            raise SystemExit(f"corpus: {kiln_bin / tool} not found")
    width = max(len(p.name) for p in programs)
    results = []
    for i, p in enumerate(programs):
        try:
            r = run_program(p, kiln_bin, args.repeat)
        except Exception as e:  # a program that JAX itself cannot run
            r = Result(p.name, [], status=f"corpus error: {type(e).__name__}: {e}")
        results.append(r)
        print_row(r, width, header=(i == 0))
    counts: dict[str, int] = {}
    for r in results:
        key = r.status.split(":")[0]
        counts[key] = counts.get(key, 0) + 1
    print("\n" + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) +
          f" (of {len(results)} programs)")
    if args.json:
        Path(args.json).write_text(json.dumps([dataclasses.asdict(r) for r in results],
                                              indent=1) + "\n")
    if args.write_expected:
        write_expected_unsupported(results, Path(args.write_expected))
    if args.report or args.allow_failures:
        return 0
    return 0 if all(r.matched for r in results) else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="list the programs")
    p.add_argument("--only", help="comma-separated names or patterns")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("dump", help="write NAME.jaxpr for every program")
    p.add_argument("--out", default=str(JAXPRS_DIR))
    p.add_argument("--only", help="comma-separated names or patterns")
    p.set_defaults(func=cmd_dump)

    p = sub.add_parser("check", help="compare the committed jaxprs with JAX's printing now")
    p.add_argument("--dir", default=str(JAXPRS_DIR))
    p.add_argument("--only", help="comma-separated names or patterns")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("run", help="run every program with Kiln and compare with JAX")
    p.add_argument("--kiln-bin", default=os.environ.get("KILN_BIN", str(DEFAULT_KILN_BIN)),
                   help="directory of kiln-translate and kiln-run (default $KILN_BIN "
                        "or <repo>/build/bin)")
    p.add_argument("--only", help="comma-separated names or patterns")
    p.add_argument("--json", help="also write the results as JSON to this file")
    p.add_argument("--repeat", type=int, default=20,
                   help="timed calls per program, JAX and Kiln (median; default 20)")
    p.add_argument("--report", action="store_true", help="exit 0 whatever the results")
    p.add_argument("--allow-failures", action="store_true",
                   help="exit 0 even when some program does not match")
    p.add_argument("--write-expected", metavar="FILE",
                   help="write the non-matching programs and their first error line "
                        "(the format of expected_unsupported.txt)")
    p.set_defaults(func=cmd_run)

    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    # Run main() from the module imported as `corpus`, the one that the
    # programs register with (not this `__main__` copy).
    sys.path.insert(0, str(HERE))
    import corpus

    sys.exit(corpus.main())
