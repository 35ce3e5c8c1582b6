// A bf16 dot_general (a mixed-precision MLP's layer) must accumulate in f32
// and round once, as XLA's: it had accumulated in bf16, 3x jax.jit's error
// against a float64 reference, and kiln-run --check passed it, its bf16
// bound being about |ref| + mag at k = 64. Now f16/bf16 elements are judged
// at min(k, 4) and a narrow dot's magnitude is f32's accumulation error
// plus its one rounding (docs/interpreter.md), so the JIT passes and the
// product accumulated in bf16 term by term (Inputs/bf16_accumulated_dot.py,
// numpy) is reported.
// RUN: rm -rf %t && mkdir -p %t && %python %S/Inputs/bf16_accumulated_dot.py %t
// RUN: kiln-run %s --inputs %t/x.npy,%t/w.npy --check --no-cache | FileCheck %s --check-prefix=JIT
// RUN: not kiln-run %s --interpret --inputs %t/x.npy,%t/w.npy --expect %t/bf16-accumulated.npy 2>&1 | FileCheck %s --check-prefix=BF16
// JIT: check against the reference interpreter
// JIT: output 0: matches
// BF16: error: the results differ from the expected outputs: output 0: DIFFERS

func.func @main(%x: tensor<64x512xf32>, %w: tensor<512x64xf32>) -> tensor<64x64xbf16> {
  %xb = lax.convert_element_type %x : tensor<64x512xf32> -> tensor<64x512xbf16>
  %wb = lax.convert_element_type %w : tensor<512x64xf32> -> tensor<512x64xbf16>
  %0 = lax.dot_general %xb, %wb contracting = [1] x [0] batch = [] x [] : (tensor<64x512xbf16>, tensor<512x64xbf16>) -> tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}
