"""Complex numbers as pairs of real arrays, before Kiln imports a jaxpr.

Kiln's lax types are real. A traced function whose values are complex
(``jnp.fft``, ``1j * x``, spectral methods) is re-traced by
``lower_complex`` with every complex value held as two real arrays (its
real and imaginary parts) and every primitive on complex values written in
real JAX operations: arithmetic by its formulas, structural primitives
(reshape, slice, gather, select_n, ...) applied to both parts, dot_general
as real products, ``eig`` of a real matrix as Kiln's ``kiln_eig`` (its
parts), and ``fft`` as discrete Fourier transforms by matrix
products with exact cos/sin tables (computed in float64), one axis at a
time: lengths up to ``DIRECT_FFT_LENGTH`` (and primes) by one product,
longer ones split into factors (four-step Cooley-Tukey), each factor at
most ``MAX_FFT_LENGTH``. Loops and branches (scan, while, cond) are
re-traced by lax.scan, lax.while_loop and lax.switch with Pairs (pytrees)
in their carries and operands and their bodies evaluated the same way.

At the boundary of a kiln.jit function, a complex argument or result is
its interleaved real view (``float32[..., 2]`` for ``complex64``, the same
memory), converted by ``split``/``join`` (kiln/_jit.py's trace).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _kiln
from ._jaxpr import jax_core

# Transforms up to this length are one matrix product (n x n tables);
# longer ones split into factors (four-step), each factor at most
# MAX_FFT_LENGTH.
DIRECT_FFT_LENGTH = 64
MAX_FFT_LENGTH = 4096

# Primitives applied to both parts alike, with the same parameters: linear
# in their (complex) data operands, the other operands (indices,
# predicates, pad values handled below) real.
_COMPONENTWISE = frozenset({
    "add", "sub", "neg", "add_any", "reshape", "transpose", "broadcast_in_dim", "squeeze",
    "expand_dims", "slice", "rev", "concatenate", "dynamic_slice", "dynamic_update_slice",
    "gather", "select_n", "copy", "copy_p", "reduce_sum", "cumsum", "stop_gradient",
    "optimization_barrier", "scatter-add", "scatter_add", "scatter", "split", "device_put",
})
# Call-like primitives: the body is evaluated in place.
_CALLS = {"pjit": "jaxpr", "jit": "jaxpr", "closed_call": "call_jaxpr", "core_call": "call_jaxpr",
          "custom_jvp_call": "call_jaxpr", "custom_vjp_call": "call_jaxpr",
          "checkpoint": "jaxpr", "remat": "jaxpr"}


class Pair:
    """A complex value as its real and imaginary parts (real arrays)."""
    __slots__ = ("re", "im")

    def __init__(self, re, im):
        self.re, self.im = re, im


_pair_registered = False


def _register_pair():
    """Pair as a pytree (loops and branches carry Pairs), on first use."""
    global _pair_registered
    if not _pair_registered:
        _jax().tree_util.register_pytree_node(Pair, lambda p: ((p.re, p.im), None),
                                              lambda _, parts: Pair(*parts))
        _pair_registered = True


def _jax():
    import jax
    return jax


def is_complex_dtype(dtype) -> bool:
    try:
        return np.issubdtype(np.dtype(dtype), np.complexfloating)
    except TypeError:  # an extended dtype (key<fry>)
        return False


def real_dtype(dtype):
    return np.finfo(np.dtype(dtype)).dtype


def _has_complex(jaxpr) -> bool:
    from ._jaxpr import subjaxprs
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
    variables = list(jaxpr.invars) + list(jaxpr.constvars) + list(jaxpr.outvars)
    for eqn in jaxpr.eqns:
        variables += list(eqn.invars) + list(eqn.outvars)
        for value in eqn.params.values():
            if any(_has_complex(j) for j in subjaxprs(value)):
                return True
    return any(hasattr(v, "aval") and hasattr(v.aval, "dtype") and is_complex_dtype(v.aval.dtype)
               for v in variables)


def split(x):
    """A complex array as its interleaved real view [..., 2] (numpy: the same
    memory)."""
    if isinstance(x, np.ndarray) or np.isscalar(x):
        # asarray keeps a 0-d array 0-d (ascontiguousarray makes it 1-d);
        # a view of another itemsize needs an axis to widen.
        x = np.asarray(x, order="C")
        return x.reshape(x.shape + (1,)).view(real_dtype(x.dtype))
    jnp = _jax().numpy
    return jnp.stack([jnp.real(x), jnp.imag(x)], axis=-1)


def join(x, dtype):
    """The complex array of dtype `dtype` whose interleaved view is `x`."""
    if isinstance(x, np.ndarray):
        x = np.asarray(x, order="C")
        return x.view(np.dtype(dtype)).reshape(x.shape[:-1])
    return _jax().lax.complex(x[..., 0], x[..., 1])


def lower_complex(closed):
    """`closed` (a ClosedJaxpr) itself when no value in it is complex, else
    the same function re-traced on real arrays. Its inputs and outputs must
    be real (kiln/_jit.py splits complex arguments and results)."""
    if not _has_complex(closed):
        return closed
    _register_pair()
    jax = _jax()
    for v in list(closed.jaxpr.invars) + list(closed.jaxpr.outvars):
        if hasattr(v.aval, "dtype") and is_complex_dtype(v.aval.dtype):
            raise _kiln.Error("kiln: internal error: a complex input or output reached "
                              "lower_complex")
    avals = [jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
             for a in closed.in_avals]
    return jax.make_jaxpr(lambda *args: _evaluate(closed.jaxpr, closed.consts, args))(*avals)


def _evaluate(jaxpr, consts, args) -> list:
    core = jax_core()
    env: dict[Any, Any] = {}

    def read(v):
        if not isinstance(v, core.Literal):
            return env[v]
        if _is_complex_var(v):  # 1j:c64[]: the parts in the literal's real type
            value = np.asarray(v.val, v.aval.dtype)
            return Pair(np.real(value), np.imag(value))
        return v.val

    for v, c in zip(jaxpr.constvars, consts):
        if is_complex_dtype(np.asarray(c).dtype):
            c = np.asarray(c)
            c = Pair(np.real(c), np.imag(c))
        env[v] = c
    for v, a in zip(jaxpr.invars, args):
        env[v] = a
    for eqn in jaxpr.eqns:
        invals = [read(v) for v in eqn.invars]
        outs = _apply(eqn, invals)
        for v, o in zip(eqn.outvars, outs):
            if not isinstance(v, core.DropVar):
                env[v] = o
    return [read(v) for v in jaxpr.outvars]


def _is_complex_var(v) -> bool:
    return hasattr(v, "aval") and hasattr(v.aval, "dtype") and is_complex_dtype(v.aval.dtype)


def _apply(eqn, xs) -> list:
    """The results of `eqn` on `xs` (Pairs for complex values)."""
    from ._jaxpr import subjaxprs
    name = eqn.primitive.name
    complex_here = any(isinstance(x, Pair) for x in xs) or any(map(_is_complex_var, eqn.outvars))
    if name in _CALLS:
        body = eqn.params[_CALLS[name]]
        body = getattr(body, "jaxpr", body), getattr(body, "consts", ())
        if complex_here or _has_complex(body[0]):
            return _evaluate(body[0], body[1], xs)
    # scatter's update_jaxpr is no body: the componentwise rule applies.
    has_body = name not in _COMPONENTWISE and any(
        True for value in eqn.params.values() for _ in subjaxprs(value))
    if has_body and (complex_here or any(_has_complex(j) for value in eqn.params.values()
                                         for j in subjaxprs(value))):
        control = _CONTROL_FLOW.get(name)
        if control is None:
            raise _kiln.Error(f"kiln: complex values in '{name}' are not supported (in "
                              "scan, while and cond they are)")
        return control(eqn, *xs)
    if not complex_here:
        outs = eqn.primitive.bind(*xs, **eqn.params)
        return list(outs) if eqn.primitive.multiple_results else [outs]
    rule = _RULES.get(name)
    if rule is not None:
        out = rule(eqn, *xs)
        return list(out) if isinstance(out, (list, tuple)) else [out]
    if name in _COMPONENTWISE:
        return _componentwise(eqn, xs)
    raise _kiln.Error(f"kiln: primitive '{name}' on complex values is not supported "
                      "(complex arithmetic, structure, dot_general and fft are)")


def _pairs_typed(values, binders) -> list:
    """`values` with each one a complex `binders` entry types as a Pair (a
    loop's carries and a branch's results keep one structure)."""
    return [_as_pair(x, real_dtype(v.aval.dtype)) if _is_complex_var(v) else x
            for x, v in zip(values, binders)]


def _body(closed, leading=()):
    """`closed` (a loop body or branch) as a function of its remaining
    inputs, evaluated on Pairs."""
    jaxpr = getattr(closed, "jaxpr", closed)
    consts = getattr(closed, "consts", ())

    def run(*args):
        outs = _evaluate(jaxpr, consts, list(leading) + list(args))
        return _pairs_typed(outs, jaxpr.outvars)
    return run


def _scan(eqn, *xs):
    """scan re-traced by lax.scan with Pairs (pytrees) in its carries and
    slices; consts are captured."""
    p = eqn.params
    xs = _pairs_typed(xs, eqn.invars)
    nc, nk = p["num_consts"], p["num_carry"]
    body = _body(p["jaxpr"], xs[:nc])

    def step(carry, x):
        outs = body(*carry, *x)
        return outs[:nk], outs[nk:]

    carry, ys = _jax().lax.scan(step, xs[nc:nc + nk], xs[nc + nk:], length=p["length"],
                                reverse=p["reverse"], unroll=p["unroll"])
    return list(carry) + list(ys)


def _while(eqn, *xs):
    p = eqn.params
    xs = _pairs_typed(xs, eqn.invars)
    cn, bn = p["cond_nconsts"], p["body_nconsts"]
    cond = _body(p["cond_jaxpr"], xs[:cn])
    body = _body(p["body_jaxpr"], xs[cn:cn + bn])
    jax = _jax()
    jnp = jax.numpy
    if not p["cond_jaxpr"].out_avals[0].shape:
        return list(jax.lax.while_loop(lambda c: cond(*c)[0], lambda c: body(*c),
                                       xs[cn + bn:]))
    # A predicate batched by vmap (a prefix of the carries' shapes): loop
    # while any element holds, updating the carries where it holds, as JAX's
    # batching rule does.
    def masked(c):
        holds = cond(*c)[0]
        new = body(*c)

        def keep(n, o):
            h = jnp.reshape(holds, holds.shape + (1,) * (jnp.ndim(o) - holds.ndim))
            return jnp.where(h, n, o)
        return jax.tree_util.tree_map(keep, new, list(c))
    return list(jax.lax.while_loop(lambda c: jnp.any(cond(*c)[0]), masked, xs[cn + bn:]))


def _cond(eqn, index, *xs):
    lax = _jax().lax
    xs = _pairs_typed(xs, eqn.invars[1:])
    branches = [_body(b) for b in eqn.params["branches"]]
    return list(lax.switch(lax.convert_element_type(index, np.int32), branches, *xs))


# Loops and branches with complex values anywhere in them: re-traced with
# their bodies evaluated on Pairs.
_CONTROL_FLOW = {"scan": _scan, "while": _while, "cond": _cond}


def _zero_like(x):
    return _jax().numpy.zeros_like(x)


def _as_pair(x, like=None) -> Pair:
    """A real value (or a Pair) as a Pair."""
    if isinstance(x, Pair):
        return x
    jnp = _jax().numpy
    x = jnp.asarray(x) if like is None else jnp.asarray(x, dtype=like)
    return Pair(x, jnp.zeros_like(x))


def _componentwise(eqn, xs) -> list:
    """`eqn`'s primitive on the real parts, then on the imaginary parts.
    Data operands are the complex-typed ones (a real one among them, such as
    pad's value, gets a zero imaginary part); the others (indices,
    predicates) are passed to both as they are."""
    complex_in = [_is_complex_var(v) or isinstance(x, Pair) for v, x in zip(eqn.invars, xs)]
    outs_complex = [_is_complex_var(v) for v in eqn.outvars]
    params = dict(eqn.params)
    rdt = None
    for v in list(eqn.invars) + list(eqn.outvars):
        if _is_complex_var(v):
            rdt = real_dtype(v.aval.dtype)
    parts = []
    for part in ("re", "im"):
        args = []
        for x, c in zip(xs, complex_in):
            if c:
                p = _as_pair(x, rdt)
                args.append(getattr(p, part))
            else:
                args.append(x)
        out = eqn.primitive.bind(*args, **_real_params(params, rdt))
        parts.append(list(out) if eqn.primitive.multiple_results else [out])
    return [Pair(r, i) if c else r for r, i, c in zip(parts[0], parts[1], outs_complex)]


def _real_params(params: dict, rdt) -> dict:
    """Parameters that name a complex dtype name its real one instead."""
    out = {}
    for k, v in params.items():
        try:
            if v is not None and not isinstance(v, (bool, int, tuple, str)) and \
                    is_complex_dtype(v):
                v = rdt
        except TypeError:
            pass
        out[k] = v
    return out


def _mul(eqn, a, b):
    if not isinstance(a, Pair):
        return Pair(a * b.re, a * b.im)
    if not isinstance(b, Pair):
        return Pair(a.re * b, a.im * b)
    return Pair(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)


def _div(eqn, a, b):
    if not isinstance(b, Pair):
        return Pair(a.re / b, a.im / b)
    a = _as_pair(a, b.re.dtype)
    jnp = _jax().numpy
    # Smith's algorithm: scaled by the larger of |b.re|, |b.im| (no
    # overflow of b.re^2 + b.im^2), as XLA divides.
    big_re = jnp.abs(b.re) >= jnp.abs(b.im)
    r = jnp.where(big_re, b.im / jnp.where(big_re, b.re, 1), b.re / jnp.where(big_re, 1, b.im))
    d = jnp.where(big_re, b.re + b.im * r, b.im + b.re * r)
    re = jnp.where(big_re, (a.re + a.im * r) / d, (a.re * r + a.im) / d)
    im = jnp.where(big_re, (a.im - a.re * r) / d, (a.im * r - a.re) / d)
    return Pair(re, im)


def _abs(eqn, z):
    jnp = _jax().numpy
    # hypot without overflow: scaled by the larger part.
    big = jnp.maximum(jnp.abs(z.re), jnp.abs(z.im))
    small = jnp.minimum(jnp.abs(z.re), jnp.abs(z.im))
    safe = jnp.where(big == 0, 1, big)
    return jnp.where(big == 0, 0, big * jnp.sqrt(1 + (small / safe) ** 2))


def _exp(eqn, z):
    jnp = _jax().numpy
    m = jnp.exp(z.re)
    return Pair(m * jnp.cos(z.im), m * jnp.sin(z.im))


def _log(eqn, z):
    jnp = _jax().numpy
    return Pair(jnp.log(_abs(eqn, z)), jnp.arctan2(z.im, z.re))


def _sqrt(eqn, z):
    jnp = _jax().numpy
    r = _abs(eqn, z)
    re = jnp.sqrt((r + z.re) / 2)
    im = jnp.sign(z.im) * jnp.sqrt(jnp.maximum(r - z.re, 0) / 2)
    im = jnp.where(z.im == 0, 0 * z.im, im)
    return Pair(re, jnp.where((z.im == 0) & (z.re < 0), jnp.sqrt(-z.re), im))


def _sign(eqn, z):
    jnp = _jax().numpy
    r = _abs(eqn, z)
    safe = jnp.where(r == 0, 1, r)
    return Pair(jnp.where(r == 0, 0, z.re / safe), jnp.where(r == 0, 0, z.im / safe))


def _integer_pow(eqn, z):
    y = eqn.params["y"]
    if y == 0:
        return Pair(_jax().numpy.ones_like(z.re), _zero_like(z.im))
    base = z if y > 0 else _div(eqn, Pair(_jax().numpy.ones_like(z.re), _zero_like(z.im)), z)
    out = None
    for _ in range(abs(y)):
        out = base if out is None else _mul(eqn, out, base)
    return out


def _convert(eqn, x):
    new = eqn.params["new_dtype"]
    lax = _jax().lax
    if is_complex_dtype(new):
        rdt = real_dtype(new)
        p = x if isinstance(x, Pair) else Pair(x, None)
        re = lax.convert_element_type(p.re, rdt)
        im = _zero_like(re) if p.im is None else lax.convert_element_type(p.im, rdt)
        return Pair(re, im)
    return lax.convert_element_type(x.re, new)  # complex -> real: the real part, as JAX


def _compare(eqn, a, b):
    a, b = _as_pair(a), _as_pair(b)
    if eqn.primitive.name == "eq":
        return (a.re == b.re) & (a.im == b.im)
    return (a.re != b.re) | (a.im != b.im)


def _dot_general(eqn, a, b):
    lax = _jax().lax
    params = dict(eqn.params)
    params["preferred_element_type"] = real_dtype(eqn.outvars[0].aval.dtype)
    dot = lambda x, y: lax.dot_general_p.bind(x, y, **params)
    if not isinstance(a, Pair):
        return Pair(dot(a, b.re), dot(a, b.im))
    if not isinstance(b, Pair):
        return Pair(dot(a.re, b), dot(a.im, b))
    return Pair(dot(a.re, b.re) - dot(a.im, b.im), dot(a.re, b.im) + dot(a.im, b.re))


def _tables(n: int, dtype):
    """cos and sin of 2 pi t k / n, [n, n], computed exactly in float64 (t k
    reduced modulo n first)."""
    t = np.arange(n)
    angle = 2 * np.pi * ((t[:, None] * t[None, :]) % n) / n
    return np.cos(angle).astype(dtype), np.sin(angle).astype(dtype)


def _split_length(n: int):
    """The factor n1 of n that a four-step transform splits it by (the
    largest divisor at most sqrt(n)); None for a direct transform (short or
    prime lengths)."""
    if n <= DIRECT_FFT_LENGTH:
        return None
    for d in range(int(np.sqrt(n)), 1, -1):
        if n % d == 0:
            return d
    return None


def _dft_last(z: Pair, n: int, inverse: bool) -> Pair:
    """The DFT of length n along the last axis (unnormalized; inverse: the
    conjugate kernel): one matrix product for short or prime lengths, else
    the four-step (Cooley-Tukey) split n = n1 n2: with t = n2 t1 + t2 and
    k = k1 + n1 k2, w^(tk) = w_n1^(t1 k1) w_n^(t2 k1) w_n2^(t2 k2), so a
    DFT of length n1 over t1, a twiddle by w_n^(t2 k1), a DFT of length n2
    over t2, then [k1, k2] transposed to k. O(n (n1 + n2)) per transform,
    each step exact tables (float64, reduced modulo n)."""
    jnp = _jax().numpy
    n1 = _split_length(n)
    if n1 is None:
        if n > MAX_FFT_LENGTH:
            raise _kiln.Error(f"kiln: an FFT of length {n}: a length with a prime factor above "
                              f"{MAX_FFT_LENGTH} is not supported (Kiln's FFT splits a length "
                              "into factors, each a matrix product)")
        c, s = _tables(n, z.re.dtype)
        hi = _jax().lax.Precision.HIGHEST
        mm = lambda x, m: jnp.matmul(x, m, precision=hi)
        if inverse:  # sum x (cos + i sin)
            return Pair(mm(z.re, c) - mm(z.im, s), mm(z.im, c) + mm(z.re, s))
        return Pair(mm(z.re, c) + mm(z.im, s), mm(z.im, c) - mm(z.re, s))
    n2 = n // n1
    lead = z.re.shape[:-1]
    grid = Pair(z.re.reshape(lead + (n1, n2)), z.im.reshape(lead + (n1, n2)))
    y = _along(grid, -2, lambda p: _dft_last(p, n1, inverse))
    angle = 2 * np.pi * ((np.arange(n1)[:, None] * np.arange(n2)[None, :]) % n) / n
    twiddle = Pair(np.cos(angle).astype(z.re.dtype),
                   (np.sin(angle) if inverse else -np.sin(angle)).astype(z.re.dtype))
    x = _dft_last(_mul(None, y, twiddle), n2, inverse)
    return Pair(jnp.swapaxes(x.re, -1, -2).reshape(lead + (n,)),
                jnp.swapaxes(x.im, -1, -2).reshape(lead + (n,)))


def _along(z: Pair, axis: int, f) -> Pair:
    jnp = _jax().numpy
    re, im = jnp.moveaxis(z.re, axis, -1), jnp.moveaxis(z.im, axis, -1)
    out = f(Pair(re, im))
    return Pair(jnp.moveaxis(out.re, -1, axis), jnp.moveaxis(out.im, -1, axis))


def _fft(eqn, x):
    jnp = _jax().numpy
    kind = int(getattr(eqn.params["fft_type"], "value", eqn.params["fft_type"]))
    lengths = tuple(eqn.params["fft_lengths"])
    rank = len(lengths)
    axes = list(range(-rank, 0))
    if kind in (0, 1):  # FFT, IFFT
        z = _as_pair(x)
        for axis, n in zip(axes, lengths):
            z = _along(z, axis, lambda p, n=n: _dft_last(p, n, kind == 1))
        if kind == 1:
            scale = 1.0 / float(np.prod(lengths))
            z = Pair(z.re * scale, z.im * scale)
        return z
    if kind == 2:  # RFFT: the last axis' first n // 2 + 1 terms, then the others
        n = lengths[-1]
        z = _dft_last(Pair(x, _zero_like(x)), n, False)
        z = Pair(z.re[..., : n // 2 + 1], z.im[..., : n // 2 + 1])
        for axis, m in zip(axes[:-1], lengths[:-1]):
            z = _along(z, axis, lambda p, m=m: _dft_last(p, m, False))
        return z
    # IRFFT: inverse over the other axes, then the Hermitian last axis as
    # a real sum (the imaginary parts of the DC and Nyquist terms unread,
    # as numpy and XLA).
    z = _as_pair(x)
    for axis, m in zip(axes[:-1], lengths[:-1]):
        z = _along(z, axis, lambda p, m=m: _dft_last(p, m, True))
    n = lengths[-1]
    h = n // 2 + 1
    if _split_length(n) is not None:
        return _dft_last(_hermitian(z, n), n, True).re / float(np.prod(lengths))
    if n > MAX_FFT_LENGTH:
        raise _kiln.Error(f"kiln: an FFT of length {n}: a length with a prime factor above "
                          f"{MAX_FFT_LENGTH} is not supported")
    k, t = np.arange(h), np.arange(n)
    weight = np.where((k == 0) | ((n % 2 == 0) & (k == n // 2)), 1.0, 2.0)
    angle = 2 * np.pi * ((k[:, None] * t[None, :]) % n) / n
    dtype = z.re.dtype
    c = (weight[:, None] * np.cos(angle)).astype(dtype)
    s = (weight[:, None] * np.sin(angle)).astype(dtype)
    hi = _jax().lax.Precision.HIGHEST
    re, im = z.re[..., :h], z.im[..., :h]
    out = jnp.matmul(re, c, precision=hi) - jnp.matmul(im, s, precision=hi)
    return out / float(np.prod(lengths))


def _hermitian(z: Pair, n: int) -> Pair:
    """The full length-n spectrum whose first n // 2 + 1 terms are z's (the
    imaginary parts of the DC and, for even n, Nyquist terms taken as 0, as
    numpy and XLA read them): Z[n - k] = conj(Z[k])."""
    jnp = _jax().numpy
    h = n // 2 + 1
    re, im = z.re[..., :h], z.im[..., :h]
    k = np.arange(h)
    im = jnp.where((k == 0) | ((n % 2 == 0) & (k == n // 2)), 0, im)
    tail = slice(n - h, 0, -1)  # k = h .. n-1 read n - k = n-h .. 1
    return Pair(jnp.concatenate([re, re[..., tail]], -1),
                jnp.concatenate([im, -im[..., tail]], -1))


def _pad(eqn, x, value):
    lax = _jax().lax
    x, value = _as_pair(x), _as_pair(value, x.re.dtype if isinstance(x, Pair) else None)
    cfg = eqn.params["padding_config"]
    return Pair(lax.pad(x.re, value.re, cfg), lax.pad(x.im, value.im, cfg))


_eig_primitive = None


def _kiln_eig():
    """The primitive kiln.jit writes for eig: real results (the importer's
    kiln_eig, lax.eig): the eigenvalues' real and imaginary parts, then the
    right eigenvectors'."""
    global _eig_primitive
    if _eig_primitive is None:
        core = jax_core()
        from jax.core import ShapedArray
        _eig_primitive = core.Primitive("kiln_eig")
        _eig_primitive.multiple_results = True

        def abstract(a, *, vectors):
            values = ShapedArray(a.shape[:-1], a.dtype)
            matrix = ShapedArray(a.shape, a.dtype)
            return [values, values] + ([matrix, matrix] if vectors else [])

        _eig_primitive.def_abstract_eval(abstract)
    return _eig_primitive


