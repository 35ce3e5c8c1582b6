//===- Dialects.h - the dialects Kiln's programs and pipelines use -*- C++ -*-===//
#ifndef KILN_COMPILER_DIALECTS_H
#define KILN_COMPILER_DIALECTS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace kiln {
/// lax plus every upstream dialect (and its interfaces/extensions) that
/// Kiln's pipelines produce, so kiln-opt reads what mlir-opt reads.
void registerAllKilnDialects(mlir::DialectRegistry &registry);
} // namespace kiln

#endif // KILN_COMPILER_DIALECTS_H
