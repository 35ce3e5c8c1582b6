"""kiln.filter_jit against equinox.filter_jit: the same results on the same
inputs (array leaves traced, every other leaf static, non-array outputs
returned as traced), the cache keyed by the static leaves' values."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kiln

eqx = pytest.importorskip("equinox")

RTOL, ATOL = 1e-6, 1e-7


def K(seed):
    return jax.random.PRNGKey(seed)


def normal(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def assert_same(got, want):
    """Leaf by leaf: floats close, integers and bools exact, non-arrays
    equal (or the same object)."""
    g_leaves, g_tree = jax.tree_util.tree_flatten(got)
    w_leaves, w_tree = jax.tree_util.tree_flatten(want)
    assert g_tree == w_tree, (g_tree, w_tree)
    for g, w in zip(g_leaves, w_leaves):
        if eqx.is_array(w):
            assert eqx.is_array(g), (g, w)
            g, w = np.asarray(g), np.asarray(w)
            assert g.shape == w.shape and g.dtype == w.dtype, (g, w)
            if np.issubdtype(w.dtype, np.inexact):
                np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)
            else:
                np.testing.assert_array_equal(g, w)
        else:
            assert g is w or (type(g) is type(w) and g == w), (g, w)


def both(fun, *args, **kw):
    """fun's results under kiln.filter_jit and eqx.filter_jit."""
    return kiln.filter_jit(fun)(*args, **kw), eqx.filter_jit(fun)(*args, **kw)


def apply(model, x):
    return model(x)


def test_mlp_forward(cache_dir):
    model = eqx.nn.MLP(5, 3, 16, 2, key=K(0))
    x = normal(5)
    f = kiln.filter_jit(apply, cache_dir=cache_dir)
    assert_same(f(model, x), eqx.filter_jit(apply)(model, x))
    batched = lambda m, x: jax.vmap(m)(x)  # noqa: E731
    assert_same(*both(batched, model, normal(7, 5, seed=1)))


class Scaled(eqx.Module):
    """Python number and bool fields and a function field: static leaves
    under eqx.filter_jit, not traced."""
    linear: eqx.nn.Linear
    scale: float
    repeat: int
    flip: bool
    activation: object

    def __call__(self, x):
        for _ in range(self.repeat):  # a traced int would not range()
            x = self.activation(self.linear(x)) * self.scale
        return -x if self.flip else x  # a traced bool would not branch


def test_module_with_python_fields(cache_dir):
    x = normal(4, seed=2)
    for scale, repeat, flip in [(0.5, 2, True), (2.0, 1, False)]:
        m = Scaled(eqx.nn.Linear(4, 4, key=K(1)), scale, repeat, flip, jax.nn.relu)
        got = kiln.filter_jit(apply, cache_dir=cache_dir)(m, x)
        assert_same(got, eqx.filter_jit(apply)(m, x))


@pytest.mark.parametrize("make", [
    lambda: eqx.nn.MaxPool2d(2, 2),
    lambda: eqx.nn.AvgPool2d(3, 1, padding=1),
    lambda: eqx.nn.Conv2d(3, 4, 3, padding=1, key=K(2)),
    lambda: eqx.nn.Sequential([eqx.nn.Conv2d(3, 4, 3, key=K(3)), eqx.nn.Lambda(jax.nn.relu),
                               eqx.nn.MaxPool2d(2, 2)]),
], ids=["maxpool", "avgpool", "conv", "conv_relu_pool"])
def test_pool_and_conv(make, cache_dir):
    """MaxPool2d's init value and padding are Python numbers: traced by
    kiln.jit (reduce_window's dtypes would disagree), static here."""
    layer, img = make(), normal(3, 8, 8, seed=3)
    assert_same(kiln.filter_jit(apply, cache_dir=cache_dir)(layer, img),
                eqx.filter_jit(apply)(layer, img))


def mixed(x, n):
    return x * n, "label", n, jax.nn.relu, {"none": None, "half": x / 2, "s": "t"}


def test_non_array_outputs(cache_dir):
    x = normal(3, seed=4)
    f = kiln.filter_jit(mixed, cache_dir=cache_dir)
    got, want = f(x, 3), eqx.filter_jit(mixed)(x, 3)
    assert_same(got, want)
    assert got[3] is jax.nn.relu and got[1] == "label" and type(got[2]) is int
    assert_same(f(x, 3), want)  # again, from the cache (the C++ fast path)


def test_only_static_outputs(cache_dir):
    f = kiln.filter_jit(lambda x, n: ("n", n), cache_dir=cache_dir)
    assert f(normal(2), 4) == ("n", 4)


def test_cache_static_numbers(cache_dir):
    x = normal(4, seed=5)

    def f(x, n, scale):
        return sum(x * scale for _ in range(n))
    k = kiln.filter_jit(f, cache_dir=cache_dir)
    e = eqx.filter_jit(f)
    for n, scale in [(2, 0.5), (3, 0.5), (3, 2.0), (3, 2)]:
        assert_same(k(x, n, scale), e(x, n, scale))
    assert k._cache_size() == 4  # 2.0 and 2 differ (jax.jit's rule)
    for n, scale in [(2, 0.5), (3, 2.0), (3, 2)]:
        assert_same(k(x, n, scale), e(x, n, scale))
        assert_same(k(x, n=n, scale=scale), e(x, n=n, scale=scale))
    assert k._cache_size() == 4
    assert_same(k(normal(6, seed=6), 2, 0.5), e(normal(6, seed=6), 2, 0.5))  # a new shape
    assert k._cache_size() == 5


