//===- RegionRules.cpp - rules that see inside scan, while and cond -------===//
//
// A rule with a `loop` section is a region rule (docs/rules.md, "Rules that
// see inside loops"). PDL has no regions, so such a rule runs as a C++
// pattern: Kiln's matcher (matchRule: the match DAG, the `loop` bindings,
// `where`), then this file's rewriter, in two steps:
//
//  1. plan: every op of the rewrite is created detached (not in any block),
//     reading placeholders (arguments of a private block) where it needs the
//     new scan's block arguments or results; result types are inferred, slice
//     and stacked types computed, and every check made. Any failure destroys
//     what was created and the rule does not apply: the IR is untouched.
//  2. apply: the detached ops are inserted (before the scan, in its body, or
//     before the root), the scan is rebuilt with its new consts, carries, xs
//     and ys (transforms/ScanUtils.h: extendScan), the placeholders are
//     replaced by the real values, and the replaced nodes are replaced.
//
// A rule may also rewrite a lax.while (hoisting out of its regions, removing
// a carry or a const) or a lax.cond (hoisting what every branch computes,
// removing a result or an operand): those rebuild the op directly.
//
// The role functions (scan_of, ys_slice, carry, only_consts, ...) are
// ordinary native functions, registered at the end of this file; they work
// in any rule's `where`.
//
//===----------------------------------------------------------------------===//
#include "rules/Evaluator.h"
#include "rules/NativeRegistry.h"
#include "rules/PdlText.h"
#include "rules/RuleParser.h"
#include "rules/RuleRuntime.h"

#include "dialect/LaxControlFlowOps.h"
#include "dialect/LaxOps.h"
#include "transforms/ScanUtils.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <set>

using namespace kiln::rules;
using namespace mlir;
using kiln::availableBefore;
using kiln::lax::CondOp;
using kiln::lax::ScanOp;
using kiln::lax::WhileOp;
using A = ArgKind;

//===----------------------------------------------------------------------===//
// Roles
//===----------------------------------------------------------------------===//

namespace {
/// The scan that `v` is a result of.
ScanOp scanOfResult(Value v) {
  auto r = dyn_cast_or_null<OpResult>(v);
  return r ? dyn_cast<ScanOp>(r.getOwner()) : ScanOp();
}

/// The scan whose body block directly holds `v` (a block argument or an op
/// result).
ScanOp parentScanOf(Value v) {
  if (!v)
    return {};
  Block *b = v.getParentBlock();
  return b ? dyn_cast_or_null<ScanOp>(b->getParentOp()) : ScanOp();
}
ScanOp parentScanOf(Operation *op) {
  return op && op->getBlock() ? dyn_cast_or_null<ScanOp>(op->getParentOp()) : ScanOp();
}

/// Whether `v` is defined inside `scan`'s body (at any depth).
bool definedInside(Value v, ScanOp scan) {
  Region *r = v.getParentRegion();
  return r && scan.getBody().isAncestor(r);
}

/// The op whose own regions (a scan's body, a while's cond and body, a
/// cond's branches) directly hold op or value `x`; null if none does.
Operation *enclosingRegionOp(const Val &x) {
  Block *b = x.kind == Val::Op ? (x.op ? x.op->getBlock() : nullptr)
                               : (x.asValue() ? x.asValue().getParentBlock() : nullptr);
  Operation *owner = b ? b->getParentOp() : nullptr;
  return isa_and_nonnull<ScanOp, WhileOp, CondOp>(owner) ? owner : nullptr;
}

WhileOp parentWhileOf(Operation *op) {
  return op && op->getBlock() ? dyn_cast_or_null<WhileOp>(op->getParentOp()) : WhileOp();
}
CondOp parentCondOf(Operation *op) {
  return op && op->getBlock() ? dyn_cast_or_null<CondOp>(op->getParentOp()) : CondOp();
}

enum Dep : unsigned { DepConst = 1, DepCarry = 2, DepXs = 4 };

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

} // namespace

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

/// The deps of a value, or of an op's operands (and what its regions read),
/// in the scan, while or cond whose region directly holds it; std::nullopt
/// when none does. The loop's table is computed once while rules run
/// (RuleRuntime::Active: any IR change drops it), afresh otherwise.
std::optional<unsigned> depsOfVal(const Val &x) {
  Operation *owner = enclosingRegionOp(x);
  if (!owner)
    return std::nullopt;
  std::shared_ptr<DependenceTable> table;
  if (RuleRuntime *rt = RuleRuntime::active()) {
    std::shared_ptr<DependenceTable> &memo = rt->dependences[owner];
    if (!memo)
      memo = computeDependences(owner);
    table = memo;
  } else {
    table = computeDependences(owner);
  }
  if (x.kind == Val::Op)
    return table->ops.lookup(x.op);
  return table->values.lookup(x.asValue());
}

ScanOp scanArg(const Val &v) { return dyn_cast_or_null<ScanOp>(v.asOp()); }

/// Const `k` of a scan, or of a while (its cond consts, then its body
/// consts): the block argument; null if there is none.
BlockArgument constArg(Operation *loop, int64_t k) {
  if (k < 0)
    return {};
  if (auto s = dyn_cast_or_null<ScanOp>(loop))
    return k < (int64_t)s.getNumConsts() ? s.getConstArgs()[k] : BlockArgument();
  if (auto w = dyn_cast_or_null<WhileOp>(loop)) {
    int64_t numCond = w.getNumCondConsts();
    if (k < numCond)
      return w.getCondConstArgs()[k];
    return k - numCond < w.getNumBodyConsts() ? w.getBodyConstArgs()[k - numCond]
                                              : BlockArgument();
  }
  return {};
}
CondOp condArg(const Val &v) { return dyn_cast_or_null<CondOp>(v.asOp()); }

/// The carries of a lax.scan or a lax.while by role: initial values, body
/// block arguments, the body's next values, final values.
struct Carries {
  Block *body = nullptr;
  ValueRange inits, args, next, finals;
  /// A while's cond region reads them too.
  ValueRange condArgs;

  static std::optional<Carries> of(Operation *loop) {
    if (auto s = dyn_cast_or_null<ScanOp>(loop))
      return Carries{&s.getBodyBlock(), s.getInits(), s.getCarryArgs(),
                     s.getBodyBlock().getTerminator()->getOperands().take_front(s.getNumCarry()),
                     s.getFinalCarries(), {}};
    if (auto w = dyn_cast_or_null<WhileOp>(loop))
      return Carries{&w.getBodyBlock(), w.getInits(), w.getBodyCarryArgs(), w.getNextCarries(),
                     w->getResults(), w.getCondCarryArgs()};
    return std::nullopt;
  }
};

/// Whether carry `i` of a scan or while can go: its final value is unread, a
/// while's cond region does not read it, and its body block argument feeds,
/// through pure ops only, nothing but its own update. `fed` receives those
/// ops.
bool carryFeedsOnlyItself(Operation *loop, unsigned i,
                          llvm::SetVector<Operation *> *fed = nullptr) {
  auto c = Carries::of(loop);
  if (!c || i >= c->finals.size() || !c->finals[i].use_empty() ||
      (!c->condArgs.empty() && !c->condArgs[i].use_empty()))
    return false;
  Block &body = *c->body;
  Operation *yield = body.getTerminator();
  llvm::SetVector<Operation *> ops;
  SmallVector<Value> work = {c->args[i]};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = body.findAncestorOpInBlock(*use.getOwner());
      if (!user)
        return false;
      if (user == yield) {
        if (use.getOwner() != yield || use.getOperandNumber() != i)
          return false;
        continue;
      }
      if (!isPure(user))
        return false;
      if (ops.insert(user))
        llvm::append_range(work, user->getResults());
    }
  }
  if (fed)
    *fed = std::move(ops);
  return true;
}

/// `f(v)` with v a result of a scan or a while, or `f(l, i)`: the loop and
/// the index, with `ys` choosing ys (true) or carries (false) for the
/// one-argument form (a while has carries only).
std::optional<std::pair<Operation *, int64_t>> roleArgs(ArrayRef<Val> a, bool ys) {
  if (a.size() == 1) {
    auto r = dyn_cast_or_null<OpResult>(a[0].asValue());
    Operation *loop = r ? r.getOwner() : nullptr;
    auto c = Carries::of(loop);
    if (!c)
      return std::nullopt;
    int64_t n = r.getResultNumber();
    int64_t numCarry = c->finals.size();
    if (ys != (n >= numCarry))
      return std::nullopt;
    return std::make_pair(loop, ys ? n - numCarry : n);
  }
  Operation *loop = a[0].asOp();
  auto i = a[1].asInt();
  if (!isa_and_nonnull<ScanOp, WhileOp>(loop) || !i)
    return std::nullopt;
  return std::make_pair(loop, *i);
}

template <typename R> std::optional<Val> valueAt(R range, int64_t i) {
  if (i < 0 || i >= (int64_t)range.size())
    return std::nullopt;
  return Val::ofValue(range[i]);
}

Value yieldedValue(ScanOp s, int64_t i) {
  return s.getBodyBlock().getTerminator()->getOperand(i);
}

