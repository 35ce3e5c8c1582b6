"""A structure-aware fuzzer of kiln.jit's Python boundary, with jax.jit as
the oracle.

    python tests/python/boundary_fuzz.py [--iterations N] [--seed S]

Each iteration draws a function and arguments the way users pass them:
dtypes (float16/32/64, bfloat16, int8/32/64, uint32, bool), numpy arrays
in either byte order, non-contiguous (strided, transposed, Fortran order),
JAX arrays, Python scalars, 0-d arrays, pytrees of dicts, lists and tuples,
static arguments, and calls repeated with other dtypes and shapes (the fast
path's signatures), some from several threads. kiln.jit must give what
jax.jit gives (dtype, shape and values within a tolerance) or raise where
jax.jit raises; it must never crash or give another answer. The first
disagreement is printed with the seed that reproduces it. tests/python/
test_boundary_fuzz.py runs a bounded number of iterations under pytest.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np

DTYPES = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16, np.int8, np.int32, np.int64,
          np.uint32, np.bool_]

FUNCTIONS = {
    "add1": lambda x: x + 1,
    "affine": lambda x: 2 * x + 1,
    "sum": lambda x: jnp.sum(x),
    "square": lambda x: x * x,
    "max0": lambda x: jnp.maximum(x, 0),
    "tree": lambda t: jax.tree_util.tree_map(lambda v: v * 2, t),
    "pair": lambda x, y: x - y,
    "static": lambda x, n: x * n,
}


def _array(rng, dtype, shape):
    if np.dtype(dtype) == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(np.dtype(dtype), np.integer):
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100) + 1, shape).astype(dtype)
    return (rng.standard_normal(shape) * 3).astype(dtype)


def _layout(rng, a):
    """`a` as users may hold it: as is, big-endian, strided, transposed,
    Fortran-ordered, a JAX array, a Python scalar or list."""
    kind = rng.integers(0, 8)
    if kind == 1 and a.dtype.byteorder in "=<" and a.dtype.kind in "fiub" and a.dtype.itemsize > 1 \
            and a.dtype != ml_dtypes.bfloat16:
        return a.astype(a.dtype.newbyteorder(">"))
    if kind == 2 and a.ndim >= 1:
        wide = np.repeat(a, 2, axis=-1)
        return wide[..., ::2]
    if kind == 3 and a.ndim == 2:
        return np.ascontiguousarray(a.T).T
    if kind == 4:
        return np.asfortranarray(a)
    if kind == 5:
        return jnp.asarray(a)
    if kind == 6 and a.ndim == 0:
        return a.item()
    if kind == 7 and a.ndim == 1 and a.size <= 4:
        return a.tolist()
    return a


def _same(got, want) -> str | None:
    """None when `got` is what jax.jit gave (`want`), else why not."""
    gl, gt = jax.tree_util.tree_flatten(got)
    wl, wt = jax.tree_util.tree_flatten(want)
    if gt != wt:
        return f"tree {gt} != {wt}"
    for g, w in zip(gl, wl):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"{g.dtype}{list(g.shape)} != {w.dtype}{list(w.shape)}"
        if g.dtype == np.bool_ or g.dtype.kind in "iu":
            if not np.array_equal(g, w):
                return f"values {g.ravel()[:6]} != {w.ravel()[:6]}"
        else:
            g64, w64 = g.astype(np.float64), w.astype(np.float64)
            eps = float(ml_dtypes.finfo(g.dtype).eps)
            tol = 8 * eps * (1 + np.abs(w64).max(initial=0)) * max(1, w64.size)
            if not np.allclose(g64, w64, rtol=0, atol=tol, equal_nan=True):
                return f"values {g.ravel()[:6]} != {w.ravel()[:6]}"
    return None


def run(iterations: int, seed: int, cache_dir: str | None = None) -> list[str]:
    import kiln
    rng = np.random.default_rng(seed)
    problems: list[str] = []
    jitted = {name: kiln.jit(f, cache_dir=cache_dir or "",
                             static_argnums=(1,) if name == "static" else ())
              for name, f in FUNCTIONS.items()}
    oracles = {name: jax.jit(f, static_argnums=(1,) if name == "static" else ())
               for name, f in FUNCTIONS.items()}
    for it in range(iterations):
        name = list(FUNCTIONS)[rng.integers(0, len(FUNCTIONS))]
        shape = tuple(int(d) for d in rng.integers(1, 5, rng.integers(0, 3)))
        dtype = DTYPES[rng.integers(0, len(DTYPES))]
        a = _layout(rng, _array(rng, dtype, shape))
        if name == "tree":
            args = ({"w": a, "b": [_array(rng, dtype, shape), (jnp.asarray(_array(rng, dtype, ())),)]},)
        elif name == "pair":
            args = (a, _layout(rng, _array(rng, dtype, shape)))
        elif name == "static":
            args = (a, int(rng.integers(1, 4)))
        else:
            args = (a,)
        # The oracle sees native byte order: jax.jit refuses a big-endian
        # float32 at the top level and, inside a pytree, reads its bytes as
        # native (jax 0.10.2; kiln.jit converts by value).
        native = jax.tree_util.tree_map(
            lambda v: np.asarray(v, v.dtype.newbyteorder("="))
            if isinstance(v, np.ndarray) and not v.dtype.isnative else v, args)
        try:
            want = oracles[name](*native)
            want_error = None
        except Exception as e:
            want, want_error = None, type(e).__name__

        def attempt():
            try:
                return jitted[name](*args), None
            except Exception as e:
                return None, f"{type(e).__name__}: {e}"

        threaded = rng.random() < 0.1
        if threaded:
            results = [None] * 3
            def worker(i):
                results[i] = attempt()
            ts = [threading.Thread(target=worker, args=(i,)) for i in range(3)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
        else:
            results = [attempt(), attempt()]  # the second may take the fast path
        what = f"iteration {it} (seed {seed}): {name}{tuple(type(x).__name__ for x in args)} " \
               f"dtype {np.dtype(dtype).name}{list(shape)}"
        for got, error in results:
            if want_error:
                if error is None:
                    problems.append(f"{what}: jax.jit raised {want_error}, kiln.jit returned")
            elif error is not None:
                problems.append(f"{what}: kiln.jit raised {error}")
            elif (why := _same(got, want)) is not None:
                problems.append(f"{what}: {why}")
        if problems:
            break
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    problems = run(a.iterations, a.seed)
    for p in problems:
        print(p)
    print(f"{a.iterations} iterations from seed {a.seed}: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
