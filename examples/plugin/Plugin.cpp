//===- Plugin.cpp - an out-of-tree kiln-opt plugin ------------------------===//
//
// Adds, without rebuilding Kiln:
//  - a native constraint `is_even(int)`, used by plugin_rules.yaml;
//  - that YAML rule file (integer_pow(neg(x), even n) -> integer_pow(x, n));
//  - a typed C++ RewritePattern on kiln::lax::RevOp: rev(rev(x, d), d) -> x,
//    named "plugin-rev-rev";
//  - a pass, --example-count-ops, remarking how many ops a function has;
//  - the scan push-up (jax-ml/jax#4968) as a C++ pattern, "plugin-scan-pushup", composed from
//    Kiln's native building blocks looked up by name (exact steps only: the
//    float sums that would regroup are left alone).
//
//===----------------------------------------------------------------------===//
#include "rules/KilnPlugin.h"
#include "dialect/LaxOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace {
/// rev(rev(x, d), d) is x. Written against the typed lax ops of Kiln's
/// installed headers (Kiln::Lax): the accessors ODS generates, checked by the
/// compiler, not attribute names spelled as strings.
struct RevOfRev : public OpRewritePattern<kiln::lax::RevOp> {
  RevOfRev(MLIRContext *ctx) : OpRewritePattern(ctx) { setDebugName("plugin-rev-rev"); }
  LogicalResult matchAndRewrite(kiln::lax::RevOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getOperand().getDefiningOp<kiln::lax::RevOp>();
    if (!inner || inner.getDimensions() != op.getDimensions())
      return failure();
    rewriter.replaceOp(op, inner.getOperand());
    return success();
  }
};

/// The push-up as a plugin pattern: Kiln's building blocks are native
/// functions of the rule registry, so a plugin calls them by name like a YAML
/// rule does. Each leaves the IR untouched when it does not apply.
struct ScanPushUp : public RewritePattern {
  ScanPushUp(MLIRContext *ctx, const kiln::rules::NativeFunction *sink,
             const kiln::rules::NativeFunction *push,
             const kiln::rules::NativeFunction *regroups)
      : RewritePattern(MatchAnyOpTypeTag(), 1, ctx), sink(sink), push(push),
        regroups(regroups) {
    setDebugName("plugin-scan-pushup");
  }
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    using kiln::rules::Val;
    llvm::SmallVector<Val> arg = {Val::ofOp(op)};
    if (op->getName().getStringRef().starts_with("lax.reduce_")) {
      std::optional<Val> reassociates = regroups->fn(rewriter, arg);
      if (reassociates && reassociates->asBool().value_or(true))
        return failure(); // float sum/product: regrouping is not exact
      return success(push->fn(rewriter, arg).has_value());
    }
    return success(sink->fn(rewriter, arg).has_value());
  }
  const kiln::rules::NativeFunction *sink, *push, *regroups;
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
  const kiln::rules::NativeFunction *sink =
      registrar->natives().lookup("sink_elementwise_into_scan");
  const kiln::rules::NativeFunction *push =
      registrar->natives().lookup("push_reduction_into_scan");
  const kiln::rules::NativeFunction *regroups =
      registrar->natives().lookup("reduction_reassociates");
  if (!sink || !push || !regroups)
    return false; // this Kiln lacks the building blocks: refuse clearly
  registrar->addPatterns([=](RewritePatternSet &set) {
    set.add<ScanPushUp>(set.getContext(), sink, push, regroups);
  });
  registrar->addRuleFile(KILN_EXAMPLE_PLUGIN_RULES);
  PassRegistration<CountOpsPass>();
  return true;
}
} // namespace

extern "C" KilnPluginInfo kilnGetPluginInfo() {
  return {KILN_PLUGIN_API_VERSION, "example", LLVM_VERSION_STRING, registerPlugin};
}
