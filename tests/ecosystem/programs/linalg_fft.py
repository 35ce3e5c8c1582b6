"""Linear algebra (jnp.linalg, jax.scipy.linalg), jax.scipy (special,
stats, signal, ndimage, optimize, integrate) and FFT (jnp.fft) programs,
as numerical users write them: Gaussian processes, least squares, spectral
methods, convolutions."""

import jax
import jax.numpy as jnp
import jax.scipy as jsp
import jax.scipy.linalg as jsl
import numpy as np

from ecosystem import normal, program, spd, uniform

# ----- jnp.linalg ------------------------------------------------------------------


@program("linalg_solve_inv_det", "jnp.linalg",
         args=lambda: (normal(6, 6, seed=400) + 3 * np.eye(6, dtype=np.float32), normal(6, 2, seed=401)),
         rtol=5e-4, atol=5e-5, note="solve, inv, det, slogdet of a general matrix (LU)")
def linalg_solve_inv_det(a, b):
    sign, logdet = jnp.linalg.slogdet(a)
    return jnp.linalg.solve(a, b), jnp.linalg.inv(a), jnp.linalg.det(a), sign, logdet


@program("linalg_cholesky", "jnp.linalg", args=lambda: (spd(8, seed=402),), rtol=2e-4, atol=2e-5,
         note="jnp.linalg.cholesky of an SPD matrix")
def linalg_cholesky(a):
    return jnp.linalg.cholesky(a)


@program("linalg_qr", "jnp.linalg", args=lambda: (normal(8, 5, seed=403),), rtol=5e-4, atol=5e-5,
         note="reduced QR; returns Q R (unique up to signs) and |diag R|")
def linalg_qr(a):
    q, r = jnp.linalg.qr(a)
    return q @ r, jnp.abs(jnp.diag(r)), q.T @ q


@program("linalg_eigh", "jnp.linalg", args=lambda: (spd(6, seed=404),), rtol=5e-4, atol=5e-5,
         note="symmetric eigenvalues and the reconstruction V diag(w) V^T")
def linalg_eigh(a):
    w, v = jnp.linalg.eigh(a)
    return w, (v * w) @ v.T


@program("linalg_svd", "jnp.linalg", args=lambda: (normal(7, 4, seed=405),), rtol=5e-4, atol=5e-5,
         note="singular values, low-rank reconstruction, matrix_rank, cond")
def linalg_svd(a):
    u, s, vt = jnp.linalg.svd(a, full_matrices=False)
    return s, (u[:, :2] * s[:2]) @ vt[:2], jnp.linalg.matrix_rank(a), jnp.linalg.cond(a)


@program("linalg_lstsq_pinv", "jnp.linalg", args=lambda: (normal(12, 4, seed=406), normal(12, seed=407)),
         rtol=5e-4, atol=5e-5, note="jnp.linalg.lstsq and pinv (SVD based)")
def linalg_lstsq_pinv(a, b):
    x, resid, rank, sv = jnp.linalg.lstsq(a, b)
    return x, jnp.linalg.pinv(a) @ b, sv


@program("linalg_norms_matrix_power", "jnp.linalg", args=lambda: (0.4 * normal(5, 5, seed=408),),
         rtol=2e-4, atol=2e-5, note="vector/matrix norms (fro, nuc, 2, inf), matrix_power, multi_dot")
def linalg_norms_matrix_power(a):
    return (jnp.linalg.norm(a), jnp.linalg.norm(a, "nuc"), jnp.linalg.norm(a, 2),
            jnp.linalg.norm(a, jnp.inf), jnp.linalg.norm(a, axis=1),
            jnp.linalg.matrix_power(a, 5), jnp.linalg.multi_dot([a, a.T, a]))


@program("linalg_eig_general", "jnp.linalg", args=lambda: (normal(4, 4, seed=409),), rtol=5e-4, atol=5e-5,
         note="eigenvalues of a non-symmetric matrix (complex64), sorted by real part")
