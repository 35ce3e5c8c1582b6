//===- JitRun.h - running and timing compiled functions for the tools -*- C++ -*-===//
//
// What kiln-run, kiln-bench and the tests do around a kiln::Executable:
// time repeated calls, run a module's function once on given inputs, format
// the timings, convert between interpreter tensors and the JIT's buffers
// (compare them with reference/Comparison.h). Only the Executable API is
// used.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_JITRUN_H
#define KILN_TOOLS_JITRUN_H

#include "compiler/Compiler.h"
#include "reference/Tensor.h"

namespace kiln {

/// Timings of repeated calls of one Executable on fixed buffers.
struct CallTimings {
  double minSeconds = 0, medianSeconds = 0;
  /// Median cost of the checked call() over callRaw() (shape checks and
  /// pointer packing), measured on the same buffers.
  double callOverheadSeconds = 0;
  int repeat = 0;
};

/// Runs `exe` `warmup` times untimed, then `repeat` (>= 1) timed calls.
/// Returns false (and sets `error`) when the buffers do not match.
bool timeExecutable(const Executable &exe,
                    const std::vector<BufferView> &inputs,
                    const std::vector<BufferView> &outputs, int warmup,
                    int repeat, CallTimings &timings,
                    std::string *error = nullptr);

/// kiln-run's JIT mode as a library call: compile @`entry` once, run it on
/// `inputs` into freshly allocated outputs, then (when `repeat` > 0) time
/// `repeat` more calls after `warmup` untimed ones.
struct JitRunResult {
  std::vector<TensorSpec> outputSpecs;
  /// Row-major bytes of each output.
  std::vector<std::vector<char>> outputs;
  double compileSeconds = 0;
  /// Executable::cacheOutcome() of the compiled function.
  CacheOutcome cache;
  /// Executable::phaseTimes() of the compiled function.
  CompilePhaseTimes phases;
  CallTimings timings; // repeat == 0: not timed
};
bool runJit(mlir::ModuleOp module, const std::string &entry,
            const std::vector<BufferView> &inputs, int warmup, int repeat,
            JitRunResult &result, std::string *error = nullptr,
            const CompileOptions &options = {});
/// One line: "jit: min ... us, median ... us, call overhead ... us (N runs),
/// compile ... ms".
std::string formatTimings(const JitRunResult &result);

/// The elements of `t` as host bytes in the compiled code's layout
/// (row-major, each element as its ElementKind stores it); at least one byte,
/// so that an empty tensor still has a buffer to point at.
std::vector<char> bytesOf(const interp::Tensor &t);
/// The tensor of type `type` whose elements `bytes` holds in that layout.
interp::Tensor tensorOf(mlir::RankedTensorType type, const std::vector<char> &bytes);
/// Views of `tensors` for Executable::call: their bytes (bytesOf) kept in
/// `storage`, their shapes those of their types.
std::vector<BufferView> viewsOf(llvm::ArrayRef<interp::Tensor> tensors,
                                std::vector<std::vector<char>> &storage);

} // namespace kiln

#endif // KILN_TOOLS_JITRUN_H
