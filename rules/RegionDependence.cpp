//===- RegionDependence.cpp - what a loop body's values depend on ---------===//
//
// The dependence classes of region rules (only_consts, depends_on_carries,
// only_xs): whether a value directly in a scan's, while's or cond's regions
// depends on its consts, its carries or its xs slices, each op's computed
// once from those of the ops it reads and memoized per loop op while rules
// run.
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

/// The dependence classes (Dep bits) of the ops directly in the regions of
/// one scan, while or cond, as far as they have been asked for. An op
/// depends on what its operands depend on and on what the values its own
/// regions read from outside it depend on; a block argument of the loop's
/// regions on its role; a value defined outside the loop on nothing (it is
/// invariant).
struct kiln::rules::DependenceTable {
  llvm::DenseMap<Operation *, unsigned> ops;
};

namespace {
/// What op `op` (directly in `owner`'s regions) reads: its operands, and
/// the values its nested regions read from outside it.
void inputsOf(Operation *op, SmallVectorImpl<Value> &inputs) {
  llvm::append_range(inputs, op->getOperands());
  if (op->getNumRegions())
    op->walk([&](Operation *inner) {
      if (inner == op)
        return;
      for (Value o : inner->getOperands()) {
        Operation *from = o.getParentBlock() ? o.getParentBlock()->getParentOp() : nullptr;
        if (!from || !op->isAncestor(from))
          inputs.push_back(o);
      }
    });
}

/// The op directly in `owner`'s regions that defines `v`; null for a block
/// argument or a value from outside.
Operation *defIn(Operation *owner, Value v) {
  Operation *def = v.getDefiningOp();
  return def && def->getParentOp() == owner ? def : nullptr;
}

/// The class of op `target` (directly in `owner`'s regions): from the
/// classes of the ops it reads, each computed once and kept in `t`. An
/// iterative walk of the part of its backward slice that `t` lacks (no
/// recursion: a body may be a chain of many thousand ops).
unsigned depsOfOp(Operation *owner, DependenceTable &t, Operation *target) {
  if (auto it = t.ops.find(target); it != t.ops.end())
    return it->second;
  auto classOf = [&](Value v) -> unsigned {
    Region *r = v.getParentRegion();
    if (!r || !owner->isAncestor(r->getParentOp()))
      return 0; // from outside the loop
    if (auto arg = dyn_cast<BlockArgument>(v))
      return argRole(owner, arg);
    return t.ops.lookup(defIn(owner, v)); // 0 on a cycle (not in SSA form)
  };
  // An op is expanded (its inputs' ops pushed above it) once; it may stand
  // in the stack more than once, and is computed at its first entry from the
  // top, once every op above it is.
  llvm::SmallPtrSet<Operation *, 16> expanded;
  SmallVector<std::pair<Operation *, bool>> stack = {{target, false}};
  SmallVector<Value> inputs;
  while (!stack.empty()) {
    auto [op, ready] = stack.back();
    inputs.clear();
    if (!ready) {
      // Done, or on a cycle (not in SSA form): nothing to do here.
      if (t.ops.count(op) || !expanded.insert(op).second) {
        stack.pop_back();
        continue;
      }
      stack.back().second = true;
      inputsOf(op, inputs);
      for (Value v : inputs)
        if (Operation *def = defIn(owner, v); def && !t.ops.count(def) && !expanded.count(def))
          stack.push_back({def, false});
      continue;
    }
    inputsOf(op, inputs);
    unsigned d = 0;
    for (Value v : inputs)
      d |= classOf(v);
    t.ops[op] = d;
    stack.pop_back();
  }
  return t.ops.lookup(target);
}
} // namespace

namespace kiln::rules::region {
/// The deps of a value, or of an op's operands (and what its regions read),
/// in the scan, while or cond whose region directly holds it; std::nullopt
/// when none does. While rules run (RuleRuntime::Active), the loop's classes
/// are kept: each op's is computed once until the IR changes (any change
/// drops them), so asking of every op of a body is linear in its size, and
/// a question after a change costs at most the value's backward slice.
std::optional<unsigned> depsOfVal(const Val &x) {
  Operation *owner = enclosingRegionOp(x);
  if (!owner)
    return std::nullopt;
  if (x.kind != Val::Op)
    if (auto arg = dyn_cast<BlockArgument>(x.asValue()))
      return argRole(owner, arg);
  Operation *op = x.kind == Val::Op ? x.op : x.asValue().getDefiningOp();
  if (RuleRuntime *rt = RuleRuntime::active()) {
    std::shared_ptr<DependenceTable> &memo = rt->dependences[owner];
    if (!memo)
      memo = std::make_shared<DependenceTable>();
    return depsOfOp(owner, *memo, op);
  }
  DependenceTable fresh;
  return depsOfOp(owner, fresh, op);
}
} // namespace kiln::rules::region