def linalg_eig_general(a):
    w = jnp.linalg.eigvals(a)
    return jnp.sort_complex(w)


@program("linalg_batched_solve", "jnp.linalg",
         args=lambda: (normal(5, 3, 3, seed=410) + 2 * np.eye(3, dtype=np.float32), normal(5, 3, seed=411)),
         rtol=5e-4, atol=5e-5, note="a batch of 5 small solves and determinants")
def linalg_batched_solve(a, b):
    return jnp.linalg.solve(a, b[..., None])[..., 0], jnp.linalg.det(a)


# ----- jax.scipy.linalg -------------------------------------------------------------------


def _gp_args():
    x = np.linspace(0, 5, 20).astype(np.float32)
    y = (np.sin(x) + 0.1 * normal(20, seed=412)).astype(np.float32)
    xs = np.linspace(0, 5, 7).astype(np.float32)
    return x, y, xs, np.float32(0.8)


@program("scipy_gp_posterior", "jax.scipy", args=_gp_args, rtol=1e-3, atol=1e-4,
         note="GP regression: RBF kernel, cho_factor/cho_solve, predictive mean/var, log marginal")
def scipy_gp_posterior(x, y, xs, ell):
    def k(a, b):
        return jnp.exp(-0.5 * (a[:, None] - b[None, :]) ** 2 / ell ** 2)
    K = k(x, x) + 0.01 * jnp.eye(x.shape[0])
    c, low = jsl.cho_factor(K, lower=True)
    alpha = jsl.cho_solve((c, low), y)
    ks = k(xs, x)
    mean = ks @ alpha
    v = jsl.solve_triangular(c, ks.T, lower=True)
    var = 1.0 - jnp.sum(v ** 2, axis=0)
    lml = -0.5 * y @ alpha - jnp.sum(jnp.log(jnp.diag(c))) - 0.5 * x.shape[0] * jnp.log(2 * jnp.pi)
    return mean, var, lml


@program("scipy_gp_hyper_grad", "jax.scipy", args=_gp_args, rtol=2e-3, atol=2e-4,
         note="gradient of the GP log marginal likelihood w.r.t. the length scale (cholesky grads)")
def scipy_gp_hyper_grad(x, y, xs, ell):
    def lml(ell):
        K = jnp.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / ell ** 2) + 0.01 * jnp.eye(x.shape[0])
        L = jnp.linalg.cholesky(K)
        alpha = jsl.cho_solve((L, True), y)
        return -0.5 * y @ alpha - jnp.sum(jnp.log(jnp.diag(L)))
    return jax.value_and_grad(lml)(ell)


@program("scipy_lu_factor_solve", "jax.scipy",
         args=lambda: (normal(5, 5, seed=413) + 2 * np.eye(5, dtype=np.float32), normal(5, 3, seed=414)),
         rtol=5e-4, atol=5e-5, note="jsl.lu_factor + lu_solve; jsl.lu's P L U reconstruction")
def scipy_lu_factor_solve(a, b):
    lu, piv = jsl.lu_factor(a)
    p, l, u = jsl.lu(a)
    return jsl.lu_solve((lu, piv), b), p @ l @ u


@program("scipy_expm", "jax.scipy", args=lambda: (0.3 * normal(4, 4, seed=415),), rtol=5e-4, atol=5e-5,
         note="jsl.expm (Pade, scaling and squaring) and expm of a skew matrix (rotation)")
def scipy_expm(a):
    skew = a - a.T
    r = jsl.expm(skew)
    return jsl.expm(a), r @ r.T


@program("scipy_solve_triangular_sylvester", "jax.scipy",
         args=lambda: (normal(5, 5, seed=416), normal(5, 2, seed=417)), rtol=5e-4, atol=5e-5,
         note="solve_triangular (lower, upper, transposed), block_diag, jsl.solve assume_a=pos")
