"""kiln.jit imports the ClosedJaxpr it traced without printing it
(kiln._jaxpr.jaxpr_tree, Program.from_jaxpr_tree); the text importer stays
for files and tools. Both feed one builder: on the JAX corpus, the
ecosystem corpus's quick list and generated programs, the jaxpr printed by
JAX and imported as text and the same jaxpr imported from memory must give
identical lax (locations aside: text points into the jaxpr, memory at the
Python lines), and fail alike where Kiln cannot import them.

The whole ecosystem corpus: ``KILN_TREE_ALL=1`` (about two minutes)."""

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kiln
from kiln import _kiln
from kiln._jit import import_traced

ROOT = Path(__file__).resolve().parents[2]


def imported_both_ways(traced):
    """(text import, memory import): module text, or the error's class name."""
    results = []
    for load in (lambda: _kiln.Program.from_jaxpr(traced.text, filename=f"{traced.name}.jaxpr"),
                 lambda: import_traced(traced)):
        try:
            results.append(load().text(False))
        except kiln.JaxprImportError as e:
            results.append(("error", str(e).split("error: ", 1)[-1].splitlines()[0]))
    return results


# A jaxpr whose outputs print as `_` (JAX's name for results nothing reads,
# as optimistix's root finders return them): the text cannot say which `_`
# each one is, so the text importer takes the latest (docs/importer.md) and
# may type those outputs wrongly; from memory each is its own value.
_PRINTED_DROPPED_OUTPUT = re.compile(r"in \([^)]*\b_\b")


def check_same(name, traced):
    text, memory = imported_both_ways(traced)
    if text != memory and _PRINTED_DROPPED_OUTPUT.search(traced.text):
        assert not isinstance(memory, tuple), f"{name}: {memory}"
        return True
    assert text == memory, f"{name}: text and in-memory imports differ:\n{text}\n---\n{memory}"
    return not isinstance(text, tuple)


def test_jax_corpus_imports_identically(programs):
    imported = 0
    for name, p in programs.items():
        traced = kiln.jit(p.fn).lower(*p.args())._traced
        imported += check_same(name, traced)
    assert imported >= 85


def _ecosystem():
    sys.path.insert(0, str(ROOT / "tests" / "ecosystem"))
    import ecosystem
    return ecosystem


def test_ecosystem_programs_import_identically():
    eco = _ecosystem()
    programs = eco.load_programs()
    names = list(programs) if os.environ.get("KILN_TREE_ALL") else eco.read_quick()
    imported = 0
    for name in names:
        p = programs[name]
        jit = kiln.filter_jit if p.filter_jit else kiln.jit
        traced = jit(p.fn).lower(*p.args())._traced
        imported += check_same(name, traced)
    assert imported == len(names)


def test_generated_programs_import_identically():
    """Programs of the differential tester's generator (kiln-difftest), as
    JAX functions (kiln.rewrite's evaluator): every op kind it makes."""
    from kiln._to_jax import Evaluator
    tool = Path(os.environ.get("KILN_BIN", ROOT / "build" / "bin")) / "kiln-difftest"
    if not tool.exists():
        pytest.skip("kiln-difftest not built")
    for seed in range(12):
        with tempfile.TemporaryDirectory() as tmp:
            profile = "models" if seed % 2 else "random"
            subprocess.run([str(tool), "generate", "--seed", str(seed), "--profile", profile,
                            "--out", tmp], check=True, capture_output=True)
            text = (Path(tmp) / "prog.mlir").read_text()
            inputs = sorted(Path(tmp).glob("in*.npy"), key=lambda p: int(p.stem[2:]))
            arrays = [np.load(p) for p in inputs]
        ev = Evaluator(_kiln.Program.from_mlir(text, "prog.mlir").export())

        def fn(*xs):
            return ev.call("main", list(xs))
        with jax.enable_x64(True):  # the generator's f64 and i64 as they are
            traced = kiln.jit(fn).lower(*arrays)._traced
            assert check_same(f"seed {seed}", traced)


def test_positions_are_the_python_lines():
    def f(x, w):
        h = jnp.tanh(x @ w)   # the line of dot_general and tanh
        return h.sum()
    traced = kiln.jit(f).lower(np.ones((2, 3), np.float32), np.ones((3, 4), np.float32))._traced
    text = import_traced(traced).text(True)
    line = f.__code__.co_firstlineno + 1
    assert f'"{__file__}":{line}:' in text
    assert "lax.tanh" in text and "lax.dot_general" in text


def test_shared_jaxprs_stay_shared():
    """A jaxpr JAX uses twice (one object) is one function, as in text."""
    inner = jax.jit(lambda y: jnp.sin(y) * 2.0)

    def f(x):
        return inner(x) + inner(x + 1.0)
    traced = kiln.jit(f).lower(np.ones(4, np.float32))._traced
    text = import_traced(traced).text(False)
    assert text.count("func.func private") == 1 and text.count("call @") == 2
    np.testing.assert_allclose(kiln.jit(f)(np.ones(4, np.float32)), jax.jit(f)(np.ones(4)),
                               rtol=1e-6)


def test_literals_keep_their_values():
    """Literals arrive as numbers, not printed decimals: each dtype's
    extremes and specials survive exactly."""
    def f(x, i, u):
        return (x * jnp.float32(np.float32(0.1)) + jnp.float32(np.inf), jnp.maximum(x, -np.inf),
                i + np.int32(-2**31 + 1), u ^ np.uint32(0xFFFFFFFF), x + jnp.float32(1e-45))
    args = (np.linspace(-2, 2, 8, dtype=np.float32), np.arange(8, dtype=np.int32),
            np.arange(8, dtype=np.uint32))
    got, want = kiln.jit(f)(*args), jax.jit(f)(*args)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    assert check_same("literals", kiln.jit(f).lower(*args)._traced)
