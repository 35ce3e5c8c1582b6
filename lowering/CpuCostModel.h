//===- CpuCostModel.h - the CPU lowering's tuned constants ------*- C++ -*-===//
//
// The heuristic constants of the CPU lowering that were chosen by
// measurement, in one place: vector widths and lane groups of the parallel
// scans, stack and prefetch budgets, and the size thresholds at which a
// pass picks one code shape over another. Each field says what it bounds;
// the measurements that chose each value are in docs/performance.md
// ("CPU cost model: the measurements behind each constant"). Every choice a
// field feeds is between exact lowerings: a value changes speed, compile
// time or stack use, never a result.
//
// Where a pass option already exists (Passes.td), the option keeps its
// meaning and its default is read from the field, as are CpuPipelineOptions'
// (lowering/Passes.h): fixed values, so that kiln-opt prints the same IR on
// every machine. The JIT (kiln::CompileOptions) starts from
// hostCpuCostModel(), the fields that depend on the machine measured on it.
// No MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_CPUCOSTMODEL_H
#define KILN_LOWERING_CPUCOSTMODEL_H

#include <cstdint>

namespace kiln::lowering {

struct CpuCostModel {
  //--- The target's caches -------------------------------------------------
  /// Bytes of one cache line: the parallel scans issue one prefetch per line.
  int64_t cacheLineBytes = 64;

  //--- kiln-scan-to-parallel-loops (ScanToParallelLoops.cpp, ParallelScanEmitter)
  /// Bits of batch elements one parallel-scan iteration runs as vector lanes
  /// in the CPU pipeline (CpuPipelineOptions::scanVectorBits; the pass's own
  /// vector-bits option defaults to 0, one element).
  int64_t scanVectorBits = 512;
  /// Divides those bits for a body of arithmetic only over strided rows
  /// (bound by moving the rows, not by computing).
  int64_t stridedArithmeticVectorBitsDivisor = 2;
  /// Lane groups per iteration when the lanes are contiguous in memory
  /// (lane-groups=0).
  int64_t laneGroupsContiguous = 16;
  /// Lane groups per iteration for a body with a transcendental over
  /// strided rows (lane-groups=0).
  int64_t laneGroupsStridedTranscendental = 2;
  /// Lane groups per iteration for a body of arithmetic over strided rows
  /// (lane-groups=0). Two: the TDMA's division chain leaves the core idle
  /// with one, and with the rows prefetched into L2 (below) a second
  /// group's rows no longer evict them from L1.
  int64_t laneGroupsStridedArithmetic = 2;
  /// Fewest parallel iterations the lane groups may leave the cores: the
  /// groups halve while the batch would give fewer.
  int64_t laneGroupsMinIterations = 64;
  /// Most stack bytes one iteration's scratch tiles (a fused producer's ys)
  /// may take, all lane groups together; past it, fewer groups or no fusion.
  int64_t maxScratchTileBytes = 256 * 1024;
  /// Iterations ahead whose strided rows are prefetched (the pass's
  /// prefetch-distance default; 0: none).
  int64_t scanPrefetchDistance = 1;
  /// Locality hint of those prefetches (2: prefetcht1 on x86, into L2 and
  /// not L1, where the rows in use stay; 3 kept every level and let the
  /// next iteration's rows evict the current ones).
  uint32_t scanPrefetchLocalityHint = 2;
  /// Bits of the target's vector registers, for the block transposes of
  /// strided rows: at twice a row's bits or more, two rows go to a
  /// register and each shuffle moves both (kiln-scan-to-parallel-loops'
  /// register-bits). 512 in the fixed model; the host's in
  /// hostCpuCostModel() (256 on AVX2, where a 512-bit shuffle is split).
  int64_t scanRegisterBits = 512;
  /// Fewest lanes (rows of a block) whose transposes pair rows in
  /// registers: 8 f32 lanes in a 512-bit register ran seed 003's TDMA
  /// 1.08-1.12x faster; 4 f64 lanes measured no gain (0.97-1.0x).
  int64_t pairedTransposeMinLanes = 8;

  //--- kiln-vectorize-matvec (VectorizeMatvec.cpp) --------------------------
  /// Bits of one vector: L = bits / element bits rows per block (vector-bits).
  /// The host's vector registers in hostCpuCostModel(): a block wider than
  /// them is split by the code generator, and the split shuffle tree costs
  /// more than the rows it sums (measured: 0.34 us per MLP call at 512 bits
  /// on an AVX2 host against 0.18-0.22 us at 256).
  int64_t matvecVectorBits = 512;
  /// Largest matvec (multiply-adds) rewritten; larger ones stay parallel
  /// loops (max-macs).
  int64_t matvecMaxMacs = 65536;

  //--- kiln-one-parallel-dimension (OneParallelDimension.cpp) ---------------
  /// Smallest static work (innermost iterations) worth a parallel dispatch;
  /// less runs as plain loops (min-parallel-work).
  int64_t minParallelWork = 65536;
  /// Iterations the parallel dimension is joined up to, so the cores get
  /// even shares (min-parallel-iterations).
  int64_t minParallelIterations = 64;

  //--- kiln-outline-large-functions (OutlineLargeFunctions.cpp) --------------
  /// Operations (nested ones counted) per outlined part of a large function:
  /// LLVM's optimizer and code generator take time superlinear in a
  /// function's size, so a program of thousands of equations compiles as
  /// parts of about this size (max-ops-per-function); 0 never splits.
  int64_t maxOpsPerFunction = 400;

  //--- kiln-lax-to-linalg's dot_general (DotGeneralToRuntime.cpp) -----------
  /// Smallest contraction (multiply-adds) sent to the runtime GEMM; smaller
  /// ones stay in linalg (runtime-gemm-min-macs).
  int64_t runtimeGemmMinMacs = 32768;

  //--- kiln-expand-sort (ExpandSort.cpp) ---------------------------------
  /// Longest axis lax.sort and lax.top_k sort by ranks (n^2 comparisons per
  /// row, elementwise code); longer ones call the runtime's sort. At 16 the
  /// 256 comparisons of a row cost about what the runtime's per-row work
  /// does, and the ranks fuse with their neighbours.
  int64_t sortRankMaxLength = 16;
};

/// The measured defaults.
inline constexpr CpuCostModel kDefaultCpuCostModel{};
constexpr const CpuCostModel &defaultCpuCostModel() { return kDefaultCpuCostModel; }

/// Bits of the host's widest vector registers: 512 with AVX-512F, 256 with
/// AVX, 128 otherwise (SSE2, NEON).
int64_t hostVectorRegisterBits();

/// The defaults with the fields that depend on the host taken from it:
/// matvecVectorBits = hostVectorRegisterBits(). scanVectorBits stays 512 on
/// every host: its lanes are independent dependence chains, not one
/// register (measured on an AVX2 host, TDMA paired with its copy floor:
/// f64 46 % of the floor at 512 bits, 27 % at 256; f32 equal).
const CpuCostModel &hostCpuCostModel();

} // namespace kiln::lowering

#endif // KILN_LOWERING_CPUCOSTMODEL_H
