//===- TdmaCuda.cu - the hand-written CUDA TDMA peer (W2 on the GPU) ------===//
//
// kiln-bench-tdma-cuda f32|f64 a.npy b.npy c.npy d.npy out.npy
//
// Seed 003's TDMA as a CUDA programmer writes it: one thread per system on
// the native layout (systems are rows), the forward sweep keeping cp/dp in a
// per-system scratch row, then the back substitution. Inputs are copied to
// the device once; each timed call is one kernel launch, timed with CUDA
// events (BENCH_REPEAT samples after BENCH_WARMUP untimed calls). Prints
// {"times_s": [...], "threads": 0} and writes the solution to out.npy.
//
//===----------------------------------------------------------------------===//
#include "bench/peers/Npy.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

template <typename T>
__global__ void tdmaKernel(const T *a, const T *b, const T *c, const T *d, T *x, T *cp, T *dp,
                           int systems, int n) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= systems)
    return;
  size_t row = size_t(s) * n;
  T cPrev = 0, dPrev = 0;
  for (int k = 0; k < n; ++k) {
    T den = b[row + k] - a[row + k] * cPrev;
    cPrev = c[row + k] / den;
    dPrev = (d[row + k] - a[row + k] * dPrev) / den;
    cp[row + k] = cPrev;
    dp[row + k] = dPrev;
  }
  T xNext = 0;
  for (int k = n - 1; k >= 0; --k) {
    xNext = dp[row + k] - cp[row + k] * xNext;
    x[row + k] = xNext;
  }
}

void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

int envInt(const char *name, int fallback) {
  const char *v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

template <typename T> int run(char **paths) {
  bench::Array<T> in[4] = {bench::readNpy<T>(paths[0]), bench::readNpy<T>(paths[1]),
                           bench::readNpy<T>(paths[2]), bench::readNpy<T>(paths[3])};
  int systems = int(in[0].shape.at(0)), n = int(in[0].shape.at(1));
  size_t bytes = in[0].data.size() * sizeof(T);
  T *dev[7];
  for (T *&p : dev)
    check(cudaMalloc(&p, bytes), "cudaMalloc");
  for (int i = 0; i < 4; ++i)
    check(cudaMemcpy(dev[i], in[i].data.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  int block = 128, grid = (systems + block - 1) / block;
  auto launch = [&] {
    tdmaKernel<T><<<grid, block>>>(dev[0], dev[1], dev[2], dev[3], dev[4], dev[5], dev[6],
                                   systems, n);
    check(cudaGetLastError(), "launch");
  };
  for (int i = 0, e = envInt("BENCH_WARMUP", 2); i < e; ++i)
    launch();
  check(cudaDeviceSynchronize(), "warmup");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::printf("{\"times_s\": [");
  for (int i = 0, r = envInt("BENCH_REPEAT", 10); i < r; ++i) {
    check(cudaEventRecord(start), "cudaEventRecord");
    launch();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    std::printf("%s%.9g", i ? ", " : "", ms * 1e-3);
  }
  std::printf("], \"threads\": 0}\n");
  bench::Array<T> out{in[0].shape, std::vector<T>(in[0].data.size())};
  check(cudaMemcpy(out.data.data(), dev[4], bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  bench::writeNpy(paths[4], out);
  for (T *p : dev)
    cudaFree(p);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: %s f32|f64 a.npy b.npy c.npy d.npy out.npy\n", argv[0]);
    return 2;
  }
  try {
    return std::string(argv[1]) == "f64" ? run<double>(argv + 2) : run<float>(argv + 2);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "kiln-bench-tdma-cuda: %s\n", e.what());
    return 1;
  }
}
