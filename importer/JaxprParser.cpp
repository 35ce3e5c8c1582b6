//===- JaxprParser.cpp - jaxpr text to syntax tree ------------------------===//
//
//   program  := lets jaxpr           lets := ('let' (name '=' jaxpr)+ 'in')*
//   jaxpr    := '{' 'lambda' binder* ';' binder* '.' ['let'] (equation [';'])* 'in' outs '}'
//   equation := binder+ '=' primitive ['[' (name '=' value)* ']'] atom*
//   binder   := name [':' type]          type := dtype '[' dims ']'
//   atom     := name | literal [':' type]
//
// JAX's variable names run through every string of letters, so `in`, `inf`
// and `nan` are variables too: `in` is the keyword where the outputs and
// '}' follow it, `inf`/`nan` are literals where typed or not bound in the
// jaxpr (atJaxprEnd, parseAtom).
//
// Equations are not terminated; an equation's atoms end where the next
// equation's binders (`c:f32[3] =` or, untyped, `c d =` on a new line, or
// after a ';' in a jaxpr printed on one line) or the closing `in` begin.
// Parameters print as Python values; a value followed by more text on its
// line (equinox's `msg=Nonconstant batch. ...`) is free text up to the line's
// end. JAX names a jaxpr it prints more than once (core.py's pp_jaxpr with
// shared jaxprs): `let jaxpr = {...} in` before the program or before a
// parameter's value (`solve=let _lu_solve = {...} in {...}`); a parameter
// naming one (`branches=(jaxpr jaxpr)`: jaxprs in a tuple are separated by
// spaces or new lines, not commas) is resolved here, to the innermost
// binding of that name (ParamValue::named).
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprParser.h"

#include "importer/JaxprLexer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>

using namespace kiln::jaxpr;
using llvm::SMLoc;
using llvm::StringRef;
using llvm::Twine;

namespace {

class Parser {
public:
  Parser(StringRef text, ParseErrorFn emitError)
      : tokens(tokenizeJaxpr(text)), emitError(emitError) {}

  std::optional<Program> parseProgram();
  std::optional<llvm::SmallVector<TypeAnnotation>> parseTypeList();
  std::optional<ParamValue> parseOneValue();

private:
  const Token &cur() const { return tokens[pos]; }
  const Token &peek(size_t n = 1) const {
    return tokens[std::min(pos + n, tokens.size() - 1)];
  }
  const Token &consume() { return tokens[pos < tokens.size() - 1 ? pos++ : pos]; }

  /// Reports the error (only the first one counts) and returns false.
  bool error(SMLoc loc, const Twine &message);
  /// An error at the current token, which was not what `what` needed.
  bool errorExpected(const Twine &what);
  bool expect(TokenKind kind, const Twine &context);
  bool expectKeyword(StringRef word);

  bool parseJaxpr(std::shared_ptr<Jaxpr> &jaxpr);
  bool parseBinders(llvm::SmallVectorImpl<Binder> &binders);
  bool parseBinder(Binder &binder);
  bool parseType(TypeAnnotation &type);
  bool parseEquation(Equation &eqn);
  bool parseParams(std::vector<Param> &params);
  bool parseValue(ParamValue &value);
  bool parseValueList(ParamValue &value, TokenKind close);
  /// `let name = jaxpr ... in`: binds the names (bindNamed) until
  /// unbindNamed(count); false after an error.
  bool parseLets(std::vector<std::pair<std::string, std::shared_ptr<Jaxpr>>> &lets);
  /// The names a chain of lets from the current token binds, in order
  /// (`let a = {...} in let b = {...} in`: a, b), found by skipping each
  /// jaxpr's braces; stops where the chain does not look like one.
  std::vector<std::string> chainNames() const;
  const Jaxpr *lookupNamed(StringRef name) const;
  bool parseAtom(Atom &atom);
  bool parseOuts(Jaxpr &jaxpr);

  /// Whether the parameter value just parsed is followed, on its line, by
  /// more than a ',', a ']' or the next `name=`: the value is free text.
  bool continuesAsFreeText() const;
  /// `in` closing a jaxpr (a variable may also be called `in`).
  bool atJaxprEnd() const;
  /// Whether tokens from `index` are binders followed by '=', i.e. an equation.
  bool startsEquation(size_t index) const;
  /// The index of the token after the atom at `index` and its `:type[...]`.
  size_t skipAtom(size_t index) const;

