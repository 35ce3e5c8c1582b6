//===- FuzzRuleLoader.cpp - libFuzzer target: YAML rule files -------------===//
//
// Any byte string as a rule file must load (and compile to PDL and to
// patterns) or produce diagnostics: never crash, hang or leak. Loaded rules
// are also applied to a small lax module with per-application verification
// (kiln-opt --rule-verify): the IR must verify unless a rule was reported
// for breaking it.
//
//===----------------------------------------------------------------------===//
#include "tests/fuzz/FuzzContext.h"
#include "rules/RuleRuntime.h"
#include "rules/RuleSet.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cstdlib>
#include <string>

static const char *kModule = R"(
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> (tensor<4x2xf32>, tensor<2x3xf32>) {
  %t = lax.transpose %a permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %u = lax.transpose %t permutation = [1, 0] : tensor<3x2xf32> -> tensor<2x3xf32>
  %d = lax.dot_general %u, %b contracting = [1] x [0] batch = [] x [] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %e = lax.transpose %d permutation = [1, 0] : tensor<2x4xf32> -> tensor<4x2xf32>
  %n = lax.neg %u : tensor<2x3xf32>
  %m = lax.neg %n : tensor<2x3xf32>
  return %e, %m : tensor<4x2xf32>, tensor<2x3xf32>
})";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext *context = &kiln::fuzz::context();
  kiln::fuzz::IgnoreDiagnostics ignore(*context);
  kiln::rules::RuleSet rules(context);
  if (failed(rules.loadString(std::string(reinterpret_cast<const char *>(data), size),
                              "fuzz.yaml")))
    return 0;
  rules.setTags("+reassociates-float");
  mlir::RewritePatternSet patterns(context);
  if (failed(rules.populate(patterns)))
    return 0;
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kModule, context);
  if (!module)
    std::abort();
  mlir::FrozenRewritePatternSet frozen(std::move(patterns));
  // As kiln-opt --rule-verify: the IR is verified after every application
  // and a rule that breaks it is named. A rule may well be wrong (the seed
  // corpus has one on purpose); invalid IR that nobody reported is the bug.
  kiln::rules::RuleRuntime &runtime = rules.getRuntime();
  runtime.verify = true;
  runtime.scope = *module;
  // kiln-opt's bounds (ApplyRulesPass), smaller: a rule that grows the IR
  // forever (the corpus has neg -> neg(neg(neg))) stops after a few hundred
  // ops instead of verifying ever larger modules until the fuzzer's timeout.
  runtime.boundGrowth(*module, /*slack=*/200);
  mlir::GreedyRewriteConfig config;
  config.setListener(&runtime);
  config.setMaxIterations(4);
  config.setMaxNumRewrites(1000);
  (void)mlir::applyPatternsGreedily(*module, frozen, config);
  if (runtime.brokenBy.empty() && failed(mlir::verify(*module)))
    std::abort(); // invalid IR and no rule reported it
  return 0;
}
