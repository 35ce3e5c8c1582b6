//===- LaxControlFlow.cpp - lax control flow operations ----------------------===//
//
// Generated definitions, verifiers and interfaces of while and cond: loops and
// branches with regions.
//
//   %x, %n = lax.while cond_consts(%tol) body_consts(%a) carry(%x0, %n0)
//       : (tensor<f32>, tensor<8x8xf32>, tensor<8xf32>, tensor<i32>)
//       -> (tensor<8xf32>, tensor<i32>)
//   cond {
//   ^bb0(%t: tensor<f32>, %x: tensor<8xf32>, %n: tensor<i32>):
//     ...
//     lax.yield %p : tensor<i1>
//   } body {
//   ^bb0(%aa: tensor<8x8xf32>, %x: tensor<8xf32>, %n: tensor<i32>):
//     ...
//     lax.yield %x2, %n2 : tensor<8xf32>, tensor<i32>
//   }
//
//   %r = lax.cond %i (%x) : (tensor<i32>, tensor<8xf32>) -> tensor<8xf32>
//   branch 0 {
//   ^bb0(%a: tensor<8xf32>):
//     ...
//   } branch 1 {
//     ...
//   }
//
// The structural checks of the regions (arguments, yielded values) are in
// verify(), not verifyRegions(): the verifiers of RegionBranchOpInterface and
// LoopLikeOpInterface run on the regions before verifyRegions() would, and
// their messages ("region branch point has 2 operands, but region successor
// needs 1 inputs") say less than ours.
//
//===----------------------------------------------------------------------===//
#include "dialect/LaxControlFlowOps.h"

#include "dialect/LaxAsm.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace kiln::lax;

//===----------------------------------------------------------------------===//
// lax.yield as a region branch terminator
//===----------------------------------------------------------------------===//

// lax.yield forwards all its values to the region successor, except in a
// while's cond region: there the predicate is consumed by the while itself
// (like scf.condition's condition) and nothing is forwarded; and in a scan's
// body, which forwards only its carries (the ys slices are stacked into the
// ys results, not forwarded).
MutableOperandRange YieldOp::getMutableSuccessorOperands(RegionSuccessor) {
  Operation *parent = (*this)->getParentOp();
  if (auto loop = dyn_cast_or_null<WhileOp>(parent))
    if ((*this)->getParentRegion() == &loop.getCond())
      return MutableOperandRange(getOperation(), 0, 0);
  if (auto scan = dyn_cast_or_null<ScanOp>(parent))
    return MutableOperandRange(getOperation(), 0, scan.getNumCarry());
  return getValuesMutable();
}

namespace {

/// The lax.yield ending the single block of `region`, or null.
YieldOp regionYield(Region &region) {
  if (region.empty() || region.front().empty())
    return nullptr;
  return dyn_cast<YieldOp>(region.front().back());
}

/// Checks that `block`'s arguments have `expected` types; `describe(i)`
/// names argument i in the message ("cond const #0", "carry #1").
LogicalResult checkArguments(Operation *op, StringRef regionName, Block &block,
                             TypeRange expected,
                             llvm::function_ref<std::string(unsigned)> describe,
                             StringRef argumentsAre) {
  if (block.getNumArguments() != expected.size())
    return op->emitOpError() << regionName << " has " << block.getNumArguments()
                             << " arguments but expected " << expected.size()
                             << " (" << argumentsAre << ")";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(block.getArgumentTypes(), expected))) {
    auto [actual, want] = pair;
    if (actual != want)
      return op->emitOpError() << regionName << " argument #" << i << " has type "
                               << actual << ", expected " << want << " ("
                               << describe(i) << ")";
  }
  return success();
}

/// The yield ending `region`, or an error naming the region.
FailureOr<YieldOp> requireYield(Operation *op, Region &region, StringRef regionName) {
  YieldOp yield = regionYield(region);
  if (!yield)
    return op->emitOpError() << regionName << " must end with lax.yield";
  return yield;
}

