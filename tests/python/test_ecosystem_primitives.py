"""Primitives the JAX libraries emit, through kiln.jit against jax.jit."""
import numpy as np
import pytest

import jax
import jax.numpy as jnp

import kiln


def test_equinox_nondifferentiable_backward():
    eqx = pytest.importorskip("equinox")

    def f(x):
        return jnp.sin(eqx.internal.nondifferentiable_backward(x)) * 2

    assert "nondifferentiable_backward" in str(jax.make_jaxpr(f)(jnp.ones(3)))
    x = np.linspace(-1, 1, 5).astype(np.float32)
    np.testing.assert_allclose(kiln.jit(f, cache_dir=None)(x), np.asarray(jax.jit(f)(x)),
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("seed", [0, 3, -1, 2**31 - 1])
def test_random_seed_and_fold_in(seed):
    # jax.random.PRNGKey(s) traced (random_seed) and fold_in (random_fold_in):
    # the keys and the numbers drawn from them, bit for bit.
    def f(s, k):
        key = jax.random.PRNGKey(s)
        folded = jax.random.fold_in(k, 7)
        return (key, folded, jax.random.uniform(key, (5,)),
                jax.random.normal(folded, (2, 3)), jax.random.fold_in(key, s))

    text = str(jax.make_jaxpr(f)(seed, jax.random.PRNGKey(1)))
    assert "random_seed" in text and "random_fold_in" in text
    args = (np.int32(seed), np.asarray(jax.random.PRNGKey(5)))
    got = kiln.jit(f, cache_dir=None)(*args)
    want = jax.jit(f)(*args)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, np.asarray(w))


@pytest.mark.parametrize("dtype", [jnp.uint8, jnp.uint16, jnp.bfloat16, jnp.float16])
def test_narrow_random_bits(dtype):
    # random_bits of 8 and 16 bits (bf16/f16 samplers, narrow integer bits:
    # the importer took only 32): the bits and the numbers drawn from them,
    # bit for bit against jax.jit.
    def f(k):
        if jnp.issubdtype(dtype, jnp.integer):
            return jax.random.bits(k, (7, 3), dtype=dtype)
        return jax.random.normal(k, (64,), dtype=dtype), jax.random.uniform(k, (64,), dtype=dtype)

    text = str(jax.make_jaxpr(f)(jax.random.PRNGKey(0)))
    assert "bit_width=8" in text or "bit_width=16" in text  # bf16 draws 8 bits
    key = np.asarray(jax.random.PRNGKey(3))
    got, want = kiln.jit(f, cache_dir=None)(key), jax.jit(f)(key)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_random_seed_from_int64():
    with jax.enable_x64(True):
        f = lambda s: jax.random.PRNGKey(s)
        s = np.int64(2**40 + 12345)
        np.testing.assert_array_equal(kiln.jit(f, cache_dir=None)(s), np.asarray(jax.jit(f)(s)))


def test_empty2_in_the_gradient_of_a_cond():
    # The transpose of a cond's JVP makes the untaken branch's cotangents
    # with empty2 (a zero scalar broadcast).
    from jax import lax

    def f(x, y):
        return lax.cond(x.sum() > 0, lambda a, b: jnp.sin(a) * b, lambda a, b: a * 2.0, x, y).sum()

    g = jax.grad(f, argnums=(0, 1))
    assert "empty2" in str(jax.make_jaxpr(g)(jnp.ones(3), jnp.ones(3)))
    for shift in (0.5, -2.0):  # both branches
        x = (np.linspace(-1, 1, 3) + shift).astype(np.float32)
        for got, want in zip(kiln.jit(g, cache_dir=None)(x, x), jax.jit(g)(x, x)):
            np.testing.assert_allclose(got, np.asarray(want), rtol=1e-6, atol=1e-6)


def test_random_bits_and_split_on_key_arrays():
    # jax.vmap over keys: random_bits / random_split on key<fry>[B] (each key
    # hashes the same counters), bit for bit; normal draws through erf_inv.
    def f(keys):
        return (jax.vmap(lambda k: jax.random.split(k, 3))(keys),
                jax.vmap(jax.vmap(lambda k: jax.random.bits(k, (3,))))(keys.reshape(2, 2, 2)),
                jax.vmap(lambda k: jax.random.normal(k, (2, 5)))(keys))

    keys = jax.random.split(jax.random.PRNGKey(0), 4)
    text = str(jax.make_jaxpr(f)(keys))
    assert "random_split" in text and "key<fry>[4]" in text
    got = kiln.jit(f, cache_dir=None)(np.asarray(keys))
    want = jax.jit(f)(keys)
    np.testing.assert_array_equal(got[0], np.asarray(want[0]))
    np.testing.assert_array_equal(got[1], np.asarray(want[1]))
    np.testing.assert_allclose(got[2], np.asarray(want[2]), rtol=1e-6, atol=1e-6)


