//===- InterpretControlFlow.cpp - while and cond --------------------------===//
//
// lax.while runs its cond region on the current carries and, while that
// yields true, its body region; there is no bound on the number of
// iterations (JAX has none either). lax.cond runs the one branch its index
// selects: an i32 index i in [0, N-1] branch i, any other the last branch
// (jax.jit's semantics); an i1 index branch 1 when true.
//
//===----------------------------------------------------------------------===//
#include "reference/Evaluator.h"

#include "dialect/LaxControlFlowOps.h"

#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::interp;
using llvm::SmallVector;

std::optional<FailureOr<SmallVector<Tensor>>>
Evaluator::evalControlFlow(Operation *op) {
  if (auto cond = dyn_cast<lax::CondOp>(op)) {
    unsigned branch = cond.selectBranch(lookup(cond.getIndex()).getInt(0));
    SmallVector<Tensor> args;
    for (Value v : cond.getBranchOperands())
      args.push_back(lookup(v));
    return runBlock(cond.getBranchBlock(branch), std::move(args));
  }

  auto loop = dyn_cast<lax::WhileOp>(op);
  if (!loop)
    return std::nullopt;
  SmallVector<Tensor> carries;
  for (Value v : loop.getInits())
    carries.push_back(lookup(v));
  // The consts of both regions are bound once, in a scope around the loop,
  // rather than copied into each iteration's arguments.
  pushScope();
  llvm::scope_exit leave([&] { popScope(); });
  for (auto [arg, v] : llvm::zip(loop.getCondConstArgs(), loop.getCondConsts()))
    bind(arg, lookup(v));
  for (auto [arg, v] : llvm::zip(loop.getBodyConstArgs(), loop.getBodyConsts()))
    bind(arg, lookup(v));
  unsigned numCondConsts = loop.getNumCondConsts();
  unsigned numBodyConsts = loop.getNumBodyConsts();
  while (true) {
    FailureOr<SmallVector<Tensor>> predicate =
        runBlock(loop.getCondBlock(), carries, numCondConsts);
    if (failed(predicate))
      return FailureOr<SmallVector<Tensor>>(failure());
    if ((*predicate)[0].getInt(0) == 0)
      return FailureOr<SmallVector<Tensor>>(std::move(carries));
    FailureOr<SmallVector<Tensor>> next =
        runBlock(loop.getBodyBlock(), std::move(carries), numBodyConsts);
    if (failed(next))
      return FailureOr<SmallVector<Tensor>>(failure());
    carries = std::move(*next);
  }
}
