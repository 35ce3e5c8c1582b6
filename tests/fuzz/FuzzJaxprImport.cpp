//===- FuzzJaxprImport.cpp - libFuzzer target: the jaxpr importer ---------===//
//
// Any byte string must either import into a verified module or produce
// diagnostics; never crash, hang or leak (ASan/UBSan/LSan watch).
//
//===----------------------------------------------------------------------===//
#include "tests/fuzz/FuzzContext.h"
#include "importer/JaxprImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext *context = &kiln::fuzz::context();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.jaxpr"),
      llvm::SMLoc());
  kiln::fuzz::IgnoreDiagnostics ignore(*context);
  kiln::JaxprImportOptions options;
  // Untyped jaxprs need input types; give a few plausible ones.
  if (size > 0 && (data[0] & 1))
    options.inputTypes = "f32[2,3],f32[3],i32[]";
  (void)kiln::importJaxpr(sourceMgr, context, options);
  return 0;
}