  /// The names bound so far in each jaxpr being parsed, innermost last: JAX
  /// names its variables a, b, ..., z, ba, ..., so `in` (the 222nd),
  /// `inf` (the 5,752nd) and `nan` (the 8,802nd) are variables too.
  std::vector<llvm::StringSet<>> boundNames;
  /// The named jaxprs in scope, innermost last.
  std::vector<std::pair<std::string, std::shared_ptr<Jaxpr>>> namedJaxprs;
  /// Those named inside parameter values, kept for Program::innerNamed.
  std::vector<std::shared_ptr<Jaxpr>> innerNamed;

  std::vector<Token> tokens;
  size_t pos = 0;
  ParseErrorFn emitError;
  bool failed = false;
  /// Parameter values being parsed, one inside the other (kMaxJaxprNesting).
  unsigned depth = 0;
};

} // namespace

bool Parser::error(SMLoc loc, const Twine &message) {
  if (!failed)
    emitError(loc, message);
  failed = true;
  return false;
}

bool Parser::errorExpected(const Twine &what) {
  const Token &t = cur();
  if (t.is(TokenKind::Error))
    return error(t.loc(), t.spelling == "<" || t.spelling == "'" || t.spelling == "\""
                              ? Twine("unterminated '") + t.spelling + "'"
                              : Twine("unexpected character '") + t.spelling + "'");
  if (t.is(TokenKind::EndOfFile))
    return error(t.loc(), "unexpected end of input, expected " + what);
  return error(t.loc(), "expected " + what + ", found '" + t.spelling + "'");
}

bool Parser::expect(TokenKind kind, const Twine &context) {
  if (cur().is(kind)) {
    consume();
    return true;
  }
  return errorExpected(describeTokenKind(kind) + " " + context);
}

bool Parser::expectKeyword(StringRef word) {
  if (cur().isKeyword(word)) {
    consume();
    return true;
  }
  return errorExpected("'" + word + "'");
}

std::vector<std::string> Parser::chainNames() const {
  std::vector<std::string> names;
  size_t p = pos;
  auto at = [&](size_t i) -> const Token & { return tokens[std::min(i, tokens.size() - 1)]; };
  while (at(p).isKeyword("let")) {
    ++p;
    do {
      if (!at(p).is(TokenKind::Identifier) || !at(p + 1).is(TokenKind::Equal) ||
          !at(p + 2).is(TokenKind::LBrace))
        return names;
      std::string name = at(p).spelling.str();
      p += 2;
      // Past the jaxpr's balanced braces.
      int depth = 0;
      do {
        if (at(p).is(TokenKind::EndOfFile))
          return names;
        depth += at(p).is(TokenKind::LBrace) ? 1 : at(p).is(TokenKind::RBrace) ? -1 : 0;
        ++p;
      } while (depth > 0);
      names.push_back(std::move(name));
    } while (at(p).is(TokenKind::Identifier) && !at(p).isKeyword("in"));
    if (!at(p).isKeyword("in"))
      return names;
    ++p;
  }
  return names;
}

bool Parser::parseLets(std::vector<std::pair<std::string, std::shared_ptr<Jaxpr>>> &lets) {
  // A chain of lets binds all its names for all its jaxprs and for what
  // follows, whatever their order: JAX prints `solve=let jaxpr = {... uses
  // _where ...} in let _where = {...} in {...}`, where `jaxpr` uses the
  // _where bound after it, which shadows an outer _where (jaxopt's implicit
  // differentiation: the outer one, of 3 inputs, had been taken -- "jaxpr
  // takes 3 inputs but is given 5"; of equal arity it would have been the
  // wrong jaxpr, silently). Each name is also in scope in its own body,
  // where the builder reports the recursion.
  std::vector<std::shared_ptr<Jaxpr>> declared;
  for (std::string &name : chainNames()) {
    declared.push_back(std::make_shared<Jaxpr>());
    namedJaxprs.emplace_back(std::move(name), declared.back());
  }
  size_t next = 0;
  while (cur().isKeyword("let")) {
    consume();
    do {
      if (!cur().is(TokenKind::Identifier))
        return errorExpected("the name of a jaxpr after 'let'");
      std::string name = consume().spelling.str();
      std::shared_ptr<Jaxpr> jaxpr;
      if (next < declared.size()) {
        jaxpr = declared[next++]; // bound above, by chainNames (same order)
      } else {
        jaxpr = std::make_shared<Jaxpr>();
        namedJaxprs.emplace_back(name, jaxpr);
      }
      if (!expect(TokenKind::Equal, "after the jaxpr name") || !parseJaxpr(jaxpr))
        return false;
      lets.emplace_back(std::move(name), std::move(jaxpr));
    } while (cur().is(TokenKind::Identifier) && !cur().isKeyword("in"));
    if (!expectKeyword("in"))
      return false;
  }
  return true;
}

