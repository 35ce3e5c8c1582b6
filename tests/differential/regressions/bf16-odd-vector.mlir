// Found by tests/differential (generated program 713498 of the campaign
// 712000+, on a Zen 5 host; reduced by hand): the JIT aborted. A scan's
// stacked bf16 constant, transposed and widened to f32, beside a dot: LLVM's
// O3 pipeline (SROA) made a <9 x bfloat> load and shuffle, which the x86
// code generator of LLVM 22 cannot legalize with AVX512-BF16 ("LLVM ERROR:
// Do not know how to soft promote this operator's operand!"; llc
// -mcpu=znver4, znver5 or sapphirerapids aborts on such a shuffle, znver3
// and skylake-avx512 do not). The JIT's target machine now leaves
// AVX512-BF16 out (bf16-subnormals.mlir says why it is also wrong). On
// other hosts this passed before.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --interpret --outputs %t/ref
// RUN: kiln-run %s --no-cache --expect %t/ref/out0.npy,%t/ref/out1.npy

func.func @main() -> (tensor<4xf32>, tensor<4x4x3xf32>) {
  %0 = lax.constant dense<-3.389530e+38> : tensor<3x4xbf16>
  %2 = lax.constant dense<1.0> : tensor<4x1x4xf32>
  %3 = lax.constant dense<0.000000e+00> : tensor<4x1xf32>
  %4 = lax.dot_general %2, %3 contracting = [0, 1] x [0, 1] batch = [] x [] : (tensor<4x1x4xf32>, tensor<4x1xf32>) -> tensor<4xf32>
  %5 = lax.scan length = 4 carry() xs() : () -> tensor<4x3x4xbf16> {
    lax.yield %0 : tensor<3x4xbf16>
  }
  %6 = lax.transpose %5 permutation = [0, 2, 1] : tensor<4x3x4xbf16> -> tensor<4x4x3xbf16>
  %7 = lax.convert_element_type %6 : tensor<4x4x3xbf16> -> tensor<4x4x3xf32>
  return %4, %7 : tensor<4xf32>, tensor<4x4x3xf32>
}
