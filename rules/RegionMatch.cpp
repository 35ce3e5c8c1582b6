//===- RegionMatch.cpp - roles of region rules: loop, where ---------------===//
//
// What a region rule's `loop` bindings and `where` conditions see: the role
// functions (scan_of, parent_while, ys_slice, carry, const, branch_arg,
// ...), the predicates over a loop body (only_consts, invariant_operands,
// same_in_all_branches, unused_carry, ...) and the list and constant
// helpers region rules compute with. They are ordinary native functions,
// registered here, and work in any rule's `where`.
//
//===----------------------------------------------------------------------===//
#include "rules/NativeRegistry.h"
#include "rules/RegionRulesImpl.h"

#include "dialect/LaxControlFlowOps.h"
#include "dialect/LaxOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace kiln::rules;
using namespace kiln::rules::region;
using namespace mlir;
using A = ArgKind;

namespace kiln::rules::region {
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

/// The op whose own regions (a scan's body, a while's cond and body, a
/// cond's branches) directly hold op or value `x`; null if none does.
Operation *enclosingRegionOp(const Val &x) {
  Block *b = x.kind == Val::Op ? (x.op ? x.op->getBlock() : nullptr)
                               : (x.asValue() ? x.asValue().getParentBlock() : nullptr);
  Operation *owner = b ? b->getParentOp() : nullptr;
  return isa_and_nonnull<ScanOp, WhileOp, CondOp>(owner) ? owner : nullptr;
}

CondOp parentCondOf(Operation *op) {
  return op && op->getBlock() ? dyn_cast_or_null<CondOp>(op->getParentOp()) : CondOp();
}
} // namespace kiln::rules::region

namespace {
/// `op` as a rule value; none (the function fails) when it is null.
std::optional<Val> opOrNone(Operation *op) {
  return op ? std::optional<Val>(Val::ofOp(op)) : std::nullopt;
}

/// The op of kind OpT that `v` is a result of; null if none.
template <typename OpT> OpT resultOf(Value v) {
  auto r = dyn_cast_or_null<OpResult>(v);
  return r ? dyn_cast<OpT>(r.getOwner()) : OpT();
}

ScanOp scanArg(const Val &v) { return dyn_cast_or_null<ScanOp>(v.asOp()); }
} // namespace

namespace kiln::rules::region {
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
} // namespace kiln::rules::region

namespace {
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
} // namespace

