//===- Passes.h - Kiln's GPU passes -----------------------------*- C++ -*-===//
#ifndef KILN_LOWERING_GPU_PASSES_H
#define KILN_LOWERING_GPU_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace kiln {

#define GEN_PASS_DECL
#include "lowering/gpu/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/gpu/Passes.h.inc"

} // namespace kiln

#endif // KILN_LOWERING_GPU_PASSES_H
