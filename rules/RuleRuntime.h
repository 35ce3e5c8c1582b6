//===- RuleRuntime.h - tracing, statistics and checks of rules --*- C++ -*-===//
//
// The per-rule native functions called by the generated PDL, and a rewriter
// listener: every rule's rewrite region starts with a "begin" hook and ends
// with an "end" hook, which is how rule names reach --rule-trace,
// --rule-stats, --rule-verify and the non-convergence report (PDL patterns
// have no names of their own in the greedy driver).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RULES_RULERUNTIME_H
#define KILN_RULES_RULERUNTIME_H

#include "rules/Evaluator.h"
#include "rules/RuleSet.h"

#include "mlir/IR/PatternMatch.h"

#include <map>
#include <memory>
#include <set>

namespace mlir {
class PDLPatternModule;
} // namespace mlir

namespace kiln::rules {

/// The dependence classes of the values in one loop op's regions
/// (rules/RegionDependence.cpp).
struct DependenceTable;

class RuleRuntime : public mlir::RewriterBase::Listener {
public:
  bool trace = false;
  bool verify = false;
  llvm::raw_ostream *os = &llvm::errs();
  /// Verified after each application when `verify` is set.
  mlir::Operation *scope = nullptr;
  /// Applications per rule (C++ patterns from plugins by debug name).
  std::map<std::string, unsigned> applied;
  /// Names in application order, since the last clear.
  std::vector<std::string> log;
  /// The rule after which verification failed ("" if none).
  std::string brokenBy;
  /// Where each rule first fired since the last clear of `log` (file:line:col).
  std::map<std::string, std::string> firstAt;
  /// The location of the first application logged since the last clear.
  mlir::Location firstLoc = mlir::UnknownLoc();
  bool haveFirstLoc = false;
  /// IR growth: ops inserted minus ops erased while rules run; past
  /// `maxGrowth` (>= 0) every rule stops matching and `grew` is set.
  int64_t growth = 0, maxGrowth = -1;
  bool grew = false;
  /// Starts a growth count for rules about to run on `scope`: at most 4 new
  /// ops per op of it, plus `slack`, so that a rule that grows the IR
  /// forever (neg -> neg(neg(neg))) stops. Returns the op count of `scope`.
  int64_t boundGrowth(mlir::Operation *scope, int64_t slack);
  /// Whether rules may still match (no verification failure, no growth stop).
  bool mayMatch() const { return brokenBy.empty() && !grew; }
  /// Rules already warned about (one warning per rule).
  std::set<std::string> warned;
  /// The result types inferred by the last InferCheck constraint (at match
  /// time), reused by the rewrite's Infer of the same op, operands and
  /// attributes (in the same order: both sites list the rewrite op's
  /// attributes as the rule writes them); any IR change in between drops it.
  struct InferMemo {
    bool valid = false;
    std::optional<mlir::OperationName> name;
    llvm::SmallVector<mlir::Value> operands;
    llvm::SmallVector<mlir::Type> operandTypes;
    llvm::SmallVector<mlir::NamedAttribute> attrs;
    llvm::SmallVector<mlir::Type> results;
  } inferMemo;
  /// The attributes/types computed by the last Check constraints (at match
  /// time), keyed by expression and arguments, reused by the rewrite's
  /// Value sites of the same expression; any IR change drops them.
  struct EvalMemo {
    const Expr *expr = nullptr;
    llvm::SmallVector<std::pair<int, const void *>, 4> args;
    const void *result = nullptr; ///< an Attribute or a Type, opaque
  };
  llvm::SmallVector<EvalMemo, 4> evalMemo;
  unsigned evalMemoNext = 0;
  void rememberEval(const Expr &expr, llvm::ArrayRef<mlir::PDLValue> args, const void *result);
  const void *lookupEval(const Expr &expr, llvm::ArrayRef<mlir::PDLValue> args) const;
  /// The dependence classes that only_consts, depends_on_carries and
  /// only_xs read, per scan, while or cond: each op's computed once while
  /// this runtime is active; any IR change drops them.
  llvm::DenseMap<mlir::Operation *, std::shared_ptr<DependenceTable>> dependences;
  void clearMemos() {
    inferMemo.valid = false;
    evalMemo.clear();
    dependences.clear();
  }
  /// While an Active lives, `active()` on its thread is its runtime, whose
  /// memos the region predicates use: the runtime must then be the listener
  /// of every IR change (it drops them on each), as around the greedy driver
  /// of --kiln-apply-rules. Without one, they compute afresh.
  class Active {
  public:
    explicit Active(RuleRuntime &rt);
    ~Active();
    Active(const Active &) = delete;
    Active &operator=(const Active &) = delete;

