//===- kiln-opt.cpp - Kiln's mlir-opt -------------------------------------===//
//
// mlir-opt with the lax dialect and Kiln's passes, rules and plugins.
//
//===----------------------------------------------------------------------===//
#include "driver/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  kiln::registerAllKilnDialects(registry);
  kiln::registerAllKilnPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Kiln optimizer driver\n", registry));
}