def scipy_solve_triangular_sylvester(a, b):
    low = jnp.tril(a) + 4 * jnp.eye(5)
    up = jnp.triu(a) + 4 * jnp.eye(5)
    pos = a @ a.T + jnp.eye(5)
    return (jsl.solve_triangular(low, b, lower=True), jsl.solve_triangular(up, b, trans=1),
            jsl.block_diag(low[:2, :2], up[:3, :3]), jsl.solve(pos, b, assume_a="pos"))


# ----- jax.scipy: special, stats, signal, ndimage, optimize, integrate ---------------


@program("scipy_special_functions", "jax.scipy",
         args=lambda: (uniform(16, seed=418, low=0.1, high=4.0), uniform(16, seed=419, low=0.05, high=0.95)),
         rtol=5e-4, atol=5e-5,
         note="gammaln, digamma, erf, erfc, erfinv, ndtri, xlogy, logit/expit, i0e, betainc, gammainc")
def scipy_special_functions(x, u):
    sp = jsp.special
    return jnp.stack([sp.gammaln(x), sp.digamma(x), sp.erf(x - 2), sp.erfc(x - 2), sp.erfinv(2 * u - 1),
                      sp.ndtri(u), sp.xlogy(x, u), sp.logit(u), sp.expit(x - 2), sp.i0e(x),
                      sp.betainc(2.0, 3.0, u), sp.gammainc(2.0, x), sp.log_ndtr(x - 2),
                      sp.entr(u)])


@program("scipy_logsumexp_softmax", "jax.scipy", args=lambda: (normal(6, 9, seed=420, scale=5.0),),
         note="logsumexp (axis, b weights, return_sign), softmax, log_softmax")
def scipy_logsumexp_softmax(x):
    lse, sign = jsp.special.logsumexp(x, axis=1, b=jnp.cos(x), return_sign=True)
    return (jsp.special.logsumexp(x, axis=0), lse, sign, jax.nn.softmax(x, axis=-1),
            jax.nn.log_softmax(x, axis=0))


@program("scipy_stats_logpdfs", "jax.scipy",
         args=lambda: (normal(10, seed=421), uniform(10, seed=422, low=0.1, high=0.9), normal(10, 3, seed=423)),
         rtol=5e-4, atol=5e-5, note="norm, t, gamma, beta, poisson, multivariate_normal logpdf/cdf")
def scipy_stats_logpdfs(x, u, xs):
    st = jsp.stats
    cov = jnp.array([[1.0, 0.3, 0.0], [0.3, 2.0, 0.5], [0.0, 0.5, 1.5]])
    return (st.norm.logpdf(x, 0.5, 1.5), st.norm.cdf(x), st.t.logpdf(x, 3.0), st.gamma.logpdf(u, 2.0),
            st.beta.logpdf(u, 2.0, 5.0), st.poisson.logpmf(jnp.round(4 * u), 2.0),
            st.multivariate_normal.logpdf(xs, jnp.zeros(3), cov), st.laplace.logpdf(x))


@program("scipy_signal_convolve", "jax.scipy", args=lambda: (normal(64, seed=424), normal(9, seed=425),
                                                             normal(12, 12, seed=426), normal(3, 3, seed=427)),
         rtol=5e-4, atol=5e-5, note="jsp.signal.convolve / correlate (1-D full, 2-D same), fftconvolve")
def scipy_signal_convolve(x, k, img, k2):
    sig = jsp.signal
    return (sig.convolve(x, k, mode="full"), sig.correlate(x, k, mode="valid"),
            sig.convolve2d(img, k2, mode="same"), sig.fftconvolve(x, k, mode="same"))


@program("scipy_ndimage_map_coordinates", "jax.scipy",
         args=lambda: (normal(10, 12, seed=428), uniform(2, 30, seed=429, low=0.0, high=9.0)),
         rtol=2e-4, atol=2e-5, note="jsp.ndimage.map_coordinates, linear interpolation (gathers)")
