//===- InterpretDecompositions.cpp - geqrf, householder_product, svd, eigh ===//
//
// Per matrix of the two trailing dimensions, in double, with the one
// implementation the CPU runtime also calls (linalg/Decompositions.h); the
// declared type's rounding happens once, on store.
//
//===----------------------------------------------------------------------===//
#include "reference/Evaluator.h"

#include "dialect/LaxOps.h"
#include "linalg/Decompositions.h"
#include "llvm/ADT/TypeSwitch.h"

#include <vector>

using namespace mlir;
using namespace kiln;
using namespace kiln::interp;
using namespace kiln::lax;

namespace {

/// Matrix `index` of `t` ([batch..., rows, cols]) as doubles.
std::vector<double> matrixOf(const Tensor &t, int64_t index, int64_t size) {
  std::vector<double> m(size);
  for (int64_t i = 0; i < size; ++i)
    m[i] = t.getFloat(index * size + i);
  return m;
}

void store(Tensor &t, int64_t index, const std::vector<double> &m) {
  int64_t size = m.size();
  for (int64_t i = 0; i < size; ++i)
    t.setFloat(index * size + i, m[i]);
}

/// The number of matrices of m x n in `t` (0 when a matrix is empty).
int64_t countOf(const Tensor &t, int64_t m, int64_t n) { return m * n == 0 ? 0 : t.size() / (m * n); }

std::pair<int64_t, int64_t> dims(const Tensor &t) {
  return {t.shape()[t.rank() - 2], t.shape().back()};
}

SmallVector<Tensor> geqrf(const Evaluator &ev, GeqrfOp op, const Tensor &a) {
  Tensor packed = ev.make(op.getPacked().getType()), taus = ev.make(op.getTaus().getType());
  auto [m, n] = dims(a);
  int64_t k = std::min(m, n);
  std::vector<double> tau(k);
  for (int64_t b = 0; b < countOf(a, m, n); ++b) {
    std::vector<double> x = matrixOf(a, b, m * n);
    linalg::geqrf(x.data(), m, n, tau.data());
    store(packed, b, x);
    store(taus, b, tau);
  }
  return {packed, taus};
}

SmallVector<Tensor> householderProduct(const Evaluator &ev, HouseholderProductOp op,
                                       const Tensor &a, const Tensor &taus) {
  Tensor q = ev.make(op.getType());
  auto [m, n] = dims(a);
  int64_t k = taus.shape().back();
  for (int64_t b = 0; b < countOf(a, m, n); ++b) {
    std::vector<double> x = matrixOf(a, b, m * n), tau = matrixOf(taus, b, k);
    linalg::householderProduct(x.data(), m, n, tau.data(), k);
    store(q, b, x);
  }
  return {q};
}

SmallVector<Tensor> svd(const Evaluator &ev, SvdOp op, const Tensor &a) {
  SmallVector<Tensor> out;
  for (Value r : op.getResults())
    out.push_back(ev.make(r.getType()));
  auto [m, n] = dims(a);
  int64_t k = std::min(m, n);
  bool full = op.getFullMatrices(), uv = op.getComputeUv();
  int64_t uCols = full ? m : k, vtRows = full ? n : k;
  std::vector<double> s(k), u(uv ? m * uCols : 0), vt(uv ? vtRows * n : 0);
  for (int64_t b = 0; b < countOf(a, m, n); ++b) {
    std::vector<double> x = matrixOf(a, b, m * n);
    linalg::svd(x.data(), m, n, s.data(), uv ? u.data() : nullptr, uv ? vt.data() : nullptr,
                full);
    store(out[0], b, s);
    if (uv) {
      store(out[1], b, u);
      store(out[2], b, vt);
    }
  }
  return out;
}

SmallVector<Tensor> eigh(const Evaluator &ev, EighOp op, const Tensor &a) {
  Tensor vectors = ev.make(op.getVectors().getType()), values = ev.make(op.getValues().getType());
  int64_t n = a.shape().back();
  std::vector<double> w(n), v(n * n);
  for (int64_t b = 0; b < countOf(a, n, n); ++b) {
    std::vector<double> x = matrixOf(a, b, n * n);
    linalg::eigh(x.data(), n, op.getLower(), w.data(), v.data());
    store(vectors, b, v);
    store(values, b, w);
  }
  return {vectors, values};
}

SmallVector<Tensor> eig(const Evaluator &ev, EigOp op, const Tensor &a) {
  SmallVector<Tensor> out;
  for (Value r : op.getResults())
    out.push_back(ev.make(r.getType()));
  int64_t n = a.shape().back();
  bool vectors = op.getComputeVectors();
  std::vector<double> wr(n), wi(n), vr(vectors ? n * n : 0), vi(vectors ? n * n : 0);
  for (int64_t b = 0; b < countOf(a, n, n); ++b) {
    std::vector<double> x = matrixOf(a, b, n * n);
    linalg::eig(x.data(), n, wr.data(), wi.data(), vectors ? vr.data() : nullptr,
                vectors ? vi.data() : nullptr);
    store(out[0], b, wr);
    store(out[1], b, wi);
    if (vectors) {
      store(out[2], b, vr);
      store(out[3], b, vi);
    }
  }
  return out;
}

} // namespace

std::optional<SmallVector<Tensor>> Evaluator::evalDecomposition(Operation *op) {
  using R = std::optional<SmallVector<Tensor>>;
  auto in = [&](unsigned i) -> const Tensor & { return lookup(op->getOperand(i)); };
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case([&](LuOp o) -> R { return evalLu(o); })
      .Case([&](GeqrfOp o) -> R { return geqrf(*this, o, in(0)); })
      .Case([&](HouseholderProductOp o) -> R { return householderProduct(*this, o, in(0), in(1)); })
      .Case([&](SvdOp o) -> R { return svd(*this, o, in(0)); })
      .Case([&](EighOp o) -> R { return eigh(*this, o, in(0)); })
      .Case([&](EigOp o) -> R { return eig(*this, o, in(0)); })
      .Default([](Operation *) -> R { return std::nullopt; });
}
