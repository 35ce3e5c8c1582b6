//===- Registration.cpp - what Kiln's tools register ----------------------===//
#include "driver/Registration.h"

#include "dialect/LaxDialect.h"
#include "rewrites/seed/Passes.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"

void kiln::registerAllKilnDialects(mlir::DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<kiln::lax::LaxDialect>();
}

void kiln::registerAllKilnPasses() {
  mlir::registerAllPasses();
  kiln::registerKilnRewritesPasses();
}
