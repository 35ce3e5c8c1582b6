//===- Compiler.h - compile lax once, call many times -----------*- C++ -*-===//
//
// kiln::Compiler lowers a lax function through --kiln-lower-cpu (or, for
// Target::Gpu, --kiln-lower-gpu: kernels in a GPU binary, host code that
// launches them) and JITs the host code (LLVM -O3, host CPU) into a
// kiln::Executable. An Executable is called with
// caller-owned, row-major buffers; calls are thread-safe and allocate nothing
// on the heap for up to 32 buffers (the compiled code itself keeps small
// temporaries on the stack; large ones are malloc'ed by the generated code).
//
// The ExecutionEngine and LLVM headers stay in Compiler.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_COMPILER_H
#define KILN_COMPILER_COMPILER_H

#include "lowering/CpuCostModel.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
class MLIRContext;
class Type;
} // namespace mlir

namespace kiln {

enum class ElementKind { F32, F64, F16, BF16, I8, I32, I64, U32, Bool };

/// Bytes per element of `kind` (Bool is one byte, 0 or 1).
size_t elementSize(ElementKind kind);
const char *elementKindName(ElementKind kind);
/// The kind of an MLIR element type (f32, ..., i1 as Bool, ui32 as U32);
/// none for a type the compiled code cannot take.
std::optional<ElementKind> elementKindOf(mlir::Type type);

/// A caller-owned row-major buffer. `shape` points at the caller's (or a
/// TensorSpec's) dimensions: building a view allocates nothing.
struct BufferView {
  void *data = nullptr;
  llvm::ArrayRef<int64_t> shape;
  ElementKind kind = ElementKind::F32;
};

/// The type of one argument or result of the compiled function.
struct TensorSpec {
  std::vector<int64_t> shape;
  ElementKind kind = ElementKind::F32;
  int64_t numElements() const;
  size_t numBytes() const { return numElements() * elementSize(kind); }
};

enum class Target { Cpu, Gpu };

struct CompileOptions {
  /// Where the function runs. Gpu: kernels through NVVM for `gpuChip`,
  /// dot_general through cuBLAS, buffers in device memory (call() copies the
  /// caller's host buffers in and out; callRaw() takes device pointers).
  Target target = Target::Cpu;
  /// GPU architecture ("sm_90"); empty: the device's, else sm_80.
  std::string gpuChip;
  /// Path of libKilnRuntimeGpu.so; empty: $KILN_RUNTIME_GPU, else the one
  /// built beside this library.
  std::string gpuRuntimeLibrary;
  /// LLVM optimisation level of the JIT (0-3).
  unsigned optLevel = 3;
  /// Call the Eigen runtime GEMM (KilnRuntimeCpu) for GEMM-shaped
  /// dot_generals; otherwise every contraction is generated code.
  bool useRuntimeGemm = true;
  /// Smallest contraction (multiply-adds) sent to the runtime GEMM; smaller
  /// ones are generated (vectorized) code without a call.
  int64_t runtimeGemmMinMacs = lowering::defaultCpuCostModel().runtimeGemmMinMacs;
  /// Path of libKilnRuntimeCpu.so; empty: $KILN_RUNTIME_CPU, else the one
  /// built beside this library.
  std::string runtimeLibrary;
  /// Load MLIR's async runtime, which parallel loops call.
  bool loadAsyncRuntime = true;
  /// Batch-parallel scans as one parallel loop over the batch (exact).
  bool parallelScans = true;
  /// Bits of batch elements each parallel-scan iteration runs as vector
  /// lanes; 0: one element at a time.
  int64_t scanVectorBits = lowering::defaultCpuCostModel().scanVectorBits;
  /// Groups of lanes each parallel-scan iteration runs, their steps
  /// interleaved (independent dependence chains for the core); 0: chosen
  /// per scan.
  int64_t scanLaneGroups = 0;
  /// Bits of the vector registers the parallel scans' block transposes
  /// may fill (two rows to a register when they fit); the host's.
  int64_t scanRegisterBits = lowering::hostCpuCostModel().scanRegisterBits;
  /// Smallest static work (iterations) of a loop run on all cores; less runs
  /// as plain loops (kiln-one-parallel-dimension).
  int64_t minParallelWork = lowering::defaultCpuCostModel().minParallelWork;
  /// Bits of one vector of the small matvecs' row blocks (a dense layer of
  /// batch 1: kiln-vectorize-matvec); the host's vector registers.
  int64_t matvecVectorBits = lowering::hostCpuCostModel().matvecVectorBits;
  /// f32 sin/cos/exp/log/tanh as vectorizable polynomials (a few ulp).
  bool approximateMath = true;
  /// Let LLVM's code generator fuse a multiply and an add into one FMA
  /// instruction (one rounding instead of two), as XLA:CPU does by default
  /// (C's -ffp-contract=fast). Off: every op rounds as written, as in the
  /// reference interpreter. Host code only (GPU kernels are unaffected).
  bool fpContract = false;
  /// Keep the lowered LLVM-dialect module text (Executable::loweredIR()).
  /// Bypasses the compile cache (a cached entry has no IR to show).
  bool keepLoweredIR = false;
  /// Print the IR after every pass of the lowering to stderr (what
  /// `kiln-run --print-ir-after-all` shows past its own rewrites). Bypasses
  /// the compile cache, as keepLoweredIR.
  bool printIRAfterAll = false;
  /// Directory of the persistent compile cache (CompileCache.h); empty: no
  /// cache. defaultCompileCacheDir() gives the user's cache directory.
  std::string cacheDir;
};

/// `options` with every size threshold of the CPU cost model that picks a
/// code shape at its minimum: every GEMM-shaped dot_general through the
/// runtime GEMM, every parallel loop dispatched on the async runtime, two
/// lane groups per parallel-scan iteration, block transposes with two rows
/// to a 512-bit register (whatever the host). Those thresholds choose between
/// exact lowerings (lowering/CpuCostModel.h), so small programs -- the
/// differential tests' -- take the code paths of large ones and must compute
/// the same (kiln-difftest's jit-min-thresholds, kiln-run --min-thresholds).
CompileOptions withMinimumThresholds(CompileOptions options);

/// What the compile cache did for one compile.
struct CacheOutcome {
  enum Kind { Off, Hit, Miss, Rebuilt } kind = Off;
  std::string entry;     ///< the entry's file (all but Off)
  std::string invalid;   ///< Rebuilt: why the old entry was not used
  std::string notStored; ///< Miss, Rebuilt: why the new entry was not written
  /// Off although a cache directory was given: why (an untrusted directory,
  /// an LLVM option that changes code, an unknown build).
  std::string offReason;
  /// "off", "hit", "miss" or "rebuilt".
  const char *kindName() const;
  /// "off" (with " (WHY)" when offReason is set), "hit PATH", "miss PATH"
  /// or "rebuilt PATH: INVALID", then
  /// " (not stored: WHY)" when the entry could not be written.
  std::string describe() const;
};

class Executable {
public:
  ~Executable();
  Executable(const Executable &) = delete;
  Executable &operator=(const Executable &) = delete;

