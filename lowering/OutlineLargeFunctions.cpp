//===- OutlineLargeFunctions.cpp - --kiln-outline-large-functions ---------===//
//
// Cuts a large bufferized function into runs of top-level operations, each
// outlined into a private function called in its place (Passes.td says why
// this is sound and which operations stay).
//
//===----------------------------------------------------------------------===//
#include "lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

namespace kiln {
#define GEN_PASS_DEF_OUTLINELARGEFUNCTIONS
#include "lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// Operations in `op`, itself included.
int64_t countOps(Operation *op) {
  int64_t n = 0;
  op->walk([&](Operation *) { ++n; });
  return n;
}

/// A static stack allocation: no operands, so it can move to the body's
/// start (a dynamic one depends on values computed before it).
bool isStaticAlloca(Operation &op) {
  return isa<memref::AllocaOp>(op) && op.getNumOperands() == 0;
}

/// A constant, or a pure view of a buffer (subview, reshape, cast): cloned
/// into each part that reads it rather than passed.
bool isRematerializable(Operation &op) {
  if (op.getNumRegions() != 0 || op.getNumResults() != 1)
    return false;
  if (op.hasTrait<OpTrait::ConstantLike>())
    return true;
  return isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
             memref::CastOp, memref::ReinterpretCastOp>(op);
}

/// Whether `op` may go into a part: not a stack allocation (kept in the
/// caller) or an LLVM dialect operation (a stack save/restore must stay
/// with its partner).
bool isMovable(Operation &op) {
  if (op.hasTrait<OpTrait::IsTerminator>() || isa<memref::AllocaOp>(op))
    return false;
  return !isa<LLVM::LLVMDialect>(op.getDialect());
}

/// The attribute naming a part's noalias LLVM parameters.
constexpr llvm::StringLiteral kNoAliasParamsAttr = "kiln.noalias_params";
/// Most values a part takes (a view's source counted, not the view).
constexpr size_t kMaxInputs = 48;

struct Outliner {
  func::FuncOp fn;
  Block &body;
  SymbolTable &symbols;
  unsigned next = 0;
  /// Results of earlier parts that are buffers they allocated.
  llvm::DenseSet<Value> freshResults;

  /// The top-level operation of `body` that holds `v`'s definition, or
  /// null for the body's own arguments.
  Operation *topLevelDefinition(Value v) {
    Operation *def = v.getDefiningOp();
    if (!def)
      def = v.getParentBlock()->getParentOp();
    if (def == fn.getOperation())
      return nullptr;
    return body.findAncestorOpInBlock(*def);
  }

  void outline(ArrayRef<Operation *> run) {
    llvm::SmallPtrSet<Operation *, 32> inRun(run.begin(), run.end());
    auto isInside = [&](Operation *user) {
      Operation *top = body.findAncestorOpInBlock(*user);
      return top && inRun.contains(top);
    };
    // Arguments: values defined before the run (or the body's arguments)
    // that the run reads. Constants and static views of a value (subviews,
    // reshapes) are cloned into the part instead, so that each memref
    // argument is a whole buffer.
    llvm::SetVector<Value> inputs;
    llvm::SetVector<Operation *> rematerialized;
    std::function<void(Value)> need = [&](Value v) {
      Operation *def = topLevelDefinition(v);
      if (def && inRun.contains(def))
        return;
      if (def && isRematerializable(*def)) {
        if (rematerialized.insert(def))
          for (Value operand : def->getOperands())
            need(operand);
        return;
      }
      inputs.insert(v);
    };
    for (Operation *op : run)
      op->walk([&](Operation *nested) {
        for (Value v : nested->getOperands())
          need(v);
      });
    // Results: the run's values read after it.
    SmallVector<Value> outputs;
    for (Operation *op : run)
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(), [&](Operation *u) { return !isInside(u); }))
          outputs.push_back(r);

    OpBuilder b(fn);
    SmallVector<Type> inTypes, outTypes;
    for (Value v : inputs)
      inTypes.push_back(v.getType());
    for (Value v : outputs)
      outTypes.push_back(v.getType());
    std::string name;
    do
      name = ("__kiln_outlined_" + fn.getSymName() + "_" + llvm::Twine(next++)).str();
    while (symbols.lookup(name));
    b.setInsertionPointAfter(fn);
    auto part = func::FuncOp::create(b, run.front()->getLoc(), name,
                                     b.getFunctionType(inTypes, outTypes));
    part.setPrivate();
    symbols.insert(part);
    Block *entry = part.addEntryBlock();
    // noalias on the buffers the caller allocated (memref.alloc or
    // alloca), which the loop vectorizer needs to do without runtime
    // overlap checks: sound when every memref argument is such a buffer
    // (each passed once; views are cloned, not passed) or the caller's own
    // argument, which no fresh buffer overlaps. (An earlier part's result
    // could be a view of one of them.)
    auto isFresh = [&](Value v) {
      return isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(v.getDefiningOp()) ||
             freshResults.contains(v);
    };
    bool rootsOnly = llvm::all_of(inputs, [&](Value v) {
      return !isa<BaseMemRefType>(v.getType()) || isFresh(v) ||
             (isa<BlockArgument>(v) && v.getParentBlock() == &body);
    });
    // convert-func-to-llvm drops argument attributes of memrefs, so the
    // positions of those buffers' pointers among the LLVM function's
    // parameters (a rank-r memref is 3 + 2r of them: allocated and aligned
    // pointer, offset, sizes, strides) are recorded for the host JIT.
    SmallVector<int64_t> noaliasParams;
    int64_t param = 0;
    for (Value v : inputs) {
      auto memref = dyn_cast<MemRefType>(v.getType());
      if (memref && rootsOnly && isFresh(v)) {
        noaliasParams.push_back(param);
        noaliasParams.push_back(param + 1);
      }
      param += memref ? 3 + 2 * memref.getRank() : 1;
    }
    bool scalarsOrRanked = llvm::all_of(inTypes, [](Type t) {
      return isa<MemRefType>(t) || !isa<BaseMemRefType>(t);
    });
    if (scalarsOrRanked && !noaliasParams.empty())
      part->setAttr(kNoAliasParamsAttr, b.getDenseI64ArrayAttr(noaliasParams));

