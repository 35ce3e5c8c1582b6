"""Complex values (complex64/complex128) and jnp.fft through kiln.jit,
against jax.jit and numpy's float64 FFT. Kiln holds a complex value as two
real arrays (kiln/_complex.py): complex arguments and results cross the
boundary as their interleaved real views."""
import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

import kiln


def _normal(shape, seed, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _cnormal(shape, seed):
    return (_normal(shape, seed) + 1j * _normal(shape, seed + 1)).astype(np.complex64)


def _close(got, want, tol=2e-5):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.dtype, want.dtype)
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


def _check(f, *args, tol=2e-5):
    got = jax.tree_util.tree_leaves(kiln.jit(f, cache_dir=None)(*args))
    want = jax.tree_util.tree_leaves(jax.jit(f)(*args))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _close(g, w, tol)


def test_complex_arguments_and_results():
    z, w = _cnormal((5, 7), 0), _cnormal((5, 7), 2)
    f = lambda a, b: (a * b, a / b, a + 1j * b, jnp.conj(a) - b, jnp.abs(a), jnp.real(a * b),
                      jnp.imag(a), jnp.exp(a / 4), jnp.log(a), jnp.sqrt(a), a ** 3, jnp.angle(b),
                      (a == a).all(), a @ b.T, jnp.sum(a, axis=0), jnp.where(jnp.abs(a) > 1, a, b))
    _check(f, z, w, tol=1e-5)


def test_complex_structure_ops():
    z = _cnormal((4, 6), 4)
    idx = np.array([3, 0, 2], np.int32)
    f = lambda a, i: (a.T.reshape(3, 8), a[1:, ::2], jnp.concatenate([a, a[::-1]], 0), a[i],
                      jnp.pad(a, ((1, 0), (0, 2))), jnp.broadcast_to(a[0], (3, 6)),
                      a.at[i].add(1j), lax.dynamic_slice(a, (i[0], 1), (1, 4)), jnp.cumsum(a, 1))
    _check(f, z, idx)


