//===- StructureLoweringTest.cpp - JIT vs hand values, structural ops -----===//
#include "tests/unit/lowering/LoweringTestUtils.h"

using namespace kiln;
using namespace kiln::test;

namespace {

std::vector<float> iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(i);
  return v;
}

TEST(StructureLowering, BroadcastTransposeReshape) {
  const char *src = R"(
func.func @main(%a: tensor<2x3xf32>, %r: tensor<3xf32>) -> tensor<3x2x2xf32> {
  %b = lax.broadcast_in_dim %r shape = [2, 3] dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
  %s = lax.add %a, %b : tensor<2x3xf32>
  %t = lax.transpose %s permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %e = lax.expand_dims %t dims = [2] : tensor<3x2xf32> -> tensor<3x2x1xf32>
  %w = lax.broadcast_in_dim %e shape = [3, 2, 2] dims = [0, 1, 2] : tensor<3x2x1xf32> -> tensor<3x2x2xf32>
  return %w : tensor<3x2x2xf32>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  auto a = iota(6);
  std::vector<float> r = {10, 20, 30};
  std::vector<float> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k)
        want.push_back(a[j * 3 + i] + r[i]);
  expectNear(run1<float>(*exe, a, r), want);
}

TEST(StructureLowering, ReshapeSqueezeRev) {
  const char *src = R"(
func.func @main(%a: tensor<2x3x1xf32>) -> tensor<3x2xf32> {
  %s = lax.squeeze %a dims = [2] : tensor<2x3x1xf32> -> tensor<2x3xf32>
  %r = lax.reshape %s : tensor<2x3xf32> -> tensor<3x2xf32>
  %v = lax.rev %r dims = [0, 1] : tensor<3x2xf32>
  return %v : tensor<3x2xf32>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  auto a = iota(6);
  std::vector<float> want = {5, 4, 3, 2, 1, 0};
  expectNear(run1<float>(*exe, a), want);
}

TEST(StructureLowering, ReshapeNonCollapsible) {
  const char *src = R"(
func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %r = lax.reshape %a : tensor<2x3xf32> -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  auto a = iota(6);
  expectNear(run1<float>(*exe, a), iota(6));
}

TEST(StructureLowering, SliceConcatenateIota) {
  const char *src = R"(
func.func @main(%a: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %s = lax.slice %a start = [0, 1] limit = [4, 5] strides = [2, 2] : tensor<4x5xf32> -> tensor<2x2xf32>
  %i = lax.iota dimension = 1 : tensor<2x3xf32>
  %c = lax.concatenate %s, %i dim = 1 : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x5xf32>
  %d = lax.concatenate %c, %c dim = 0 : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<4x5xf32>
  return %d : tensor<4x5xf32>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  auto a = iota(20);
  std::vector<float> row0 = {1, 3, 0, 1, 2}, row1 = {11, 13, 0, 1, 2};
  std::vector<float> want;
  for (int rep = 0; rep < 2; ++rep) {
    want.insert(want.end(), row0.begin(), row0.end());
    want.insert(want.end(), row1.begin(), row1.end());
  }
  expectNear(run1<float>(*exe, a), want);
}

TEST(StructureLowering, DynamicSliceClamps) {
  const char *src = R"(
func.func @main(%a: tensor<4x5xf32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<2x3xf32> {
  %s = lax.dynamic_slice %a [%i, %j] sizes = [2, 3] : (tensor<4x5xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  auto a = iota(20);
  // (1, 7) clamps to (1, 2); (-3, 1) clamps to (0, 1).
  for (auto [i, j, ci, cj] :
       {std::array<int, 4>{1, 7, 1, 2}, {-3, 1, 0, 1}, {2, 0, 2, 0}}) {
    std::vector<int32_t> vi{i}, vj{j};
    std::vector<float> want;
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 3; ++c)
        want.push_back(a[(ci + r) * 5 + cj + c]);
    expectNear(run1<float>(*exe, a, vi, vj), want);
  }
}

TEST(StructureLowering, DynamicUpdateSliceClampsAndKeepsInput) {
  const char *src = R"(
func.func @main(%a: tensor<3x4xf32>, %u: tensor<2x2xf32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<3x4xf32> {
  %s = lax.dynamic_update_slice %a [%i, %j], %u : (tensor<3x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<3x4xf32>
  return %s : tensor<3x4xf32>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  auto a = iota(12);
  std::vector<float> u = {-1, -2, -3, -4};
  std::vector<int32_t> i{5}, j{1};
  auto want = a;
  // (5, 1) clamps to (1, 1).
  want[1 * 4 + 1] = -1;
  want[1 * 4 + 2] = -2;
  want[2 * 4 + 1] = -3;
  want[2 * 4 + 2] = -4;
  auto before = a;
  expectNear(run1<float>(*exe, a, u, i, j), want);
  EXPECT_EQ(a, before) << "inputs must not be written";
}

TEST(StructureLowering, Constant) {
  const char *src = R"(
func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %c = lax.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %r = lax.mul %a, %c : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  std::vector<float> a = {2, 2, 2, 2};
  expectNear(run1<float>(*exe, a), {2, 4, 6, 8});
}

} // namespace
