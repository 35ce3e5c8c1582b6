//===- GroupRuntimeGemms.cpp - independent runtime GEMMs as one call ------===//
//
// Two to four calls of kiln_rt_sgemm (or of kiln_rt_dgemm) in one block
// that do not depend on each other become one call of
// kiln_rt_sgemm_group<N> (runtime/cpu), which runs them as one parallel
// loop over their blocks: the two products of an RNN step (x_t Wx and
// h Wh, 6 MFLOP each) one per thread, instead of each cut in two bands
// that both pack the same operand; the small products of a backward step,
// each below the size worth a parallel call, together on all cores.
//
// A later call joins a group when it can be moved up to the group's first
// call: its operands are defined above that call, or by pure ops between
// them (view ops: moved along, in order); no op it is moved past, nor any
// call of the group, writes a buffer it reads or reads or writes a buffer
// it writes (LocalAliasAnalysis: distinct allocations and an allocation
// and a function argument do not alias; anything else unknown may). Sound:
// the calls of a group then read the same values as in sequence and write
// disjoint buffers, so running them in any order, or at once, writes what
// the sequence wrote.
//
//===----------------------------------------------------------------------===//
#include "lowering/LaxToLinalg.h"
#include "lowering/Passes.h"

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace kiln {
#define GEN_PASS_DEF_GROUPRUNTIMEGEMMS
#include "lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// The runtime's single GEMMs; a group of N calls kiln_rt_?gemm_group<N>.
constexpr llvm::StringLiteral kGemms[] = {kiln::kRuntimeSgemm, kiln::kRuntimeDgemm};
/// The most calls of a group (the runtime's kMaxGemmGroup).
constexpr size_t kMaxGroup = 4;
/// How far past a group's first call a partner is looked for: the search
/// stays linear in the block's size.
constexpr int kMaxDistance = 64;

/// The callee of a runtime GEMM call, or empty.
StringRef gemmCallee(Operation *op) {
  auto call = dyn_cast<func::CallOp>(op);
  if (!call || call.getNumOperands() != 5)
    return {};
  for (StringRef name : kGemms)
    if (call.getCallee() == name)
      return name;
  return {};
}

/// A buffer an op reads or writes.
struct Access {
  Value buffer;
  bool write;
};

/// The buffers `op` reads and writes (a GEMM call: A and B read, C written;
/// an allocation: nothing), or nullopt when an effect is on no known value.
std::optional<SmallVector<Access>> accessesOf(Operation *op) {
  if (!gemmCallee(op).empty())
    return SmallVector<Access>{{op->getOperand(0), false},
                               {op->getOperand(1), false},
                               {op->getOperand(2), true}};
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects = getEffectsRecursively(op);
  if (!effects)
    return std::nullopt;
  SmallVector<Access> accesses;
  for (const MemoryEffects::EffectInstance &effect : *effects) {
    if (isa<MemoryEffects::Allocate>(effect.getEffect()))
      continue;
    Value value = effect.getValue();
    if (!value)
      return std::nullopt;
    accesses.push_back({value, !isa<MemoryEffects::Read>(effect.getEffect())});
  }
  return accesses;
}

/// Whether an access of `a` and one of `b` may touch the same memory, one
/// of them writing.
bool conflict(AliasAnalysis &aliases, ArrayRef<Access> a, ArrayRef<Access> b) {
  for (const Access &x : a)
    for (const Access &y : b)
      if ((x.write || y.write) && !aliases.alias(x.buffer, y.buffer).isNo())
        return true;
  return false;
}

/// Whether `op` may run earlier whatever runs around it: no regions, and
/// no effects but the allocation of its results (view ops, constants,
/// memref.alloc).
bool movesFreely(Operation *op) {
  if (op->getNumRegions() != 0)
    return false;
  if (isPure(op))
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::all_of(instances, [&](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Allocate>(e.getEffect()) && e.getValue() &&
           e.getValue().getDefiningOp() == op;
  });
}

/// An op between a group's calls: the buffers it touches, once asked.
struct Passed {
  Operation *op;
  std::optional<SmallVector<Access>> accesses;
};

/// Groups the GEMM calls of `block` (not of its nested blocks).
void groupBlock(Block &block, AliasAnalysis &aliases, ModuleOp module) {
  for (auto it = block.begin(); it != block.end(); ++it) {
    Operation *first = &*it;
    StringRef callee = gemmCallee(first);
    if (callee.empty())
      continue;
    SmallVector<Operation *> group{first};
    SmallVector<Access> groupAccesses = *accessesOf(first);
    SmallVector<Passed> passed;
    int distance = 0;
    for (Operation *op = first->getNextNode();
         op && group.size() < kMaxGroup && distance < kMaxDistance && !op->hasTrait<OpTrait::IsTerminator>();
         op = op->getNextNode(), ++distance) {
      if (gemmCallee(op) != callee) {
        std::optional<SmallVector<Access>> accesses = accessesOf(op);
        if (!accesses)
          break; // nothing may move past it
        passed.push_back({op, accesses});
        continue;
      }
      // The ops between that define this call's operands, transitively.
      llvm::SetVector<Operation *> slice;
      SmallVector<Value> worklist(op->getOperands());
      while (!worklist.empty()) {
        Operation *def = worklist.pop_back_val().getDefiningOp();
        if (!def || def->getBlock() != &block || def->isBeforeInBlock(first) ||
            !slice.insert(def))
          continue;
        llvm::append_range(worklist, def->getOperands());
      }
      SmallVector<Access> accesses = *accessesOf(op);
      bool movable = !conflict(aliases, accesses, groupAccesses);
      for (const Passed &p : passed) {
        if (!movable)
          break;
        if (slice.contains(p.op))
          movable = movesFreely(p.op);
        else
          movable = p.accesses && !conflict(aliases, accesses, *p.accesses);
      }
      if (!movable) {
        passed.push_back({op, accessesOf(op)});
        continue;
      }
      // Move the slice (in block order) and the call up behind the group.
      Operation *anchor = group.back();
      for (const Passed &p : passed)
        if (slice.contains(p.op)) {
          p.op->moveAfter(anchor);
          anchor = p.op;
        }
      op->moveAfter(anchor);
      llvm::erase_if(passed, [&](const Passed &p) { return slice.contains(p.op); });
      group.push_back(op);
      llvm::append_range(groupAccesses, accesses);
      // Continue after the ops passed, not after the moved call.
      op = passed.empty() ? op : passed.back().op;
    }
    if (group.size() < 2)
      continue;
    // One call: each call's (A, B, C), then each call's two flags.
    SmallVector<Value> operands;
    for (Operation *call : group)
      llvm::append_range(operands, call->getOperands().take_front(3));
    for (Operation *call : group)
      llvm::append_range(operands, call->getOperands().drop_front(3));
    OpBuilder b(group.back());
    b.setInsertionPointAfter(group.back());
    std::string name = (callee + "_group" + llvm::Twine(group.size())).str();
    kiln::lowering::declareRuntimeFunction(
        b, module, name, b.getFunctionType(ValueRange(operands).getTypes(), {}));
    auto grouped = func::CallOp::create(b, group.back()->getLoc(), name, TypeRange{}, operands);
    for (Operation *call : group)
      call->erase();
    it = grouped->getIterator();
  }
}

struct GroupRuntimeGemms : kiln::impl::GroupRuntimeGemmsBase<GroupRuntimeGemms> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Block *> blocks;
    module.walk([&](Block *block) {
      for (Operation &op : *block)
        if (!gemmCallee(&op).empty()) {
          blocks.push_back(block);
          break;
        }
    });
    if (blocks.empty())
      return;
    AliasAnalysis aliases(module);
    for (Block *block : blocks)
      groupBlock(*block, aliases, module);
  }
};

} // namespace
