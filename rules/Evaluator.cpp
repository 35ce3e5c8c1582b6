//===- Evaluator.cpp - evaluating rule expressions at match time ----------===//
#include "rules/Evaluator.h"

#include "rules/ExprParser.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallString.h"

#include <limits>

using namespace kiln::rules;
using namespace mlir;

Val kiln::rules::parseLiteral(MLIRContext *ctx, const std::string &text) {
  // Silence parse errors: a failed attribute parse falls back to a type.
  ScopedDiagnosticHandler silence(ctx, [](Diagnostic &) { return success(); });
  size_t read = 0;
  if (Attribute a = parseAttribute(text, ctx, Type(), &read); a && read == text.size())
    return isa<TypeAttr>(a) ? Val::ofType(cast<TypeAttr>(a).getValue()) : Val::ofAttr(a);
  if (Type t = parseType(text, ctx, &read); t && read == text.size())
    return Val::ofType(t);
  return Val();
}

bool kiln::rules::valEquals(const Val &a, const Val &b) {
  if (a.kind == Val::Value && b.kind == Val::Value)
    return a.value == b.value;
  if (a.kind == Val::Op && b.kind == Val::Op)
    return a.op == b.op;
  if (a.kind == Val::Type || b.kind == Val::Type)
    return a.asType() && a.asType() == b.asType();
  if (a.kind == Val::Str || b.kind == Val::Str) {
    auto s = [](const Val &v) -> std::optional<std::string> {
      if (v.kind == Val::Str)
        return v.str;
      if (v.kind == Val::Attr)
        if (auto sa = dyn_cast<StringAttr>(v.attr))
          return sa.str();
      return std::nullopt;
    };
    return s(a) && s(a) == s(b);
  }
  if (auto la = a.asList(), lb = b.asList(); la && lb)
    return *la == *lb;
  if (auto ba = a.asBool(), bb = b.asBool(); ba && bb && (a.kind == Val::Bool || b.kind == Val::Bool))
    return *ba == *bb;
  if (auto ia = a.asInt(), ib = b.asInt(); ia && ib)
    return *ia == *ib;
  if (auto fa = a.asFloat(), fb = b.asFloat(); fa && fb)
    return *fa == *fb;
  if (a.kind == Val::Attr && b.kind == Val::Attr)
    return a.attr == b.attr;
  return false;
}

namespace {
struct Evaluator {
  /// The value bound to "$x" (a capture) or "node" (a match node), or null.
  llvm::function_ref<const Val *(StringRef)> lookup;
  RewriterBase &rewriter;
  std::string *why;
  /// Where the rule matched (the first bound op or value), for errors.
  Location loc;

  std::optional<Val> fail(const Expr &e, const std::string &msg) {
    if (why && why->empty())
      *why = "`" + printExpr(e) + "`: " + msg;
    return std::nullopt;
  }

  std::optional<Val> eval(const Expr &e) {
    switch (e.kind) {
    case Expr::Capture:
    case Expr::Ref: {
      llvm::SmallString<32> key;
      if (e.kind == Expr::Capture)
        key = "$";
      key += e.name;
      if (const Val *bound = lookup(key)) {
        // `s#1`: result 1 of the op bound to node s, as in operands.
        if (e.kind == Expr::Ref && e.resultIndex && bound->kind == Val::Op) {
          Operation *op = bound->op;
          if (unsigned(e.resultIndex) >= op->getNumResults())
            return fail(e, "no result #" + std::to_string(e.resultIndex));
          return Val::ofValue(op->getResult(e.resultIndex));
        }
        return *bound;
      }
      if (e.kind == Expr::Ref) {
        Val lit = parseLiteral(rewriter.getContext(), e.name);
        if (lit.kind != Val::None)
          return lit;
      }
      return fail(e, "unbound name");
    }
    case Expr::Wildcard:
      return fail(e, "'_' has no value");
    case Expr::Int:
      return Val::ofInt(e.ival);
    case Expr::Float:
      return Val::ofFloat(e.fval);
    case Expr::Bool:
      return Val::ofBool(e.ival);
    case Expr::String:
      return Val::ofStr(e.name);
    case Expr::Literal: {
      Val v = parseLiteral(rewriter.getContext(), e.name);
      if (v.kind == Val::None)
        return fail(e, "not an MLIR attribute or type");
      return v;
    }
    case Expr::List: {
      std::vector<int64_t> out;
      for (const ExprP &a : e.args) {
        auto v = eval(*a);
        if (!v)
          return std::nullopt;
        auto i = v->asInt();
        if (!i)
          return fail(*a, "list elements must be integers");
        out.push_back(*i);
      }
      return Val::ofList(out);
    }
    case Expr::Call:
      return call(e);
    case Expr::Op:
      return fail(e, "an op cannot be computed here");
    case Expr::Unary: {
      auto v = eval(*e.args[0]);
      if (!v)
        return std::nullopt;
      if (e.name == "not") {
        auto b = v->asBool();
        return b ? std::optional<Val>(Val::ofBool(!*b)) : fail(e, "not a boolean");
      }
      if (auto i = v->asInt()) {
        if (*i == std::numeric_limits<int64_t>::min())
          return fail(e, "integer overflow in -(" + std::to_string(*i) + ")");
        return Val::ofInt(-*i);
      }
      if (auto f = v->asFloat())
        return Val::ofFloat(-*f);
      return fail(e, "not a number");
    }
    case Expr::Index: {
      auto l = eval(*e.args[0]);
      auto i = l ? eval(*e.args[1]) : std::nullopt;
      if (!i)
        return std::nullopt;
      auto list = l->asList();
      auto idx = i->asInt();
      if (!list || !idx)
        return fail(e, "indexing needs an integer list and an integer");
      int64_t k = *idx < 0 ? *idx + (int64_t)list->size() : *idx;
      if (k < 0 || k >= (int64_t)list->size())
        return fail(e, "index out of range");
      return Val::ofInt((*list)[k]);
    }
    case Expr::Binary:
      return binary(e);
    }
    return std::nullopt;
  }

