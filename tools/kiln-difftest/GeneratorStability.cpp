//===- GeneratorStability.cpp - which outputs the JIT comparison can judge ===//
//
// The CPU JIT agrees with the interpreter bit for bit on IEEE basic
// operations, but only within the error model on sums (dot_general,
// reduce_sum/prod: other orders) and transcendental functions. A value is
// 0: exact, 1: approximate (a float within the model), 2: unstable (a
// discrete function of an approximate value -- a comparison, a conversion to
// an integer, a bitcast, floor -- which may differ arbitrarily). Outputs that
// are unstable are left out of the JIT comparison (and only of it).
//
// A value's taint is found from the line that defines it: its op and the
// names it reads (for a region op, every name of its regions).
//
//===----------------------------------------------------------------------===//

#include "tools/kiln-difftest/GeneratorImpl.h"

#include "dialect/LaxInterfaces.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

using namespace kiln::difftest;
using namespace kiln::difftest::gen;
using llvm::StringRef;

namespace {
/// Ops whose float results are approximate in the JIT: sums in another
/// order, and the elementwise primitives that are not correctly rounded.
bool isApproximate(StringRef op) {
  if (const kiln::lax::ElementwisePrimitive *p = kiln::lax::findElementwisePrimitive(op))
    return p->isApproximate();
  static const llvm::StringSet<> ops = {"dot_general", "reduce_sum", "reduce_prod",
                                        "integer_pow"};
  return ops.contains(op);
}

/// The word after the first `prefix` in `text` (a regex `prefix(\w+)`), or "".
StringRef wordAfter(StringRef text, StringRef prefix) {
  size_t pos = text.find(prefix);
  while (pos != StringRef::npos) {
    StringRef rest = text.drop_front(pos + prefix.size());
    StringRef word = rest.take_while([](char c) { return llvm::isAlnum(c) || c == '_'; });
    if (!word.empty())
      return word;
    pos = text.find(prefix, pos + 1);
  }
  return "";
}
} // namespace

bool Generator::isDiscrete(StringRef op) {
  static const llvm::StringSet<> ops = {
      "compare",  "argmax",    "argmin", "is_finite", "floor", "ceil",
      "round",    "sign",      "rem",    "nextafter", "bitcast_convert_type",
      "convert_element_type", "dynamic_slice", "dynamic_update_slice", "gather", "scatter", "sort", "top_k"};
  return ops.contains(op);
}

int Generator::argTaint(llvm::ArrayRef<Value *> sources) {
  int t = 0;
  for (Value *v : sources)
    t = std::max(t, taintOf(v->name));
  return t;
}

void Generator::setArgsTaint(llvm::ArrayRef<Value *> args, llvm::ArrayRef<Value *> sources,
                             bool loop) {
  int t = argTaint(sources);
  // A loop carry may become approximate in an earlier iteration.
  for (Value *a : args)
    taint[a->name] = std::max(t, loop && isFloat(a->dt) ? 1 : 0);
}

