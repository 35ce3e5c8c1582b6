//===- JaxprDecompositions.cpp - QR, SVD and eigh -------------------------===//
//
// geqrf, householder_product, svd and eigh map to their lax ops. qr is
// what JAX's own lowering of it computes (jax/_src/lax/linalg.py,
// _qr_lowering), written in lax: geqrf, Q from householder_product of the
// packed vectors (the first m columns when m < n; padded with zero columns
// to m x m for full_matrices), R the upper triangle of the packed matrix
// (its first n rows unless full_matrices).
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxOps.h"

using namespace mlir;
using namespace kiln::jaxpr;
using namespace kiln::lax;
using llvm::SmallVector;

namespace {

/// The operand's matrices as [batch..., m, n], or a located error.
FailureOr<RankedTensorType> matrices(PrimitiveEmitter &e, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() < 2 || !isa<FloatType>(type.getElementType()))
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'" << e.primitive() << "' takes float matrices (rank >= 2), got " << type;
  return type;
}

/// `type` with its trailing `drop` dimensions replaced by `tail`.
RankedTensorType batchOf(RankedTensorType type, unsigned drop, ArrayRef<int64_t> tail) {
  SmallVector<int64_t> shape(type.getShape().drop_back(drop));
  shape.append(tail.begin(), tail.end());
  return RankedTensorType::get(shape, type.getElementType());
}

std::pair<int64_t, int64_t> matrixDims(RankedTensorType t) {
  return {t.getDimSize(t.getRank() - 2), t.getDimSize(t.getRank() - 1)};
}

/// `type`'s matrices must be square; `name` is the primitive as the user
/// wrote it (kiln_eig is JAX's eig).
LogicalResult requireSquare(PrimitiveEmitter &e, RankedTensorType type, StringRef name) {
  auto [m, n] = matrixDims(type);
  if (m != n)
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'" << name << "' takes square matrices, got " << type;
  return success();
}

FailureOr<GeqrfOp> geqrf(PrimitiveEmitter &e, Value a) {
  FailureOr<RankedTensorType> type = matrices(e, a);
  if (failed(type))
    return failure();
  auto [m, n] = matrixDims(*type);
  auto op = GeqrfOp::create(e.b, e.loc, *type, batchOf(*type, 2, {std::min(m, n)}), a);
  if (failed(e.builder.finishOp(op)))
    return failure();
  return op;
}

/// geqrf a: the packed factors and the coefficients.
EmitResult emitGeqrf(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  if (failed(x))
    return failure();
  FailureOr<GeqrfOp> op = geqrf(e, (*x)[0]);
  if (failed(op))
    return failure();
  return SmallVector<Value>(op->getResults());
}

/// householder_product a taus.
EmitResult emitHouseholderProduct(PrimitiveEmitter &e) {
  EmitResult x = e.operands(2, 2);
  if (failed(x) || failed(matrices(e, (*x)[0])))
    return failure();
  return e.finish(HouseholderProductOp::create(e.b, e.loc, (*x)[0].getType(), (*x)[0],
                                                 (*x)[1]));
}

/// `v` [batch..., r, c] sliced to its first `rows` rows and `cols` columns.
FailureOr<Value> topLeft(PrimitiveEmitter &e, Value v, int64_t rows, int64_t cols) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> start(rank, 0), limit(type.getShape()), step(rank, 1);
  limit[rank - 2] = rows;
  limit[rank - 1] = cols;
  return e.built(SliceOp::create(e.b, e.loc, e.placeholder, v, start, limit, step));
}

/// The upper triangle of `v` (jnp.triu: zero below the diagonal).
FailureOr<Value> upperTriangle(PrimitiveEmitter &e, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  auto i32 = RankedTensorType::get(type.getShape(), e.b.getI32Type());
  Value row = IotaOp::create(e.b, e.loc, i32, rank - 2);
  Value col = IotaOp::create(e.b, e.loc, i32, rank - 1);
  FailureOr<Value> below =
      e.built(CompareOp::create(e.b, e.loc, e.placeholder, ComparisonDirection::GT, row, col));
  if (failed(below))
    return failure();
  Value zero = ConstantOp::create(e.b, e.loc, type, 0.0);
  return e.built(SelectNOp::create(e.b, e.loc, e.placeholder, *below, ValueRange{v, zero}));
}

