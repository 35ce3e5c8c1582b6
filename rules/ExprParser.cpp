//===- ExprParser.cpp - the expression language of rules ------------------===//
//
// A recursive-descent parser. Precedence, lowest first: or, and, not,
// comparisons (== != < <= > >= in), + -, * / %, unary -, postfix [i].
//
//===----------------------------------------------------------------------===//
#include "rules/ExprParser.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include <cctype>
#include <cmath>
#include <cstring>

using namespace kiln::rules;

namespace {
class Parser {
public:
  Parser(const std::string &text, const SrcLoc &base) : s(text), base(base) {}

  ExprP parseAll() {
    ExprP e = parseOr();
    skipWs();
    if (e && pos != s.size())
      fail("unexpected '" + s.substr(pos, 1) + "'");
    return err ? nullptr : e;
  }
  std::optional<ExprError> err;

private:
  const std::string &s;
  SrcLoc base;
  size_t pos = 0;
  /// Brackets and prefix operators being parsed, one inside the other.
  unsigned depth = 0;
  /// The height of each node built so far (leaves are absent: height 1).
  llvm::DenseMap<const Expr *, unsigned> heights;

  /// Enters one more level of nesting (a bracket, a prefix operator); false
  /// after an error when that is deeper than kMaxExprNesting. Each
  /// successful enter() is matched by a leave().
  bool enter() {
    if (depth >= kMaxExprNesting) {
      fail("nesting deeper than " + std::to_string(kMaxExprNesting) +
           " levels in an expression");
      return false;
    }
    ++depth;
    return true;
  }
  void leave() { --depth; }
  unsigned height(const ExprP &e) const {
    auto it = heights.find(e.get());
    return it == heights.end() ? 1 : it->second;
  }
  /// Records the height of `e`, whose children are all built; null after an
  /// error when the tree is deeper than kMaxExprNesting (a long chain such as
  /// `1 + 1 + ... + 1` nests without recursing in the parser, but the
  /// evaluator and printer recurse on it).
  ExprP built(ExprP e) {
    if (!e)
      return e;
    unsigned h = 1;
    for (const ExprP &a : e->args)
      if (a)
        h = std::max(h, height(a) + 1);
    for (const auto &[key, value] : e->attrs)
      if (value)
        h = std::max(h, height(value) + 1);
    if (e->type)
      h = std::max(h, height(e->type) + 1);
    if (h > kMaxExprNesting)
      return fail("expression nested deeper than " + std::to_string(kMaxExprNesting) +
                  " levels");
    heights[e.get()] = h;
    return e;
  }

  ExprP fail(const std::string &msg) {
    if (!err)
      err = ExprError{msg, pos};
    return nullptr;
  }
  void skipWs() {
    while (pos < s.size() && std::isspace((unsigned char)s[pos]))
      ++pos;
  }
  bool peek(const char *tok) {
    skipWs();
    return s.compare(pos, strlen(tok), tok) == 0;
  }
  bool eat(const char *tok) {
    if (!peek(tok))
      return false;
    pos += strlen(tok);
    return true;
  }
  /// A keyword operator (`and`, `or`, `not`, `in`) not followed by an
  /// identifier character.
  bool eatWord(const char *w) {
    skipWs();
    size_t n = strlen(w);
    if (s.compare(pos, n, w) != 0)
      return false;
    if (pos + n < s.size() && (std::isalnum((unsigned char)s[pos + n]) || s[pos + n] == '_'))
      return false;
    pos += n;
    return true;
  }
  ExprP make(Expr::Kind k, size_t at) {
    auto e = std::make_shared<Expr>(k);
    e->loc = base;
    e->loc.col += at;
    return e;
  }
  std::string ident() {
    size_t b = pos;
    while (pos < s.size() && (std::isalnum((unsigned char)s[pos]) || s[pos] == '_'))
      ++pos;
    return s.substr(b, pos - b);
  }