def scipy_ndimage_map_coordinates(img, coords):
    return (jsp.ndimage.map_coordinates(img, [coords[0], coords[1]], order=1, mode="nearest"),
            jsp.ndimage.map_coordinates(img, [coords[0], coords[1]], order=0, mode="constant"))


@program("scipy_optimize_bfgs", "jax.scipy", args=lambda: (np.array([-1.0, 1.5, 0.3], np.float32),),
         rtol=1e-3, atol=1e-4, note="jax.scipy.optimize.minimize(method='BFGS') on a quadratic+quartic")
def scipy_optimize_bfgs(x0):
    def f(x):
        return jnp.sum((x - jnp.array([1.0, -2.0, 0.5])) ** 2) + 0.1 * jnp.sum(x ** 4)
    res = jsp.optimize.minimize(f, x0, method="BFGS", tol=1e-6)
    return res.x, res.fun


@program("scipy_integrate_trapezoid_cumsum", "jax.scipy", args=lambda: (uniform(50, seed=430, high=3.0),),
         rtol=2e-4, atol=2e-5, note="trapezoid over sorted samples, interp, cumulative sums")
def scipy_integrate_trapezoid_cumsum(x):
    xs = jnp.sort(x)
    ys = jnp.exp(-xs) * jnp.sin(3 * xs)
    grid = jnp.linspace(0.0, 3.0, 11)
    return (jsp.integrate.trapezoid(ys, xs), jnp.interp(grid, xs, ys),
            jnp.cumsum(ys) * (xs[-1] - xs[0]) / xs.shape[0])


@program("scipy_cdist_kmeans_step", "jax.scipy", args=lambda: (normal(40, 2, seed=431), normal(3, 2, seed=432)),
         rtol=2e-4, atol=2e-5, note="one k-means step: pairwise distances, argmin, segment means")
def scipy_cdist_kmeans_step(x, centers):
    d = jnp.sum((x[:, None, :] - centers[None]) ** 2, -1)
    assign = jnp.argmin(d, axis=1)
    sums = jax.ops.segment_sum(x, assign, 3)
    counts = jax.ops.segment_sum(jnp.ones(40), assign, 3)
    return assign, sums / jnp.maximum(counts, 1)[:, None]


# ----- jnp.fft ---------------------------------------------------------------------------


@program("fft_rfft_irfft_roundtrip", "jnp.fft", args=lambda: (normal(4, 64, seed=440),), rtol=5e-4, atol=5e-5,
         note="rfft power spectrum, irfft round trip, a low-pass filter")
def fft_rfft_irfft_roundtrip(x):
    X = jnp.fft.rfft(x, axis=-1)
    power = jnp.abs(X) ** 2
    low = jnp.where(jnp.arange(X.shape[-1]) < 8, X, 0)
    return power, jnp.fft.irfft(X, n=64), jnp.fft.irfft(low, n=64)


@program("fft_complex_fft_ifft", "jnp.fft", args=lambda: (normal(32, seed=441), normal(32, seed=442)),
         rtol=5e-4, atol=5e-5, note="complex64 fft/ifft, fftshift, real/imag/angle")
def fft_complex_fft_ifft(re, im):
    z = re + 1j * im
    Z = jnp.fft.fft(z)
    return jnp.fft.fftshift(jnp.abs(Z)), jnp.real(jnp.fft.ifft(Z)), jnp.angle(Z[:5])


@program("fft_conv_via_fft", "jnp.fft", args=lambda: (normal(100, seed=443), normal(17, seed=444)),
         rtol=5e-4, atol=5e-5, note="linear convolution through zero-padded rfft products")
def fft_conv_via_fft(x, k):
    n = x.shape[0] + k.shape[0] - 1
    return jnp.fft.irfft(jnp.fft.rfft(x, n) * jnp.fft.rfft(k, n), n)