/// qr[full_matrices pivoting use_magma] a: (q, r), as JAX lowers it.
EmitResult emitQr(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  FailureOr<bool> full = e.builder.boolParam(e.eqn, "full_matrices", true);
  FailureOr<bool> pivoting = e.builder.boolParam(e.eqn, "pivoting", false);
  if (failed(x) || failed(full) || failed(pivoting))
    return failure();
  if (*pivoting)
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'qr' with pivoting=True (column-pivoted QR, geqp3) is not supported";
  FailureOr<GeqrfOp> factored = geqrf(e, (*x)[0]);
  if (failed(factored))
    return failure();
  auto type = cast<RankedTensorType>((*x)[0].getType());
  auto [m, n] = matrixDims(type);
  Value packed = factored->getPacked(), taus = factored->getTaus();
  FailureOr<Value> vectors = packed, r = packed;
  if (m < n) {
    vectors = topLeft(e, packed, m, m);
  } else if (*full && m > n) {
    SmallVector<Padding> padding(type.getRank());
    padding.back().high = m - n;
    Value zero = ConstantOp::create(e.b, e.loc, RankedTensorType::get({}, type.getElementType()),
                                    0.0);
    vectors = padTensor(e, packed, zero, padding, e.eqn.primitiveLoc);
  } else if (!*full) {
    r = topLeft(e, packed, n, n);
  }
  if (failed(vectors) || failed(r))
    return failure();
  auto q = HouseholderProductOp::create(e.b, e.loc, vectors->getType(), *vectors, taus);
  if (failed(e.builder.finishOp(q)))
    return failure();
  FailureOr<Value> upper = upperTriangle(e, *r);
  if (failed(upper))
    return failure();
  return SmallVector<Value>{q.getResult(), *upper};
}

/// `a`'s matrices (matrices()) for svd and eigh, which Kiln computes whole:
/// a subset_by_index other than None is a located error naming `values`.
FailureOr<RankedTensorType> wholeDecomposition(PrimitiveEmitter &e, Value a, StringRef values) {
  if (const Param *subset = e.eqn.findParam("subset_by_index"))
    if (subset->value.text != "None")
      return e.builder.emitError(subset->loc)
             << "'" << e.primitive() << "' with subset_by_index (a subset of the " << values
             << ") is not supported";
  return matrices(e, a);
}

/// svd[full_matrices compute_uv subset_by_index algorithm] a: s, then u
/// and vt with compute_uv.
EmitResult emitSvd(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  FailureOr<bool> full = e.builder.boolParam(e.eqn, "full_matrices", false);
  FailureOr<bool> computeUv = e.builder.boolParam(e.eqn, "compute_uv", true);
  if (failed(x) || failed(full) || failed(computeUv))
    return failure();
  FailureOr<RankedTensorType> type = wholeDecomposition(e, (*x)[0], "singular values");
  if (failed(type))
    return failure();
  auto [m, n] = matrixDims(*type);
  int64_t k = std::min(m, n);
  SmallVector<Type> types{batchOf(*type, 2, {k})};
  if (*computeUv) {
    types.push_back(batchOf(*type, 2, {m, *full ? m : k}));
    types.push_back(batchOf(*type, 2, {*full ? n : k, n}));
  }
  return e.finish(SvdOp::create(e.b, e.loc, types, (*x)[0], *full, *computeUv));
}

/// eigh[lower sort_eigenvalues subset_by_index algorithm] a: vectors,
/// values (ascending).
EmitResult emitEigh(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  FailureOr<bool> lower = e.builder.boolParam(e.eqn, "lower", true);
  FailureOr<bool> sorted = e.builder.boolParam(e.eqn, "sort_eigenvalues", true);
  if (failed(x) || failed(lower) || failed(sorted))
    return failure();
  FailureOr<RankedTensorType> type = wholeDecomposition(e, (*x)[0], "eigenvalues");
  if (failed(type))
    return failure();
  // sort_eigenvalues=False lets LAPACK return them in any order; it returns
  // them ascending, as Kiln does.
  if (failed(requireSquare(e, *type, "eigh")))
    return failure();
  int64_t n = matrixDims(*type).second;
  return e.finish(EighOp::create(e.b, e.loc, *type, batchOf(*type, 2, {n}), (*x)[0], *lower));
}

/// kiln_eig[vectors] a: what kiln.jit writes for JAX's eig, whose results
/// are complex (kiln/_complex.py): the eigenvalues' real and imaginary
/// parts, then with `vectors` the right eigenvectors' (lax.eig).
EmitResult emitKilnEig(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  FailureOr<bool> vectors = e.builder.boolParam(e.eqn, "vectors", false);
  if (failed(x) || failed(vectors))
    return failure();
  FailureOr<RankedTensorType> type = matrices(e, (*x)[0]);
  if (failed(type))
    return failure();
  if (failed(requireSquare(e, *type, "eig")))
    return failure();
  RankedTensorType values = batchOf(*type, 2, {matrixDims(*type).second});
  SmallVector<Type> types{values, values};
  if (*vectors)
    types.append({*type, *type});
  return e.finish(EigOp::create(e.b, e.loc, types, (*x)[0], *vectors));
}

} // namespace

void kiln::jaxpr::registerDecompositionPrimitives(PrimitiveTable &table) {
  addPrimitives(table, {
      {"geqrf", emitGeqrf},
      {"householder_product", emitHouseholderProduct},
      {"qr", emitQr},
      {"svd", emitSvd},
      {"eigh", emitEigh},
      {"kiln_eig", emitKilnEig},
  });
}
