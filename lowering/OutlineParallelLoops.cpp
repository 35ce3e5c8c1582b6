//===- OutlineParallelLoops.cpp - --kiln-outline-parallel-loops -----------===//
//
// Each outermost one-dimensional scf.parallel without reductions becomes a
// private function that runs a range of its iterations, and a call of the
// placeholder `__kiln_parallel_for_<k>(trips, captures...)` where the loop
// was; kiln-parallel-loops-to-runtime turns that call into one of the
// runtime's kiln_rt_parallel_for once the program is in the LLVM dialect.
// Sound: scf.parallel's iterations are independent and may run in any
// order or at once, which is all the runtime does with the ranges; the
// body reads the same values (captured by value: memrefs by descriptor, so
// writes reach the same buffers).
//
//===----------------------------------------------------------------------===//
#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace kiln {
#define GEN_PASS_DEF_OUTLINEPARALLELLOOPS
#include "lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// A constant the body uses: cloned into it rather than passed.
bool isClonedConstant(Value v) {
  Operation *def = v.getDefiningOp();
  return def && def->hasTrait<OpTrait::ConstantLike>() && def->getNumOperands() == 0 &&
         def->getNumRegions() == 0;
}

struct OutlineParallelLoopsPass
    : kiln::impl::OutlineParallelLoopsBase<OutlineParallelLoopsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<scf::ParallelOp> loops;
    module.walk([&](scf::ParallelOp loop) {
      if (loop.getNumLoops() == 1 && loop.getNumReductions() == 0 &&
          !loop->getParentOfType<scf::ParallelOp>())
        loops.push_back(loop);
    });
    unsigned next = 0;
    for (scf::ParallelOp loop : loops)
      outline(loop, symbols, next);
  }

  void outline(scf::ParallelOp loop, SymbolTable &symbols, unsigned &next) {
    auto parent = loop->getParentOfType<func::FuncOp>();
    Location loc = loop.getLoc();
    // Captures: what the body reads from above it, then the lower bound and
    // step (iteration i of a range is lb + i * step).
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(loop.getRegion(), captured);
    captured.insert(loop.getLowerBound()[0]);
    captured.insert(loop.getStep()[0]);
    SmallVector<Value> constants, inputs;
    for (Value v : captured)
      (isClonedConstant(v) ? constants : inputs).push_back(v);

    std::string suffix;
    do
      suffix = (parent.getSymName() + "_" + llvm::Twine(next++)).str();
    while (symbols.lookup((kiln::kParallelBodyPrefix + suffix).str()) ||
           symbols.lookup((kiln::kParallelForPrefix + suffix).str()));

    OpBuilder b(parent);
    b.setInsertionPointAfter(parent);
    Type index = b.getIndexType();
    SmallVector<Type> inputTypes;
    for (Value v : inputs)
      inputTypes.push_back(v.getType());
    SmallVector<Type> bodyTypes = {index, index};
    bodyTypes.append(inputTypes);
    auto body = func::FuncOp::create(b, loc, (kiln::kParallelBodyPrefix + suffix).str(),
                                     b.getFunctionType(bodyTypes, {}));
    body.setPrivate();
    symbols.insert(body);
    SmallVector<Type> placeholderTypes = {index};
    placeholderTypes.append(inputTypes);
    auto placeholder = func::FuncOp::create(b, loc, (kiln::kParallelForPrefix + suffix).str(),
                                            b.getFunctionType(placeholderTypes, {}));
    placeholder.setPrivate();
    // A use of the body until kiln-parallel-loops-to-runtime calls it.
    placeholder->setAttr("kiln.parallel_body", FlatSymbolRefAttr::get(body));
    symbols.insert(placeholder);

    // The body: for i in [begin, end): the loop's body at lb + i * step.
    Block *entry = body.addEntryBlock();
    b.setInsertionPointToStart(entry);
    IRMapping mapping;
    for (Value c : constants)
      mapping.map(c, b.clone(*c.getDefiningOp())->getResult(0));
    for (auto [i, v] : llvm::enumerate(inputs))
      mapping.map(v, entry->getArgument(i + 2));
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto range = scf::ForOp::create(b, loc, entry->getArgument(0), entry->getArgument(1), one);
    b.setInsertionPointToStart(range.getBody());
    Value scaled = arith::MulIOp::create(b, loc, range.getInductionVar(),
                                         mapping.lookup(loop.getStep()[0]));
    Value iv = arith::AddIOp::create(b, loc, mapping.lookup(loop.getLowerBound()[0]), scaled);
    mapping.map(loop.getInductionVars()[0], iv);
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, mapping);
    b.setInsertionPointToEnd(entry);
    func::ReturnOp::create(b, loc);

    // The placeholder's call: trips = ceil((ub - lb) / step), 0 when ub <= lb.
    b.setInsertionPoint(loop);
    Value lb = loop.getLowerBound()[0], ub = loop.getUpperBound()[0], step = loop.getStep()[0];
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value span = arith::MaxSIOp::create(b, loc, arith::SubIOp::create(b, loc, ub, lb), zero);
    Value stepLess = arith::SubIOp::create(b, loc, step, arith::ConstantIndexOp::create(b, loc, 1));
    Value trips = arith::DivUIOp::create(b, loc, arith::AddIOp::create(b, loc, span, stepLess), step);
    SmallVector<Value> operands = {trips};
    operands.append(inputs);
    func::CallOp::create(b, loc, placeholder, operands);
    loop.erase();
  }
};
} // namespace
