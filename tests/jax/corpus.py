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
``jax.jit(f)(*args)`` (kiln-run --expect: the error model of docs/interpreter.md), timing both.
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
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

from kiln_run import (Result, make_jaxpr, run_program,  # noqa: E402
                      write_expected_unsupported)

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
PROGRAMS_DIR = HERE / "programs"
JAXPRS_DIR = HERE / "jaxprs"
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


def _format_time(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


def write_docs_table(results, path: Path, repeat: int) -> None:
    """docs/jax-corpus.md: the report as a markdown table, with the versions
    and the command that made it."""
    import jax
    import platform
    counts: dict[str, int] = {}
    for r in results:
        key = r.status.split(":")[0]
        counts[key] = counts.get(key, 0) + 1
    lines = [
        "# The JAX conformance corpus: latest report",
        "",
        "Generated by `python tests/jax/corpus.py run --write-docs docs/jax-corpus.md`",
        f"(jax {jax.__version__}, Python {platform.python_version()}, median of {repeat} "
        "calls on this 2-core machine, other work possibly running at the same time). "
        "Each program's jaxpr as JAX prints it is imported by Kiln, compiled for the CPU, "
        "run on the same inputs as `jax.jit`, and compared under the error model of "
        "[interpreter.md](interpreter.md): *worst* is the largest error as a multiple "
        "of its bound (a match is < 1).",
        "",
        "Totals: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) +
        f" (of {len(results)} programs).",
        "",
        "| program | import | run | worst | Kiln | jax.jit | status | primitives |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        worst = "-" if r.worst is None else f"{r.worst:.3g}"
        status = r.status.replace("|", "\\|")
        lines.append(f"| {r.name} | {'ok' if r.import_ok else 'FAIL'} | "
                     f"{'ok' if r.run_ok else '-'} | {worst} | {_format_time(r.kiln_s)} | "
                     f"{_format_time(r.jax_s)} | {status} | {' '.join(r.primitives)} |")
    path.write_text("\n".join(lines) + "\n")
    print(f"wrote {path}")


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
    if args.write_docs:
        write_docs_table(results, Path(args.write_docs), args.repeat)
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
    p.add_argument("--write-docs", metavar="FILE",
                   help="write the report as a markdown table (docs/jax-corpus.md)")
    p.set_defaults(func=cmd_run)

    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    # Run main() from the module imported as `corpus`, the one that the
    # programs register with (not this `__main__` copy).
    sys.path.insert(0, str(HERE))
    import corpus

    sys.exit(corpus.main())
