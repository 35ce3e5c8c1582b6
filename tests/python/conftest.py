"""pytest set-up of the kiln package's tests: JAX on the CPU, the package
from the build (PYTHONPATH, set by ctest) or the venv (.pth, set by
scripts/setup.sh), and the JAX conformance corpus's programs (the seeds'
code verbatim, tests/jax/programs/) as fixtures."""

import os
import sys
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")

# Sanitized builds (tests/CMakeLists.txt, python-sanitized) preload the
# sanitizer runtime into this Python for the instrumented package. Kiln's
# tools, which the package runs, link their own copy and refuse a second:
# they must not inherit it; a Python subprocess that imports kiln must
# (the python_env fixture).
_SANITIZER_PRELOAD = (os.environ.pop("LD_PRELOAD")
                      if "asan" in os.environ.get("LD_PRELOAD", "") else "")

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


@pytest.fixture
def python_env():
    """The environment for a Python subprocess that imports kiln."""
    env = dict(os.environ)
    if _SANITIZER_PRELOAD:
        env["LD_PRELOAD"] = _SANITIZER_PRELOAD
    return env
