//===- RuleEngineTest.cpp - unit tests of the rule engine -----------------===//
#include "rules/Evaluator.h"
#include "rules/ExprParser.h"
#include "rules/NativeRegistry.h"
#include "rules/RuleRuntime.h"
#include "rules/RuleSet.h"

#include "dialect/LaxControlFlowOps.h"
#include "dialect/LaxDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <gtest/gtest.h>

using namespace kiln::rules;
using namespace mlir;

namespace {
ExprP parse(const std::string &s) {
  std::optional<ExprError> err;
  ExprP e = parseExpr(s, SrcLoc{"t", 1, 1}, err);
  EXPECT_FALSE(err) << s << ": " << (err ? err->message : "");
  return e;
}

std::optional<Val> eval(MLIRContext &ctx, const std::string &s, const Env &env = {}) {
  IRRewriter rw(&ctx);
  return evaluate(*parse(s), env, rw);
}

struct RuleEngineTest : public ::testing::Test {
  RuleEngineTest() {
    ctx.loadDialect<kiln::lax::LaxDialect, func::FuncDialect>();
  }
  MLIRContext ctx;
};
} // namespace

TEST(ExprParserTest, OpDagWithAttributesAndType) {
  ExprP e = parse("lax.dot_general(t, $y) {lhs_contracting_dimensions = permute_dims($lc, $p)} -> $t");
  ASSERT_EQ(e->kind, Expr::Op);
  EXPECT_EQ(e->name, "lax.dot_general");
  ASSERT_EQ(e->args.size(), 2u);
  EXPECT_EQ(e->args[0]->kind, Expr::Ref);
  EXPECT_EQ(e->args[1]->kind, Expr::Capture);
  ASSERT_EQ(e->attrs.size(), 1u);
  EXPECT_EQ(e->attrs[0].second->kind, Expr::Call);
  ASSERT_TRUE(e->type);
  EXPECT_EQ(e->type->name, "t");
}

TEST(ExprParserTest, PrecedenceAndPrinting) {
  ExprP e = parse("rank($x) + 1 * 2 == 3 and not 0 in $a");
  EXPECT_EQ(printExpr(*e), "rank($x) + 1 * 2 == 3 and not 0 in $a");
  EXPECT_EQ(e->name, "and");
  EXPECT_EQ(e->args[0]->name, "==");
  EXPECT_EQ(e->args[0]->args[0]->name, "+");
}

TEST(ExprParserTest, ErrorOffsets) {
  std::optional<ExprError> err;
  parseExpr("lax.neg($x", SrcLoc{"t", 1, 1}, err);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->offset, 10u);
  parseExpr("lax.neg($x) {perm}", SrcLoc{"t", 1, 1}, err);
  ASSERT_TRUE(err);
  EXPECT_NE(err->message.find("expected '='"), std::string::npos);
}

