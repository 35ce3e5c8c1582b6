//===- Plugin.cpp - an out-of-tree kiln-opt plugin ------------------------===//
//
// Adds, without rebuilding Kiln:
//  - a native constraint `is_even(int)`, used by plugin_rules.yaml;
//  - that YAML rule file (integer_pow(neg(x), even n) -> integer_pow(x, n));
//  - a C++ RewritePattern: rev(rev(x, d), d) -> x, named "plugin-rev-rev";
//  - a pass, --example-count-ops, remarking how many ops a function has.
//
//===----------------------------------------------------------------------===//
#include "rules/KilnPlugin.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace {
/// rev(rev(x, d), d) is x. Written against op names: the plugin needs no
/// Kiln library, only libMLIR.
struct RevOfRev : public RewritePattern {
  RevOfRev(MLIRContext *ctx) : RewritePattern("lax.rev", 1, ctx) {
    setDebugName("plugin-rev-rev");
  }
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    Operation *inner = op->getOperand(0).getDefiningOp();
    if (!inner || inner->getName() != op->getName() ||
        inner->getAttr("dimensions") != op->getAttr("dimensions"))
      return failure();
    rewriter.replaceOp(op, inner->getOperand(0));
    return success();
  }
};

struct CountOpsPass : public PassWrapper<CountOpsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CountOpsPass)
  StringRef getArgument() const override { return "example-count-ops"; }
  StringRef getDescription() const override { return "Remark the number of ops"; }
  void runOnOperation() override {
    unsigned n = 0;
    getOperation()->walk([&](Operation *) { ++n; });
    getOperation()->emitRemark() << "example plugin: " << n << " ops";
  }
};

bool registerPlugin(kiln::PluginRegistrar *registrar) {
  using kiln::rules::ArgKind;
  using kiln::rules::Val;
  registrar->natives().addConstraint(
      "is_even", {ArgKind::Int}, [](llvm::ArrayRef<Val> a) { return *a[0].asInt() % 2 == 0; },
      "the integer is even");
  registrar->addPatterns([](RewritePatternSet &set) { set.add<RevOfRev>(set.getContext()); });
  registrar->addRuleFile(KILN_EXAMPLE_PLUGIN_RULES);
  PassRegistration<CountOpsPass>();
  return true;
}
} // namespace

extern "C" KilnPluginInfo kilnGetPluginInfo() {
  return {KILN_PLUGIN_API_VERSION, "example", LLVM_VERSION_STRING, registerPlugin};
}