const Jaxpr *Parser::lookupNamed(StringRef name) const {
  for (auto it = namedJaxprs.rbegin(); it != namedJaxprs.rend(); ++it)
    if (it->first == name)
      return it->second.get();
  return nullptr;
}

std::optional<Program> Parser::parseProgram() {
  Program program;
  // Named sub-jaxprs: `let relu = { ... } in { ... }`.
  if (!parseLets(program.named))
    return std::nullopt;
  if (!parseJaxpr(program.main))
    return std::nullopt;
  if (!cur().is(TokenKind::EndOfFile)) {
    errorExpected("end of input after the jaxpr");
    return std::nullopt;
  }
  program.innerNamed = std::move(innerNamed);
  return program;
}

std::optional<llvm::SmallVector<TypeAnnotation>> Parser::parseTypeList() {
  llvm::SmallVector<TypeAnnotation> types;
  while (!cur().is(TokenKind::EndOfFile)) {
    if (!parseType(types.emplace_back()))
      return std::nullopt;
    if (cur().is(TokenKind::Comma))
      consume();
    else if (!cur().is(TokenKind::EndOfFile)) {
      errorExpected("',' between types");
      return std::nullopt;
    }
  }
  return types;
}

bool Parser::parseJaxpr(std::shared_ptr<Jaxpr> &jaxpr) {
  if (!jaxpr)
    jaxpr = std::make_shared<Jaxpr>();
  jaxpr->loc = cur().loc();
  // A jaxpr is closed: its names are its own (a nested jaxpr may reuse them).
  boundNames.emplace_back();
  llvm::scope_exit unbind([&] { boundNames.pop_back(); });
  if (!expect(TokenKind::LBrace, "to open a jaxpr") || !expectKeyword("lambda") ||
      !parseBinders(jaxpr->constvars) ||
      !expect(TokenKind::Semicolon, "after the constvars of a jaxpr") ||
      !parseBinders(jaxpr->invars) ||
      !expect(TokenKind::Dot, "after the input variables of a jaxpr"))
    return false;
  if (cur().isKeyword("let") && !atJaxprEnd())
    consume();
  while (!atJaxprEnd()) {
    if (cur().is(TokenKind::Semicolon) && !jaxpr->equations.empty()) {
      consume();
      continue;
    }
    if (!cur().is(TokenKind::Identifier))
      return errorExpected("an equation or 'in'");
    if (!parseEquation(jaxpr->equations.emplace_back()))
      return false;
  }
  consume(); // in
  return parseOuts(*jaxpr) && expect(TokenKind::RBrace, "to close the jaxpr");
}

bool Parser::parseBinders(llvm::SmallVectorImpl<Binder> &binders) {
  while (cur().is(TokenKind::Identifier))
    if (!parseBinder(binders.emplace_back()))
      return false;
  return true;
}

bool Parser::parseBinder(Binder &binder) {
  binder.loc = cur().loc();
  binder.name = consume().spelling.str();
  if (!boundNames.empty())
    boundNames.back().insert(binder.name);
  if (!cur().is(TokenKind::Colon))
    return true;
  consume();
  return parseType(binder.type.emplace());
}

bool Parser::parseType(TypeAnnotation &type) {
  type.loc = cur().loc();
  if (!cur().is(TokenKind::Identifier))
    return errorExpected("a type such as f32[3,4]");
  type.dtype = consume().spelling.str();
  // Extended dtypes carry their implementation: key<fry>.
  if (cur().is(TokenKind::Opaque) && peek().is(TokenKind::LBracket))
    type.dtype += consume().spelling.str();
  if (!expect(TokenKind::LBracket, "after the dtype '" + type.dtype + "'"))
    return false;
  while (!cur().is(TokenKind::RBracket)) {
    const Token &dim = cur();
    if (dim.is(TokenKind::Identifier))
      return error(dim.loc(), "symbolic dimension '" + dim.spelling +
                                  "' is not supported: shapes must be static");
    int64_t size;
    if (!dim.is(TokenKind::Number) || dim.spelling.getAsInteger(10, size) || size < 0)
      return errorExpected("a dimension size");
    type.shape.push_back(size);
    consume();
    if (cur().is(TokenKind::Comma))
      consume();
    else if (!cur().is(TokenKind::RBracket))
      return errorExpected("',' or ']' in a shape");
  }
  consume();
  return true;
}

