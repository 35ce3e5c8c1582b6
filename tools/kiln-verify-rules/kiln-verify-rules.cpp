//===- kiln-verify-rules.cpp - check rewrite rules numerically ------------===//
//
//   kiln-verify-rules --rules=FILE|DIR [--rules=...] [--plugin=LIB.so]
//                     [--seeds N] CORPUS.mlir...
//
// For each rule, every public function of every corpus module where the rule
// applies (alone: the other rules are off) is one instance. The function is
// run by the reference interpreter before and after the rewrite on N random
// input sets, and the largest absolute, relative and ulp differences are
// reported per rule. A rule whose differences exceed what its tags allow —
// exact: 1e-6 relative; reassociates-float: 1e-4; changes-precision: 1e-2 —
// or whose rewrite breaks the IR is reported UNSOUND with the instance, and
// the tool exits 1. Each instance is checked after one rewrite (one step of
// the rule) and after the rule is applied to a fixpoint; a rule still
// rewriting after 1000 rewrites of one function (it matches its own output)
// is reported DOES NOT CONVERGE and the tool exits 1 too.
//
//===----------------------------------------------------------------------===//
#include "tools/Registration.h"

#include "reference/Interpreter.h"
#include "rules/RuleSet.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>
#include <cstring>

namespace cl = llvm::cl;
using namespace mlir;
using namespace kiln;

static cl::list<std::string> corpus(cl::Positional, cl::desc("<corpus.mlir>..."), cl::OneOrMore);
static cl::list<std::string> rulePaths("rules", cl::desc("YAML rule file or directory"), cl::OneOrMore);
static cl::list<std::string> plugins("plugin", cl::desc("Load a Kiln plugin (repeatable)"));
/// Bound of the fixpoint application of one rule to one function (per
/// greedy iteration; at most 10 iterations).
static constexpr int64_t kMaxRewrites = 1000;

static cl::opt<unsigned> seeds("seeds", cl::desc("Random input sets per instance"), cl::init(3));

namespace {

/// Distance in units of the last place between two floats of `type`.
double ulps(double a, double b, Type type) {
  if (a == b || (std::isnan(a) && std::isnan(b)))
    return 0;
  if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b))
    return INFINITY;
  auto ordered = [](int64_t bits) { return bits < 0 ? INT64_MIN - bits : bits; };
  if (type.isF64()) {
    int64_t x, y;
    std::memcpy(&x, &a, 8);
    std::memcpy(&y, &b, 8);
    return std::fabs(double(ordered(x)) - double(ordered(y)));
  }
  float fa = float(a), fb = float(b);
  int32_t x, y;
  std::memcpy(&x, &fa, 4);
  std::memcpy(&y, &fb, 4);
  auto ordered32 = [](int32_t bits) { return bits < 0 ? int64_t(INT32_MIN) - bits : int64_t(bits); };
  return std::fabs(double(ordered32(x) - ordered32(y)));
}

double allowedRelative(const rules::Rule &rule) {
  double allowed = 1e-6;
  for (const std::string &tag : rule.tags) {
    if (tag == "reassociates-float")
      allowed = std::max(allowed, 1e-4);
    if (tag == "changes-precision")
      allowed = std::max(allowed, 1e-2);
  }
  return allowed;
}

struct RuleReport {
  unsigned instances = 0;
  double maxAbs = 0, maxRel = 0, maxUlp = 0;
  std::string unsound; // the first failing instance
};

/// Rewrites of one rule, applied to one function of a copy of the module.
struct Rewritten {
  OwningOpRef<ModuleOp> module;
  bool broken = false;    // the rewritten IR does not verify
  bool converged = true;  // the greedy driver reached a fixpoint
  bool changed = false;   // the function differs from the original
};