/// The ops of the other branches of `cond` that compute what `op` (in one
/// branch) computes: the same op, attributes and result types, reading the
/// same values from outside the cond or the same branch arguments. None when
/// a branch has no such op, or when `op` reads a value computed in its
/// branch.
std::optional<SmallVector<Operation *>> sameInOtherBranches(Operation *op, CondOp cond) {
  Block *home = op->getBlock();
  if (op->getNumRegions() || op->getNumResults() == 0)
    return std::nullopt;
  // A block argument is the branch's (one of the cond's operands) or from
  // outside the cond; an op result from inside the cond is from `home`.
  for (Value o : op->getOperands())
    if (!isa<BlockArgument>(o) && o.getParentBlock() == home)
      return std::nullopt;
  SmallVector<Operation *> twins;
  for (Region &branch : cond.getBranches()) {
    Block *other = &branch.front();
    if (other == home)
      continue;
    auto counterpart = [&](Value v) -> Value {
      auto arg = dyn_cast<BlockArgument>(v);
      return arg && arg.getOwner() == home ? other->getArgument(arg.getArgNumber()) : v;
    };
    auto same = [&](Value a, Value b) { return success(counterpart(a) == b); };
    auto equivalent = [&](Operation *candidate) {
      return candidate != op && candidate->getBlock() == other &&
             OperationEquivalence::isEquivalentTo(op, candidate, same, nullptr,
                                                  OperationEquivalence::IgnoreLocations);
    };
    Operation *twin = nullptr;
    if (op->getNumOperands()) {
      // The twin reads every operand's counterpart: search the users of the
      // one with the fewest (counted only up to the fewest so far), not of
      // an argument that every op of the branch may read.
      Value rarest;
      size_t fewest = SIZE_MAX;
      for (Value o : op->getOperands()) {
        Value c = counterpart(o);
        size_t n = 0;
        for (auto it = c.use_begin(); it != c.use_end() && n < fewest; ++it)
          ++n;
        if (n < fewest) {
          fewest = n;
          rarest = c;
        }
      }
      for (Operation *user : rarest.getUsers())
        if (equivalent(user)) {
          twin = user;
          break;
        }
    } else {
      for (Operation &candidate : *other)
        if (equivalent(&candidate)) {
          twin = &candidate;
          break;
        }
    }
    if (!twin)
      return std::nullopt;
    twins.push_back(twin);
  }
  return twins;
}

/// The first element of a splat attribute for `type` from a rule value: an
/// int, a float, or "inf", "-inf", "nan", "min", "max" (the type's lowest or
/// highest value: -inf/+inf for floats).
Attribute splatScalar(Type element, const Val &v) {
  if (auto ft = dyn_cast<FloatType>(element)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    if (v.kind == Val::Str) {
      if (v.str == "inf" || v.str == "max")
        return FloatAttr::get(ft, APFloat::getInf(sem, false));
      if (v.str == "-inf" || v.str == "min")
        return FloatAttr::get(ft, APFloat::getInf(sem, true));
      if (v.str == "nan")
        return FloatAttr::get(ft, APFloat::getNaN(sem));
      return {};
    }
    auto f = v.asFloat();
    if (!f)
      return {};
    APFloat x(*f);
    bool lost = false;
    x.convert(sem, APFloat::rmNearestTiesToEven, &lost);
    return FloatAttr::get(ft, x);
  }
  if (auto it = dyn_cast<IntegerType>(element)) {
    unsigned w = it.getWidth();
    bool isUnsigned = it.isUnsigned() || w == 1;
    if (v.kind == Val::Str) {
      if (v.str == "min")
        return IntegerAttr::get(it, isUnsigned ? APInt::getMinValue(w) : APInt::getSignedMinValue(w));
      if (v.str == "max")
        return IntegerAttr::get(it, isUnsigned ? APInt::getMaxValue(w) : APInt::getSignedMaxValue(w));
      return {};
    }
    auto i = v.kind == Val::Float ? std::optional<int64_t>() : v.asInt();
    if (!i)
      return {};
    return IntegerAttr::get(it, APInt(w, *i, /*isSigned=*/!isUnsigned, /*implicitTrunc=*/true));
  }
  return {};
}

std::vector<int64_t> L(const Val &v) { return v.asList().value_or(std::vector<int64_t>{}); }
} // namespace

namespace kiln::rules {
void registerScanNatives(NativeRegistry &r);
}

