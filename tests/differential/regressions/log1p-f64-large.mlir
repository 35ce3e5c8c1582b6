// Found by tests/differential (generated programs 124590 and 109985; 124590
// reduced by run.py --reduce): f64 log1p by Goldberg's formula
// (log1p-f64.mlir) computed log(u) * x / (u - 1), whose product overflows
// for x near the largest double: log1p(DBL_MAX / 2) was inf where libm and
// the interpreter give 709.09. kiln-approximate-math now divides first,
// log(u) * (x / (u - 1)).
// RUN: kiln-run %s --random-inputs --check --no-cache | FileCheck %s
// CHECK: output 0: matches
// CHECK: worst error

func.func @main() -> tensor<8xf64> {
  // DBL_MAX / 2, DBL_MAX, 1e300, 1e200, 0.5, 0.001, the smallest subnormal, inf.
  %x = lax.constant dense<[0x7FDFFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF, 0x7E37E43C8800759C, 0x6974E718D7D7625A, 0x3FE0000000000000, 0x3F50624DD2F1A9FC, 0x0000000000000001, 0x7FF0000000000000]> : tensor<8xf64>
  %r = lax.log1p %x : tensor<8xf64>
  return %r : tensor<8xf64>
}
