"""Python peers of the seed workloads: numpy, Numba (serial and parallel) and
PyTorch, each a function taking numpy inputs and returning a numpy output.
Thread counts are pinned by bench/harness.py before these run."""
import numpy as np

try:
    import numba
except ImportError:  # the harness reports the peer as missing
    numba = None
try:
    import torch
except ImportError:
    torch = None
try:  # on the GPU machine
    import jax
    import jax.numpy as jnp
except ImportError:
    jax = None


# --- W1: seed 000, out[..., i] = sum_k a[..., k] w[i, k] --------------------
def w1_numpy_einsum(w, a):
    return np.einsum("ab,...b->...a", w, a)


def w1_numpy_matmul(w, a):
    return (a.reshape(-1, a.shape[-1]) @ w.T).reshape(a.shape[:-1] + (w.shape[0],))


def w1_torch(w, a):
    tw, ta = torch.from_numpy(w), torch.from_numpy(a)
    with torch.no_grad():
        return torch.matmul(ta, tw.T).numpy()


# --- W2: seed 003, TDMA on rows ----------------------------------------------
def w2_numpy(a, b, c, d):
    """The seed's vectorised NumPy version (loop over the system size)."""
    b = b.copy()
    d = d.copy()
    n = a.shape[-1]
    for i in range(1, n):
        w = a[..., i] / b[..., i - 1]
        b[..., i] += -w * c[..., i - 1]
        d[..., i] += -w * d[..., i - 1]
    out = np.empty_like(a)
    out[..., -1] = d[..., -1] / b[..., -1]
    for i in range(n - 2, -1, -1):
        out[..., i] = (d[..., i] - c[..., i] * out[..., i + 1]) / b[..., i]
    return out


def _tdma_row(a, b, c, d, out, cp, dp):
    n = a.shape[0]
    lcp = 0.0
    ldp = 0.0
    for i in range(n):
        inv = 1.0 / (b[i] - a[i] * lcp)
        lcp = c[i] * inv
        ldp = (d[i] - a[i] * ldp) * inv
        cp[i] = lcp
        dp[i] = ldp
    x = 0.0
    for i in range(n - 1, -1, -1):
        x = dp[i] - cp[i] * x
        out[i] = x


if numba is not None:
    _tdma_row_jit = numba.njit(cache=False, fastmath=False)(_tdma_row)

    @numba.njit(parallel=False)
    def _w2_numba_serial(a, b, c, d, out):
        cp = np.empty(a.shape[1], a.dtype)
        dp = np.empty(a.shape[1], a.dtype)
        for s in range(a.shape[0]):
            _tdma_row_jit(a[s], b[s], c[s], d[s], out[s], cp, dp)

    @numba.njit(parallel=True)
    def _w2_numba_parallel(a, b, c, d, out):
        for s in numba.prange(a.shape[0]):
            cp = np.empty(a.shape[1], a.dtype)
            dp = np.empty(a.shape[1], a.dtype)
            _tdma_row_jit(a[s], b[s], c[s], d[s], out[s], cp, dp)


def w2_numba_serial(a, b, c, d):
    out = np.empty_like(a)
    _w2_numba_serial(a, b, c, d, out)
    return out


def w2_numba_parallel(a, b, c, d):
    out = np.empty_like(a)
    _w2_numba_parallel(a, b, c, d, out)
    return out


# --- W3: seed 002, mean((y - scan(...).ys) ** 2) with ys = cos(xs) ----------
def w3_numpy_materialized(xs, y):
    ys = np.cos(xs)  # the stacked output the scan materialises
    return np.asarray(np.mean((y - ys) ** 2), dtype=np.float32)


def w3_numpy_fused(xs, y):
    """Hand push-up in NumPy: accumulate per step, no stacked output."""
    total = 0.0
    for i in range(xs.shape[0]):
        e = y[i] - np.cos(xs[i])
        total += float(np.dot(e.ravel(), e.ravel()))
    return np.asarray(total / xs.size, dtype=np.float32)


# --- W4: seed 004, MLP 4-64-64-2, one call -----------------------------------
def w4_numpy(x, w1, b1, w2, b2, w3, b3):
    h = np.maximum(w1 @ x + b1, 0)
    h = np.maximum(w2 @ h + b2, 0)
    return w3 @ h + b3


def make_w4_torch(w1, b1, w2, b2, w3, b3):
    tw = [torch.from_numpy(t) for t in (w1, b1, w2, b2, w3, b3)]

    def mlp(x, w1, b1, w2, b2, w3, b3):
        h = torch.relu(torch.mv(w1, x) + b1)
        h = torch.relu(torch.mv(w2, h) + b2)
        return torch.mv(w3, h) + b3

    scripted = torch.jit.script(mlp)

    def call(x):
        with torch.no_grad():
            return scripted(x, *tw)

    return call


def w2_jax():
    """Seed 003 as the seed writes it in JAX (transposes, a forward scan, a
    reversed back-substitution scan), jitted."""
    def tdma(a, b, c, d):
        at, bt, ct, dt = (x.T for x in (a, b, c, d))
        zero = jnp.zeros(a.shape[0], a.dtype)

        def forward(carry, x):
            cp, dp = carry
            ai, bi, ci, di = x
            den = bi - ai * cp
            cn, dn = ci / den, (di - ai * dp) / den
            return (cn, dn), (cn, dn)

        _, (cps, dps) = jax.lax.scan(forward, (zero, zero), (at, bt, ct, dt))

        def backward(x, y):
            cpi, dpi = y
            xn = dpi - cpi * x
            return xn, xn

        _, xs = jax.lax.scan(backward, zero, (cps[::-1], dps[::-1]))
        return xs[::-1].T

    return jax.jit(tdma)


def w1_jax():
    """Seed 000's f2 (the einsum form), jitted."""
    return jax.jit(lambda w, a: jnp.einsum("ab,...b->...a", w, a))
