//===- KilnRuntimeCpu.h - C runtime called by JIT-compiled code -*- C++ -*-===//
//
// The functions use MLIR's C interface for memrefs (`llvm.emit_c_interface`):
// a memref argument is a pointer to its descriptor. The descriptor layout is
// spelled here so the runtime needs no MLIR headers.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_CPU_KILNRUNTIMECPU_H
#define KILN_RUNTIME_CPU_KILNRUNTIMECPU_H

#include <cstddef>
#include <cstdint>

/// MLIR's descriptor of a rank-3 memref.
template <typename T> struct KilnMemRef3 {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[3];
  int64_t strides[3];
};

/// MLIR's descriptor of a rank-1 memref.
template <typename T> struct KilnMemRef1 {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
};

extern "C" {

/// C[b] = op(A[b]) * op(B[b]) for every batch b. A is [B, M, K], or [B, K, M]
/// when transA; B is [B, K, N], or [B, N, K] when transB; C is [B, M, N].
/// Any strides; C is overwritten. A batch size of 1 in A or B broadcasts.
void _mlir_ciface_kiln_rt_sgemm(KilnMemRef3<float> *a, KilnMemRef3<float> *b,
                                KilnMemRef3<float> *c, int64_t transA,
                                int64_t transB);
void _mlir_ciface_kiln_rt_dgemm(KilnMemRef3<double> *a, KilnMemRef3<double> *b,
                                KilnMemRef3<double> *c, int64_t transA,
                                int64_t transB);
/// Two to four independent GEMMs as one call (kiln-group-runtime-gemms
/// makes it): (A, B, C) of each, then (transA, transB) of each; no GEMM
/// reads or writes what another writes. They run together on the pool,
/// each in fewer, larger blocks than alone (an RNN step's two products: one
/// per thread). _group3 and _group4 take three and four GEMMs in the same
/// order; kiln_rt_dgemm_group2..4 the same in f64.
void _mlir_ciface_kiln_rt_sgemm_group2(KilnMemRef3<float> *a0, KilnMemRef3<float> *b0,
                                       KilnMemRef3<float> *c0, KilnMemRef3<float> *a1,
                                       KilnMemRef3<float> *b1, KilnMemRef3<float> *c1,
                                       int64_t transA0, int64_t transB0, int64_t transA1,
                                       int64_t transB1);

/// lax.cholesky of each [m, m] matrix of `a` ([B, m, m]) into `out`
/// (KilnLinalg.cpp): the lower factor, a's strict upper triangle, NaN for a
/// matrix that is not positive definite.
void _mlir_ciface_kiln_rt_scholesky(KilnMemRef3<float> *a, KilnMemRef3<float> *out);
void _mlir_ciface_kiln_rt_dcholesky(KilnMemRef3<double> *a, KilnMemRef3<double> *out);
/// lax.lu of each [m, n] matrix of `a`: the factors into `out`, the pivots
/// into `pivots` ([B, 1, min(m, n)]), the row order into `permutation`
/// ([B, 1, m]).
void _mlir_ciface_kiln_rt_slu(KilnMemRef3<float> *a, KilnMemRef3<float> *out,
                              KilnMemRef3<int32_t> *pivots, KilnMemRef3<int32_t> *permutation);
void _mlir_ciface_kiln_rt_dlu(KilnMemRef3<double> *a, KilnMemRef3<double> *out,
                              KilnMemRef3<int32_t> *pivots, KilnMemRef3<int32_t> *permutation);
/// lax.triangular_solve of each matrix of `a` ([B, m, m]) against `b`
/// ([B, m, n] with leftSide, [B, n, m] without) into `out` (b's shape).
void _mlir_ciface_kiln_rt_strsm(KilnMemRef3<float> *a, KilnMemRef3<float> *b,
                                KilnMemRef3<float> *out, int64_t leftSide, int64_t lower,
                                int64_t transposeA, int64_t unitDiagonal);
void _mlir_ciface_kiln_rt_dtrsm(KilnMemRef3<double> *a, KilnMemRef3<double> *b,
                                KilnMemRef3<double> *out, int64_t leftSide, int64_t lower,
                                int64_t transposeA, int64_t unitDiagonal);

/// The GEMM backend of every later call: 0 chooses per shape by measuring
/// both on its first call (the default), 1 Eigen, 2 OpenBLAS (where built
/// with it; Eigen otherwise). $KILN_GEMM_BACKEND (eigen, openblas) sets the
/// initial value.
void kiln_rt_force_gemm_backend(int32_t backend);
/// How many backends this build has: 2 with OpenBLAS, 1 (Eigen only).
int32_t kiln_rt_gemm_backends();

/// Threads the runtime's parallel work (the GEMM, KilnThreads.cpp) may use.
/// The process default: `threads` (0 or less: every CPU of the process's
/// affinity mask); $KILN_NUM_THREADS sets the initial value.
void kiln_rt_set_default_threads(int32_t threads);
/// The calling thread's own bound (0: the process default) for the calls
/// it makes from now on; returns the previous bound.
int32_t kiln_rt_set_thread_limit(int32_t threads);
/// The threads the calling thread's work may use now.
int32_t kiln_rt_threads();
/// Runs `task(context, begin, end)` over ranges covering [0, trips), on the
/// calling thread and the pool's workers, and returns when all have run:
/// the parallel loops (lowering/ParallelLoopsToRuntime.cpp).
void kiln_rt_parallel_for(void (*task)(void *, int64_t, int64_t), void *context, int64_t trips);

/// Heap bytes the compiled code holds now (`live`: allocated through the
/// runtime's allocator, KilnAllocator.cpp, and not freed) and the most it
/// has held (`peak`); with `resetPeak` the peak restarts from now. Either
/// pointer may be null.
void kiln_rt_heap_stats(int64_t *live, int64_t *peak, int32_t resetPeak);

/// lax.geqrf, lax.householder_product, lax.svd (with and without U, V^T),
/// lax.eigh and lax.eig (with and without vectors) of each matrix of `a` ([B, m, n]; vectors are [B, 1, k]),
/// in double with linalg/Decompositions.h, rounded once on store
/// (KilnLinalg.cpp). `s` (f32) and `d` (f64) variants.
#define KILN_DECLARE_DECOMPOSITIONS(prefix, T)                                                  \
  void _mlir_ciface_kiln_rt_##prefix##geqrf(KilnMemRef3<T> *a, KilnMemRef3<T> *out,             \
                                            KilnMemRef3<T> *taus);                              \
  void _mlir_ciface_kiln_rt_##prefix##householder_product(                                      \
      KilnMemRef3<T> *a, KilnMemRef3<T> *taus, KilnMemRef3<T> *out);                            \
  void _mlir_ciface_kiln_rt_##prefix##svd(KilnMemRef3<T> *a, KilnMemRef3<T> *s,                 \
                                          KilnMemRef3<T> *u, KilnMemRef3<T> *vt, int64_t full); \
  void _mlir_ciface_kiln_rt_##prefix##svd_values(KilnMemRef3<T> *a, KilnMemRef3<T> *s);        \
  void _mlir_ciface_kiln_rt_##prefix##eigh(KilnMemRef3<T> *a, KilnMemRef3<T> *vectors,          \
                                           KilnMemRef3<T> *values, int64_t lower);               \
  void _mlir_ciface_kiln_rt_##prefix##eig(KilnMemRef3<T> *a, KilnMemRef3<T> *wr,                \
                                          KilnMemRef3<T> *wi, KilnMemRef3<T> *vr,                \
                                          KilnMemRef3<T> *vi);                                   \
  void _mlir_ciface_kiln_rt_##prefix##eig_values(KilnMemRef3<T> *a, KilnMemRef3<T> *wr,         \
                                                 KilnMemRef3<T> *wi);