@pytest.mark.parametrize("n", [1, 8, 31, 64, 100, 127, 128, 1000, 4096, 6000, 8192])
def test_fft_kinds_against_numpy(n):
    x = _normal((3, n), n)
    z = _cnormal((3, n), n)
    f = lambda x, z: (jnp.fft.fft(z), jnp.fft.ifft(z), jnp.fft.rfft(x), jnp.fft.irfft(jnp.fft.rfft(x), n),
                      jnp.fft.irfft(z[:, : n // 2 + 1], n))
    got = kiln.jit(f, cache_dir=None)(x, z)
    x64, z64 = x.astype(np.float64), z.astype(np.complex128)
    want = (np.fft.fft(z64), np.fft.ifft(z64), np.fft.rfft(x64), x64,
            np.fft.irfft(z64[:, : n // 2 + 1], n))
    xla = jax.jit(f)(x, z)
    for g, w, xl in zip(got, want, xla):
        g, xl = np.asarray(g), np.asarray(xl)
        assert g.dtype == xl.dtype
        err, xla_err = np.abs(g - w).max(), np.abs(xl - w).max()
        # Matrix products per factor of the length: about XLA's FFT's rounding.
        assert err <= max(8 * xla_err, 1e-5 * max(1.0, np.abs(w).max())), (err, xla_err)


def test_fft_length_with_a_large_prime_factor_is_a_clear_error():
    for n in (4099, 2 * 4099):
        with pytest.raises(kiln.Error, match="prime factor above 4096"):
            kiln.jit(jnp.fft.fft, cache_dir=None)(_cnormal((n,), 0))


def test_fft_nd_and_axes():
    x = _normal((6, 8, 10), 9)
    f = lambda x: (jnp.fft.fftn(x), jnp.fft.rfftn(x), jnp.fft.irfftn(jnp.fft.rfftn(x), s=x.shape),
                   jnp.fft.fft(x, axis=1), jnp.fft.fft2(x, axes=(0, 2)), jnp.fft.ifftshift(x))
    _check(f, x, tol=2e-5)


def test_grad_through_fft():
    x = _normal((48,), 5)
    f = lambda x: jax.grad(lambda v: jnp.sum(jnp.abs(jnp.fft.rfft(v) * (1 + 2j)) ** 2))(x)
    _check(f, x, tol=1e-4)


def test_rewrite_with_complex():
    z = _cnormal((8,), 3)
    f = lambda a: jnp.fft.fft(a) * 2j
    _close(jax.jit(kiln.rewrite(f))(z), jax.jit(f)(z), 1e-5)


def test_complex_carry_in_fori_loop_and_scan():
    """A phasor rotated step by step (carry), its trajectory stacked (ys),
    and complex slices scanned over."""
    def f(z, theta, zs):
        rot = lax.fori_loop(0, 7, lambda i, c: c * jnp.exp(1j * theta * (i + 1)), z)

        def step(c, x):
            c = c * x + 0.5j
            return c, (c, jnp.abs(c))
        last, (traj, mags) = lax.scan(step, z, zs)
        back = lax.scan(lambda c, x: (c + x, c * 2), z, zs, reverse=True)
        return rot, last, traj, mags, back

    _check(f, _cnormal((3,), 1), np.float32(0.3), 0.5 * _cnormal((6, 3), 4))


def test_mandelbrot_while_loop():
    """Escape-time counts: a while loop with a complex carry and a complex
    predicate input, also under vmap (a batched predicate)."""
    def escape(c):
        def cond(s):
            z, n = s
            return (jnp.abs(z) <= 2) & (n < 40)

        def body(s):
            z, n = s
            return z * z + c, n + 1
        return lax.while_loop(cond, body, (jnp.zeros_like(c), 0))[1]

    re, im = np.meshgrid(np.linspace(-2, 0.5, 9), np.linspace(-1.2, 1.2, 7))
    grid = (re + 1j * im).astype(np.complex64)
    got = kiln.jit(jax.vmap(escape), cache_dir=None)(grid.ravel())
    np.testing.assert_array_equal(got, jax.jit(jax.vmap(escape))(grid.ravel()))
    assert kiln.jit(escape, cache_dir=None)(np.complex64(0.25 + 0.6j)) == \
        jax.jit(escape)(np.complex64(0.25 + 0.6j))


def test_complex_in_cond_branches_and_switch():
    def f(z, k):
        a = lax.cond(jnp.real(z).sum() > 0, lambda w: w * 1j, lambda w: jnp.conj(w), z)
        b = lax.switch(k, [lambda w: w + 1, lambda w: w * w, lambda w: jnp.exp(w)], z)
        return a, b

    for k in range(3):
        _check(f, _cnormal((5,), 2), np.int32(k))
        _check(f, -_cnormal((5,), 2), np.int32(k))


def test_fft_inside_a_scan_over_real_data():
    """Real carries and slices, complex values only inside the body."""
    def f(xs):
        def step(c, x):
            spectrum = jnp.fft.rfft(x)
            return c + jnp.abs(spectrum) ** 2, jnp.fft.irfft(spectrum * 1j, n=x.shape[0])
        return lax.scan(step, jnp.zeros(9), xs)

    _check(f, _normal((5, 16), 3), tol=5e-5)


def test_gradient_through_a_complex_scan():
    def loss(w, zs):
        def step(c, z):
            c = c * jnp.exp(1j * w) + z
            return c, jnp.abs(c) ** 2
        _, ys = lax.scan(step, jnp.complex64(0), zs)
        return ys.sum()

    _check(jax.value_and_grad(loss), np.float32(0.4), _cnormal((8,), 6), tol=5e-5)


def test_complex_in_other_bodies_is_a_clear_error():
    # A custom linear solve on complex values: its solve jaxpr is no loop.
    def f(b):
        return lax.custom_linear_solve(lambda x: 2 * x, b, lambda mv, r: r / 2)
    with pytest.raises(kiln.Error, match="complex values in 'custom_linear_solve'"):
        kiln.jit(f, cache_dir=None)(_cnormal((4,), 1))


def test_sort_complex():
    # JAX orders complex numbers by real part, then imaginary part.
    z = (np.round(_normal((40,), 7)) + 1j * _normal((40,), 8)).astype(np.complex64)
    _check(lambda a: (jnp.sort_complex(a), jnp.sort(a), jnp.argsort(a)), z)


def test_complex_scalars_keep_their_shape():
    # A 0-d complex argument crosses as a [2] view and comes back 0-d.
    for z in (np.complex64(1 + 2j), np.array(3 - 1j, np.complex64)):
        got = kiln.jit(lambda a: (a * 2, jnp.abs(a)), cache_dir=None)(z)
        assert got[0].shape == () and got[0].dtype == np.complex64 and got[0] == 2 * z
        assert got[1].shape == () and np.isclose(got[1], abs(z))
