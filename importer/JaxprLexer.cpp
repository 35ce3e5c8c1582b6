//===- JaxprLexer.cpp - tokens of jaxpr text ------------------------------===//
#include "importer/JaxprLexer.h"

#include "llvm/ADT/StringExtras.h"

using namespace kiln::jaxpr;
using llvm::StringRef;

static bool isIdentifierChar(char c) { return llvm::isAlnum(c) || c == '_'; }

/// Length of the number at the start of `s` (0 if none): -?digits[.digits][e[+-]digits],
/// or -inf.
static size_t lexNumber(StringRef s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+'))
    ++i;
  if (s.substr(i).starts_with("inf") &&
      (i + 3 == s.size() || !isIdentifierChar(s[i + 3])))
    return i > 0 ? i + 3 : 0; // a bare `inf` is an identifier-shaped literal
  size_t digitsStart = i;
  while (i < s.size() && llvm::isDigit(s[i]))
    ++i;
  if (i == digitsStart)
    return 0;
  // A '.' belongs to the number only when a digit, an exponent or a
  // non-identifier character follows: `a b c.` ends a binder list, `1.` is rare.
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && llvm::isDigit(s[i]))
      ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-'))
      ++j;
    if (j < s.size() && llvm::isDigit(s[j])) {
      while (j < s.size() && llvm::isDigit(s[j]))
        ++j;
      i = j;
    }
  }
  return i;
}

std::vector<Token> kiln::jaxpr::tokenizeJaxpr(StringRef text) {
  std::vector<Token> tokens;
  bool atLineStart = true;
  size_t pos = 0, lineStart = 0;
  auto push = [&](TokenKind kind, size_t length) {
    tokens.push_back({kind, text.substr(pos, length), atLineStart, unsigned(pos - lineStart)});
    atLineStart = false;
    pos += length;
  };
  while (true) {
    // Whitespace, and `#` comments (JAX never prints '#'; tests use them).
    while (pos < text.size() && (llvm::isSpace(text[pos]) || text[pos] == '#')) {
      if (text[pos] == '#') {
        pos = std::min(text.find('\n', pos), text.size());
      } else if (text[pos++] == '\n') {
        atLineStart = true;
        lineStart = pos;
      }
    }
    if (pos >= text.size()) {
      tokens.push_back({TokenKind::EndOfFile, text.substr(text.size()), atLineStart, 0});
      return tokens;
    }
    StringRef rest = text.substr(pos);
    char c = rest[0];
    if (size_t n = lexNumber(rest)) {
      push(TokenKind::Number, n);
      continue;
    }
    if (llvm::isAlpha(c) || c == '_') {
      size_t n = 1;
      // Primitive names such as `scatter-add` hold a '-' between letters.
      while (n < rest.size() &&
             (isIdentifierChar(rest[n]) ||
              (rest[n] == '-' && n + 1 < rest.size() && llvm::isAlpha(rest[n + 1]))))
        ++n;
      push(TokenKind::Identifier, n);
      continue;
    }
    switch (c) {
    case '{': push(TokenKind::LBrace, 1); continue;
    case '}': push(TokenKind::RBrace, 1); continue;
    case '[': push(TokenKind::LBracket, 1); continue;
    case ']': push(TokenKind::RBracket, 1); continue;
    case '(': push(TokenKind::LParen, 1); continue;
    case ')': push(TokenKind::RParen, 1); continue;
    case ':': push(TokenKind::Colon, 1); continue;
    case ';': push(TokenKind::Semicolon, 1); continue;
    case '.': push(TokenKind::Dot, 1); continue;
    case ',': push(TokenKind::Comma, 1); continue;
    case '=': push(TokenKind::Equal, 1); continue;
    default: break;
    }
    if (c == '\'' || c == '"') {
      // A string ends on its own line; a lone quote is free text (an
      // apostrophe in a message parameter).
      size_t end = rest.find(c, 1);
      if (end == StringRef::npos || rest.find('\n') < end) {
        push(TokenKind::Error, 1);
        continue;
      }
      push(TokenKind::String, end + 1);
      continue;
    }
    if (c == '<') {
      // A printed Python object: <function _memoize.<locals>.memoized at 0x...>.
      size_t depth = 0, n = 0;
      for (; n < rest.size(); ++n) {
        if (rest[n] == '<')
          ++depth;
        else if (rest[n] == '>' && --depth == 0)
          break;
      }
      if (n == rest.size()) {
        push(TokenKind::Error, 1);
        continue;
      }
      push(TokenKind::Opaque, n + 1);
      continue;
    }
    // Characters no jaxpr syntax uses; free-text parameters may hold them,
    // anywhere else the parser reports them.
    push(TokenKind::Error, 1);
  }
}

StringRef kiln::jaxpr::describeTokenKind(TokenKind kind) {
  switch (kind) {
  case TokenKind::Identifier: return "a name";
  case TokenKind::Number: return "a number";
  case TokenKind::String: return "a string";
  case TokenKind::Opaque: return "'<...>'";
  case TokenKind::LBrace: return "'{'";
  case TokenKind::RBrace: return "'}'";
  case TokenKind::LBracket: return "'['";
  case TokenKind::RBracket: return "']'";
  case TokenKind::LParen: return "'('";
  case TokenKind::RParen: return "')'";
  case TokenKind::Colon: return "':'";
  case TokenKind::Semicolon: return "';'";
  case TokenKind::Dot: return "'.'";
  case TokenKind::Comma: return "','";
  case TokenKind::Equal: return "'='";
  case TokenKind::EndOfFile: return "end of input";
  case TokenKind::Error: return "an invalid character";
  }
  return "a token";
}
