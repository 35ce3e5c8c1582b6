"""The Python boundary against silent wrong results: every case below gave
a wrong answer without an error before (jax.jit or a hand-derived value is
the oracle)."""

import gc

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kiln


@pytest.mark.parametrize("first,then", [
    (jnp.float32, jnp.int32), (jnp.float32, jnp.uint32), (jnp.int8, jnp.bool_),
    (jnp.int32, jnp.float32),
])
def test_fast_path_checks_dtype(cache_dir, first, then):
    # After a call with one dtype, a JAX array of another with the same item
    # size and shape had been read as the first's bits ([0,1,2,3] + 1 as
    # float32 bits of int32 gave [1,1,1,1]).
    f = kiln.jit(lambda x: x + 1, cache_dir=cache_dir)
    f(jnp.arange(4).astype(first))
    x = jnp.arange(4).astype(then)
    got = f(x)
    want = jax.jit(lambda x: x + 1)(x)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


def test_big_endian_never_read_as_native(cache_dir):
    # '>f4' has float32's type number: the fast path had passed its bytes
    # unswapped (2x + 1 of arange(4) gave [1, 1, 1, 1]). Now it is converted
    # by value (jax.jit refuses '>f4' but converts '>i8' as it canonicalizes
    # it; kiln.jit converts both), never passed as it is.
    f = kiln.jit(lambda x: 2 * x + 1, cache_dir=cache_dir)
    np.testing.assert_array_equal(f(np.arange(4, dtype=np.float32)), [1, 3, 5, 7])
    swapped = np.arange(4).astype(">f4")
    for _ in range(3):
        np.testing.assert_array_equal(f(swapped), [1, 3, 5, 7])
    np.testing.assert_array_equal(f({"x": swapped}["x"]), [1, 3, 5, 7])
    compiled = f.lower(np.zeros(4, np.float32)).compile()
    np.testing.assert_array_equal(compiled(swapped), [1, 3, 5, 7])


def test_unhashable_static_argument_is_an_error(cache_dir):
    f = kiln.jit(lambda x, n: x * len(n), static_argnums=1, cache_dir=cache_dir)
    with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
        f(np.ones(2, np.float32), [1, 2])
    with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
        jax.jit(lambda x, n: x * len(n), static_argnums=1)(np.ones(2, np.float32), [1, 2])


def test_unhashable_leaves_are_not_keyed_by_a_reusable_id(cache_dir):
    # Non-array leaves (a callable object inside a pytree) are static; an
    # unhashable one had been keyed by id(), which a new object reuses once
    # the old one is freed: it got the old compile (76 of 100 calls stale).
    class Scale:
        __hash__ = None  # unhashable

        def __init__(self, s):
            self.s = s

        def __call__(self, x):
            return x * self.s

    f = kiln.jit(lambda x, fs: fs[0](x), cache_dir=cache_dir)
    x = np.ones(3, np.float32)
    for s in range(1, 30):
        got = f(x, [Scale(float(s))])
        gc.collect()
        np.testing.assert_array_equal(got, x * s)


def test_compiled_callable_refuses_other_dtypes(cache_dir):
    # NaN had been force-cast into an int32 input (-2147483647); jax.jit's
    # compiled executable raises TypeError. Dtypes JAX canonicalizes to the
    # compiled one (int64 -> int32, float64 -> float32) are accepted.
    c = kiln.jit(lambda x: x + 1, cache_dir=cache_dir).lower(np.zeros(3, np.int32)).compile()
    with pytest.raises(TypeError, match="Argument types differ"):
        c(np.array([np.nan, 1.5, 2.0], np.float32))
    np.testing.assert_array_equal(c(np.array([1, 2, 3], np.int64)), [2, 3, 4])
    np.testing.assert_array_equal(c([1, 2, 3]), [2, 3, 4])


def test_mutated_list_inside_a_module_is_seen(cache_dir):
    eqx = pytest.importorskip("equinox")

    class Model(eqx.Module):
        layers: list

        def __call__(self, x):
            for w in self.layers:
                x = x * w
            return x

    m = Model([jnp.float32(2.0), jnp.float32(3.0)])
    f = kiln.jit(lambda m, x: m(x), cache_dir=cache_dir)
    x = np.ones(2, np.float32)
    np.testing.assert_array_equal(f(m, x), [6, 6])
    np.testing.assert_array_equal(f(m, x), [6, 6])
    assert f._num_fast_paths == 1  # pinned, its list watched
    m.layers[0] = jnp.float32(5.0)  # in place: the list is the module's
    np.testing.assert_array_equal(f(m, x), [15, 15])
    m.layers.append(jnp.float32(0.5))
    np.testing.assert_array_equal(f(m, x), [7.5, 7.5])