def test_unstack():
    # Unpacking an array (`a, b, c = x`) and jnp.unstack print `unstack`.
    def f(x):
        a, b, c = x
        return a * 2 + b - c, jnp.unstack(x, axis=1)[1]

    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert "unstack" in str(jax.make_jaxpr(f)(x))
    for got, want in zip(kiln.jit(f, cache_dir=None)(x), jax.jit(f)(x)):
        np.testing.assert_array_equal(got, np.asarray(want))


@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16, np.int32])
def test_total_order_comparisons(dtype):
    # eq_to / lt_to / le_to (searchsorted, jnp.interp, histograms): the IEEE
    # total order, -NaN < -inf < -0 < +0 < inf < NaN, bit for bit.
    from jax._src.lax.lax import eq_to_p, le_to_p, lt_to_p
    if dtype == np.int32:
        vals = np.array([-2**31, -5, -1, 0, 1, 7, 2**31 - 1], np.int32)
    else:
        vals = np.array([-np.nan, -np.inf, -1.5, -0.0, 0.0, 1e-40, 2.0, np.inf, np.nan],
                        np.float32).astype(dtype)
    x, y = np.repeat(vals, len(vals)), np.tile(vals, len(vals))
    f = lambda x, y: (lt_to_p.bind(x, y), le_to_p.bind(x, y), eq_to_p.bind(x, y))  # noqa: E731
    for got, want in zip(kiln.jit(f, cache_dir=None)(x, y), jax.jit(f)(x, y)):
        np.testing.assert_array_equal(got, np.asarray(want))


def test_searchsorted_and_interp():
    h = lambda s, v: (jnp.searchsorted(s, v), jnp.interp(v, s, s * 2))  # noqa: E731
    s = np.linspace(0, 1, 11).astype(np.float32)
    v = np.array([-1, 0, 0.05, 0.5, 0.99, 2, np.nan], np.float32)
    assert "lt_to" in str(jax.make_jaxpr(h)(s, v))
    for got, want in zip(kiln.jit(h, cache_dir=None)(s, v), jax.jit(h)(s, v)):
        np.testing.assert_array_equal(got, np.asarray(want))


def test_argmin_argmax_of_bools():
    f = lambda x: (jnp.argmin(x > 0), jnp.argmax(x > 0, axis=1))  # noqa: E731
    x = np.array([[1, -2, 3], [-1, -1, 2]], np.float32)
    for got, want in zip(kiln.jit(f, cache_dir=None)(x), jax.jit(f)(x)):
        np.testing.assert_array_equal(got, np.asarray(want))


def test_dimension_numbers_printed_as_range(tmp_path):
    # numpyro's transforms print `update_window_dims=range(0, 0)` inside
    # ScatterDimensionNumbers: Python's range, read as its integers.
    import os
    import subprocess
    f = lambda x, i, v: x.at[i].add(v)  # noqa: E731
    x, i, v = np.zeros(5, np.float32), np.array([1, 3, 1], np.int32), np.ones(3, np.float32)
    text = str(jax.make_jaxpr(f)(x, i, v))
    assert "update_window_dims=()" in text
    prog = tmp_path / "p.jaxpr"
    prog.write_text(text.replace("update_window_dims=()", "update_window_dims=range(0, 0)")
                    .replace("inserted_window_dims=(0,)", "inserted_window_dims=range(1)"))
    names = []
    for k, a in enumerate((x, i, v)):
        names.append(str(tmp_path / f"in{k}.npy"))
        np.save(names[-1], a)
    binary = os.path.join(os.environ.get("KILN_BIN", ""), "kiln-run")
    subprocess.run([binary, str(prog), "--interpret", "--inputs", ",".join(names),
                    "--outputs", str(tmp_path)], check=True, capture_output=True)
    np.testing.assert_array_equal(np.load(tmp_path / "out0.npy"), np.asarray(jax.jit(f)(x, i, v)))