KILN_DECLARE_DECOMPOSITIONS(s, float)
KILN_DECLARE_DECOMPOSITIONS(d, double)
#undef KILN_DECLARE_DECOMPOSITIONS

/// What kiln_rt_guarded_call returns.
enum KilnCallStatus : int32_t {
  kKilnCallOk = 0,
  /// An allocation of the compiled code failed.
  kKilnCallOutOfMemory = 1,
  /// A host callback reported failure (its handler keeps the reason).
  kKilnCallCallbackFailed = 2,
};

/// Calls `fn(buffers)` (a compiled entry) on this thread; returns
/// kKilnCallOk, or the reason the call ended early: kKilnCallOutOfMemory,
/// with the size that failed in `*bytesNotAllocated`, or
/// kKilnCallCallbackFailed (the call's temporaries are not freed). Outside
/// such a call a failed allocation or callback aborts with a message
/// (KilnGuardedCall.cpp).
int32_t kiln_rt_guarded_call(void (*fn)(void *const *), void *const *buffers,
                             size_t *bytesNotAllocated);

/// Runs host callback `index` of the program that the caller is running:
/// `buffers` holds a pointer to each operand's data, then to each result's
/// (dense, row-major), to be filled. Returns 0, or nonzero when it failed
/// (the call then ends with kKilnCallCallbackFailed).
typedef int32_t (*KilnHostCallbackFn)(void *context, int64_t index, void *const *buffers);
/// Installs the calling thread's host callback handler (null: none); the
/// previous one goes to `*previous`/`*previousContext` when they are not null.
void kiln_rt_set_host_callback(KilnHostCallbackFn fn, void *context,
                               KilnHostCallbackFn *previous, void **previousContext);
