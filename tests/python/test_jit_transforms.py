"""kiln.jit functions inside JAX's transformations, against jax.jit of the
same functions: jit, grad, value_and_grad, vmap, scan, checkpoint, jvp and
their nestings, with pytree outputs, keyword and static arguments. The same
user function runs under both; results must agree (allclose), errors must
be of the same type. Kiln's code must be what runs (no FallbackWarning,
kiln_call in the programs) except where a test says otherwise."""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import kiln

pytestmark = pytest.mark.filterwarnings("error::kiln.FallbackWarning")

W = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5) / 10  # captured: a constant


def model(params, x, n, *, act="tanh"):
    """A small network with a scan, a captured constant, pytree output and
    an integer output; `n` and `act` are static."""
    h = params["w"] @ x + params["b"] + W.sum(axis=1)
    h = jnp.tanh(h) if act == "tanh" else jax.nn.relu(h)

    def step(c, _):
        c = jnp.sin(c) * 0.9 + h
        return c, c.sum()
    c, ys = lax.scan(step, h, None, length=n)
    return {"c": c, "ys": ys, "positive": jnp.sum(x > 0)}


def elementwise(x, y):
    return jnp.sin(x) * y + jnp.sum(x ** 2)


R = np.random.default_rng(0)
PARAMS = {"w": jnp.asarray(R.standard_normal((3, 4)).astype(np.float32) * 0.3),
          "b": jnp.asarray(R.standard_normal(3).astype(np.float32))}
X = jnp.asarray(R.standard_normal(4).astype(np.float32))
XS = jnp.asarray(R.standard_normal((5, 4)).astype(np.float32))
Y = jnp.asarray(R.standard_normal(4).astype(np.float32))


def loss(f):
    def loss(params, x):
        out = f(params, x, 3, act="relu")
        return jnp.sum(out["c"] ** 2) + out["ys"].sum() * 0.1
    return loss


TRANSFORMS = {
    "jit": lambda f: jax.jit(lambda p, x: f(p, x, 3))(PARAMS, X),
    "jit-kw": lambda f: jax.jit(lambda p, x: f(params=p, x=x, n=2, act="relu"))(PARAMS, X),
    "grad": lambda f: jax.grad(loss(f))(PARAMS, X),
    "grad-both": lambda f: jax.grad(loss(f), argnums=(0, 1))(PARAMS, X),
    "value_and_grad": lambda f: jax.value_and_grad(loss(f))(PARAMS, X),
    "jit-of-grad": lambda f: jax.jit(jax.grad(loss(f)))(PARAMS, X),
    "vmap": lambda f: jax.vmap(lambda x: f(PARAMS, x, 2))(XS),
    "vmap-params": lambda f: jax.vmap(lambda b, x: f({"w": PARAMS["w"], "b": b}, x, 2),
                                      in_axes=(0, None))(XS[:, :3], X),
    "grad-of-vmap": lambda f: jax.grad(lambda p: jax.vmap(lambda x: loss(f)(p, x))(XS).sum())(PARAMS),
    "vmap-of-grad": lambda f: jax.vmap(lambda x: jax.grad(loss(f))(PARAMS, x))(XS),
    "jit-vmap-grad": lambda f: jax.jit(jax.vmap(jax.grad(loss(f), argnums=1), in_axes=(None, 0)))(PARAMS, XS),
    "scan": lambda f: lax.scan(lambda c, x: (c + f(PARAMS, x + c, 2)["c"].sum(), f(PARAMS, x, 1)),
                               0.0, XS),
    "grad-of-scan": lambda f: jax.grad(
        lambda p: lax.scan(lambda c, x: (c * 0.5 + loss(f)(p, x + c), None), 0.0, XS)[0])(PARAMS),
    "checkpoint": lambda f: jax.grad(lambda p: jax.checkpoint(loss(f))(p, X))(PARAMS),
    "jvp": lambda f: jax.jvp(lambda x: f(PARAMS, x, 2)["c"], (X,), (Y,)),
    "jacrev": lambda f: jax.jacrev(lambda x: f(PARAMS, x, 2)["c"])(X),
}


