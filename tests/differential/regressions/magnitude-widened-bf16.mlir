// Found by tests/differential (generated programs 105983, 113731, 116970
// and 123535 of seeds 100000-124999): a reassociating pass regrouped a bf16
// sum, one bf16 ulp (0.5 at 76) away from the interpreter's order, and the
// comparison called it 340 x over the bound, because the sum was widened to
// f32 before it was returned and the bound took f32's epsilon. The error
// model's magnitude S counts in units of the value's own epsilon; widening
// bf16 to f32 now scales S by eps(bf16) / eps(f32) = 2^16
// (reference/Magnitude.cpp), so a widened value is judged by the precision
// it was computed in. A result off by far more than bf16's rounding still
// fails.
//
// (64 + 0.25) + 0.25 is 64 in bf16 (a tie to even, twice); 64 + (0.25 +
// 0.25) is 64.5: one ulp apart.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --entry=left --interpret --inputs %S/Inputs/magnitude-widened-bf16.npy --outputs %t
// RUN: kiln-run %s --entry=right --interpret --inputs %S/Inputs/magnitude-widened-bf16.npy --expect %t/out0.npy | FileCheck %s
// RUN: not kiln-run %s --entry=wrong --interpret --inputs %S/Inputs/magnitude-widened-bf16.npy --expect %t/out0.npy | FileCheck %s --check-prefix=WRONG
// CHECK: output 0: matches
// WRONG: output 0: DIFFERS

func.func @left(%x: tensor<3xf32>) -> tensor<f32> {
  %h = lax.convert_element_type %x : tensor<3xf32> -> tensor<3xbf16>
  %a = lax.slice %h start = [0] limit = [1] strides = [1] : tensor<3xbf16> -> tensor<1xbf16>
  %b = lax.slice %h start = [1] limit = [2] strides = [1] : tensor<3xbf16> -> tensor<1xbf16>
  %c = lax.slice %h start = [2] limit = [3] strides = [1] : tensor<3xbf16> -> tensor<1xbf16>
  %ab = lax.add %a, %b : tensor<1xbf16>
  %s = lax.add %ab, %c : tensor<1xbf16>
  %r = lax.reshape %s : tensor<1xbf16> -> tensor<bf16>
  %w = lax.convert_element_type %r : tensor<bf16> -> tensor<f32>
  return %w : tensor<f32>
}

func.func @right(%x: tensor<3xf32>) -> tensor<f32> {
  %h = lax.convert_element_type %x : tensor<3xf32> -> tensor<3xbf16>
  %a = lax.slice %h start = [0] limit = [1] strides = [1] : tensor<3xbf16> -> tensor<1xbf16>
  %b = lax.slice %h start = [1] limit = [2] strides = [1] : tensor<3xbf16> -> tensor<1xbf16>
  %c = lax.slice %h start = [2] limit = [3] strides = [1] : tensor<3xbf16> -> tensor<1xbf16>
  %bc = lax.add %b, %c : tensor<1xbf16>
  %s = lax.add %a, %bc : tensor<1xbf16>
  %r = lax.reshape %s : tensor<1xbf16> -> tensor<bf16>
  %w = lax.convert_element_type %r : tensor<bf16> -> tensor<f32>
  return %w : tensor<f32>
}

// 64 + 0.25 + 0.25 + 100: 200 bf16 ulps off, beyond k = 64.
func.func @wrong(%x: tensor<3xf32>) -> tensor<f32> {
  %h = lax.convert_element_type %x : tensor<3xf32> -> tensor<3xbf16>
  %a = lax.slice %h start = [0] limit = [1] strides = [1] : tensor<3xbf16> -> tensor<1xbf16>
  %b = lax.slice %h start = [1] limit = [2] strides = [1] : tensor<3xbf16> -> tensor<1xbf16>
  %c = lax.slice %h start = [2] limit = [3] strides = [1] : tensor<3xbf16> -> tensor<1xbf16>
  %bc = lax.add %b, %c : tensor<1xbf16>
  %s = lax.add %a, %bc : tensor<1xbf16>
  %r = lax.reshape %s : tensor<1xbf16> -> tensor<bf16>
  %w = lax.convert_element_type %r : tensor<bf16> -> tensor<f32>
  %k = lax.constant dense<100.0> : tensor<f32>
  %o = lax.add %w, %k : tensor<f32>
  return %o : tensor<f32>
}
