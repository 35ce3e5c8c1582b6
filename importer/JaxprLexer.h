//===- JaxprLexer.h - tokens of jaxpr text ----------------------*- C++ -*-===//
//
// Splits jaxpr text, as `print(jax.make_jaxpr(f)(...))` writes it, into
// tokens. The whole buffer is tokenized up front so the parser can look ahead
// (the end of an equation's operand list is only known from what follows).
// `#` starts a comment running to the end of the line (an extension: lit
// tests carry their RUN lines in the jaxpr).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IMPORTER_JAXPRLEXER_H
#define KILN_IMPORTER_JAXPRLEXER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <vector>

namespace kiln::jaxpr {

enum class TokenKind {
  Identifier, // a, f32, lambda, dot_general, True, inf
  Number,     // 1, -2, 0.5, 1e-05, -inf
  String,     // 'float32' (inside dtype('float32'))
  Opaque,     // <function f at 0x...>: printed Python objects, skipped
  LBrace, RBrace, LBracket, RBracket, LParen, RParen,
  Colon, Semicolon, Dot, Comma, Equal,
  EndOfFile,
  Error, // a character no jaxpr contains; spelling is that character
};

struct Token {
  TokenKind kind;
  llvm::StringRef spelling;
  /// First token on its line: equations start on a new line.
  bool atLineStart = false;
  /// Characters before it on its line (its indentation, for the first).
  unsigned column = 0;

  llvm::SMLoc loc() const { return llvm::SMLoc::getFromPointer(spelling.data()); }
  bool is(TokenKind k) const { return kind == k; }
  bool isKeyword(llvm::StringRef word) const {
    return kind == TokenKind::Identifier && spelling == word;
  }
};

/// Tokenizes `text`; the last token is EndOfFile. A character no jaxpr syntax
/// uses becomes an Error token, which the parser reports unless it skips free
/// text.
std::vector<Token> tokenizeJaxpr(llvm::StringRef text);

/// What a token kind is called in "expected ..." messages.
llvm::StringRef describeTokenKind(TokenKind kind);

} // namespace kiln::jaxpr

#endif // KILN_IMPORTER_JAXPRLEXER_H
