"""kiln.jit against jax.jit: the same results on the same inputs (jax.jit is
the oracle), the calling conventions jax.jit has (pytrees, scalars, static
and keyword arguments), the fast path, .lower(), errors."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import kiln


def close(got, want, rtol=1e-5, atol=1e-6):
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    assert got_tree == want_tree
    for g, w in zip(got_leaves, want_leaves):
        assert isinstance(g, np.ndarray)
        w = np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", [
    "seed000_f1_double_vmap", "seed000_f2_einsum", "seed002_mse_before", "seed002_mse_after",
    "seed003_tdma", "seed004_eqx_closure", "seed004_flax_closure", "seed004_eqx_arg",
    "seed004_eqx_filter_jit_arg", "seed004_flax_arg", "seed001_ten_calls",
])
def test_seed_programs_match_jax_jit(programs, cache_dir, name):
    p = programs[name]
    args = p.args()
    close(kiln.jit(p.fn, cache_dir=cache_dir)(*args), jax.jit(p.fn)(*args), rtol=2e-5, atol=2e-5)


def test_flax_model_static(programs, cache_dir):
    import sys
    seeds = sys.modules["kiln_corpus_programs.seeds"]
    x = np.asarray(seeds.init)
    f = kiln.jit(lambda x, model, params: model.apply(params, x), static_argnums=1,
                 cache_dir=cache_dir)
    close(f(x, seeds.flaxmlp, seeds.params), seeds.flaxmlp.apply(seeds.params, x))


def test_fast_path_reads_each_calls_data(cache_dir):
    f = kiln.jit(lambda x, y: jnp.sin(x) * y + 1.0, cache_dir=cache_dir)
    r = np.random.default_rng(0)
    x, y = r.standard_normal((2, 3, 5)).astype(np.float32)
    f(x, y)
    assert f._num_fast_paths == 1
    for _ in range(3):
        x, y = r.standard_normal((2, 3, 5)).astype(np.float32)
        close(f(x, y), jnp.sin(x) * y + 1.0)
    # A new shape is a new signature; the old one still works.
    close(f(x[:2], y[:2]), jnp.sin(x[:2]) * y[:2] + 1.0)
    assert f._num_fast_paths == 2
    close(f(x, y), jnp.sin(x) * y + 1.0)


def test_arguments_jax_accepts(cache_dir):
    def g(x, s, n):
        return x * s + n

    f = kiln.jit(g, cache_dir=cache_dir)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    # Python scalars are weakly typed, as in JAX: the result stays f32.
    close(f(x, 2.5, 3), jax.jit(g)(x, 2.5, 3))
    # JAX arrays, and a float64 array (JAX converts it to f32 without x64).
    close(f(jnp.asarray(x), 2.5, 3), jax.jit(g)(x, 2.5, 3))
    close(f(x.astype(np.float64), 2.5, 3), jax.jit(g)(x.astype(np.float64), 2.5, 3))
    # A non-contiguous view is copied, not misread.
    xt = np.arange(6, dtype=np.float32).reshape(3, 2).T
    close(f(xt, 1.0, 0), jax.jit(g)(xt, 1.0, 0))
    # Bool and integer arrays.
    h = kiln.jit(lambda b, i: jnp.where(b, i, -i), cache_dir=cache_dir)
    b = np.array([True, False, True])
    i = np.array([1, 2, 3], dtype=np.int32)
    close(h(b, i), np.where(b, i, -i))


def test_pytrees_keywords_static(cache_dir):
    def g(params, x, *, scale, mode):
        y = params["w"] @ x + params["b"]
        return {"y": y * scale, "norm": jnp.sum(y * y)} if mode == "dict" else (y, -y)

    f = kiln.jit(g, static_argnums=(), cache_dir=cache_dir)
    params = {"w": np.ones((3, 4), np.float32), "b": np.arange(3, dtype=np.float32)}
    x = np.linspace(0, 1, 4, dtype=np.float32)
    # A str leaf is not an array: static, part of the signature (jax.jit
    # would refuse it; equinox's filter_jit takes it so).
    close(f(params, x, scale=2.0, mode="dict"), g(params, x, scale=2.0, mode="dict"))
    close(f(params, x, scale=2.0, mode="tuple"), g(params, x, scale=2.0, mode="tuple"))
    f = kiln.jit(lambda params, x, mode, scale: g(params, x, scale=scale, mode=mode),
                 static_argnums=2, cache_dir=cache_dir)
    close(f(params, x, "dict", 2.0), g(params, x, scale=2.0, mode="dict"))
    close(f(params, x, "tuple", 2.0), g(params, x, scale=2.0, mode="tuple"))


def test_return_jax_arrays(cache_dir):
    f = kiln.jit(lambda x: x + 1, cache_dir=cache_dir, return_jax_arrays=True)
    out = f(np.zeros(3, np.float32))
    assert isinstance(out, jax.Array)
    np.testing.assert_array_equal(np.asarray(out), np.ones(3, np.float32))


def test_compile_cache_on_disk(cache_dir):
    x = np.ones((4, 4), np.float32)

    def g(x):
        return jnp.tanh(x) @ x

    first = kiln.jit(g, cache_dir=cache_dir).lower(x).compile()
    second = kiln.jit(g, cache_dir=cache_dir).lower(x).compile()
    assert first.function.cache.startswith("miss")
    assert second.function.cache.startswith("hit")
    close(second(x), jax.jit(g)(x))


def test_lower_shows_the_program_and_the_rules(cache_dir, tmp_path):
    def g(x):
        return -(-x) * 2.0

    rules = kiln.Rules.from_text("""
