//===- Npy.h - .npy files for the interpreter and kiln-run ------*- C++ -*-===//
//
// NumPy's .npy format, version 1.0/2.0, little-endian, C order, for the
// element types of lax: <f2 (f16), <V2 (bf16, as numpy writes ml_dtypes'
// bfloat16), <f4, <f8, |b1 (i1), and the integers |i1 |u1 <i2 <u2 <i4 <u4
// <i8 <u8 (i8 ... ui64). Every
// malformed file gets an error naming the file and what is wrong (a shape
// too large for memory included); nothing is half-read.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_NPY_H
#define KILN_REFERENCE_NPY_H

#include "reference/Tensor.h"

#include <string>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace kiln::interp {

/// Reads `path`; on failure returns failure and sets `error`.
mlir::FailureOr<Tensor> readNpy(llvm::StringRef path, mlir::MLIRContext *context,
                                std::string &error);
/// Parses .npy bytes (`name` is used in messages).
mlir::FailureOr<Tensor> parseNpy(llvm::StringRef bytes, llvm::StringRef name,
                                 mlir::MLIRContext *context, std::string &error);
/// Writes `tensor` to `path`; on failure returns failure and sets `error`.
mlir::LogicalResult writeNpy(llvm::StringRef path, const Tensor &tensor, std::string &error);
/// The .npy bytes of `tensor`.
std::string serializeNpy(const Tensor &tensor);

} // namespace kiln::interp

#endif // KILN_REFERENCE_NPY_H
