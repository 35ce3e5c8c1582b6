"""JAX names its variables a, ..., z, ba, ...: the 222nd is `in`, the
5,752nd `inf`, the 8,802nd `nan`, words of the jaxpr grammar too. A program
long enough for JAX's own name generator to reach all three, printed by JAX,
imported by Kiln and run by the reference interpreter, against jax.jit (a bare
`inf` had been read as +inf, `in` before a literal had ended the jaxpr)."""

import os
import re
import subprocess
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np


def test_names_in_inf_nan(tmp_path):
    def f(x, y):
        for i in range(6000):
            x = jnp.minimum(x, y) if i % 2 else jnp.maximum(x, -y)
        return x * 2.0, x + 1.0

    x = np.array([1, -3], np.float32)
    y = np.array([2, 5], np.float32)
    text = str(jax.make_jaxpr(f)(x, y))
    binders = set(re.findall(r"\b([a-z]+):f32\[", text))
    assert {"in", "inf", "nan"} <= binders
    # Each is also used as an operand (so a misread changes the result).
    for name in ("in", "inf", "nan"):
        assert re.search(rf"= \w+ (\w+ )?{name}\b", text), name
    (tmp_path / "p.jaxpr").write_text(text)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    want = jax.jit(f)(x, y)
    expected = []
    for i, w in enumerate(want):
        np.save(tmp_path / f"want{i}.npy", np.asarray(w))
        expected.append(str(tmp_path / f"want{i}.npy"))
    kiln_run = Path(os.environ.get("KILN_BIN", "build/bin")) / "kiln-run"
    r = subprocess.run([str(kiln_run), str(tmp_path / "p.jaxpr"), "--interpret",
                        "--inputs", f"{tmp_path / 'x.npy'},{tmp_path / 'y.npy'}",
                        "--check-k", "0", "--expect", ",".join(expected)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "output 0: matches" in r.stdout and "output 1: matches" in r.stdout


def test_shared_jaxprs_match_jax():
    # A function used in several places prints once as `let jaxpr = ... in`
    # and then by name (`cond[branches=(jaxpr jaxpr)]`); jax.jit is the oracle.
    from jax import lax
    import kiln

    def g(y):
        return jnp.sin(y) * 2

    def f(p, x):
        return lax.cond(p, g, g, x) + lax.cond(p, lambda y: g(y) + 1, g, x)

    text = str(jax.make_jaxpr(f)(True, jnp.ones(3)))
    assert "branches=(jaxpr jaxpr)" in text or "let " in text
    x = np.linspace(-2, 2, 3).astype(np.float32)
    for p in (True, False):
        np.testing.assert_allclose(kiln.jit(f, cache_dir=None)(p, x),
                                   np.asarray(jax.jit(f)(p, x)), rtol=1e-6, atol=1e-6)