void kiln::rules::registerScanNatives(NativeRegistry &r) {
  r.addFunction("scan_of", {A::Value}, [](auto a) -> std::optional<Val> {
    ScanOp s = scanOfResult(a[0].asValue());
    return s ? std::optional<Val>(Val::ofOp(s)) : std::nullopt;
  }, "the lax.scan a value is a result of (a final carry or a ys)");
  r.addFunction("parent_scan", {A::Any}, [](auto a) -> std::optional<Val> {
    ScanOp s = a[0].kind == Val::Op ? parentScanOf(a[0].op) : parentScanOf(a[0].asValue());
    return s ? std::optional<Val>(Val::ofOp(s)) : std::nullopt;
  }, "the lax.scan whose body directly holds an op or value");
  r.addFunction("parent_while", {A::Any}, [](auto a) -> std::optional<Val> {
    auto w = dyn_cast_or_null<WhileOp>(enclosingRegionOp(a[0]));
    return w ? std::optional<Val>(Val::ofOp(w)) : std::nullopt;
  }, "the lax.while whose body or cond region directly holds an op or value");
  r.addFunction("while_of", {A::Value}, [](auto a) -> std::optional<Val> {
    auto r = dyn_cast_or_null<OpResult>(a[0].asValue());
    auto w = r ? dyn_cast<WhileOp>(r.getOwner()) : WhileOp();
    return w ? std::optional<Val>(Val::ofOp(w)) : std::nullopt;
  }, "the lax.while a value is a result (a final carry) of");
  r.addFunction("parent_cond", {A::Any}, [](auto a) -> std::optional<Val> {
    auto c = dyn_cast_or_null<CondOp>(enclosingRegionOp(a[0]));
    return c ? std::optional<Val>(Val::ofOp(c)) : std::nullopt;
  }, "the lax.cond whose branch directly holds an op or value");
  r.addFunction("cond_of", {A::Value}, [](auto a) -> std::optional<Val> {
    auto r = dyn_cast_or_null<OpResult>(a[0].asValue());
    auto c = r ? dyn_cast<CondOp>(r.getOwner()) : CondOp();
    return c ? std::optional<Val>(Val::ofOp(c)) : std::nullopt;
  }, "the lax.cond a value is a result of");
  r.addConstraint("is_ys", {A::Value}, [](auto a) { return roleArgs(a, true).has_value(); },
                  "the value is a ys (stacked output) of a lax.scan");
  r.addConstraint("is_final_carry", {A::Value},
                  [](auto a) { return roleArgs(a, false).has_value(); },
                  "the value is a final carry of a lax.scan or lax.while");
  r.addFunction("ys_index", {A::Value}, [](auto a) -> std::optional<Val> {
    auto ra = roleArgs(a, true);
    return ra ? std::optional<Val>(Val::ofInt(ra->second)) : std::nullopt;
  }, "j for the scan's ys j");
  r.addFunction("carry_index", {A::Value}, [](auto a) -> std::optional<Val> {
    auto ra = roleArgs(a, false);
    return ra ? std::optional<Val>(Val::ofInt(ra->second)) : std::nullopt;
  }, "i for the final carry i of a scan or while");
  auto addRole = [&](const char *name, const char *doc, bool ys,
                     std::function<std::optional<Val>(Operation *, int64_t)> fn) {
    NativeFunction n;
    n.name = name;
    n.doc = doc;
    n.role = NativeFunction::Function;
    n.args = {A::Any, A::Any};
    n.variadic = true; // f(v) or f(s, i)
    n.fn = [ys, fn](RewriterBase &, ArrayRef<Val> a) -> std::optional<Val> {
      if (a.size() > 2)
        return std::nullopt;
      auto ra = roleArgs(a, ys);
      if (!ra)
        return std::nullopt;
      return fn(ra->first, ra->second);
    };
    r.add(std::move(n));
  };
  addRole("ys_axis", "ys_axis(v) or ys_axis(s, j): the axis ys j is stacked along", true,
          [](Operation *loop, int64_t j) -> std::optional<Val> {
            auto s = dyn_cast<ScanOp>(loop);
            if (!s || j < 0 || j >= (int64_t)s.getYs().size())
              return std::nullopt;
            return Val::ofInt(s.getYsAxis(j));
          });
  addRole("ys_slice", "ys_slice(v) or ys_slice(s, j): the body value yielded for ys j", true,
          [](Operation *loop, int64_t j) -> std::optional<Val> {
            auto s = dyn_cast<ScanOp>(loop);
            if (!s || j < 0 || j >= (int64_t)s.getYs().size())
              return std::nullopt;
            return Val::ofValue(yieldedValue(s, s.getNumCarry() + j));
          });
  // Carries of a scan or a while (its body region's block arguments).
  addRole("next_carry",
          "next_carry(v) or next_carry(l, i): the body value yielded for carry i (scan or while)",
          false, [](Operation *loop, int64_t i) { return valueAt(Carries::of(loop)->next, i); });
  addRole("carry", "carry(v) or carry(l, i): the body block argument of carry i (scan or while)",
          false, [](Operation *loop, int64_t i) { return valueAt(Carries::of(loop)->args, i); });
  addRole("init", "init(v) or init(l, i): the initial value of carry i (scan or while)", false,
          [](Operation *loop, int64_t i) { return valueAt(Carries::of(loop)->inits, i); });
  r.addFunction("final_carry", {A::Op, A::Int}, [](auto a) -> std::optional<Val> {
    auto c = Carries::of(a[0].asOp());
    return c ? valueAt(c->finals, *a[1].asInt()) : std::nullopt;
  }, "final_carry(l, i): the result of carry i (scan or while)");
  r.addFunction("cond_carry", {A::Op, A::Int}, [](auto a) -> std::optional<Val> {
    auto w = dyn_cast_or_null<WhileOp>(a[0].asOp());
    return w ? valueAt(w.getCondCarryArgs(), *a[1].asInt()) : std::nullopt;
  }, "cond_carry(w, i): the cond region's block argument of carry i of a while");
  r.addFunction("predicate", {A::Op}, [](auto a) -> std::optional<Val> {
    auto w = dyn_cast_or_null<WhileOp>(a[0].asOp());
    return w ? std::optional<Val>(Val::ofValue(w.getPredicate())) : std::nullopt;
  }, "predicate(w): the value a while's cond region yields");
  r.addFunction("num_cond_consts", {A::Op}, [](auto a) -> std::optional<Val> {
    auto w = dyn_cast_or_null<WhileOp>(a[0].asOp());
    return w ? std::optional<Val>(Val::ofInt(w.getNumCondConsts())) : std::nullopt;
  }, "num_cond_consts(w): the number of a while's cond consts");
  // Branches of a cond.
  r.addFunction("num_branches", {A::Op}, [](auto a) -> std::optional<Val> {
    CondOp c = condArg(a[0]);
    return c ? std::optional<Val>(Val::ofInt(c.getNumBranches())) : std::nullopt;
  }, "num_branches(c): the number of branches of a cond");
  r.addFunction("branch_arg", {A::Op, A::Int, A::Int}, [](auto a) -> std::optional<Val> {
    CondOp c = condArg(a[0]);
    int64_t b = *a[1].asInt();
    if (!c || b < 0 || b >= c.getNumBranches())
      return std::nullopt;
    return valueAt(c.getBranchBlock(b).getArguments(), *a[2].asInt());
  }, "branch_arg(c, b, k): branch b's block argument k (the cond's operand k after the index)");
  r.addFunction("branch_result", {A::Op, A::Int, A::Int}, [](auto a) -> std::optional<Val> {
    CondOp c = condArg(a[0]);
    int64_t b = *a[1].asInt();
    if (!c || b < 0 || b >= c.getNumBranches())
      return std::nullopt;
    return valueAt(c.getBranchBlock(b).getTerminator()->getOperands(), *a[2].asInt());
  }, "branch_result(c, b, i): the value branch b yields for result i");
  r.addConstraint("same_in_all_branches", {A::Op}, [](auto a) {
    CondOp c = parentCondOf(a[0].asOp());
    return c && sameInOtherBranches(a[0].asOp(), c).has_value();
  }, "the op, in a branch of a lax.cond, is computed by every other branch too: the same op, "
     "attributes and types, from the same values from outside or the same branch arguments");
  r.addFunction("unused_result", {A::Op}, [](auto a) -> std::optional<Val> {
    CondOp c = condArg(a[0]);
    if (!c)
      return std::nullopt;
    for (auto [i, result] : llvm::enumerate(c.getResults()))
      if (result.use_empty())
        return Val::ofInt(i);
    return std::nullopt;
  }, "unused_result(c): the index of the first result of a cond nobody reads");
  r.addFunction("unused_operand", {A::Op}, [](auto a) -> std::optional<Val> {
    CondOp c = condArg(a[0]);
    if (!c)
      return std::nullopt;
    for (unsigned k = 0; k < c.getBranchOperands().size(); ++k)
      if (llvm::all_of(c.getBranches(),
                       [&](Region &b) { return b.front().getArgument(k).use_empty(); }))
        return Val::ofInt(k);
    return std::nullopt;
  }, "unused_operand(c): the index (after the index operand) of the first operand of a cond no "
     "branch reads");
  r.addFunction("stacked_ys", {A::Op, A::Int}, [](auto a) -> std::optional<Val> {
    ScanOp s = scanArg(a[0]);
    return s ? valueAt(s.getYs(), *a[1].asInt()) : std::nullopt;
  }, "stacked_ys(s, j): the result ys j");
  r.addFunction("xs_slice", {A::Op, A::Int}, [](auto a) -> std::optional<Val> {
    ScanOp s = scanArg(a[0]);
    return s ? valueAt(s.getXSliceArgs(), *a[1].asInt()) : std::nullopt;
  }, "xs_slice(s, j): the block argument of xs j (one slice)");
  r.addFunction("const", {A::Op, A::Int}, [](auto a) -> std::optional<Val> {
    auto k = constArg(a[0].asOp(), *a[1].asInt());
    return k ? std::optional<Val>(Val::ofValue(k)) : std::nullopt;
  }, "const(l, k): the block argument of const k (a while's consts: its cond consts, then its "
     "body consts)");
  r.addFunction("xs_axis", {A::Op, A::Int}, [](auto a) -> std::optional<Val> {
    ScanOp s = scanArg(a[0]);
    int64_t j = *a[1].asInt();
    if (!s || j < 0 || j >= (int64_t)s.getXs().size())
      return std::nullopt;
    return Val::ofInt(s.getXsAxis(j));
  }, "xs_axis(s, j): the axis xs j is sliced along");
  r.addFunction("num_carry", {A::Op}, [](auto a) -> std::optional<Val> {
    auto c = Carries::of(a[0].asOp());
    return c ? std::optional<Val>(Val::ofInt(c->finals.size())) : std::nullopt;
  }, "num_carry(l): the number of carries of a scan or while");
  r.addFunction("num_consts", {A::Op}, [](auto a) -> std::optional<Val> {
    Operation *loop = a[0].asOp();
    if (auto s = dyn_cast_or_null<ScanOp>(loop))
      return Val::ofInt(s.getNumConsts());
    if (auto w = dyn_cast_or_null<WhileOp>(loop))
      return Val::ofInt(w.getNumCondConsts() + w.getNumBodyConsts());
    return std::nullopt;
  }, "num_consts(l): the number of consts of a scan, or of a while (cond and body consts)");
  auto count = [&](const char *name, const char *doc, std::function<int64_t(ScanOp)> fn) {
    r.addFunction(name, {A::Op}, [fn](auto a) -> std::optional<Val> {
      ScanOp s = scanArg(a[0]);
      return s ? std::optional<Val>(Val::ofInt(fn(s))) : std::nullopt;
    }, doc);
  };
  count("num_xs", "number of xs", [](ScanOp s) { return (int64_t)s.getXs().size(); });
  count("num_ys", "number of ys", [](ScanOp s) { return (int64_t)s.getYs().size(); });
  count("scan_length", "the number of iterations", [](ScanOp s) { return s.getLength(); });
  r.addConstraint("is_reverse", {A::Op}, [](auto a) {
    ScanOp s = scanArg(a[0]);
    return s && s.getReverse();
  }, "the scan runs from the last slice to the first");

  // Dependencies inside a body.
  r.addConstraint("depends_on_carries", {A::Any}, [](auto a) {
    auto d = depsOfVal(a[0]);
    return d && (*d & DepCarry);
  }, "a body value (or op's operands) depends on a carry of the enclosing scan");
  r.addConstraint("only_consts", {A::Any}, [](auto a) {
    auto d = depsOfVal(a[0]);
    return d && !(*d & (DepCarry | DepXs));
  }, "a body value (or op's operands) depends only on consts and values from outside the scan: "
     "it is the same at every iteration");
  r.addConstraint("only_xs", {A::Any}, [](auto a) {
    auto d = depsOfVal(a[0]);
    return d && !(*d & DepCarry) && (*d & DepXs);
  }, "a body value depends on the xs slices (and invariants) but on no carry");
  r.addConstraint("invariant_operands", {A::Op}, [](auto a) {
    Operation *op = a[0].asOp();
    Operation *owner = enclosingRegionOp(Val::ofOp(op));
    return owner && llvm::all_of(op->getOperands(), [&](Value o) {
      // A value from outside the loop or cond, or one of its consts (a
      // cond's branch arguments included): the same at every iteration.
      Region *r = o.getParentRegion();
      if (!r || !owner->isAncestor(r->getParentOp()))
        return true;
      auto arg = dyn_cast<BlockArgument>(o);
      return arg && arg.getOwner() == op->getBlock() && argRole(owner, arg) == DepConst;
    });
  }, "every operand of the op (directly in a scan, while or cond region) is a const of it or "
     "a value from outside: what hoist(op) needs; O(operands), with no pass over the loop "
     "(only_consts computes the whole loop's dependence classes)");
  r.addConstraint("is_pure", {A::Op}, [](auto a) { return isPure(a[0].asOp()); },
                  "the op has no memory effects (recursively)");
  r.addFunction("ys_operand", {A::Op}, [](auto a) -> std::optional<Val> {
    for (Value v : a[0].asOp()->getOperands())
      if (roleArgs({Val::ofValue(v)}, true))
        return Val::ofValue(v);
    return std::nullopt;
  }, "the first operand of the op that is a ys of a lax.scan");
  r.addFunction("unused_ys", {A::Op}, [](auto a) -> std::optional<Val> {
    ScanOp s = scanArg(a[0]);
    if (!s)
      return std::nullopt;
    for (auto [j, y] : llvm::enumerate(s.getYs()))
      if (y.use_empty())
        return Val::ofInt(j);
    return std::nullopt;
  }, "unused_ys(s): the index of the first ys nobody reads");

  r.addFunction("unused_carry", {A::Op}, [](auto a) -> std::optional<Val> {
    auto c = Carries::of(a[0].asOp());
    if (!c)
      return std::nullopt;
    for (unsigned i = 0; i < c->finals.size(); ++i)
      if (carryFeedsOnlyItself(a[0].asOp(), i))
        return Val::ofInt(i);
    return std::nullopt;
  }, "unused_carry(l): the index of the first carry of a scan or while whose final value nobody "
     "reads, which a while's cond region does not read, and whose body block argument feeds "
     "(through pure ops) only its own update");
  r.addFunction("unused_const", {A::Op}, [](auto a) -> std::optional<Val> {
    Operation *loop = a[0].asOp();
    for (int64_t k = 0;; ++k) {
      Value arg = constArg(loop, k);
      if (!arg)
        return std::nullopt;
      if (arg.use_empty())
        return Val::ofInt(k);
    }
  }, "unused_const(l): the index of the first const of a scan or while its region never reads");
  r.addFunction("carry_yielding", {A::Value}, [](auto a) -> std::optional<Val> {
    Value v = a[0].asValue();
    Block *b = v.getParentBlock();
    auto c = Carries::of(b ? b->getParentOp() : nullptr);
    if (!c || c->body != b)
      return std::nullopt;
    for (auto [i, next] : llvm::enumerate(c->next))
      if (next == v)
        return Val::ofInt(i);
    return std::nullopt;
  }, "carry_yielding(v): the first carry (of a scan or while) whose next value is the body "
     "value v");
  r.addFunction("last_step", {A::Op}, [](auto a) -> std::optional<Val> {
    ScanOp s = scanArg(a[0]);
    if (!s || s.getLength() < 1)
      return std::nullopt;
    return Val::ofInt(s.getReverse() ? 0 : s.getLength() - 1);
  }, "last_step(s): the position in the ys of the slice the last iteration writes "
     "(length - 1, or 0 for a reverse scan)");
  r.addFunction("num_operands", {A::Op}, [](auto a) -> std::optional<Val> {
    return Val::ofInt(a[0].asOp()->getNumOperands());
  }, "the number of operands of an op");
  r.addFunction("num_results", {A::Op}, [](auto a) -> std::optional<Val> {
    return Val::ofInt(a[0].asOp()->getNumResults());
  }, "the number of results of an op");
  r.addFunction("copy_attr", {A::Op, A::Any}, [](auto a) -> std::optional<Val> {
    if (a[1].kind != Val::Str)
      return std::nullopt;
    Attribute attr = a[0].asOp()->getAttr(a[1].str);
    return attr ? std::optional<Val>(Val::ofAttr(attr)) : std::nullopt;
  }, "copy_attr(node, \"name\"): as a rewrite attribute value, the node's attribute, and "
     "no attribute where the node has none (an optional attribute copied as it is)");
  r.addFunction("product", {A::IntList}, [](auto a) -> std::optional<Val> {
    int64_t p = 1;
    for (int64_t d : L(a[0]))
      if (__builtin_mul_overflow(p, d, &p))
        return std::nullopt;
    return Val::ofInt(p);
  }, "product(l): the product of a list (1 for []), e.g. product(shape($x)); fails on overflow");
  r.addFunction("fill", {A::Int, A::Int}, [](auto a) -> std::optional<Val> {
    int64_t n = *a[0].asInt();
    if (n < 0 || n > 4096)
      return std::nullopt;
    return Val::ofList(std::vector<int64_t>(n, *a[1].asInt()));
  }, "fill(n, v): a list of n copies of v (n <= 4096)");
  r.addFunction("set_at", {A::IntList, A::Int, A::Int}, [](auto a) -> std::optional<Val> {
    auto l = L(a[0]);
    int64_t i = *a[1].asInt();
    if (i < 0 || i >= (int64_t)l.size())
      return std::nullopt;
    l[i] = *a[2].asInt();
    return Val::ofList(l);
  }, "set_at(l, i, v): l with element i replaced by v");

  // Axes and constants.
  r.addFunction("slice_axes", {A::IntList, A::Int}, [](auto a) -> std::optional<Val> {
    // Axes of a stacked tensor without its scan axis `ax`, numbered in the
    // slice (the scan axis removed).
    std::vector<int64_t> out;
    int64_t ax = *a[1].asInt();
    for (int64_t d : L(a[0]))
      if (d != ax)
        out.push_back(d < ax ? d : d - 1);
    return Val::ofList(out);
  }, "slice_axes(axes, a): the axes other than a, numbered with a removed");
  r.addFunction("count_below", {A::IntList, A::Int}, [](auto a) -> std::optional<Val> {
    int64_t ax = *a[1].asInt(), n = 0;
    for (int64_t d : L(a[0]))
      n += d < ax;
    return Val::ofInt(n);
  }, "count_below(axes, a): how many axes are below a");
  r.addFunction("splat", {A::Type, A::Any}, [](auto a) -> std::optional<Val> {
    auto t = dyn_cast_or_null<RankedTensorType>(a[0].asType());
    if (!t)
      return std::nullopt;
    Attribute x = splatScalar(t.getElementType(), a[1]);
    if (!x)
      return std::nullopt;
    return Val::ofAttr(DenseElementsAttr::get(t, x));
  }, "splat(T, x): a dense splat of tensor type T; x a number or \"inf\", \"-inf\", \"nan\", "
     "\"min\", \"max\"");
}