  std::optional<Val> binary(const Expr &e) {
    const std::string &op = e.name;
    auto l = eval(*e.args[0]);
    if (!l)
      return std::nullopt;
    if (op == "and" || op == "or") {
      auto lb = l->asBool();
      if (!lb)
        return fail(*e.args[0], "not a boolean");
      if ((op == "and") != *lb)
        return Val::ofBool(*lb);
      auto r = eval(*e.args[1]);
      if (!r)
        return std::nullopt;
      auto rb = r->asBool();
      return rb ? std::optional<Val>(Val::ofBool(*rb)) : fail(*e.args[1], "not a boolean");
    }
    auto r = eval(*e.args[1]);
    if (!r)
      return std::nullopt;
    if (op == "==")
      return Val::ofBool(valEquals(*l, *r));
    if (op == "!=")
      return Val::ofBool(!valEquals(*l, *r));
    if (op == "in") {
      auto list = r->asList();
      auto x = l->asInt();
      if (!list || !x)
        return fail(e, "`in` needs an integer and an integer list");
      return Val::ofBool(std::find(list->begin(), list->end(), *x) != list->end());
    }
    if (op == "+" && l->kind != Val::Int && r->kind != Val::Int)
      if (auto la = l->asList(), lb = r->asList(); la && lb) {
        la->insert(la->end(), lb->begin(), lb->end());
        return Val::ofList(*la);
      }
    auto li = l->asInt(), ri = r->asInt();
    if (li && ri) {
      int64_t a = *li, b = *ri;
      if (op == "<") return Val::ofBool(a < b);
      if (op == "<=") return Val::ofBool(a <= b);
      if (op == ">") return Val::ofBool(a > b);
      if (op == ">=") return Val::ofBool(a >= b);
      // Checked: an overflow makes the evaluation fail (the rule does not
      // match) instead of wrapping or trapping.
      int64_t result;
      auto overflow = [&] {
        return fail(e, "integer overflow in " + std::to_string(a) + " " + op + " " +
                           std::to_string(b));
      };
      if (op == "+")
        return __builtin_add_overflow(a, b, &result) ? overflow() : Val::ofInt(result);
      if (op == "-")
        return __builtin_sub_overflow(a, b, &result) ? overflow() : Val::ofInt(result);
      if (op == "*")
        return __builtin_mul_overflow(a, b, &result) ? overflow() : Val::ofInt(result);
      if ((op == "/" || op == "%") && b == 0)
        return fail(e, "division by zero");
      if ((op == "/" || op == "%") && a == std::numeric_limits<int64_t>::min() && b == -1)
        return overflow();
      if (op == "/") return Val::ofInt(a / b);
      if (op == "%") return Val::ofInt(a % b);
    }
    auto lf = l->asFloat(), rf = r->asFloat();
    if (lf && rf) {
      double a = *lf, b = *rf;
      if (op == "<") return Val::ofBool(a < b);
      if (op == "<=") return Val::ofBool(a <= b);
      if (op == ">") return Val::ofBool(a > b);
      if (op == ">=") return Val::ofBool(a >= b);
      if (op == "+") return Val::ofFloat(a + b);
      if (op == "-") return Val::ofFloat(a - b);
      if (op == "*") return Val::ofFloat(a * b);
      if (op == "/") return Val::ofFloat(a / b);
    }
    return fail(e, "operands of '" + op + "' are " + l->str_() + " and " + r->str_());
  }