namespace kiln::rules::region {
/// Whether carry `i` of a scan or while can go: its final value is unread, a
/// while's cond region does not read it, and its body block argument feeds,
/// through pure ops only, nothing but its own update. `fed` receives those
/// ops.
bool carryFeedsOnlyItself(Operation *loop, unsigned i,
                          llvm::SetVector<Operation *> *fed) {
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
} // namespace kiln::rules::region

namespace {
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

/// Branch a[1] of cond a[0]; null when there is none.
Block *branchBlock(ArrayRef<Val> a) {
  CondOp c = condArg(a[0]);
  int64_t b = *a[1].asInt();
  return c && b >= 0 && b < c.getNumBranches() ? &c.getBranchBlock(b) : nullptr;
}

/// The index of the first value of `range` nobody reads; none if all are read.
std::optional<Val> firstUnused(ValueRange range) {
  for (auto [i, v] : llvm::enumerate(range))
    if (v.use_empty())
      return Val::ofInt(i);
  return std::nullopt;
}

template <typename R> std::optional<Val> valueAt(R range, int64_t i) {
  if (i < 0 || i >= (int64_t)range.size())
    return std::nullopt;
  return Val::ofValue(range[i]);
}
} // namespace

namespace kiln::rules::region {
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
} // namespace kiln::rules::region

namespace {
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

void kiln::rules::registerScanNatives(NativeRegistry &r) {
  // The loop op a value is a result of, or that directly holds a value or
  // an op.
  struct Finder {
    const char *name;
    ArgKind arg;
    Operation *(*find)(const Val &);
    const char *doc;
  };
  static const Finder finders[] = {
      {"scan_of", A::Value, [](const Val &x) -> Operation * { return scanOfResult(x.asValue()); },
       "the lax.scan a value is a result of (a final carry or a ys)"},
      {"parent_scan", A::Any,
       [](const Val &x) -> Operation * {
         return x.kind == Val::Op ? parentScanOf(x.op) : parentScanOf(x.asValue());
       },
       "the lax.scan whose body directly holds an op or value"},
      {"parent_while", A::Any,
       [](const Val &x) -> Operation * { return dyn_cast_or_null<WhileOp>(enclosingRegionOp(x)); },
       "the lax.while whose body or cond region directly holds an op or value"},
      {"while_of", A::Value,
       [](const Val &x) -> Operation * { return resultOf<WhileOp>(x.asValue()); },
       "the lax.while a value is a result (a final carry) of"},
      {"parent_cond", A::Any,
       [](const Val &x) -> Operation * { return dyn_cast_or_null<CondOp>(enclosingRegionOp(x)); },
       "the lax.cond whose branch directly holds an op or value"},
      {"cond_of", A::Value, [](const Val &x) -> Operation * { return resultOf<CondOp>(x.asValue()); },
       "the lax.cond a value is a result of"},
  };
  for (const Finder &f : finders)
    r.addFunction(f.name, {f.arg}, [find = f.find](auto a) { return opOrNone(find(a[0])); }, f.doc);
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
    Block *b = branchBlock(a);
    return b ? valueAt(b->getArguments(), *a[2].asInt()) : std::nullopt;
  }, "branch_arg(c, b, k): branch b's block argument k (the cond's operand k after the index)");
  r.addFunction("branch_result", {A::Op, A::Int, A::Int}, [](auto a) -> std::optional<Val> {
    Block *b = branchBlock(a);
    return b ? valueAt(b->getTerminator()->getOperands(), *a[2].asInt()) : std::nullopt;
  }, "branch_result(c, b, i): the value branch b yields for result i");
  r.addConstraint("same_in_all_branches", {A::Op}, [](auto a) {
    CondOp c = parentCondOf(a[0].asOp());
    return c && sameInOtherBranches(a[0].asOp(), c).has_value();
  }, "the op, in a branch of a lax.cond, is computed by every other branch too: the same op, "
     "attributes and types, from the same values from outside or the same branch arguments");
  r.addFunction("unused_result", {A::Op}, [](auto a) -> std::optional<Val> {
    CondOp c = condArg(a[0]);
    return c ? firstUnused(c.getResults()) : std::nullopt;
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
  r.addFunction("stacked_xs", {A::Op, A::Int}, [](auto a) -> std::optional<Val> {
    ScanOp s = scanArg(a[0]);
    return s ? valueAt(s.getXs(), *a[1].asInt()) : std::nullopt;
  }, "stacked_xs(s, j): the operand of xs j (before the scan: every slice)");
  r.addFunction("xs_index", {A::Value}, [](auto a) -> std::optional<Val> {
    auto arg = dyn_cast_or_null<BlockArgument>(a[0].asValue());
    ScanOp s = arg ? dyn_cast<ScanOp>(arg.getOwner()->getParentOp()) : ScanOp();
    if (!s)
      return std::nullopt;
    for (auto [j, x] : llvm::enumerate(s.getXSliceArgs()))
      if (x == arg)
        return Val::ofInt(int64_t(j));
    return std::nullopt;
  }, "xs_index(v): j when body value v is the block argument of xs j (one slice)");
  r.addFunction("outside_value", {A::Op, A::Value}, [](auto a) -> std::optional<Val> {
    ScanOp s = scanArg(a[0]);
    Value v = a[1].asValue();
    if (!s || !v)
      return std::nullopt;
    if (!s.getBody().isAncestor(v.getParentRegion()))
      return Val::ofValue(v); // defined before the scan already
    for (auto [k, arg] : llvm::enumerate(s.getConstArgs()))
      if (arg == v)
        return Val::ofValue(s.getConsts()[k]);
    return std::nullopt;
  }, "outside_value(s, v): the value before scan s that body value v is: the operand of a "
     "const's block argument, or v itself when defined outside (fails for anything else)");
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
    return s ? firstUnused(s.getYs()) : std::nullopt;
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
  r.addFunction("unused_xs", {A::Op}, [](auto a) -> std::optional<Val> {
    ScanOp s = scanArg(a[0]);
    return s ? firstUnused(s.getXSliceArgs()) : std::nullopt;
  }, "unused_xs(s): the index of the first xs of a scan whose slice the body never reads");
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
  r.addFunction("shift_dims", {A::IntList, A::Int}, [](auto a) -> std::optional<Val> {
    std::vector<int64_t> out = L(a[0]);
    int64_t axis = *a[1].asInt();
    for (int64_t &d : out)
      d += d >= axis;
    return Val::ofList(out);
  }, "shift_dims(dims, a): `dims` numbered in a tensor with a new axis inserted at `a` "
     "(a slice's dimensions in its stacked tensor)");
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