  ExprP binary(const std::string &op, ExprP l, ExprP r, size_t at) {
    if (!l || !r)
      return nullptr;
    ExprP e = make(Expr::Binary, at);
    e->name = op;
    e->args = {l, r};
    return built(e);
  }
  ExprP parseOr() {
    ExprP l = parseAnd();
    while (l) {
      size_t at = pos;
      if (eatWord("or") || eat("||"))
        l = binary("or", l, parseAnd(), at);
      else
        break;
    }
    return l;
  }
  ExprP parseAnd() {
    ExprP l = parseNot();
    while (l) {
      size_t at = pos;
      if (eatWord("and") || eat("&&"))
        l = binary("and", l, parseNot(), at);
      else
        break;
    }
    return l;
  }
  ExprP parseNot() {
    skipWs();
    size_t at = pos;
    if (eatWord("not") || (peek("!") && !peek("!=") && eat("!"))) {
      if (!enter())
        return nullptr;
      ExprP inner = parseNot();
      leave();
      if (!inner)
        return nullptr;
      ExprP e = make(Expr::Unary, at);
      e->name = "not";
      e->args = {inner};
      return built(e);
    }
    return parseCmp();
  }
  ExprP parseCmp() {
    ExprP l = parseAdd();
    if (!l)
      return nullptr;
    skipWs();
    size_t at = pos;
    for (const char *op : {"==", "!=", "<=", ">=", "<", ">"})
      if (eat(op))
        return binary(op, l, parseAdd(), at);
    if (eatWord("in"))
      return binary("in", l, parseAdd(), at);
    // `$axes contains 0` is `0 in $axes`.
    if (eatWord("contains")) {
      ExprP r = parseAdd();
      return binary("in", r, l, at);
    }
    return l;
  }
  ExprP parseAdd() {
    ExprP l = parseMul();
    while (l) {
      skipWs();
      size_t at = pos;
      if (eat("+"))
        l = binary("+", l, parseMul(), at);
      else if (eat("-"))
        l = binary("-", l, parseMul(), at);
      else
        break;
    }
    return l;
  }
  ExprP parseMul() {
    ExprP l = parseUnary();
    while (l) {
      skipWs();
      size_t at = pos;
      if (eat("*"))
        l = binary("*", l, parseUnary(), at);
      else if (eat("/"))
        l = binary("/", l, parseUnary(), at);
      else if (eat("%"))
        l = binary("%", l, parseUnary(), at);
      else
        break;
    }
    return l;
  }
  ExprP parseUnary() {
    skipWs();
    size_t at = pos;
    if (eat("-")) {
      if (!enter())
        return nullptr;
      ExprP inner = parseUnary();
      leave();
      if (!inner)
        return nullptr;
      if (inner->kind == Expr::Int) {
        inner->ival = -inner->ival;
        return inner;
      }
      if (inner->kind == Expr::Float) {
        inner->fval = -inner->fval;
        return inner;
      }
      ExprP e = make(Expr::Unary, at);
      e->name = "-";
      e->args = {inner};
      return built(e);
    }
    ExprP e = parsePrimary();
    while (e && peek("[")) {
      size_t at2 = pos;
      eat("[");
      if (!enter())
        return nullptr;
      ExprP idx = parseOr();
      leave();
      if (!idx)
        return nullptr;
      if (!eat("]"))
        return fail("expected ']'");
      ExprP ix = make(Expr::Index, at2);
      ix->args = {e, idx};
      e = built(ix);
    }
    return e;
  }
  /// `(a, b, ...)` or `[a, b, ...]`, the opening bracket already eaten.
  bool parseArgs(std::vector<ExprP> &out, const char *close) {
    if (eat(close))
      return true;
    if (!enter())
      return false;
    do {
      ExprP a = parseOr();
      if (!a) {
        leave();
        return false;
      }
      out.push_back(a);
    } while (eat(","));
    leave();
    if (!eat(close)) {
      fail(std::string("expected ',' or '") + close + "'");
      return false;
    }
    return true;
  }
  ExprP parsePrimary() {
    skipWs();
    size_t at = pos;
    if (pos >= s.size())
      return fail("expected an expression");
    char c = s[pos];
    if (std::isdigit((unsigned char)c)) {
      size_t b = pos;
      while (pos < s.size() && std::isdigit((unsigned char)s[pos]))
        ++pos;
      bool isFloat = false;
      if (pos < s.size() && (s[pos] == '.' || s[pos] == 'e' || s[pos] == 'E')) {
        isFloat = true;
        ++pos;
        while (pos < s.size() && (std::isdigit((unsigned char)s[pos]) || s[pos] == 'e' ||
                                  s[pos] == 'E' || s[pos] == '-' || s[pos] == '+'))
          ++pos;
      }
      ExprP e = make(isFloat ? Expr::Float : Expr::Int, at);
      llvm::StringRef num = llvm::StringRef(s).substr(b, pos - b);
      // getAsInteger/getAsDouble fail (rather than throw) on overflow and on
      // trailing junk such as "1e+".
      if (isFloat ? num.getAsDouble(e->fval) || !std::isfinite(e->fval)
                  : num.getAsInteger(10, e->ival))
        return fail("malformed or out-of-range number '" + num.str() + "'");
      return e;
    }
    if (c == '"') {
      size_t end = s.find('"', pos + 1);
      if (end == std::string::npos)
        return fail("unterminated string");
      ExprP e = make(Expr::String, at);
      e->name = s.substr(pos + 1, end - pos - 1);
      pos = end + 1;
      return e;
    }
    if (c == '`') {
      size_t end = s.find('`', pos + 1);
      if (end == std::string::npos)
        return fail("unterminated `literal`");
      ExprP e = make(Expr::Literal, at);
      e->name = s.substr(pos + 1, end - pos - 1);
      pos = end + 1;
      return e;
    }
    if (c == '[') {
      ++pos;
      ExprP e = make(Expr::List, at);
      if (!parseArgs(e->args, "]"))
        return nullptr;
      return built(e);
    }
    if (c == '(') {
      ++pos;
      if (!enter())
        return nullptr;
      ExprP e = parseOr();
      leave();
      if (e && !eat(")"))
        return fail("expected ')'");
      return e;
    }
    if (c == '$') {
      ++pos;
      std::string name = ident();
      if (name.empty())
        return fail("expected a capture name after '$'");
      ExprP e = make(Expr::Capture, at);
      e->name = name;
      if (s.compare(pos, 3, "...") == 0) {
        pos += 3;
        e->variadic = true;
      }
      return e;
    }
    if (!(std::isalpha((unsigned char)c) || c == '_'))
      return fail("unexpected '" + std::string(1, c) + "'");
    std::string name = ident();
    bool dotted = false;
    while (pos < s.size() && s[pos] == '.' && pos + 1 < s.size() &&
           (std::isalpha((unsigned char)s[pos + 1]) || s[pos + 1] == '_')) {
      ++pos;
      name += "." + ident();
      dotted = true;
    }
    // `_(operands)` is an op of any name (a root matched by its constraints).
    if (name == "_" && !(pos < s.size() && s[pos] == '('))
      return make(Expr::Wildcard, at);
    if (name == "_")
      dotted = true;
    if (!dotted && (name == "true" || name == "false")) {
      ExprP e = make(Expr::Bool, at);
      e->ival = name == "true";
      return e;
    }
    if (pos < s.size() && s[pos] == '(') {
      ++pos;
      ExprP e = make(dotted ? Expr::Op : Expr::Call, at);
      e->name = name;
      if (!parseArgs(e->args, ")"))
        return nullptr;
      if (dotted)
        return built(parseOpTail(e));
      return built(e);
    }
    if (dotted)
      return fail("expected '(' after op name '" + name + "'");
    ExprP e = make(Expr::Ref, at);
    e->name = name;
    if (pos < s.size() && s[pos] == '#') {
      ++pos;
      size_t b = pos;
      while (pos < s.size() && std::isdigit((unsigned char)s[pos]))
        ++pos;
      if (b == pos)
        return fail("expected a result number after '#'");
      llvm::StringRef digits = llvm::StringRef(s).substr(b, pos - b);
      if (digits.getAsInteger(10, e->resultIndex))
        return fail("result number '" + digits.str() + "' is out of range");
    }
    return e;
  }
  /// `{name = expr, ...}` and `: type` after an op's operands.
  ExprP parseOpTail(ExprP op) {
    if (eat("{")) {
      if (!eat("}")) {
        do {
          skipWs();
          std::string key = ident();
          if (key.empty())
            return fail("expected an attribute name");
          if (!eat("=") && !eat(":"))
            return fail("expected '=' after attribute name '" + key + "'");
          if (!enter())
            return nullptr;
          ExprP v = parseOr();
          leave();
          if (!v)
            return nullptr;
          op->attrs.emplace_back(key, v);
        } while (eat(","));
        if (!eat("}"))
          return fail("expected ',' or '}' in attributes");
      }
    }
    // `-> T` (YAML-friendly) or `: T` (in quoted strings).
    if (eat("->") || eat(":")) {
      if (!enter())
        return nullptr;
      op->type = parsePrimary();
      leave();
      if (!op->type)
        return nullptr;
    }
    return op;
  }
};
} // namespace

