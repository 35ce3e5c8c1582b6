//===- JaxprParser.h - jaxpr text to syntax tree ----------------*- C++ -*-===//
#ifndef KILN_IMPORTER_JAXPRPARSER_H
#define KILN_IMPORTER_JAXPRPARSER_H

#include "importer/JaxprAst.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"

namespace kiln::jaxpr {

/// How deeply brackets, braces and nested jaxprs may nest in a jaxpr file
/// (each `(`, `[`, `{` of a parameter value and each jaxpr inside one is a
/// level). Deeper text is an error at the bracket that goes one level too
/// deep, so no input can exhaust the parser's stack.
inline constexpr unsigned kMaxJaxprNesting = 256;

/// Reports one error at a position in the text being parsed.
using ParseErrorFn = llvm::function_ref<void(llvm::SMLoc, const llvm::Twine &)>;

/// Parses a whole jaxpr file, typed (current JAX) or untyped (older JAX).
/// On malformed text reports exactly one error and returns std::nullopt.
std::optional<Program> parseJaxprProgram(llvm::StringRef text, ParseErrorFn emitError);

/// Parses a comma-separated list of types, e.g. "f32[10,5,8],f32[30]".
std::optional<llvm::SmallVector<TypeAnnotation>>
parseTypeAnnotationList(llvm::StringRef text, ParseErrorFn emitError);

/// Parses `text` as one equation parameter's value (what JAX prints for a
/// parameter that is not a jaxpr: `str(value)`). Null if the text is not one
/// value; the value's SMLocs point into `text`.
std::optional<ParamValue> parseParamValue(llvm::StringRef text);

} // namespace kiln::jaxpr

#endif // KILN_IMPORTER_JAXPRPARSER_H
