//===- kiln-verify-rules.cpp - check rewrite rules numerically ------------===//
//
//   kiln-verify-rules --rules=FILE|DIR [--rules=...] [--plugin=LIB.so]
//                     [--seeds N] [--in-context] CORPUS.mlir...
//
// For each rule, every public function of every corpus module where the rule
// fires (alone: the other rules are off) is one instance; with --in-context
// also each public function as the whole rule set leaves it just before the
// rule's first application there (rules that match what other rules
// produce). The function is
// run by the reference interpreter before and after the rewrite on 2N input
// sets: N random ones with negatives and (signed) zeros, then N with hard
// values mixed in (+-0, +-inf, NaN, subnormals, the largest and smallest
// normal numbers, integer extremes). The results are compared under the
// error model of reference/Comparison.h with the k its tags allow — none
// (exact): k = 0, the same values, zeros with the same sign, NaN where NaN;
// reassociates-float: 64; changes-precision: 65536 — and mag from the
// original function's magnitude run. Inexact rules do not get the values
// near overflow (a regrouped sum may overflow in one order only). The
// largest absolute, relative and ulp differences (over finite elements) and
// the worst error as a multiple of its bound are reported per rule. A rule
// whose results exceed the bound, or whose rewrite breaks the IR, is
// reported UNSOUND with the instance, the input set and the first failing
// element, and the tool exits 1. Each instance is checked after one rewrite
// (one step of the rule) and after the rule is applied to a fixpoint; a rule
// still rewriting after 1000 rewrites of one function (it matches its own
// output) is reported DOES NOT CONVERGE and the tool exits 1 too.
//
//===----------------------------------------------------------------------===//
#include "support/InputFile.h"
#include "tools/Registration.h"

#include "reference/Comparison.h"
#include "reference/Interpreter.h"
#include "rules/PluginLoader.h"
#include "rules/RuleRuntime.h"
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
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

namespace cl = llvm::cl;
using namespace mlir;
using namespace kiln;

/// The tool's own options: --help shows these (LLVM's hundreds stay behind
/// --help-hidden).
static cl::OptionCategory verifyCategory("kiln-verify-rules options");
static cl::list<std::string> corpus(cl::Positional, cl::desc("<corpus.mlir>..."), cl::OneOrMore,
                                    cl::cat(verifyCategory));
static cl::list<std::string> rulePaths("rules", cl::desc("YAML rule file or directory"),
                                       cl::OneOrMore, cl::cat(verifyCategory));
static cl::list<std::string> plugins("plugin", cl::desc("Load a Kiln plugin (repeatable)"),
                                     cl::cat(verifyCategory));
/// Bound of the fixpoint application of one rule to one function (per
/// greedy iteration; at most 10 iterations).
static constexpr int64_t kMaxRewrites = 1000;

static cl::opt<bool> positiveInputs(
    "positive-inputs",
    cl::desc("Check every rule on positive float inputs only (as a rule with `inputs: "
             "positive` is): for rules that assume it, e.g. exp(log(x)) -> x"),
    cl::init(false), cl::cat(verifyCategory));

static cl::opt<bool> inContext(
    "in-context",
    cl::desc("Also take each rule's instances where the whole rule set (every tag on) takes "
             "the corpus: a public function just before the rule's first application there"),
    cl::init(false), cl::cat(verifyCategory));

static cl::opt<unsigned> seeds("seeds",
                               cl::desc("Random input sets per instance and kind of inputs "
                                        "(ordinary, then with hard values)"),
                               cl::init(3), cl::cat(verifyCategory));

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

/// The error model a rule allows: its `tolerance` when it declares one, else
/// the largest its tags allow. `unknownTag` receives a tag that declares no
/// tolerance (it then counts as exact), for a note.
interp::ErrorModel modelOf(const rules::Rule &rule, std::string *unknownTag = nullptr) {
  interp::ErrorModel model;
  model.k = 0; // exact
  if (rule.tolerance >= 0) {
    model.k = rule.tolerance;
    return model;
  }
  std::string unknown;
  for (const std::string &tag : rule.tags) {
    if (tag == "reassociates-float")
      model.k = std::max(model.k, interp::ErrorModel().k);
    else if (tag == "changes-precision")
      model.k = std::max(model.k, 65536.0);
    else if (tag != "exact" && unknown.empty())
      unknown = tag;
  }
  // Only worth a note when no other tag allows an error.
  if (unknownTag && model.k == 0)
    *unknownTag = unknown;
  return model;
}