//===----------------------------------------------------------------------===//
// Load-time checks
//===----------------------------------------------------------------------===//

namespace {
/// The rewrite actions of region rules and their argument counts.
const std::map<std::string, std::pair<unsigned, unsigned>> &actions() {
  static const std::map<std::string, std::pair<unsigned, unsigned>> a = {
      {"add_carry", {3, 3}}, {"add_ys", {2, 3}}, {"add_xs", {3, 3}},   {"add_const", {2, 2}},
      {"sink", {2, 2}},      {"hoist", {1, 1}},  {"remove_ys", {2, 2}}, {"remove_carry", {2, 2}},
      {"remove_const", {2, 2}}, {"remove_result", {2, 2}}, {"remove_operand", {2, 2}}};
  return a;
}

struct Checker {
  MLIRContext *ctx;
  const CompiledRule &compiled;
  const Rule &rule;
  bool failed = false;
  std::set<std::string> bound; ///< "$x" captures, node and binding names

  void error(const SrcLoc &l, const std::string &m) {
    if (!failed)
      emitError(toLocation(ctx, l)) << "rule '" << rule.name << "': " << m;
    failed = true;
  }

  /// Names and calls in an expression; `inRewrite` allows ops and actions.
  void check(const ExprP &e, bool inRewrite) {
    walkExpr(e, [&](const ExprP &x) {
      if (failed)
        return;
      switch (x->kind) {
      case Expr::Capture:
        if (!bound.count("$" + x->name))
          error(x->loc, "'$" + x->name + "' is used but never bound (in match or loop)");
        return;
      case Expr::Ref:
        if (!bound.count(x->name) && parseLiteral(ctx, x->name).kind == Val::None)
          error(x->loc, "unknown name '" + x->name + "' (not a match node, a loop binding, a "
                        "rewrite node, a type, or an attribute)");
        return;
      case Expr::Literal:
        if (parseLiteral(ctx, x->name).kind == Val::None)
          error(x->loc, "`" + x->name + "` is not a valid MLIR attribute or type");
        return;
      case Expr::Wildcard:
        error(x->loc, "'_' cannot appear here");
        return;
      case Expr::Op: {
        if (!inRewrite) {
          error(x->loc, "an op cannot appear inside an expression");
          return;
        }
        auto reg = checkOp(ctx, *x, [&](const SrcLoc &l, const std::string &m) { error(l, m); });
        if (!failed && reg && !x->type && !reg->hasInterface<InferTypeOpInterface>())
          error(x->loc, "cannot infer the result types of '" + x->name +
                            "'; give them with `-> $t` or `-> type_of($x)`");
        return;
      }
      case Expr::Call: {
        auto act = actions().find(x->name);
        if (act != actions().end()) {
          if (!inRewrite) {
            error(x->loc, "'" + x->name + "' is a rewrite action; it can only appear in 'rewrite'");
            return;
          }
          if (x->args.size() < act->second.first || x->args.size() > act->second.second)
            error(x->loc, "'" + x->name + "' takes " + std::to_string(act->second.first) +
                              (act->second.first == act->second.second
                                   ? ""
                                   : " or " + std::to_string(act->second.second)) +
                              " argument(s), got " + std::to_string(x->args.size()));
          return;
        }
        const NativeFunction *f = NativeRegistry::global().lookup(x->name);
        if (!f) {
          error(x->loc, "unknown native function '" + x->name + "'");
          return;
        }
        if (f->role == NativeFunction::Rewrite) {
          error(x->loc, "'" + x->name + "' is a native rewrite; a region rule rewrites with "
                        "its own actions (add_carry, add_ys, sink, hoist, ...)");
          return;
        }
        size_t want = f->args.size();
        if (f->variadic ? x->args.size() + 1 < want : x->args.size() != want)
          error(x->loc, "'" + x->name + "' takes " + (f->variadic ? "at least " : "") +
                            std::to_string(f->variadic ? want - 1 : want) + " argument(s), got " +
                            std::to_string(x->args.size()));
        return;
      }
      default:
        return;
      }
    });
  }

