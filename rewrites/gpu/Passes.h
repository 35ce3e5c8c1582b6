//===- Passes.h - Kiln's GPU passes -----------------------------*- C++ -*-===//
#ifndef KILN_REWRITES_GPU_PASSES_H
#define KILN_REWRITES_GPU_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace kiln {

#define GEN_PASS_DECL
#include "rewrites/gpu/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rewrites/gpu/Passes.h.inc"

} // namespace kiln

#endif // KILN_REWRITES_GPU_PASSES_H