/// Checks that `yield` yields values of `expected` types.
LogicalResult checkYielded(Operation *op, StringRef regionName, YieldOp yield,
                           TypeRange expected, StringRef valuesAre) {
  if (yield.getValues().size() != expected.size())
    return yield.emitOpError() << "yields " << yield.getValues().size()
                               << " values but the " << op->getName() << "'s "
                               << regionName << " must yield " << expected.size()
                               << " (" << valuesAre << ")";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(yield.getValues().getTypes(), expected))) {
    auto [actual, want] = pair;
    if (actual != want)
      return yield.emitOpError() << "value #" << i << " has type " << actual
                                 << ", expected " << want << " (" << valuesAre << ")";
  }
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// lax.while
//===----------------------------------------------------------------------===//

void WhileOp::build(OpBuilder &builder, OperationState &state, ValueRange condConsts,
                    ValueRange bodyConsts, ValueRange inits) {
  state.addOperands(condConsts);
  state.addOperands(bodyConsts);
  state.addOperands(inits);
  state.addTypes(inits.getTypes());
  Properties &props = state.getOrAddProperties<Properties>();
  props.num_cond_consts = builder.getI64IntegerAttr(condConsts.size());
  props.num_body_consts = builder.getI64IntegerAttr(bodyConsts.size());
  state.addRegion();
  state.addRegion();
}

WhileOp WhileOp::create(OpBuilder &builder, Location loc, ValueRange condConsts,
                        ValueRange bodyConsts, ValueRange inits,
                        CondBuilderFn condBuilder, BodyBuilderFn bodyBuilder) {
  auto op = WhileOp::create(builder, loc, condConsts, bodyConsts, inits);
  OpBuilder::InsertionGuard guard(builder);
  auto fill = [&](Region &region, ValueRange consts) {
    Block *block = builder.createBlock(&region);
    for (Value v : llvm::concat<const Value>(consts, inits))
      block->addArgument(v.getType(), loc);
    ValueRange args = block->getArguments();
    return std::make_pair(args.take_front(consts.size()), args.drop_front(consts.size()));
  };
  auto [cConsts, cCarries] = fill(op.getCond(), condConsts);
  Value predicate = condBuilder(builder, loc, cConsts, cCarries);
  YieldOp::create(builder, loc, predicate);
  auto [bConsts, bCarries] = fill(op.getBody(), bodyConsts);
  SmallVector<Value> next = bodyBuilder(builder, loc, bConsts, bCarries);
  YieldOp::create(builder, loc, next);
  return op;
}

Value WhileOp::getPredicate() {
  YieldOp yield = regionYield(getCond());
  return yield && yield.getValues().size() == 1 ? yield.getValues()[0] : Value();
}

OperandRange WhileOp::getNextCarries() {
  return cast<YieldOp>(getBodyBlock().getTerminator()).getValues();
}

ParseResult WhileOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &b = parser.getBuilder();
  SmallVector<OpAsmParser::UnresolvedOperand> condConsts, bodyConsts, carries;
  FunctionType type;
  if (parseOptionalGroup(parser, "cond_consts", condConsts) ||
      parseOptionalGroup(parser, "body_consts", bodyConsts) ||
      parser.parseKeyword("carry") ||
      parser.parseOperandList(carries, OpAsmParser::Delimiter::Paren) ||
      parseAttributesAndSignature(parser, result, {"num_cond_consts", "num_body_consts"},
                                  {condConsts, bodyConsts, carries}, type))
    return failure();
  result.attributes.set("num_cond_consts", b.getI64IntegerAttr(condConsts.size()));
  result.attributes.set("num_body_consts", b.getI64IntegerAttr(bodyConsts.size()));

  Region *cond = result.addRegion();
  Region *body = result.addRegion();
  if (parser.parseKeyword("cond") || parser.parseRegion(*cond, /*arguments=*/{}) ||
      parser.parseKeyword("body") || parser.parseRegion(*body, /*arguments=*/{}))
    return failure();
  return success();
}