bool Parser::atJaxprEnd() const {
  if (!cur().isKeyword("in"))
    return false;
  // The keyword is followed by the outputs: `(a, b)` (current JAX) or one
  // atom (older JAX), then the closing '}'. A variable named `in` is an
  // operand, followed by another operand, the next equation or the keyword
  // `in`; never by '(' or by one atom and '}'.
  const Token &next = peek();
  if (next.is(TokenKind::LParen) || next.is(TokenKind::EndOfFile))
    return true;
  if (!next.is(TokenKind::Identifier) && !next.is(TokenKind::Number))
    return false;
  return tokens[skipAtom(pos + 1)].is(TokenKind::RBrace);
}

size_t Parser::skipAtom(size_t index) const {
  size_t last = tokens.size() - 1;
  size_t i = std::min(index + 1, last);
  if (!tokens[i].is(TokenKind::Colon))
    return i;
  // `:dtype[dims]`
  while (i < last && !tokens[i].is(TokenKind::RBracket) && !tokens[i].is(TokenKind::RBrace))
    ++i;
  return tokens[i].is(TokenKind::RBracket) ? std::min(i + 1, last) : i;
}

bool Parser::startsEquation(size_t index) const {
  // JAX wraps long operand lists, so a line may continue the previous
  // equation's operands. Binders of one equation are all typed (current JAX)
  // or all untyped (older JAX, which did not wrap them).
  bool anyTyped = false, anyUntyped = false, crossesLine = false;
  size_t i = index;
  while (tokens[i].is(TokenKind::Identifier)) {
    // JAX indents a wrapped list of binders deeper than its first line; a
    // line at the same or a lower indentation starts something else. So
    // `inf:f32[] inf:f32[]` (typed literals ending a wrapped operand list)
    // followed by the next equation's line is not one equation's binders.
    if (i > index && tokens[i].atLineStart && tokens[i].column <= tokens[index].column)
      return false;
    crossesLine |= i > index && tokens[i].atLineStart;
    ++i;
    if (!tokens[i].is(TokenKind::Colon)) {
      anyUntyped = true;
      continue;
    }
    anyTyped = true;
    // Skip `:dtype[dims]`.
    while (i + 1 < tokens.size() && !tokens[i].is(TokenKind::RBracket))
      ++i;
    if (tokens[i].is(TokenKind::RBracket))
      ++i;
  }
  if (i == index || !tokens[i].is(TokenKind::Equal))
    return false;
  return anyTyped ? !anyUntyped : !crossesLine;
}

bool Parser::parseEquation(Equation &eqn) {
  eqn.loc = cur().loc();
  // An equation without results (`cond[...] a b`, for its effects) starts
  // with its primitive and parameters.
  bool hasResults = !peek().is(TokenKind::LBracket);
  while (hasResults && cur().is(TokenKind::Identifier))
    if (!parseBinder(eqn.outs.emplace_back()))
      return false;
  if (hasResults && !expect(TokenKind::Equal, "after the variables an equation defines"))
    return false;
  if (!cur().is(TokenKind::Identifier))
    return errorExpected("a primitive name");
  eqn.primitiveLoc = cur().loc();
  eqn.primitive = consume().spelling.str();
  if (cur().is(TokenKind::LBracket) && !parseParams(eqn.params))
    return false;
  // Operands run until the next equation or the closing `in`.
  while (true) {
    const Token &t = cur();
    if (t.is(TokenKind::Identifier)) {
      // A typed name starting a line (or following ';') binds the next
      // equation; inside a line it is a literal such as `inf:f32[]`.
      bool startsStatement = t.atLineStart || tokens[pos - 1].is(TokenKind::Semicolon);
      if (atJaxprEnd() || (startsStatement && (startsEquation(pos) ||
                                               peek().is(TokenKind::LBracket))))
        break;
    } else if (!t.is(TokenKind::Number)) {
      break;
    }
    if (!parseAtom(eqn.ins.emplace_back()))
      return false;
  }
  return true;
}

