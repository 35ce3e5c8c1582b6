//===- Comparison.h - the one error model for comparing results -*- C++ -*-===//
//
// Every comparison of computed results in Kiln goes through here: kiln-run
// --check (JIT vs interpreter) and --expect (vs outputs from elsewhere, e.g.
// jax.jit), kiln-verify-rules (a rule's rewrite vs the original), the
// GoogleTests, and through kiln-run the JAX corpus. The model
// (docs/interpreter.md, "Comparing results"):
//
//   floats: |got_i - ref_i| <= k * (eps * (|ref_i| + mag_i) + tiny) + slack_i
//
// where eps and tiny are the machine epsilon and the smallest normal number
// of the element type, mag_i the magnitude of what was summed into element i
// (magnitudes(): the interpreter's run of the program's magnitude version;
// where unknown, the output's largest finite |ref|), k = 64 by default and
// slack_i = atol + rtol * |ref_i| (0 by default; only for approximate math).
// NaN must be at exactly the reference's NaN positions, +-inf exactly at its
// same infinities. Integers and booleans compare exactly.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_COMPARISON_H
#define KILN_REFERENCE_COMPARISON_H

#include "reference/Tensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace kiln::interp {

/// The parameters of the error model.
struct ErrorModel {
  /// The bound's multiple of eps (and of tiny). 0 (with no slack) asks for
  /// identical values: equal, zeros of the same sign, NaN where NaN (NaN
  /// payloads are not compared). With a bound > 0, +0 and -0 are equal.
  double k = 64;
  /// The multiple for f16 and bf16 elements: min(k, narrowK). The JIT
  /// computes each narrow op in f32 and rounds it once, as the interpreter
  /// rounds its double result once, so the two differ by an ulp where a
  /// rounding falls differently, not by 64 of them: at k = 64 a bf16
  /// bound was about |ref| + mag itself (a 50 % error passed; a dot summed
  /// in bf16 instead of f32 was 3 ulps off and passed). A narrow value
  /// widened before it is returned is judged at k (its type is the wider).
  double narrowK = 4;
  /// Extra slack added to every float element's bound: atol + rtol * |ref|.
  /// 0 by default; for approximate math only (e.g. GPU intrinsics).
  double rtol = 0, atol = 0;
};

/// Machine epsilon (2^-23 for f32) and smallest normal number (2^-126 for
/// f32) of float type `element`.
double epsilonOf(mlir::Type element);
double tinyOf(mlir::Type element);

/// One element of a comparison, for reports.
struct ElementReport {
  int64_t index = -1; // flat, row-major
  double got = 0, ref = 0;
  double error = 0; // |got - ref| (inf for a NaN or infinity mismatch)
  double bound = 0; // what the model allows (0 for integers)
  double ratio = 0; // error / bound: <= 1 passes; inf for an exact mismatch
  double mag = 0;   // the mag_i the bound used
  /// Unbounded by the model and judged against the float64 run (then `ref`
  /// is the float64 value).
  bool againstF64 = false;
};

/// How one output compared with its reference.
struct OutputComparison {
  /// Non-empty when the types differ (then nothing else was compared).
  std::string typeMismatch;
  mlir::RankedTensorType type;
  int64_t numElements = 0;
  /// Elements over their bound.
  int64_t numFailures = 0;
  /// Finite elements whose mag fell back to the output's scale (mag
  /// unknown, non-finite or not given).
  int64_t numFallbacks = 0;
  /// Elements the model bounds nothing for (mag +inf: an operand's error
  /// reaches the edge of a function's domain, or S overflowed). With a
  /// float64 run of the program (compareOutput's `f64`), each is judged
  /// against it instead (numUnboundedJudged); otherwise any value, NaN
  /// included, passes, unless the reference is an infinity (k > 0).
  int64_t numUnbounded = 0;
  /// Unbounded elements judged against the float64 run: a finite result
  /// must be within max(16 |rounded - ref64|, level max(|ref64|, scale64))
  /// + k tiny of ref64, where `rounded` is the interpreter's (rounded)
  /// value, `scale64` the output's median |ref64| (an element small because
  /// it cancelled carries its terms' error), and
  /// `level` is cbrt(eps) or 16 times the output's median relative
  /// distance of the interpreter from the float64 run (the precision it was
  /// computed in): no further from the float64 value than a few times the
  /// rounded interpreter is. Adam's m / (sqrt(v) + eps) is unbounded by the
  /// model but well conditioned. A non-finite result or float64 value stays
  /// unjudged (passes): an approximate sin(FLT_MAX) may be 0, and
  /// sin(x) / sin(x) then NaN.
  int64_t numUnboundedJudged = 0;
  /// The output's scale: its largest finite |ref| (the fallback mag).
  double scale = 0;
  /// The element with the largest error / bound (index -1: all equal), and
  /// the first element over its bound (index -1: none).
  ElementReport worst, firstFailure;

  bool ok() const { return typeMismatch.empty() && numFailures == 0; }
  /// One line: "matches (worst ...)" or "DIFFERS (...)", after "output N: ".
  void print(llvm::raw_ostream &os, llvm::StringRef refName = "reference") const;
};

