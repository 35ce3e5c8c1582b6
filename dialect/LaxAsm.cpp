//===- LaxAsm.cpp - custom assembly shared by lax's region ops -----------===//
#include "dialect/LaxAsm.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

ParseResult
kiln::lax::parseOptionalGroup(OpAsmParser &parser, StringRef keyword,
                              SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands) {
  if (failed(parser.parseOptionalKeyword(keyword)))
    return success();
  return parser.parseOperandList(operands, OpAsmParser::Delimiter::Paren);
}

void kiln::lax::printGroup(OpAsmPrinter &p, StringRef keyword, ValueRange values, bool always) {
  if (values.empty() && !always)
    return;
  p << " " << keyword << "(";
  p.printOperands(values);
  p << ")";
}

ParseResult kiln::lax::parseAttributesAndSignature(
    OpAsmParser &parser, OperationState &result, ArrayRef<StringRef> implied,
    ArrayRef<ArrayRef<OpAsmParser::UnresolvedOperand>> groups, FunctionType &type) {
  SMLoc attrLoc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  for (StringRef name : implied)
    if (result.attributes.get(name))
      return parser.emitError(attrLoc, "'")
             << name << "' is implied by the operand groups; do not spell it";
  SMLoc typeLoc = parser.getCurrentLocation();
  if (parser.parseColonType(type))
    return failure();
  SmallVector<OpAsmParser::UnresolvedOperand> all;
  for (ArrayRef<OpAsmParser::UnresolvedOperand> group : groups)
    llvm::append_range(all, group);
  if (parser.resolveOperands(all, type.getInputs(), typeLoc, result.operands))
    return failure();
  result.addTypes(type.getResults());
  return success();
}