std::string describe(const interp::ErrorModel &model) {
  if (model.k == 0)
    return "k = 0: the same results";
  char text[96];
  std::snprintf(text, sizeof(text), "k = %g: |after - before| <= k (eps (|before| + mag) + tiny)",
                model.k);
  return text;
}

/// The kinds of inputs each instance runs on.
enum class InputKind {
  /// Floats uniform in [-2, 2] with zeros of both signs mixed in; integers
  /// in [-4, 4]; booleans 0/1.
  Signed,
  /// Half of the elements hard values: +-0, +-inf, NaN, the smallest
  /// subnormal and normal numbers, 1, -1 and (`nearOverflow`) the largest
  /// finite numbers and half of them; integer extremes, 0, +-1.
  Hard,
};

/// Only positive floats (`inputs: positive`, --positive-inputs).
static bool positiveOnly = false;
/// Only finite floats (`inputs: finite`): no inf or NaN among the hard values.
static bool finiteOnly = false;
/// Only moderate floats (`inputs: positive-moderate`): of the hard values
/// only 1 (no subnormals, no extremes): rules that assume that nothing in
/// between overflows or underflows.
static bool moderateOnly = false;

interp::Tensor makeInput(RankedTensorType type, uint64_t seed, InputKind kind, bool nearOverflow) {
  interp::Tensor t(type);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-2, 2);
  auto pick = [&](size_t n) { return size_t(rng() % n); };
  Type element = type.getElementType();
  if (auto f = dyn_cast<FloatType>(element)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    double largest = llvm::APFloat::getLargest(sem).convertToDouble();
    SmallVector<double> hard = {0.0,
                                -0.0,
                                INFINITY,
                                -INFINITY,
                                NAN,
                                1.0,
                                -1.0,
                                llvm::APFloat::getSmallest(sem).convertToDouble(),
                                -llvm::APFloat::getSmallest(sem).convertToDouble(),
                                llvm::APFloat::getSmallestNormalized(sem).convertToDouble(),
                                -llvm::APFloat::getSmallestNormalized(sem).convertToDouble()};
    if (nearOverflow)
      hard.append({largest, -largest, largest / 2, -largest / 2});
    if (positiveOnly) {
      // Positive values only: the hard ones that are > 0.
      llvm::erase_if(hard, [](double h) { return !(h > 0); });
    }
    if (finiteOnly)
      llvm::erase_if(hard, [](double h) { return !std::isfinite(h); });
    if (moderateOnly)
      llvm::erase_if(hard, [](double h) { return std::fabs(h) != 1.0; });
    for (int64_t i = 0; i < t.size(); ++i) {
      double v = uniform(rng);
      if (positiveOnly)
        v = std::fabs(v) + 0.0625;
      else if (kind == InputKind::Signed && pick(4) == 0)
        v = pick(2) ? 0.0 : -0.0;
      if (kind == InputKind::Hard && pick(2) == 0)
        v = hard[pick(hard.size())];
      t.setFloat(i, v);
    }
    return t;
  }
  unsigned width = element.getIntOrFloatBitWidth();
  bool isUnsigned = element.isUnsignedInteger() || width == 1;
  int64_t lo = 0, hi = 1;
  if (width > 1) {
    lo = isUnsigned ? 0 : width == 64 ? INT64_MIN : -(int64_t(1) << (width - 1));
    hi = isUnsigned    ? int64_t((uint64_t(1) << width) - 1)
         : width == 64 ? INT64_MAX
                       : (int64_t(1) << (width - 1)) - 1;
  }
  SmallVector<int64_t> hard = {0, 1, lo, hi};
  if (!isUnsigned)
    hard.append({-1, lo + 1});
  for (int64_t i = 0; i < t.size(); ++i) {
    int64_t v = width == 1   ? int64_t(pick(2))
                : isUnsigned ? int64_t(pick(5))
                             : int64_t(pick(9)) - 4;
    if (kind == InputKind::Hard && pick(2) == 0)
      v = hard[pick(hard.size())];
    t.setInt(i, v);
  }
  return t;
}