void WhileOp::print(OpAsmPrinter &p) {
  printGroup(p, "cond_consts", getCondConsts(), /*always=*/false);
  printGroup(p, "body_consts", getBodyConsts(), /*always=*/false);
  printGroup(p, "carry", getInits(), /*always=*/true);
  p.printOptionalAttrDict((*this)->getAttrs(), {"num_cond_consts", "num_body_consts"});
  p << " : ";
  p.printFunctionalType(getArgs().getTypes(), getResultTypes());
  p.printNewline();
  p << "cond ";
  p.printRegion(getCond(), /*printEntryBlockArgs=*/true, /*printBlockTerminators=*/true);
  p << " body ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/true, /*printBlockTerminators=*/true);
}

LogicalResult WhileOp::verify() {
  int64_t numArgs = getArgs().size();
  if (getNumCondConsts() < 0 || getNumBodyConsts() < 0 ||
      getNumCondConsts() + getNumBodyConsts() > numArgs)
    return emitOpError("num_cond_consts (")
           << getNumCondConsts() << ") + num_body_consts (" << getNumBodyConsts()
           << ") exceed the " << numArgs << " operands";
  OperandRange inits = getInits();
  if (inits.size() != getNumResults())
    return emitOpError("has ") << inits.size() << " initial carries but "
                               << getNumResults()
                               << " results (the results are the final carries)";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(inits.getTypes(), getResultTypes()))) {
    auto [init, result] = pair;
    if (init != result)
      return emitOpError("final carry #") << i << " has type " << result
                                          << " but its initial value has type " << init;
  }

  auto condArgTypes = llvm::to_vector(getCondConsts().getTypes());
  llvm::append_range(condArgTypes, inits.getTypes());
  int64_t nCond = getNumCondConsts(), nBody = getNumBodyConsts();
  if (failed(checkArguments(
          *this, "cond region", getCondBlock(), condArgTypes,
          [&](unsigned i) {
            return (int64_t)i < nCond ? "cond const #" + std::to_string(i)
                                      : "carry #" + std::to_string(i - nCond);
          },
          "the cond consts, then the carries")))
    return failure();
  FailureOr<YieldOp> condYield = requireYield(*this, getCond(), "cond region");
  if (failed(condYield))
    return failure();
  auto predicateType = RankedTensorType::get({}, IntegerType::get(getContext(), 1));
  if (failed(checkYielded(*this, "cond region", *condYield, predicateType,
                          "the predicate")))
    return failure();

  auto bodyArgTypes = llvm::to_vector(getBodyConsts().getTypes());
  llvm::append_range(bodyArgTypes, inits.getTypes());
  if (failed(checkArguments(
          *this, "body region", getBodyBlock(), bodyArgTypes,
          [&](unsigned i) {
            return (int64_t)i < nBody ? "body const #" + std::to_string(i)
                                      : "carry #" + std::to_string(i - nBody);
          },
          "the body consts, then the carries")))
    return failure();
  FailureOr<YieldOp> bodyYield = requireYield(*this, getBody(), "body region");
  if (failed(bodyYield))
    return failure();
  return checkYielded(*this, "body region", *bodyYield, inits.getTypes(),
                      "the next carries, of the carries' types");
}

// Control flow: the while enters the cond region with the initial carries;
// the cond region goes on to the body or leaves; the body returns to the cond
// region with the next carries. The body's carries and the results are the
// values the cond region received, which no terminator forwards (the cond
// region yields only the predicate), so they are modelled as produced by the
// while itself: analyses treat them as unknown, which is sound.
void WhileOp::getSuccessorRegions(RegionBranchPoint point,
                                  SmallVectorImpl<RegionSuccessor> &regions) {
  if (!point.isParent() &&
      point.getTerminatorPredecessorOrNull()->getParentRegion() == &getCond()) {
    regions.emplace_back(&getBody(), Block::BlockArgListType());
    regions.emplace_back(getOperation(), getOperation()->getResults().take_front(0));
    return;
  }
  // From the parent and from the body: the cond region.
  regions.emplace_back(&getCond(), getCond().empty() ? Block::BlockArgListType()
                                                     : getCondCarryArgs());
}

