"""Inputs of bf16-dot-accumulation.mlir: x (64x512) and w (512x64) as f32
(bf16 values), and the product accumulated in bf16 term by term (each
product and each partial sum rounded to bf16, as a dot without an f32
accumulator computes it), saved as bf16 bits ('<V2', as ml_dtypes writes
bf16). numpy only: bf16 rounding is round-to-nearest-even of f32's bits."""
import sys
import numpy as np


def bf16(a):
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32)


out = sys.argv[1]
rng = np.random.default_rng(0)
x = bf16(rng.standard_normal((64, 512)))
w = bf16(rng.standard_normal((512, 64)) / 22.6)
np.save(f"{out}/x.npy", x)
np.save(f"{out}/w.npy", w)
acc = np.zeros((64, 64), np.float32)
for k in range(512):
    acc = bf16(acc + bf16(x[:, k:k + 1] * w[k:k + 1, :]))
np.save(f"{out}/bf16-accumulated.npy", (acc.view(np.uint32) >> 16).astype(np.uint16).view("V2"))