/// Inputs of @`func` of kind `kind`, or failure when an argument is not a
/// statically shaped tensor.
FailureOr<SmallVector<interp::Tensor>> makeInputs(ModuleOp module, llvm::StringRef func,
                                                  uint64_t seed, InputKind kind,
                                                  bool nearOverflow) {
  auto f = module.lookupSymbol<func::FuncOp>(func);
  SmallVector<interp::Tensor> inputs;
  for (auto [i, type] : llvm::enumerate(f.getArgumentTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return failure();
    inputs.push_back(
        makeInput(tensor, seed * 1000003 + i * 7919 + unsigned(kind), kind, nearOverflow));
  }
  return inputs;
}

struct RuleReport {
  unsigned instances = 0;
  /// Over the finite elements of float outputs (and all integer ones).
  double maxAbs = 0, maxRel = 0, maxUlp = 0;
  /// The largest error as a multiple of its bound.
  double worst = 0;
  std::string unsound; // the first failing instance
};

/// Rewrites of one rule, applied to one function of a copy of the module.
struct Rewritten {
  OwningOpRef<ModuleOp> module;
  bool broken = false;    // the rewritten IR does not verify
  bool converged = true;  // the greedy driver reached a fixpoint
  bool changed = false;   // the rule fired at least once
};

/// Counts the patterns that succeeded: the greedy driver also folds and
/// erases dead ops by itself, so a function whose text changed is not yet
/// an instance of the rule.
struct FiredCounter : RewriterBase::Listener {
  unsigned fired = 0;
  void notifyPatternEnd(const Pattern &, LogicalResult status) override {
    fired += succeeded(status);
  }
};

/// The patterns of one rule alone (the other rules are off), with the rule
/// set whose run-time state their native functions use.
struct RulePatterns {
  std::unique_ptr<rules::RuleSet> set;
  FrozenRewritePatternSet patterns;
};
std::optional<RulePatterns> patternsOf(llvm::StringRef ruleName, MLIRContext &context) {
  auto set = std::make_unique<rules::RuleSet>(&context, rules::nativesOf(rules::commandLinePlugins()));
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
  FiredCounter counter;
  GreedyRewriteConfig config;
  config.setListener(&counter);
  // The bound on rewrites holds per iteration: one step is one iteration.
  config.setMaxIterations(maxRewrites == 1 ? 1 : 10).setMaxNumRewrites(maxRewrites);
  // As --kiln-apply-rules: constants stay where they are (the driver's
  // constant CSE moved those of while and cond regions to the top of the
  // function, so every function with one counted as an instance of every
  // rule).
  config.enableConstantCSE(false);
  result.converged = succeeded(applyPatternsGreedily(target, patterns, config));
  result.changed = counter.fired > 0;
  result.broken = result.changed && failed(verify(*result.module));
  return result;
}

/// The original function on one input set.
struct ReferenceRun {
  std::string label; // "seed 2", "hard seed 0"
  SmallVector<interp::Tensor> inputs, outputs;
  /// The mag of the error model (empty: unknown, each output's scale).
  SmallVector<interp::Tensor> mags;
  bool failed = false; // the interpreter could not run the original
};

/// Runs @`func` of the original module on `seeds` input sets of each kind:
/// once per instance, shared by every rewritten version it is compared
/// with. Stops at a function the interpreter cannot give inputs to.
std::vector<ReferenceRun> referenceRuns(ModuleOp module, llvm::StringRef func, bool nearOverflow) {
  std::vector<ReferenceRun> runs;
  for (InputKind kind : {InputKind::Signed, InputKind::Hard})
    for (unsigned seed = 0; seed < seeds; ++seed) {
      auto inputs = makeInputs(module, func, seed, kind, nearOverflow);
      if (failed(inputs))
        return runs;
      auto outputs = interp::interpret(module, func, *inputs);
      std::string label = (kind == InputKind::Hard ? "hard seed " : "seed ") + std::to_string(seed);
      runs.push_back({label, std::move(*inputs), {}, {}, failed(outputs)});
      if (failed(outputs))
        return runs;
      runs.back().outputs = std::move(*outputs);
      std::string error;
      auto mags = interp::magnitudes(module, func, runs.back().inputs, error);
      if (succeeded(mags))
        runs.back().mags = std::move(*mags);
    }
  return runs;
}

/// Folds the finite differences of `before` and `after` into the report's
/// statistics.
void addStatistics(const interp::Tensor &before, const interp::Tensor &after, RuleReport &report) {
  if (before.getType() != after.getType())
    return;
  for (int64_t i = 0; i < before.size(); ++i) {
    double x = before.asDouble(i), y = after.asDouble(i);
    if (!std::isfinite(x) || !std::isfinite(y))
      continue;
    double abs = std::fabs(x - y), rel = abs / std::max(std::fabs(x), 1e-30);
    report.maxAbs = std::max(report.maxAbs, abs);
    report.maxRel = std::max(report.maxRel, abs == 0 ? 0.0 : rel);
    if (before.isFloat())
      report.maxUlp = std::max(report.maxUlp, ulps(x, y, before.getElementType()));
  }
}

/// Runs @`func` of the rewritten module on the reference inputs and compares
/// under `model`; sets report.unsound at the first violation.
/// The outputs of @`func` a rule under `model` is not judged on: for an
/// approximate rule (k > 0), those @main's file marks unstable, discrete
/// functions of approximate values (interp::unstableOutputs), such as the
/// integer conversion of a float sum a reassociating rule regroups (55
/// became 56 under reduce_sum-float-of-ys-into-scan-body;
/// tests/tools/verify-rules-unstable-outputs.test); none for an exact rule.
llvm::SmallDenseSet<unsigned> skippedOutputs(const interp::ErrorModel &model, llvm::StringRef func,
                                             const llvm::SmallDenseSet<unsigned> &unstableOfMain) {
  if (model.k > 0 && func == "main")
    return unstableOfMain;
  return {};
}

/// The outputs in `skipped` are not judged (see skippedOutputs).
void compareWithReference(ModuleOp after, llvm::StringRef func, ArrayRef<ReferenceRun> references,
                          const std::string &where, const interp::ErrorModel &model,
                          const llvm::SmallDenseSet<unsigned> &skipped, RuleReport &report) {
  for (const ReferenceRun &ref : references) {
    if (!report.unsound.empty())
      return;
    auto got = interp::interpret(after, func, ref.inputs);
    if (ref.failed || failed(got)) {
      report.unsound = where + ": the interpreter failed on the rewritten function";
      return;
    }
    interp::Comparison c = interp::compareOutputs(*got, ref.outputs, ref.mags, model);
    for (auto [b, a] : llvm::zip(ref.outputs, *got))
      addStatistics(b, a, report);
    report.worst = std::max(report.worst, c.worst(skipped));
    if (c.okExcept(skipped))
      continue;
    if (!c.countMismatch.empty()) {
      report.unsound = where + ", " + ref.label + ": " + c.countMismatch;
      return;
    }
    for (auto [i, o] : llvm::enumerate(c.outputs)) {
      if (o.ok())
        continue;
      std::string s;
      llvm::raw_string_ostream os(s);
      os << where << ", " << ref.label;
      if (c.outputs.size() > 1)
        os << ", output " << i;
      if (!o.typeMismatch.empty()) {
        os << ": " << o.typeMismatch;
      } else {
        const interp::ElementReport &e = o.firstFailure;
        os << ", element " << e.index << ": " << llvm::format("%.9g", e.ref) << " became "
           << llvm::format("%.9g", e.got) << " (";
        o.print(os, "original");
        os << ")";
      }
      report.unsound = s;
      return;
    }
  }
}

/// A function as the whole rule set has rewritten it up to the first
/// application of one rule: an instance of that rule in context.
struct ContextInstance {
  OwningOpRef<ModuleOp> module;
  std::string func, where;
  const llvm::SmallDenseSet<unsigned> *unstableOfMain;
};

/// Each rule's instances in context (--in-context): every public function
/// of the corpus is rewritten by all the rules, every tag on, once to the
/// end (the rule runtime logs the rules in application order); then, for
/// each rule in the log, again from the start, stopped just before that
/// rule's first application (the greedy driver is deterministic). At most
/// kMaxContextInstances per rule.
constexpr size_t kMaxContextInstances = 16;
std::optional<llvm::StringMap<std::vector<ContextInstance>>>
contextInstances(ArrayRef<std::string> paths, MutableArrayRef<OwningOpRef<ModuleOp>> modules,
                 ArrayRef<llvm::SmallDenseSet<unsigned>> unstable, MLIRContext &context) {
  rules::RuleSet set(&context, rules::nativesOf(rules::commandLinePlugins()));
  for (const std::string &path : rulePaths)
    if (failed(set.loadPath(path)))
      return std::nullopt;
  std::set<std::string> tags;
  for (const auto &compiled : set.getRules())
    tags.insert(compiled->rule.tags.begin(), compiled->rule.tags.end());
  set.setTags(llvm::join(tags, ","));
  RewritePatternSet patterns(&context);
  if (failed(set.populate(patterns)))
    return std::nullopt;
  FrozenRewritePatternSet frozen(std::move(patterns));
  std::vector<std::string> &log = set.getRuntime().log;
  llvm::StringMap<std::vector<ContextInstance>> out;
  for (auto [path, module, unstableOfMain] : llvm::zip(paths, modules, unstable)) {
    for (auto func : module->getOps<func::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      log.clear();
      (void)rewriteFunction(*module, func.getSymName(), frozen, kMaxRewrites);
      std::vector<std::string> applied = log;
      llvm::StringSet<> seen;
      for (auto [i, name] : llvm::enumerate(applied)) {
        // The first rule applies to the function as written, an instance
        // already.
        if (!seen.insert(name).second || i == 0 || out[name].size() >= kMaxContextInstances)
          continue;
        log.clear();
        Rewritten partial = rewriteFunction(*module, func.getSymName(), frozen, int64_t(i));
        // Folds do not count as rewrites: the log says where it stopped.
        if (log.size() != i || partial.broken)
          continue;
        out[name].push_back({std::move(partial.module), func.getSymName().str(),
                             path + ": @" + func.getSymName().str() + " after " +
                                 std::to_string(i) + " rewrites of the whole rule set",
                             &unstableOfMain});
      }
    }
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  DialectRegistry registry;
  if (!registerKilnTool(registry, argc, argv, "kiln-verify-rules"))
    return 1;
  cl::HideUnrelatedOptions(verifyCategory);
  cl::ParseCommandLineOptions(argc, argv, "Kiln: check rewrite rules with the interpreter\n");
  // No input set checks nothing: every rule would pass (abs(x) -> x did).
  if (seeds == 0) {
    llvm::errs() << "kiln-verify-rules: error: --seeds must be at least 1\n";
    return 1;
  }
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  rules::RuleSet all(&context, rules::nativesOf(rules::commandLinePlugins()));
  {
    llvm::SourceMgr sourceMgr;
    SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
    for (const std::string &path : rulePaths)
      if (failed(all.loadPath(path)))
        return 1;
  }
  SmallVector<OwningOpRef<ModuleOp>> modules;
  SmallVector<llvm::SmallDenseSet<unsigned>> unstable; // of each file's @main
  for (const std::string &path : corpus) {
    llvm::SourceMgr sourceMgr; // one per file: the parser reads its main buffer
    SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
    std::string error;
    std::unique_ptr<llvm::MemoryBuffer> file =
        support::readInputFile(path, error, /*allowStdin=*/true);
    if (!file) {
      llvm::errs() << "kiln-verify-rules: error: " << error << "\n";
      return 1;
    }
    if (failed(checkMlirNesting(file->getBuffer(), path)))
      return 1;
    unstable.push_back(interp::unstableOutputs(file->getBuffer()));
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    modules.push_back(parseSourceFile<ModuleOp>(sourceMgr, &context));
    if (!modules.back())
      return 1;
  }

  std::optional<llvm::StringMap<std::vector<ContextInstance>>> inContextInstances;
  if (inContext) {
    inContextInstances = contextInstances(corpus, modules, unstable, context);
    if (!inContextInstances)
      return 1;
  }

  bool anyUnsound = false, anyNonConverging = false;
  for (const auto &compiled : all.getRules()) {
    const rules::Rule &rule = compiled->rule;
    RuleReport report;
    std::string unknownTag;
    interp::ErrorModel model = modelOf(rule, &unknownTag);
    moderateOnly = rule.inputs == "positive-moderate";
    positiveOnly = positiveInputs || rule.inputs == "positive" ||
                   rule.inputs == "positive-finite" || moderateOnly;
    finiteOnly = rule.inputs == "finite" || rule.inputs == "positive-finite" || moderateOnly;
    std::optional<RulePatterns> patterns = patternsOf(rule.name, context);
    if (!patterns)
      return 1;
    std::string nonConverging;
    auto check = [&](ModuleOp module, StringRef func, const std::string &where,
                     const llvm::SmallDenseSet<unsigned> &unstableOfMain) {
      // One step, then the bounded fixpoint (when it differs).
      Rewritten step = rewriteFunction(module, func, patterns->patterns, 1);
      if (!step.changed)
        return; // not an instance of this rule
      ++report.instances;
      Rewritten fixpoint = rewriteFunction(module, func, patterns->patterns, kMaxRewrites);
      if (!fixpoint.converged && nonConverging.empty())
        nonConverging = where;
      std::vector<ReferenceRun> references =
          referenceRuns(module, func, /*nearOverflow=*/model.k == 0);
      llvm::SmallDenseSet<unsigned> skipped = skippedOutputs(model, func, unstableOfMain);
      for (Rewritten *r : {&step, &fixpoint}) {
        if (!r->changed || !report.unsound.empty())
          continue;
        if (r->broken) {
          report.unsound = where + ": the rewritten IR does not verify";
          continue;
        }
        compareWithReference(*r->module, func, references, where, model, skipped, report);
      }
    };
    for (auto [path, module, unstableOfMain] : llvm::zip(corpus, modules, unstable))
      for (auto func : module->getOps<func::FuncOp>())
        if (func.isPublic() && !func.isExternal() && report.unsound.empty())
          check(*module, func.getSymName(), path + ": @" + func.getSymName().str(),
                unstableOfMain);
    if (inContextInstances) {
      auto found = inContextInstances->find(rule.name);
      if (found != inContextInstances->end())
        for (ContextInstance &instance : found->second)
          if (report.unsound.empty())
            check(*instance.module, instance.func, instance.where, *instance.unstableOfMain);
    }
    llvm::outs() << "rule '" << rule.name << "'";
    if (!rule.tags.empty())
      llvm::outs() << " [" << llvm::join(rule.tags, ", ") << "]";
    if (positiveOnly || finiteOnly)
      llvm::outs() << (moderateOnly   ? " (positive moderate inputs)"
                       : !finiteOnly  ? " (positive inputs)"
                       : positiveOnly ? " (positive finite inputs)"
                                      : " (finite inputs)");
    llvm::outs() << ": " << report.instances << " instance(s)";
    if (report.instances)
      llvm::outs() << llvm::format(", max abs %.3g, max rel %.3g, max ulp %.0f", report.maxAbs,
                                   report.maxRel, report.maxUlp);
    anyNonConverging |= !nonConverging.empty();
    if (!nonConverging.empty())
      llvm::outs() << ": DOES NOT CONVERGE (still rewriting after " << kMaxRewrites
                   << " rewrites at " << nonConverging << ")";
    if (!unknownTag.empty())
      llvm::errs() << "kiln-verify-rules: note: rule '" << rule.name << "': tag '" << unknownTag
                   << "' declares no tolerance, so the rule is checked as exact (k = 0); give "
                      "the rule `tolerance: K` to allow more\n";
    if (!report.unsound.empty()) {
      llvm::outs() << ": UNSOUND (" << describe(model) << ") at " << report.unsound << "\n";
      anyUnsound = true;
    } else {
      if (!nonConverging.empty())
        llvm::outs() << "\n";
      else if (report.instances)
        llvm::outs() << llvm::format(": ok (worst %.3g x bound, ", report.worst) << describe(model)
                     << ")\n";
      else
        llvm::outs() << ": no instance in the corpus\n";
    }
  }
  return anyUnsound || anyNonConverging ? 1 : 0;
}
