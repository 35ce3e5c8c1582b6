//===- RuleRuntime.cpp - tracing, statistics and checks of rules ----------===//
#include "rules/RuleRuntime.h"

#include "rules/Evaluator.h"
#include "rules/ExprParser.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallString.h"

using namespace kiln::rules;
using namespace mlir;

namespace {
/// The PDL arguments of a site as evaluator values, in order (the first
/// `site.argNames.size()` of them: see ArgBindings).
SmallVector<Val, 8> argValues(const Site &site, ArrayRef<PDLValue> args) {
  SmallVector<Val, 8> vals;
  vals.reserve(std::min(site.argNames.size(), args.size()));
  for (const PDLValue &a : args.take_front(std::min(site.argNames.size(), args.size()))) {
    // Filled in place: a Val is large, and a site runs on every candidate match.
    Val &v = vals.emplace_back();
    switch (a.getKind()) {
    case PDLValue::Kind::Attribute:
      v.kind = Val::Attr;
      v.attr = a.cast<Attribute>();
      break;
    case PDLValue::Kind::Operation:
      v.kind = Val::Op;
      v.op = a.cast<Operation *>();
      break;
    case PDLValue::Kind::Type:
      v.kind = Val::Type;
      v.type = a.cast<Type>();
      break;
    case PDLValue::Kind::Value:
      v.kind = Val::Value;
      v.value = a.cast<Value>();
      break;
    case PDLValue::Kind::ValueRange: {
      v.kind = Val::ValueList;
      for (Value x : a.cast<ValueRange>())
        v.values.push_back(x);
      break;
    }
    case PDLValue::Kind::TypeRange:
      break;
    }
  }
  return vals;
}

/// Evaluates a site's expression on its PDL arguments.
std::optional<Val> evaluateSite(const Site &site, ArrayRef<PDLValue> args, PatternRewriter &rw) {
  SmallVector<Val, 8> vals = argValues(site, args);
  return evaluate(*site.expr, ArgBindings{site.argNames, vals}, rw);
}

} // namespace

std::optional<SmallVector<Type>> kiln::rules::inferResultTypes(MLIRContext *ctx, StringRef opName,
                                                               ValueRange operands,
                                                               DictionaryAttr dict) {
  auto name = RegisteredOperationName::lookup(opName, ctx);
  if (!name)
    return std::nullopt;
  return inferResultTypes(*name, operands, dict);
}

std::optional<SmallVector<Type>> kiln::rules::inferResultTypes(RegisteredOperationName name,
                                                               ValueRange operands,
                                                               DictionaryAttr dict) {
  MLIRContext *ctx = name.getContext();
  auto *iface = name.getInterface<InferTypeOpInterface>();
  if (!iface)
    return std::nullopt;
  ScopedDiagnosticHandler silence(ctx, [](Diagnostic &) { return success(); });
  llvm::SmallVector<std::max_align_t, 16> storage(
      (name.getOpPropertyByteSize() + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t) + 1);
  OpaqueProperties props(storage.data());
  name.initOpProperties(props, OpaqueProperties(nullptr));
  LogicalResult ok = success();
  if (name.getOpPropertyByteSize() > 0)
    ok = name.setOpPropertiesFromAttribute(name, props, dict,
                                           [&] { return emitError(UnknownLoc::get(ctx)); });
  SmallVector<Type> types;
  if (succeeded(ok))
    ok = iface->inferReturnTypes(ctx, std::nullopt, operands, dict, props, RegionRange(), types);
  name.destroyOpProperties(props);
  if (failed(ok))
    return std::nullopt;
  return types;
}