/// The patterns of one rule alone (the other rules are off), with the rule
/// set whose run-time state their native functions use.
struct RulePatterns {
  std::unique_ptr<rules::RuleSet> set;
  FrozenRewritePatternSet patterns;
};
std::optional<RulePatterns> patternsOf(llvm::StringRef ruleName, MLIRContext &context) {
  auto set = std::make_unique<rules::RuleSet>(&context);
  for (const std::string &path : rulePaths)
    if (failed(set->loadPath(path)))
      return std::nullopt;
  set->restrictTo(ruleName);
  RewritePatternSet patterns(&context);
  if (failed(set->populate(patterns)))
    return std::nullopt;
  return RulePatterns{std::move(set), FrozenRewritePatternSet(std::move(patterns))};
}

/// Applies `patterns` inside @`func` of a copy of `module`, at most
/// `maxRewrites` times. One rewrite
/// checks a single step of the rule; the bounded fixpoint checks repeated
/// application, and a rule that keeps matching its own output (it
/// oscillates) stops at the bound instead of running forever.
Rewritten rewriteFunction(ModuleOp module, llvm::StringRef func,
                                         const FrozenRewritePatternSet &patterns,
                                         int64_t maxRewrites) {
  Rewritten result{module.clone()};
  auto target = result.module->lookupSymbol<func::FuncOp>(func);
  std::string before;
  llvm::raw_string_ostream(before) << target;
  GreedyRewriteConfig config;
  // The bound on rewrites holds per iteration: one step is one iteration.
  config.setMaxIterations(maxRewrites == 1 ? 1 : 10).setMaxNumRewrites(maxRewrites);
  result.converged = succeeded(applyPatternsGreedily(target, patterns, config));
  std::string after;
  llvm::raw_string_ostream(after) << target;
  result.changed = before != after;
  result.broken = result.changed && failed(verify(*result.module));
  return result;
}

/// The original function on one random input set.
struct ReferenceRun {
  unsigned seed;
  SmallVector<interp::Tensor> inputs, outputs;
  bool failed = false; // the interpreter could not run the original
};

/// Runs @`func` of the original module on `seeds` random input sets: once
/// per instance, shared by every rewritten version it is compared with.
/// Stops at a function the interpreter cannot give inputs to.
SmallVector<ReferenceRun> referenceRuns(ModuleOp module, llvm::StringRef func) {
  SmallVector<ReferenceRun> runs;
  for (unsigned seed = 0; seed < seeds; ++seed) {
    auto inputs = interp::randomInputs(module, func, seed, /*positive=*/true);
    if (failed(inputs))
      break;
    auto outputs = interp::interpret(module, func, *inputs);
    runs.push_back({seed, std::move(*inputs), {}, failed(outputs)});
    if (failed(outputs))
      break;
    runs.back().outputs = std::move(*outputs);
  }
  return runs;
}

