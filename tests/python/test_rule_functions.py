"""kiln.Rules.from_functions: a rule written as two JAX functions, run by
the YAML rule engine in kiln.jit, kiln.rewrite and kiln-opt. Each test
checks that the rule fired where it should (rule_stats, through kiln-opt)
and not where it should not, and compares the results with jax.jit of the
replacement (the rewrite computes exactly it) or of the original."""

import subprocess

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kiln
from kiln._rules import tool_path

RNG = np.random.default_rng(0)


def positive(*shape, dtype=np.float32):
    return (RNG.random(shape) + 0.5).astype(dtype)


EXP_LOG = kiln.Rules.from_functions(lambda a, b: jnp.exp(jnp.log(a) - jnp.log(b)),
                                    lambda a, b: a / b, name="exp-log-ratio",
                                    tags=["changes-precision"])


def test_fires_at_other_shapes_and_dtypes(cache_dir):
    """Traced at f32[8], the rule fires at f32[3,5] and f64[7] and computes
    the replacement bit for bit."""
    def f(x, y):
        return jnp.exp(jnp.log(x) - jnp.log(y)) + 1.0
    for x, y in [(positive(3, 5), positive(3, 5)), (positive(7), positive(7))]:
        jitted = kiln.jit(f, rules=EXP_LOG, tags=["changes-precision"], cache_dir=cache_dir)
        assert jitted.lower(x, y).rule_stats() == {"exp-log-ratio": 1}
        want = jax.jit(lambda x, y: x / y + 1.0)(x, y)
        np.testing.assert_array_equal(np.asarray(jitted(x, y)), np.asarray(want))
        np.testing.assert_allclose(jitted(x, y), jax.jit(f)(x, y), rtol=1e-5)


def test_tags_gate_the_rule(cache_dir):
    def f(x, y):
        return jnp.exp(jnp.log(x) - jnp.log(y))
    x, y = positive(4), positive(4)
    assert kiln.jit(f, rules=EXP_LOG, cache_dir=cache_dir).lower(x, y).rule_stats().get(
        "exp-log-ratio", 0) == 0


def test_literals_match_only_their_value(cache_dir):
    rules = kiln.Rules.from_functions(lambda x: x * 2.0, lambda x: x + x, name="double")
    x = RNG.standard_normal((4, 4)).astype(np.float32)
    # Either operand order (mul is commutative); 3.0 is another literal.
    for f, fires in [(lambda x: x * 2.0, 1), (lambda x: 2.0 * x, 1), (lambda x: x * 3.0, 0)]:
        jitted = kiln.jit(f, rules=rules, cache_dir=cache_dir)
        assert jitted.lower(x).rule_stats().get("double", 0) == fires
        np.testing.assert_array_equal(np.asarray(jitted(x)), np.asarray(jax.jit(f)(x)))


def test_literals_in_the_replacement_take_the_values_shape(cache_dir):
    rules = kiln.Rules.from_functions(lambda x: x + x, lambda x: x * 2.0, name="add-self")
    for x in [RNG.standard_normal((2, 3)).astype(np.float32),
              RNG.standard_normal(5).astype(np.float64)]:
        with jax.enable_x64(x.dtype == np.float64):
            jitted = kiln.jit(lambda x: (x + x) - 0.5, rules=rules, cache_dir=cache_dir)
            assert jitted.lower(x).rule_stats() == {"add-self": 1}
            want = jax.jit(lambda x: (x * 2.0) - 0.5)(x)
            got = jitted(x)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_attributes_and_conditions(cache_dir):
    rules = kiln.Rules.from_functions(lambda x: jnp.sum(x.T, axis=0), lambda x: jnp.sum(x, axis=1),
                                      name="sum-of-transpose", example_args=[jnp.ones((4, 6))],
                                      tags=["reassociates-float"])
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    jitted = kiln.jit(lambda x: jnp.sum(x.T, axis=0) * 3.0, rules=rules,
                      tags=["reassociates-float"], cache_dir=cache_dir)
    assert jitted.lower(x).rule_stats() == {"sum-of-transpose": 1}
    np.testing.assert_allclose(jitted(x), jax.jit(lambda x: jnp.sum(x, axis=1) * 3.0)(x),
                               rtol=1e-6)
    # The transpose of the other axis is another pattern.
    other = kiln.jit(lambda x: jnp.sum(x.T, axis=1), rules=rules, tags=["reassociates-float"],
                     cache_dir=cache_dir)
    assert other.lower(x).rule_stats().get("sum-of-transpose", 0) == 0
    # `where`: only on integers.
    ints = kiln.Rules.from_functions(lambda a, b: jnp.maximum(a, b) + jnp.minimum(a, b),
                                     lambda a, b: a + b, name="max-plus-min",
                                     where="not is_float($a)")
    i = RNG.integers(-50, 50, (6,)).astype(np.int32)
    j = RNG.integers(-50, 50, (6,)).astype(np.int32)
    f = lambda a, b: jnp.maximum(a, b) + jnp.minimum(a, b)  # noqa: E731
    assert kiln.jit(f, rules=ints, cache_dir=cache_dir).lower(i, j).rule_stats() == {"max-plus-min": 1}
    np.testing.assert_array_equal(np.asarray(kiln.jit(f, rules=ints, cache_dir=cache_dir)(i, j)),
                                  i + j)
    xf = RNG.standard_normal(6).astype(np.float32)
    assert kiln.jit(f, rules=ints, cache_dir=cache_dir).lower(xf, xf).rule_stats().get(
        "max-plus-min", 0) == 0


