//===- LaxScan.cpp - lax.scan: builder, assembly format, verifier ---------===//
//
//   %c, %ys = lax.scan length = 30 consts(%k) carry(%c0) xs(%x)
//       {reverse = true} : (tensor<4xf32>, tensor<8xf32>, tensor<30x8xf32>)
//       -> (tensor<8xf32>, tensor<30x8xf32>) {
//   ^bb0(%k0: tensor<4xf32>, %c: tensor<8xf32>, %x: tensor<8xf32>):
//     ...
//     lax.yield %newC, %y : tensor<8xf32>, tensor<8xf32>
//   }
//
//===----------------------------------------------------------------------===//
#include "dialect/LaxOps.h"

#include "dialect/LaxAsm.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SetVector.h"

#include <limits>
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace kiln::lax;

void ScanOp::build(OpBuilder &builder, OperationState &state, TypeRange resultTypes,
                   ValueRange args, int64_t length, int64_t numConsts,
                   int64_t numCarry, bool reverse, int64_t unroll,
                   ArrayRef<int64_t> xsAxes, ArrayRef<int64_t> ysAxes) {
  state.addOperands(args);
  state.addTypes(resultTypes);
  Properties &props = state.getOrAddProperties<Properties>();
  props.length = builder.getI64IntegerAttr(length);
  props.num_consts = builder.getI64IntegerAttr(numConsts);
  props.num_carry = builder.getI64IntegerAttr(numCarry);
  props.reverse = builder.getBoolAttr(reverse);
  props.unroll = builder.getI64IntegerAttr(unroll);
  props.xs_axes = builder.getDenseI64ArrayAttr(xsAxes);
  props.ys_axes = builder.getDenseI64ArrayAttr(ysAxes);
  state.addRegion();
}

ScanOp ScanOp::create(OpBuilder &builder, Location loc, ValueRange consts,
                      ValueRange inits, ValueRange xs, int64_t length,
                      BodyBuilderFn bodyBuilder, bool reverse,
                      ArrayRef<int64_t> xsAxes, ArrayRef<int64_t> ysAxes) {
  SmallVector<int64_t> xsAxesOrZero(xsAxes);
  if (xsAxesOrZero.empty())
    xsAxesOrZero.assign(xs.size(), 0);

  // Build the body first, in a detached block, to learn the ys slice types.
  auto *body = new Block();
  SmallVector<Location> locs;
  for (Value v : consts)
    body->addArgument(v.getType(), loc);
  for (Value v : inits)
    body->addArgument(v.getType(), loc);
  for (auto [x, axis] : llvm::zip(xs, xsAxesOrZero))
    body->addArgument(dropDim(cast<RankedTensorType>(x.getType()), axis), loc);
  SmallVector<Value> yielded;
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(body);
    ValueRange args = body->getArguments();
    yielded = bodyBuilder(builder, loc, args.take_front(consts.size()),
                          args.slice(consts.size(), inits.size()),
                          args.drop_front(consts.size() + inits.size()));
    YieldOp::create(builder, loc, yielded);
  }

  size_t numYs = yielded.size() - inits.size();
  SmallVector<int64_t> ysAxesOrZero(ysAxes);
  if (ysAxesOrZero.empty())
    ysAxesOrZero.assign(numYs, 0);
  SmallVector<Type> resultTypes(inits.getTypes());
  for (auto [y, axis] : llvm::zip(ValueRange(yielded).drop_front(inits.size()),
                                  ysAxesOrZero))
    resultTypes.push_back(insertDim(cast<RankedTensorType>(y.getType()), axis, length));

  SmallVector<Value> args(consts);
  llvm::append_range(args, inits);
  llvm::append_range(args, xs);
  auto scan = ScanOp::create(builder, loc, resultTypes, args, length, consts.size(),
                             inits.size(), reverse, /*unroll=*/1, xsAxesOrZero,
                             ysAxesOrZero);
  scan.getBody().push_back(body);
  return scan;
}