bool Parser::parseParams(std::vector<Param> &params) {
  consume(); // [
  while (!cur().is(TokenKind::RBracket)) {
    if (!cur().is(TokenKind::Identifier))
      return errorExpected("a parameter name or ']'");
    Param &param = params.emplace_back();
    param.loc = cur().loc();
    param.name = consume().spelling.str();
    if (!expect(TokenKind::Equal, "after parameter '" + param.name + "'"))
      return false;
    const char *start = cur().spelling.data();
    if (!parseValue(param.value))
      return false;
    if (continuesAsFreeText()) {
      while (!cur().atLineStart && !cur().is(TokenKind::EndOfFile))
        consume();
      param.value.kind = ParamValue::Kind::Opaque;
    }
    StringRef last = tokens[pos - 1].spelling;
    param.value.spelling = StringRef(start, last.data() + last.size() - start);
    if (param.value.kind == ParamValue::Kind::Opaque)
      param.value.text = param.value.spelling.str();
    if (cur().is(TokenKind::Comma))
      consume();
  }
  consume(); // ]
  return true;
}

bool Parser::continuesAsFreeText() const {
  const Token &t = cur();
  if (t.atLineStart || t.is(TokenKind::Comma) || t.is(TokenKind::RBracket) ||
      t.is(TokenKind::EndOfFile))
    return false;
  return !(t.is(TokenKind::Identifier) && peek().is(TokenKind::Equal));
}

bool Parser::parseValue(ParamValue &value) {
  const Token &t = cur();
  value.loc = t.loc();
  // Every recursion of the parser (lists, calls, dicts, nested jaxprs) goes
  // through here.
  if (depth >= kMaxJaxprNesting)
    return error(t.loc(), "nesting deeper than " + Twine(kMaxJaxprNesting) +
                              " levels of brackets and nested jaxprs");
  ++depth;
  llvm::scope_exit leave([&] { --depth; });
  switch (t.kind) {
  case TokenKind::LBrace:
    if (!peek().isKeyword("lambda")) {
      // A printed Python dict, `{}` or `{'a': 1}`: kept as a list.
      value.kind = ParamValue::Kind::List;
      consume();
      return parseValueList(value, TokenKind::RBrace);
    }
    value.kind = ParamValue::Kind::Jaxpr;
    return parseJaxpr(value.jaxpr);
  case TokenKind::LParen:
  case TokenKind::LBracket:
    value.kind = ParamValue::Kind::List;
    consume();
    return parseValueList(value, t.is(TokenKind::LParen) ? TokenKind::RParen
                                                         : TokenKind::RBracket);
  case TokenKind::Number:
  case TokenKind::String:
  case TokenKind::Opaque:
    value.kind = t.is(TokenKind::Number)   ? ParamValue::Kind::Number
                 : t.is(TokenKind::String) ? ParamValue::Kind::String
                                           : ParamValue::Kind::Opaque;
    value.text = consume().spelling.str();
    if (value.kind == ParamValue::Kind::String)
      value.text = value.text.substr(1, value.text.size() - 2);
    return true;
  case TokenKind::Identifier:
    if (t.isKeyword("let") && peek().is(TokenKind::Identifier) &&
        peek(2).is(TokenKind::Equal)) {
      // `let name = {...} in value`: the names are bound inside the value.
      std::vector<std::pair<std::string, std::shared_ptr<Jaxpr>>> lets;
      size_t outer = namedJaxprs.size();
      bool ok = parseLets(lets) && parseValue(value);
      namedJaxprs.resize(outer);
      for (auto &let : lets)
        innerNamed.push_back(std::move(let.second));
      return ok;
    }
    value.kind = ParamValue::Kind::Name;
    value.text = consume().spelling.str();
    value.named = lookupNamed(value.text);
    // Dotted names: Precision.HIGHEST.
    while (cur().is(TokenKind::Dot) && peek().is(TokenKind::Identifier)) {
      consume();
      value.text += "." + consume().spelling.str();
    }
    if (cur().is(TokenKind::LParen) || cur().is(TokenKind::LBracket)) {
      // AbstractMesh(...), or a subscript as in ShapedArray(float32[4]).
      value.kind = ParamValue::Kind::Call;
      bool paren = consume().is(TokenKind::LParen);
      return parseValueList(value, paren ? TokenKind::RParen : TokenKind::RBracket);
    }
    return true;
  case TokenKind::Error:
    // `*` as printed pytree definitions hold: PyTreeDef((*,), {}).
    if (t.spelling == "*") {
      value.kind = ParamValue::Kind::Opaque;
      value.text = consume().spelling.str();
      return true;
    }
    return errorExpected("a parameter value");
  default:
    return errorExpected("a parameter value");
  }
}

