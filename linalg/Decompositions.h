//===- Decompositions.h - QR, SVD and symmetric eigendecompositions -*- C++ -*-===//
//
// The matrix decompositions of jax.lax.linalg that have no short exact
// algorithm of their own (geqrf, householder_product, svd, eigh, eig), in
// double precision on one dense row-major matrix, with Eigen. One
// implementation for both layers that need them: the reference
// interpreter (reference/InterpretDecompositions.cpp) and the CPU runtime
// the compiled code calls (runtime/cpu/KilnLinalg.cpp), which rounds to
// f32 once, on store. Header-only, so the runtime library stays free of
// Kiln's other libraries.
//
// Conventions are LAPACK's, as JAX's CPU implementation calls LAPACK:
// geqrf's packed form (R on and above the diagonal, the Householder
// vectors' essential parts below, H_i = I - tau_i v_i v_i^T with
// v_i[i] = 1), which Eigen's HouseholderQR stores identically; singular
// values descending; eigenvalues ascending. Singular and eigenvectors are
// unique up to sign (and within repeated values); the signs here are
// Eigen's, which may differ from LAPACK's: programs that are invariant to
// them (reconstructions, projections, norms) agree.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LINALG_DECOMPOSITIONS_H
#define KILN_LINALG_DECOMPOSITIONS_H

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <Eigen/SVD>

#include <algorithm>
#include <cstdint>

namespace kiln::linalg {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<RowMatrix>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;

/// LAPACK's geqrf: `a` (m x n) becomes R (on and above the diagonal) and
/// the Householder vectors (below); `tau` gets min(m, n) coefficients.
inline void geqrf(double *a, int64_t m, int64_t n, double *tau) {
  MatrixMap matrix(a, m, n);
  Eigen::HouseholderQR<RowMatrix> qr(matrix);
  matrix = qr.matrixQR();
  int64_t k = std::min(m, n);
  for (int64_t i = 0; i < k; ++i)
    tau[i] = qr.hCoeffs()(i);
}

/// LAPACK's orgqr: the first n columns of Q = H_0 ... H_{k-1}, from the
/// vectors below the diagonal of `a` (m x n, m >= n >= k) and `tau` (k),
/// written over `a`.
inline void householderProduct(double *a, int64_t m, int64_t n, const double *tau, int64_t k) {
  MatrixMap matrix(a, m, n);
  RowMatrix vectors = matrix.leftCols(k);
  Eigen::VectorXd coefficients = Eigen::Map<const Eigen::VectorXd>(tau, k);
  Eigen::HouseholderSequence<RowMatrix, Eigen::VectorXd> q(vectors, coefficients);
  q.setLength(k);
  RowMatrix identity = RowMatrix::Identity(m, n);
  matrix = q * identity;
}

/// The singular value decomposition a = U diag(s) V^T of `a` (m x n): `s`
/// gets min(m, n) values, descending; with `u` and `vt` not null, U (m x m
/// if `full`, else m x min(m, n)) and V^T (n x n if `full`, else
/// min(m, n) x n).
inline void svd(const double *a, int64_t m, int64_t n, double *s, double *u, double *vt,
                bool full) {
  ConstMatrixMap matrix(a, m, n);
  int64_t k = std::min(m, n);
  if (!u) {
    Eigen::BDCSVD<RowMatrix> d(matrix);
    Eigen::Map<Eigen::VectorXd>(s, k) = d.singularValues();
    return;
  }
  unsigned options = full ? Eigen::ComputeFullU | Eigen::ComputeFullV
                          : Eigen::ComputeThinU | Eigen::ComputeThinV;
  Eigen::BDCSVD<RowMatrix> d(matrix, options);
  Eigen::Map<Eigen::VectorXd>(s, k) = d.singularValues();
  int64_t uCols = full ? m : k, vtRows = full ? n : k;
  MatrixMap(u, m, uCols) = d.matrixU();
  MatrixMap(vt, vtRows, n) = d.matrixV().transpose();
}

/// The eigendecomposition of the symmetric matrix whose lower (or, with
/// `lower` false, upper) triangle `a` (n x n) holds: `w` gets the n
/// eigenvalues ascending and `v` (n x n) the eigenvectors as columns.
inline void eigh(const double *a, int64_t n, bool lower, double *w, double *v) {
  ConstMatrixMap matrix(a, n, n);
  RowMatrix symmetric(n, n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      symmetric(i, j) = (j <= i) == lower ? matrix(i, j) : matrix(j, i);
  Eigen::SelfAdjointEigenSolver<RowMatrix> d(symmetric);
  Eigen::Map<Eigen::VectorXd>(w, n) = d.eigenvalues();
  MatrixMap(v, n, n) = d.eigenvectors();
}

/// The eigenvalues of the general real matrix `a` (n x n) as real and
/// imaginary parts (`wr`, `wi`, n each; complex conjugate pairs adjacent,
/// in the order of the real Schur form, as LAPACK's geev), and with `vr`
/// and `vi` not null the right eigenvectors as columns (n x n each), each
/// of unit Euclidean norm (their phase is Eigen's, not LAPACK's).
inline void eig(const double *a, int64_t n, double *wr, double *wi, double *vr, double *vi) {
  ConstMatrixMap matrix(a, n, n);
  Eigen::EigenSolver<RowMatrix> d(matrix, /*computeEigenvectors=*/vr != nullptr);
  for (int64_t i = 0; i < n; ++i) {
    wr[i] = d.eigenvalues()(i).real();
    wi[i] = d.eigenvalues()(i).imag();
  }
  if (!vr)
    return;
  Eigen::MatrixXcd vectors = d.eigenvectors();
  for (int64_t j = 0; j < n; ++j) {
    double norm = vectors.col(j).norm();
    if (norm > 0)
      vectors.col(j) /= norm;
  }
  MatrixMap(vr, n, n) = vectors.real();
  MatrixMap(vi, n, n) = vectors.imag();
}

} // namespace kiln::linalg

#endif // KILN_LINALG_DECOMPOSITIONS_H