def _eig(eqn, a):
    if isinstance(a, Pair):
        raise _kiln.Error("kiln: 'eig' of a complex matrix is not supported (of a real one it is)")
    if eqn.params.get("compute_left_eigenvectors"):
        raise _kiln.Error("kiln: 'eig' with left eigenvectors is not supported (right ones are)")
    vectors = bool(eqn.params.get("compute_right_eigenvectors", True))
    outs = _kiln_eig().bind(a, vectors=vectors)
    return [Pair(outs[0], outs[1])] + ([Pair(outs[2], outs[3])] if vectors else [])


def _sort(eqn, *xs):
    """sort's operands with each complex one as two (real, imaginary): a
    complex key orders by its real part, then its imaginary part, as JAX
    orders complex numbers, so it becomes two keys."""
    lax = _jax().lax
    num_keys = eqn.params["num_keys"]
    flat, keys = [], 0
    for i, x in enumerate(xs):
        parts = [x.re, x.im] if isinstance(x, Pair) else [x]
        flat += parts
        if i < num_keys:
            keys += len(parts)
    outs = lax.sort_p.bind(*flat, dimension=eqn.params["dimension"],
                           is_stable=eqn.params["is_stable"], num_keys=keys)
    it, results = iter(outs), []
    for x in xs:
        results.append(Pair(next(it), next(it)) if isinstance(x, Pair) else next(it))
    return results


_RULES = {
    "sort": _sort,
    "eig": _eig,
    "mul": _mul,
    "div": _div,
    "abs": _abs,
    "exp": _exp,
    "log": _log,
    "sqrt": _sqrt,
    "sign": _sign,
    "integer_pow": _integer_pow,
    "convert_element_type": _convert,
    "eq": _compare,
    "ne": _compare,
    "dot_general": _dot_general,
    "fft": _fft,
    "pad": _pad,
    "real": lambda eqn, z: _as_pair(z).re,
    "imag": lambda eqn, z: _as_pair(z).im,
    "conj": lambda eqn, z: Pair(_as_pair(z).re, -_as_pair(z).im),
    "complex": lambda eqn, re, im: Pair(re, im),
}