def test_lgamma_and_digamma_as_xla_computes_them():
    # Gamma/Beta/Student-t log densities (distrax, numpyro) and their
    # gradients: XLA's Lanczos formulas, within a few ulp of jax.jit; the
    # poles, infinities and NaN exactly.
    from jax import lax
    x = np.concatenate([np.linspace(-4.5, 30, 3000),
                        [0, -1, -2, 1, 2, np.inf, -np.inf, np.nan, 1e-30, 0.5, -0.5]]).astype(np.float32)
    f = lambda x: (lax.lgamma(x), lax.digamma(x), jax.grad(lambda v: lax.lgamma(v).sum())(x))  # noqa: E731
    for got, want in zip(kiln.jit(f, cache_dir=None)(x), jax.jit(f)(x)):
        want = np.asarray(want)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        finite = np.isfinite(want)
        np.testing.assert_array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
        np.testing.assert_allclose(got[finite], want[finite], rtol=2e-5, atol=1e-5)
    # A Gamma log density against scipy's float64 values.
    from scipy import stats
    k, theta = np.float32(2.5), np.float32(1.5)
    xs = np.linspace(0.1, 10, 50).astype(np.float32)
    logpdf = lambda x: ((k - 1) * jnp.log(x) - x / theta - lax.lgamma(k) - k * jnp.log(theta))  # noqa: E731
    np.testing.assert_allclose(kiln.jit(logpdf, cache_dir=None)(xs),
                               stats.gamma.logpdf(xs.astype(np.float64), k, scale=theta),
                               rtol=1e-5, atol=1e-5)


def test_lineax_linear_solve_and_equinox_nontraceable():
    # lineax's linear_solve is an equinox filter primitive, printed with
    # Python objects as parameters: kiln.jit inlines its implementation
    # (_inline_primitives.py); lineax also wraps results in equinox's
    # nontraceable, an identity. Oracle: jax.jit and float64 numpy.
    lx = pytest.importorskip("lineax")
    rng = np.random.default_rng(5)
    a = (rng.normal(size=(6, 6)) + 6 * np.eye(6)).astype(np.float32)
    b = rng.normal(size=6).astype(np.float32)

    def solve(a, b):
        return lx.linear_solve(lx.MatrixLinearOperator(a), b, lx.LU(), throw=False).value

    got = np.asarray(kiln.jit(solve)(a, b))
    np.testing.assert_allclose(got, np.asarray(jax.jit(solve)(a, b)), rtol=1e-5, atol=1e-6)
    ref = np.linalg.solve(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)
    text = kiln.jit(solve).lower(a, b).as_text()
    assert "lax.lu" in text


def _bits(a):
    a = np.asarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _interpreted(f, *args):
    """f's jaxpr, imported by Kiln and run by the reference interpreter."""
    from kiln import _kiln
    text = str(jax.make_jaxpr(f)(*args))
    return _kiln.Program.from_jaxpr(text, "f.jaxpr").interpret("main", list(args))


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint32", "int64", "uint64"])
def test_clz(dtype):
    # Leading zeros of 0 (the width), 1, -1 (0), powers of two, extremes.
    with jax.enable_x64(True):
        info = np.iinfo(dtype)
        width = info.bits
        x = np.array([0, 1, 2, 3, info.max, info.min, info.max // 3] +
                     [1 << k for k in range(width - 1)], dtype=dtype)
        if info.min < 0:
            x = np.concatenate([x, np.array([-1, -2, info.min + 1], dtype=dtype)])
        f = lambda v: jax.lax.clz(v)
        want = np.asarray(jax.jit(f)(x))
        assert want[0] == width and want[1] == width - 1  # by hand: clz(0), clz(1)
        np.testing.assert_array_equal(kiln.jit(f, cache_dir=None)(x), want)
        np.testing.assert_array_equal(_interpreted(f, x)[0], want)


def _reduce_precision_inputs(dtype, rng):
    finfo = np.finfo(dtype)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, float(finfo.max), -float(finfo.max),
               float(finfo.tiny), float(finfo.tiny) / 4, 1.0, -1.0, 1.5, 1.0009765625,
               1.00048828125, 65504.0, 65520.0, 3.0e38 if dtype != np.float16 else 6.0e4]
    wide = rng.standard_normal(2000) * np.exp2(rng.integers(int(finfo.minexp) - 8,
                                                            int(finfo.maxexp), 2000))
    with np.errstate(over="ignore"):
        x = np.concatenate([np.array(special), wide]).astype(dtype)
    # Ties at every mantissa position: a one followed by zeros.
    bits = _bits(x).copy()
    width = x.dtype.itemsize * 8
    ties = [(np.uint64(0x3F800000) | np.uint64(1 << k)) for k in range(min(width, 23))]
    if dtype == np.float32:
        x = np.concatenate([x, np.array(ties, np.uint32).view(np.float32)])
    return x