  const std::vector<TensorSpec> &inputs() const;
  const std::vector<TensorSpec> &outputs() const;
  const std::string &loweredIR() const;
  /// What the compile cache did when this executable was compiled.
  const CacheOutcome &cacheOutcome() const;
  /// The target it was compiled for.
  Target target() const;

  /// Runs the function: reads `inputs`, writes `outputs` (all caller-owned,
  /// in host memory). Checks counts, shapes and element kinds; returns false
  /// and sets `error` on a mismatch, or when the GPU reports an error.
  /// Thread-safe.
  bool call(llvm::ArrayRef<BufferView> inputs, llvm::ArrayRef<BufferView> outputs,
            std::string *error = nullptr) const;

  /// The fastest entry: `buffers` holds the data pointers of the inputs then
  /// the outputs, in order, with the shapes of inputs()/outputs(). No checks.
  /// For Target::Gpu the pointers are device pointers.
  void callRaw(void *const *buffers) const { fn_(buffers); }

private:
  friend class Compiler;
  struct Impl;
  explicit Executable(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  void (*fn_)(void *const *) = nullptr;
};

/// Kiln's build as the compile cache's key names it: the real path (no
/// links, no `..`), size, inode and modification time of the libraries that
/// hold the compiler and the lowering, so that another build (a rebuilt
/// Kiln, an ASan build) never reuses this one's entries. Empty when those
/// files cannot be found; nothing is cached then.
std::string compileCacheBuildIdentity();

class Compiler {
public:
  explicit Compiler(CompileOptions options = {});
  ~Compiler();

  /// Compiles function `entry` of `module` (lax, tensors of static shape).
  /// `module` is not modified. Returns null and sets `error` on failure
  /// (diagnostics included).
  std::unique_ptr<Executable> compile(mlir::ModuleOp module,
                                      const std::string &entry,
                                      std::string *error = nullptr) const;
  /// Parses `source` (lax MLIR text) in a private context and compiles.
  std::unique_ptr<Executable> compileSource(const std::string &source,
                                            const std::string &entry,
                                            std::string *error = nullptr) const;

  /// Registers what compile() needs (lax and upstream dialects, the
  /// translations to LLVM IR) in `context`.
  static void prepareContext(mlir::MLIRContext &context);

private:
  /// Links `object` into a new Executable; null with `why` on failure.
  std::unique_ptr<Executable> link(std::unique_ptr<Executable::Impl> impl,
                                   const std::string &object,
                                   std::string &why) const;
  CompileOptions options_;
};

} // namespace kiln

#endif // KILN_COMPILER_COMPILER_H
