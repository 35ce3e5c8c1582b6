// Block transposes with two rows to a register (kiln-scan-to-parallel-loops'
// register-bits; the JIT's on an AVX-512 host, and --min-thresholds' on
// every host): strided scans of every element width that pairs rows (f32
// and i32: 8 lanes, 3 bits of a row index; f16 and bf16: 16 lanes; i8: 32
// lanes, 5 bits) and f64 (4 lanes: one row to a register), 70 systems of 45
// steps (a masked last vector and a partial last block), must compute what
// the interpreter computes, bit for bit.
// Hand-derived: output 0 is the running sum over the steps of x[r][s] = 100 r
// + s, i.e. 100 r (s + 1) + s (s + 1) / 2: row 0 starts 0, 1, 3, 6, 10, 15,
// and the largest is row 69's last, 100 * 69 * 45 + 44 * 45 / 2 = 311490.
// RUN: kiln-opt --kiln-fold-scan-layout --canonicalize "--kiln-scan-to-parallel-loops=vector-bits=512 register-bits=512 lane-groups=2" %s | FileCheck %s --check-prefix=IR
// RUN: kiln-run %s --random-inputs --interpret | FileCheck %s
// RUN: kiln-run %s --random-inputs --no-cache --min-thresholds --check | FileCheck %s --check-prefixes=CHECK,JIT
// Without --min-thresholds the scans are too small for a parallel dispatch
// and run in sequence, their tiles in an alloca_scope.
// RUN: kiln-run %s --random-inputs --no-cache --check | FileCheck %s --check-prefixes=CHECK,JIT
// IR-COUNT-32: vector.shuffle {{.*}} : vector<16xi32>, vector<16xi32>
// IR-COUNT-32: vector.shuffle {{.*}} : vector<16xf32>, vector<16xf32>
// IR-COUNT-96: vector.shuffle {{.*}} : vector<32xf16>, vector<32xf16>
// IR-COUNT-96: vector.shuffle {{.*}} : vector<32xbf16>, vector<32xbf16>
// IR-COUNT-256: vector.shuffle {{.*}} : vector<64xi8>, vector<64xi8>
// IR-NOT: vector<8xf64>
// CHECK: output 0: tensor<70x45xi32> min 0 max 311490 {{.*}} values [0, 1, 3, 6, 10, 15, ...]
// JIT-COUNT-6: matches (all equal)

