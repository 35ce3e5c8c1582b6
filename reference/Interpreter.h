//===- Interpreter.h - the reference interpreter of lax ---------*- C++ -*-===//
//
// Evaluates lax programs on the host, op by op, with JAX's semantics: the
// reference every rewrite and every lowering of Kiln is checked against.
// Clarity over speed (flat loops over row-major data), but benchmark-sized
// programs run in seconds.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_INTERPRETER_H
#define KILN_REFERENCE_INTERPRETER_H

#include "reference/Tensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace kiln::interp {

struct InterpreterOptions {
  /// Evaluate every float op in double precision (no rounding to the
  /// declared type): a float64 reference for the same program.
  bool f64Reference = false;
  /// When not empty: ops that carry a (discardable) attribute of this name
  /// compute their float results in double, unrounded, although the rest of
  /// the program rounds to its types. magnitudes() (Magnitude.cpp) marks its
  /// shadow computations so: the original computation then follows the
  /// reference's own (rounded) values, the shadows do not overflow their
  /// nominal type.
  llvm::StringRef unroundedAttr;
};

/// Runs function `entry` of `module` on `inputs`. Unknown entry, wrong
/// inputs, or an op the interpreter cannot evaluate are reported as
/// diagnostics (at the op) and return failure.
mlir::FailureOr<llvm::SmallVector<Tensor>> interpret(mlir::ModuleOp module,
                                                     llvm::StringRef entry,
                                                     llvm::ArrayRef<Tensor> inputs,
                                                     const InterpreterOptions &options = {});

/// Random inputs for `entry`'s arguments (see Tensor::random), seeded per
/// argument from `seed`; failure if there is no such function.
mlir::FailureOr<llvm::SmallVector<Tensor>>
randomInputs(mlir::ModuleOp module, llvm::StringRef entry, uint64_t seed, bool positive = false);

} // namespace kiln::interp

#endif // KILN_REFERENCE_INTERPRETER_H
