//===- W3Kernels.cpp - seed 002's MSE kernels, hand-written ---------------===//
//
// Compiled with -ffast-math so that cos vectorises through glibc's libmvec and
// the sum is reassociated, as a performance-minded hand-written kernel would
// be (the float64 reference check in the harness bounds the error).
//
//===----------------------------------------------------------------------===//
#include "bench/peers/W3Kernels.h"

#include <cmath>

namespace {
/// sum((y - f(x))^2) over the elements, in one parallel pass.
template <typename F> double sumSquaredError(const float *x, const float *y, int64_t n, F f) {
  double sum = 0;
#pragma omp parallel for simd reduction(+ : sum) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    float e = y[i] - f(x[i]);
    sum += e * e;
  }
  return sum;
}
} // namespace

double w3FusedSum(const float *xs, const float *y, int64_t n) {
  return sumSquaredError(xs, y, n, [](float x) { return std::cos(x); });
}

double w3ReadFloorSum(const float *xs, const float *y, int64_t n) {
  return sumSquaredError(xs, y, n, [](float x) { return x; });
}

double w3MaterializedSum(const float *xs, const float *y, float *ys, int64_t n) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i)
    ys[i] = std::cos(xs[i]);
  return w3ReadFloorSum(ys, y, n);
}
