//===- JaxprPrimitives.h - the primitive registry ---------------*- C++ -*-===//
//
// Every primitive the importer knows maps to one handler in a table built
// once. Each family registers its primitives with one call:
//
//   registerElementwisePrimitives   unary, binary, integer_pow    JaxprElementwise.cpp
//   registerComparisonPrimitives    eq ... ge, select_n           JaxprElementwise.cpp
//   registerReductionPrimitives     reduce_*, argmax, argmin,     JaxprReductions.cpp
//                                   reduce (a reducer jaxpr)
//   registerShapePrimitives         reshape, slice, iota, ...     JaxprShapeOps.cpp
//   registerContractionPrimitives   dot_general, cholesky, lu,    JaxprContraction.cpp
//                                   triangular_solve
//   registerDecompositionPrimitives geqrf, householder_product,   JaxprDecompositions.cpp
//                                   qr, svd, eigh
//   registerConvolutionPrimitives   conv_general_dilated          JaxprConvolution.cpp
//   registerWindowPrimitives        reduce_window(_*),            JaxprWindows.cpp
//                                   select_and_scatter_add,
//                                   select_and_gather_add
//   registerSortPrimitives          sort, top_k                   JaxprSort.cpp
//   registerControlFlowPrimitives   pjit, custom_jvp_call, scan,  JaxprControlFlow.cpp
//                                   while, cond, copy, ...
//   registerIndexingPrimitives      gather, scatter               JaxprIndexing.cpp
//   registerRandomPrimitives        random_bits, random_split,    JaxprRandom.cpp
//                                   random_wrap/unwrap
//   registerSpecialFunctionPrimitives zeta, bessel_i1e, polygamma JaxprSpecialFunctions.cpp
//
// Adding a primitive: write its handler next to its family's, and add one
// `{"name", handler}` entry to that family's register function.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IMPORTER_JAXPRPRIMITIVES_H
#define KILN_IMPORTER_JAXPRPRIMITIVES_H

#include "importer/JaxprBuilder.h"

#include <initializer_list>

namespace kiln::jaxpr {

/// The values an equation produces, or failure after a diagnostic.
using EmitResult = mlir::FailureOr<llvm::SmallVector<mlir::Value>>;

/// One equation being emitted, with the helpers handlers share.
struct PrimitiveEmitter {
  PrimitiveEmitter(JaxprBuilder &builder, const Equation &eqn, Scope &scope);

  JaxprBuilder &builder;
  const Equation &eqn;
  Scope &scope;
  mlir::OpBuilder &b;
  /// The equation's location, for the ops it creates.
  mlir::Location loc;
  /// A result type for ops whose types finish() infers.
  mlir::Type placeholder;

