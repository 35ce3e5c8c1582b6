//===- Dialects.cpp - the dialects Kiln's programs and pipelines use ------===//
#include "compiler/Dialects.h"

#include "dialect/LaxDialect.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void kiln::registerAllKilnDialects(mlir::DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // As mlir-opt: gpu-module-to-binary needs the LLVM IR translations.
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  registry.insert<kiln::lax::LaxDialect>();
}