def assert_close(got, want, rtol=2e-5, atol=2e-5):
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    assert got_tree == want_tree
    for g, w in zip(got_leaves, want_leaves):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transformations_match_jax_jit(cache_dir, name):
    transform = TRANSFORMS[name]
    want = transform(jax.jit(model, static_argnames=("n", "act")))
    got = transform(kiln.jit(model, static_argnames=("n", "act"), cache_dir=cache_dir))
    assert_close(got, want)


@pytest.mark.parametrize("name", ["jit", "grad", "vmap", "scan", "grad-of-vmap", "checkpoint"])
def test_kiln_code_is_what_runs(cache_dir, name):
    """Under jax.jit, the program's work is Kiln's custom calls: no
    FallbackWarning (an error here), kiln_call in the HLO."""
    f = kiln.jit(model, static_argnames=("n", "act"), cache_dir=cache_dir)
    transform = TRANSFORMS[name]
    text = jax.jit(lambda: transform(f)).lower().as_text()
    assert "custom_call @kiln_call" in text
    if name in ("jit", "vmap", "grad", "grad-of-vmap"):
        # The network's own ops run in Kiln, not in XLA.
        assert "stablehlo.tanh" not in text and "stablehlo.sine" not in text


def test_without_an_outer_jit_kiln_runs_eagerly(cache_dir):
    f = kiln.jit(elementwise, cache_dir=cache_dir)
    got = jax.grad(lambda x, y: f(x, y).sum(), argnums=(0, 1))(X, Y)
    want = jax.grad(lambda x, y: elementwise(x, y).sum(), argnums=(0, 1))(X, Y)
    assert_close(got, want)
    assert_close(jax.vmap(f)(XS, XS), jax.vmap(elementwise)(XS, XS))
    assert_close(jax.hessian(lambda x: f(x, Y).sum())(X), jax.hessian(lambda x: elementwise(x, Y).sum())(X),
                 rtol=1e-4, atol=1e-4)


def test_python_scalars_and_weak_types(cache_dir):
    f = kiln.jit(lambda a, b: a * b + 1, cache_dir=cache_dir)
    g = jax.jit(lambda a, b: a * b + 1)
    for args in [(X, 2.0), (X, 3), (2.0, X), (jnp.asarray(2.0), 3.0)]:
        got = jax.jit(lambda *a: f(*a))(*args)
        want = jax.jit(lambda *a: g(*a))(*args)
        assert got.dtype == want.dtype and getattr(got, "weak_type", None) == getattr(want, "weak_type", None)
        assert_close(got, want)
    assert_close(jax.grad(lambda s: f(X, s).sum())(2.0), jax.grad(lambda s: g(X, s).sum())(2.0))


def test_integer_inputs_and_outputs(cache_dir):
    def h(x, i):
        return x * i.astype(jnp.float32), i * 2, jnp.argmax(x)
    f = kiln.jit(h, cache_dir=cache_dir)
    i = jnp.arange(4, dtype=jnp.int32)
    assert_close(jax.jit(f)(X, i), jax.jit(h)(X, i))
    assert_close(jax.grad(lambda x: f(x, i)[0].sum())(X), jax.grad(lambda x: h(x, i)[0].sum())(X))
    assert_close(jax.vmap(f, in_axes=(0, None))(XS, i), jax.vmap(h, in_axes=(0, None))(XS, i))
    # JAX's errors, the same types: the gradient of an integer output, and
    # with respect to an integer input.
    for g in (h, f):
        with pytest.raises(TypeError, match="grad requires real-valued outputs"):
            jax.grad(lambda x: g(x, i)[1].sum())(X)
        with pytest.raises(TypeError, match="grad requires real- or complex-valued inputs"):
            jax.grad(lambda j: g(X, j)[0].sum())(i)


