//===- JaxprImporter.h - jaxpr text to lax ----------------------*- C++ -*-===//
//
// Reads a jaxpr, exactly as `print(jax.make_jaxpr(f)(...))` writes it, and
// produces a module with one public `func.func` of lax ops (plus one private
// function per distinct pjit body). See docs/importer.md.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IMPORTER_JAXPRIMPORTER_H
#define KILN_IMPORTER_JAXPRIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace kiln {
namespace jaxpr {
struct Program;
} // namespace jaxpr

struct JaxprImportOptions {
  /// Name of the public function made of the main jaxpr.
  std::string entryName = "main";
  /// Types of the main jaxpr's binders (constvars, then invars), e.g.
  /// "f32[10,5,8],f32[30,15,12]". Needed for the untyped format of older JAX;
  /// checked against the annotations of a typed jaxpr.
  std::string inputTypes;
};

/// Imports the main buffer of `sourceMgr`. Every op gets the FileLineColLoc of
/// its equation. On error, emits diagnostics through `context` (pointing into
/// the jaxpr) and returns null; a returned module has been verified.
mlir::OwningOpRef<mlir::ModuleOp> importJaxpr(llvm::SourceMgr &sourceMgr,
                                              mlir::MLIRContext *context,
                                              const JaxprImportOptions &options);

/// Imports a jaxpr built in memory rather than parsed (kiln.jit builds it
/// from JAX's objects: python/JaxprFromPython.cpp); the same builder as
/// importJaxpr, with locations from the program's SourcePositions.
mlir::OwningOpRef<mlir::ModuleOp> importJaxprProgram(const jaxpr::Program &program,
                                                     mlir::MLIRContext *context,
                                                     const JaxprImportOptions &options);

/// Registers the `--import-jaxpr` translation and its options
/// (`--jaxpr-entry-name`, `--jaxpr-input-types`) for mlir-translate drivers.
void registerJaxprImportTranslation();

/// The names of the jaxpr primitives the importer reads, sorted.
std::vector<std::string> importablePrimitives();

} // namespace kiln

#endif // KILN_IMPORTER_JAXPRIMPORTER_H
