//===- BufferRoot.h - buffers through their views --------------*- C++ -*-===//
#ifndef KILN_LOWERING_GPU_BUFFERROOT_H
#define KILN_LOWERING_GPU_BUFFERROOT_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace kiln {

/// The op at the root of `value`'s chain of views (subview, cast,
/// expand_shape, ...), or null for a block argument (a buffer the caller
/// passed).
inline mlir::Operation *bufferRoot(mlir::Value value) {
  while (mlir::Operation *def = value.getDefiningOp()) {
    auto view = mlir::dyn_cast<mlir::ViewLikeOpInterface>(def);
    if (!view)
      return def;
    value = view.getViewSource();
  }
  return nullptr;
}

/// Calls `f` on every user of `value` and of the views of it.
inline void forEachViewUser(mlir::Value value, llvm::function_ref<void(mlir::Operation *)> f) {
  for (mlir::Operation *user : value.getUsers()) {
    f(user);
    if (auto view = mlir::dyn_cast<mlir::ViewLikeOpInterface>(user))
      if (view.getViewSource() == value)
        for (mlir::Value result : user->getResults())
          forEachViewUser(result, f);
  }
}

/// Marks host buffers whose frees kiln-gpu-host-ops-to-kernels placed
/// (kiln-gpu-device-memory adds none of its own for them).
constexpr const char kGpuFreedAttr[] = "kiln.gpu.freed";

} // namespace kiln

#endif // KILN_LOWERING_GPU_BUFFERROOT_H