def test_static_argument_errors_under_jit(cache_dir):
    f = kiln.jit(model, static_argnames=("n", "act"), cache_dir=cache_dir)
    g = jax.jit(model, static_argnames=("n", "act"))
    errors = []
    for fun in (g, f):
        with pytest.raises(Exception) as e:
            jax.jit(lambda p, x: fun(p, x, [3]))(PARAMS, X)
        errors.append(e.value)
    assert type(errors[0]) is type(errors[1]) and str(errors[0]) == str(errors[1])


def test_nested_kiln_jit_functions(cache_dir):
    inner = kiln.jit(lambda v: jnp.cos(v) * 2, cache_dir=cache_dir)
    outer = kiln.jit(lambda v: inner(v) + inner(v * 2), cache_dir=cache_dir)
    plain = lambda v: jnp.cos(v) * 2 + jnp.cos(v * 2) * 2  # noqa: E731
    assert_close(outer(np.asarray(X)), np.asarray(plain(X)))
    # Traced for Kiln, the inner function is inlined: one program.
    assert "kiln_call" not in outer.lower(np.asarray(X)).jaxpr
    assert_close(jax.grad(lambda v: outer(v).sum())(X), jax.grad(lambda v: plain(v).sum())(X))
    assert str(jax.make_jaxpr(outer)(X)).count("kiln_call") == 1


def test_kiln_rewrite_and_kernel_inline_kiln_jit(cache_dir):
    inner = kiln.jit(lambda v: -(-v) * 3, cache_dir=cache_dir)
    r = kiln.rewrite(lambda v: inner(v) + 1)
    k = kiln.kernel(lambda v: inner(v) + 1)
    assert_close(jax.jit(r)(X), X * 3 + 1)
    assert_close(jax.jit(k)(X), X * 3 + 1)


def test_rules_apply_to_the_derivatives(cache_dir):
    rules = kiln.Rules.from_text("""
- name: neg-neg
  match: {root: 'lax.neg(lax.neg($x))'}
  rewrite: {root: $x}
""", name="negneg.yaml")
    f = kiln.jit(lambda v: -(-jnp.sin(v)), rules=rules, cache_dir=cache_dir)
    assert_close(jax.jit(jax.grad(lambda v: f(v).sum()))(X), jnp.cos(X))
    assert_close(jax.vmap(f)(XS), jnp.sin(XS))


def test_a_derivative_kiln_cannot_compile_is_evaluated_by_jax(cache_dir):
    # The transpose of a cond's JVP holds a primitive (empty2) that Kiln's
    # importer does not read: that derived function is JAX's, with a
    # warning once; the forward pass is still Kiln's.
    def h(v):
        return lax.cond(v.sum() > 0, lambda a: a * 2, lambda a: jnp.sin(a), v)
    f = kiln.jit(h, cache_dir=cache_dir)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got = jax.grad(lambda v: f(v).sum())(X)
        again = jax.grad(lambda v: f(v).sum())(X * 2)
    assert_close(got, jax.grad(lambda v: h(v).sum())(X))
    assert_close(again, jax.grad(lambda v: h(v).sum())(X * 2))
    fallbacks = [m for m in w if issubclass(m.category, kiln.FallbackWarning)]
    assert len(fallbacks) <= 1
    for m in fallbacks:
        assert "is evaluated by JAX, not compiled by Kiln" in str(m.message)


def test_function_kiln_cannot_import_raises_kiln_error_under_jit(cache_dir):
    # approx_top_k without aggregate_to_topk (a TPU-shaped partial result):
    # a form Kiln's importer refuses.
    f = kiln.jit(lambda v: jax.lax.approx_max_k(v, 2, aggregate_to_topk=False)[0],
                 cache_dir=cache_dir)
    eye = jnp.eye(3)
    with pytest.raises(kiln.JaxprImportError, match="approx_top_k"):
        f(np.asarray(eye))
    with pytest.raises(kiln.JaxprImportError, match="approx_top_k"):
        jax.jit(f)(eye)
