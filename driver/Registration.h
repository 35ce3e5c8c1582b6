//===- Registration.h - what Kiln's tools register --------------*- C++ -*-===//
#ifndef KILN_DRIVER_REGISTRATION_H
#define KILN_DRIVER_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace kiln {
/// lax plus every upstream dialect (and its interfaces/extensions) that
/// Kiln's pipelines produce, so kiln-opt reads what mlir-opt reads.
void registerAllKilnDialects(mlir::DialectRegistry &registry);
/// Upstream passes and Kiln's own passes and pipelines.
void registerAllKilnPasses();
/// What every Kiln tool does before parsing its command line: the dialects
/// into `registry`, the passes, then the plugins named by --plugin in argv
/// (they may register passes and options). False, after an error naming
/// `tool`, when a plugin does not load.
bool registerKilnTool(mlir::DialectRegistry &registry, int argc, char **argv,
                      const char *tool);
} // namespace kiln

#endif // KILN_DRIVER_REGISTRATION_H