ParseResult ScanOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &b = parser.getBuilder();
  int64_t length = 0;
  SmallVector<OpAsmParser::UnresolvedOperand> consts, carries, xs;
  if (parser.parseKeyword("length") || parser.parseEqual() ||
      parser.parseInteger(length))
    return failure();
  FunctionType type;
  if (parseOptionalGroup(parser, "consts", consts) || parser.parseKeyword("carry") ||
      parser.parseOperandList(carries, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("xs") || parser.parseOperandList(xs, OpAsmParser::Delimiter::Paren) ||
      parseAttributesAndSignature(parser, result, {"length", "num_consts", "num_carry"},
                                  {consts, carries, xs}, type))
    return failure();

  auto &attrs = result.attributes;
  attrs.set("length", b.getI64IntegerAttr(length));
  attrs.set("num_consts", b.getI64IntegerAttr(consts.size()));
  attrs.set("num_carry", b.getI64IntegerAttr(carries.size()));
  if (!attrs.get("xs_axes"))
    attrs.set("xs_axes", b.getDenseI64ArrayAttr(SmallVector<int64_t>(xs.size(), 0)));
  if (!attrs.get("ys_axes")) {
    int64_t numYs = std::max<int64_t>(0, (int64_t)type.getNumResults() -
                                             (int64_t)carries.size());
    attrs.set("ys_axes", b.getDenseI64ArrayAttr(SmallVector<int64_t>(numYs, 0)));
  }

  Region *body = result.addRegion();
  if (parser.parseRegion(*body, /*arguments=*/{}))
    return failure();
  ScanOp::ensureTerminator(*body, b, result.location);
  return success();
}

void ScanOp::print(OpAsmPrinter &p) {
  p << " length = " << getLength();
  printGroup(p, "consts", getConsts(), /*always=*/false);
  printGroup(p, "carry", getInits(), /*always=*/true);
  printGroup(p, "xs", getXs(), /*always=*/true);
  SmallVector<StringRef> elided = {"length", "num_consts", "num_carry"};
  if (!getReverse())
    elided.push_back("reverse");
  if (getUnroll() == 1)
    elided.push_back("unroll");
  if (llvm::all_of(getXsAxes(), [](int64_t a) { return a == 0; }))
    elided.push_back("xs_axes");
  if (llvm::all_of(getYsAxes(), [](int64_t a) { return a == 0; }))
    elided.push_back("ys_axes");
  p.printOptionalAttrDict((*this)->getAttrs(), elided);
  p << " : ";
  p.printFunctionalType(getArgs().getTypes(), getResultTypes());
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/true,
                /*printBlockTerminators=*/true);
}

static LogicalResult verifyBody(ScanOp scan);

LogicalResult ScanOp::verify() {
  int64_t numArgs = getArgs().size();
  if (getNumConsts() < 0 || getNumCarry() < 0 ||
      getNumConsts() + getNumCarry() > numArgs)
    return emitOpError("num_consts (") << getNumConsts() << ") + num_carry ("
           << getNumCarry() << ") exceed the " << numArgs << " operands";
  if (getLength() < 0)
    return emitOpError("length must be non-negative, got ") << getLength();
  if (getUnroll() < 1)
    return emitOpError("unroll must be at least 1, got ") << getUnroll();
  int64_t numXs = getXs().size();
  int64_t numYs = (int64_t)getNumResults() - getNumCarry();
  if (numYs < 0)
    return emitOpError("expected at least num_carry (") << getNumCarry()
           << ") results, got " << getNumResults();
  if ((int64_t)getXsAxes().size() != numXs)
    return emitOpError("xs_axes has ") << getXsAxes().size()
           << " entries but there are " << numXs << " xs operands";
  if ((int64_t)getYsAxes().size() != numYs)
    return emitOpError("ys_axes has ") << getYsAxes().size()
           << " entries but there are " << numYs << " ys results";
  for (auto [i, x] : llvm::enumerate(getXs())) {
    auto type = cast<RankedTensorType>(x.getType());
    int64_t axis = getXsAxis(i);
    if (axis < 0 || axis >= type.getRank())
      return emitOpError("xs #") << i << " has scan axis " << axis
             << " out of range for rank " << type.getRank();
    if (type.getDimSize(axis) != getLength())
      return emitOpError("xs #") << i << " has size " << type.getDimSize(axis)
             << " along its scan axis " << axis << ", expected length "
             << getLength();
  }
  for (auto [i, init] : llvm::enumerate(getInits()))
    if (init.getType() != getResult(i).getType())
      return emitOpError("final carry #") << i << " has type "
             << getResult(i).getType() << " but its initial value has type "
             << init.getType();
  for (auto [i, ys] : llvm::enumerate(getYs())) {
    auto type = cast<RankedTensorType>(ys.getType());
    int64_t axis = getYsAxis(i);
    if (axis < 0 || axis >= type.getRank())
      return emitOpError("ys #") << i << " has scan axis " << axis
             << " out of range for rank " << type.getRank();
    if (type.getDimSize(axis) != getLength())
      return emitOpError("ys #") << i << " has size " << type.getDimSize(axis)
             << " along its scan axis " << axis << ", expected length "
             << getLength();
  }
  return verifyBody(*this);
}