  LogicalResult run() {
    if (rule.rewriteCall) {
      error(rule.rewriteCall->loc, "a region rule (one with 'loop') rewrites with a mapping of "
                                   "node names, not a native call");
      return failure();
    }
    std::set<std::string> matchNodes;
    for (const Node &n : rule.match) {
      matchNodes.insert(n.name);
      bound.insert(n.name);
      walkExpr(n.expr, [&](const ExprP &x) {
        if (x->kind == Expr::Capture)
          bound.insert("$" + x->name);
      });
    }
    for (const Node &n : rule.loop) {
      if (bound.count(n.name))
        error(n.loc, "loop binding '" + n.name + "' is already bound");
      check(n.expr, false);
      bound.insert(n.name);
    }
    for (const ExprP &w : rule.where)
      check(w, false);
    bool rootReplaced = false;
    for (const Node &n : rule.rewrite) {
      bool isMatch = matchNodes.count(n.name);
      if (!isMatch && bound.count(n.name))
        error(n.loc, "rewrite node '" + n.name + "' is already bound");
      std::vector<ExprP> exprs = n.values.empty() ? std::vector<ExprP>{n.expr} : n.values;
      for (const ExprP &e : exprs) {
        // add_carry's update sees the new carry by the node's name.
        if (e->kind == Expr::Call && e->name == "add_carry") {
          if (isMatch || !n.values.empty())
            error(e->loc, "add_carry must define a new rewrite node (its name is the carry)");
          if (e->args.size() == 3) {
            check(e->args[0], true);
            check(e->args[1], true);
            bound.insert(n.name);
            check(e->args[2], true);
          }
          continue;
        }
        if (e->name.rfind("remove_", 0) == 0 && e->kind == Expr::Call &&
            (!isMatch || rule.rewrite.size() != 1))
          error(e->loc, "'" + e->name + "' must be the only rewrite, of the match node that is "
                        "the scan, while or cond (`s: " + e->name + "(s, i)`)");
        check(e, true);
      }
      bound.insert(n.name);
      rootReplaced |= n.name == compiled.rootNode;
    }
    if (!failed && !rootReplaced)
      error(rule.loc, "the rewrite must replace the root '" + compiled.rootNode + "'");
    return failure(failed);
  }
};
} // namespace

LogicalResult kiln::rules::checkRegionRule(MLIRContext *ctx, const CompiledRule &rule) {
  Checker c{ctx, rule, rule.rule};
  return c.run();
}

//===----------------------------------------------------------------------===//
// The rewriter
//===----------------------------------------------------------------------===//

namespace {
enum class Place { Free, Body, After };

struct RegionRewrite {
  RewriterBase &rewriter;
  const Rule &rule;
  Operation *root;
  Env env;
  std::string why;
  /// The failure is the rule's fault (a type it gives that inference
  /// contradicts, a replacement of another type), not a mismatch.
  bool ruleError = false;

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
  /// remove_operand (cond), of `removeFrom`.
  std::string removal;
  int64_t removeIndex = -1;
  Operation *removeFrom = nullptr;
  llvm::SetVector<Operation *> fedOps;

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

  bool fail(const std::string &m) {
    if (why.empty())
      why = m;
    return false;
  }
  Value failV(const std::string &m) {
    fail(m);
    return {};
  }

  Value placeholder(Type t, PhKind k, unsigned i) {
    Value v = ph->addArgument(t, root->getLoc());
    phs[v] = {k, i};
    return v;
  }

  Place placeOf(Value v) {
    if (auto it = phs.find(v); it != phs.end())
      return it->second.first <= XsArg ? Place::Body : Place::After;
    if (Operation *def = v.getDefiningOp())
      if (auto it = placeOfOp.find(def); it != placeOfOp.end())
        return it->second;
    if (scan && definedInside(v, scan))
      return Place::Body;
    if (scan && !availableBefore(v, scan))
      return Place::After;
    return Place::Free;
  }
  /// Whether `v` can be an operand of the scan.
  bool usableBeforeScan(Value v) {
    if (phs.count(v))
      return false;
    if (Operation *def = v.getDefiningOp(); def && placeOfOp.count(def))
      return beforeScan.count(def);
    return availableBefore(v, scan);
  }

  bool setScan(ScanOp s) {
    if (!s)
      return fail("not a lax.scan");
    if (scan && scan != s)
      return fail("a rule rewrites one scan at a time");
    scan = s;
    return true;
  }

  /// A value read inside the body: body values as they are, anything from
  /// outside through a new const (deduplicated).
  Value toBody(Value v) {
    if (placeOf(v) == Place::Body)
      return v;
    if (!usableBeforeScan(v))
      return failV("a value defined after the scan is read inside its body");
    if (auto it = constFor.find(v); it != constFor.end())
      return it->second;
    ext.consts.push_back(v);
    Value p = placeholder(v.getType(), ConstArg, ext.consts.size() - 1);
    constFor[v] = p;
    return p;
  }

  Operation *record(Operation *op, Place place) {
    created.emplace_back(op, place);
    placeOfOp[op] = place;
    if (place == Place::Free && scan &&
        llvm::all_of(op->getOperands(), [&](Value o) { return usableBeforeScan(o); }))
      beforeScan.insert(op);
    return op;
  }

  std::optional<Val> eval(const ExprP &e) {
    std::string err;
    auto v = evaluate(*e, env, rewriter, &err);
    if (!v)
      fail(err);
    return v;
  }

  Value valueOf(const Val &v, int resultIndex = 0) {
    if (v.kind == Val::Op) {
      if (resultIndex >= (int)v.op->getNumResults())
        return failV("no result #" + std::to_string(resultIndex));
      return v.op->getResult(resultIndex);
    }
    if (Value x = v.asValue())
      return x;
    return failV("not a value: " + v.str_());
  }

  /// Builds (detached) the value of a rewrite expression.
  Value build(const ExprP &e, const std::string &nodeName = "") {
    if (!why.empty())
      return {};
    switch (e->kind) {
    case Expr::Capture:
    case Expr::Ref: {
      auto it = env.find(e->kind == Expr::Capture ? "$" + e->name : e->name);
      if (it == env.end())
        return failV("unbound '" + e->name + "'");
      return valueOf(it->second, e->kind == Expr::Ref ? e->resultIndex : 0);
    }
    case Expr::Op:
      return buildOp(*e);
    case Expr::Call:
      if (actions().count(e->name))
        return action(*e, nodeName);
      [[fallthrough]];
    default: {
      auto v = eval(e);
      return v ? valueOf(*v) : Value();
    }
    }
  }

  Value buildOp(const Expr &e) {
    SmallVector<Value> operands;
    for (const ExprP &a : e.args) {
      if (a->kind == Expr::Capture && a->variadic) {
        auto it = env.find("$" + a->name);
        if (it == env.end())
          return failV("unbound '$" + a->name + "'");
        llvm::append_range(operands, it->second.values);
        continue;
      }
      Value v = build(a);
      if (!v)
        return {};
      operands.push_back(v);
    }
    Place place = Place::Free;
    for (Value v : operands) {
      Place p = placeOf(v);
      if ((p == Place::Body && place == Place::After) || (p == Place::After && place == Place::Body))
        return failV("'" + e.name + "' reads both the loop body and the scan's results");
      if (p != Place::Free)
        place = p;
    }
    if (place == Place::Body)
      for (Value &v : operands)
        if (!(v = toBody(v)))
          return {};
    NamedAttrList attrs;
    for (auto &[n, x] : e.attrs) {
      // copy_attr(node, "name") of an attribute the node lacks: none.
      if (x->kind == Expr::Call && x->name == "copy_attr" && x->args.size() == 2) {
        auto node = eval(x->args[0]);
        auto name = node ? eval(x->args[1]) : std::nullopt;
        if (!name)
          return {};
        if (node->asOp() && name->kind == Val::Str && !node->asOp()->getAttr(name->str))
          continue;
      }
      auto v = eval(x);
      if (!v)
        return {};
      Attribute a = v->toAttribute(rewriter.getContext());
      if (!a)
        return failV("attribute '" + n + "' is not an attribute: " + v->str_());
      attrs.append(n, a);
    }
    SmallVector<Type> types;
    auto inferred = inferResultTypes(rewriter.getContext(), e.name, operands,
                                     attrs.getDictionary(rewriter.getContext()));
    if (e.type) {
      auto t = eval(e.type);
      if (!t || !t->asType())
        return failV("the result type of '" + e.name + "' cannot be computed");
      types.push_back(t->asType());
      if (inferred && !llvm::equal(*inferred, types)) {
        ruleError = true;
        return failV("the result type given to '" + e.name + "' (" +
                     Val::ofType(types[0]).str_() + ") differs from the inferred one (" +
                     Val::ofType((*inferred)[0]).str_() + ")");
      }
    } else if (inferred) {
      types = *inferred;
    } else {
      return failV("the result types of '" + e.name + "' cannot be inferred");
    }
    OperationState state(root->getLoc(), e.name);
    state.addOperands(operands);
    state.addAttributes(attrs);
    state.addTypes(types);
    Operation *op = Operation::create(state);
    record(op, place);
    ScopedDiagnosticHandler silence(rewriter.getContext(), [](Diagnostic &) { return success(); });
    if (failed(mlir::verify(op, /*verifyRecursively=*/false)))
      return failV("'" + e.name + "' would not verify");
    if (op->getNumResults() == 0)
      return failV("'" + e.name + "' has no result");
    return op->getResult(0);
  }

