//===- Registration.h - what Kiln's tools register --------------*- C++ -*-===//
#ifndef KILN_TOOLS_REGISTRATION_H
#define KILN_TOOLS_REGISTRATION_H

#include "compiler/Dialects.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

namespace llvm {
class raw_ostream;
} // namespace llvm
namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace kiln {
/// Upstream passes and Kiln's own passes and pipelines.
void registerAllKilnPasses();
/// What every Kiln tool does before parsing its command line: the dialects
/// into `registry`, the passes, then the plugins named by --plugin in argv
/// (they may register passes and options). False, after an error naming
/// `tool`, when a plugin does not load.
bool registerKilnTool(mlir::DialectRegistry &registry, int argc, char **argv,
                      const char *tool);
/// Appends a textual pipeline to `pm`, in either form: anchored as
/// mlir-opt's --pass-pipeline takes it ("builtin.module(a,func.func(b))"),
/// on pm's op or with pm taking any op (a PassManager's default), or the
/// bare list ("a,func.func(b)"). mlir::parsePassPipeline(text, pm) alone
/// nests an anchored text one level deeper, where it silently runs on
/// nothing. Errors go to `errors`.
llvm::LogicalResult addPassPipeline(mlir::OpPassManager &pm, llvm::StringRef pipeline,
                                    llvm::raw_ostream &errors);

/// How deeply brackets ('(', '[', '{', '<') may nest in an .mlir input.
/// MLIR's parser recurses once (or more) per level, and a few thousand
/// nested regions overflow its stack; real programs stay far below this.
inline constexpr unsigned kMaxMlirNesting = 512;

/// Scans MLIR text (skipping strings and comments) for brackets nested
/// deeper than kMaxMlirNesting; on finding them reports
/// "file:line:col: error: nesting deeper than ..." on `errors` (by default
/// llvm::errs(); null: nowhere), at the bracket one level too deep, and
/// fails. Every tool calls it on an .mlir input before MLIR's parser sees it.
llvm::LogicalResult checkMlirNesting(llvm::StringRef text, llvm::StringRef bufferName,
                                     llvm::raw_ostream *errors);
inline llvm::LogicalResult checkMlirNesting(llvm::StringRef text, llvm::StringRef bufferName) {
  return checkMlirNesting(text, bufferName, &llvm::errs());
}
} // namespace kiln

#endif // KILN_TOOLS_REGISTRATION_H
