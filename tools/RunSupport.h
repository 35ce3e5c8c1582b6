//===- RunSupport.h - loading, inputs and outputs for kiln-run --*- C++ -*-===//
#ifndef KILN_TOOLS_RUNSUPPORT_H
#define KILN_TOOLS_RUNSUPPORT_H

#include "reference/Tensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace kiln::run {

/// Parses an .mlir file, or imports a .jaxpr file (`jaxprInputTypes` for the
/// untyped format). Diagnostics go through `sourceMgr`'s handler.
mlir::OwningOpRef<mlir::ModuleOp> loadProgram(llvm::StringRef path, llvm::SourceMgr &sourceMgr,
                                              mlir::MLIRContext *context,
                                              llvm::StringRef jaxprInputTypes);

/// What --passes, --rules, --rule-tags and --print-ir-after-all ask for.
struct RewriteFlags {
  std::string passes;
  std::vector<std::string> ruleFiles;
  std::vector<std::string> ruleTags;
  bool printIR = false;
};
/// Runs the --passes pipeline, then the rules (when rule files or plugin
/// patterns ask for them), on `module`; errors name `tool`.
mlir::LogicalResult applyRewrites(mlir::ModuleOp module, mlir::MLIRContext &context,
                                  const RewriteFlags &flags, llvm::StringRef tool);

/// Fails, at the op, when `module` calls back into a host program
/// (lax.host_callback): only kiln.jit has the Python callbacks to run.
mlir::LogicalResult refuseHostCallbacks(mlir::ModuleOp module, llvm::StringRef tool);

/// The function to run: `requested`, or the module's only public function.
mlir::FailureOr<std::string> chooseEntry(mlir::ModuleOp module, llvm::StringRef requested);

/// Reads comma-separated .npy `paths` for `entry`, checking count and types.
mlir::FailureOr<llvm::SmallVector<interp::Tensor>>
readInputs(mlir::ModuleOp module, llvm::StringRef entry, llvm::StringRef paths);

/// Reads comma-separated .npy `paths` as expected outputs of `entry`
/// (--expect), one per result, checking count and types.
mlir::FailureOr<llvm::SmallVector<interp::Tensor>>
readExpected(mlir::ModuleOp module, llvm::StringRef entry, llvm::StringRef paths);

/// One line per output: index, type, min, max, mean, first values.
void printSummary(llvm::raw_ostream &os, llvm::ArrayRef<interp::Tensor> outputs);

/// Writes DIR/<stem><i>.npy (out0.npy, ...) for every tensor of `outputs`.
mlir::LogicalResult writeOutputs(llvm::StringRef dir, llvm::ArrayRef<interp::Tensor> outputs,
                                 llvm::StringRef stem = "out");

} // namespace kiln::run

#endif // KILN_TOOLS_RUNSUPPORT_H
