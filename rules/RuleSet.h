//===- RuleSet.h - loaded rules compiled to PDL -----------------*- C++ -*-===//
//
// A RuleSet loads YAML rule files, checks them against the context's
// registered ops and the native registry, and compiles each rule into one or
// more `pdl.pattern`s (text, parsed back when the patterns are built). The
// generated PDL calls per-rule native functions ("sites") for `where`
// conditions, computed attributes, native rewrites and the begin/end hooks
// that implement tracing, statistics and verification (RuleRuntime).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RULES_RULESET_H
#define KILN_RULES_RULESET_H

#include "rules/NativeRegistry.h"
#include "rules/RuleAST.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <memory>
#include <optional>
#include <set>

namespace kiln::rules {

/// One native call that the generated PDL makes for a rule.
struct Site {
  enum Kind { Where, Value, Call, Begin, End, Infer, Check, InferCheck, Guard } kind;
  ExprP expr;                         ///< null for Begin/End
  std::vector<std::string> argNames;  ///< "$x" captures, plain node names
  int whereIndex = -1;                ///< Where: position in `where` (-1: from match)
  bool resultIsType = false;          ///< Value/Check: a type, not an attribute
  /// Infer: result types of `opName` from operands then attributes named
  /// `attrNames` (PDL's own inference skips op properties).
  std::string opName;
  std::vector<std::string> attrNames;
  unsigned numOperands = 0;
  /// InferCheck: the rewrite op's operands and attributes as expressions over
  /// match bindings, so its result types are known to infer before rewriting.
  std::vector<ExprP> operandExprs;
  std::vector<std::pair<std::string, ExprP>> attrExprs;
  std::string pdlName;
};

struct CompiledRule {
  Rule rule;
  std::string rootOpName, rootNode;
  std::vector<Site> sites;
  std::string pdl; ///< its pdl.pattern ops (several with any_order)
  bool enabled = true;
  /// The rewrite creates an op reading another new op, whose result types
  /// can only be inferred while rewriting (a failing PDL rewrite aborts
  /// with "Native PDL Rewrite failed"), or gives a result type that must be
  /// checked against inference: run by the plan-then-apply rewriter of
  /// region rules (RegionActions.cpp), which cannot fail halfway.
  bool planned = false;
  /// Planned only because kMaxPdlRules PDL rules were loaded before it.
  bool pastPdlLimit = false;
  bool isCpp() const { return rule.isRegion() || planned; }
  /// Whether the rule runs as a PDL pattern (not C++, not a native rewrite).
  bool isPdl() const { return !rule.rewriteCall && !isCpp(); }
  /// Kiln's matcher: node name -> expression, per any_order variant (built
  /// on first use).
  mutable std::vector<std::map<std::string, ExprP>> matchVariants;
};

class RuleRuntime;

/// The most rules of a RuleSet that run as PDL patterns; the others run
/// on Kiln's matcher and planned rewriter. MLIR's PDL-to-bytecode lowering
/// builds one decision tree for all patterns, in time quadratic in their
/// number and with recursion as deep: 10,000 rules took 9 s to load, and
/// 20,000 of one root overflowed the stack.
constexpr unsigned kMaxPdlRules = 1024;

class RuleSet {
public:
  /// `natives`: the native functions its rules may call (the built-ins and
  /// those of the plugins loaded with it).
  explicit RuleSet(mlir::MLIRContext *ctx, NativeScope natives = {});
  ~RuleSet();

  /// Loads a .yaml file or every *.yaml/*.yml of a directory (sorted).
  /// Errors are MLIR diagnostics; a file with any error adds no rule.
  mlir::LogicalResult loadPath(const std::string &path);
  mlir::LogicalResult loadString(const std::string &text, const std::string &name);

  /// "+tag,-tag,tag": enables (+ or bare) or disables (-) tags. Enabled by
  /// default: `exact`. A rule runs iff all its tags are enabled (no tags
  /// means exact).
  void setTags(llvm::StringRef spec);
  /// The tags of `spec` that no loaded rule carries and that are not one of
  /// Kiln's conventional tags (exact, reassociates-float,
  /// changes-precision): most likely misspelt.
  std::vector<std::string> unknownTags(llvm::StringRef spec) const;
  /// Enables only the rule named `name` (empty: every rule), whatever its
  /// tags: kiln-verify-rules checks one rule at a time.
  void restrictTo(llvm::StringRef name) { onlyRule = name.str(); }
  bool isEnabled(const Rule &rule) const;

  /// The PDL module of the enabled rules that rewrite with PDL.
  std::string getPDL(std::optional<int> phase = std::nullopt) const;
  /// getPDL() plus, as comments, the rules run as C++ patterns (--dump-pdl).
  std::string describe() const;
  /// Adds the enabled rules' patterns to `patterns`; failure if the
  /// generated PDL does not parse (a Kiln bug, reported with the rule).
  /// With `phase`, only the rules of that phase.
  mlir::LogicalResult populate(mlir::RewritePatternSet &patterns,
                               std::optional<int> phase = std::nullopt);
  /// The phases of the enabled rules, in order (always contains 0).
  std::vector<int> getPhases() const;

  const std::vector<std::unique_ptr<CompiledRule>> &getRules() const { return rules; }
  const CompiledRule *lookup(llvm::StringRef name) const;
  RuleRuntime &getRuntime() { return *runtime; }
  mlir::MLIRContext *getContext() const { return ctx; }

private:
  mlir::LogicalResult compile(Rule rule, std::vector<std::unique_ptr<CompiledRule>> &out);
  /// Adds the rules of a file (or text) that compiled without errors.
  void commit(std::vector<std::unique_ptr<CompiledRule>> &compiled);
  /// Forgets the names of rules compiled but not committed.
  void discard(const std::vector<std::unique_ptr<CompiledRule>> &compiled);

  mlir::MLIRContext *ctx;
  NativeScope natives;
  std::vector<std::unique_ptr<CompiledRule>> rules;
  /// The names of the rules loaded and of those compiled but not yet
  /// committed (a name is loaded once).
  llvm::StringMap<const CompiledRule *> byName;
  llvm::StringSet<> pendingNames;
  /// Rules added as PDL patterns (at most kMaxPdlRules).
  unsigned numPdlRules = 0;
  std::set<std::string> enabledTags = {"exact"};
  std::string onlyRule;
  /// Real paths of the files loaded (a file loaded twice, say by an include
  /// and by --rules=DIR, adds its rules once).
  std::set<std::string> loadedFiles;
  std::unique_ptr<RuleRuntime> runtime;
  unsigned uid;
};

/// Compiles one rule to PDL text and its sites (PdlGen.cpp). Errors are
/// emitted at rule-file locations.
mlir::LogicalResult compileRule(mlir::MLIRContext *ctx, const Rule &rule,
                                const std::string &prefix, const NativeScope &natives,
                                CompiledRule &out);

} // namespace kiln::rules

#endif // KILN_RULES_RULESET_H
