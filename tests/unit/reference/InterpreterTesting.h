//===- InterpreterTesting.h - GoogleTest helpers for the interpreter -*- C++ -*-===//
//
// Header-only helpers for GoogleTests that check programs with the reference
// interpreter: parse MLIR text with lax/func/arith loaded, run a function
// (failing the test on any diagnostic), compare results under the error model
// of reference/Comparison.h, and check that two functions agree on the same
// random inputs.
//
//   OwningOpRef<ModuleOp> before = parseModule(ctx, beforeText);
//   OwningOpRef<ModuleOp> after = parseModule(ctx, afterText);
//   CompareOptions options;
//   options.seed = 1;
//   options.k = 0; // identical results
//   expectSameResults(*before, "f", *after, "f", options);
//
// Only include this from tests: it includes <gtest/gtest.h>.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_INTERPRETERTESTING_H
#define KILN_REFERENCE_INTERPRETERTESTING_H

#include "dialect/LaxDialect.h"
#include "reference/Comparison.h"
#include "reference/Interpreter.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <string>

namespace kiln::interp::testing {

struct CompareOptions {
  /// Seed of the random inputs (see randomInputs).
  uint64_t seed = 0;
  /// The error model (reference/Comparison.h): float elements match when
  /// |b - a| <= k (eps (|a| + mag) + tiny) + atol + rtol |a|, with mag from
  /// the magnitude run of the first function; k = 0 (and no slack) asks for
  /// identical results. NaN must match NaN, infinities the same infinity;
  /// integers are exact.
  double k = ErrorModel().k;
  /// Extra slack (0 by default: the model alone).
  double rtol = 0;
  double atol = 0;
  /// Random floats in [0.5, 1.5] instead of [-1, 1].
  bool positive = false;
  /// Run both functions in the float64 reference mode.
  bool f64Reference = false;
};

/// Loads the dialects the interpreter evaluates.
inline void loadInterpreterDialects(mlir::MLIRContext &context) {
  context.loadDialect<kiln::lax::LaxDialect, mlir::func::FuncDialect,
                      mlir::arith::ArithDialect>();
}

/// Parses `source` (lax/func/arith); null, with a test failure carrying the
/// parser's diagnostics, when it does not parse or verify.
inline mlir::OwningOpRef<mlir::ModuleOp> parseModule(mlir::MLIRContext &context,
                                                     llvm::StringRef source) {
  loadInterpreterDialects(context);
  std::string messages;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    messages += d.str() + "\n";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  if (!module)
    ADD_FAILURE() << "cannot parse the test program:\n" << messages;
  return module;
}

/// Runs `entry` and returns its results; the diagnostics of a failure become
/// the test failure's message (and the result is empty).
inline llvm::SmallVector<Tensor> interpretOrFail(mlir::ModuleOp module, llvm::StringRef entry,
                                                 llvm::ArrayRef<Tensor> inputs,
                                                 const InterpreterOptions &options = {}) {
  std::string messages;
  mlir::ScopedDiagnosticHandler handler(module.getContext(), [&](mlir::Diagnostic &d) {
    messages += d.str() + "\n";
    return mlir::success();
  });
  mlir::FailureOr<llvm::SmallVector<Tensor>> results = interpret(module, entry, inputs, options);
  if (failed(results)) {
    ADD_FAILURE() << "interpreting @" << entry.str() << " failed:\n" << messages;
    return {};
  }
  return *results;
}

/// Runs `entry` and returns the message of the diagnostic it fails with
/// ("" if it succeeds).
inline std::string interpretError(mlir::ModuleOp module, llvm::StringRef entry,
                                  llvm::ArrayRef<Tensor> inputs) {
  std::string messages;
  mlir::ScopedDiagnosticHandler handler(module.getContext(), [&](mlir::Diagnostic &d) {
    messages += d.str();
    return mlir::success();
  });
  if (succeeded(interpret(module, entry, inputs)))
    return "";
  return messages.empty() ? std::string("(failure without a diagnostic)") : messages;
}

/// A tensor of `type` (parsed, e.g. "tensor<2x3xf32>") holding `values`.
inline Tensor makeTensor(mlir::MLIRContext &context, llvm::StringRef type,
                         llvm::ArrayRef<double> values) {
  auto tensorType = llvm::cast<mlir::RankedTensorType>(mlir::parseType(type, &context));
  Tensor t(tensorType);
  EXPECT_EQ(int64_t(values.size()), t.size()) << "makeTensor: wrong number of values";
  for (int64_t i = 0; i < t.size() && i < int64_t(values.size()); ++i)
    t.isFloat() ? t.setFloat(i, values[i]) : t.setInt(i, int64_t(values[i]));
  return t;
}

/// The elements of `t` as doubles (for EXPECT_EQ against a vector literal).
inline std::vector<double> valuesOf(const Tensor &t) {
  std::vector<double> values(t.size());
  for (int64_t i = 0; i < t.size(); ++i)
    values[i] = t.asDouble(i);
  return values;
}

/// Same number and types of results, every element within the error model
/// (`mags`: the magnitudes of `want`'s elements, see magnitudes(); empty: each
/// result's largest |value|); on failure the message names, per differing
/// result, the first failing and the worst element.
inline ::testing::AssertionResult allClose(llvm::ArrayRef<Tensor> got, llvm::ArrayRef<Tensor> want,
                                           const ErrorModel &model = {},
                                           llvm::ArrayRef<Tensor> mags = {}) {
  Comparison c = compareOutputs(got, want, mags, model);
  if (c.ok())
    return ::testing::AssertionSuccess();
  std::string report;
  llvm::raw_string_ostream os(report);
  c.print(os, "expected");
  return ::testing::AssertionFailure() << report;
}

/// Runs @fa of `a` and @fb of `b` on the same random inputs (those of @fa;
/// both must take the same argument types) and expects the same results.
inline void expectSameResults(mlir::ModuleOp a, llvm::StringRef fa, mlir::ModuleOp b,
                              llvm::StringRef fb, const CompareOptions &options = {}) {
  mlir::FailureOr<llvm::SmallVector<Tensor>> inputs =
      randomInputs(a, fa, options.seed, options.positive);
  ASSERT_TRUE(succeeded(inputs)) << "no inputs for @" << fa.str();
  InterpreterOptions interpreterOptions;
  interpreterOptions.f64Reference = options.f64Reference;
  llvm::SmallVector<Tensor> ra = interpretOrFail(a, fa, *inputs, interpreterOptions);
  llvm::SmallVector<Tensor> rb = interpretOrFail(b, fb, *inputs, interpreterOptions);
  if (ra.empty() && rb.empty())
    return;
  std::string error;
  mlir::FailureOr<llvm::SmallVector<Tensor>> mags = magnitudes(a, fa, *inputs, error);
  EXPECT_TRUE(succeeded(mags)) << error;
  ErrorModel model;
  model.k = options.k;
  model.rtol = options.rtol;
  model.atol = options.atol;
  EXPECT_TRUE(allClose(rb, ra, model,
                       succeeded(mags) ? llvm::ArrayRef<Tensor>(*mags) : llvm::ArrayRef<Tensor>()))
      << "@" << fb.str() << " differs from @" << fa.str() << " (seed " << options.seed << ")";
}

} // namespace kiln::interp::testing

#endif // KILN_REFERENCE_INTERPRETERTESTING_H