@pytest.mark.parametrize("dtype,formats", [
    ("float32", [(8, 7), (5, 10), (4, 3), (5, 2), (8, 23), (11, 52), (2, 1), (1, 0), (8, 0)]),
    ("float16", [(5, 10), (4, 3), (5, 2), (3, 1), (8, 7)]),
    ("bfloat16", [(8, 7), (5, 2), (4, 3), (5, 10)]),
    ("float64", [(11, 52), (8, 23), (8, 7), (5, 10), (11, 20)]),
])
def test_reduce_precision(dtype, formats):
    # Bit for bit against jax.jit (XLA's ReducePrecision): ties, signed
    # zeros, infinities, NaNs, subnormals, values past the narrow range.
    import ml_dtypes
    with jax.enable_x64(dtype == "float64"):
        npdtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
        base = np.float32 if dtype == "bfloat16" else npdtype
        x = _reduce_precision_inputs(base, np.random.default_rng(7)).astype(npdtype)
        for e, m in formats:
            f = lambda v, e=e, m=m: jax.lax.reduce_precision(v, exponent_bits=e, mantissa_bits=m)
            want = _bits(jax.jit(f)(x))
            np.testing.assert_array_equal(_bits(kiln.jit(f, cache_dir=None)(x)), want,
                                          err_msg=f"{dtype} e{e}m{m}")
            np.testing.assert_array_equal(_bits(_interpreted(f, x)[0]), want,
                                          err_msg=f"{dtype} e{e}m{m} (interpreter)")


def test_reduce_precision_by_hand():
    # f32 -> bf16's format (8, 7): 1 + 2^-8 is a tie between 1 and 1 + 2^-7,
    # rounding to even gives 1; 1 + 3 * 2^-8 rounds up to 1 + 2^-6; and
    # (5, 10): 1e5 is past f16's 65504, so +inf; 1e-8 below its normals, so 0.
    f = lambda v, e, m: jax.lax.reduce_precision(v, exponent_bits=e, mantissa_bits=m)
    x = np.array([1 + 2.0**-8, 1 + 3 * 2.0**-8, -1e5, 1e-8], np.float32)
    np.testing.assert_array_equal(kiln.jit(lambda v: f(v, 8, 7), cache_dir=None)(x)[:2],
                                  [1.0, 1 + 2.0**-6])
    np.testing.assert_array_equal(kiln.jit(lambda v: f(v, 5, 10), cache_dir=None)(x)[2:],
                                  [-np.inf, 0.0])


#===--- zeta, bessel_i1e, polygamma (importer/JaxprSpecialFunctions.cpp) ---===#
# JAX lowers these to CHLO ops; Kiln's importer writes out XLA's expansions
# (Cephes' formulas) in lax ops. Measured against jax.jit on this host:
# f32 within about 25 ulp: measured up to 8 (i1e: XLA fuses the Chebyshev
# recurrence's t*b1 - b2 into an FMA where Kiln rounds twice, and which steps
# it fuses depends on the host); f64 within 5 ulp; special values exactly.
_SPECIAL_RTOL = {np.float32: 3e-6, np.float64: 1e-13}