func.func @main(%f: tensor<70x45xf32>, %h: tensor<70x45xf16>, %b: tensor<70x45xbf16>, %e: tensor<70x45xi8>, %g: tensor<70x45xf64>) -> (tensor<70x45xi32>, tensor<70x45xf32>, tensor<70x45xf16>, tensor<70x45xbf16>, tensor<70x45xi8>, tensor<70x45xf64>) {
  %r32 = lax.iota dimension = 0 : tensor<70x45xi32>
  %s32 = lax.iota dimension = 1 : tensor<70x45xi32>
  %hundred = lax.constant dense<100> : tensor<70x45xi32>
  %r100 = lax.mul %r32, %hundred : tensor<70x45xi32>
  %x = lax.add %r100, %s32 : tensor<70x45xi32>
  %xt = lax.transpose %x permutation = [1, 0] : tensor<70x45xi32> -> tensor<45x70xi32>
  %z16 = lax.constant dense<0> : tensor<70xi32>
  %l16, %ys16 = lax.scan length = 45 carry(%z16) xs(%xt)
      : (tensor<70xi32>, tensor<45x70xi32>) -> (tensor<70xi32>, tensor<45x70xi32>) {
  ^bb0(%c: tensor<70xi32>, %xi: tensor<70xi32>):
    %t = lax.add %c, %xi : tensor<70xi32>
    lax.yield %t, %t : tensor<70xi32>, tensor<70xi32>
  }
  %o16 = lax.transpose %ys16 permutation = [1, 0] : tensor<45x70xi32> -> tensor<70x45xi32>
  %ft = lax.transpose %f permutation = [1, 0] : tensor<70x45xf32> -> tensor<45x70xf32>
  %z32 = lax.constant dense<0.0> : tensor<70xf32>
  %l32, %ys32 = lax.scan length = 45 carry(%z32) xs(%ft)
      : (tensor<70xf32>, tensor<45x70xf32>) -> (tensor<70xf32>, tensor<45x70xf32>) {
  ^bb0(%c: tensor<70xf32>, %xi: tensor<70xf32>):
    %t = lax.add %c, %xi : tensor<70xf32>
    lax.yield %t, %t : tensor<70xf32>, tensor<70xf32>
  }
  %o32 = lax.transpose %ys32 permutation = [1, 0] : tensor<45x70xf32> -> tensor<70x45xf32>
  %ht = lax.transpose %h permutation = [1, 0] : tensor<70x45xf16> -> tensor<45x70xf16>
  %zh = lax.constant dense<0.0> : tensor<70xf16>
  %lh, %ysh = lax.scan length = 45 carry(%zh) xs(%ht)
      : (tensor<70xf16>, tensor<45x70xf16>) -> (tensor<70xf16>, tensor<45x70xf16>) {
  ^bb0(%c: tensor<70xf16>, %xi: tensor<70xf16>):
    %t = lax.max %c, %xi : tensor<70xf16>
    lax.yield %t, %t : tensor<70xf16>, tensor<70xf16>
  }
  %oh = lax.transpose %ysh permutation = [1, 0] : tensor<45x70xf16> -> tensor<70x45xf16>
  %bt = lax.transpose %b permutation = [1, 0] : tensor<70x45xbf16> -> tensor<45x70xbf16>
  %zb = lax.constant dense<0.0> : tensor<70xbf16>
  %lb, %ysb = lax.scan length = 45 carry(%zb) xs(%bt)
      : (tensor<70xbf16>, tensor<45x70xbf16>) -> (tensor<70xbf16>, tensor<45x70xbf16>) {
  ^bb0(%c: tensor<70xbf16>, %xi: tensor<70xbf16>):
    %t = lax.min %c, %xi : tensor<70xbf16>
    lax.yield %t, %t : tensor<70xbf16>, tensor<70xbf16>
  }
  %ob = lax.transpose %ysb permutation = [1, 0] : tensor<45x70xbf16> -> tensor<70x45xbf16>
  %et = lax.transpose %e permutation = [1, 0] : tensor<70x45xi8> -> tensor<45x70xi8>
  %z8 = lax.constant dense<0> : tensor<70xi8>
  %l8, %ys8 = lax.scan length = 45 carry(%z8) xs(%et)
      : (tensor<70xi8>, tensor<45x70xi8>) -> (tensor<70xi8>, tensor<45x70xi8>) {
  ^bb0(%c: tensor<70xi8>, %xi: tensor<70xi8>):
    %t = lax.xor %c, %xi : tensor<70xi8>
    lax.yield %t, %t : tensor<70xi8>, tensor<70xi8>
  }
  %o8 = lax.transpose %ys8 permutation = [1, 0] : tensor<45x70xi8> -> tensor<70x45xi8>
  %gt = lax.transpose %g permutation = [1, 0] : tensor<70x45xf64> -> tensor<45x70xf64>
  %z64 = lax.constant dense<0.0> : tensor<70xf64>
  %l64, %ys64 = lax.scan length = 45 carry(%z64) xs(%gt)
      : (tensor<70xf64>, tensor<45x70xf64>) -> (tensor<70xf64>, tensor<45x70xf64>) {
  ^bb0(%c: tensor<70xf64>, %xi: tensor<70xf64>):
    %t = lax.sub %xi, %c : tensor<70xf64>
    lax.yield %t, %t : tensor<70xf64>, tensor<70xf64>
  }
  %o64 = lax.transpose %ys64 permutation = [1, 0] : tensor<45x70xf64> -> tensor<70x45xf64>
  return %o16, %o32, %oh, %ob, %o8, %o64 : tensor<70x45xi32>, tensor<70x45xf32>, tensor<70x45xf16>, tensor<70x45xbf16>, tensor<70x45xi8>, tensor<70x45xf64>
}
