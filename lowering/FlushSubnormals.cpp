//===- FlushSubnormals.cpp - run compiled code with subnormals flushed ----===//
//
// XLA:CPU computes with subnormal floats flushed to zero (x86's FTZ and DAZ
// bits, set around its compiled code), so jax.jit's sign(1e-45) is 0 and
// its log(1e-45) -inf. This pass makes Kiln's code run in the same mode:
// each function entered from outside the module's own calls (the public
// entries) or on another thread (the parallel loops' bodies,
// __kiln_parallel_body_*, kiln-outline-parallel-loops) sets the mode first (kiln_rt_flush_subnormals_begin,
// runtime/cpu/KilnFloatMode.cpp) and restores the caller's before each
// return. The mode is the thread's, so nothing else in the function
// changes; nested entries save and restore the same bits.
//
//===----------------------------------------------------------------------===//
#include "lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace kiln {
#define GEN_PASS_DEF_FLUSHSUBNORMALS
#include "lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kBegin = "kiln_rt_flush_subnormals_begin";
constexpr llvm::StringLiteral kRestore = "kiln_rt_set_float_mode";

/// The declaration of runtime function `name`, added when missing.
func::FuncOp runtimeFunction(ModuleOp module, StringRef name, FunctionType type) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
  fn.setPrivate();
  return fn;
}

/// Whether `fn` is entered from outside the module's own calls.
bool isEnteredFromOutside(func::FuncOp fn) {
  return !fn.isExternal() &&
         (fn.isPublic() || fn.getSymName().starts_with(kiln::kParallelBodyPrefix));
}

struct FlushSubnormalsPass : kiln::impl::FlushSubnormalsBase<FlushSubnormalsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> entries;
    for (auto fn : module.getOps<func::FuncOp>())
      if (isEnteredFromOutside(fn))
        entries.push_back(fn);
    if (entries.empty())
      return;
    OpBuilder b(module.getContext());
    Type i32 = b.getI32Type();
    func::FuncOp begin = runtimeFunction(module, kBegin, b.getFunctionType({}, {i32}));
    func::FuncOp restore = runtimeFunction(module, kRestore, b.getFunctionType({i32}, {}));
    for (func::FuncOp fn : entries) {
      b.setInsertionPointToStart(&fn.getBody().front());
      Value saved = func::CallOp::create(b, fn.getLoc(), begin).getResult(0);
      fn.walk([&](func::ReturnOp ret) {
        b.setInsertionPoint(ret);
        func::CallOp::create(b, ret.getLoc(), restore, saved);
      });
    }
  }
};
} // namespace