OperandRange WhileOp::getEntrySuccessorOperands(RegionSuccessor) { return getInits(); }

SmallVector<Region *> WhileOp::getLoopRegions() { return {&getCond(), &getBody()}; }

MutableArrayRef<OpOperand> WhileOp::getInitsMutable() {
  return getOperation()->getOpOperands().drop_front(getNumCondConsts() +
                                                    getNumBodyConsts());
}

Block::BlockArgListType WhileOp::getRegionIterArgs() { return getCondCarryArgs(); }

std::optional<MutableArrayRef<OpOperand>> WhileOp::getYieldedValuesMutable() {
  YieldOp yield = regionYield(getBody());
  if (!yield)
    return std::nullopt;
  return yield->getOpOperands();
}

std::optional<ResultRange> WhileOp::getLoopResults() { return getResults(); }

//===----------------------------------------------------------------------===//
// lax.cond
//===----------------------------------------------------------------------===//

void CondOp::build(OpBuilder &, OperationState &state, TypeRange resultTypes,
                   Value index, ValueRange operands, unsigned numBranches) {
  state.addOperands(index);
  state.addOperands(operands);
  state.addTypes(resultTypes);
  for (unsigned i = 0; i < numBranches; ++i)
    state.addRegion();
}

CondOp CondOp::create(OpBuilder &builder, Location loc, TypeRange resultTypes,
                      Value index, ValueRange operands, unsigned numBranches,
                      BranchBuilderFn branchBuilder) {
  auto op = CondOp::create(builder, loc, resultTypes, index, operands, numBranches);
  OpBuilder::InsertionGuard guard(builder);
  for (unsigned i = 0; i < numBranches; ++i) {
    Block *block = builder.createBlock(&op.getBranches()[i]);
    for (Value v : operands)
      block->addArgument(v.getType(), loc);
    SmallVector<Value> yielded = branchBuilder(builder, loc, i, block->getArguments());
    YieldOp::create(builder, loc, yielded);
  }
  return op;
}

ParseResult CondOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand index;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  if (parser.parseOperand(index) ||
      parser.parseOperandList(operands, OpAsmParser::Delimiter::Paren) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  FunctionType type;
  SMLoc typeLoc = parser.getCurrentLocation();
  if (parser.parseColonType(type))
    return failure();
  SmallVector<OpAsmParser::UnresolvedOperand> all = {index};
  llvm::append_range(all, operands);
  if (parser.resolveOperands(all, type.getInputs(), typeLoc, result.operands))
    return failure();
  result.addTypes(type.getResults());
  for (int64_t i = 0;; ++i) {
    SMLoc branchLoc = parser.getCurrentLocation();
    if (failed(parser.parseOptionalKeyword("branch"))) {
      if (i == 0)
        return parser.emitError(branchLoc, "expected 'branch 0 {...}'");
      return success();
    }
    int64_t number;
    SMLoc numberLoc = parser.getCurrentLocation();
    if (parser.parseInteger(number))
      return failure();
    if (number != i)
      return parser.emitError(numberLoc, "expected branch ") << i << ", got " << number;
    if (parser.parseRegion(*result.addRegion(), /*arguments=*/{}))
      return failure();
  }
}

void CondOp::print(OpAsmPrinter &p) {
  p << " " << getIndex() << " (";
  p.printOperands(getBranchOperands());
  p << ")";
  p.printOptionalAttrDict((*this)->getAttrs());
  p << " : ";
  p.printFunctionalType(getOperandTypes(), getResultTypes());
  for (auto [i, region] : llvm::enumerate(getBranches())) {
    if (i == 0)
      p.printNewline();
    else
      p << " ";
    p << "branch " << i << " ";
    p.printRegion(region, /*printEntryBlockArgs=*/true, /*printBlockTerminators=*/true);
  }
}

