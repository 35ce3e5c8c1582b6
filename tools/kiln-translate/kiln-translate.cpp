//===- kiln-translate.cpp - Kiln's mlir-translate -------------------------===//
//
// Translations into and out of Kiln's IR:
//   kiln-translate --import-jaxpr f.jaxpr [--jaxpr-entry-name=NAME]
//                  [--jaxpr-input-types="f32[3],f32[4,5]"]
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprImporter.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  kiln::registerJaxprImportTranslation();
  return mlir::failed(mlir::mlirTranslateMain(argc, argv, "Kiln translation driver\n"));
}
