//===- LaxAsm.h - custom assembly shared by lax's region ops ----*- C++ -*-===//
//
// lax.scan and lax.while print their operands in keyword groups
// (`consts(%a) carry(%b) xs(%c)`, `cond_consts(...) body_consts(...)
// carry(...)`), the group sizes implied (not spelled as attributes), then an
// attribute dictionary and a functional type. These are the steps they
// share.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_LAXASM_H
#define KILN_DIALECT_LAXASM_H

#include "mlir/IR/OpImplementation.h"

namespace kiln::lax {

/// Parses `keyword(%a, %b)` if `keyword` is next; nothing otherwise.
mlir::ParseResult
parseOptionalGroup(mlir::OpAsmParser &parser, llvm::StringRef keyword,
                   llvm::SmallVectorImpl<mlir::OpAsmParser::UnresolvedOperand> &operands);

/// Prints ` keyword(%a, %b)`; nothing for an empty group unless `always`.
void printGroup(mlir::OpAsmPrinter &p, llvm::StringRef keyword, mlir::ValueRange values,
                bool always);

/// After the operand groups: the attribute dictionary (an error if it spells
/// one of `implied`), `: (inputs) -> (results)`, then the groups' operands
/// resolved in order against the inputs and the result types added. `type`
/// receives the functional type.
mlir::ParseResult parseAttributesAndSignature(
    mlir::OpAsmParser &parser, mlir::OperationState &result,
    llvm::ArrayRef<llvm::StringRef> implied,
    llvm::ArrayRef<llvm::ArrayRef<mlir::OpAsmParser::UnresolvedOperand>> groups,
    mlir::FunctionType &type);

} // namespace kiln::lax

#endif // KILN_DIALECT_LAXASM_H