  private:
    RuleRuntime *previous;
  };
  static RuleRuntime *active();
  /// inferResultTypes through `inferMemo`: a hit builds no DictionaryAttr.
  std::optional<llvm::SmallVector<mlir::Type>> inferCached(mlir::RegisteredOperationName name,
                                                           mlir::ValueRange operands,
                                                           llvm::ArrayRef<mlir::NamedAttribute> attrs,
                                                           bool remember);
  void clearLog() {
    log.clear();
    firstAt.clear();
    haveFirstLoc = false;
  }

  /// Registers the native functions of `rule`'s sites on `pm`.
  void registerSites(const CompiledRule &rule, mlir::PDLPatternModule &pm);

  void notifyOperationInserted(mlir::Operation *op, mlir::OpBuilder::InsertPoint) override;
  void notifyOperationModified(mlir::Operation *op) override;
  void notifyOperationErased(mlir::Operation *op) override;
  void notifyOperationReplaced(mlir::Operation *op, mlir::ValueRange replacement) override;
  void notifyPatternBegin(const mlir::Pattern &pattern, mlir::Operation *op) override;
  void notifyPatternEnd(const mlir::Pattern &pattern, mlir::LogicalResult status) override;

  /// Around each application (called from the PDL hooks and by native-call
  /// patterns).
  void begin(const CompiledRule &rule, mlir::Operation *root);
  mlir::LogicalResult end(const CompiledRule &rule);

private:
  const CompiledRule *current = nullptr;
  /// The C++ pattern (a plugin's, by debug name) being applied, if any.
  std::string currentPattern;
  std::string before, where;
  mlir::Location currentLoc = mlir::UnknownLoc();
  void logApplication(const std::string &name);
  std::vector<mlir::Operation *> touched;
};

/// Kiln's own matcher of a rule's DAG and `where` conditions at `op` (the
/// root): used by --rule-explain and by rules that call a native rewrite
/// (PDL rewrites may not fail under the greedy driver, so those rules are
/// C++ patterns). On success `env` holds the bindings; else `why` says why.
bool matchRule(const CompiledRule &rule, mlir::Operation *op, mlir::RewriterBase &rewriter,
               Env &env, std::string *why = nullptr);

/// Result types of an op, as its builder would infer them: the attributes
/// are turned into properties first (PDL's own inference skips that).
/// Silent; std::nullopt when they cannot be inferred.
std::optional<llvm::SmallVector<mlir::Type>> inferResultTypes(mlir::MLIRContext *ctx,
                                                              llvm::StringRef opName,
                                                              mlir::ValueRange operands,
                                                              mlir::DictionaryAttr dict);
std::optional<llvm::SmallVector<mlir::Type>> inferResultTypes(mlir::RegisteredOperationName name,
                                                              mlir::ValueRange operands,
                                                              mlir::DictionaryAttr dict);

/// A region rule (one with a `loop` section): Kiln's matcher, then a
/// rewrite planned in full (detached ops, placeholders) before the IR is
/// touched, so that it can fail without changing anything
/// (rules/RegionRules.cpp; the rewrite: rules/RegionActions.cpp).
std::unique_ptr<mlir::RewritePattern> makeRegionRulePattern(const CompiledRule &rule,
                                                            RuleRuntime &runtime,
                                                            mlir::MLIRContext *ctx);

/// Load-time checks of a region rule's `loop`, `where` and `rewrite` (names
/// bound, functions and actions known, ops registered and typable).
mlir::LogicalResult checkRegionRule(mlir::MLIRContext *ctx, const CompiledRule &rule,
                                    const NativeScope &natives);

/// A pattern for a rule whose rewrite is a native call.
std::unique_ptr<mlir::RewritePattern> makeNativeCallPattern(const CompiledRule &rule,
                                                            RuleRuntime &runtime,
                                                            mlir::MLIRContext *ctx);

/// --rule-explain: for every op under `scope` named like the rule's root,
/// a remark saying which part of the match or which `where` condition fails.
void explainRule(const CompiledRule &rule, bool enabled, mlir::Operation *scope);

} // namespace kiln::rules

#endif // KILN_RULES_RULERUNTIME_H
