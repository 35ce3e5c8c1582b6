//===- BufferRoot.h - where a buffer value comes from -----------*- C++ -*-===//
#ifndef KILN_REWRITES_GPU_BUFFERROOT_H
#define KILN_REWRITES_GPU_BUFFERROOT_H

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

} // namespace kiln

#endif // KILN_REWRITES_GPU_BUFFERROOT_H