@program("fft_2d_spectral_poisson", "jnp.fft", args=lambda: (normal(16, 16, seed=445),), rtol=5e-4, atol=5e-5,
         note="a periodic Poisson solve: fft2, divide by -|k|^2 (fftfreq), ifft2")
def fft_2d_spectral_poisson(f):
    k = 2 * jnp.pi * jnp.fft.fftfreq(16, d=1.0 / 16)
    k2 = k[:, None] ** 2 + k[None, :] ** 2
    F = jnp.fft.fft2(f - f.mean())
    U = jnp.where(k2 == 0, 0, -F / jnp.where(k2 == 0, 1, k2))
    return jnp.real(jnp.fft.ifft2(U))


@program("fft_spectral_derivative", "jnp.fft", args=lambda: (np.linspace(0, 2 * np.pi, 64, endpoint=False).astype(np.float32),),
         rtol=5e-4, atol=5e-5, note="d/dx of a periodic signal by rfft * i k and irfft")
def fft_spectral_derivative(x):
    u = jnp.sin(3 * x) + 0.5 * jnp.cos(5 * x)
    k = jnp.fft.rfftfreq(64, d=1.0 / 64)
    return jnp.fft.irfft(1j * k * jnp.fft.rfft(u), n=64)


@program("fft_fftn_3d", "jnp.fft", args=lambda: (normal(8, 8, 8, seed=446),), rtol=5e-4, atol=5e-5,
         note="fftn/ifftn over three axes, rfftn/irfftn")
def fft_fftn_3d(x):
    return (jnp.abs(jnp.fft.fftn(x)), jnp.real(jnp.fft.ifftn(jnp.fft.fftn(x))),
            jnp.fft.irfftn(jnp.fft.rfftn(x), s=x.shape))


@program("fft_stft_frames", "jnp.fft", args=lambda: (normal(256, seed=447),), rtol=5e-4, atol=5e-5,
         note="a short-time Fourier transform: framed signal, Hann window, rfft magnitudes")
def fft_stft_frames(x):
    win, hop = 32, 16
    idx = jnp.arange(win)[None, :] + hop * jnp.arange((256 - win) // hop + 1)[:, None]
    frames = x[idx] * jnp.hanning(win)
    return jnp.abs(jnp.fft.rfft(frames, axis=-1))


@program("fft_grad_through_rfft", "jnp.fft", args=lambda: (normal(48, seed=448),), rtol=1e-3, atol=1e-4,
         note="gradient of a spectral loss through rfft (its transpose)")
def fft_grad_through_rfft(x):
    target = jnp.exp(-jnp.arange(25.0) / 5)
    return jax.grad(lambda x: jnp.sum((jnp.abs(jnp.fft.rfft(x)) - target) ** 2))(x)


@program("fft_split_step_schrodinger", "jnp.fft",
         args=lambda: (normal(64, seed=445), normal(64, seed=446)),
         rtol=1e-3, atol=1e-4,
         note="split-step Fourier NLS integrator: a complex field carried through lax.scan")
def fft_split_step_schrodinger(re, im):
    # i psi_t = -psi_xx / 2 + |psi|^2 psi on a periodic grid of 64 points.
    psi = (re + 1j * im) * jnp.exp(-jnp.linspace(-3, 3, 64) ** 2)
    k = 2 * jnp.pi * jnp.fft.fftfreq(64, d=0.1)
    dt = 1e-3
    half_linear = jnp.exp(-0.25j * dt * k ** 2)

    def step(field, _):
        field = jnp.fft.ifft(half_linear * jnp.fft.fft(field))
        field = field * jnp.exp(-1j * dt * jnp.abs(field) ** 2)
        field = jnp.fft.ifft(half_linear * jnp.fft.fft(field))
        return field, jnp.sum(jnp.abs(field) ** 2)

    final, norms = jax.lax.scan(step, psi.astype(jnp.complex64), None, length=20)
    return final, norms