namespace {

/// What an Infer or InferCheck site needs on every call, resolved when its
/// patterns are built: the op, its attribute names, and (InferCheck) where
/// the Check constraint that computed each attribute at match time keeps it.
struct InferTarget {
  std::optional<RegisteredOperationName> op;
  SmallVector<StringAttr> attrNames;
  /// InferCheck, per attribute: the positions, among the site's arguments,
  /// of the arguments of the Check site of the same expression (the key of
  /// its result in the eval memo); none when no Check site computes it.
  SmallVector<std::optional<SmallVector<unsigned>>> checkArgs;
};

InferTarget resolveInfer(const CompiledRule &rule, const Site &site, MLIRContext *ctx) {
  InferTarget t;
  t.op = RegisteredOperationName::lookup(site.opName, ctx);
  if (site.kind == Site::Infer) {
    for (const std::string &n : site.attrNames)
      t.attrNames.push_back(StringAttr::get(ctx, n));
    return t;
  }
  for (auto &[n, e] : site.attrExprs) {
    t.attrNames.push_back(StringAttr::get(ctx, n));
    std::optional<SmallVector<unsigned>> positions;
    auto check = llvm::find_if(rule.sites, [&, &e = e](const Site &c) {
      return c.kind == Site::Check && c.expr == e && !c.resultIsType;
    });
    if (check != rule.sites.end()) {
      positions.emplace();
      for (const std::string &name : check->argNames) {
        auto at = llvm::find(llvm::reverse(site.argNames), name);
        if (at == site.argNames.rend()) {
          positions.reset();
          break;
        }
        positions->push_back(std::distance(at, site.argNames.rend()) - 1);
      }
    }
    t.checkArgs.push_back(std::move(positions));
  }
  return t;
}

LogicalResult inferTypes(RuleRuntime &rt, const Site &s, const InferTarget &t,
                         PDLResultList &results, ArrayRef<PDLValue> args) {
  if (!t.op)
    return failure();
  SmallVector<Value> operands;
  for (unsigned i = 0; i < s.numOperands && i < args.size(); ++i) {
    if (args[i].getKind() == PDLValue::Kind::ValueRange)
      llvm::append_range(operands, args[i].cast<ValueRange>());
    else
      operands.push_back(args[i].cast<Value>());
  }
  SmallVector<NamedAttribute> attrs;
  for (unsigned i = 0; i < s.attrNames.size() && s.numOperands + i < args.size(); ++i)
    attrs.emplace_back(t.attrNames[i], args[s.numOperands + i].cast<Attribute>());
  auto types = rt.inferCached(*t.op, operands, attrs, false);
  if (!types)
    return failure();
  results.push_back(TypeRange(*types));
  return success();
}

/// The InferCheck constraint: evaluates the operands and attributes from the
/// match bindings and infers. Each computed attribute is also a Check
/// constraint of the match: whichever of the two runs first leaves it in the
/// eval memo, keyed as the Check site keys it, for the other.
LogicalResult checkInfer(RuleRuntime &rt, const Site &s, const InferTarget &t,
                         PatternRewriter &rw, ArrayRef<PDLValue> args) {
  if (!t.op)
    return failure();
  SmallVector<Val, 8> vals = argValues(s, args);
  ArgBindings bound{s.argNames, vals};
  SmallVector<Value> operands;
  for (const ExprP &e : s.operandExprs) {
    llvm::SmallString<32> key;
    if (e->kind == Expr::Capture)
      key = "$";
    key += e->name;
    const Val *v = bound.lookup(key);
    if (!v)
      return failure();
    if (e->kind == Expr::Ref) {
      Operation *op = v->asOp();
      if (!op || unsigned(e->resultIndex) >= op->getNumResults())
        return failure();
      operands.push_back(op->getResult(e->resultIndex));
    } else {
      operands.push_back(v->asValue());
    }
  }
  SmallVector<NamedAttribute> attrs;
  for (auto [i, attr] : llvm::enumerate(s.attrExprs)) {
    const Expr &e = *attr.second;
    Attribute a;
    const auto &positions = t.checkArgs[i];
    bool keyed =
        positions && llvm::all_of(*positions, [&](unsigned p) { return p < args.size(); });
    SmallVector<PDLValue, 8> checkArgs;
    if (keyed) {
      for (unsigned p : *positions)
        checkArgs.push_back(args[p]);
      a = Attribute::getFromOpaquePointer(rt.lookupEval(e, checkArgs));
    }
    if (!a) {
      auto v = evaluate(e, bound, rw);
      a = v ? v->toAttribute(rw.getContext()) : Attribute();
      if (!a)
        return failure();
      if (keyed)
        rt.rememberEval(e, checkArgs, a.getAsOpaquePointer());
    }
    attrs.emplace_back(t.attrNames[i], a);
  }
  return success(rt.inferCached(*t.op, operands, attrs, true).has_value());
}

/// file:line:col for file locations, MLIR's form otherwise.
std::string formatLoc(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto l = dyn_cast<FileLineColLoc>(loc))
    os << l.getFilename().getValue() << ":" << l.getLine() << ":" << l.getColumn();
  else
    os << loc;
  return s;
}