  llvm::StringRef primitive() const { return eqn.primitive; }
  /// Reports `'add' takes 2 operands, got 3` unless min <= #operands <= max.
  mlir::LogicalResult checkArity(size_t min, size_t max);
  /// All operands as they are, after checking their number.
  EmitResult operands(size_t min, size_t max);
  /// `n` operands brought to one shape (JaxprBuilder::elementwiseOperands).
  EmitResult elementwise(size_t n);
  /// The type annotated on the equation's result `i` (`c:f32[3,4] = ...`);
  /// a located error when the jaxpr is untyped.
  mlir::FailureOr<mlir::RankedTensorType> annotatedResultType(unsigned i = 0);
  /// Whether result `i` is annotated as a threefry key array (key<fry>),
  /// whose data has one more dimension (of size 2) than the jaxpr's shape.
  bool resultIsKey(unsigned i = 0) const {
    return i < eqn.outs.size() && eqn.outs[i].type &&
           eqn.outs[i].type->dtype == kThreefryKeyDtype;
  }
  /// Infers the op's result types and verifies it; its results.
  EmitResult finish(mlir::Operation *op);
  /// The same for an intermediate op with one result: that result.
  mlir::FailureOr<mlir::Value> built(mlir::Operation *op);
};

/// Emits the op(s) of one primitive.
using PrimitiveHandler = EmitResult (*)(PrimitiveEmitter &);
using PrimitiveTable = llvm::StringMap<PrimitiveHandler>;

struct PrimitiveEntry {
  llvm::StringRef name;
  PrimitiveHandler handler;
};

/// Adds `entries` to `table`; a name registered twice is a fatal error.
void addPrimitives(PrimitiveTable &table, std::initializer_list<PrimitiveEntry> entries);

/// The handler of `name`; null for a primitive nobody registered.
PrimitiveHandler lookupPrimitive(llvm::StringRef name);

//===--- Families -----------------------------------------------------------===//
void registerElementwisePrimitives(PrimitiveTable &table);
void registerComparisonPrimitives(PrimitiveTable &table);
void registerReductionPrimitives(PrimitiveTable &table);
void registerShapePrimitives(PrimitiveTable &table);
void registerContractionPrimitives(PrimitiveTable &table);
void registerDecompositionPrimitives(PrimitiveTable &table);
void registerConvolutionPrimitives(PrimitiveTable &table);
void registerWindowPrimitives(PrimitiveTable &table);
void registerSortPrimitives(PrimitiveTable &table);
void registerControlFlowPrimitives(PrimitiveTable &table);
void registerIndexingPrimitives(PrimitiveTable &table);
void registerRandomPrimitives(PrimitiveTable &table);
void registerSpecialFunctionPrimitives(PrimitiveTable &table);

//===--- Shared handler shapes ----------------------------------------------===//

/// The lists of a `<callee>(key=(...), ...)` dimension_numbers parameter
/// (GatherDimensionNumbers, ConvDimensionNumbers, ...): `required` keys must
/// be present, `optional` ones default to ().
mlir::FailureOr<llvm::StringMap<llvm::SmallVector<int64_t>>>
dimensionNumbers(PrimitiveEmitter &e, llvm::StringRef callee,
                 llvm::ArrayRef<llvm::StringRef> required, llvm::ArrayRef<llvm::StringRef> optional);

/// The constants reductions start from.
enum class ReductionIdentity { Zero, One, Lowest, Highest };
/// `identity` as a splat of `type`: 0, 1, or the lowest/highest value of
/// the element type (-inf/+inf for floats, the integer extremes, signed or
/// unsigned; false/true for bools).
mlir::Value reductionIdentity(PrimitiveEmitter &e, ReductionIdentity identity,
                              mlir::RankedTensorType type);

/// lax.pad's padding of one dimension: `low` and `high` elements before and
/// after (negative: removed), `interior` between neighbours.
struct Padding {
  int64_t low = 0, high = 0, interior = 0;
};
/// `operand` padded with the rank-0 `padScalar` as lax.pad does, built from
/// structural ops one dimension at a time (no pad op: interior padding
/// interleaves rows by expand, concatenate, reshape and slice); an error at
/// `where` if negative padding removes more than a dimension holds.
mlir::FailureOr<mlir::Value> padTensor(PrimitiveEmitter &e, mlir::Value operand,
                                       mlir::Value padScalar, llvm::ArrayRef<Padding> padding,
                                       llvm::SMLoc where);

/// The operands of a generic reduce or reduce_window: n arrays of one shape,
/// then their n init values (scalars of their dtypes); a located error
/// naming what is wrong otherwise.
struct ReducerOperands {
  llvm::SmallVector<mlir::Value> operands, inits;
};
mlir::FailureOr<ReducerOperands> reducerOperands(PrimitiveEmitter &e);

/// An op built from one operand and an axes parameter named `axesParam`
/// (reductions, transpose, squeeze, expand_dims).
template <typename OpTy>
EmitResult emitWithAxes(PrimitiveEmitter &e, llvm::StringRef axesParam) {
  EmitResult x = e.operands(1, 1);
  mlir::FailureOr<llvm::SmallVector<int64_t>> axes =
      e.builder.intListParam(e.eqn, axesParam);
  if (mlir::failed(x) || mlir::failed(axes))
    return mlir::failure();
  return e.finish(OpTy::create(e.b, e.loc, e.placeholder, (*x)[0], *axes));
}

} // namespace kiln::jaxpr

#endif // KILN_IMPORTER_JAXPRPRIMITIVES_H