ExprP kiln::rules::parseExpr(const std::string &text, const SrcLoc &base,
                             std::optional<ExprError> &error) {
  Parser p(text, base);
  ExprP e = p.parseAll();
  error = p.err;
  return e;
}

/// How tightly an expression binds when printed: binary and unary operators
/// by their precedence in the grammar, everything else as an atom.
static int precedence(const Expr &e) {
  if (e.kind == Expr::Unary)
    return e.name == "not" ? 3 : 7;
  if (e.kind != Expr::Binary)
    return 8;
  const std::string &op = e.name;
  if (op == "or")
    return 1;
  if (op == "and")
    return 2;
  if (op == "+" || op == "-")
    return 5;
  if (op == "*" || op == "/" || op == "%")
    return 6;
  return 4; // comparisons and `in`
}

std::string kiln::rules::printExpr(const Expr &e) {
  auto join = [](const std::vector<ExprP> &v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i)
      out += (i ? ", " : "") + printExpr(*v[i]);
    return out;
  };
  switch (e.kind) {
  case Expr::Capture:
    return "$" + e.name + (e.variadic ? "..." : "");
  case Expr::Ref:
    return e.resultIndex ? e.name + "#" + std::to_string(e.resultIndex) : e.name;
  case Expr::Wildcard:
    return "_";
  case Expr::Int:
    return std::to_string(e.ival);
  case Expr::Float:
    return std::to_string(e.fval);
  case Expr::Bool:
    return e.ival ? "true" : "false";
  case Expr::String:
    return "\"" + e.name + "\"";
  case Expr::Literal:
    return "`" + e.name + "`";
  case Expr::List:
    return "[" + join(e.args) + "]";
  case Expr::Call:
    return e.name + "(" + join(e.args) + ")";
  case Expr::Op: {
    std::string out = e.name + "(" + join(e.args) + ")";
    if (!e.attrs.empty()) {
      out += " {";
      for (size_t i = 0; i < e.attrs.size(); ++i)
        out += (i ? ", " : "") + e.attrs[i].first + " = " + printExpr(*e.attrs[i].second);
      out += "}";
    }
    if (e.type)
      out += " : " + printExpr(*e.type);
    return out;
  }
  case Expr::Binary: {
    // Parentheses where precedence (or left associativity) needs them.
    int p = precedence(e);
    std::string l = printExpr(*e.args[0]), r = printExpr(*e.args[1]);
    if (precedence(*e.args[0]) < p)
      l = "(" + l + ")";
    if (precedence(*e.args[1]) <= p)
      r = "(" + r + ")";
    return l + " " + e.name + " " + r;
  }
  case Expr::Unary: {
    std::string inner = printExpr(*e.args[0]);
    if (precedence(*e.args[0]) < precedence(e))
      inner = "(" + inner + ")";
    return e.name == "not" ? "not " + inner : "-" + inner;
  }
  case Expr::Index:
    return printExpr(*e.args[0]) + "[" + printExpr(*e.args[1]) + "]";
  }
  return "";
}
