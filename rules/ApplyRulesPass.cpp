//===- ApplyRulesPass.cpp - the --kiln-apply-rules pass -------------------===//
//
// Loads the rule files when the pass is initialized (a rule file error fails
// the pipeline before any IR is touched), then runs the enabled rules and
// the plugins' C++ patterns with MLIR's greedy driver. When the driver does
// not converge, one more bounded round records which rules kept firing.
//
//===----------------------------------------------------------------------===//
#include "rules/ApplyRules.h"

#include "rules/RuleRuntime.h"
#include "rules/RuleSet.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <map>

using namespace kiln::rules;
using namespace mlir;

RuleOptions &kiln::rules::globalRuleOptions() {
  static RuleOptions options;
  return options;
}

bool kiln::rules::rulesRequested() {
  const RuleOptions &o = globalRuleOptions();
  return !o.paths.empty() || !o.patternProviders.empty();
}

namespace {
// On builtin.module only: the rules' trace/stats state is shared by the
// pattern set, so the pass must not run on several functions in parallel.
struct ApplyRulesPass : public PassWrapper<ApplyRulesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ApplyRulesPass)

  ApplyRulesPass() = default;
  ApplyRulesPass(const ApplyRulesPass &other)
      : PassWrapper(other), rules(other.rules), phases(other.phases) {}

  StringRef getArgument() const override { return "kiln-apply-rules"; }
  StringRef getDescription() const override {
    return "Apply YAML rewrite rules (--rules) and plugin patterns with the greedy driver";
  }

  ListOption<std::string> files{*this, "rules",
                                llvm::cl::desc("Rule files or directories (besides --rules)")};
  Option<std::string> tags{*this, "tags", llvm::cl::desc("Tags to enable (+t) or disable (-t)"),
                           llvm::cl::init("")};
  Option<int> maxIterations{*this, "max-iterations",
                            llvm::cl::desc("Greedy driver iterations before non-convergence "
                                           "is an error (0: --rule-max-iterations)"),
                            llvm::cl::init(0)};

  std::shared_ptr<RuleSet> rules;
  /// One pattern set per phase (plugin C++ patterns run in phase 0).
  std::vector<std::pair<int, std::shared_ptr<const FrozenRewritePatternSet>>> phases;

  LogicalResult initialize(MLIRContext *ctx) override {
    const RuleOptions &g = globalRuleOptions();
    rules = std::make_shared<RuleSet>(ctx);
    bool ok = true;
    for (const std::string &p : g.paths)
      ok &= succeeded(rules->loadPath(p));
    for (const std::string &p : files)
      ok &= succeeded(rules->loadPath(p));
    if (!ok)
      return failure();
    rules->setTags(g.tags);
    rules->setTags(tags);
    if (!g.explain.empty() && !rules->lookup(g.explain))
      return emitError(UnknownLoc::get(ctx))
             << "--rule-explain: no rule named '" << g.explain << "' is loaded";
    if (g.dumpPdl)
      llvm::errs() << rules->describe();
    RuleRuntime &rt = rules->getRuntime();
    rt.trace = g.trace;
    rt.verify = g.verify;
    phases.clear();
    for (int phase : rules->getPhases()) {
      RewritePatternSet set(ctx);
      if (failed(rules->populate(set, phase)))
        return failure();
      if (phase == 0)
        for (auto &provider : g.patternProviders)
          provider(set);
      phases.emplace_back(phase, std::make_shared<FrozenRewritePatternSet>(std::move(set)));
    }
    return success();
  }

  /// Runs one phase to a fixpoint; a verification failure or
  /// non-convergence is an error.
  LogicalResult runPhase(int phase, const FrozenRewritePatternSet &patterns, int iterations) {
    const RuleOptions &g = globalRuleOptions();
    Operation *op = getOperation();
    RuleRuntime &rt = rules->getRuntime();
    GreedyRewriteConfig config;
    config.setListener(&rt);
    config.setMaxIterations(iterations);
    config.setMaxNumRewrites(g.maxRewrites);
    bool converged = succeeded(applyPatternsGreedily(op, patterns, config));
    if (!rt.brokenBy.empty())
      return failure();
    if (converged)
      return success();
    // One more bounded round: the rules that still fire are the culprits.
    rt.log.clear();
    config.setMaxIterations(1);
    config.setMaxNumRewrites(1000);
    (void)applyPatternsGreedily(op, patterns, config);
    std::map<std::string, unsigned> counts;
    for (const std::string &n : rt.log)
      ++counts[n];
    InFlightDiagnostic diag = op->emitError() << "rewrite rules did not converge after "
                                              << iterations << " iterations";
    if (phase)
      diag << " in phase " << phase;
    if (counts.empty()) {
      diag << " (no rule fired in one more round; folding keeps changing the IR)";
    } else {
      diag << "; rules that kept firing:";
      for (auto &[name, n] : counts)
        diag << " '" << name << "' (" << n << "x)";
    }
    return failure();
  }

  void runOnOperation() override {
    const RuleOptions &g = globalRuleOptions();
    Operation *op = getOperation();
    RuleRuntime &rt = rules->getRuntime();
    rt.scope = op;
    rt.brokenBy.clear();
    int iterations = maxIterations ? int(maxIterations) : g.maxIterations;
    for (auto &[phase, patterns] : phases)
      if (failed(runPhase(phase, *patterns, iterations)))
        return signalPassFailure();
    if (!g.explain.empty()) {
      const CompiledRule *r = rules->lookup(g.explain);
      explainRule(*r, rules->isEnabled(r->rule), op);
    }
    if (g.stats) {
      llvm::errs() << "rule-stats:\n";
      std::map<std::string, unsigned> all = rt.applied;
      for (auto &r : rules->getRules())
        if (rules->isEnabled(r->rule))
          all.try_emplace(r->rule.name, 0);
      for (auto &[name, n] : all)
        llvm::errs() << "  " << name << ": " << n << "\n";
    }
  }
};
} // namespace

std::unique_ptr<Pass> kiln::rules::createApplyRulesPass() {
  return std::make_unique<ApplyRulesPass>();
}

void kiln::registerKilnRules() { PassRegistration<ApplyRulesPass>(); }
