"""pytest set-up of the kiln package's tests: JAX on the CPU, the package
from the build (PYTHONPATH, set by ctest) or the venv (.pth, set by
scripts/setup.sh), and the JAX conformance corpus's programs (the seeds'
code verbatim, tests/jax/programs/) as fixtures."""

import os
import sys
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import pytest

CORPUS_DIR = Path(__file__).resolve().parent.parent / "jax"
sys.path.insert(0, str(CORPUS_DIR))


@pytest.fixture(scope="session")
def programs():
    """The corpus registry: name -> Program (fn, args())."""
    import corpus
    return corpus.load_programs()


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    """A private compile cache, so the tests see misses and hits of their own."""
    return str(tmp_path_factory.mktemp("kiln-cache"))
