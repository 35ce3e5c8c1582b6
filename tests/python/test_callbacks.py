"""Host callbacks (jax.pure_callback, io_callback, jax.debug.print,
equinox's runtime checks) under kiln.jit and kiln.rewrite, against jax.jit
on the same inputs: the compiled code calls back into Python, in program
order, only where the program reaches the call, and an exception raised
there is raised by the call."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import io_callback

import kiln


def _host_sin(x):
    assert isinstance(x, jax.Array)  # as under jax.jit
    return np.sin(np.asarray(x)).astype(x.dtype)


def test_pure_callback_result_feeds_compiled_code(cache_dir):
    def f(x, y):
        s = jax.pure_callback(_host_sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x * 2.0)
        return s @ y + 1.0

    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 32)).astype(np.float32)
    y = rng.standard_normal((32, 16)).astype(np.float32)
    got = np.asarray(kiln.jit(f, cache_dir=cache_dir)(x, y))
    np.testing.assert_allclose(got, np.asarray(jax.jit(f)(x, y)), rtol=1e-5, atol=1e-5)
    # float64 reference: sin(2x) @ y + 1.
    np.testing.assert_allclose(got, np.sin(2.0 * x.astype(np.float64)) @ y + 1.0,
                               rtol=1e-4, atol=1e-4)


def test_callbacks_of_several_dtypes_and_results(cache_dir):
    def host(a, b, c):
        a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
        return (a + 1).astype(np.int32), np.logical_not(b), (c * 2).astype(c.dtype)

    def f(a, b, c):
        shapes = (jax.ShapeDtypeStruct(a.shape, jnp.int32), jax.ShapeDtypeStruct(b.shape, bool),
                  jax.ShapeDtypeStruct(c.shape, c.dtype))
        i, p, h = jax.pure_callback(host, shapes, a, b, c)
        return i * 3, jnp.where(p, 1.0, 0.0), h + h, jnp.zeros((0, 3))

    a = np.arange(-5, 7, dtype=np.int32).reshape(3, 4)
    b = np.array([True, False, True])
    c = np.linspace(-2, 2, 10).astype(jnp.bfloat16)
    got = kiln.jit(f, cache_dir=cache_dir)(a, b, c)
    want = jax.jit(f)(a, b, c)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_debug_print_prints_as_jax_does(cache_dir, capfd):
    def f(x):
        jax.debug.print("x = {x}, sum = {s}", x=x, s=x.sum())
        return x * 2

    x = np.arange(4, dtype=np.float32)
    jax.jit(f)(x)
    jax.effects_barrier()
    want = capfd.readouterr().out
    kiln.jit(f, cache_dir=cache_dir)(x)
    got = capfd.readouterr().out
    assert want == "x = [0. 1. 2. 3.], sum = 6.0\n"
    assert got == want


def test_callback_in_scan_runs_every_step_in_order(cache_dir):
    seen = []

    def record(i, c):
        seen.append((int(i), float(c)))
        return np.zeros((), np.int32)

    def f(x):
        def step(c, i):
            io_callback(record, jax.ShapeDtypeStruct((), jnp.int32), i, c, ordered=True)
            return c * 0.5 + 1.0, c

        return jax.lax.scan(step, x, jnp.arange(6))

    kiln.jit(f, cache_dir=cache_dir)(np.float32(3.0))
    got = list(seen)
    seen.clear()
    jax.jit(f)(np.float32(3.0))
    jax.effects_barrier()
    assert got == seen and len(got) == 6
    assert got[0] == (0, 3.0) and got[1] == (1, 2.5)


def test_callback_in_untaken_branch_is_not_called(cache_dir):
    calls = []

    def host(x):
        calls.append(1)
        return x

    def f(p, x):
        spec = jax.ShapeDtypeStruct(x.shape, x.dtype)
        return jax.lax.cond(p, lambda v: jax.pure_callback(host, spec, v), lambda v: v + 1, x)

    fk = kiln.jit(f, cache_dir=cache_dir)
    np.testing.assert_array_equal(np.asarray(fk(False, np.ones(3, np.float32))), 2.0)
    assert calls == []
    np.testing.assert_array_equal(np.asarray(fk(True, np.ones(3, np.float32))), 1.0)
    assert calls == [1]


def test_exception_of_a_callback_is_raised_by_the_call(cache_dir):
    class Boom(Exception):
        pass

    def host(x):
        if (np.asarray(x) < 0).any():
            raise Boom("negative input")
        return x

    def f(x):
        y = jnp.tanh(x) * 3.0
        return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), y) + 1.0

    fk = kiln.jit(f, cache_dir=cache_dir)
    big = np.ones((512, 512), np.float32)  # a call long enough to release the GIL
    with pytest.raises(Boom, match="negative input"):
        fk(-big)
    with pytest.raises(Boom):
        fk(np.full(3, -1.0, np.float32))
    # The function stays usable after a failed call.
    np.testing.assert_allclose(np.asarray(fk(big)), np.tanh(1.0) * 3.0 + 1.0, rtol=1e-6)


def test_wrong_result_shape_is_a_type_error(cache_dir):
    def f(x):
        return jax.pure_callback(lambda v: np.asarray(v)[:2],
                                 jax.ShapeDtypeStruct(x.shape, x.dtype), x)

    with pytest.raises(TypeError, match=r"result 0 is float32\[2\], declared as float32\[4\]"):
        kiln.jit(f, cache_dir=cache_dir)(np.ones(4, np.float32))


def test_callback_computes_in_the_compiled_codes_float_mode(cache_dir):
    # XLA runs a callback on its own thread, subnormals flushed: a
    # subnormal the callback computes comes back as 0 under jax.jit, and so
    # under kiln.jit (flush_subnormals, its default); with IEEE subnormals
    # it stays.
    def host(x):
        return (np.asarray(x) * np.float32(0.5)).astype(np.float32)

    def f(x):
        return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x)

    x = np.array([2e-38, 1e-38], np.float32)
    want = np.asarray(jax.jit(f)(x))
    np.testing.assert_array_equal(np.asarray(kiln.jit(f, cache_dir=cache_dir)(x)), want)
    ieee = kiln.jit(f, cache_dir=cache_dir, compiler_options={"flush_subnormals": False})
    np.testing.assert_array_equal(np.asarray(ieee(x)), x * np.float32(0.5))


def test_equinox_error_if(cache_dir):
    def f(x):
        x = eqx.error_if(x, x < 0, "x must be non-negative")
        return jnp.sqrt(x)

    fk = kiln.jit(f, cache_dir=cache_dir)
    x = np.array([1.0, 4.0, 9.0], np.float32)
    np.testing.assert_array_equal(np.asarray(fk(x)), np.asarray(jax.jit(f)(x)))
    with pytest.raises(Exception, match="x must be non-negative"):
        jax.jit(f)(-x)
    # As eqx.filter_jit raises it: the check's message, no XLA error around.
    with pytest.raises(eqx.EquinoxRuntimeError, match="x must be non-negative"):
        fk(-x)
    with pytest.raises(eqx.EquinoxRuntimeError, match="x must be non-negative"):
        kiln.filter_jit(f, cache_dir=cache_dir)(-x)


def test_rewrite_keeps_callbacks(capfd):
    def f(x):
        jax.debug.print("v={v}", v=x[0])
        return jax.pure_callback(_host_sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x) * 2.0

    x = np.linspace(0, 1, 5).astype(np.float32)
    got = jax.jit(kiln.rewrite(f))(x)
    jax.effects_barrier()
    np.testing.assert_allclose(np.asarray(got), np.sin(x) * 2.0, rtol=1e-6)
    assert capfd.readouterr().out == "v=0.0\n"


def test_export_refuses_callbacks(tmp_path, cache_dir):
    def f(x):
        jax.debug.print("{}", x)
        return x + 1

    compiled = kiln.jit(f, cache_dir=cache_dir).lower(np.ones(3, np.float32)).compile()
    with pytest.raises(kiln.Error, match="calls back into Python"):
        compiled.export(tmp_path / "libf.so")
    assert not (tmp_path / "libf.so").exists()


def test_callbacks_under_jax_transformations(cache_dir):
    # Under jax.jit and jax.vmap the kiln.jit function runs as a primitive
    # (XLA's FFI call of Kiln's code, _transforms.py): its callbacks run too.
    def f(x):
        y = jax.pure_callback(lambda v: np.asarray(v) * 2, jax.ShapeDtypeStruct(x.shape, x.dtype),
                              x, vmap_method="sequential")
        return y * x + 1

    k = kiln.jit(f, cache_dir=cache_dir)
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(jax.jit(k)(x)), np.asarray(jax.jit(f)(x)))
    xs = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(np.asarray(jax.vmap(k)(xs)), np.asarray(jax.vmap(f)(xs)))