  static bool fits(ArgKind k, const Val &v) {
    switch (k) {
    case ArgKind::Any: return true;
    case ArgKind::Value: return bool(v.asValue());
    case ArgKind::Attribute: return v.kind == Val::Attr;
    case ArgKind::Type: return bool(v.asType());
    case ArgKind::Op: return v.asOp() != nullptr;
    case ArgKind::Int: return v.asInt().has_value();
    case ArgKind::IntList: return v.isList();
    case ArgKind::Bool: return v.asBool().has_value();
    }
    return false;
  }

  std::optional<Val> call(const Expr &e) {
    const NativeFunction *f = e.native ? e.native : NativeRegistry::global().lookup(e.name);
    if (!f)
      return fail(e, "unknown native function");
    llvm::SmallVector<Val, 4> args;
    for (size_t i = 0; i < e.args.size(); ++i) {
      auto v = eval(*e.args[i]);
      if (!v)
        return std::nullopt;
      ArgKind k = i < f->args.size() ? f->args[i] : f->args.back();
      if (!fits(k, *v))
        return fail(*e.args[i], std::string("expected ") + argKindName(k) + ", got " + v->str_());
      args.push_back(*v);
    }
    // `range(n)` allocates n integers: n comes from the IR being matched, so
    // it is bounded here, before the builtin runs.
    if (StringRef(e.name) == "range" && !args.empty())
      if (auto n = args[0].asInt(); n && *n > kMaxRangeLength)
        return fail(e, "range(" + std::to_string(*n) + ") is longer than " +
                           std::to_string(kMaxRangeLength) + " elements");
    // A native function (a plugin's) that throws fails its rule with an
    // error at the matched IR: the exception had crossed MLIR's pattern
    // driver, built without exceptions, and ended in std::terminate.
    std::optional<Val> r;
    std::string thrown;
    try {
      r = f->fn(rewriter, args);
    } catch (const std::exception &ex) {
      thrown = ex.what();
    } catch (...) {
      thrown = "an exception that is not a std::exception";
    }
    if (!thrown.empty()) {
      std::string msg = "native function '" + f->name + "' threw: " + thrown;
      emitError(loc) << msg;
      return fail(e, msg);
    }
    if (!r)
      return fail(e, f->role == NativeFunction::Rewrite ? "the rewrite does not apply"
                                                        : "failed");
    return r;
  }
};
} // namespace

/// Where a rule with these bindings matched: the first bound op or value.
static Location matchLocation(RewriterBase &rewriter, llvm::iterator_range<const Val *> vals) {
  for (const Val &v : vals) {
    if (Operation *op = v.asOp())
      return op->getLoc();
    if (Value value = v.asValue())
      return value.getLoc();
  }
  return rewriter.getUnknownLoc();
}

std::optional<Val> kiln::rules::evaluate(const Expr &e, const Env &env, RewriterBase &rewriter,
                                         std::string *why) {
  auto lookup = [&](StringRef key) -> const Val * {
    auto it = env.find(key);
    return it == env.end() ? nullptr : &it->second;
  };
  llvm::SmallVector<Val> bound;
  for (const auto &entry : env)
    bound.push_back(entry.getValue());
  Evaluator ev{lookup, rewriter, why,
               matchLocation(rewriter, llvm::make_range(bound.begin(), bound.end()))};
  return ev.eval(e);
}

const Val *ArgBindings::lookup(StringRef key) const {
  for (size_t i = std::min(names.size(), values.size()); i-- > 0;)
    if (names[i] == key)
      return &values[i];
  return nullptr;
}

std::optional<Val> kiln::rules::evaluate(const Expr &e, const ArgBindings &args,
                                         RewriterBase &rewriter, std::string *why) {
  auto lookup = [&](StringRef key) { return args.lookup(key); };
  Evaluator ev{lookup, rewriter, why,
               matchLocation(rewriter,
                             llvm::make_range(args.values.begin(), args.values.end()))};
  return ev.eval(e);
}
