//===- CompileCacheKeyTest.cpp - the cache key names every option --------===//
//
// A compile option the compile cache's key forgot would make a compile
// with it reuse object code built without it. The key is derived from the
// options' declarations (lowering/CpuPipelineOptions.def,
// compiler/CompileOptions.def); this test changes every declared option in
// turn and checks the key changes -- or, for an option declared not KEYED,
// that it does not.
//
//===----------------------------------------------------------------------===//
#include "compiler/Compiler.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace kiln;

namespace {

bool changed(bool v) { return !v; }
int64_t changed(int64_t v) { return v + 1; }
unsigned changed(unsigned v) { return v == 0 ? 1 : v - 1; }
std::string changed(const std::string &v) { return v + "x"; }
Target changed(Target v) { return v == Target::Cpu ? Target::Gpu : Target::Cpu; }

struct KeyTest : ::testing::Test {
  void SetUp() override {
    Compiler::prepareContext(ctx);
    module = mlir::parseSourceString<mlir::ModuleOp>(R"(
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.exp %a : tensor<4xf32>
  return %0 : tensor<4xf32>
})",
                                                     &ctx);
    ASSERT_TRUE(module);
  }
  std::string key(const CompileOptions &options, const std::string &chip = "") {
    return compileCacheKeyText(*module, "main", options, chip, "build");
  }
  mlir::MLIRContext ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

TEST_F(KeyTest, EveryPipelineOptionChangesTheKey) {
  const std::string base = key(CompileOptions());
  int count = 0;
#define KILN_CPU_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, DESCRIPTION)                     \
  {                                                                                           \
    CompileOptions options;                                                                   \
    options.FIELD = changed(options.FIELD);                                                   \
    EXPECT_NE(key(options), base) << "the cache key does not name " FLAG;                     \
    ++count;                                                                                  \
  }
#include "lowering/CpuPipelineOptions.def"
  EXPECT_GE(count, 10);
}

TEST_F(KeyTest, KeyedCompileOptionsChangeTheKeyAndOnlyThey) {
  const std::string base = key(CompileOptions());
#define KILN_COMPILE_OPTION(TYPE, FIELD, DEFAULT, KEYED, DESCRIPTION)                         \
  {                                                                                           \
    CompileOptions options;                                                                   \
    options.FIELD = changed(options.FIELD);                                                   \
    if (KEYED) {                                                                              \
      EXPECT_NE(key(options), base) << "the cache key does not name " #FIELD;                 \
    } else if (std::string(#FIELD) != "target") {                                             \
      EXPECT_EQ(key(options), base) << #FIELD " is declared not to change the object";        \
    }                                                                                         \
  }
#include "compiler/CompileOptions.def"
}

TEST_F(KeyTest, TheTargetIsNamedWithItsResolvedChip) {
  CompileOptions gpu;
  gpu.target = Target::Gpu;
  EXPECT_NE(key(gpu, "sm_90"), key(CompileOptions()));
  EXPECT_NE(key(gpu, "sm_90"), key(gpu, "sm_80"));
  // gpuChip as given is not keyed: the resolved chip is.
  CompileOptions named = gpu;
  named.gpuChip = "sm_90";
  EXPECT_EQ(key(named, "sm_90"), key(gpu, "sm_90"));
}

} // namespace
