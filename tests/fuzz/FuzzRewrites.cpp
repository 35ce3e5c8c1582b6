//===- FuzzRewrites.cpp - libFuzzer target: parse, verify, rewrite --------===//
//
// Parses the input as MLIR; when it verifies, runs the lax canonicalizations
// and Kiln's rewrite passes over it and verifies the result. Any input must
// end in diagnostics or verified IR: a crash, an assertion, a sanitizer
// report or IR that no longer verifies is a finding.
//
//===----------------------------------------------------------------------===//

#include "tools/Registration.h"
#include "tests/fuzz/FuzzContext.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <cstdlib>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext *context = &kiln::fuzz::context();
  kiln::fuzz::IgnoreDiagnostics ignore(*context);
  // The MLIR lexer expects a NUL-terminated buffer: copy into a std::string.
  std::string text(reinterpret_cast<const char *>(data), size);
  // As Kiln's tools do: deeply nested text would overflow MLIR's parser.
  if (failed(kiln::checkMlirNesting(text, "<fuzz>", nullptr)))
    return 0;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, context);
  if (!module || failed(mlir::verify(*module)))
    return 0;
  mlir::PassManager pm(context);
  if (failed(kiln::addPassPipeline(
          pm,
          "builtin.module(canonicalize,kiln-canonicalize-dot-general,kiln-fold-scan-layout,"
          "kiln-scan-pushup{reassociate=1},kiln-dedup-functions,canonicalize)",
          llvm::errs())))
    std::abort();
  if (succeeded(pm.run(*module)) && failed(mlir::verify(*module)))
    std::abort(); // a rewrite produced invalid IR
  return 0;
}