def test_rules_from_text_refuses_a_name_that_is_no_file_name():
    text = "- name: r\n  match: {root: 'lax.neg(lax.neg($x))'}\n  rewrite: {root: $x}\n"
    with pytest.raises(ValueError, match="name must be a file name"):
        kiln.Rules.from_text(text, name="..")
    assert kiln.Rules.from_text(text, name="mine.yaml").files


def test_rules_verify_needs_a_seed():
    with pytest.raises(ValueError, match="seeds must be an int >= 1"):
        kiln.Rules.from_text("[]\n").verify("x.mlir", seeds=0)


def test_static_argnums_out_of_range_is_jax_error(cache_dir):
    x = np.ones(2, np.float32)
    with pytest.raises(ValueError, match="static_argnums=\\(3,\\), but only accepts 1"):
        jax.jit(lambda x: x, static_argnums=3)(x)
    with pytest.raises(ValueError, match="static_argnums=\\(3,\\), but only accepts 1"):
        kiln.jit(lambda x: x, static_argnums=3, cache_dir=cache_dir)(x)


def test_interpret_checks_argument_shapes():
    from kiln import _kiln
    p = _kiln.Program.from_mlir(
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %0 = lax.add %x, %x : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n", "p.mlir")
    with pytest.raises(kiln.Error, match=r"must have shape \[4\], got \[2\]"):
        p.interpret("main", [np.ones(2, np.float32)])  # had read past the buffer
    np.testing.assert_array_equal(p.interpret("main", [np.ones(4, np.float32)])[0], [2, 2, 2, 2])


def test_ffi_handler_refuses_forged_handles_and_wrong_sizes(cache_dir):
    # The kiln_call FFI target had called whatever address it was given.
    from kiln import _kernel
    k = kiln.kernel(lambda x: x * 2, cache_dir=cache_dir)
    x = jnp.arange(4, dtype=jnp.float32)
    np.testing.assert_array_equal(jax.jit(k)(x), [0, 2, 4, 6])
    compiled = _kernel._KEPT[-1]
    out = [jax.ShapeDtypeStruct((4,), jnp.float32)]
    call = jax.ffi.ffi_call(_kernel.TARGET, out, vmap_method="sequential")
    with pytest.raises(Exception, match="not a live Kiln function"):
        jax.block_until_ready(call(x, executable=np.int64(0x1234560)))
    small = jnp.arange(2, dtype=jnp.float32)
    with pytest.raises(Exception, match="another size"):
        jax.block_until_ready(call(small, executable=np.int64(compiled.function.address)))


def test_clear_cache_while_another_thread_calls(cache_dir):
    # A call releases the GIL while the compiled code runs; clear_cache()
    # from another thread had freed the code under it (segfault).
    import threading
    f = kiln.jit(lambda x: jnp.tanh(x @ x.T).sum(), cache_dir=cache_dir)
    x = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32)
    want = float(jax.jit(lambda x: jnp.tanh(x @ x.T).sum())(x))
    f(x)
    f(x)
    stop, errors = threading.Event(), []

    def calls():
        try:
            while not stop.is_set():
                assert abs(float(f(x)) - want) <= 1e-3 * abs(want) + 1e-2
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=calls) for _ in range(2)]
    for t in threads:
        t.start()
    for _ in range(200):
        f.clear_cache()
        f(x)
    stop.set()
    for t in threads:
        t.join()
    assert not errors, errors


def test_diagnostic_quoting_a_partial_utf8_character_is_a_kiln_error():
    # The lexer quotes one byte of a two-byte character ('unexpected
    # character ...'): that message reached Python as UnicodeDecodeError.
    from kiln import _kiln
    with pytest.raises(kiln.JaxprImportError, match="unexpected character"):
        _kiln.Program.from_jaxpr("{ lambda ; a:f32[2]. let b:f32[2] = negÿ a in (b,) }", "x.jaxpr")


_TOO_LARGE = """
func.func @f(%c0: tensor<1048576xf32>) -> tensor<f32> {
  %c, %ys = lax.scan length = 262144 carry(%c0) xs()
      : (tensor<1048576xf32>) -> (tensor<1048576xf32>, tensor<262144x1048576xf32>) {
  ^bb0(%carry: tensor<1048576xf32>):
    %s = lax.sin %carry : tensor<1048576xf32>
    lax.yield %s, %s : tensor<1048576xf32>, tensor<1048576xf32>
  }
  %r = lax.reduce_max %ys axes = [0, 1] : tensor<262144x1048576xf32> -> tensor<f32>
  return %r : tensor<f32>
}
"""


def test_temporary_too_large_is_a_memory_error(cache_dir):
    # A 1 TiB temporary: its failed allocation had been written through as
    # a null pointer (a segfault); now the call raises MemoryError, and the
    # function stays callable.
    fn = kiln._kiln.Program.from_mlir(_TOO_LARGE, "too_large.mlir").compile("f", cache_dir)
    for _ in range(2):
        with pytest.raises(MemoryError, match="could not allocate 1099511627776 bytes"):
            fn(np.ones(1048576, np.float32))
