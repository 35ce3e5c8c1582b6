//===- RegionRulesImpl.h - what the region rule files share -----*- C++ -*-===//
//
// Private to rules/: the helpers that the files of the region rules
// (RegionRules.cpp: the pattern and the load-time checks; RegionMatch.cpp:
// roles and the native functions of `loop` and `where`; RegionActions.cpp,
// RegionMotion.cpp and RegionRemovals.cpp: the rewrite actions, around
// RegionRewrite.h; RegionDependence.cpp: the dependence classes) share.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RULES_REGIONRULESIMPL_H
#define KILN_RULES_REGIONRULESIMPL_H

#include "rules/Evaluator.h"
#include "rules/RuleAST.h"

#include "dialect/LaxControlFlowOps.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace kiln::rules::region {

using lax::CondOp;
using lax::ScanOp;
using lax::WhileOp;

// Roles (RegionMatch.cpp).

/// The scan that `v` is a result of.
ScanOp scanOfResult(mlir::Value v);
/// The scan whose body block directly holds a value or an op.
ScanOp parentScanOf(mlir::Value v);
ScanOp parentScanOf(mlir::Operation *op);
/// The lax.cond whose branch directly holds `op`.
CondOp parentCondOf(mlir::Operation *op);
/// The op whose own regions (a scan's body, a while's cond and body, a
/// cond's branches) directly hold op or value `x`; null if none does.
mlir::Operation *enclosingRegionOp(const Val &x);
/// Const `k` of a scan, or of a while (its cond consts, then its body
/// consts): the block argument; null if there is none.
mlir::BlockArgument constArg(mlir::Operation *loop, int64_t k);
/// Whether carry `i` of a scan or while can go (remove_carry); `fed`
/// receives the ops that only feed it.
bool carryFeedsOnlyItself(mlir::Operation *loop, unsigned i,
                          llvm::SetVector<mlir::Operation *> *fed = nullptr);
/// The body value a scan yields as its yield operand `i`.
mlir::Value yieldedValue(ScanOp s, int64_t i);
/// The ops of the other branches of `cond` that compute what `op` computes.
std::optional<llvm::SmallVector<mlir::Operation *>> sameInOtherBranches(mlir::Operation *op,
                                                                        CondOp cond);

// Dependences (RegionDependence.cpp).

/// What a value in a loop's regions depends on (bits): the loop's consts,
/// its carries, its xs slices.
enum Dep : unsigned { DepConst = 1, DepCarry = 2, DepXs = 4 };
/// The role (Dep bit) of a block argument of `owner`'s own regions.
unsigned argRole(mlir::Operation *owner, mlir::BlockArgument arg);
/// The Dep bits of a value, or of an op's operands (and what its regions
/// read), in the scan, while or cond whose region directly holds it;
/// std::nullopt when none does.
std::optional<unsigned> depsOfVal(const Val &x);

// Actions (RegionActions.cpp).

/// The rewrite actions of region rules and their argument counts.
const std::map<std::string, std::pair<unsigned, unsigned>> &actions();

/// A region rule's remove_* action (RegionRemovals.cpp): remove_ys,
/// remove_carry, remove_const of a lax.scan or lax.while (`from`),
/// remove_xs of a lax.scan, or
/// remove_result, remove_operand of a lax.cond, at `index`.
struct LoopRemoval {
  std::string action; // empty: none
  int64_t index = -1;
  mlir::Operation *from = nullptr;
  /// The ops that only feed a removed carry (found by plan).
  llvm::SetVector<mlir::Operation *> fedOps;

  /// Whether the removed part is unobserved; sets `why` when not. `scan`:
  /// the rewrite's scan (remove_ys).
  bool plan(ScanOp scan, std::string &why);
  /// Rebuilds `from` (`scan` for a scan) without the removed part.
  void apply(mlir::RewriterBase &rewriter, ScanOp scan);

private:
  void eraseFedOps(mlir::RewriterBase &rewriter);
  void applyToWhile(mlir::RewriterBase &rewriter, WhileOp w);
  void applyToCond(mlir::RewriterBase &rewriter, CondOp c);
};

/// A region rule's rewrite at one root: plan() creates every op detached
/// and makes every check, leaving the IR untouched when it fails (`why`);
/// apply() then changes the IR.
struct RegionRewritePlan {
  virtual ~RegionRewritePlan() = default;
  virtual bool plan() = 0;
  virtual void apply() = 0;
  std::string why;
  /// The failure is the rule's fault (a type it gives that inference
  /// contradicts, a replacement of another type), not a mismatch.
  bool ruleError = false;
};
std::unique_ptr<RegionRewritePlan> makeRegionRewrite(mlir::RewriterBase &rw, const Rule &rule,
                                                     mlir::Operation *root, Env env);

} // namespace kiln::rules::region

#endif // KILN_RULES_REGIONRULESIMPL_H
