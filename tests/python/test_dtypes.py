"""The narrow and wide integer dtypes (int16, uint8, uint16, uint64) through
kiln.jit, bit for bit against jax.jit on values that wrap, saturate and
cross the sign bit."""
import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

import kiln

NARROW = [np.int16, np.uint8, np.uint16]


def _values(dtype, n=64, seed=0):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    edges = np.array([info.min, info.min + 1, info.max, info.max - 1, 0, 1, 2, 3], dtype=dtype)
    body = rng.integers(info.min, int(info.max) + 1, size=n - len(edges), dtype=dtype)
    return np.concatenate([edges, body]).astype(dtype)


def _check(f, *args):
    got = kiln.jit(f, cache_dir=None)(*args)
    want = jax.jit(f)(*args)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        w = np.asarray(w)
        assert np.asarray(g).dtype == w.dtype
        np.testing.assert_array_equal(np.asarray(g), w)


def _arith(x, y):
    nz = jnp.where(y == 0, jnp.ones_like(y), y)
    return (x + y, x - y, x * y, x // nz, lax.rem(x, nz), jnp.maximum(x, y), jnp.minimum(x, y),
            x < y, x >= y, x == y, x & y, x | y, x ^ y, ~x, lax.population_count(x),
            lax.shift_right_logical(x, jnp.full_like(x, 3)), lax.shift_left(x, jnp.full_like(x, 2)),
            lax.shift_right_arithmetic(x, jnp.full_like(x, 1)))


def _structure(x, y):
    xf = x.astype(jnp.float32)
    return (jnp.sum(x), jnp.max(x), jnp.min(x), jnp.argmax(x), jnp.argmin(x), jnp.cumsum(x),
            jnp.sort(x), jnp.argsort(x), xf * 0.5, (xf * 3.7 - 100.0).astype(x.dtype),
            x.astype(jnp.int32), y.astype(jnp.uint8), jnp.where(x > y, x, y),
            jnp.concatenate([x, y])[::3], jnp.take(x, jnp.array([0, 5, 63, 2])),
            x.reshape(8, 8).T @ jnp.ones((8, 2), x.dtype) if x.dtype != jnp.uint8 else x[:4],
            jnp.abs(x) if jnp.issubdtype(x.dtype, jnp.signedinteger) else x)


@pytest.mark.parametrize("dtype", NARROW, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("program", [_arith, _structure], ids=["arith", "structure"])
def test_narrow_integers(dtype, program):
    _check(program, _values(dtype, seed=1), _values(dtype, seed=2))


def test_uint8_bit_ops_as_numpyro_uses_them():
    # NUTS keeps its tree depth and turning flags in uint8; jax-md casts to u8.
    def f(depth, bits):
        d = depth.astype(jnp.uint8)
        return (d + jnp.uint8(1), (bits >> d) & jnp.uint8(1),
                jnp.where(d < 5, d * 2, d), lax.convert_element_type(bits, jnp.float32))
    _check(f, np.arange(8, dtype=np.int32), np.arange(250, 258, dtype=np.int32).astype(np.uint8))


def test_uint64_under_x64():
    jax.config.update("jax_enable_x64", True)
    try:
        x = np.array([0, 1, 2**63 - 1, 2**63, 2**64 - 1, 12345678901234567890, 7, 2**32],
                     dtype=np.uint64)
        y = np.array([3, 2**63 + 5, 1, 2**64 - 2, 5, 9, 2**40, 1], dtype=np.uint64)

        def f(x, y):
            nz = jnp.where(y == 0, jnp.ones_like(y), y)
            return (x + y, x * y, x // nz, x % nz, jnp.maximum(x, y), x < y, jnp.sort(x),
                    x.astype(jnp.float64), (x.astype(jnp.float64) * 0.75).astype(jnp.uint64),
                    jnp.max(x), jnp.argmax(x), x >> jnp.uint64(7))
        _check(f, x, y)
    finally:
        jax.config.update("jax_enable_x64", False)


def test_interpreter_reads_and_writes_new_dtypes(tmp_path):
    # The .npy path of the tools: kiln-run reads |u1 <i2 <u2 <u8 and writes them back.
    import subprocess, os
    text = str(jax.make_jaxpr(lambda a, b, c: (a + a, b * b, c - 1))(
        np.zeros(3, np.uint8), np.zeros(3, np.int16), np.zeros(3, np.uint16)))
    prog = tmp_path / "p.jaxpr"
    prog.write_text(text)
    ins = [np.array([250, 3, 128], np.uint8), np.array([-300, 200, 32767], np.int16),
           np.array([0, 1, 65535], np.uint16)]
    names = []
    for i, a in enumerate(ins):
        names.append(str(tmp_path / f"in{i}.npy"))
        np.save(names[-1], a)
    out = tmp_path / "out"
    out.mkdir()
    binary = os.path.join(os.environ.get("KILN_BIN", ""), "kiln-run")
    subprocess.run([binary, str(prog), "--interpret", "--inputs", ",".join(names),
                    "--outputs", str(out)], check=True, capture_output=True)
    want = [ins[0] + ins[0], ins[1] * ins[1], ins[2] - np.uint16(1)]
    for i, w in enumerate(want):
        got = np.load(out / f"out{i}.npy")
        assert got.dtype == w.dtype
        np.testing.assert_array_equal(got, w)
