//===- Evaluator.h - the interpreter's evaluation state ---------*- C++ -*-===//
//
// Internal to the interpreter: value scopes (a scan body sees the values of
// the enclosing region), function calls, and the per-family evaluation
// functions implemented in Interpret*.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_EVALUATOR_H
#define KILN_REFERENCE_EVALUATOR_H

#include "reference/Interpreter.h"

#include "dialect/LaxOps.h"
#include "llvm/ADT/DenseMap.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace kiln::interp {

/// Of two NaNs, the one whose bits are larger as an unsigned integer (a
/// negative NaN, then the larger payload): a choice that does not depend on
/// the operands' order. lax.max and lax.min are commutative ops, which the
/// canonicalizer reorders (constants to the right) and CSE merges: with the
/// first NaN, max(+NaN, reduce_max(-NaNs)) became max(reduce_max(-NaNs),
/// +NaN) and a bitcast of the result changed sign under the exact
/// kiln-scan-to-reduction (tests/differential/regressions/max-nan-order.mlir).
/// The constant folder (LaxFolds.cpp) chooses the same way.
inline double largerNaN(double a, double b) {
  uint64_t x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x >= y ? a : b;
}

/// IEEE 754-2019 maximum/minimum (arith.maximumf), lax.max/lax.min and
/// scatter's max/min as XLA computes them: NaN propagates and -0 < +0, so
/// the result does not depend on the operands' order. The NaN that
/// propagates is the operand itself (of two, largerNaN's), sign and payload
/// included, as IEEE 754-2019 (6.2.3) recommends and as APFloat's
/// maximum/minimum and XLA's CPU code do for one NaN. A canonical
/// NaN here made `min(x, x) -> x` (LaxFolds.cpp) change the bits a
/// bitcast_convert_type of the result exposes: log(-1) is -NaN, min(-NaN,
/// -NaN) was +NaN (tests/differential/regressions/min-max-nan-operand.mlir).
inline double ieeeMaximum(double a, double b) {
  if (std::isnan(a) && std::isnan(b))
    return largerNaN(a, b);
  if (std::isnan(a))
    return a;
  if (std::isnan(b))
    return b;
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline double ieeeMinimum(double a, double b) {
  if (std::isnan(a) && std::isnan(b))
    return largerNaN(a, b);
  if (std::isnan(a))
    return a;
  if (std::isnan(b))
    return b;
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

class Evaluator {
public:
  Evaluator(mlir::ModuleOp module, const InterpreterOptions &options)
      : module(module), options(options) {}

  mlir::FailureOr<llvm::SmallVector<Tensor>> call(mlir::Operation *callee,
                                                  llvm::ArrayRef<Tensor> args);
  /// Runs `block` in a new scope with its arguments from `firstArg` on bound
  /// to `args` (moved in; earlier arguments must be bound in an enclosing
  /// scope); returns the operands of its terminator.
  mlir::FailureOr<llvm::SmallVector<Tensor>> runBlock(mlir::Block &block,
                                                      llvm::SmallVector<Tensor> args,
                                                      unsigned firstArg = 0);

  const Tensor &lookup(mlir::Value v) const;
  /// A zero tensor of `type` computed at this evaluator's precision.
  Tensor make(mlir::Type type) const {
    return Tensor(llvm::cast<mlir::RankedTensorType>(type), roundsFloats());
  }
  /// Whether the op being evaluated rounds its float results to their types
  /// (not under f64Reference, nor for an op marked options.unroundedAttr).
  bool roundsFloats() const { return !options.f64Reference && !unrounded; }

private:
  mlir::LogicalResult evalOp(mlir::Operation *op);
  void bind(mlir::Value v, Tensor t) { scopes.back()[v] = std::move(t); }
  void pushScope() { scopes.emplace_back(); }
  void popScope() { scopes.pop_back(); }

  // Families (Interpret*.cpp). Each returns the op's results, or null
  // (nullopt) when the op is not of the family, or failure after a
  // diagnostic.
  std::optional<mlir::FailureOr<Tensor>> evalElementwise(mlir::Operation *op);
  std::optional<mlir::FailureOr<Tensor>> evalStructure(mlir::Operation *op);
  std::optional<mlir::FailureOr<Tensor>> evalContraction(mlir::Operation *op);
  /// lax.lu's three results (InterpretContraction.cpp).
  llvm::SmallVector<Tensor> evalLu(kiln::lax::LuOp op);
  /// The decompositions with several results (lu, geqrf, svd, eigh) and
  /// householder_product (InterpretDecompositions.cpp): nullopt for other ops.
  std::optional<llvm::SmallVector<Tensor>> evalDecomposition(mlir::Operation *op);
  /// sort and top_k (InterpretSort.cpp): nullopt for other ops.
  std::optional<llvm::SmallVector<Tensor>> evalSort(mlir::Operation *op);
  mlir::FailureOr<llvm::SmallVector<Tensor>> evalScan(lax::ScanOp scan);
  /// while and cond (InterpretControlFlow.cpp): nullopt for other ops.
  std::optional<mlir::FailureOr<llvm::SmallVector<Tensor>>>
  evalControlFlow(mlir::Operation *op);
  /// gather and scatter (InterpretIndexing.cpp).
  std::optional<mlir::FailureOr<Tensor>> evalIndexing(mlir::Operation *op);

  mlir::ModuleOp module;
  InterpreterOptions options;
  /// Nesting of func.call, bounded so that a recursive program fails with a
  /// diagnostic instead of overflowing the stack.
  unsigned callDepth = 0;
  /// The op being evaluated carries options.unroundedAttr.
  bool unrounded = false;
  llvm::SmallVector<llvm::DenseMap<mlir::Value, Tensor>> scopes;
};

/// Unravels flat index `flat` of `shape` into `index`.
inline void unravel(int64_t flat, llvm::ArrayRef<int64_t> shape,
                    llvm::SmallVectorImpl<int64_t> &index) {
  index.resize(shape.size());
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    index[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
}

/// The flat (row-major) position of `index` in a tensor with `strides`.
inline int64_t flatIndex(llvm::ArrayRef<int64_t> index, llvm::ArrayRef<int64_t> strides) {
  int64_t flat = 0;
  for (auto [i, s] : llvm::zip(index, strides))
    flat += i * s;
  return flat;
}

} // namespace kiln::interp

#endif // KILN_REFERENCE_EVALUATOR_H