LogicalResult CondOp::verify() {
  unsigned numBranches = getNumBranches();
  if (numBranches == 0)
    return emitOpError("has no branches; expected at least one");
  if (getIndex().getType().getElementType().isInteger(1) && numBranches != 2)
    return emitOpError("has an i1 index, which selects between exactly 2 branches, but has ")
           << numBranches << " branches";
  TypeRange operandTypes = getBranchOperands().getTypes();
  for (auto [k, region] : llvm::enumerate(getBranches())) {
    std::string name = "branch " + std::to_string(k);
    if (failed(checkArguments(
            *this, name, region.front(), operandTypes,
            [](unsigned i) { return "the type of operand #" + std::to_string(i + 1); },
            "the cond's operands after the index")))
      return failure();
    FailureOr<YieldOp> yield = requireYield(*this, region, name);
    if (failed(yield) || failed(checkYielded(*this, name, *yield, getResultTypes(),
                                             "the cond's result types")))
      return failure();
  }
  return success();
}

/// The branch a constant index attribute selects, if `attr` is one.
static std::optional<unsigned> constantBranch(CondOp op, Attribute attr) {
  auto elements = dyn_cast_or_null<DenseIntElementsAttr>(attr);
  if (!elements || elements.getNumElements() != 1)
    return std::nullopt;
  APInt value = *elements.value_begin<APInt>();
  int64_t index = value.getBitWidth() == 1 ? (int64_t)value.getZExtValue()
                                           : value.getSExtValue();
  return op.selectBranch(index);
}

void CondOp::getSuccessorRegions(RegionBranchPoint point,
                                 SmallVectorImpl<RegionSuccessor> &regions) {
  if (!point.isParent()) {
    regions.emplace_back(getOperation(), getOperation()->getResults());
    return;
  }
  for (Region &region : getBranches())
    regions.emplace_back(&region, region.getArguments());
}

void CondOp::getEntrySuccessorRegions(ArrayRef<Attribute> operands,
                                      SmallVectorImpl<RegionSuccessor> &regions) {
  std::optional<unsigned> branch =
      operands.empty() ? std::nullopt : constantBranch(*this, operands.front());
  if (!branch)
    return getSuccessorRegions(RegionBranchPoint::parent(), regions);
  Region &region = getBranches()[*branch];
  regions.emplace_back(&region, region.getArguments());
}

OperandRange CondOp::getEntrySuccessorOperands(RegionSuccessor) {
  return getBranchOperands();
}

void CondOp::getRegionInvocationBounds(ArrayRef<Attribute> operands,
                                       SmallVectorImpl<InvocationBounds> &bounds) {
  std::optional<unsigned> branch =
      operands.empty() ? std::nullopt : constantBranch(*this, operands.front());
  // Each branch runs at most once; with a constant index exactly the selected
  // one runs.
  for (unsigned i = 0; i < getNumBranches(); ++i) {
    if (!branch)
      bounds.emplace_back(0, 1);
    else
      bounds.emplace_back(*branch == i ? 1 : 0, *branch == i ? 1 : 0);
  }
}

namespace {
/// A cond whose index is a constant (JAX's platform_index, a folded
/// predicate) is the branch it selects, inlined.
struct InlineSelectedBranch : OpRewritePattern<CondOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CondOp op, PatternRewriter &rewriter) const override {
    Attribute index;
    if (!matchPattern(op.getIndex(), m_Constant(&index)))
      return rewriter.notifyMatchFailure(op, "the index is not a constant");
    std::optional<unsigned> branch = constantBranch(op, index);
    if (!branch)
      return rewriter.notifyMatchFailure(op, "the index is not an integer constant");
    Block &block = op.getBranchBlock(*branch);
    auto yield = cast<YieldOp>(block.getTerminator());
    rewriter.inlineBlockBefore(&block, op, op.getBranchOperands());
    // Read the yielded values after inlining: a yielded block argument is
    // now the cond's operand (reading them before left a dangling argument,
    // a segfault; tests/differential/regressions/cond-constant-index.mlir).
    SmallVector<Value> results(yield.getValues());
    rewriter.replaceOp(op, results);
    rewriter.eraseOp(yield);
    return success();
  }
};
} // namespace

void CondOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<InlineSelectedBranch>(context);
}

#define GET_OP_CLASSES
#include "dialect/LaxControlFlowOps.cpp.inc"
