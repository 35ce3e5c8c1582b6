"""pytest over the JAX conformance corpus (tests/jax/corpus.py).

Each program is imported and run by Kiln and its outputs compared with
``jax.jit``'s under Kiln's error model (kiln-run --expect, docs/interpreter.md). Programs listed in
``expected_unsupported.txt`` are skipped with the reason given there; every
other program must match. Kiln's binaries come from ``$KILN_BIN`` (default
``<repo>/build/bin``); without them the Kiln tests are skipped.

    .venv/bin/python -m pytest tests/jax            # after scripts/python-env.sh
    KILN_BIN=/path/to/bin .venv/bin/python -m pytest tests/jax -k softmax
"""

import os
from pathlib import Path

import numpy as np
import pytest

import corpus
import kiln_run

PROGRAMS = corpus.load_programs()
EXPECTED = kiln_run.read_expected_unsupported()
KILN_BIN = Path(os.environ.get("KILN_BIN", str(corpus.DEFAULT_KILN_BIN)))
# Timing is not what these tests are for: a few calls are enough.
REPEAT = int(os.environ.get("KILN_CORPUS_REPEAT", "3"))


def _have_kiln() -> bool:
    return all(os.access(KILN_BIN / tool, os.X_OK) for tool in ("kiln-translate", "kiln-run"))


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_matches_jax(name, tmp_path):
    if name in EXPECTED:
        pytest.skip(EXPECTED[name])
    if not _have_kiln():
        pytest.skip(f"no kiln-translate/kiln-run in {KILN_BIN} (set KILN_BIN)")
    result = kiln_run.run_program(PROGRAMS[name], KILN_BIN, repeat=REPEAT, workdir=tmp_path)
    assert result.status == "match", f"{name}: {result.status}\n{result.detail}"


def test_committed_jaxprs_are_current():
    problems = corpus.check_jaxprs()
    assert not problems, ("JAX prints these programs differently from the committed "
                          "tests/jax/jaxprs (run `corpus.py dump` if intended):\n"
                          + "\n".join(problems))


def test_expected_unsupported_names_exist():
    unknown = sorted(set(EXPECTED) - set(PROGRAMS))
    assert not unknown, f"expected_unsupported.txt names unknown programs: {unknown}"


# The error model itself is tested in C++ (tests/unit/reference/ComparisonTest.cpp,
# tests/reference/kiln-run-check.test): the corpus compares through kiln-run --expect.

