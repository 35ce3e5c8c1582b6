//===- LoweringTestUtils.h - JIT helpers for the lowering tests -*- C++ -*-===//
#ifndef KILN_TESTS_UNIT_LOWERING_LOWERINGTESTUTILS_H
#define KILN_TESTS_UNIT_LOWERING_LOWERINGTESTUTILS_H

#include "compiler/Compiler.h"
#include "compiler/HeapStats.h"
#include "tools/JitRun.h"
#include "tests/unit/SourceFiles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace kiln::test {

/// Compiles `src`'s @`entry`, failing the test with the diagnostics if not.
inline std::unique_ptr<Executable> jit(const std::string &src,
                                       const std::string &entry = "main",
                                       CompileOptions options = {}) {
  std::string error;
  auto exe = Compiler(options).compileSource(src, entry, &error);
  EXPECT_TRUE(exe) << error;
  return exe;
}

/// Runs `exe` on typed host vectors: inputs/outputs as raw byte vectors.
template <typename Out, typename... In>
std::vector<Out> run1(const Executable &exe, std::vector<In> &...inputs) {
  std::vector<BufferView> ins;
  size_t i = 0;
  (ins.push_back(BufferView{inputs.data(), exe.inputs()[i++].shape,
                            exe.inputs()[i - 1].kind}),
   ...);
  std::vector<Out> out(exe.outputs()[0].numElements());
  std::vector<BufferView> outs{
      BufferView{out.data(), exe.outputs()[0].shape, exe.outputs()[0].kind}};
  std::string error;
  EXPECT_TRUE(exe.call(ins, outs, &error)) << error;
  return out;
}

inline void expectNear(const std::vector<float> &got,
                       const std::vector<float> &want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
      continue;
    }
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << "at " << i;
  }
}

/// Deterministic pseudo-random floats in [-1, 1).
inline std::vector<float> randomFloats(size_t n, unsigned seed) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (auto &x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>((s >> 8) & 0xffff) / 32768.0f - 1.0f;
  }
  return v;
}

} // namespace kiln::test

#endif // KILN_TESTS_UNIT_LOWERING_LOWERINGTESTUTILS_H
