"""kiln.kernel: a Kiln-compiled function as an XLA FFI custom call inside
jax.jit, against jax.jit of the original function."""

import jax
import numpy as np

import kiln


def test_tdma_kernel_inside_a_jitted_program(programs):
    p = programs["seed003_tdma_batch_carry"]
    args = p.args()
    solve = kiln.kernel(p.fn)
    mixed = jax.jit(lambda a, b, c, d: solve(a, b, c, d) * 2.0 + 1.0)
    plain = jax.jit(lambda a, b, c, d: p.fn(a, b, c, d) * 2.0 + 1.0)
    assert "custom_call @kiln_call" in mixed.lower(*args).as_text()
    np.testing.assert_allclose(mixed(*args), plain(*args), rtol=1e-5, atol=1e-5)
    # vmap: one call per batch element.
    batched = [np.stack([a, a * 0.5]) for a in args]
    np.testing.assert_allclose(jax.vmap(solve)(*batched), jax.vmap(p.fn)(*batched),
                               rtol=1e-5, atol=1e-5)


def test_kernel_with_constants_and_pytree_outputs():
    w = np.arange(12, dtype=np.float32).reshape(3, 4)

    def f(x):
        y = x @ w  # w is a constant of the jaxpr, bound once
        return {"y": y, "s": y.sum()}

    k = kiln.kernel(f)
    x = np.ones((2, 3), np.float32)
    got = jax.jit(k)(x)
    want = f(x)
    np.testing.assert_allclose(got["y"], want["y"])
    np.testing.assert_allclose(got["s"], want["s"])