std::string print(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os, OpPrintingFlags().useLocalScope());
  return s;
}
} // namespace

void RuleRuntime::registerSites(const CompiledRule &rule, PDLPatternModule &pm) {
  for (const Site &site : rule.sites) {
    const Site *s = &site;
    const CompiledRule *r = &rule;
    switch (site.kind) {
    case Site::Where:
      pm.registerConstraintFunction(
          site.pdlName, [s](PatternRewriter &rw, PDLResultList &, ArrayRef<PDLValue> args) {
            auto v = evaluateSite(*s, args, rw);
            return success(v && v->asBool().value_or(false));
          });
      break;
    case Site::Value:
      pm.registerRewriteFunction(
          site.pdlName,
          [this, s](PatternRewriter &rw, PDLResultList &results, ArrayRef<PDLValue> args) {
            if (const void *memo = lookupEval(*s->expr, args)) {
              if (s->resultIsType)
                results.push_back(Type::getFromOpaquePointer(memo));
              else
                results.push_back(Attribute::getFromOpaquePointer(memo));
              return success();
            }
            auto v = evaluateSite(*s, args, rw);
            if (!v)
              return failure();
            if (s->resultIsType) {
              Type t = v->asType();
              if (!t)
                return failure();
              results.push_back(t);
              return success();
            }
            Attribute a = v->toAttribute(rw.getContext());
            if (!a)
              return failure();
            results.push_back(a);
            return success();
          });
      break;
    case Site::Check:
      pm.registerConstraintFunction(
          site.pdlName, [this, s](PatternRewriter &rw, PDLResultList &, ArrayRef<PDLValue> args) {
            // Computed already by the InferCheck of the same rewrite op (PDL
            // orders a pattern's constraints as it likes).
            if (lookupEval(*s->expr, args))
              return success();
            auto v = evaluateSite(*s, args, rw);
            if (!v)
              return failure();
            const void *r = s->resultIsType ? v->asType().getAsOpaquePointer()
                                            : v->toAttribute(rw.getContext()).getAsOpaquePointer();
            if (r)
              rememberEval(*s->expr, args, r);
            return success(r != nullptr);
          });
      break;
    case Site::InferCheck:
      pm.registerConstraintFunction(
          site.pdlName, [this, s, t = resolveInfer(rule, site, pm.getContext())](
                            PatternRewriter &rw, PDLResultList &, ArrayRef<PDLValue> args) {
            return checkInfer(*this, *s, t, rw, args);
          });
      break;
    case Site::Call:
      pm.registerRewriteFunction(
          site.pdlName, [s](PatternRewriter &rw, PDLResultList &, ArrayRef<PDLValue> args) {
            return success(evaluateSite(*s, args, rw).has_value());
          });
      break;
    case Site::Infer:
      pm.registerRewriteFunction(
          site.pdlName, [this, s, t = resolveInfer(rule, site, pm.getContext())](
                            PatternRewriter &, PDLResultList &results, ArrayRef<PDLValue> args) {
            return inferTypes(*this, *s, t, results, args);
          });
      break;
    case Site::Guard:
      pm.registerConstraintFunction(
          site.pdlName, [this](PatternRewriter &, PDLResultList &, ArrayRef<PDLValue>) {
            // After a verification failure, or once the rules grew the IR
            // past its bound, nothing more matches.
            return success(mayMatch());
          });
      break;
    case Site::Begin:
      pm.registerRewriteFunction(
          site.pdlName, [this, r](PatternRewriter &, PDLResultList &, ArrayRef<PDLValue> args) {
            begin(*r, args[0].cast<Operation *>());
            return success();
          });
      break;
    case Site::End:
      pm.registerRewriteFunction(
          site.pdlName, [this, r](PatternRewriter &, PDLResultList &, ArrayRef<PDLValue>) {
            return end(*r);
          });
      break;
    }
  }
}

static thread_local RuleRuntime *activeRuntime = nullptr;

RuleRuntime::Active::Active(RuleRuntime &rt) : previous(activeRuntime) {
  rt.clearMemos();
  activeRuntime = &rt;
}
RuleRuntime::Active::~Active() {
  activeRuntime->clearMemos();
  activeRuntime = previous;
}
RuleRuntime *RuleRuntime::active() { return activeRuntime; }

