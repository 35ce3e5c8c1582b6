// Found by tests/differential (generated program 1083018 of the campaign
// 1057000+, on a Zen 5 host; reduced by run.py --reduce, then by hand): a
// lax.gather reading a value the JIT computed into a stack buffer returned
// garbage that changed from run to run. LLVM 22's SLP vectorizer turned the
// four indexed loads into one masked gather and placed it above the stores
// that fill the buffer; only AVX-512 targets form such gathers (znver4/5,
// skylake-avx512, icelake-server; AVX2 targets keep the loads). The JIT's
// target machine now has prefer-no-gather (compiler/HostJit.cpp).
// Hand-derived: x = [9, 1, 1, 0]; rev = [0, 1, 1, 9]; not(rev) = [2^32 - 1,
// 2^32 - 2, 2^32 - 2, 2^32 - 10]; every index is past the end and clamps
// to 3, so the gather is not(rev)[3] = 4294967286 four times.
// RUN: kiln-run %s --interpret --inputs %S/Inputs/gather-of-stack-buffer.npy | FileCheck %s
// RUN: kiln-run %s --no-cache --inputs %S/Inputs/gather-of-stack-buffer.npy --check | FileCheck %s --check-prefix=JIT
// CHECK: output 0: tensor<4xui32> {{.*}} values [4294967286, 4294967286, 4294967286, 4294967286]
// CHECK: output 1: tensor<2x2xui32> {{.*}} values [0, 1, 1, 9]
// JIT: output 0: matches (all equal)
// JIT: output 1: matches (all equal)

func.func @main(%x: tensor<4xui32>) -> (tensor<4xui32>, tensor<2x2xui32>) {
  %rev = lax.rev %x dims = [0] : tensor<4xui32>
  %not = lax.not %rev : tensor<4xui32>
  %col = lax.reshape %not : tensor<4xui32> -> tensor<4x1xui32>
  %idx = lax.convert_element_type %col : tensor<4x1xui32> -> tensor<4x1xi64>
  %g = lax.gather %not[%idx] offset_dims = [] collapsed_slice_dims = [0] start_index_map = [0] slice_sizes = [1] mode = clip : (tensor<4xui32>, tensor<4x1xi64>) -> tensor<4xui32>
  %square = lax.reshape %rev : tensor<4xui32> -> tensor<2x2xui32>
  return %g, %square : tensor<4xui32>, tensor<2x2xui32>
}
