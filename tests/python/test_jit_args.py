"""kiln.jit's static and donated arguments against jax.jit's: the same
results, the same errors (types and messages), the same arrays deleted."""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kiln


def same_error(make_jax, make_kiln):
    """Both raise, the same type with the same message."""
    with pytest.raises(Exception) as want:
        make_jax()
    with pytest.raises(Exception) as got:
        make_kiln()
    assert type(got.value) is type(want.value), (got.value, want.value)
    assert str(got.value) == str(want.value)
    return got.value


def both(fun, cache_dir, **kw):
    return jax.jit(fun, **kw), kiln.jit(fun, cache_dir=cache_dir, **kw)


def f(x, n, *, mode="sum", scale=1.0):
    y = x * len(n) * scale
    return y.sum() if mode == "sum" else {"y": y, "neg": -y}


X = np.arange(6, dtype=np.float32).reshape(2, 3)


@pytest.mark.parametrize("kw", [
    dict(static_argnames="n"), dict(static_argnums=1), dict(static_argnames=("n", "mode")),
    dict(static_argnums=1, static_argnames="mode"),
])
def test_static_arguments_by_position_and_keyword(cache_dir, kw):
    jf, kf = both(f, cache_dir, **kw)
    calls = [((X, (1, 2)), {}), ((X,), {"n": (1, 2, 3)}), ((), {"x": X, "n": (1,)})]
    if "mode" in kw.get("static_argnames", ()):
        calls.append(((X, (1,)), {"mode": "tree"}))
        calls.append(((X,), {"n": (1, 2), "mode": "tree", "scale": 2.0}))
    for args, kwargs in calls:
        want = jf(*args, **kwargs)
        got = kf(*args, **kwargs)
        jax.tree_util.tree_map(lambda g, w: np.testing.assert_allclose(g, w, rtol=1e-6), got, want)


def test_static_names_and_numbers_complete_each_other(cache_dir):
    for kw in [dict(static_argnames="n"), dict(static_argnums=1), dict(static_argnums=-1),
               dict(static_argnames=["n", "mode"]), dict(donate_argnums=0),
               dict(donate_argnames="x")]:
        kf = kiln.jit(f, cache_dir=cache_dir, **kw)
        nums, names = ("donate_argnums", "donate_argnames") if "donate" in str(kw) else \
            ("static_argnums", "static_argnames")
        # What jax.jit resolves, read from its own resolution.
        from jax._src.api_util import fun_signature, resolve_argnums
        d_nums, d_names, s_nums, s_names = resolve_argnums(
            f, fun_signature(f), kw.get("donate_argnums"), kw.get("donate_argnames"),
            kw.get("static_argnums"), kw.get("static_argnames"))
        want = {"static_argnums": s_nums, "static_argnames": s_names,
                "donate_argnums": d_nums, "donate_argnames": d_names}
        assert getattr(kf, nums) == want[nums] and getattr(kf, names) == want[names], kw


def test_static_values_of_other_types_are_other_signatures(cache_dir):
    traces = []

    def g(x, n):
        traces.append(type(n))
        return x * n

    kf = kiln.jit(g, static_argnums=1, cache_dir=cache_dir)
    x = np.ones(3, np.float32)
    for n in (2, 2.0, 2, True, 2.0):
        np.testing.assert_array_equal(kf(x, n), jax.jit(g, static_argnums=1)(x, n))
    assert traces.count(int) == 2 and traces.count(float) == 2 and traces.count(bool) == 2


@pytest.mark.parametrize("call", ["positional", "keyword"])
@pytest.mark.parametrize("kw", [dict(static_argnums=1), dict(static_argnames="n")])
def test_unhashable_static_argument_is_jax_error(cache_dir, call, kw):
    jf, kf = both(f, cache_dir, **kw)
    if call == "positional":
        same_error(lambda: jf(X, [1, 2]), lambda: kf(X, [1, 2]))
    else:
        same_error(lambda: jf(X, n=[1, 2]), lambda: kf(X, n=[1, 2]))


@pytest.mark.parametrize("kw", [
    dict(static_argnames="zz"), dict(static_argnums=5), dict(static_argnums=-4),
    dict(donate_argnames="zz"), dict(donate_argnums=3),
    dict(static_argnums=1, donate_argnums=1), dict(static_argnames="n", donate_argnames="n"),
    dict(static_argnums="n"), dict(static_argnames=1),
])
def test_bad_argnums_and_argnames_are_jax_errors(cache_dir, kw):
    same_error(lambda: jax.jit(f, **kw), lambda: kiln.jit(f, cache_dir=cache_dir, **kw))


def test_positional_only_names_are_refused(cache_dir):
    def g(x, /, n):
        return x * n
    same_error(lambda: jax.jit(g, static_argnames="x"),
               lambda: kiln.jit(g, static_argnames="x", cache_dir=cache_dir))


def test_static_argnums_beyond_varargs_are_ignored(cache_dir):
    def g(*xs):
        return xs[0] + 1
    x = np.ones(2, np.float32)
    np.testing.assert_array_equal(kiln.jit(g, static_argnums=3, cache_dir=cache_dir)(x),
                                  jax.jit(g, static_argnums=3)(x))


