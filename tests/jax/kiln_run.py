"""Running a corpus program through Kiln's tools and comparing with jax.jit.

The half of the conformance corpus that does the work (corpus.py keeps the
registry of programs and the command line): reading a program's jaxpr and the
inputs Kiln's entry function takes, running ``kiln-translate`` and
``kiln-run``, and the list of programs Kiln does not run yet
(expected_unsupported.txt).

Outputs are compared by ``kiln-run --expect`` (JAX's outputs, written to .npy
files), under Kiln's one error model (reference/Comparison.h,
docs/interpreter.md "Comparing results"): every float element must satisfy
``|kiln_i - jax_i| <= k (eps (|jax_i| + mag_i) + tiny)`` with ``mag_i`` the
magnitude of the terms summed into element i, from the interpreter's run of
the program's magnitude version; NaN and infinities exactly where JAX has
them; integers and booleans exact. ``Program.k`` sets ``--check-k``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

if TYPE_CHECKING:
    from corpus import Program

HERE = Path(__file__).resolve().parent
EXPECTED_UNSUPPORTED = HERE / "expected_unsupported.txt"

# ---------------------------------------------------------------------------
# Jaxprs
# ---------------------------------------------------------------------------


def _jax():
    import jax
    return jax


# How a jaxpr's text and constants map to Kiln's entry function lives in the
# kiln package (python/kiln/_jaxpr.py), the one implementation of it.
from kiln._jaxpr import hoisted_consts, normalize_jaxpr_text, primitives  # noqa: E402,F401
from kiln._jaxpr import kiln_inputs as _kiln_inputs  # noqa: E402


def make_jaxpr(prog: Program, args: tuple | None = None):
    """``(closed_jaxpr, normalized text)`` of ``prog`` on its example args."""
    args = prog.args() if args is None else args
    closed = _jax().make_jaxpr(prog.fn)(*args)
    return closed, normalize_jaxpr_text(str(closed))


def kiln_inputs(closed, args: tuple) -> list[np.ndarray]:
    """The arrays Kiln's entry function takes: main constvars, the flattened
    argument leaves, then the hoisted nested constvars."""
    leaves = _jax().tree_util.tree_leaves(args)
    return [np.asarray(v) for v in _kiln_inputs(closed, leaves)]


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
    if "unsupported jaxpr primitive" in line or "unsupported" in line or "not supported" in line:
        return f"unsupported: {line}"
    return f"import error: {line}"


def tool_env(kiln_bin: Path) -> dict[str, str]:
    """The environment for Kiln's tools: a ``lib`` directory beside ``kiln_bin``
    goes first on LD_LIBRARY_PATH, so that a copy of a build's ``bin`` and
    ``lib`` runs with its own libraries (the tools' RUNPATH names the build
    tree's lib, which LD_LIBRARY_PATH overrides). A sanitizer runtime
    preloaded into this Python (the sanitized build's ctest, for the
    instrumented kiln package) is not passed on: the tools link their own,
    and refuse a second."""
    env = dict(os.environ)
    if "asan" in env.get("LD_PRELOAD", ""):
        del env["LD_PRELOAD"]
    lib = kiln_bin.resolve().parent / "lib"
    if lib.is_dir():
        env["LD_LIBRARY_PATH"] = os.pathsep.join(
            p for p in (str(lib), env.get("LD_LIBRARY_PATH", "")) if p)
    return env


def run_program(prog: Program, kiln_bin: Path | str, repeat: int = 20,
                workdir: Path | str | None = None, timeout: float = 600.0) -> Result:
    """Imports and runs ``prog`` with Kiln and compares it with JAX
    (``kiln-run --expect``; ``Result.worst`` is its worst error / bound).

    Scratch files go to ``workdir`` (a fresh temporary directory when None):
    ``NAME.jaxpr``, ``NAME.mlir``, ``in<i>.npy``, JAX's outputs ``ref<i>.npy``
    and Kiln's ``out/out<i>.npy``.
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
    expected = []
    for i, a in enumerate(ref):
        path = work / f"ref{i}.npy"
        np.save(path, np.array(a, order="C"))
        expected.append(str(path))
    out_dir = work / "out"
    out_dir.mkdir(exist_ok=True)
    cmd = [str(kiln_bin / "kiln-run"), str(mlir_file), "--outputs", str(out_dir),
           "--repeat", str(max(repeat, 1)), "--warmup", "2", "--time-json",
           "--expect", ",".join(expected), "--check-k", repr(float(prog.k))]
    if names:
        cmd += ["--inputs", ",".join(names)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        res.status = f"run error: kiln-run took more than {timeout:.0f} s"
        return res
    timing = next((json.loads(ln) for ln in proc.stdout.splitlines() if ln.startswith("{")),
                  None)
    if timing:
        res.kiln_s = timing.get("median_s")
    comparison = parse_expect_report(proc.stdout)
    if comparison is None:
        line = first_error_line(proc.stderr or proc.stdout, str(work))
        if proc.returncode != 0 and " but output #" in line:
            # An output of another type or shape than JAX's (kiln-run checks
            # the expected files against the entry's result types).
            res.run_ok = True
            res.worst = float("inf")
            res.status = "MISMATCH"
            res.detail = line
            return res
        res.status = "run error: " + (line if proc.returncode != 0 else
                                      "kiln-run printed no comparison with JAX's outputs")
        res.detail = proc.stderr
        return res
    res.run_ok = True
    res.worst, ok, messages = comparison
    res.status = "match" if ok and proc.returncode == 0 else "MISMATCH"
    res.detail = "; ".join(messages)
    return res


_WORST = re.compile(r"^worst error: (\S+) x bound$")


def parse_expect_report(stdout: str) -> tuple[float, bool, list[str]] | None:
    """``(worst, ok, messages)`` from kiln-run's ``--expect`` report: the
    largest error as a multiple of its bound over all outputs, whether every
    output matches, and the lines of the outputs that differ. None when the
    report is missing (kiln-run failed before comparing)."""
    lines = stdout.splitlines()
    try:
        start = next(i for i, ln in enumerate(lines)
                     if ln.startswith("comparison with the expected outputs"))
    except StopIteration:
        return None
    messages: list[str] = []
    for ln in lines[start + 1:]:
        m = _WORST.match(ln)
        if m:
            return float(m.group(1)), not messages, messages
        if "DIFFERS" in ln:
            messages.append(ln)
    return None


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
