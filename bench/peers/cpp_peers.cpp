//===- cpp_peers.cpp - hand-written C++/Eigen peers of the benchmarks -----===//
//
// kiln-bench-peers WORKLOAD ARGS...: reads inputs from .npy, runs the kernel
// `warmup` times untimed then `repeat` times timed, writes the output .npy and
// prints one JSON line {"times_s": [...]} for bench/harness.py.
//
//   w1-eigen  W A OUT                 seed 000: out[b,i] = sum_k A[b,k] W[i,k]
//   w2-cpp    f32|f64 A B C D OUT     seed 003: TDMA, native (systems, n) layout
//   w2-copy   f32|f64 A B C D OUT     roofline: out = a + b + c + d (4 reads, 1 write)
//   w3-fused  XS Y OUT                seed 002: mean((y - cos(xs))^2), one pass
//   w3-materialized XS Y OUT          same, materialising cos(xs) first
//   w3-read   XS Y OUT                roofline: mean((y - xs)^2), xs and y read once
//   w4-eigen  X W1 B1 W2 B2 W3 B3 OUT seed 004: fixed-size MLP, latency per call
//
// Each is compiled with -O3 -march=native -fopenmp; OpenMP threads follow
// OMP_NUM_THREADS.
//
//===----------------------------------------------------------------------===//
#include "bench/peers/Npy.h"
#include "bench/peers/W3Kernels.h"

#include <Eigen/Dense>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>

using namespace bench;