/// Checks the body's arguments and yielded values against the scan's
/// operands and results. Called from verify(), before the interfaces' region
/// verifiers, whose messages say less than these.
static LogicalResult verifyBody(ScanOp scan) {
  Block &body = scan.getBodyBlock();
  if (body.getNumArguments() != scan.getArgs().size())
    return scan.emitOpError("body has ") << body.getNumArguments()
           << " arguments but the scan has " << scan.getArgs().size()
           << " operands (consts, carries, xs)";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(scan.getArgs(), body.getArguments()))) {
    auto [operand, arg] = pair;
    Type expected = operand.getType();
    int64_t xsIndex = (int64_t)i - scan.getNumConsts() - scan.getNumCarry();
    if (xsIndex >= 0)
      expected = dropDim(cast<RankedTensorType>(operand.getType()), scan.getXsAxis(xsIndex));
    if (arg.getType() != expected)
      return scan.emitOpError("body argument #") << i << " has type " << arg.getType()
             << ", expected " << expected
             << (xsIndex >= 0 ? " (one slice of the xs)" : "");
  }
  // Another terminator is reported by SingleBlockImplicitTerminator.
  auto yield = dyn_cast<YieldOp>(body.back());
  if (!yield)
    return success();
  if (yield.getValues().size() != scan.getNumResults())
    return yield.emitOpError("yields ") << yield.getValues().size()
           << " values but the scan has " << scan.getNumResults()
           << " results (carries then ys slices)";
  for (auto [i, v] : llvm::enumerate(yield.getValues())) {
    Type expected = scan.getResult(i).getType();
    if ((int64_t)i >= scan.getNumCarry())
      expected = dropDim(cast<RankedTensorType>(expected), scan.getYsAxis(i - scan.getNumCarry()));
    if (v.getType() != expected)
      return yield.emitOpError("value #") << i << " has type " << v.getType()
             << ", expected " << expected
             << ((int64_t)i < scan.getNumCarry() ? " (the carry type)"
                                            : " (one slice of the ys)");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Canonicalization
//===----------------------------------------------------------------------===//

namespace {

/// Rebuilds `scan` keeping only the carries, xs operands and ys results whose
/// flag is set, moving the body and dropping the corresponding block
/// arguments and yielded values. `deadOps` (ops of the body that only feed
/// dropped carries) are erased before their block arguments.
void pruneScan(PatternRewriter &rewriter, ScanOp scan, ArrayRef<bool> keepConsts,
               ArrayRef<bool> keepCarries, ArrayRef<bool> keepXs, ArrayRef<bool> keepYs,
               const llvm::SetVector<Operation *> &deadOps) {
  SmallVector<Value> args;
  for (auto [i, c] : llvm::enumerate(scan.getConsts()))
    if (keepConsts[i])
      args.push_back(c);
  int64_t numConsts = args.size();
  SmallVector<Type> resultTypes;
  for (auto [k, init] : llvm::enumerate(scan.getInits()))
    if (keepCarries[k]) {
      args.push_back(init);
      resultTypes.push_back(init.getType());
    }
  int64_t numCarry = args.size() - numConsts;
  SmallVector<int64_t> xsAxes, ysAxes;
  for (auto [j, x] : llvm::enumerate(scan.getXs()))
    if (keepXs[j]) {
      args.push_back(x);
      xsAxes.push_back(scan.getXsAxis(j));
    }
  for (auto [j, y] : llvm::enumerate(scan.getYs()))
    if (keepYs[j]) {
      resultTypes.push_back(y.getType());
      ysAxes.push_back(scan.getYsAxis(j));
    }
  auto pruned = ScanOp::create(rewriter, scan.getLoc(), resultTypes, args, scan.getLength(),
                               numConsts, numCarry, scan.getReverse(),
                               scan.getUnroll(), xsAxes, ysAxes);
  pruned->setDiscardableAttrs(scan->getDiscardableAttrDictionary());
  rewriter.inlineRegionBefore(scan.getBody(), pruned.getBody(), pruned.getBody().end());

  Block &body = pruned.getBodyBlock();
  auto yield = cast<YieldOp>(body.getTerminator());
  SmallVector<bool> keepYielded(keepCarries);
  llvm::append_range(keepYielded, keepYs);
  SmallVector<Value> yielded;
  for (auto [v, keep] : llvm::zip(yield.getValues(), keepYielded))
    if (keep)
      yielded.push_back(v);
  rewriter.setInsertionPoint(yield);
  rewriter.replaceOpWithNewOp<YieldOp>(yield, yielded);
  // The dead ops are now used only by each other.
  for (Operation *op : deadOps)
    op->dropAllUses();
  for (Operation *op : deadOps)
    rewriter.eraseOp(op);
  llvm::BitVector eraseArgs(body.getNumArguments());
  for (auto [i, keep] : llvm::enumerate(keepConsts))
    if (!keep)
      eraseArgs.set(i);
  unsigned firstCarry = scan.getNumConsts();
  for (auto [k, keep] : llvm::enumerate(keepCarries))
    if (!keep)
      eraseArgs.set(firstCarry + k);
  unsigned firstXs = firstCarry + scan.getNumCarry();
  for (auto [j, keep] : llvm::enumerate(keepXs))
    if (!keep)
      eraseArgs.set(firstXs + j);
  body.eraseArguments(eraseArgs);

  // Dropped results have no uses: replace the kept ones, then erase.
  SmallVector<bool> keepResults(keepCarries);
  llvm::append_range(keepResults, keepYs);
  unsigned next = 0;
  for (auto [result, keep] : llvm::zip(scan.getResults(), keepResults))
    if (keep)
      rewriter.replaceAllUsesWith(result, pruned.getResult(next++));
  rewriter.eraseOp(scan);
}

/// The ops of `body` that depend on `arg` (transitively, through results and
/// through ops nested in their regions), or nullopt when one of them feeds the
/// terminator at a position other than `position`.
std::optional<llvm::SetVector<Operation *>> opsFedOnlyBy(Block &body, Value arg,
                                                          unsigned position) {
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> worklist = {arg};
  Operation *terminator = body.getTerminator();
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = body.findAncestorOpInBlock(*use.getOwner());
      if (user == terminator) {
        if (use.getOwner() != terminator || use.getOperandNumber() != position)
          return std::nullopt;
        continue;
      }
      if (slice.insert(user))
        llvm::append_range(worklist, user->getResults());
    }
  }
  return slice;
}