/// Memo keys: the arguments' kinds and opaque pointers; ranges (whose
/// storage may not outlive the call) are not remembered.
static bool memoKey(ArrayRef<PDLValue> args, SmallVectorImpl<std::pair<int, const void *>> &key) {
  for (const PDLValue &a : args) {
    if (a.getKind() == PDLValue::Kind::ValueRange || a.getKind() == PDLValue::Kind::TypeRange)
      return false;
    key.emplace_back(int(a.getKind()), a.getAsOpaquePointer());
  }
  return true;
}

void RuleRuntime::rememberEval(const Expr &expr, ArrayRef<PDLValue> args, const void *result) {
  EvalMemo m;
  m.expr = &expr;
  if (!memoKey(args, m.args))
    return;
  m.result = result;
  if (evalMemo.size() < 4) {
    evalMemo.push_back(std::move(m));
  } else {
    evalMemo[evalMemoNext] = std::move(m);
    evalMemoNext = (evalMemoNext + 1) % 4;
  }
}

const void *RuleRuntime::lookupEval(const Expr &expr, ArrayRef<PDLValue> args) const {
  if (evalMemo.empty())
    return nullptr;
  SmallVector<std::pair<int, const void *>, 4> key;
  if (!memoKey(args, key))
    return nullptr;
  for (const EvalMemo &m : evalMemo)
    if (m.expr == &expr && m.args == key)
      return m.result;
  return nullptr;
}

std::optional<SmallVector<Type>> RuleRuntime::inferCached(RegisteredOperationName name,
                                                          ValueRange operands,
                                                          ArrayRef<NamedAttribute> attrs,
                                                          bool remember) {
  InferMemo &m = inferMemo;
  if (m.valid && m.name == name && ArrayRef<NamedAttribute>(m.attrs) == attrs &&
      m.operands.size() == operands.size()) {
    bool same = true;
    for (auto [i, v] : llvm::enumerate(operands))
      same &= v == m.operands[i] && v.getType() == m.operandTypes[i];
    if (same)
      return m.results;
  }
  auto types = inferResultTypes(name, operands, NamedAttrList(attrs).getDictionary(name.getContext()));
  if (remember) {
    m.valid = types.has_value();
    if (m.valid) {
      m.name = name;
      m.operands.assign(operands.begin(), operands.end());
      m.operandTypes.assign(operands.getTypes().begin(), operands.getTypes().end());
      m.attrs.assign(attrs.begin(), attrs.end());
      m.results = *types;
    }
  }
  return types;
}

void RuleRuntime::logApplication(const std::string &name) {
  ++applied[name];
  log.push_back(name);
  // Formatted once per rule, not per application (a large module fires a
  // rule tens of thousands of times).
  if (!firstAt.count(name))
    firstAt.emplace(name, formatLoc(currentLoc));
  if (!haveFirstLoc) {
    firstLoc = currentLoc;
    haveFirstLoc = true;
  }
}

void RuleRuntime::begin(const CompiledRule &rule, Operation *root) {
  current = &rule;
  currentLoc = root->getLoc();
  touched.clear();
  before.clear();
  where.clear();
  if (trace) {
    before = print(root);
    where = formatLoc(root->getLoc());
  }
}

LogicalResult RuleRuntime::end(const CompiledRule &rule) {
  current = nullptr;
  logApplication(rule.rule.name);
  if (trace) {
    *os << "rule-trace: '" << rule.rule.name << "' at " << where << "\n";
    *os << "  before: " << before << "\n";
    if (touched.empty())
      *os << "  after:  (replaced by existing values)\n";
    for (Operation *op : touched)
      *os << "  after:  " << print(op) << "\n";
  }
  touched.clear();
  if (verify && scope && brokenBy.empty() && failed(mlir::verify(scope))) {
    brokenBy = rule.rule.name;
    emitError(currentLoc) << "rule '" << rule.rule.name
                          << "' produced invalid IR (see the verifier error above)";
  }
  return success();
}

int64_t RuleRuntime::boundGrowth(Operation *scope, int64_t slack) {
  int64_t numOps = 0;
  scope->walk([&](Operation *) { ++numOps; });
  growth = 0;
  grew = false;
  maxGrowth = 4 * numOps + slack;
  return numOps;
}