/// Runs @`func` of the rewritten module on the reference inputs and folds the
/// differences into `report`; sets report.unsound at the first violation.
void compareWithReference(ModuleOp after, llvm::StringRef func,
                          ArrayRef<ReferenceRun> references, const std::string &where,
                          double allowed, RuleReport &report) {
  for (const ReferenceRun &ref : references) {
    if (!report.unsound.empty())
      return;
    auto got = interp::interpret(after, func, ref.inputs);
    if (ref.failed || failed(got)) {
      report.unsound = where + ": the interpreter failed on the rewritten function";
      return;
    }
    for (auto [b, a] : llvm::zip(ref.outputs, *got))
      for (int64_t i = 0; i < b.size(); ++i) {
        double x = b.asDouble(i), y = a.asDouble(i);
        double abs = std::fabs(x - y), rel = abs / std::max(std::fabs(x), 1e-30);
        if (std::isnan(x) != std::isnan(y))
          abs = rel = INFINITY;
        if (std::isnan(x) && std::isnan(y))
          abs = rel = 0;
        report.maxAbs = std::max(report.maxAbs, abs);
        report.maxRel = std::max(report.maxRel, abs == 0 ? 0.0 : rel);
        if (b.isFloat())
          report.maxUlp = std::max(report.maxUlp, ulps(x, y, b.getElementType()));
        if (report.unsound.empty() && abs > 1e-12 && rel > allowed)
          report.unsound = where + llvm::formatv(", seed {0}, element {1}: {2} became {3}",
                                                 ref.seed, i, x, y)
                                       .str();
      }
  }
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  DialectRegistry registry;
  if (!registerKilnTool(registry, argc, argv, "kiln-verify-rules"))
    return 1;
  cl::ParseCommandLineOptions(argc, argv, "Kiln: check rewrite rules with the interpreter\n");
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  rules::RuleSet all(&context);
  {
    llvm::SourceMgr sourceMgr;
    SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
    for (const std::string &path : rulePaths)
      if (failed(all.loadPath(path)))
        return 1;
  }
  SmallVector<OwningOpRef<ModuleOp>> modules;
  for (const std::string &path : corpus) {
    llvm::SourceMgr sourceMgr; // one per file: the parser reads its main buffer
    SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
    modules.push_back(parseSourceFile<ModuleOp>(path, sourceMgr, &context));
    if (!modules.back())
      return 1;
  }

  bool anyUnsound = false, anyNonConverging = false;
  for (const auto &compiled : all.getRules()) {
    const rules::Rule &rule = compiled->rule;
    RuleReport report;
    double allowed = allowedRelative(rule);
    std::optional<RulePatterns> patterns = patternsOf(rule.name, context);
    if (!patterns)
      return 1;
    std::string nonConverging;
    for (auto [path, module] : llvm::zip(corpus, modules)) {
      for (auto func : module->getOps<func::FuncOp>()) {
        if (!func.isPublic() || func.isExternal() || !report.unsound.empty())
          continue;
        std::string where = path + ": @" + func.getSymName().str();
        // One step, then the bounded fixpoint (when it differs).
        Rewritten step = rewriteFunction(*module, func.getSymName(), patterns->patterns, 1);
        if (!step.changed)
          continue; // not an instance of this rule
        ++report.instances;
        Rewritten fixpoint =
            rewriteFunction(*module, func.getSymName(), patterns->patterns, kMaxRewrites);
        if (!fixpoint.converged && nonConverging.empty())
          nonConverging = where;
        SmallVector<ReferenceRun> references = referenceRuns(*module, func.getSymName());
        for (Rewritten *r : {&step, &fixpoint}) {
          if (!r->changed || !report.unsound.empty())
            continue;
          if (r->broken) {
            report.unsound = where + ": the rewritten IR does not verify";
            continue;
          }
          compareWithReference(*r->module, func.getSymName(), references, where, allowed, report);
        }
      }
    }
    llvm::outs() << "rule '" << rule.name << "'";
    if (!rule.tags.empty())
      llvm::outs() << " [" << llvm::join(rule.tags, ", ") << "]";
    llvm::outs() << ": " << report.instances << " instance(s)";
    if (report.instances)
      llvm::outs() << llvm::format(", max abs %.3g, max rel %.3g, max ulp %.0f", report.maxAbs,
                                   report.maxRel, report.maxUlp);
    anyNonConverging |= !nonConverging.empty();
    if (!nonConverging.empty())
      llvm::outs() << ": DOES NOT CONVERGE (still rewriting after " << kMaxRewrites
                   << " rewrites at " << nonConverging << ")";
    if (!report.unsound.empty()) {
      llvm::outs() << ": UNSOUND (allowed relative " << allowed << ") at " << report.unsound
                   << "\n";
      anyUnsound = true;
    } else {
      llvm::outs() << (!nonConverging.empty() ? "\n"
                       : report.instances ? ": ok\n"
                                          : ": no instance in the corpus\n");
    }
  }
  return anyUnsound || anyNonConverging ? 1 : 0;
}
