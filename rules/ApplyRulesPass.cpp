//===- ApplyRulesPass.cpp - the --kiln-apply-rules pass -------------------===//
//
// Loads the rule files when the pass is initialized (a rule file error fails
// the pipeline before any IR is touched), then runs the enabled rules and
// the plugins' C++ patterns with MLIR's greedy driver. When the driver does
// not converge, one more bounded round records which rules kept firing.
// Everything it does is set by its options (rules/Passes.td); a tool's
// top-level flags reach them through addRuleFlags.
//
//===----------------------------------------------------------------------===//
#include "rules/ApplyRules.h"

#include "rules/PluginLoader.h"
#include "rules/RuleRuntime.h"
#include "rules/RuleSet.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <algorithm>
#include <map>

namespace kiln {
#define GEN_PASS_DEF_APPLYRULES
#define GEN_PASS_REGISTRATION
#include "rules/Passes.h.inc"
} // namespace kiln

using namespace kiln::rules;
using namespace mlir;

namespace {
struct ApplyRulesPass : public kiln::impl::ApplyRulesBase<ApplyRulesPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ApplyRulesPass)

  using ApplyRulesBase::ApplyRulesBase;

  /// How many leading `ruleFiles` came from a tool's --rules (addFlags):
  /// the plugins' rule files load after them, before the pass's own.
  size_t flagFiles = 0;

  std::shared_ptr<RuleSet> rules;
  /// One pattern set per phase (plugin C++ patterns run in phase 0).
  std::vector<std::pair<int, std::shared_ptr<const FrozenRewritePatternSet>>> phases;

  /// Takes a tool's top-level flags (see kiln::rules::addRuleFlags).
  void addFlags(const kiln::ApplyRulesOptions &flags) {
    std::vector<std::string> files(flags.ruleFiles.begin(), flags.ruleFiles.end());
    files.insert(files.end(), ruleFiles.begin(), ruleFiles.end());
    ruleFiles = files;
    flagFiles += flags.ruleFiles.size();
    if (!flags.tags.empty())
      tags = tags.empty() ? flags.tags : flags.tags + "," + tags;
    trace = trace || flags.trace;
    stats = stats || flags.stats;
    verify = verify || flags.verify;
    dumpPdl = dumpPdl || flags.dumpPdl;
    if (explain.empty())
      explain = flags.explain;
    if (!maxIterations.hasValue() || maxIterations == 0)
      maxIterations = flags.maxIterations;
    if (!maxRewrites.hasValue())
      maxRewrites = flags.maxRewrites;
  }

  LogicalResult initialize(MLIRContext *ctx) override {
    // Bounds are positive: 0 would apply nothing and report success, a
    // negative one would let rules that never converge run forever.
    if (maxIterations <= 0)
      return emitError(UnknownLoc::get(ctx))
             << "--rule-max-iterations must be positive (got " << int(maxIterations) << ")";
    if (maxRewrites <= 0)
      return emitError(UnknownLoc::get(ctx))
             << "--rule-max-rewrites must be positive (got " << int64_t(maxRewrites) << ")";
    // The tool's --plugin, then the pass's own; a plugin named twice counts once.
    std::vector<const LoadedPlugin *> used = commandLinePlugins();
    for (const std::string &path : plugins) {
      std::string error;
      const LoadedPlugin *plugin = loadPlugin(path, error);
      if (!plugin)
        return emitError(UnknownLoc::get(ctx)) << error;
      if (llvm::find(used, plugin) == used.end())
        used.push_back(plugin);
    }
    std::vector<std::string> pluginFiles;
    for (const LoadedPlugin *plugin : used)
      pluginFiles.insert(pluginFiles.end(), plugin->ruleFiles.begin(), plugin->ruleFiles.end());
    rules = std::make_shared<RuleSet>(ctx, nativesOf(used));
    // The tool's --rules, the plugins' rule files, then the pass's own.
    std::vector<std::string> paths(ruleFiles.begin(), ruleFiles.end());
    size_t at = std::min(flagFiles, paths.size());
    paths.insert(paths.begin() + at, pluginFiles.begin(), pluginFiles.end());
    bool ok = true;
    for (const std::string &p : paths)
      ok &= succeeded(rules->loadPath(p));
    if (!ok)
      return failure();
    // A misspelt tag would silently enable nothing (--rule-tags=+asumes-positive).
    if (auto unknown = rules->unknownTags(tags); !unknown.empty())
      return emitError(UnknownLoc::get(ctx))
             << "--rule-tags: unknown tag '" << unknown.front()
             << "': no loaded rule has it (Kiln's tags: exact, reassociates-float, "
                "changes-precision; a rule file's own tags count once it is loaded)";
    rules->setTags(tags);
    if (!explain.empty() && !rules->lookup(explain))
      return emitError(UnknownLoc::get(ctx))
             << "--rule-explain: no rule named '" << explain << "' is loaded";
    if (dumpPdl)
      llvm::errs() << rules->describe();
    RuleRuntime &rt = rules->getRuntime();
    rt.trace = trace;
    rt.verify = verify;
    phases.clear();
    for (int phase : rules->getPhases()) {
      RewritePatternSet set(ctx);
      if (failed(rules->populate(set, phase)))
        return failure();
      if (phase == 0)
        for (const LoadedPlugin *plugin : used)
          for (auto &provider : plugin->patternProviders)
            provider(set);
      phases.emplace_back(phase, std::make_shared<FrozenRewritePatternSet>(std::move(set)));
    }
    return success();
  }

  /// Runs one phase to a fixpoint; a verification failure or
  /// non-convergence is an error.
  LogicalResult runPhase(int phase, const FrozenRewritePatternSet &patterns, int iterations) {
    Operation *op = getOperation();
    RuleRuntime &rt = rules->getRuntime();
    GreedyRewriteConfig config;
    config.setListener(&rt);
    config.setMaxIterations(iterations);
    config.setMaxNumRewrites(maxRewrites);
    // Constants stay where they are: the driver's constant CSE would move
    // them to the top of the function (out of scan bodies) even where no
    // rule fires.
    config.enableConstantCSE(false);
    int64_t numOps = rt.boundGrowth(op, /*slack=*/10000);
    rt.clearLog();
    bool converged;
    {
      RuleRuntime::Active active(rt); // the listener of every change below
      converged = succeeded(applyPatternsGreedily(op, patterns, config));
    }
    if (!rt.brokenBy.empty())
      return failure();
    if (rt.grew) {
      // The rules that fired are the ones that grew it.
      std::map<std::string, unsigned> counts;
      for (const std::string &n : rt.log)
        ++counts[n];
      InFlightDiagnostic diag = emitError(rt.haveFirstLoc ? rt.firstLoc : op->getLoc())
                                << "rewrite rules grew the IR by more than " << rt.maxGrowth
                                << " ops (from " << numOps << ")";
      if (phase)
        diag << " in phase " << phase;
      diag << "; rules that fired:";
      for (auto &[name, n] : counts)
        diag << " '" << name << "' (" << n << "x, first at " << rt.firstAt[name] << ")";
      rt.grew = false;
      return failure();
    }
    if (converged)
      return success();
    // One more bounded round: the rules that still fire are the culprits.
    rt.clearLog();
    config.setMaxIterations(1);
    config.setMaxNumRewrites(std::min<int64_t>(int64_t(maxRewrites), 1000));
    {
      RuleRuntime::Active active(rt);
      (void)applyPatternsGreedily(op, patterns, config);
    }
    std::map<std::string, unsigned> counts;
    for (const std::string &n : rt.log)
      ++counts[n];
    // At the first rule's location, without the op (a module would be
    // printed whole).
    InFlightDiagnostic diag = emitError(rt.haveFirstLoc ? rt.firstLoc : op->getLoc())
                              << "rewrite rules did not converge after " << iterations
                              << " iterations (at most " << int64_t(maxRewrites) << " rewrites)";
    if (phase)
      diag << " in phase " << phase;
    if (counts.empty()) {
      diag << " (no rule fired in one more round; folding keeps changing the IR)";
    } else {
      diag << "; rules still firing in one more round:";
      for (auto &[name, n] : counts)
        diag << " '" << name << "' (" << n << "x, first at " << rt.firstAt[name] << ")";
    }
    return failure();
  }

  void runOnOperation() override {
    Operation *op = getOperation();
    RuleRuntime &rt = rules->getRuntime();
    rt.scope = op;
    rt.brokenBy.clear();
    // Explained on the input, before any rule rewrites it.
    if (!explain.empty()) {
      const CompiledRule *r = rules->lookup(explain);
      explainRule(*r, rules->isEnabled(r->rule), op);
    }
    // An error reported while the rules run (a plugin's native function
    // that threw) fails the pass: the rules ran on, but the result is not
    // what the rules say.
    bool errorReported = false;
    ScopedDiagnosticHandler watch(&getContext(), [&](Diagnostic &diag) {
      errorReported |= diag.getSeverity() == DiagnosticSeverity::Error;
      return failure(); // on to the handlers that print it
    });
    for (auto &[phase, patterns] : phases)
      if (failed(runPhase(phase, *patterns, maxIterations)))
        return signalPassFailure();
    if (errorReported)
      return signalPassFailure();
    if (stats) {
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

unsigned kiln::rules::addRuleFlags(OpPassManager &pm, const kiln::ApplyRulesOptions &flags) {
  unsigned n = 0;
  for (Pass &pass : pm.getPasses())
    if (auto *applyRules = llvm::dyn_cast<ApplyRulesPass>(&pass)) {
      applyRules->addFlags(flags);
      ++n;
    }
  return n;
}

void kiln::registerKilnRules() { registerKilnRulesPasses(); }
