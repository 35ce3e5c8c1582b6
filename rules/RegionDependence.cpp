//===- RegionDependence.cpp - what a loop body's values depend on ---------===//
//
// The dependence classes of region rules (only_consts, depends_on_carries,
// only_xs): whether a value directly in a scan's, while's or cond's regions
// depends on its consts, its carries or its xs slices, computed for the whole
// loop in one forward pass and memoized per loop op while rules run.
//
//===----------------------------------------------------------------------===//
#include "rules/RegionRulesImpl.h"
#include "rules/RuleRuntime.h"

#include "dialect/LaxControlFlowOps.h"

using namespace kiln::rules;
using namespace kiln::rules::region;
using namespace mlir;

namespace kiln::rules::region {
/// The role of a block argument of `owner`'s own regions: a scan's consts,
/// carries and xs slices; a while's consts and carries (in either region); a
/// cond's branch arguments are its operands, the same whichever branch runs:
/// they play the consts' role.
unsigned argRole(Operation *owner, BlockArgument arg) {
  unsigned i = arg.getArgNumber();
  if (auto scan = dyn_cast<ScanOp>(owner))
    return i < scan.getNumConsts()                        ? DepConst
           : i < scan.getNumConsts() + scan.getNumCarry() ? DepCarry
                                                          : DepXs;
  if (auto loop = dyn_cast<WhileOp>(owner)) {
    bool inBody = arg.getOwner() == &loop.getBodyBlock();
    return i < (inBody ? loop.getNumBodyConsts() : loop.getNumCondConsts()) ? DepConst : DepCarry;
  }
  return DepConst;
}
} // namespace kiln::rules::region

/// The dependence classes (Dep bits) of what lies directly in the regions of
/// one scan, while or cond: its block arguments, and each op with its
/// results. An op depends on what its operands depend on and on what the
/// values its own regions read from outside it depend on; values defined
/// outside the loop depend on nothing (they are invariant).
struct kiln::rules::DependenceTable {
  llvm::DenseMap<Value, unsigned> values;
  llvm::DenseMap<Operation *, unsigned> ops;
};

namespace {
/// One forward pass over `owner`'s blocks in program order (again only if a
/// value is read before the op defining it in block order, until nothing
/// changes): linear in the size of its regions.
std::shared_ptr<DependenceTable> computeDependences(Operation *owner) {
  auto t = std::make_shared<DependenceTable>();
  bool again = true;
  while (again) {
    bool early = false, changed = false;
    auto depOf = [&](Value v) -> unsigned {
      if (auto it = t->values.find(v); it != t->values.end())
        return it->second;
      Block *b = v.getParentBlock();
      early |= b && b->getParentOp() == owner; // not computed yet
      return 0;
    };
    for (Region &region : owner->getRegions())
      for (Block &block : region) {
        for (BlockArgument arg : block.getArguments())
          t->values[arg] = argRole(owner, arg);
        for (Operation &op : block) {
          unsigned d = 0;
          for (Value o : op.getOperands())
            d |= depOf(o);
          // What its nested regions read from above it.
          if (op.getNumRegions())
            op.walk([&](Operation *inner) {
              if (inner == &op)
                return;
              for (Value o : inner->getOperands()) {
                Operation *from = o.getParentBlock() ? o.getParentBlock()->getParentOp() : nullptr;
                if (!from || !op.isAncestor(from))
                  d |= depOf(o);
              }
            });
          unsigned &slot = t->ops[&op];
          changed |= slot != d;
          slot = d;
          for (Value r : op.getResults())
            t->values[r] = d;
        }
      }
    again = early && changed;
  }
  return t;
}
} // namespace

namespace kiln::rules::region {
/// The deps of a value, or of an op's operands (and what its regions read),
/// in the scan, while or cond whose region directly holds it; std::nullopt
/// when none does. The loop's table is computed once while rules run
/// (RuleRuntime::Active: any IR change drops it), afresh otherwise.
std::optional<unsigned> depsOfVal(const Val &x) {
  Operation *owner = enclosingRegionOp(x);
  if (!owner)
    return std::nullopt;
  auto find = [&](const DependenceTable &t) -> std::optional<unsigned> {
    if (x.kind == Val::Op) {
      auto it = t.ops.find(x.op);
      return it == t.ops.end() ? std::nullopt : std::optional<unsigned>(it->second);
    }
    auto it = t.values.find(x.asValue());
    return it == t.values.end() ? std::nullopt : std::optional<unsigned>(it->second);
  };
  if (RuleRuntime *rt = RuleRuntime::active()) {
    std::shared_ptr<DependenceTable> &memo = rt->dependences[owner];
    if (memo)
      if (auto d = find(*memo))
        return d;
    // Not computed yet, or (an IR change that reached no listener) the
    // value is newer than the table.
    memo = computeDependences(owner);
    return find(*memo).value_or(0);
  }
  return find(*computeDependences(owner)).value_or(0);
}
} // namespace kiln::rules::region
