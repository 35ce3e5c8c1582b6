"""kiln.jit's compiler_options and the op facts the Python side reads.

Each CPU pipeline option (lowering/CpuPipelineOptions.def) is a
compiler_options key, as jax.jit's compiler_options are XLA's; the oracle is
jax.jit on the same inputs. The exporter (kiln.rewrite's evaluation with
JAX) maps every elementwise primitive the dialect defines to a JAX function.
"""
import numpy as np
import pytest

import jax
import jax.numpy as jnp

import kiln
from kiln import _kiln, _to_jax


def _mlp(x, w1, w2):
    return jnp.tanh(x @ w1) @ w2


def _inputs():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((64, 96), dtype=np.float32),
            rng.standard_normal((96, 128), dtype=np.float32) * 0.1,
            rng.standard_normal((128, 32), dtype=np.float32) * 0.1)


@pytest.mark.parametrize("options", [
    {"use_runtime_gemm": False},
    {"runtime_gemm_min_macs": 1, "min_parallel_work": 1},
    {"approximate_math": False, "promote_to_stack": False, "matvec_vector_bits": 128},
])
def test_compiler_options_match_jax(options):
    args = _inputs()
    want = np.asarray(jax.jit(_mlp)(*args))
    got = kiln.jit(_mlp, cache_dir=None, compiler_options=options)(*args)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


def test_compiler_options_scan():
    def f(xs):
        def step(c, x):
            c = jnp.tanh(c * 0.9 + x)
            return c, c
        return jax.lax.scan(step, jnp.zeros(xs.shape[1:], xs.dtype), xs)[1].sum(0)
    xs = np.random.default_rng(1).standard_normal((50, 64, 8), dtype=np.float32)
    want = np.asarray(jax.jit(f)(xs))
    for options in ({"parallel_scans": False}, {"scan_vector_bits": 0},
                    {"scan_lane_groups": 2, "scan_register_bits": 512}):
        got = kiln.jit(f, cache_dir=None, compiler_options=options)(xs)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_unknown_compiler_option_is_a_value_error():
    with pytest.raises(ValueError, match="unknown compiler option 'scan_vector_bytes'.*scan_vector_bits"):
        kiln.jit(lambda x: x + 1, cache_dir=None,
                 compiler_options={"scan_vector_bytes": 256})(np.ones(3, np.float32))


@pytest.mark.parametrize("options", [{"use_runtime_gemm": 1}, {"scan_vector_bits": True},
                                     {"scan_vector_bits": 2.5}])
def test_compiler_option_of_the_wrong_type_is_a_type_error(options):
    with pytest.raises(TypeError, match="compiler option"):
        kiln.jit(lambda x: x + 1, cache_dir=None, compiler_options=options)(np.ones(3, np.float32))


def test_every_elementwise_primitive_exports_to_jax():
    primitives = _kiln.elementwise_primitives()
    assert len(primitives) > 40
    table = _to_jax._elementwise()
    for op, primitive, arity in primitives:
        assert op == "lax." + primitive
        assert arity in (1, 2)
        assert callable(table[op]), op
    # Spot checks against jax.lax itself, one per renamed family.
    assert table["lax.and"] is jax.lax.bitwise_and
    assert table["lax.erf_inv"] is jax.lax.erf_inv