def test_decorator_forms_and_lower(cache_dir):
    @kiln.filter_jit
    def f(x, n):
        return x + n

    @kiln.filter_jit(cache_dir=cache_dir)
    def g(x, n):
        return x - n

    x = normal(3)
    np.testing.assert_allclose(f(x, 1), x + 1)
    np.testing.assert_allclose(g(x, 1), x - 1)
    assert f.__name__ == "f" and isinstance(f, kiln.Jitted)
    lowered = g.lower(x, 2)
    assert "sub" in lowered.as_text() and "f32[3]" in lowered.jaxpr
    np.testing.assert_allclose(lowered.compile()(x, 2), x - 2)
    np.testing.assert_allclose(g(x, 2), x - 2)
    assert g._cache_size() == 2  # n=1, and n=2 (lower().compile() filled it)


def test_return_jax_arrays(cache_dir):
    f = kiln.filter_jit(mixed, cache_dir=cache_dir, return_jax_arrays=True)
    x = normal(3, seed=7)
    for _ in range(2):
        out = f(x, 2)
        assert isinstance(out[0], jax.Array) and isinstance(out[4]["half"], jax.Array)
        assert out[1] == "label"
    assert_same(out, eqx.filter_jit(mixed)(x, 2))


def test_errors():
    with pytest.raises(ValueError, match="static_argnums"):
        kiln.filter_jit(mixed, static_argnums=1)
    with pytest.raises(ValueError, match="donate"):
        kiln.filter_jit(mixed, donate="some")
    with pytest.raises(TypeError, match="callable"):
        kiln.filter_jit(3)


def test_donate(cache_dir):
    def step(a, b):
        return a + 1, b * 2
    a, b = jnp.ones(3), jnp.ones(3)
    out = kiln.filter_jit(step, donate="all-except-first", cache_dir=cache_dir)(a, b)
    assert not a.is_deleted() and b.is_deleted()
    np.testing.assert_allclose(out[1], 2.0)
    a = jnp.ones(3)
    kiln.filter_jit(step, donate="all", cache_dir=cache_dir)(a, jnp.ones(3))
    assert a.is_deleted()


def test_under_jax_grad(cache_dir):
    """Under a JAX transformation (a kiln_call), the static outputs come
    back as well."""
    f = kiln.filter_jit(lambda w, x, act: (jnp.sum(act(w * x)), "tag"), cache_dir=cache_dir)
    w, x = normal(4, seed=8), normal(4, seed=9)
    g = jax.grad(lambda w: f(w, x, jnp.tanh)[0])(w)
    np.testing.assert_allclose(g, (1 - np.tanh(w * x) ** 2) * x, rtol=1e-5, atol=1e-6)


def test_train_step_adam(cache_dir):
    optax = pytest.importorskip("optax")
    opt = optax.adam(1e-2)

    def step(model, opt_state, x, y):
        def loss(m):
            return jnp.mean((jax.vmap(m)(x) - y) ** 2)
        value, grads = eqx.filter_value_and_grad(loss)(model)
        updates, opt_state = opt.update(grads, opt_state, eqx.filter(model, eqx.is_inexact_array))
        return value, eqx.apply_updates(model, updates), opt_state

    model = eqx.nn.MLP(4, 1, 16, 2, key=K(9))
    state = opt.init(eqx.filter(model, eqx.is_inexact_array))
    x, y = normal(32, 4, seed=10), normal(32, 1, seed=11)
    k, e = kiln.filter_jit(step, cache_dir=cache_dir), eqx.filter_jit(step)
    km, ks, em, es = model, state, model, state
    for _ in range(3):  # the outputs fed back in: the same signature
        kv, km, ks = k(km, ks, x, y)
        ev, em, es = e(em, es, x, y)
        assert_same((kv, km, ks), (ev, em, es))
    assert k._cache_size() == 1
    assert km.activation is model.activation  # a static leaf, as traced


def test_static_number_on_the_fast_path(cache_dir):
    """A Python number passed again (the same object) takes the C++ fast
    path; another value is not passed as an array: it compiles again."""
    f = kiln.filter_jit(lambda x, n: x * n, cache_dir=cache_dir)
    x = normal(3, seed=12)
    for n in (3, 3, 3, 4, 4, 3, True, 2.5):
        got = f(x, n)
        assert_same(got, x * np.float32(n))
    assert f._num_fast_paths >= 1 and f._cache_size() == 4


def test_typed_keys(cache_dir):
    def g(k, x):
        return jax.random.split(k), jax.random.normal(k, x.shape) + x, "s"
    k, x = jax.random.key(0), normal(3, seed=13)
    f = kiln.filter_jit(g, cache_dir=cache_dir)
    want = eqx.filter_jit(g)(k, x)
    for _ in range(2):
        got = f(k, x)
        assert got[0].dtype == want[0].dtype and got[2] == "s"
        np.testing.assert_array_equal(jax.random.key_data(got[0]), jax.random.key_data(want[0]))
        np.testing.assert_allclose(got[1], want[1], rtol=RTOL, atol=ATOL)


def test_method_of_a_module(cache_dir):
    class M(eqx.Module):
        w: jax.Array
        s: float

        @kiln.filter_jit
        def __call__(self, x):
            return self.w * x * self.s
    m, x = M(jnp.arange(3.0), 2.0), normal(3, seed=14)
    np.testing.assert_allclose(m(x), np.arange(3.0) * x * 2.0, rtol=RTOL, atol=ATOL)