void RuleRuntime::notifyOperationInserted(Operation *op, OpBuilder::InsertPoint previous) {
  clearMemos();
  // A new op (not one moved from elsewhere) counts towards the growth bound.
  if (!previous.isSet() && maxGrowth >= 0 && ++growth > maxGrowth)
    grew = true;
  if (current && !llvm::is_contained(touched, op))
    touched.push_back(op);
}
void RuleRuntime::notifyOperationModified(Operation *op) {
  clearMemos();
  if (current && !llvm::is_contained(touched, op))
    touched.push_back(op);
}
void RuleRuntime::notifyOperationErased(Operation *op) {
  clearMemos();
  --growth;
  llvm::erase(touched, op);
}
void RuleRuntime::notifyOperationReplaced(Operation *op, ValueRange replacement) {
  // A value of another type in place of a result leaves IR that fails to
  // verify far from the rule (a return's type mismatch): stop the rules and
  // name the one that did it. (Results without uses still need their type:
  // the op is replaced whole.)
  if (!brokenBy.empty() || (!current && currentPattern.empty()))
    return;
  for (auto [result, value] : llvm::zip(op->getResults(), replacement)) {
    if (!value || result.getType() == value.getType())
      continue;
    std::string name = current ? current->rule.name : currentPattern;
    brokenBy = name;
    InFlightDiagnostic diag = emitError(op->getLoc());
    diag << "rule '" << name << "'";
    if (current && !current->rule.loc.file.empty())
      diag << " (" << current->rule.loc.file << ":" << current->rule.loc.line << ":"
           << current->rule.loc.col << ")";
    diag << " replaces result " << cast<OpResult>(result).getResultNumber() << " of '"
         << op->getName() << "' of type " << result.getType() << " with a value of type "
         << value.getType() << ": a rewrite must keep the types of what it replaces";
    return;
  }
}

void RuleRuntime::notifyPatternBegin(const Pattern &pattern, Operation *op) {
  currentPattern = pattern.getDebugName().str();
  if (!pattern.getDebugName().empty())
    currentLoc = op->getLoc();
  if (!pattern.getDebugName().empty() && trace) {
    before = print(op);
    where = formatLoc(op->getLoc());
  }
}

void RuleRuntime::notifyPatternEnd(const Pattern &pattern, LogicalResult status) {
  currentPattern.clear();
  // C++ patterns (plugins) count, trace and verify under their debug name;
  // PDL patterns and native-call rules do so in their end hook.
  StringRef name = pattern.getDebugName();
  if (failed(status) || name.empty())
    return;
  logApplication(name.str());
  if (trace)
    *os << "rule-trace: '" << name << "' (C++ pattern) at " << where << "\n  before: " << before
        << "\n";
  if (verify && scope && brokenBy.empty() && failed(mlir::verify(scope))) {
    brokenBy = name.str();
    emitError(scope->getLoc()) << "pattern '" << name
                               << "' produced invalid IR (see the verifier error above)";
  }
}

namespace {
/// A rule whose rewrite is `fn(...)`: matched by matchRule, then the native
/// rewrite runs and may fail (leaving the IR untouched), which a C++ pattern
/// can report and a PDL rewrite cannot.
struct NativeCallPattern : public RewritePattern {
  NativeCallPattern(const CompiledRule &rule, RuleRuntime &runtime, MLIRContext *ctx)
      : RewritePattern(rule.rootOpName, rule.rule.benefit, ctx), rule(rule), runtime(runtime) {}
  struct AnyOp {};
  NativeCallPattern(const CompiledRule &rule, RuleRuntime &runtime, MLIRContext *ctx, AnyOp)
      : RewritePattern(MatchAnyOpTypeTag(), rule.rule.benefit, ctx), rule(rule),
        runtime(runtime) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!runtime.mayMatch())
      return failure();
    Env env;
    if (!matchRule(rule, op, rewriter, env))
      return failure();
    runtime.begin(rule, op);
    if (!evaluate(*rule.rule.rewriteCall, env, rewriter))
      return failure();
    return runtime.end(rule);
  }
  const CompiledRule &rule;
  RuleRuntime &runtime;
};
} // namespace

std::unique_ptr<RewritePattern> kiln::rules::makeNativeCallPattern(const CompiledRule &rule,
                                                                   RuleRuntime &runtime,
                                                                   MLIRContext *ctx) {
  if (rule.rootOpName == "_")
    return std::make_unique<NativeCallPattern>(rule, runtime, ctx, NativeCallPattern::AnyOp());
  return std::make_unique<NativeCallPattern>(rule, runtime, ctx);
}