def test_keyword_only_static_argument(cache_dir):
    jf, kf = both(f, cache_dir, static_argnames=("mode",))
    # n is not static: a tuple of ints is a pytree of traced scalars.
    for mode in ("sum", "tree", "sum"):
        want = jf(X, (1, 2), mode=mode)
        got = kf(X, (1, 2), mode=mode)
        jax.tree_util.tree_map(lambda g, w: np.testing.assert_allclose(g, w), got, want)


# -- donation ------------------------------------------------------------------

def g(x, y):
    return x * 2.0 + y


def donated_state(fun, make_args, call, **kw):
    """Runs `fun` under jax.jit and kiln.jit with fresh arguments; returns
    (results, which JAX array leaves were deleted, warnings) of each."""
    out = []
    for jit in (jax.jit, kiln.jit):
        args, kwargs = make_args()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            result = call(jit(fun, **kw), args, kwargs)
        leaves = jax.tree_util.tree_leaves((args, kwargs))
        deleted = [x.is_deleted() if isinstance(x, jax.Array) else None for x in leaves]
        messages = sorted(str(m.message) for m in w if "donated" in str(m.message))
        out.append((result, deleted, messages))
    return out


@pytest.mark.parametrize("kw,call", [
    (dict(donate_argnums=0), lambda h, a, k: h(*a, **k)),
    (dict(donate_argnames="x"), lambda h, a, k: h(*a, **k)),
    (dict(donate_argnums=0), lambda h, a, k: h(y=a[1], x=a[0])),
    (dict(donate_argnums=(0, 1)), lambda h, a, k: h(*a, **k)),
])
def test_donated_jax_arrays_are_deleted_as_jax_does(kw, call):
    def make():
        return (jnp.ones((2, 3)), jnp.arange(6.0).reshape(2, 3)), {}
    (want, want_del, want_warn), (got, got_del, got_warn) = donated_state(g, make, call, **kw)
    np.testing.assert_array_equal(got, want)
    assert got_del == want_del and got_warn == want_warn


def test_donation_pairs_outputs_by_shape_and_dtype():
    def h(t):
        return t["a"] * 2, t["c"].astype(jnp.int32), t["b"].sum()

    def make():
        return ({"a": jnp.ones(2), "b": jnp.ones(3), "c": jnp.ones(4, jnp.float32),
                 "d": jnp.ones(2)},), {}
    (want, want_del, want_warn), (got, got_del, got_warn) = donated_state(
        h, make, lambda j, a, k: j(*a), donate_argnums=0)
    # "a" goes to the first output (same shape and dtype), "c" to the second
    # (as many elements), "b" to none: jax.jit warns; "d" is not read: not
    # donated, no warning.
    assert want_del == got_del == [True, False, True, False]
    assert got_warn == want_warn and len(got_warn) == 1 and "float32[3]." in got_warn[0]
    jax.tree_util.tree_map(np.testing.assert_array_equal, got, want)


def test_donated_numpy_arrays_are_untouched(cache_dir):
    x = np.ones(3, np.float32)
    kf = kiln.jit(lambda x: x + 1, donate_argnums=0, cache_dir=cache_dir)
    for _ in range(3):
        np.testing.assert_array_equal(kf(x), [2, 2, 2])
    np.testing.assert_array_equal(x, [1, 1, 1])


def test_a_donated_array_cannot_be_used_again(cache_dir):
    jf, kf = both(lambda x: x + 1, cache_dir, donate_argnums=0)
    xs = [jnp.ones(3), jnp.ones(3)]
    jf(xs[0])
    kf(xs[1])
    # jax.jit's first call with a deleted array (its C++ path, once warm,
    # raises XLA's "Buffer has been deleted or donated" ValueError).
    same_error(lambda: jax.jit(lambda x: x + 1)(xs[0]), lambda: kf(xs[1]))
    # Every later call (the C++ path included) sees it deleted too.
    for _ in range(3):
        x = jnp.ones(3)
        np.testing.assert_array_equal(kf(x), [2, 2, 2])
        assert x.is_deleted()
        with pytest.raises(RuntimeError, match="Array has been deleted"):
            kf(x)


# -- deleted arrays ----------------------------------------------------------------

@pytest.mark.parametrize("wrap", [lambda a: a, lambda a: {"w": a}, lambda a: [a, (a,)]],
                         ids=["array", "dict", "nested"])
def test_deleted_array_inside_a_pytree_raises_as_jax(cache_dir, wrap):
    fun = lambda t, x: jax.tree_util.tree_leaves(t)[0] * x  # noqa: E731
    x = np.ones(3, np.float32)
    kf = kiln.jit(fun, cache_dir=cache_dir)
    a = jnp.ones(3)
    a.delete()
    same_error(lambda: jax.jit(fun)(wrap(a), x), lambda: kf(wrap(a), x))
    # A deleted array the function saw before (a compiled signature; a
    # top-level JAX array goes to the C++ path, which refuses it).
    b = jnp.full(3, 2.0)
    tree = wrap(b)
    kf(tree, x)
    b.delete()
    same_error(lambda: jax.jit(fun)(tree, x), lambda: kf(tree, x))


def test_deleted_array_in_a_pytree_on_the_cpp_path(cache_dir):
    kf = kiln.jit(lambda p, x: p["w"] * x, cache_dir=cache_dir)
    params, x = {"w": jnp.ones(3)}, np.ones(3, np.float32)
    for _ in range(3):
        kf(params, x)
    assert kf._num_fast_paths == 1  # the dict is walked in C++, its array held
    params["w"].delete()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        kf(params, x)
