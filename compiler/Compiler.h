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

#include "lowering/CpuPipelineOptions.h"

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
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace kiln {

/// An element type of a compiled function's arguments and results: one
/// enumerator per row of ElementKinds.def.
enum class ElementKind {
#define KILN_ELEMENT_KIND(Kind, name, bytes, Class, NumpyType) Kind,
#include "compiler/ElementKinds.def"
};
/// Every ElementKind, in ElementKinds.def's order.
llvm::ArrayRef<ElementKind> allElementKinds();

/// How an element's bytes are read.
enum class ElementClass { Float, Signed, Unsigned, Bool };
ElementClass elementClass(ElementKind kind);
inline bool isIntegerKind(ElementKind kind) {
  ElementClass c = elementClass(kind);
  return c == ElementClass::Signed || c == ElementClass::Unsigned;
}

/// Bytes per element of `kind` (Bool is one byte, 0 or 1).
size_t elementSize(ElementKind kind);
/// JAX's short dtype name of `kind` (f32, u8, bool, ...).
const char *elementKindName(ElementKind kind);
/// The kind of an MLIR element type (f32, ..., i1 as Bool, ui32 as U32);
/// none for a type the compiled code cannot take.
std::optional<ElementKind> elementKindOf(mlir::Type type);
/// An integer or Bool element at `p` of `kind`, sign- or zero-extended
/// (a u64 above 2^63 - 1 comes back as its two's complement bits).
int64_t loadIntElement(const void *p, ElementKind kind);
/// Stores `v` wrapped to `kind`'s width at `p` (integers and Bool).
void storeIntElement(void *p, ElementKind kind, int64_t v);

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

/// The machine an object is compiled for. By default the host, as the JIT
/// links it; ahead-of-time objects (kiln-compile) name a CPU of the host's
/// architecture ("x86-64-v3") so that they run on other machines, and are
/// position independent, to go into a shared library.
struct ObjectTarget {
  std::string cpu = "host"; ///< "host" or an LLVM CPU name of the host's triple
  bool positionIndependent = false;
};

/// What kiln::Compiler compiles with: the CPU pipeline's options
/// (lowering/CpuPipelineOptions.def) and its own (compiler/CompileOptions.def),
/// each declared once there with its default and description.
struct CompileOptions : CpuPipelineOptions {
  /// The pipeline's defaults, but the vector widths of the host the JIT
  /// compiles for (scanRegisterBits, matvecVectorBits: hostCpuCostModel()).
  CompileOptions();
#define KILN_COMPILE_OPTION(TYPE, FIELD, DEFAULT, KEYED, DESCRIPTION) TYPE FIELD = DEFAULT;
#include "compiler/CompileOptions.def"
};

/// Everything a compiled object depends on, as text (the compile cache
/// hashes it into the entry's key): the module after rewrites (without
/// locations), the entry, the target with its resolved `gpuChip`, every
/// option that changes code (all of CpuPipelineOptions.def, the KEYED ones
/// of CompileOptions.def), Kiln's build, LLVM and the host CPU.
std::string compileCacheKeyText(mlir::ModuleOp module, const std::string &entry,
                                const CompileOptions &options, const std::string &gpuChip,
                                const std::string &buildIdentity);

/// `options` with every size threshold of the CPU cost model that picks a
/// code shape at its minimum: every GEMM-shaped dot_general through the
/// runtime GEMM, every parallel loop dispatched on the runtime's pool, two
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

/// Seconds each phase of one compile took (wall clock); a cache hit skips
/// all but the link.
struct CompilePhaseTimes {
  double laxToLinalg = 0; ///< lax -> linalg/tensor (kiln-lax-to-linalg ...)
  double toLLVM = 0;      ///< bufferization and linalg -> LLVM dialect
  double codegen = 0;     ///< LLVM IR, -O<n>, machine code (HostJit)
  double link = 0;        ///< loading the object, resolving the runtime
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
  /// How long each phase of this executable's compile took.
  const CompilePhaseTimes &phaseTimes() const;
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
  /// An allocation of the compiled code that fails aborts the process with a
  /// message (callRawChecked reports it instead).
  void callRaw(void *const *buffers) const { fn_(buffers); }
  /// callRaw, but a failed allocation of the compiled code (a temporary
  /// too large for the machine) returns false with `error` set instead of
  /// aborting; what the call had allocated is then not freed. Costs a
  /// sigsetjmp per call (CPU; for Target::Gpu the same as callRaw).
  bool callRawChecked(void *const *buffers, std::string *error = nullptr) const;

  /// The handler of the program's host callbacks (lax.host_callback): called
  /// on the calling thread as `fn(context, index, pointers)`, with a pointer
  /// to each operand's data then to each result's; nonzero ends the call.
  struct HostCallbacks {
    int32_t (*fn)(void *context, int64_t index, void *const *buffers) = nullptr;
    void *context = nullptr;
  };
  /// What one call runs with, on the calling thread for its duration.
  struct CallOptions {
    /// The program's host callbacks (none: fn is null).
    HostCallbacks callbacks;
    /// The most threads the runtime's parallel work (the GEMM) may use;
    /// 0: the process default (every CPU, or $KILN_NUM_THREADS).
    int32_t threads = 0;
  };
  /// callRawChecked with `options` (a failed callback: false, the handler
  /// knows why). CPU only.
  bool callWith(void *const *buffers, const CallOptions &options,
                std::string *error = nullptr) const;

private:
  friend class Compiler;
  struct Impl;
  explicit Executable(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  void (*fn_)(void *const *) = nullptr;
};

/// The runtime library that code compiled with `options` calls
/// (libKilnRuntimeCpu.so or, for Target::Gpu, libKilnRuntimeGpu.so): the
/// configured path, else $KILN_RUNTIME_CPU / $KILN_RUNTIME_GPU, else the one
/// built beside Kiln; empty when there is none (the GPU runtime without
/// CUDA's headers).
std::string runtimeLibraryPath(const CompileOptions &options);

/// Kiln's build as the compile cache's key names it: the real path (no
/// links, no `..`), size, inode and modification time of the libraries that
/// hold the compiler and the lowering, so that another build (a rebuilt
/// Kiln, an ASan build) never reuses this one's entries. Empty when those
/// files cannot be found; nothing is cached then.
std::string compileCacheBuildIdentity();

/// A function compiled ahead of time (kiln-compile): a relocatable object
/// that defines `__kiln_call(void *const *buffers)` (the destination-passing
/// entry of Executable::callRaw: inputs then outputs; device pointers for the
/// GPU) and, where the code has global constructors (a GPU object's kernel
/// module load), `__kiln_init` and `__kiln_fini`, which must be called
/// before the first call and after the last. Its undefined symbols resolve
/// against the runtime library of its target and libc/libm only: a CPU
/// object runs its loops on the calling thread.
struct CompiledObject {
  std::string object;
  std::vector<TensorSpec> inputs, outputs;
  Target target = Target::Cpu;
  std::string gpuChip; ///< Target::Gpu: the kernels' architecture
};

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

  /// Compiles function `entry` of `module` to an object for `target`
  /// (ahead of time: no JIT, no cache, no device asked for a GPU object,
  /// whose chip is gpuChip, else sm_80). With Target::Cpu the options should
  /// keep every loop on the calling thread (minParallelWork at its maximum).
  std::optional<CompiledObject> compileObject(mlir::ModuleOp module, const std::string &entry,
                                              const ObjectTarget &target,
                                              std::string *error = nullptr) const;

  /// Registers what compile() needs (lax and upstream dialects, the
  /// translations to LLVM IR) in `context`.
  static void prepareContext(mlir::MLIRContext &context);

private:
  /// The lowering of `fn` (the entry of `module`, a private clone, with the
  /// given specs) to an object: the back half of compile() and
  /// compileObject(). False with `error` on failure.
  bool lowerToObject(mlir::ModuleOp module, mlir::func::FuncOp fn,
                     const std::vector<TensorSpec> &inputs,
                     const std::vector<TensorSpec> &outputs, const std::string &gpuChip,
                     const ObjectTarget &target, CompilePhaseTimes &phases,
                     std::string *loweredIR, std::string &object, std::string &error) const;
  /// Links `object` into a new Executable; null with `why` on failure.
  std::unique_ptr<Executable> link(std::unique_ptr<Executable::Impl> impl,
                                   const std::string &object,
                                   std::string &why) const;
  CompileOptions options_;
};

} // namespace kiln

#endif // KILN_COMPILER_COMPILER_H
