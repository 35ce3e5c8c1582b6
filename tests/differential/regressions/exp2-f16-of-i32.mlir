// Found by tests/differential (generated program 740728 of the campaign
// 712000+, on a Zen 5 host; reduced by run.py --reduce, then by hand): the
// JIT's exp2 of i32 values converted to f16, stacked by a scan, was NaN.
// LLVM's InstCombine turns exp2(sitofp n) into ldexp(1, n), and LLVM 22's
// x86 code generator, with AVX-512, promotes a vector f16 ldexp to
// VSCALEFPS without converting the exponents to float (`llc
// -mcpu=skylake-avx512` on `llvm.ldexp.v8f16.v8i32`: no vcvtdq2ps; the f32
// ldexp has it). The JIT now computes f16 and bf16 ldexp in f32 and rounds
// once (exact; compiler/HostJit.cpp). On hosts without AVX-512 this passed
// before.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --interpret --inputs %S/Inputs/exp2-f16-of-i32.npy --outputs %t/ref | FileCheck %s
// RUN: kiln-run %s --inputs %S/Inputs/exp2-f16-of-i32.npy --no-cache --expect %t/ref/out0.npy
// Hand-derived: the inputs' first row is [-2, 4, 4], each repeated 4 times
// along the last axis; 2^-2 = 0.25, 2^4 = 16.
// CHECK: output 0: tensor<4x3x4xf16> {{.*}} values [0.25, 0.25, 0.25, 0.25, 16, 16, ...]

func.func @main(%n: tensor<4x3xi32>) -> (tensor<4x3x4xf16>) {
  %ys = lax.scan length = 4 consts(%n) carry() xs() {ys_axes = array<i64: 2>} : (tensor<4x3xi32>) -> (tensor<4x3x4xf16>) {
  ^bb0(%c: tensor<4x3xi32>):
    %h = lax.convert_element_type %c : tensor<4x3xi32> -> tensor<4x3xf16>
    %e = lax.exp2 %h : tensor<4x3xf16>
    lax.yield %e : tensor<4x3xf16>
  }
  return %ys : tensor<4x3x4xf16>
}