- name: neg-neg
  match:
    inner: lax.neg($x)
    root:  lax.neg(inner)
  rewrite:
    root: $x
""", name="negneg.yaml")
    f = kiln.jit(g, rules=rules, optimize=False, cache_dir=cache_dir)
    x = np.arange(4, dtype=np.float32)
    lowered = f.lower(x)
    assert lowered.as_text().count("lax.neg") == 2
    assert "lax.neg" not in lowered.optimized().as_text()
    trace = lowered.trace()
    assert "rule-trace: 'neg-neg'" in trace
    assert "kiln-rules-" not in trace  # the temporary path is not shown
    close(f(x), jax.jit(g)(x))
    assert "{ lambda" in lowered.jaxpr or "let" in lowered.jaxpr


def test_import_error_names_the_python_line(cache_dir):
    # A Schur decomposition, which Kiln does not import.
    f = kiln.jit(lambda x: jax.lax.linalg.schur(x)[0],
                 cache_dir=cache_dir)
    with pytest.raises(kiln.JaxprImportError) as e:
        f(np.eye(3, dtype=np.float32))
    assert isinstance(e.value, kiln.Error)
    msg = str(e.value)
    # The line that traced the equation, with its source (as JAX's errors).
    assert "test_jit.py:" in msg and "error: unsupported jaxpr primitive 'schur'" in msg
    assert "jax.lax.linalg.schur(x)" in msg


def test_rule_error_names_the_rule_file(cache_dir):
    # Raised when the rules are built, not at the first call.
    with pytest.raises(kiln.RuleError) as e:
        kiln.Rules.from_text("- name: broken\n  match:\n    root: lax.neg(\n  rewrite:\n    root: $x\n",
                             name="broken.yaml")
    msg = str(e.value)
    assert "broken.yaml:" in msg and "error:" in msg
    assert "kiln-rules-" not in msg  # the temporary path is not shown
    with pytest.raises(kiln.RuleError):
        kiln.Rules.from_file("/no/such/rules.yaml")


def test_wrong_argument_is_an_error_not_a_crash(cache_dir):
    f = kiln.jit(lambda x: x * 2, cache_dir=cache_dir)
    compiled = f.lower(np.zeros(3, np.float32)).compile()
    with pytest.raises(kiln.Error, match="expected f32\\[3\\]"):
        compiled(np.zeros(4, np.float32))
    with pytest.raises(kiln.Error, match="takes 1 arrays, got 2"):
        compiled(np.zeros(3, np.float32), np.zeros(3, np.float32))
    with pytest.raises(Exception):
        compiled("not an array")


def test_rules_and_tags_change_the_program(programs, cache_dir):
    p = programs["seed002_mse_before"]
    args = p.args()
    plain = kiln.jit(p.fn, optimize=False, cache_dir=cache_dir).lower(*args)
    pushed = kiln.jit(p.fn, rules=_pushup_rules(),
                      tags=("reassociates-float",), optimize=False, cache_dir=cache_dir)
    text = pushed.lower(*args).optimized().as_text()
    # The stacked ys of the scan are no longer reduced outside: the sum is a carry.
    assert "tensor<30x15x12xf32> -> tensor<f32>" in plain.as_text()
    assert "tensor<30x15x12xf32> -> tensor<f32>" not in text
    close(pushed(*args), jax.jit(p.fn)(*args), rtol=1e-5, atol=1e-6)


def _pushup_rules():
    from pathlib import Path
    return Path(__file__).resolve().parents[2] / "examples" / "rules" / "scan_pushup.yaml"


def test_model_argument_pinned_by_identity(programs, cache_dir):
    """An equinox model passed again as the same object takes the C++ path;
    a new model (equinox's way to change one) is seen at once."""
    import equinox as eqx
    p = programs["seed004_eqx_arg"]
    x, model = p.args()
    f = kiln.jit(lambda x, model: model(x), cache_dir=cache_dir)
    want = jax.jit(lambda x, model: model(x))
    close(f(x, model), want(x, model))
    close(f(x, model), want(x, model))
    assert f._num_fast_paths == 1  # pinned on the second call with the same object
    for _ in range(3):
        close(f(x, model), want(x, model))
    bigger = eqx.tree_at(lambda m: m.layers[2].bias, model, model.layers[2].bias + 1.0)
    close(f(x, bigger), want(x, bigger))
    assert not np.allclose(f(x, bigger), f(x, model))


def test_mutable_parameters_are_read_on_every_call(cache_dir):
    """A dict of parameters may change in place between calls: never pinned."""
    f = kiln.jit(lambda p, x: p["w"] * x + p["b"], cache_dir=cache_dir)
    params = {"w": jnp.ones(3), "b": jnp.zeros(3)}
    x = np.arange(3, dtype=np.float32)
    for step in range(3):
        close(f(params, x), params["w"] * x + params["b"])
        params["b"] = params["b"] + 1.0  # replaced in place in the dict
    assert f._num_fast_paths == 0


def test_parameter_dicts_are_walked_on_every_call(cache_dir):
    """flax's way: the parameters as a dict of JAX arrays, passed again and
    again. Once the same arrays come twice, calls take the C++ path, which
    walks the dict every time: a key added or an array replaced in place
    is seen (the reference is numpy on the dict as it is at each call)."""
    f = kiln.jit(lambda p, x: jnp.tanh(p["params"]["w"] @ x + p["params"]["b"]),
                 cache_dir=cache_dir)
    r = np.random.default_rng(5)
    params = {"params": {"w": jnp.asarray(r.standard_normal((8, 4)).astype(np.float32)),
                         "b": jnp.zeros(8, jnp.float32)}}
    x = r.standard_normal(4).astype(np.float32)

    def want(p):
        return np.tanh(np.asarray(p["params"]["w"]) @ x + np.asarray(p["params"]["b"]))
    for _ in range(3):
        close(f(params, x), want(params))
    assert f._num_fast_paths == 1
    params["params"]["b"] = params["params"]["b"] + 1.0  # replaced in place
    close(f(params, x), want(params))
    params["params"]["unused"] = jnp.zeros(2)  # another structure: traced again
    close(f(params, x), want(params))
    del params["params"]["unused"]
    close(f(params, x), want(params))
    # A numpy leaf is passed as it comes: changed in place, read again.
    host = {"params": {"w": np.asarray(params["params"]["w"]).copy(),
                       "b": np.asarray(params["params"]["b"]).copy()}}
    for _ in range(2):
        close(f(host, x), want(host))
    host["params"]["b"][:] = -3.0
    close(f(host, x), want(host))
    # A training loop: new arrays every step; the fast paths do not pile up.
    for _ in range(20):
        params = {"params": {"w": params["params"]["w"] * 0.5, "b": params["params"]["b"]}}
        close(f(params, x), want(params))
    assert f._num_fast_paths <= 2


def test_jax_arrays_take_the_fast_path(cache_dir):
    """JAX's CPU arrays are read through the buffer protocol (no copy), each
    call's own data; a weakly typed array is a different signature."""
    f = kiln.jit(lambda x, y: x * 2.0 + y, cache_dir=cache_dir)
    r = np.random.default_rng(3)
    x = jnp.asarray(r.standard_normal((3, 4)).astype(np.float32))
    y = jnp.asarray(r.standard_normal((3, 4)).astype(np.float32))
    close(f(x, y), x * 2.0 + y)
    assert f._num_fast_paths == 1
    for _ in range(3):
        x = x + 1.0
        close(f(x, y), x * 2.0 + y)
    assert f._num_fast_paths == 1
    weak = jnp.asarray(1.5)  # weak_type=True
    g = kiln.jit(lambda s, v: s * v, cache_dir=cache_dir)
    v = jnp.ones(3, jnp.float32)
    close(g(weak, v), weak * v)
    close(g(jnp.asarray(np.float32(2.0)), v), 2.0 * v)
    assert g._num_fast_paths == 2


def test_non_array_leaves_are_static(cache_dir):
    """An equinox model with functions among its leaves (eqx.nn.MLP's
    activations): jax.jit refuses it, kiln.jit treats those leaves as static
    (as eqx.filter_jit does)."""
    import equinox as eqx
    model = eqx.nn.MLP(4, 2, 16, 2, key=jax.random.key(0))
    f = kiln.jit(lambda x, m: m(x), cache_dir=cache_dir)
    x = np.linspace(-1, 1, 4, dtype=np.float32)
    want = eqx.filter_jit(lambda x, m: m(x))(x, model)
    close(f(x, model), want)
    close(f(x, model), want)
    assert f._num_fast_paths == 1
    other = eqx.nn.MLP(4, 2, 16, 2, activation=jax.nn.tanh, key=jax.random.key(0))
    close(f(x, other), eqx.filter_jit(lambda x, m: m(x))(x, other))
