//===- W3Kernels.h - seed 002's MSE kernels, hand-written -------*- C++ -*-===//
#ifndef KILN_BENCH_PEERS_W3KERNELS_H
#define KILN_BENCH_PEERS_W3KERNELS_H

#include <cstdint>

/// sum((y - cos(xs))^2) in one pass: what the push-up makes of the program.
double w3FusedSum(const float *xs, const float *y, int64_t n);
/// sum((y - xs)^2): the same reads without the cosine, the machine's floor
/// for any one-pass version.
double w3ReadFloorSum(const float *xs, const float *y, int64_t n);
/// The same, first materialising ys = cos(xs) (the scan's stacked output).
double w3MaterializedSum(const float *xs, const float *y, float *ys, int64_t n);

#endif // KILN_BENCH_PEERS_W3KERNELS_H
