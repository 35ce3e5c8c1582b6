//===- RegionRewrite.h - one region rule's rewrite, planned then applied -*- C++ -*-===//
//
// Private to rules/: the state of a region rule's rewrite at one root
// (RegionRewrite) and the steps its actions share, split by what they do:
// RegionActions.cpp plans and applies the rewrite (building its ops
// detached, the add_* actions, inserting everything once every check has
// passed), RegionMotion.cpp moves ops across a loop's boundary (hoist out of
// a scan, a while or a cond; sink into a scan), RegionRemovals.cpp removes
// what a loop no longer needs (remove_*). RegionActions.cpp's file comment
// describes the two steps.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RULES_REGIONREWRITE_H
#define KILN_RULES_REGIONREWRITE_H

#include "rules/RegionRulesImpl.h"
#include "transforms/ScanUtils.h"

#include "mlir/IR/Block.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <vector>

namespace kiln::rules::region {

using mlir::Block;
using mlir::BlockArgument;
using mlir::Operation;
using mlir::RankedTensorType;
using mlir::Region;
using mlir::RewriterBase;
using mlir::Type;
using mlir::Value;
using mlir::ValueRange;
using llvm::SmallVector;

/// Whether `v` is defined inside `scan`'s body (at any depth).
inline bool definedInside(Value v, ScanOp scan) {
  Region *r = v.getParentRegion();
  return r && scan.getBody().isAncestor(r);
}

inline WhileOp parentWhileOf(Operation *op) {
  return op && op->getBlock() ? llvm::dyn_cast_or_null<WhileOp>(op->getParentOp()) : WhileOp();
}
enum class Place { Free, Body, After };

/// A region rule's rewrite at one root (RegionRewritePlan).
struct RegionRewrite : RegionRewritePlan {
  RewriterBase &rewriter;
  const Rule &rule;
  Operation *root;
  Env env;

  ScanOp scan;
  kiln::ScanExtension ext;
  /// Body values yielded for the new carries and ys (may be placeholders).
  SmallVector<Value> carryNext, ysSlice;
  /// Placeholders: arguments of a private block, replaced in apply.
  Block *ph = new Block();
  enum PhKind { ConstArg, CarryArg, XsArg, CarryResult, YsResult };
  llvm::DenseMap<Value, std::pair<PhKind, unsigned>> phs;
  /// Ops created detached, in creation order, and where they go.
  std::vector<std::pair<Operation *, Place>> created;
  llvm::DenseMap<Operation *, Place> placeOfOp;
  llvm::DenseSet<Operation *> beforeScan;
  /// Body ops replaced by hoisting (erased by the replacement of the root).
  llvm::DenseMap<Value, Value> constFor; ///< outside value -> its const placeholder
  std::vector<std::pair<Operation *, SmallVector<Value>>> replacements;
  /// remove_ys / remove_carry / remove_const (scan, while), remove_result /
  /// remove_operand (cond): RegionRemovals.cpp.
  LoopRemoval removal;

  RegionRewrite(RewriterBase &rw, const Rule &rule, Operation *root, Env env)
      : rewriter(rw), rule(rule), root(root), env(std::move(env)) {}
  ~RegionRewrite() {
    // Detached ops left after a failed plan: drop, then destroy.
    for (auto &[op, p] : created)
      if (!op->getBlock())
        op->dropAllReferences();
    for (auto &[op, p] : llvm::reverse(created))
      if (!op->getBlock())
        op->destroy();
    for (BlockArgument a : ph->getArguments())
      a.dropAllUses();
    delete ph;
  }

  /// Ops to insert right before another op (the while or cond a hoisted op
  /// leaves).
  llvm::DenseMap<Operation *, Operation *> anchorOf;

  // Planning (RegionActions.cpp): failures, placeholders, where values live.
  bool fail(const std::string &m);
  Value failV(const std::string &m);
  Value placeholder(Type t, PhKind k, unsigned i);
  Place placeOf(Value v);
  bool usableBeforeScan(Value v);
  bool setScan(ScanOp s);
  Value toBody(Value v);
  Operation *record(Operation *op, Place place);
  std::optional<Val> eval(const ExprP &e);
  Value valueOf(const Val &v, int resultIndex = 0);
  std::optional<int64_t> evalInt(const ExprP &e);
  ScanOp evalScan(const ExprP &e);
  RankedTensorType ranked(Value v);

  // Building the rewrite's values (RegionActions.cpp).
  Value build(const ExprP &e, const std::string &nodeName = "");
  Value buildOp(const Expr &e);
  Value action(const Expr &e, const std::string &nodeName);

  // Moving ops across a loop's boundary (RegionMotion.cpp).
  Value hoist(const Expr &e);
  Value hoistFromWhile(Operation *op, WhileOp w);
  Value hoistFromCond(Operation *op, CondOp cond);
  Value sink(const Expr &e);
  Value sinkDotGeneral(kiln::lax::DotGeneralOp dot);

  // The two steps (RegionActions.cpp).
  bool plan() override;
  bool planRewrite();
  Value real(Value v, kiln::ExtendedScan *ex, ValueRange consts, ValueRange carries,
             ValueRange xs);
  void apply() override;
};

} // namespace kiln::rules::region

#endif // KILN_RULES_REGIONREWRITE_H
