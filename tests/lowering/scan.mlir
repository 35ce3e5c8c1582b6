// RUN: kiln-opt --kiln-lax-to-linalg %s | FileCheck %s
// RUN: kiln-opt --kiln-lax-to-linalg --canonicalize --linalg-fuse-elementwise-ops --kiln-loop-carry-in-place --one-shot-bufferize="bufferize-function-boundaries allow-return-allocs-from-loops function-boundary-type-conversion=identity-layout-map" --canonicalize %s | FileCheck %s --check-prefix=BUF

// Reverse scan over axis 1: slice i of xs is read and slice i of ys written
// at index 3 - iv, with no transpose of xs or ys.
// CHECK-LABEL: func.func @reverse_axis1
// CHECK-NOT: linalg.transpose
// CHECK: %[[YS:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}}, %[[ACC:.*]] = %[[YS]])
// CHECK: %[[I:.*]] = arith.subi %{{.*}}, %[[IV]]
// CHECK: tensor.extract_slice %{{.*}}[0, %[[I]]] [3, 1] [1, 1] : tensor<3x4xf32> to tensor<3xf32>
// CHECK: %[[INS:.*]] = tensor.insert_slice %{{.*}} into %[[ACC]][0, %[[I]]] [3, 1] [1, 1] : tensor<3xf32> into tensor<3x4xf32>
// CHECK: scf.yield %{{.*}}, %{{.*}}, %[[INS]]
// CHECK-NOT: linalg.transpose
// After bufferization: the carries and ys are updated in place: no
// allocation or copy of them inside the loop (only the one-slice write).
// BUF-LABEL: func.func @reverse_axis1
// BUF: memref.alloc() {{.*}} : memref<3x4xf32>
// BUF: scf.for
// BUF-NOT: memref.alloc
// BUF: memref.subview %{{.*}} : memref<3x4xf32> to memref<3xf32, strided<[4], offset: ?>>
// BUF-NOT: memref.alloc
// BUF: memref.copy %{{.*}}, %{{.*}} : memref<3xf32> to memref<3xf32, strided<[4], offset: ?>>
// BUF-NEXT: }
func.func @reverse_axis1(%a0: tensor<3xf32>, %b0: tensor<3xf32>, %xs: tensor<3x4xf32>) -> (tensor<3xf32>, tensor<3x4xf32>) {
  %a, %b, %ys = lax.scan length = 4 carry(%a0, %b0) xs(%xs)
      {reverse = true, xs_axes = array<i64: 1>, ys_axes = array<i64: 1>}
      : (tensor<3xf32>, tensor<3xf32>, tensor<3x4xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3x4xf32>) {
  ^bb0(%p: tensor<3xf32>, %q: tensor<3xf32>, %x: tensor<3xf32>):
    %s = lax.add %p, %x : tensor<3xf32>
    %m = lax.mul %q, %x : tensor<3xf32>
    %y = lax.sub %s, %m : tensor<3xf32>
    lax.yield %s, %y, %y : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
  return %a, %ys : tensor<3xf32>, tensor<3x4xf32>
}

// Consts are used directly; forward scans index with the induction variable.
// CHECK-LABEL: func.func @consts_forward
// CHECK: scf.for %[[IV:.*]] = {{.*}} iter_args(%[[C:.*]] = %arg1, %[[ACC:.*]] = %{{.*}}) -> (tensor<3xf32>, tensor<5x3xf32>)
// CHECK-NOT: arith.subi
// CHECK: tensor.extract_slice %arg2[%[[IV]], 0] [1, 3] [1, 1] : tensor<5x3xf32> to tensor<3xf32>
// CHECK: ins(%{{.*}}, %arg0 :
// CHECK: tensor.insert_slice %{{.*}} into %[[ACC]][%[[IV]], 0] [1, 3] [1, 1]
func.func @consts_forward(%k: tensor<3xf32>, %c0: tensor<3xf32>, %xs: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %c, %ys = lax.scan length = 5 consts(%k) carry(%c0) xs(%xs)
      : (tensor<3xf32>, tensor<3xf32>, tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) {
  ^bb0(%kk: tensor<3xf32>, %acc: tensor<3xf32>, %x: tensor<3xf32>):
    %m = lax.mul %x, %kk : tensor<3xf32>
    %n = lax.add %acc, %m : tensor<3xf32>
    lax.yield %n, %n : tensor<3xf32>, tensor<3xf32>
  }
  return %ys : tensor<5x3xf32>
}

// A value yielded as two carries (of different inits) gets a copy for the
// second: one-shot bufferization would give both results one buffer without
// knowing they alias, so the write into the first result below would change
// the second (tests/differential/regressions/scan-repeated-carry.mlir).
// BUF-LABEL: func.func @repeated_carry
// BUF: scf.for
// BUF: %[[A:.*]] = memref.alloc()
// BUF: %[[B:.*]] = memref.alloc()
// BUF: memref.copy %[[A]], %[[B]]
// BUF: scf.yield %[[A]], %[[B]]
func.func @repeated_carry(%k: tensor<4xi32>, %c1: tensor<4xi32>, %c2: tensor<4xi32>, %x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %r1, %r2 = lax.scan length = 4 consts(%k) carry(%c1, %c2) xs(%x) : (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  ^bb0(%kk: tensor<4xi32>, %a: tensor<4xi32>, %b: tensor<4xi32>, %i: tensor<i32>):
    %v = lax.dynamic_update_slice %kk[%i], %b : (tensor<4xi32>, tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    lax.yield %v, %v : tensor<4xi32>, tensor<4xi32>
  }
  %u = lax.constant dense<-100> : tensor<1xi32>
  %z = lax.constant dense<2> : tensor<i32>
  %w = lax.dynamic_update_slice %r1[%z], %u : (tensor<4xi32>, tensor<1xi32>, tensor<i32>) -> tensor<4xi32>
  return %w, %r2 : tensor<4xi32>, tensor<4xi32>
}
