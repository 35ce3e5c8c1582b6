"""bf16 .npy files as numpy writes them with ml_dtypes (kiln-run-npy-bf16.test).

    bf16_npy.py write FILE      an input: bf16 values no f16 or f32 .npy would keep
    bf16_npy.py check DIR       out0.npy (bf16) and out1.npy (f32) are twice them
"""
import sys

import ml_dtypes
import numpy as np

# 1 + 2^-7 (the next bf16 after 1), a bf16 too large for f16, the smallest
# bf16 subnormal, -0 and NaN.
VALUES = np.array([1.0078125, 3.0e38, 9.18355e-41, -0.0, np.nan], dtype=ml_dtypes.bfloat16)

if sys.argv[1] == "write":
    np.save(sys.argv[2], VALUES)
else:
    twice = VALUES + VALUES  # in bf16, as lax.add computes it
    out0 = np.load(f"{sys.argv[2]}/out0.npy")
    out1 = np.load(f"{sys.argv[2]}/out1.npy")
    print("out0 descr", out0.dtype.str)
    got = out0.view(ml_dtypes.bfloat16)
    assert got.view(np.uint16).tolist() == twice.view(np.uint16).tolist(), (got, twice)
    assert np.array_equal(out1, twice.astype(np.float32), equal_nan=True), (out1, twice)
    print("bf16 round trip ok:", got.tolist())
