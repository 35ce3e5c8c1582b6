"""A bounded run of the Python-boundary fuzzer (boundary_fuzz.py, jax.jit as
the oracle) in the test suite; longer runs: `python tests/python/
boundary_fuzz.py --iterations N --seed S`."""

import boundary_fuzz


def test_boundary_fuzz(cache_dir):
    problems = boundary_fuzz.run(iterations=250, seed=20261128, cache_dir=cache_dir)
    assert not problems, "\n".join(problems)