int Generator::inferTaint(const Block &blk, const Value &v) {
  const std::vector<std::string> &lines = blk.lines;
  // The line defining v: the last one whose left-hand side names it.
  int k = int(lines.size()) - 1;
  for (; k >= 0; --k) {
    StringRef line = lines[k];
    size_t eq = line.find(" = ");
    if (eq == StringRef::npos)
      continue;
    llvm::SmallVector<StringRef> lhsNames;
    line.take_front(eq).split(lhsNames, ',');
    if (llvm::any_of(lhsNames, [&](StringRef n) { return n.trim() == v.name; }))
      break;
  }
  if (k < 0)
    return 0;
  StringRef line = lines[k];
  size_t eq = line.find(" = ");
  StringRef lhs = line.take_front(eq), rhs = line.drop_front(eq + 3);
  std::vector<std::string> names = namesIn(rhs);
  auto maxTaint = [&](llvm::ArrayRef<std::string> ns) {
    int m = 0;
    for (const std::string &n : ns)
      m = std::max(m, taintOf(n));
    return m;
  };
  if (rhs.rtrim().ends_with("{") || line.contains(" lax.while ") || line.contains(" lax.cond ")) {
    // A region op: whatever its regions read.
    for (size_t l = k + 1; l < lines.size(); ++l)
      for (std::string &n : namesIn(lines[l]))
        names.push_back(std::move(n));
    llvm::StringSet<> results;
    for (std::string &n : namesIn(lhs))
      results.insert(n);
    llvm::erase_if(names, [&](const std::string &n) { return results.contains(n); });
    return maxTaint(names);
  }
  int m = maxTaint(names);
  StringRef callee = wordAfter(rhs, "func.call @");
  if (!callee.empty()) {
    // The callee's taint was found with exact arguments; approximate ones
    // through a discrete op of its body (a bitcast of the argument) make the
    // result unstable.
    auto discrete = calleeDiscrete.find(callee);
    if (m >= 1 && (discrete == calleeDiscrete.end() || discrete->second))
      return 2;
    auto t = calleeTaint.find(callee);
    m = std::max(m, t == calleeTaint.end() ? 2 : t->second);
  }
  if (m == 2)
    return 2;
  StringRef op = wordAfter(rhs, "lax.");
  auto dtypeOf = [&](const std::string &n) -> StringRef {
    auto it = dtypes.find(n);
    return it == dtypes.end() ? StringRef() : StringRef(it->second);
  };
  if ((op == "bitcast_convert_type" || op == "top_k") &&
      llvm::any_of(names, [&](const std::string &n) { return isFloat(dtypeOf(n)); }))
    // The bits of a NaN: the JIT folds constant arithmetic with APFloat
    // (+NaN for inf / inf) where x86, and so the interpreter, computes -NaN;
    // a NaN's sign and payload are not part of what the comparisons promise.
    // top_k orders NaNs by their sign.
    return 2;
  if (m == 1 && isDiscrete(op)) {
    bool floatIn = llvm::any_of(names, [&](const std::string &n) { return isFloat(dtypeOf(n)); });
    if (!(op == "convert_element_type" && isFloat(v.dt)) && floatIn)
      return 2;
  }
  if (m == 1 && op == "atan2")
    // atan2's derivative is unbounded near the origin and it jumps across
    // the negative x axis: an operand whose error is as large as itself
    // (sin(-FLT_MAX): any value in [-1, 1] is within the model) moves it
    // anywhere in [-pi, pi].
    return 2;
  if (m == 1 && op == "pow")
    // An approximate operand of pow. The base: pow amplifies its error by
    // the exponent, and an approximate base with a huge exponent
    // (cos(-FLT_MAX) = 1 in the JIT, 0.853 in libm, then ** -FLT_MAX: 1
    // against inf) is beyond any first-order bound. The exponent: for a negative base pow is NaN at every
    // non-integer exponent and a number at the integers, so an exponent
    // that is an integer in one and not in the other gives a number against
    // NaN (logistic(-92.76) is 5.3e-41 in the interpreter and 0 in the
    // JIT's f32 1 / (1 + exp(92.76)), as in JAX's own lowering; then
    // (-92.76) ** that: NaN against 1; the POW check of
    // tests/tools/difftest-stability.test).
    return 2;
  if (mayOverflow && isFloat(v.dt) && (op == "sin" || op == "cos" || op == "tan"))
    // The argument may be near the largest value, where one ulp is 2^104
    // (f32) and the model allows sin any value in [-1, 1] (the JIT's is 0 at
    // FLT_MAX, libm's -0.52): everything computed from it may then overflow,
    // or not, in either (1.7e38 * sin(FLT_MAX) to f16 is -inf in the
    // interpreter and 0 in the JIT, then 2 ** that is 0 against 1:
    // the TRIG and DIV checks of tests/tools/difftest-stability.test).
    // Over seeds 0-299 this leaves 6 more of 1130 outputs out.
    return 2;
  if (m == 1 && op == "div" && mayOverflow && isFloat(v.dt)) {
    // A value near the largest over an approximate divisor: within the model
    // the divisor may be anything its error allows (sin(FLT_MAX) is any
    // value in [-1, 1]), so the quotient may overflow in one and not in the
    // other, or to infinities of opposite signs, where the comparison asks
    // an infinite reference for the same infinity (FLT_MAX / sin(FLT_MAX):
    // the DIV check of tests/tools/difftest-stability.test).
    if (names.size() >= 2 && taintOf(names[1]) >= 1)
      return 2;
  }
  if (isFloat(v.dt) &&
      (op == "reduce_prod" ||
       ((op == "reduce_sum" || op == "dot_general") &&
        (v.dt == "f16" || v.dt == "bf16" || mayOverflow))))
    // The interpreter multiplies (and sums) exactly or in double and rounds
    // once; the JIT in the element type, in another order: where one
    // overflows to inf (then NaN) and the other does not, no error model
    // relates them. Narrow sums overflow easily; f32 and f64 ones where the
    // program has values near the largest (FLT_MAX + FLT_MAX/2 - FLT_MAX:
    // found three times by the random campaign).
    return 2;
  if (isFloat(v.dt) && (m == 1 || isApproximate(op)))
    return 1;
  return m;
}
