"""kiln.jit(f).lower(*args) and .compile() as jax.jit's: the compiled
object is callable with the arguments (pytrees, without the static ones),
and it is the entry `f` itself uses, so nothing compiles twice; rule
statistics and explanations from the lowered and compiled objects."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kiln

NEGNEG = """
- name: neg-neg
  match:
    inner: lax.neg($x)
    root:  lax.neg(inner)
  rewrite:
    root: $x
"""


def counting(fun):
    traces = []

    def wrapped(*args, **kwargs):
        traces.append(1)
        return fun(*args, **kwargs)
    return wrapped, traces


def test_compile_is_shared_with_the_function(cache_dir):
    g, traces = counting(lambda x, y: jnp.tanh(x) @ y)
    f = kiln.jit(g, cache_dir=cache_dir)
    x = np.ones((3, 4), np.float32)
    y = np.arange(8, dtype=np.float32).reshape(4, 2)
    compiled = f.lower(x, y).compile()
    assert f._cache_size() == 1 and len(traces) == 1
    want = jax.jit(g).lower(x, y).compile()(x, y)
    np.testing.assert_allclose(compiled(x, y), want, rtol=1e-6)
    for _ in range(3):
        np.testing.assert_allclose(f(x, y), want, rtol=1e-6)
    assert f._cache_size() == 1 and len(traces) == 2  # jax.jit's trace above, no other
    # And the other way: after a call, .compile() gives the function's entry.
    x2 = np.ones((5, 4), np.float32)
    f(x2, y)
    assert f._cache_size() == 2
    assert f.lower(x2, y).compile() is f.lower(x2, y).compile()
    assert f._cache_size() == 2


def test_compiled_takes_pytrees_and_leaves_out_static_arguments(cache_dir):
    def g(params, x, n, *, scale):
        return {"y": (params["w"] @ x + params["b"]) * n * scale}

    params = {"w": np.ones((3, 4), np.float32), "b": np.arange(3, dtype=np.float32)}
    x = np.linspace(0, 1, 4, dtype=np.float32)
    want = jax.jit(g, static_argnums=2).lower(params, x, 3, scale=2.0).compile()(params, x, scale=2.0)
    compiled = kiln.jit(g, static_argnums=2, cache_dir=cache_dir).lower(params, x, 3, scale=2.0).compile()
    got = compiled(params, x, scale=2.0)
    assert set(got) == {"y"}
    np.testing.assert_allclose(got["y"], want["y"], rtol=1e-6)
    # The flattened array leaves, as before.
    np.testing.assert_allclose(compiled(params["b"], params["w"], x, 2.0)["y"], want["y"], rtol=1e-6)


def test_compiled_deletes_donated_arrays(cache_dir):
    f = kiln.jit(lambda x: x + 1, donate_argnums=0, cache_dir=cache_dir)
    compiled = f.lower(jnp.ones(3)).compile()
    x = jnp.ones(3)
    np.testing.assert_array_equal(compiled(x), [2, 2, 2])
    assert x.is_deleted()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        compiled(x)


def test_rule_statistics_and_explanations(cache_dir):
    rules = kiln.Rules.from_text(NEGNEG, name="negneg.yaml")
    f = kiln.jit(lambda x: -(-x) * 2.0 + (-(-(x + 1))) - (-x), rules=rules, cache_dir=cache_dir)
    x = np.arange(4, dtype=np.float32)
    lowered = f.lower(x)
    assert lowered.rule_stats() == {"neg-neg": 2}
    why = lowered.explain("neg-neg")
    assert "rule 'neg-neg' matches" in why and "test_lowered.py:" in why
    assert "does not match" in why  # the single negation
    assert "kiln-opt-" not in why and "kiln-rules-" not in why
    compiled = lowered.compile()
    assert compiled.rule_stats() == {"neg-neg": 2}
    assert "lax.neg" in compiled.as_text() and compiled.as_text().count("lax.neg") == 1
    np.testing.assert_allclose(f(x), jax.jit(lambda x: -(-x) * 2.0 + (-(-(x + 1))) - (-x))(x))
    # A function compiled by a call has the same.
    f(x * 2)
    assert f.lower(x * 2).compile().rule_stats() == {"neg-neg": 2}
    # Without rules: nothing applied; nothing to explain.
    plain = kiln.jit(lambda x: -(-x), cache_dir=cache_dir).lower(x)
    assert plain.rule_stats() == {}
    with pytest.raises(ValueError, match="no rules"):
        plain.explain("neg-neg")


def test_rule_stats_respect_tags(cache_dir):
    tagged = NEGNEG.replace("  match:", "  tags: [reassociates-float]\n  match:")
    rules = kiln.Rules.from_text(tagged, name="tagged.yaml")
    x = np.arange(4, dtype=np.float32)
    off = kiln.jit(lambda x: -(-x), rules=rules, cache_dir=cache_dir).lower(x)
    on = kiln.jit(lambda x: -(-x), rules=rules, tags=["reassociates-float"],
                  cache_dir=cache_dir).lower(x)
    assert off.rule_stats().get("neg-neg", 0) == 0
    assert on.rule_stats() == {"neg-neg": 1}


def test_cached_signatures_keep_programs_as_text(cache_dir):
    # A cached signature keeps its programs as text (each live one held an
    # MLIR context of about 2.5 MB: 2.7 MB per signature, jax.jit's 1.5);
    # what needs them parses them again, with their locations (the Python
    # lines that traced each op).
    f = kiln.jit(lambda x: -(-jnp.tanh(x)) * 2.0, rules=NEGNEG, cache_dir=cache_dir)
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    np.testing.assert_allclose(f(x), jax.jit(lambda x: jnp.tanh(x) * 2.0)(x), rtol=1e-6)
    compiled = f.lower(x).compile()  # the cached entry, released
    assert isinstance(compiled.program_or_text, str)
    text = compiled.as_text()
    assert "lax.tanh" in text and "lax.neg" not in text
    assert compiled.rule_stats() == {"neg-neg": 1}
    assert "test_lowered.py" in compiled.program.text(True)  # locations kept
    np.testing.assert_array_equal(compiled(x), f(x))