/// A ys nobody reads need not be stacked, a const or an xs slice the body
/// never reads need not be passed, and a carry whose final value nobody reads and
/// whose value only feeds its own next value (jax-ml/jax#4968's `_` carry) need not
/// be computed: dropping any of them changes no value that is observed.
struct PruneUnusedScanParts : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScanOp scan, PatternRewriter &rewriter) const override {
    SmallVector<bool> keepConsts, keepCarries, keepXs, keepYs;
    llvm::SetVector<Operation *> deadOps;
    Block &body = scan.getBodyBlock();
    for (auto [k, arg] : llvm::enumerate(scan.getCarryArgs())) {
      std::optional<llvm::SetVector<Operation *>> slice;
      bool dead = scan.getResult(k).use_empty() && (slice = opsFedOnlyBy(body, arg, k)) &&
                  llvm::all_of(*slice, [](Operation *op) { return isPure(op); });
      keepCarries.push_back(!dead);
      if (dead)
        deadOps.insert(slice->begin(), slice->end());
    }
    // A const or xs slice read only by dead ops is unused once they are gone.
    auto usedByLiveOps = [&](BlockArgument arg) {
      return llvm::any_of(arg.getUsers(), [&](Operation *user) {
        return !deadOps.contains(body.findAncestorOpInBlock(*user));
      });
    };
    for (BlockArgument arg : scan.getConstArgs())
      keepConsts.push_back(usedByLiveOps(arg));
    for (BlockArgument slice : scan.getXSliceArgs())
      keepXs.push_back(usedByLiveOps(slice));
    for (Value ys : scan.getYs())
      keepYs.push_back(!ys.use_empty());
    auto all = [](ArrayRef<bool> flags) { return llvm::all_of(flags, [](bool k) { return k; }); };
    if (all(keepConsts) && all(keepCarries) && all(keepXs) && all(keepYs))
      return rewriter.notifyMatchFailure(scan, "every const, carry, xs and ys is used");
    pruneScan(rewriter, scan, keepConsts, keepCarries, keepXs, keepYs, deadOps);
    return success();
  }
};

} // namespace

void ScanOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<PruneUnusedScanParts>(context);
}

//===----------------------------------------------------------------------===//
// RegionBranchOpInterface and LoopLikeOpInterface
//===----------------------------------------------------------------------===//

// Control flow, as scf.for's: the scan enters its body (unless length is 0),
// and the body returns to itself or leaves. The carries are forwarded: the
// inits on entry, the yielded carries on each edge. The ys slices are stacked,
// not forwarded, and the consts and xs slices are not successor inputs, so
// analyses treat the ys results and those block arguments as unknown.
void ScanOp::getSuccessorRegions(RegionBranchPoint,
                                 SmallVectorImpl<RegionSuccessor> &regions) {
  regions.emplace_back(&getBody(), getCarryArgs());
  regions.emplace_back(getOperation(), getFinalCarries());
}

void ScanOp::getEntrySuccessorRegions(ArrayRef<Attribute>,
                                      SmallVectorImpl<RegionSuccessor> &regions) {
  // The length is static: a scan of length 0 never enters its body, any
  // other always does.
  if (getLength() == 0)
    regions.emplace_back(getOperation(), getFinalCarries());
  else
    regions.emplace_back(&getBody(), getCarryArgs());
}

OperandRange ScanOp::getEntrySuccessorOperands(RegionSuccessor) { return getInits(); }

void ScanOp::getRegionInvocationBounds(ArrayRef<Attribute>,
                                       SmallVectorImpl<InvocationBounds> &bounds) {
  uint64_t length = getLength();
  if (length > std::numeric_limits<unsigned>::max())
    bounds.push_back(InvocationBounds::getUnknown());
  else
    bounds.emplace_back((unsigned)length, (unsigned)length);
}

SmallVector<Region *> ScanOp::getLoopRegions() { return {&getBody()}; }

MutableArrayRef<OpOperand> ScanOp::getInitsMutable() {
  return getOperation()->getOpOperands().slice(getNumConsts(), getNumCarry());
}

Block::BlockArgListType ScanOp::getRegionIterArgs() { return getCarryArgs(); }

std::optional<MutableArrayRef<OpOperand>> ScanOp::getYieldedValuesMutable() {
  auto yield = dyn_cast<YieldOp>(getBodyBlock().back());
  if (!yield)
    return std::nullopt;
  return yield->getOpOperands().take_front(getNumCarry());
}

std::optional<ResultRange> ScanOp::getLoopResults() { return getFinalCarries(); }

std::optional<APInt> ScanOp::getStaticTripCount() {
  return APInt(/*numBits=*/64, getLength());
}