bool Parser::parseValueList(ParamValue &value, TokenKind close) {
  while (!cur().is(close)) {
    ParamValue &item = value.items.emplace_back();
    if (cur().is(TokenKind::Identifier) && peek().is(TokenKind::Equal)) {
      item.key = consume().spelling.str();
      consume();
    }
    if (!parseValue(item))
      return false;
    // Printed Python objects hold `k: v` pairs, e.g. Mesh('x': 2); keep the value.
    if (cur().is(TokenKind::Colon)) {
      consume();
      if (!parseValue(item))
        return false;
    }
    // Jaxprs in a tuple (cond's branches) print without commas, one per
    // line or, named, on one line: `(jaxpr jaxpr)`. A name not bound yet
    // (`(jaxpr2 jaxpr3)` before their top-level `let`s: Program::jaxprOf
    // resolves it) followed by another name is taken the same way.
    bool isJaxpr = item.asJaxpr() != nullptr ||
                   (item.kind == ParamValue::Kind::Name && cur().is(TokenKind::Identifier));
    if (cur().is(TokenKind::Comma))
      consume();
    else if (!cur().is(close) && !cur().atLineStart && !isJaxpr)
      return errorExpected("',' or " + describeTokenKind(close));
  }
  consume();
  return true;
}

bool Parser::parseAtom(Atom &atom) {
  const Token &t = cur();
  atom.loc = t.loc();
  atom.name = t.spelling.str();
  if (t.is(TokenKind::Identifier)) {
    consume();
    if (atom.name == "True" || atom.name == "False") {
      atom.kind = Atom::Kind::BoolLiteral;
      atom.intValue = atom.name == "True";
      atom.floatValue = (double)atom.intValue;
    } else if ((atom.name == "inf" || atom.name == "nan") &&
               (cur().is(TokenKind::Colon) || boundNames.empty() ||
                !boundNames.back().contains(atom.name))) {
      // A literal unless it names a variable: JAX types its literals
      // (`inf:f32[]`), never a variable operand.
      atom.kind = Atom::Kind::FloatLiteral;
      atom.floatValue = atom.name == "inf" ? HUGE_VAL : NAN;
    } else {
      return true; // a variable
    }
  } else {
    consume();
    StringRef text = t.spelling;
    if (text.getAsInteger(10, atom.intValue)) {
      StringRef digits = text.starts_with("-") ? text.drop_front() : text;
      if (!digits.empty() && llvm::all_of(digits, llvm::isDigit))
        return error(t.loc(), "integer literal '" + text + "' does not fit in 64 bits");
      atom.kind = Atom::Kind::FloatLiteral;
      if (text.ends_with("inf"))
        atom.floatValue = text.starts_with("-") ? -HUGE_VAL : HUGE_VAL;
      else if (text.getAsDouble(atom.floatValue))
        return error(t.loc(), "invalid number '" + text + "'");
    } else {
      atom.kind = Atom::Kind::IntLiteral;
      atom.floatValue = (double)atom.intValue;
    }
  }
  if (!cur().is(TokenKind::Colon))
    return true;
  consume();
  return parseType(atom.type.emplace());
}

bool Parser::parseOuts(Jaxpr &jaxpr) {
  jaxpr.outsLoc = cur().loc();
  if (!cur().is(TokenKind::LParen))
    return parseAtom(jaxpr.outs.emplace_back());
  consume();
  while (!cur().is(TokenKind::RParen)) {
    if (!cur().is(TokenKind::Identifier) && !cur().is(TokenKind::Number))
      return errorExpected("an output variable or ')'");
    if (!parseAtom(jaxpr.outs.emplace_back()))
      return false;
    if (cur().is(TokenKind::Comma))
      consume();
    else if (!cur().is(TokenKind::RParen))
      return errorExpected("',' or ')' in the outputs");
  }
  consume();
  return true;
}

std::optional<Program> kiln::jaxpr::parseJaxprProgram(StringRef text,
                                                      ParseErrorFn emitError) {
  return Parser(text, emitError).parseProgram();
}

std::optional<llvm::SmallVector<TypeAnnotation>>
kiln::jaxpr::parseTypeAnnotationList(StringRef text, ParseErrorFn emitError) {
  return Parser(text, emitError).parseTypeList();
}

std::optional<ParamValue> Parser::parseOneValue() {
  ParamValue value;
  if (!parseValue(value) || !cur().is(TokenKind::EndOfFile))
    return std::nullopt;
  return value;
}

std::optional<ParamValue> kiln::jaxpr::parseParamValue(StringRef text) {
  return Parser(text, [](SMLoc, const Twine &) {}).parseOneValue();
}