/// lax.host_callback's lowering: calls the installed handler with the
/// pointers in `buffers` (a memref of addresses).
void _mlir_ciface_kiln_rt_host_callback(int64_t index, KilnMemRef1<int64_t> *buffers);

/// The calling thread's floating-point mode (x86-64: MXCSR; 0 elsewhere).
uint32_t kiln_rt_float_mode();
/// Sets the calling thread's floating-point mode to one kiln_rt_float_mode
/// returned.
void kiln_rt_set_float_mode(uint32_t mode);
/// Flushes subnormals to zero on the calling thread, inputs and results, as
/// XLA:CPU does; returns the mode before, for kiln_rt_set_float_mode.
/// Code compiled with flush-subnormals calls the two around its body.
uint32_t kiln_rt_flush_subnormals_begin();

/// One key of lax.sort/lax.top_k (KilnSort.cpp): for each line (o, :, i)
/// of `keys` ([outer, n, inner], signed), its positions sorted by key, ties
/// in position order; the first k into `sorted` ([outer, k, inner]).
void _mlir_ciface_kiln_rt_sort_positions_i32(KilnMemRef3<int32_t> *keys,
                                             KilnMemRef3<int32_t> *sorted);
void _mlir_ciface_kiln_rt_sort_positions_i64(KilnMemRef3<int64_t> *keys,
                                             KilnMemRef3<int32_t> *sorted);
/// The same for a later key: the positions of `order` ([outer, n, inner],
/// the order the less significant keys left; `keys` is indexed by
/// position) sorted by their keys, ties in `order`'s order.
void _mlir_ciface_kiln_rt_sort_order_i32(KilnMemRef3<int32_t> *keys, KilnMemRef3<int32_t> *order,
                                         KilnMemRef3<int32_t> *sorted);
void _mlir_ciface_kiln_rt_sort_order_i64(KilnMemRef3<int64_t> *keys, KilnMemRef3<int32_t> *order,
                                         KilnMemRef3<int32_t> *sorted);
}

#endif // KILN_RUNTIME_CPU_KILNRUNTIMECPU_H