/// The comparison of all outputs of a function.
struct Comparison {
  /// Non-empty when the numbers of outputs differ.
  std::string countMismatch;
  llvm::SmallVector<OutputComparison> outputs;

  bool ok() const;
  /// Whether every output that fails is one of `skipped` (and the counts
  /// agree).
  bool okExcept(const llvm::SmallDenseSet<unsigned> &skipped) const;
  /// The largest error / bound over all outputs but `skipped` (inf for any
  /// exact mismatch).
  double worst(const llvm::SmallDenseSet<unsigned> &skipped = {}) const;
  /// "output N: matches (...)" per output, then "worst error: R x bound";
  /// `refName` names the reference in the lines ("reference", "expected").
  void print(llvm::raw_ostream &os, llvm::StringRef refName = "reference") const;
  /// The first line of print() that reports a failure ("" when ok()).
  std::string firstProblem(llvm::StringRef refName = "reference") const;
  /// Whether any output has elements the model cannot bound (then a float64
  /// run of the program lets compareOutputs judge them).
  bool anyUnbounded() const;
};

/// Compares `got` with `ref` (same type) under `model`. `mag`, when given,
/// is the magnitude of each element's terms (same shape, any float type;
/// see magnitudes()); null or a NaN element uses the fallback; +inf means
/// unbounded (see OutputComparison::numUnbounded).
/// `f64` (optional): the interpreter's float64 run's output, and `rounded`
/// the interpreter's own (default: `ref`), for the unbounded elements
/// (OutputComparison::numUnboundedJudged).
OutputComparison compareOutput(const Tensor &got, const Tensor &ref, const Tensor *mag = nullptr,
                               const ErrorModel &model = {}, const Tensor *f64 = nullptr,
                               const Tensor *rounded = nullptr);

/// The outputs of @main that a program's text marks with a line
/// `// jit-unstable-outputs: 1,3` (tools/kiln-difftest's generator):
/// discrete functions of approximate values (a comparison, a conversion to
/// an integer, a bitcast of a computed float), which an approximate
/// computation -- the JIT, a pass or a rule tagged as reassociating -- may
/// change by any amount, and which the error model therefore cannot judge.
llvm::SmallDenseSet<unsigned> unstableOutputs(llvm::StringRef text);
inline constexpr llvm::StringLiteral kUnstableOutputsMarker = "// jit-unstable-outputs:";

/// The float outputs of @main that a program's text marks with a line
/// `// jit-exact-outputs: 0,2` (tools/kiln-difftest's generator): computed
/// by IEEE basic operations and data movement only (no sum in another
/// order, no library function), which the JIT must compute bit for bit as
/// the interpreter does (zeros' signs included, NaN payloads aside), so the
/// JIT comparison asks for identical values there (k = 0), whatever the
/// element type: at k = 64 a bf16 result within half of |ref| + mag, any
/// result of the reference's sign, would pass.
llvm::SmallDenseSet<unsigned> exactOutputs(llvm::StringRef text);
inline constexpr llvm::StringLiteral kExactOutputsMarker = "// jit-exact-outputs:";

/// Compares every output; `mags` is empty or has one tensor per output.
/// `f64`, when not empty, is the interpreter's float64 run of the program
/// (InterpreterOptions::f64Reference), one tensor per output: the unbounded
/// elements are judged against it (OutputComparison::numUnboundedJudged);
/// `rounded` the interpreter's outputs where `ref` is not (--expect).
Comparison compareOutputs(llvm::ArrayRef<Tensor> got, llvm::ArrayRef<Tensor> ref,
                          llvm::ArrayRef<Tensor> mags, const ErrorModel &model = {},
                          llvm::ArrayRef<Tensor> f64 = {}, llvm::ArrayRef<Tensor> rounded = {});

/// The magnitudes mag_i of every float output of @`entry` on `inputs`: the
/// reference interpreter's float64 run of the function's magnitude version,
/// which computes beside every float value v a bound S(v) >= |v| of the
/// terms it was made of (|x| for an input, S(a) + S(b) for a + b and a - b,
/// dot_general and reduce_sum of the S of their operands, first-order
/// propagation |f'(x)| S(x) + |f(x)| for smooth functions, NaN = unknown for
/// anything else; Magnitude.cpp and docs/interpreter.md list every rule).
/// One tensor per output (a non-float output gets its own values, unused).
/// Failure, with `error` set, if the magnitude version cannot be built or
/// run; callers then compare with the fallback.
mlir::FailureOr<llvm::SmallVector<Tensor>> magnitudes(mlir::ModuleOp module, llvm::StringRef entry,
                                                      llvm::ArrayRef<Tensor> inputs,
                                                      std::string &error);

/// The magnitude version of @`entry` (magnitudes() runs it): a copy of
/// `module` with a new public function, named in `function`, that takes
/// @`entry`'s inputs and returns S of each float result; null, with `error`
/// set, on failure. For tests and for looking at what magnitudes() does.
mlir::OwningOpRef<mlir::ModuleOp> magnitudeModule(mlir::ModuleOp module, llvm::StringRef entry,
                                                  std::string &function, std::string &error);

} // namespace kiln::interp

#endif // KILN_REFERENCE_COMPARISON_H
