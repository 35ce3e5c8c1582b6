//===- FuzzContext.h - the MLIR context every fuzz target shares -*- C++ -*-===//
#ifndef KILN_TESTS_FUZZ_FUZZCONTEXT_H
#define KILN_TESTS_FUZZ_FUZZCONTEXT_H

#include "tools/Registration.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

namespace kiln::fuzz {

/// One context for the whole fuzzing run (creating one per input would
/// dominate the time): every Kiln and upstream dialect loaded, passes
/// registered, single-threaded.
inline mlir::MLIRContext &context() {
  static mlir::MLIRContext *ctx = [] {
    mlir::DialectRegistry registry;
    registerAllKilnDialects(registry);
    registerAllKilnPasses();
    auto *c = new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    c->loadAllAvailableDialects();
    return c;
  }();
  return *ctx;
}

/// Diagnostics are the expected outcome of bad input: swallow them.
struct IgnoreDiagnostics : mlir::ScopedDiagnosticHandler {
  explicit IgnoreDiagnostics(mlir::MLIRContext &ctx)
      : ScopedDiagnosticHandler(&ctx, [](mlir::Diagnostic &) { return mlir::success(); }) {}
};

} // namespace kiln::fuzz

#endif // KILN_TESTS_FUZZ_FUZZCONTEXT_H