  std::optional<int64_t> evalInt(const ExprP &e) {
    auto v = eval(e);
    auto i = v ? v->asInt() : std::nullopt;
    if (v && !i)
      fail("not an integer: " + v->str_());
    return i;
  }
  ScanOp evalScan(const ExprP &e) {
    auto v = eval(e);
    if (!v)
      return {};
    auto s = dyn_cast_or_null<ScanOp>(v->asOp());
    if (!setScan(s))
      return {};
    return s;
  }
  RankedTensorType ranked(Value v) { return dyn_cast<RankedTensorType>(v.getType()); }

  Value action(const Expr &e, const std::string &nodeName) {
    const std::string &n = e.name;
    if (n == "hoist") {
      auto v = eval(e.args[0]);
      Operation *op = v ? v->asOp() : nullptr;
      if (!op)
        return failV("hoist takes an op");
      if (WhileOp w = parentWhileOf(op))
        return hoistFromWhile(op, w);
      if (CondOp c = parentCondOf(op))
        return hoistFromCond(op, c);
      if (!setScan(parentScanOf(op)))
        return {};
      if (op->getNumResults() != 1 || op->getNumRegions() || !isPure(op))
        return failV("only a pure single-result op without regions can be hoisted");
      // Sound: a pure op whose operands are the same at every iteration
      // computes the same value at every iteration; computing it once before
      // the loop and passing it in as a const changes no value.
      IRMapping map;
      for (Value o : op->getOperands()) {
        if (auto arg = dyn_cast<BlockArgument>(o); arg && arg.getOwner() == &scan.getBodyBlock()) {
          if (arg.getArgNumber() >= scan.getNumConsts())
            return failV("an operand is a carry or an xs slice");
          map.map(o, scan.getConsts()[arg.getArgNumber()]);
        } else if (definedInside(o, scan)) {
          return failV("an operand is computed in the body");
        }
      }
      Operation *clone = op->clone(map);
      record(clone, Place::Free);
      if (!beforeScan.count(clone))
        return failV("the hoisted op's operands are not available before the scan");
      return toBody(clone->getResult(0));
    }
    if (n == "sink")
      return sink(e);
    if (n.rfind("remove_", 0) == 0) {
      auto v = eval(e.args[0]);
      Operation *target = v ? v->asOp() : nullptr;
      if (auto s = dyn_cast_or_null<ScanOp>(target); s && !setScan(s))
        return {};
      if (!isa_and_nonnull<ScanOp, WhileOp, CondOp>(target))
        return failV(n + " takes a lax.scan, lax.while or lax.cond");
      auto i = evalInt(e.args[1]);
      if (!i)
        return {};
      removal = n;
      removeIndex = *i;
      removeFrom = target;
      // The value stands for "done" (plan returns before replacing).
      return target->getNumResults()  ? target->getResult(0)
             : target->getNumOperands() ? target->getOperand(0)
                                        : failV(n + ": nothing to remove");
    }
    if (!evalScan(e.args[0]))
      return {};
    if (n == "add_const") {
      Value v = build(e.args[1]);
      if (!v)
        return {};
      if (placeOf(v) == Place::Body)
        return failV("add_const takes a value from outside the scan");
      return toBody(v);
    }
    if (n == "add_xs") {
      Value v = build(e.args[1]);
      auto axis = v ? evalInt(e.args[2]) : std::nullopt;
      if (!axis)
        return {};
      RankedTensorType t = ranked(v);
      if (!t || *axis < 0 || *axis >= t.getRank() || t.getDimSize(*axis) != scan.getLength())
        return failV("add_xs: the value has no axis " + std::to_string(*axis) + " of length " +
                     std::to_string(scan.getLength()));
      if (!usableBeforeScan(v))
        return failV("add_xs: the value is not available before the scan");
      ext.xs.push_back(v);
      ext.xsAxes.push_back(*axis);
      return placeholder(kiln::lax::dropDim(t, *axis), XsArg, ext.xs.size() - 1);
    }
    if (n == "add_carry") {
      Value init = build(e.args[1]);
      if (!init)
        return {};
      if (!usableBeforeScan(init))
        return failV("add_carry: the initial value is not available before the scan");
      ext.inits.push_back(init);
      unsigned k = ext.inits.size() - 1;
      Value arg = placeholder(init.getType(), CarryArg, k);
      env[nodeName] = Val::ofValue(arg);
      Value next = build(e.args[2]);
      if (!next || !(next = toBody(next)))
        return {};
      if (next.getType() != init.getType())
        return failV("add_carry: the update's type differs from the initial value's");
      carryNext.push_back(next);
      return placeholder(init.getType(), CarryResult, k);
    }
    if (n == "add_ys") {
      Value slice = build(e.args[1]);
      if (!slice || !(slice = toBody(slice)))
        return {};
      RankedTensorType t = ranked(slice);
      std::optional<int64_t> axis = 0;
      if (e.args.size() > 2 && !(axis = evalInt(e.args[2])))
        return {};
      if (!t || *axis < 0 || *axis > t.getRank())
        return failV("add_ys: axis out of range");
      ysSlice.push_back(slice);
      ext.ysAxes.push_back(*axis);
      return placeholder(kiln::lax::insertDim(t, *axis, scan.getLength()), YsResult,
                         ext.ysAxes.size() - 1);
    }
    return failV("unknown action '" + n + "'");
  }

  /// Ops to insert right before another op (the while a hoisted op leaves).
  llvm::DenseMap<Operation *, Operation *> anchorOf;

  /// hoist(op) for an op in a region of a lax.while. Sound as for scan: a
  /// pure op whose operands are the region's consts or values from outside
  /// computes the same value at every iteration; lax ops do not trap, so
  /// computing it when the loop runs zero times changes nothing. The body
  /// then reads it directly (while regions may use values from above).
  Value hoistFromWhile(Operation *op, WhileOp w) {
    if (op->getNumResults() != 1 || op->getNumRegions() || !isPure(op))
      return failV("only a pure single-result op without regions can be hoisted");
    Block *block = op->getBlock();
    bool inBody = block == &w.getBodyBlock();
    unsigned numConsts = inBody ? w.getNumBodyConsts() : w.getNumCondConsts();
    ValueRange consts = inBody ? ValueRange(w.getBodyConsts()) : ValueRange(w.getCondConsts());
    IRMapping map;
    for (Value o : op->getOperands()) {
      if (auto arg = dyn_cast<BlockArgument>(o); arg && arg.getOwner() == block) {
        if (arg.getArgNumber() >= numConsts)
          return failV("an operand is a carry");
        map.map(o, consts[arg.getArgNumber()]);
      } else if (w->isAncestor(o.getParentBlock()->getParentOp())) {
        return failV("an operand is computed in the loop");
      }
    }
    Operation *clone = op->clone(map);
    created.emplace_back(clone, Place::Free);
    placeOfOp[clone] = Place::Free;
    anchorOf[clone] = w;
    return clone->getResult(0);
  }

  /// hoist(op) for an op in a branch of a lax.cond that every other branch
  /// computes too (sameInOtherBranches). Sound: exactly one branch runs,
  /// and whichever runs computes this value from the same inputs (a branch
  /// argument is the same cond operand in every branch); lax ops are pure and
  /// do not trap, so computing it once before the cond gives the same value,
  /// and no branch computes anything it did not compute before. The branches
  /// then read it directly (their regions may use values from above).
  Value hoistFromCond(Operation *op, CondOp cond) {
    if (op->getNumResults() != 1 || op->getNumRegions() || !isPure(op))
      return failV("only a pure single-result op without regions can be hoisted");
    auto twins = sameInOtherBranches(op, cond);
    if (!twins)
      return failV("not computed the same way in every branch");
    IRMapping map;
    for (Value o : op->getOperands())
      if (auto arg = dyn_cast<BlockArgument>(o); arg && arg.getOwner() == op->getBlock())
        map.map(o, cond.getBranchOperands()[arg.getArgNumber()]);
    Operation *clone = op->clone(map);
    created.emplace_back(clone, Place::Free);
    placeOfOp[clone] = Place::Free;
    anchorOf[clone] = cond;
    for (Operation *twin : *twins)
      replacements.emplace_back(twin, SmallVector<Value>{clone->getResult(0)});
    return clone->getResult(0);
  }