namespace {

int repeatCount = 10, warmupCount = 2;

void timeIt(const std::function<void()> &kernel) {
  // `warmupCount` calls and at least 20 ms, as kiln-bench.
  auto warmStart = std::chrono::steady_clock::now();
  for (int i = 0; i < warmupCount || (std::chrono::steady_clock::now() - warmStart <
                                          std::chrono::milliseconds(20) &&
                                      i < 100000);
       ++i)
    kernel();
  std::cout << "{\"times_s\": [";
  for (int i = 0; i < repeatCount; ++i) {
    auto start = std::chrono::steady_clock::now();
    kernel();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << (i ? ", " : "") << s;
  }
  std::cout << "], \"threads\": " << omp_get_max_threads() << "}" << std::endl;
}

int w1Eigen(char **argv) {
  auto w = readNpy<float>(argv[0]), a = readNpy<float>(argv[1]);
  int64_t m = w.shape[0], k = w.shape[1], batch = a.size() / k;
  Array<float> out{{a.shape[0], a.shape[1], m}, std::vector<float>(batch * m)};
  using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const RowMajor> W(w.data.data(), m, k), A(a.data.data(), batch, k);
  Eigen::Map<RowMajor> O(out.data.data(), batch, m);
  timeIt([&] { O.noalias() = A * W.transpose(); });
  writeNpy(argv[2], out);
  return 0;
}

/// TDMA on rows: each system is one contiguous row of length n; threads take
/// whole systems.
template <typename T> int w2Tdma(char **argv, bool copyOnly) {
  auto a = readNpy<T>(argv[0]), b = readNpy<T>(argv[1]), c = readNpy<T>(argv[2]),
       d = readNpy<T>(argv[3]);
  int64_t systems = a.shape[0], n = a.shape[1];
  Array<T> out{a.shape, std::vector<T>(a.size())};
  const T *A = a.data.data(), *B = b.data.data(), *C = c.data.data(), *D = d.data.data();
  T *X = out.data.data();
  if (copyOnly) {
    timeIt([&] {
#pragma omp parallel for schedule(static)
      for (int64_t i = 0; i < systems * n; ++i)
        X[i] = A[i] + B[i] + C[i] + D[i];
    });
  } else {
    timeIt([&] {
#pragma omp parallel
      {
        std::vector<T> cp(n), dp(n);
#pragma omp for schedule(static)
        for (int64_t s = 0; s < systems; ++s) {
          const T *as = A + s * n, *bs = B + s * n, *cs = C + s * n, *ds = D + s * n;
          T *xs = X + s * n;
          T lcp = 0, ldp = 0;
          for (int64_t i = 0; i < n; ++i) {
            T inv = T(1) / (bs[i] - as[i] * lcp);
            cp[i] = lcp = cs[i] * inv;
            dp[i] = ldp = (ds[i] - as[i] * ldp) * inv;
          }
          T x = 0;
          for (int64_t i = n - 1; i >= 0; --i)
            xs[i] = x = dp[i] - cp[i] * x;
        }
      }
    });
  }
  writeNpy(argv[4], out);
  return 0;
}

int w3(char **argv, const std::string &kind) {
  auto xs = readNpy<float>(argv[0]), y = readNpy<float>(argv[1]);
  int64_t total = xs.size();
  Array<float> out{{}, {0.0f}};
  const bool materialized = kind == "w3-materialized";
  std::vector<float> ys(materialized ? total : 0);
  timeIt([&] {
    const float *x = xs.data.data(), *yv = y.data.data();
    double sum = materialized       ? w3MaterializedSum(x, yv, ys.data(), total)
                 : kind == "w3-read" ? w3ReadFloorSum(x, yv, total)
                                     : w3FusedSum(x, yv, total);
    out.data[0] = float(sum / total);
  });
  writeNpy(argv[2], out);
  return 0;
}

int w4Eigen(char **argv) {
  auto x = readNpy<float>(argv[0]), w1 = readNpy<float>(argv[1]), b1 = readNpy<float>(argv[2]),
       w2 = readNpy<float>(argv[3]), b2 = readNpy<float>(argv[4]), w3 = readNpy<float>(argv[5]),
       b3 = readNpy<float>(argv[6]);
  using RowMajor64x4 = Eigen::Matrix<float, 64, 4, Eigen::RowMajor>;
  using RowMajor64x64 = Eigen::Matrix<float, 64, 64, Eigen::RowMajor>;
  using RowMajor2x64 = Eigen::Matrix<float, 2, 64, Eigen::RowMajor>;
  RowMajor64x4 W1 = Eigen::Map<RowMajor64x4>(w1.data.data());
  RowMajor64x64 W2 = Eigen::Map<RowMajor64x64>(w2.data.data());
  RowMajor2x64 W3 = Eigen::Map<RowMajor2x64>(w3.data.data());
  Eigen::Matrix<float, 64, 1> B1 = Eigen::Map<Eigen::Matrix<float, 64, 1>>(b1.data.data());
  Eigen::Matrix<float, 64, 1> B2 = Eigen::Map<Eigen::Matrix<float, 64, 1>>(b2.data.data());
  Eigen::Matrix<float, 2, 1> B3 = Eigen::Map<Eigen::Matrix<float, 2, 1>>(b3.data.data());
  Eigen::Matrix<float, 4, 1> X = Eigen::Map<Eigen::Matrix<float, 4, 1>>(x.data.data());
  Eigen::Matrix<float, 2, 1> Y;
  const int calls = 1000000;
  // One timed sample = `calls` calls; the harness divides by the count.
  timeIt([&] {
    for (int i = 0; i < calls; ++i) {
      Eigen::Matrix<float, 64, 1> h1 = (W1 * X + B1).cwiseMax(0.0f);
      Eigen::Matrix<float, 64, 1> h2 = (W2 * h1 + B2).cwiseMax(0.0f);
      Y.noalias() = W3 * h2 + B3;
      asm volatile("" : : "r"(Y.data()) : "memory");
      X[0] += 0.0f * Y[0]; // a dependency between calls, as in a real loop
    }
  });
  Array<float> out{{2}, {Y[0], Y[1]}};
  writeNpy(argv[7], out);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << "usage: kiln-bench-peers WORKLOAD ARGS... (see the source header)\n";
    return 1;
  }
  if (const char *r = std::getenv("BENCH_REPEAT"))
    repeatCount = std::max(1, std::atoi(r));
  if (const char *w = std::getenv("BENCH_WARMUP"))
    warmupCount = std::max(0, std::atoi(w));
  std::string workload = argv[1];
  char **args = argv + 2;
  try {
    if (workload == "w1-eigen")
      return w1Eigen(args);
    if (workload == "w2-cpp" || workload == "w2-copy") {
      bool copyOnly = workload == "w2-copy";
      return std::string(args[0]) == "f64" ? w2Tdma<double>(args + 1, copyOnly)
                                           : w2Tdma<float>(args + 1, copyOnly);
    }
    if (workload == "w3-fused" || workload == "w3-materialized" || workload == "w3-read")
      return w3(args, workload);
    if (workload == "w4-eigen")
      return w4Eigen(args);
  } catch (const std::exception &e) {
    std::cerr << "kiln-bench-peers: " << e.what() << "\n";
    return 1;
  }
  std::cerr << "kiln-bench-peers: unknown workload '" << workload << "'\n";
  return 1;
}
