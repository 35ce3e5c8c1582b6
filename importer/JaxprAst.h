//===- JaxprAst.h - parsed jaxpr text ---------------------------*- C++ -*-===//
//
// The syntax tree of a jaxpr, as the parser reads it: no MLIR types yet, every
// node remembers where it was written so the builder can point diagnostics
// into the jaxpr file.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IMPORTER_JAXPRAST_H
#define KILN_IMPORTER_JAXPRAST_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/SMLoc.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::jaxpr {

/// `f32[32,100,821]`, `bool[]`.
struct TypeAnnotation {
  llvm::SMLoc loc;
  std::string dtype;
  llvm::SmallVector<int64_t> shape;
};

/// A variable being defined: `a:f32[3]`, `a` (untyped format) or `_` (dropped).
struct Binder {
  llvm::SMLoc loc;
  std::string name;
  std::optional<TypeAnnotation> type;
  bool isDropped() const { return name == "_"; }
};

/// A use: a variable, or a literal such as `0.0`, `5400.0:f32[]`, `1`, `True`.
struct Atom {
  enum class Kind { Variable, FloatLiteral, IntLiteral, BoolLiteral };
  llvm::SMLoc loc;
  Kind kind = Kind::Variable;
  std::string name; // the variable name, or the literal as written
  double floatValue = 0;
  int64_t intValue = 0;
  std::optional<TypeAnnotation> type; // literals only
  bool isLiteral() const { return kind != Kind::Variable; }
};

struct Jaxpr;

/// An equation parameter's value, kept as written and interpreted by the
/// builder for the primitives that need it.
struct ParamValue {
  enum class Kind {
    Name,   // float32, None, True, f1, relu (a named jaxpr)
    Number, // 2, 0.5
    String, // 'float32'
    Opaque, // <function ...>
    List,   // (1, 2, 0) or [1] -- tuples and lists alike
    Call,   // AbstractMesh(...): text is the callee, items the arguments
    Jaxpr,  // { lambda ... }
  };
  llvm::SMLoc loc;
  Kind kind = Kind::Name;
  std::string text;
  llvm::StringRef spelling; // the value as written, e.g. `vmap(f)`
  std::string key;          // `k` of a `k=v` item inside a Call or List
  std::vector<ParamValue> items;
  /// Kind::Jaxpr: the jaxpr.
  std::shared_ptr<Jaxpr> jaxpr;
  /// Kind::Name: the named jaxpr (`let name = ...`) the name meant where it
  /// was written, if any. Not owning: a jaxpr may name itself (a recursion
  /// the builder reports); Program owns every named jaxpr.
  const Jaxpr *named = nullptr;
  /// The jaxpr this value is or names, else null.
  const Jaxpr *asJaxpr() const {
    return kind == Kind::Jaxpr ? jaxpr.get() : kind == Kind::Name ? named : nullptr;
  }
};

struct Param {
  llvm::SMLoc loc;
  std::string name;
  ParamValue value;
};

/// `outs = primitive[params] ins`.
struct Equation {
  llvm::SMLoc loc; // the first binder: where the equation starts
  llvm::SmallVector<Binder> outs;
  std::string primitive;
  llvm::SMLoc primitiveLoc;
  std::vector<Param> params;
  llvm::SmallVector<Atom> ins;

  const Param *findParam(llvm::StringRef name) const {
    for (const Param &p : params)
      if (p.name == name)
        return &p;
    return nullptr;
  }
};

/// `{ lambda constvars ; invars. let eqns in outs }`.
struct Jaxpr {
  llvm::SMLoc loc;
  llvm::SmallVector<Binder> constvars, invars;
  std::vector<Equation> equations;
  llvm::SMLoc outsLoc;
  llvm::SmallVector<Atom> outs;
};

/// Where the user wrote what an in-memory jaxpr's node stands for: the
/// Python line that traced its equation (JAX's user frame).
struct SourcePosition {
  std::string file;
  unsigned line = 0, column = 0;
};

/// A whole file: named sub-jaxprs (`let relu = { ... } in`) and the main
/// one. The parser resolves each use of a name bound before it
/// (ParamValue::named).
struct Program {
  std::vector<std::pair<std::string, std::shared_ptr<Jaxpr>>> named;
  std::shared_ptr<Jaxpr> main;
  /// The jaxprs named inside parameter values (`solve=let f = {...} in`).
  std::vector<std::shared_ptr<Jaxpr>> innerNamed;

  /// The jaxpr `value` is or names: as the parser resolved it, else a
  /// top-level named jaxpr bound after the use (JAX does not print such
  /// forward references; a hand-written one may be recursive, which the
  /// builder reports). Null if it is neither.
  const Jaxpr *jaxprOf(const ParamValue &value) const {
    if (const Jaxpr *jaxpr = value.asJaxpr())
      return jaxpr;
    if (value.kind == ParamValue::Kind::Name)
      for (auto &[n, j] : named)
        if (n == value.text)
          return j.get();
    return nullptr;
  }

  //===--- In-memory programs (built from JAX's objects, not text) -------===//
  // They have no text for SMLocs to point into: a node's SMLoc is a handle,
  // `positionHandle(i)` for `positions[i]`, which the builder maps back
  // (positionOf) before it looks for a source buffer.

  /// Makes handles for `count` positions; `positions` is then filled in.
  void reservePositions(size_t count) {
    positions.resize(count);
    handles = std::make_unique<char[]>(count + 1);
  }
  llvm::SMLoc positionHandle(size_t index) const {
    return llvm::SMLoc::getFromPointer(handles.get() + index);
  }
  /// The position `loc` is the handle of, else null (a location in text).
  const SourcePosition *positionOf(llvm::SMLoc loc) const {
    const char *p = loc.getPointer();
    if (!handles || p < handles.get() || p >= handles.get() + positions.size())
      return nullptr;
    return &positions[p - handles.get()];
  }
  std::vector<SourcePosition> positions;
  /// Storage of the strings that ParamValue::spelling refers to.
  std::shared_ptr<llvm::BumpPtrAllocator> strings;

private:
  std::unique_ptr<char[]> handles;
};

} // namespace kiln::jaxpr

#endif // KILN_IMPORTER_JAXPRAST_H