  /// An elementwise op reading ys of `scan` is computed per slice in the body.
  /// Sound: f(ys, z)[i] = f(ys[i], z[i]) for elementwise f, so computing f
  /// on slices and stacking gives the same tensor.
  Value sink(const Expr &e) {
    auto v = eval(e.args[0]);
    Operation *op = v ? v->asOp() : nullptr;
    if (!op || !evalScan(e.args[1]))
      return failV("sink takes an op and a scan");
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 || op->getNumRegions())
      return failV("sink: only single-result elementwise ops are sunk");
    int64_t axis = -1;
    RankedTensorType stacked;
    for (Value o : op->getOperands())
      if (scanOfResult(o) == scan && cast<OpResult>(o).getResultNumber() >= scan.getNumCarry()) {
        axis = scan.getYsAxis(cast<OpResult>(o).getResultNumber() - scan.getNumCarry());
        stacked = ranked(o);
        break;
      }
    if (axis < 0)
      return failV("sink: the op reads no ys of the scan");
    IRMapping map;
    for (Value o : op->getOperands()) {
      if (map.contains(o))
        continue;
      RankedTensorType t = ranked(o);
      if (!t)
        return failV("sink: an unranked operand");
      if (scanOfResult(o) == scan && cast<OpResult>(o).getResultNumber() >= scan.getNumCarry()) {
        unsigned j = cast<OpResult>(o).getResultNumber() - scan.getNumCarry();
        if (scan.getYsAxis(j) != axis)
          return failV("sink: reads ys stacked along different axes");
        if (llvm::any_of(o.getUsers(), [&](Operation *u) { return u != op; }))
          return failV("sink: the ys has other users (sinking would stack a second output)");
        map.map(o, yieldedValue(scan, scan.getNumCarry() + j));
        continue;
      }
      if (t.getRank() == 0 && t.getShape() != stacked.getShape()) {
        Value c = toBody(o);
        if (!c)
          return {};
        map.map(o, c);
        continue;
      }
      if (t.getShape() != stacked.getShape())
        return failV("sink: operand shapes differ from the ys shape");
      RankedTensorType sliceType = kiln::lax::dropDim(t, axis);
      if (auto c = o.getDefiningOp<kiln::lax::ConstantOp>();
          c && isa<SplatElementsAttr>(c.getValue())) {
        OperationState st(op->getLoc(), kiln::lax::ConstantOp::getOperationName());
        st.addAttribute("value", SplatElementsAttr::get(
                                     sliceType, cast<SplatElementsAttr>(c.getValue())
                                                    .getSplatValue<Attribute>()));
        st.addTypes(sliceType);
        map.map(o, record(Operation::create(st), Place::Body)->getResult(0));
        continue;
      }
      if (auto b = o.getDefiningOp<kiln::lax::BroadcastInDimOp>();
          b && !llvm::is_contained(b.getBroadcastDimensions(), axis) &&
          usableBeforeScan(b.getOperand())) {
        Value c = toBody(b.getOperand());
        if (!c)
          return {};
        SmallVector<int64_t> dims;
        for (int64_t d : b.getBroadcastDimensions())
          dims.push_back(d < axis ? d : d - 1);
        OpBuilder detached(rewriter.getContext());
        auto nb = kiln::lax::BroadcastInDimOp::create(detached, op->getLoc(), c,
                                                      sliceType.getShape(), dims);
        map.map(o, record(nb, Place::Body)->getResult(0));
        continue;
      }
      if (!usableBeforeScan(o))
        return failV("sink: an operand is defined after the scan");
      ext.xs.push_back(o);
      ext.xsAxes.push_back(axis);
      map.map(o, placeholder(sliceType, XsArg, ext.xs.size() - 1));
    }
    Operation *clone = op->clone(map);
    clone->getResult(0).setType(kiln::lax::dropDim(ranked(op->getResult(0)), axis));
    record(clone, Place::Body);
    ysSlice.push_back(clone->getResult(0));
    ext.ysAxes.push_back(axis);
    return placeholder(ranked(op->getResult(0)), YsResult, ext.ysAxes.size() - 1);
  }

  bool plan() {
    // The scan first: ops built before the first action still need to know
    // whether they belong in its body.
    for (const Node &n : rule.rewrite)
      for (const ExprP &e : n.values.empty() ? std::vector<ExprP>{n.expr} : n.values)
        walkExpr(e, [&](const ExprP &x) {
          if (scan || x->kind != Expr::Call || !actions().count(x->name) || x->args.empty())
            return;
          std::string err;
          auto v = evaluate(*x->args[x->name == "sink" ? 1 : 0], env, rewriter, &err);
          if (!v)
            return;
          if (x->name == "hoist")
            scan = parentScanOf(v->asOp());
          else
            scan = dyn_cast_or_null<ScanOp>(v->asOp());
        });
    std::map<std::string, bool> isMatchNode;
    for (const Node &n : rule.match)
      isMatchNode[n.name] = true;
    for (const Node &n : rule.rewrite) {
      SmallVector<Value> values;
      for (const ExprP &e : n.values.empty() ? std::vector<ExprP>{n.expr} : n.values) {
        Value v = build(e, n.name);
        if (!v)
          return fail(why.empty() ? "cannot build '" + n.name + "'" : why);
        values.push_back(v);
      }
      if (!removal.empty())
        return true;
      if (isMatchNode.count(n.name)) {
        Operation *target = env[n.name].asOp();
        if (!target || target->getNumResults() != values.size())
          return fail("'" + n.name + "' has " +
                      std::to_string(target ? target->getNumResults() : 0) +
                      " result(s), the rewrite gives " + std::to_string(values.size()));
        for (auto [r, v] : llvm::zip(target->getResults(), values))
          if (r.getType() != v.getType() && (ruleError = true))
            return fail("the replacement of '" + n.name + "' has type " +
                        Val::ofType(v.getType()).str_() + ", not " +
                        Val::ofType(r.getType()).str_());
        replacements.emplace_back(target, values);
      } else {
        env[n.name] = values.size() == 1 ? Val::ofValue(values[0]) : Val();
      }
    }
    // Every new op placed after the scan must come after it; every op that
    // feeds the scan must be before it.
    for (auto &[op, place] : created)
      if (place == Place::After && scan && (parentScanOf(root) == scan || root == scan))
        return fail("an op reading the scan's results cannot go before the root");
    return true;
  }

  Value real(Value v, kiln::ExtendedScan *ex, ValueRange consts, ValueRange carries,
             ValueRange xs) {
    auto it = phs.find(v);
    if (it == phs.end())
      return v;
    auto [k, i] = it->second;
    if (!ex && k > XsArg)
      return v; // results: replaced once the scan exists
    switch (k) {
    case ConstArg: return consts[i];
    case CarryArg: return carries[i];
    case XsArg: return xs[i];
    case CarryResult: return ex->scan.getResult(ex->firstNewCarry + i);
    case YsResult: return ex->scan.getResult(ex->firstNewYs + i);
    }
    return v;
  }

  void apply() {
    if (!removal.empty())
      return applyRemoval();
    bool extends = !ext.consts.empty() || !ext.inits.empty() || !ext.xs.empty() ||
                   !ext.ysAxes.empty();
    if (scan && extends) {
      rewriter.setInsertionPoint(scan);
      for (auto &[op, place] : created)
        if (beforeScan.count(op))
          rewriter.insert(op);
      SmallVector<Value> bodyArgs[3];
      kiln::ExtendedScan ex = kiln::extendScan(
          rewriter, scan, ext,
          [&](OpBuilder &b, const kiln::ScanBodyView &view) -> kiln::ScanBodyYields {
            for (auto &[v, role] : phs)
              if (role.first <= XsArg)
                v.replaceAllUsesWith(real(v, nullptr, view.consts, view.carries, view.xSlices));
            for (auto &[op, place] : created)
              if (place == Place::Body)
                b.insert(op);
            kiln::ScanBodyYields y;
            for (Value v : carryNext)
              y.carries.push_back(real(v, nullptr, view.consts, view.carries, view.xSlices));
            for (Value v : ysSlice)
              y.ys.push_back(real(v, nullptr, view.consts, view.carries, view.xSlices));
            // Replacements of body ops (hoist) read the new block arguments.
            for (auto &[target, values] : replacements)
              for (Value &v : values)
                v = real(v, nullptr, view.consts, view.carries, view.xSlices);
            return y;
          });
      (void)bodyArgs;
      for (auto &[v, role] : phs)
        if (role.first > XsArg) {
          Value r = real(v, &ex, {}, {}, {});
          v.replaceAllUsesWith(r);
          for (auto &[target, values] : replacements)
            for (Value &x : values)
              if (x == v)
                x = r;
        }
    }
    for (auto &[op, place] : created)
      if (auto it = anchorOf.find(op); it != anchorOf.end() && !op->getBlock()) {
        rewriter.setInsertionPoint(it->second);
        rewriter.insert(op);
      }
    rewriter.setInsertionPoint(root);
    for (auto &[op, place] : created)
      if (!op->getBlock())
        rewriter.insert(op);
    for (auto &[target, values] : replacements)
      rewriter.replaceOp(target, values);
  }

  /// remove_ys(s, j): a ys nobody reads is not stacked. remove_carry(l, i):
  /// a carry of a scan or while whose final value nobody reads, which a
  /// while's cond does not read, and whose block argument feeds only its own
  /// update is not computed (it cannot change the number of iterations nor
  /// any other value). remove_const(l, k): a const no region reads.
  /// remove_result(c, i): a cond result nobody reads is not yielded;
  /// remove_operand(c, k): an operand no branch reads is not passed. None
  /// changes an observed value.
  bool planRemoval() {
    int64_t i = removeIndex;
    if (auto c = dyn_cast<CondOp>(removeFrom)) {
      if (removal == "remove_result")
        return (i >= 0 && i < c.getNumResults() && c.getResult(i).use_empty()) ||
               fail("remove_result: the result is read");
      if (removal == "remove_operand")
        return (i >= 0 && i < (int64_t)c.getBranchOperands().size() &&
                llvm::all_of(c.getBranches(),
                             [&](Region &b) { return b.front().getArgument(i).use_empty(); })) ||
               fail("remove_operand: a branch reads the operand");
      return fail(removal + " does not apply to a lax.cond (remove_result, remove_operand do)");
    }
    if (removal == "remove_result" || removal == "remove_operand")
      return fail(removal + " applies to a lax.cond");
    if (removal == "remove_const")
      return (constArg(removeFrom, i) && constArg(removeFrom, i).use_empty()) ||
             fail("remove_const: the const is read");
    if (removal == "remove_carry")
      return carryFeedsOnlyItself(removeFrom, i, &fedOps) ||
             fail("remove_carry: the final carry is read, or the carry feeds more than its own "
                  "update");
    // remove_ys
    return (scan && i >= 0 && i < (int64_t)scan.getYs().size() && scan.getYs()[i].use_empty()) ||
           fail("remove_ys: the ys is read");
  }

