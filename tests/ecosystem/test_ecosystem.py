"""The ecosystem corpus's quick subset, for CI (ctest: ecosystem-quick).

Runs each program of ``quick.txt`` (fast programs that pass, spread over the
libraries) under ``jax.jit`` and ``kiln.jit`` in this process and requires a
match (tests/ecosystem/ecosystem.py: run_one, compare). The full corpus is
``tests/ecosystem/run.py`` (docs/ecosystem.md). Also checks the corpus's
bookkeeping: the expected failures and the quick list name real programs.

    PYTHONPATH=build/python .venv/bin/python -m pytest -q tests/ecosystem
"""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import ecosystem  # noqa: E402

PROGRAMS = ecosystem.load_programs()
QUICK = ecosystem.read_quick()
EXPECTED = ecosystem.read_expected()


def _kiln():
    try:
        import kiln
        return kiln
    except ImportError as e:  # the package is not built
        pytest.skip(f"no kiln package ({e}); set PYTHONPATH=build/python")


@pytest.mark.parametrize("name", QUICK)
def test_quick_program_matches_jax(name):
    _kiln()
    rec = ecosystem.run_one(PROGRAMS[name], facts=False)
    assert rec["status"] == "pass", f"{name}: {rec['status']}: {rec['message']}"


def test_corpus_size():
    libraries = {p.library for p in PROGRAMS.values()}
    assert len(PROGRAMS) >= 150, len(PROGRAMS)
    assert len(libraries) >= 12, sorted(libraries)


def test_lists_name_programs():
    unknown = sorted((set(EXPECTED) | set(QUICK)) - set(PROGRAMS))
    assert not unknown, f"expected_failures.txt / quick.txt name unknown programs: {unknown}"
    both = sorted(set(EXPECTED) & set(QUICK))
    assert not both, f"quick.txt lists programs expected to fail: {both}"
    assert 15 <= len(QUICK) <= 30, len(QUICK)