    // The call where the run was, then the run moved into the part.
    b.setInsertionPoint(run.front());
    auto call = func::CallOp::create(b, run.front()->getLoc(), part, inputs.getArrayRef());
    b.setInsertionPointToStart(entry);
    IRMapping cloned;
    for (auto [i, v] : llvm::enumerate(inputs.getArrayRef()))
      cloned.map(v, entry->getArgument(i));
    // In definition order: a view's source is mapped before the view.
    SmallVector<Operation *> remat(rematerialized.begin(), rematerialized.end());
    llvm::sort(remat, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    for (Operation *def : remat)
      b.clone(*def, cloned);
    for (Operation *op : run)
      op->moveBefore(entry, entry->end());
    auto inPart = [&](OpOperand &use) { return part->isProperAncestor(use.getOwner()); };
    for (auto [i, v] : llvm::enumerate(inputs.getArrayRef()))
      Value(v).replaceUsesWithIf(entry->getArgument(i), inPart);
    for (Operation *def : remat)
      for (Value r : def->getResults())
        r.replaceUsesWithIf(cloned.lookup(r), inPart);
    b.setInsertionPointToEnd(entry);
    func::ReturnOp::create(b, part.getLoc(), outputs);
    for (auto [v, result] : llvm::zip(outputs, call.getResults()))
      v.replaceUsesWithIf(result, [&](OpOperand &use) { return !inPart(use); });
    // A part's results that are its own memref.alloc buffers, when all its
    // memref results are, are fresh buffers to the parts after it.
    auto allocated = [](Value v) {
      return !isa<BaseMemRefType>(v.getType()) || isa_and_nonnull<memref::AllocOp>(v.getDefiningOp());
    };
    if (llvm::all_of(outputs, allocated))
      for (auto [v, result] : llvm::zip(outputs, call.getResults()))
        if (isa<BaseMemRefType>(v.getType()))
          freshResults.insert(result);
  }

  void run(int64_t maxOps) {
    // Static stack allocations to the body's start (one allocation scope:
    // their lifetime is the call's either way).
    Operation *first = &body.front();
    for (Operation &op : llvm::make_early_inc_range(body.without_terminator()))
      if (isStaticAlloca(op) && &op != first)
        op.moveBefore(first);
    SmallVector<Operation *> current;
    llvm::SmallPtrSet<Operation *, 32> inCurrent;
    llvm::DenseSet<Value> currentInputs;
    int64_t size = 0;
    auto flush = [&] {
      // A run of one operation gains nothing from a call around it.
      if (current.size() > 1)
        outline(current);
      current.clear();
      inCurrent.clear();
      currentInputs.clear();
      size = 0;
    };
    for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
      // A view of a buffer the current run makes goes with the run (the
      // part's clone would precede the buffer); other views and constants
      // stay, cloned into each part that reads them.
      bool readsRun = llvm::any_of(op.getOperands(), [&](Value v) {
        Operation *def = v.getDefiningOp();
        return def && inCurrent.contains(def);
      });
      if (isStaticAlloca(op) || (isRematerializable(op) && !readsRun))
        continue;
      if (!isMovable(op)) {
        flush(); // a barrier: nothing moves across it
        continue;
      }
      // Values the op reads from outside the run: a part with thousands of
      // parameters (a concatenation of hundreds of buffers) costs the code
      // generator more than the split saves, so a run stops at kMaxInputs.
      llvm::SmallVector<Value> reads;
      op.walk([&](Operation *nested) {
        for (Value v : nested->getOperands()) {
          Operation *def = topLevelDefinition(v);
          if (!(def && (inCurrent.contains(def) || isRematerializable(*def) ||
                        op.isAncestor(def))) &&
              !currentInputs.contains(v))
            reads.push_back(v);
        }
      });
      if (currentInputs.size() + reads.size() > kMaxInputs)
        flush();
      currentInputs.insert(reads.begin(), reads.end());
      current.push_back(&op);
      inCurrent.insert(&op);
      size += countOps(&op);
      if (size >= maxOps)
        flush();
    }
    flush();
  }
};

struct OutlineLargeFunctionsPass
    : kiln::impl::OutlineLargeFunctionsBase<OutlineLargeFunctionsPass> {
  using OutlineLargeFunctionsBase::OutlineLargeFunctionsBase;

  void runOnOperation() override {
    if (maxOpsPerFunction <= 0)
      return;
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp fn : functions) {
      if (fn.isExternal() || !fn.getBody().hasOneBlock() ||
          countOps(fn) <= 2 * maxOpsPerFunction)
        continue;
      Outliner{fn, fn.getBody().front(), symbols}.run(maxOpsPerFunction);
    }
  }
};

} // namespace