def _assert_special_close(got, want, rtol, tiny=0.0, small_atol=0.0, what=""):
    """NaN where JAX gives NaN, +-inf where it gives them, finite values to
    `rtol`; results below `tiny` (sums of terms near the subnormals, which
    XLA's FMAs keep and Kiln flushes, or the interpreter keeps and XLA
    flushes) to an absolute `small_atol`."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape, what
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=what)
    inf = np.isinf(want)
    np.testing.assert_array_equal(got[inf], want[inf], err_msg=what)
    finite = np.isfinite(want)
    large = finite & (np.abs(want) >= tiny)
    np.testing.assert_allclose(got[large], want[large], rtol=rtol, atol=0, err_msg=what)
    np.testing.assert_allclose(got[finite & ~large], want[finite & ~large], rtol=0,
                               atol=small_atol, err_msg=what)


def _zeta_inputs(dtype):
    rng = np.random.default_rng(42)
    x = rng.uniform(1, 50, 400)
    x[::4] = np.round(x[::4])  # integer orders, as polygamma uses them
    q = rng.uniform(0, 100, 400)
    q[::5] = rng.uniform(0, 1, 80)  # near the first term's singularity
    special = [  # (x, q)
        (1, 1), (1, 3.5), (0.5, 1), (-2, 1), (0, 2),  # x = 1: inf; x < 1: NaN
        (2, 0), (2, -1), (4, -3), (3, -2), (3, 0),  # q a non-positive integer
        (2, -1.5), (2.5, -1.5), (3, -0.5), (2.5, 0),  # q < 0, x (not) integer
        (np.nan, 1), (2, np.nan), (np.inf, 2), (2, np.inf), (np.inf, 0.5), (1.0001, 1),
        (2, 1e-30), (50, 1e-3), (1.5, 1e10),
    ]
    x = np.concatenate([x, [s[0] for s in special]])
    q = np.concatenate([q, [s[1] for s in special]])
    return x.astype(dtype), q.astype(dtype)


@pytest.mark.parametrize("x64", [False, True])
def test_zeta_as_xla_computes_it(x64):
    with jax.enable_x64(x64):
        dtype = np.float64 if x64 else np.float32
        x, q = _zeta_inputs(dtype)
        f = lambda a, b: jax.lax.zeta(a, b)  # noqa: E731
        assert "zeta" in str(jax.make_jaxpr(f)(x, q))
        want = np.asarray(jax.jit(f)(x, q))
        got = kiln.jit(f, cache_dir=None)(x, q)
        near_subnormal = dict(tiny=1e-30, small_atol=1e-36) if not x64 else {}
        _assert_special_close(got, want, _SPECIAL_RTOL[dtype], **near_subnormal)
        # The interpreter keeps subnormals (XLA and kiln.jit flush them, which
        # decides zeta(inf, 0.5)): compared on the random inputs.
        _assert_special_close(_interpreted(f, x[:400], q[:400])[0], want[:400],
                              _SPECIAL_RTOL[dtype], **near_subnormal, what="interpreter")
        # The special cases are JAX's, not only alike: x = 1 is +inf, x < 1
        # NaN, a pole at q = -1 +inf for even x and NaN for odd x.
        assert np.isposinf(got[400]) and np.isnan(got[402])
        assert np.isposinf(got[406]) and np.isnan(got[408])
        # By hand: zeta(2, 1) = pi^2/6, zeta(4, 1) = pi^4/90, zeta(2, 1/2) = pi^2/2.
        g = kiln.jit(f, cache_dir=None)(np.array([2, 4, 2], dtype), np.array([1, 1, 0.5], dtype))
        np.testing.assert_allclose(g, [np.pi**2 / 6, np.pi**4 / 90, np.pi**2 / 2],
                                   rtol=_SPECIAL_RTOL[dtype])
        # Through jax.scipy.special.zeta (a custom_jvp around the primitive)
        # and its gradient in q, -x zeta(x + 1, q).
        xs, qs = np.linspace(1.5, 12, 64).astype(dtype), np.linspace(0.3, 20, 64).astype(dtype)
        h = lambda a, b: (jax.scipy.special.zeta(a, b),  # noqa: E731
                          jax.grad(lambda b: jax.scipy.special.zeta(a, b).sum())(b))
        for k, w in zip(kiln.jit(h, cache_dir=None)(xs, qs), jax.jit(h)(xs, qs)):
            _assert_special_close(k, w, 2 * _SPECIAL_RTOL[dtype])


@pytest.mark.parametrize("x64", [False, True])
def test_bessel_i1e_as_xla_computes_it(x64):
    with jax.enable_x64(x64):
        dtype = np.float64 if x64 else np.float32
        rng = np.random.default_rng(1)
        x = np.concatenate([rng.uniform(-100, 100, 300), rng.uniform(-10, 10, 100),
                            [0, -0.0, 1e-30, -1e-30, 1e-3, 8, -8, 7.999, 8.001, 1e5, -1e5,
                             3e38, np.inf, -np.inf, np.nan]]).astype(dtype)
        f = jax.lax.bessel_i1e
        want = np.asarray(jax.jit(f)(x))
        got = kiln.jit(f, cache_dir=None)(x)
        _assert_special_close(got, want, _SPECIAL_RTOL[dtype])
        _assert_special_close(_interpreted(f, x)[0], want, _SPECIAL_RTOL[dtype], what="interpreter")
        # By hand: i1e(0) = 0, odd, i1e(+-inf) = 0; against scipy's Cephes in f64.
        assert got[400] == 0 and got[412] == 0 and got[413] == 0
        from scipy import special
        np.testing.assert_allclose(got[:400], special.i1e(x[:400].astype(np.float64)),
                                   rtol=4 * _SPECIAL_RTOL[dtype], atol=0)
        # jax.scipy.special.i1e and its gradient (through i0e, which kiln.jit
        # inlines from JAX's implementation).
        xs = np.linspace(-30, 30, 121).astype(dtype)
        h = lambda v: (jax.scipy.special.i1e(v),  # noqa: E731
                       jax.grad(lambda v: jax.scipy.special.i1e(v).sum())(v))
        for k, w in zip(kiln.jit(h, cache_dir=None)(xs), jax.jit(h)(xs)):
            _assert_special_close(k, w, 1e-5 if not x64 else 1e-12)


@pytest.mark.parametrize("x64", [False, True])
def test_polygamma_as_xla_computes_it(x64):
    with jax.enable_x64(x64):
        dtype = np.float64 if x64 else np.float32
        rng = np.random.default_rng(2)
        x = np.concatenate([rng.uniform(0, 20, 200), [0.01, 0.5, 1, 2, 20, 0, -1, -0.5,
                                                      np.inf, np.nan]]).astype(dtype)
        rtol = {np.float32: 2e-6, np.float64: 1e-13}[dtype]  # lgamma and digamma: docs/lax-ops.md
        for n in [0, 1, 2, 3, 4]:
            f = lambda v, n=n: jax.scipy.special.polygamma(n, v)  # noqa: E731
            assert "polygamma" in str(jax.make_jaxpr(f)(x))
            want = np.asarray(jax.jit(f)(x))
            _assert_special_close(kiln.jit(f, cache_dir=None)(x), want, rtol, what=f"n={n}")
        # n as an array operand, including values that are not natural numbers (NaN).
        n = np.array([0, 1, 2, 3, 1.5, -1, 6, 2], dtype)
        v = np.array([1, 1, 1, 3.25, 1, 1, 0.7, 13], dtype)
        g = jax.lax.polygamma
        got = kiln.jit(g, cache_dir=None)(n, v)
        _assert_special_close(got, np.asarray(jax.jit(g)(n, v)), rtol)
        # By hand: psi(1) = -Euler's gamma, psi'(1) = pi^2/6, psi''(1) = -2 zeta(3).
        np.testing.assert_allclose(got[:3], [-0.5772156649015329, np.pi**2 / 6,
                                             -2.4041138063191885], rtol=rtol)
        assert np.isnan(got[4]) and np.isnan(got[5])
        # The gradient in x: polygamma(n + 1, x).
        xs = np.linspace(0.2, 15, 64).astype(dtype)
        h = jax.grad(lambda v: jax.scipy.special.polygamma(2, v).sum())
        _assert_special_close(kiln.jit(h, cache_dir=None)(xs), np.asarray(jax.jit(h)(xs)), rtol)


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16])
def test_special_functions_in_half_precision(dtype):
    # Computed in f32 and rounded once, as XLA does: within one ulp of the
    # narrow type (XLA's FMA can move the f32 value across a rounding tie).
    x, q = _zeta_inputs(np.float32)
    with np.errstate(over="ignore"):  # q = 1e10 is inf in f16
        x, q = x.astype(dtype), q.astype(dtype)
    eps = float(jnp.finfo(dtype).eps)
    for f, args in [(jax.lax.zeta, (x, q)), (jax.lax.bessel_i1e, (x * 3 - 60,)),
                    (lambda v: jax.scipy.special.polygamma(1, v), (q,))]:
        got, want = kiln.jit(f, cache_dir=None)(*args), jax.jit(f)(*args)
        assert np.asarray(got).dtype == np.asarray(want).dtype
        _assert_special_close(np.asarray(got, np.float32), np.asarray(want, np.float32), eps,
                              tiny=float(jnp.finfo(dtype).tiny),
                              small_atol=float(jnp.finfo(dtype).smallest_subnormal))
