"""docs/python.md as written: its ```python blocks run in order, in one
namespace, from the repository root (the asserts inside them are the
checks)."""

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def python_blocks(path: Path) -> list[tuple[int, str]]:
    text = path.read_text()
    blocks = []
    for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M):
        blocks.append((text.count("\n", 0, m.start()) + 2, m.group(1)))
    return blocks


def test_python_tutorial_runs_as_written(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    doc = ROOT / "docs" / "python.md"
    blocks = python_blocks(doc)
    assert len(blocks) >= 8
    namespace: dict = {"__name__": "docs_python"}
    for line, code in blocks:
        # Line numbers in tracebacks point into docs/python.md.
        exec(compile("\n" * (line - 1) + code, str(doc), "exec"), namespace)
    out = capsys.readouterr().out
    assert "us per call" in out and "rule 'sum-of-ys-to-carry'" in out


def test_quickstart_example_runs():
    """examples/python/quickstart.py (run by scripts/demo.sh) as a user runs it."""
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "python" / "quickstart.py")],
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, JAX_PLATFORMS="cpu"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "kiln.rewrite under jax.jit" in proc.stdout and "us" in proc.stdout