def test_in_kiln_rewrite_and_kiln_opt(tmp_path):
    def f(x, y):
        return jnp.exp(jnp.log(x) - jnp.log(y)) * x
    x, y = positive(3, 4), positive(3, 4)
    rewritten = kiln.rewrite(f, rules=EXP_LOG, tags=["changes-precision"])
    np.testing.assert_array_equal(np.asarray(jax.jit(rewritten)(x, y)),
                                  np.asarray(jax.jit(lambda x, y: (x / y) * x)(x, y)))
    # The YAML as a file for kiln-opt.
    rule_file = tmp_path / "exp-log.yaml"
    rule_file.write_text(EXP_LOG.yaml())
    program = kiln.jit(f).lower(x, y).as_text()
    out = subprocess.run([tool_path("kiln-opt"), f"--rules={rule_file}",
                          "--rule-tags=changes-precision", "--rule-stats", "-"],
                         input=program, capture_output=True, text=True, check=True)
    assert "lax.div" in out.stdout and "lax.log" not in out.stdout
    assert "exp-log-ratio: 1" in out.stdout + out.stderr


def test_verified_against_the_interpreter():
    exact = kiln.Rules.from_functions(lambda x: -(-x), lambda x: x, name="neg-neg-fn")
    lowered = kiln.jit(lambda x: -(-x) * 2.0).lower(np.ones(8, np.float32))
    report = exact.verify(lowered)
    assert "neg-neg-fn" in str(report)


def test_what_cannot_be_a_pattern():
    with pytest.raises(ValueError, match="region rule"):
        kiln.Rules.from_functions(lambda x: jax.lax.scan(lambda c, v: (c + v, c), 0.0, x)[0],
                                  lambda x: jnp.sum(x), name="scan-sum")
    with pytest.raises(ValueError, match="matches nothing"):
        kiln.Rules.from_functions(lambda x: x, lambda x: x * 1.0, name="identity")
    with pytest.raises(ValueError, match="does not use"):
        kiln.Rules.from_functions(lambda a, b: a * 2.0, lambda a, b: b, name="unbound")
    with pytest.raises(TypeError, match="same"):
        kiln.Rules.from_functions(lambda a, b: a + b, lambda a: a, name="arity")
    with pytest.raises(ValueError, match="closes over"):
        w = jnp.arange(8.0)
        kiln.Rules.from_functions(lambda x: x * w, lambda x: x, name="closure")


def test_decorator_form(cache_dir):
    """@rules.rule(pattern) on the replacement: the rule is named after the
    function, described by its docstring, fires in kiln.jit, and the
    function stays a plain JAX function."""
    rules = kiln.Rules()

    @rules.rule(lambda x: x / jnp.sqrt(x), tags=["changes-precision"])
    def x_over_sqrt_x(x):
        "x / sqrt(x) is sqrt(x) for x > 0"
        return jnp.sqrt(x)

    @rules.rule(lambda a, b: a * b + a * b, name="twice-product")
    def doubled(a, b):
        return 2.0 * (a * b)

    assert "name: x-over-sqrt-x" in rules.yaml() and "x / sqrt(x) is sqrt(x)" in rules.yaml()
    assert "name: twice-product" in rules.yaml()
    x = positive(4, 6)
    np.testing.assert_array_equal(x_over_sqrt_x(x), np.sqrt(x))  # still the function

    def f(x, y):
        return x / jnp.sqrt(x) + (x * y + x * y)
    jitted = kiln.jit(f, rules=rules, tags=["changes-precision"], cache_dir=cache_dir)
    assert jitted.lower(x, x).rule_stats() == {"x-over-sqrt-x": 1, "twice-product": 1}
    want = jax.jit(lambda x, y: jnp.sqrt(x) + 2.0 * (x * y))(x, x)
    np.testing.assert_array_equal(np.asarray(jitted(x, x)), np.asarray(want))
    # Without the tag only the exact rule fires.
    plain = kiln.jit(f, rules=rules, cache_dir=cache_dir)
    assert plain.lower(x, x).rule_stats() == {"twice-product": 1}

    with pytest.raises(ValueError, match="pass name="):
        rules.rule(lambda a: a + a)(lambda a: 2.0 * a)
    with pytest.raises(TypeError, match="must be a function"):
        rules.rule("x + x")
