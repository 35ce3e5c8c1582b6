//===- Checker.h - kiln-difftest's checks of one program ---------*- C++ -*-===//
//
// What kiln-difftest (and the kiln-fuzz-generated target) checks for a
// program (docs/soundness.md): the reference interpreter runs the original
// program on its inputs, and its outputs are the oracle of every comparison:
//
//   - each Kiln lax -> lax pass alone, --kiln-optimize and --canonicalize
//     (the pass pipeline, the result printed and parsed again, then the
//     interpreter): exact ones bit for bit (k = 0), reassociating ones
//     within the error model (k = 64), where a difference only in where inf
//     or NaN is is allowed (the tag allows regrouping that overflows);
//   - the CPU JIT (kiln::Compiler, no cache) within the error model, on the
//     program without the outputs the generator marked unstable
//     (`// jit-unstable-outputs: 1,3`: discrete functions of approximate
//     values, which the model cannot compare), and bit for bit (k = 0) on
//     the float outputs it marked exact (`// jit-exact-outputs: 0,2`: IEEE
//     basic operations and data movement only, no reordered sum, no
//     library function);
//   - the same JIT with the cost model's size thresholds at their minimum
//     (jit-min-thresholds: every GEMM-shaped dot_general through the
//     runtime GEMM, every parallel loop dispatched on the runtime's pool,
//     two lane groups per parallel-scan iteration), so that the generator's
//     small programs take the code paths of large ones. Those thresholds
//     choose between exact lowerings (lowering/CpuCostModel.h), so the
//     results must agree just the same.
//
// Every comparison goes through reference/Comparison.h, the one
// implementation of the error model. A finding is a mismatch, or an error on
// a valid program (a pass or the lowering failing, the interpreter
// refusing). Crashes and hangs end the process; the step in flight is
// announced first (a progress line, and the stack dump's note).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_DIFFTEST_CHECKER_H
#define KILN_TOOLS_KILN_DIFFTEST_CHECKER_H

#include "tools/kiln-difftest/ProgramGenerator.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::difftest {

/// A comparison of a pass pipeline's result with the oracle: the error
/// model's k (0: bit for bit).
struct PassComparison {
  std::string name, pipeline;
  double k;
};

/// run.py's comparisons, in its order. The JIT comes after them.
std::vector<PassComparison> defaultPassComparisons();
inline constexpr llvm::StringLiteral kJitComparison = "jit";
inline constexpr llvm::StringLiteral kJitMinThresholdsComparison = "jit-min-thresholds";

/// One program to check and where its inputs come from: .npy files, random
/// inputs, or the generator's values.
struct Program {
  std::string name;       // the directory, FILE#index, or seedN
  std::string bufferName; // for diagnostics
  std::string text;
  std::vector<std::string> inputFiles; // .npy, one per argument of the entry
  std::optional<uint64_t> randomSeed;  // instead of inputFiles
  std::optional<std::vector<GeneratedInput>> generatedInputs; // instead of both
  /// Whether jit-min-thresholds runs on it (when the Checker runs it at all).
  bool minThresholds = true;
};

struct Finding {
  std::string comparison, kind, detail;
};

struct ProgramReport {
  std::string name;
  unsigned comparisons = 0;
  std::string skipped; // why a comparison did not run
  std::vector<Finding> findings;
};

/// Checks programs one after the other. They share an MLIRContext, made
/// anew every kProgramsPerContext programs: loading every dialect into a
/// fresh context and destroying it took 9 % of a generated program's check,
/// and a context that lived for a whole campaign would keep every
/// attribute and type its programs uniqued.
class Checker {
public:
  /// `progress`, when given, gets a JSON line before each step.
  /// `jit`, `jitMinThresholds`: whether the two JIT comparisons run (the
  /// second only on programs whose `minThresholds` is set).
  Checker(mlir::DialectRegistry &registry, std::vector<PassComparison> passes, bool jit,
          bool jitMinThresholds, llvm::raw_ostream *progress = nullptr)
      : registry(registry), passes(std::move(passes)), jit(jit),
        jitMinThresholds(jitMinThresholds), progress(progress) {}

  ProgramReport check(const Program &program);

private:
  void start(const Program &program, llvm::StringRef step);
  /// `unstable`: the outputs a tagged (k > 0) pass comparison leaves out.
  std::optional<Finding> checkPass(const PassComparison &pass, mlir::ModuleOp original,
                                   llvm::StringRef entry, llvm::ArrayRef<interp::Tensor> inputs,
                                   llvm::ArrayRef<interp::Tensor> reference,
                                   const llvm::SmallDenseSet<unsigned> &unstable);
  /// The JIT comparisons `names` (kJitComparison, kJitMinThresholdsComparison)
  /// on one view of the program; appends their findings to `report`.
  void checkJit(const Program &program, mlir::ModuleOp original, llvm::StringRef entry,
                llvm::ArrayRef<interp::Tensor> inputs, llvm::ArrayRef<interp::Tensor> reference,
                llvm::ArrayRef<llvm::StringRef> names, ProgramReport &report);
  /// The diagnostics gathered since the last call.
  std::string takeDiagnostics() {
    std::string text = std::move(diagnostics);
    diagnostics.clear();
    return text;
  }

  static constexpr unsigned kProgramsPerContext = 32;
  /// The context of the next program (made anew when due).
  mlir::MLIRContext &nextContext();

  mlir::DialectRegistry &registry;
  std::unique_ptr<mlir::MLIRContext> context;
  unsigned contextUses = 0;
  std::vector<PassComparison> passes;
  bool jit, jitMinThresholds;
  llvm::raw_ostream *progress;
  std::string diagnostics;
  /// What the stack dump says should a step crash (a fixed buffer: the
  /// PrettyStackTraceString holds on to its address).
  char stepNote[512] = "kiln-difftest: starting";
};

} // namespace kiln::difftest

#endif // KILN_TOOLS_KILN_DIFFTEST_CHECKER_H