  /// Erases the ops that only fed a removed carry, users first.
  void eraseFedOps() {
    SmallVector<Operation *> order(fedOps.begin(), fedOps.end());
    llvm::sort(order, [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
    for (Operation *op : order)
      rewriter.eraseOp(op);
  }

  /// Replaces `block`'s yield by one without operand `i`.
  void dropYielded(Block &block, unsigned i) {
    Operation *yield = block.getTerminator();
    SmallVector<Value> yields(yield->getOperands());
    yields.erase(yields.begin() + i);
    rewriter.setInsertionPoint(yield);
    rewriter.replaceOpWithNewOp<kiln::lax::YieldOp>(yield, yields);
  }

  /// Replaces `old`'s results by `rebuilt`'s, skipping result `removed` (-1:
  /// none; it has no uses), and erases `old`.
  void replaceRebuilt(Operation *old, Operation *rebuilt, int64_t removed) {
    unsigned r = 0;
    for (unsigned i = 0; i < old->getNumResults(); ++i)
      if ((int64_t)i != removed)
        rewriter.replaceAllUsesWith(old->getResult(i), rebuilt->getResult(r++));
    rewriter.eraseOp(old);
  }

  void applyWhileRemoval(WhileOp w) {
    SmallVector<Value> condConsts(w.getCondConsts()), bodyConsts(w.getBodyConsts()),
        inits(w.getInits());
    Block &condBlock = w.getCondBlock(), &body = w.getBodyBlock();
    int64_t k = removeIndex, numCond = w.getNumCondConsts();
    if (removal == "remove_const") {
      if (k < numCond) {
        condConsts.erase(condConsts.begin() + k);
        condBlock.eraseArgument(k);
      } else {
        bodyConsts.erase(bodyConsts.begin() + (k - numCond));
        body.eraseArgument(k - numCond);
      }
    } else {
      dropYielded(body, k);
      eraseFedOps();
      body.eraseArgument(w.getNumBodyConsts() + k);
      condBlock.eraseArgument(numCond + k);
      inits.erase(inits.begin() + k);
    }
    rewriter.setInsertionPoint(w);
    auto rebuilt = WhileOp::create(rewriter, w.getLoc(), condConsts, bodyConsts, inits);
    rebuilt->setDiscardableAttrs(w->getDiscardableAttrDictionary());
    rewriter.inlineRegionBefore(w.getCond(), rebuilt.getCond(), rebuilt.getCond().end());
    rewriter.inlineRegionBefore(w.getBody(), rebuilt.getBody(), rebuilt.getBody().end());
    replaceRebuilt(w, rebuilt, removal == "remove_carry" ? k : -1);
  }

  void applyCondRemoval(CondOp c) {
    SmallVector<Type> types(c.getResultTypes());
    SmallVector<Value> operands(c.getBranchOperands());
    int64_t i = removeIndex;
    for (Region &branch : c.getBranches()) {
      if (removal == "remove_result")
        dropYielded(branch.front(), i);
      else
        branch.front().eraseArgument(i);
    }
    if (removal == "remove_result")
      types.erase(types.begin() + i);
    else
      operands.erase(operands.begin() + i);
    rewriter.setInsertionPoint(c);
    auto rebuilt = CondOp::create(rewriter, c.getLoc(), types, c.getIndex(), operands,
                                  c.getNumBranches());
    rebuilt->setDiscardableAttrs(c->getDiscardableAttrDictionary());
    for (auto [to, from] : llvm::zip(rebuilt.getBranches(), c.getBranches()))
      rewriter.inlineRegionBefore(from, to, to.end());
    replaceRebuilt(c, rebuilt, removal == "remove_result" ? i : -1);
  }

  void applyRemoval() {
    if (auto w = dyn_cast<WhileOp>(removeFrom))
      return applyWhileRemoval(w);
    if (auto c = dyn_cast<CondOp>(removeFrom))
      return applyCondRemoval(c);
    kiln::ScanSignature sig = kiln::ScanSignature::of(scan);
    Block &body = scan.getBodyBlock();
    int64_t k = removeIndex, numCarry = scan.getNumCarry();
    int64_t removedResult = -1;
    if (removal == "remove_const") {
      sig.consts.erase(sig.consts.begin() + k);
      body.eraseArgument(k);
    } else if (removal == "remove_ys") {
      sig.ysTypes.erase(sig.ysTypes.begin() + k);
      sig.ysAxes.erase(sig.ysAxes.begin() + k);
      dropYielded(body, numCarry + k);
      removedResult = numCarry + k;
    } else {
      sig.inits.erase(sig.inits.begin() + k);
      dropYielded(body, k);
      eraseFedOps();
      body.eraseArgument(scan.getNumConsts() + k);
      removedResult = k;
    }
    replaceRebuilt(scan, kiln::rebuildScan(rewriter, scan, sig), removedResult);
  }
};

/// A cheap necessary condition for a rule whose first `loop` binding is a
/// role function of the root (`parent_scan(root)`, `parent_while(root)`,
/// `parent_cond(root)`, `ys_operand(root)`): when it does not hold, that binding fails, so the
/// rule cannot match. Rules rooted at any op (`_`) are tried on every op;
/// this keeps them as cheap as a rule rooted at one op name.
enum class Prefilter { None, InScan, InWhile, InCond, ReadsScan };
Prefilter prefilterOf(const CompiledRule &rule) {
  if (rule.rule.loop.empty())
    return Prefilter::None;
  const Expr &e = *rule.rule.loop.front().expr;
  if (e.kind != Expr::Call || e.args.size() != 1 || e.args[0]->kind != Expr::Ref ||
      e.args[0]->name != rule.rootNode || e.args[0]->resultIndex != 0)
    return Prefilter::None;
  if (e.name == "parent_scan")
    return Prefilter::InScan;
  if (e.name == "parent_while")
    return Prefilter::InWhile;
  if (e.name == "parent_cond")
    return Prefilter::InCond;
  if (e.name == "ys_operand")
    return Prefilter::ReadsScan;
  return Prefilter::None;
}

struct RegionRulePattern : public RewritePattern {
  RegionRulePattern(const CompiledRule &rule, RuleRuntime &runtime, MLIRContext *ctx)
      : RewritePattern(rule.rootOpName, rule.rule.benefit, ctx), rule(rule), runtime(runtime),
        prefilter(prefilterOf(rule)) {}
  struct AnyOp {};
  RegionRulePattern(const CompiledRule &rule, RuleRuntime &runtime, MLIRContext *ctx, AnyOp)
      : RewritePattern(MatchAnyOpTypeTag(), rule.rule.benefit, ctx), rule(rule),
        runtime(runtime), prefilter(prefilterOf(rule)) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    switch (prefilter) {
    case Prefilter::None:
      break;
    case Prefilter::InScan:
      if (!isa_and_nonnull<ScanOp>(op->getParentOp()))
        return failure();
      break;
    case Prefilter::InWhile:
      if (!isa_and_nonnull<WhileOp>(op->getParentOp()))
        return failure();
      break;
    case Prefilter::InCond:
      if (!isa_and_nonnull<CondOp>(op->getParentOp()))
        return failure();
      break;
    case Prefilter::ReadsScan:
      if (llvm::none_of(op->getOperands(), [](Value v) { return bool(v.getDefiningOp<ScanOp>()); }))
        return failure();
      break;
    }
    if (!runtime.mayMatch())
      return failure();
    Env env;
    if (!matchRule(rule, op, rewriter, env))
      return failure();
    RegionRewrite rw(rewriter, rule.rule, op, std::move(env));
    bool ok = rw.plan() && (rw.removal.empty() || rw.planRemoval());
    if (!ok) {
      // A rewrite that cannot be typed as written is a mistake in the rule:
      // say so once, naming it (the IR is untouched).
      if (rw.ruleError && runtime.warned.insert(rule.rule.name).second)
        emitWarning(op->getLoc()) << "rule '" << rule.rule.name << "' is not applied: " << rw.why;
      return rewriter.notifyMatchFailure(op, "rule '" + rule.rule.name + "': " + rw.why);
    }
    runtime.begin(rule, op);
    rw.apply();
    return runtime.end(rule);
  }
  const CompiledRule &rule;
  RuleRuntime &runtime;
  Prefilter prefilter;
};
} // namespace

std::unique_ptr<RewritePattern> kiln::rules::makeRegionRulePattern(const CompiledRule &rule,
                                                                   RuleRuntime &runtime,
                                                                   MLIRContext *ctx) {
  if (rule.rootOpName == "_" || rule.rootOpName.empty())
    return std::make_unique<RegionRulePattern>(rule, runtime, ctx, RegionRulePattern::AnyOp());
  return std::make_unique<RegionRulePattern>(rule, runtime, ctx);
}