TEST_F(RuleEngineTest, EvaluatorArithmeticListsAndBuiltins) {
  EXPECT_EQ(eval(ctx, "1 + 2 * 3")->asInt(), 7);
  EXPECT_EQ(eval(ctx, "[3, 4, 5][-1]")->asInt(), 5);
  EXPECT_EQ(eval(ctx, "2 in [1, 2]")->asBool(), true);
  EXPECT_EQ(eval(ctx, "permute_dims([0, 2], [2, 0, 1])")->asList(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(eval(ctx, "compose_permutation([1, 2, 0], [1, 2, 0])")->asList(),
            (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(eval(ctx, "inverse_permutation([1, 2, 0])")->asList(),
            (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(eval(ctx, "is_identity_permutation([0, 1])")->asBool(), true);
  EXPECT_EQ(eval(ctx, "keeps_free_dims_order([1, 0, 2], [2], [])")->asBool(), false);
  EXPECT_EQ(eval(ctx, "keeps_free_dims_order([1, 0], [1], [])")->asBool(), true);
  EXPECT_EQ(eval(ctx, "merge_reduce_axes([1], [0, 1])")->asList(),
            (std::vector<int64_t>{0, 1, 2}));
  EXPECT_FALSE(eval(ctx, "[1][3]").has_value());
  EXPECT_FALSE(eval(ctx, "1 / 0").has_value());
}

TEST_F(RuleEngineTest, AttributesCompareWithLists) {
  Builder b(&ctx);
  Env env;
  env["$p"] = Val::ofAttr(b.getDenseI64ArrayAttr({1, 0}));
  env["$i"] = Val::ofAttr(b.getI64ArrayAttr({1, 0}));
  EXPECT_EQ(eval(ctx, "$p == [1, 0]", env)->asBool(), true);
  EXPECT_EQ(eval(ctx, "$p == $i", env)->asBool(), true);
  EXPECT_EQ(eval(ctx, "$p == `array<i64: 1, 0>`", env)->asBool(), true);
  EXPECT_EQ(eval(ctx, "len($p) == 2 and $p[0] == 1", env)->asBool(), true);
  EXPECT_EQ(eval(ctx, "f32 == `f32`")->asBool(), true);
}

TEST_F(RuleEngineTest, NativeRegistryRejectsDuplicatesAndChecksKinds) {
  NativeRegistry &r = NativeRegistry::global();
  EXPECT_FALSE(r.addConstraint("rank", {ArgKind::Any}, [](auto) { return true; }));
  EXPECT_TRUE(r.addFunction("unit_test_twice", {ArgKind::Int}, [](llvm::ArrayRef<Val> a) {
    return std::optional<Val>(Val::ofInt(*a[0].asInt() * 2));
  }));
  EXPECT_EQ(eval(ctx, "unit_test_twice(21)")->asInt(), 42);
  // An argument of the wrong kind fails the evaluation.
  EXPECT_FALSE(eval(ctx, "unit_test_twice([1])").has_value());
  const NativeFunction *f = r.lookup("sink_elementwise_into_scan");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->role, NativeFunction::Rewrite);
}

TEST_F(RuleEngineTest, LoadCompileAndApplyFromStrings) {
  RuleSet rules(&ctx);
  ASSERT_TRUE(succeeded(rules.loadString(R"(
- name: neg-neg
  match:
    root: lax.neg(lax.neg($x))
  rewrite:
    root: $x
- name: tagged
  tags: [reassociates-float]
  match:
    root: lax.abs($x)
  rewrite:
    root: $x
)", "unit.yaml")));
  EXPECT_EQ(rules.getRules().size(), 2u);
  EXPECT_TRUE(rules.isEnabled(rules.lookup("neg-neg")->rule));
  EXPECT_FALSE(rules.isEnabled(rules.lookup("tagged")->rule));
  EXPECT_NE(rules.getPDL().find("pdl.pattern @\"neg-neg\""), std::string::npos);
  EXPECT_EQ(rules.getPDL().find("tagged"), std::string::npos);

  OwningOpRef<ModuleOp> mod = parseSourceString<ModuleOp>(R"(
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.neg %a : tensor<4xf32>
  %1 = lax.neg %0 : tensor<4xf32>
  %2 = lax.abs %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
})", &ctx);
  ASSERT_TRUE(mod);
  RewritePatternSet set(&ctx);
  ASSERT_TRUE(succeeded(rules.populate(set)));
  FrozenRewritePatternSet frozen(std::move(set));
  GreedyRewriteConfig config;
  config.setListener(&rules.getRuntime());
  ASSERT_TRUE(succeeded(applyPatternsGreedily(*mod, frozen, config)));
  EXPECT_EQ(rules.getRuntime().applied["neg-neg"], 1u);
  auto func = *mod->getOps<func::FuncOp>().begin();
  // neg(neg) is gone, the disabled abs rule did not run.
  Operation &first = func.getBody().front().front();
  EXPECT_EQ(first.getName().getStringRef(), "lax.abs");
  EXPECT_EQ(first.getOperand(0), func.getArgument(0));
}

TEST_F(RuleEngineTest, ErrorsRejectTheWholeFile) {
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << d.getLocation() << ": " << d.str();
    messages.push_back(s);
    return success();
  });
  RuleSet rules(&ctx);
  EXPECT_TRUE(failed(rules.loadString(R"(
- name: good
  match:
    root: lax.neg(lax.neg($x))
  rewrite:
    root: $x
- name: bad
  match:
    root: lax.neg($x)
  where:
    - nope($x)
  rewrite:
    root: $x
)", "bad.yaml")));
  EXPECT_TRUE(rules.getRules().empty());
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("loc(\"bad.yaml\":11:7): unknown native function 'nope'"), std::string::npos)
      << messages[0];
}

TEST_F(RuleEngineTest, TagsPhasesAndAnyOrderVariants) {
  RuleSet rules(&ctx);
  ASSERT_TRUE(succeeded(rules.loadString(R"(
- name: late
  phase: 2
  tags: [exact, experimental]
  any_order: [root]
  match:
    root: lax.max($x, lax.neg($x))
  rewrite:
    root: lax.abs($x)
)", "unit.yaml")));
  const CompiledRule *late = rules.lookup("late");
  ASSERT_TRUE(late);
  EXPECT_EQ(late->rule.phase, 2);
  EXPECT_FALSE(rules.isEnabled(late->rule));
  rules.setTags("+experimental");
  EXPECT_TRUE(rules.isEnabled(late->rule));
  EXPECT_EQ(rules.getPhases(), (std::vector<int>{0, 2}));
  // Two operand orders: two patterns.
  EXPECT_NE(late->pdl.find("@\"late\""), std::string::npos);
  EXPECT_NE(late->pdl.find("@\"late#1\""), std::string::npos);
  EXPECT_EQ(rules.getPDL(0), "module {\n}\n");
  rules.setTags("-exact");
  EXPECT_FALSE(rules.isEnabled(late->rule));
}

namespace {
/// The dependence classes as the region predicates computed them before they
/// were memoized per loop (each question followed the value's backward
/// slice): the reference the memoized classes must agree with.
enum RefDep : unsigned { RefConst = 1, RefCarry = 2, RefXs = 4 };
unsigned refRole(Operation *owner, BlockArgument arg) {
  unsigned i = arg.getArgNumber();
  if (auto scan = dyn_cast<kiln::lax::ScanOp>(owner))
    return i < scan.getNumConsts()                        ? RefConst
           : i < scan.getNumConsts() + scan.getNumCarry() ? RefCarry
                                                          : RefXs;
  if (auto loop = dyn_cast<kiln::lax::WhileOp>(owner)) {
    bool inBody = arg.getOwner() == &loop.getBodyBlock();
    return i < (inBody ? loop.getNumBodyConsts() : loop.getNumCondConsts()) ? RefConst : RefCarry;
  }
  return RefConst;
}
unsigned refDeps(Value v, Operation *owner) {
  Region *r = v.getParentRegion();
  if (!r || !owner->isAncestor(r->getParentOp()))
    return 0;
  unsigned deps = 0;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *argOwner = arg.getOwner()->getParentOp();
    if (argOwner == owner)
      return refRole(owner, arg);
    for (Value o : argOwner->getOperands())
      deps |= refDeps(o, owner);
    return deps;
  }
  Operation *def = v.getDefiningOp();
  def->walk([&](Operation *inner) {
    for (Value o : inner->getOperands()) {
      Operation *from = o.getParentBlock() ? o.getParentBlock()->getParentOp() : nullptr;
      if (inner == def || !from || !def->isAncestor(from))
        deps |= refDeps(o, owner);
    }
  });
  return deps;
}
unsigned refDepsOfOp(Operation *op, Operation *owner) {
  unsigned d = 0;
  op->walk([&](Operation *inner) {
    for (Value o : inner->getOperands())
      d |= refDeps(o, owner);
  });
  return d;
}
} // namespace

// only_consts, depends_on_carries and only_xs give the same answers as the
// backward-slice reference, for every op and value directly in a scan, while
// or cond (nested ones, regions reading values from above), with the memo of
// an active runtime (asked twice: the second time from the memo) and without.
TEST_F(RuleEngineTest, DependencePredicatesMatchTheBackwardSlice) {
  OwningOpRef<ModuleOp> mod = parseSourceString<ModuleOp>(R"(
func.func @f(%w: tensor<4xf32>, %c0: tensor<4xf32>, %xs: tensor<6x4xf32>, %i: tensor<i32>, %l: tensor<i32>) -> (tensor<4xf32>, tensor<6x4xf32>) {
  %c, %ys = lax.scan length = 6 consts(%w, %i, %l) carry(%c0) xs(%xs)
      : (tensor<4xf32>, tensor<i32>, tensor<i32>, tensor<4xf32>, tensor<6x4xf32>) -> (tensor<4xf32>, tensor<6x4xf32>) {
  ^bb0(%wc: tensor<4xf32>, %ic: tensor<i32>, %lc: tensor<i32>, %carry: tensor<4xf32>, %x: tensor<4xf32>):
    %e = lax.exp %wc : tensor<4xf32>
    %m = lax.mul %x, %e : tensor<4xf32>
    %a = lax.add %carry, %m : tensor<4xf32>
    %xo = lax.neg %x : tensor<4xf32>
    %cx = lax.add %carry, %xo : tensor<4xf32>
    %dd = lax.add %xo, %cx : tensor<4xf32>
    %r = lax.cond %ic (%e) : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
    branch 0 {
    ^bb0(%b: tensor<4xf32>):
      %n = lax.neg %b : tensor<4xf32>
      lax.yield %n : tensor<4xf32>
    } branch 1 {
    ^bb0(%b: tensor<4xf32>):
      %s = lax.sin %carry : tensor<4xf32>
      lax.yield %s : tensor<4xf32>
    }
    %q = lax.cond %ic (%e) : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
    branch 0 {
    ^bb0(%b: tensor<4xf32>):
      lax.yield %b : tensor<4xf32>
    } branch 1 {
    ^bb0(%b: tensor<4xf32>):
      %t = lax.tanh %x : tensor<4xf32>
      lax.yield %t : tensor<4xf32>
    }
    %g = lax.cond %ic (%e) : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
    branch 0 {
    ^bb0(%b: tensor<4xf32>):
      %o = lax.cos %wc : tensor<4xf32>
      lax.yield %o : tensor<4xf32>
    } branch 1 {
    ^bb0(%b: tensor<4xf32>):
      lax.yield %b : tensor<4xf32>
    }
    %v = lax.while cond_consts(%lc) body_consts(%e) carry(%e)
        : (tensor<i32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    cond {
    ^bb0(%lw: tensor<i32>, %cw: tensor<4xf32>):
      %p = lax.compare LT, %lw, %ic : tensor<i32>
      lax.yield %p : tensor<i1>
    } body {
    ^bb0(%k: tensor<4xf32>, %u: tensor<4xf32>):
      %h = lax.add %u, %x : tensor<4xf32>
      %h2 = lax.mul %h, %k : tensor<4xf32>
      lax.yield %h2 : tensor<4xf32>
    }
    %z1 = lax.add %r, %q : tensor<4xf32>
    %z2 = lax.add %g, %v : tensor<4xf32>
    %z3 = lax.add %z1, %z2 : tensor<4xf32>
    %z = lax.add %z3, %dd : tensor<4xf32>
    lax.yield %a, %z : tensor<4xf32>, tensor<4xf32>
  }
  return %c, %ys : tensor<4xf32>, tensor<6x4xf32>
}
)", &ctx);
  ASSERT_TRUE(mod);
  NativeRegistry &reg = NativeRegistry::global();
  const NativeFunction *onlyConsts = reg.lookup("only_consts");
  const NativeFunction *onCarries = reg.lookup("depends_on_carries");
  const NativeFunction *onlyXs = reg.lookup("only_xs");
  ASSERT_TRUE(onlyConsts && onCarries && onlyXs);
  IRRewriter rw(&ctx);
  auto ask = [&](const NativeFunction *f, const Val &x) {
    auto v = f->fn(rw, {x});
    return v && v->asBool().value_or(false);
  };
  auto check = [&](const Val &x, unsigned want, const std::string &what) {
    EXPECT_EQ(ask(onCarries, x), bool(want & RefCarry)) << what;
    EXPECT_EQ(ask(onlyConsts, x), !(want & (RefCarry | RefXs))) << what;
    EXPECT_EQ(ask(onlyXs, x), !(want & RefCarry) && (want & RefXs)) << what;
  };
  RuleRuntime rt;
  unsigned asked = 0, kinds = 0;
  for (int memo = 0; memo < 3; ++memo) {
    std::optional<RuleRuntime::Active> active;
    if (memo)
      active.emplace(rt);
    mod->walk([&](Operation *owner) {
      if (!isa<kiln::lax::ScanOp, kiln::lax::WhileOp, kiln::lax::CondOp>(owner))
        return;
      for (Region &region : owner->getRegions())
        for (Block &block : region) {
          for (BlockArgument arg : block.getArguments()) {
            check(Val::ofValue(arg), refRole(owner, arg),
                  "argument " + std::to_string(arg.getArgNumber()));
            ++asked;
          }
          for (Operation &op : block) {
            unsigned d = refDepsOfOp(&op, owner);
            kinds |= 1u << d;
            check(Val::ofOp(&op), d, op.getName().getStringRef().str());
            for (Value r : op.getResults())
              check(Val::ofValue(r), refDeps(r, owner), op.getName().getStringRef().str());
            ++asked;
          }
        }
    });
    if (memo) {
      EXPECT_FALSE(rt.dependences.empty());
    }
  }
  EXPECT_TRUE(rt.dependences.empty()); // dropped when the runtime stops being active
  EXPECT_GT(asked, 40u);
  // Every combination was asked: nothing (only values from outside), consts,
  // carries, xs and their unions.
  for (unsigned d : {0u, 1u, 2u, 4u, 5u, 6u, 7u})
    EXPECT_TRUE(kinds & (1u << d)) << d;
}
