//===- ParallelLoopsToRuntime.cpp - --kiln-parallel-loops-to-runtime ------===//
//
// Each call of a kiln-outline-parallel-loops placeholder,
// `__kiln_parallel_for_<k>(trips, captures...)` (in the LLVM dialect: the
// captures' descriptors spread into scalars), becomes
//   ctx = the captures, stored in a stack struct of their types
//   kiln_rt_parallel_for(@__kiln_parallel_task_<k>, ctx, trips)
// and `__kiln_parallel_task_<k>(ctx, begin, end)` loads them and calls
// `__kiln_parallel_body_<k>(begin, end, captures...)`. The runtime runs the
// ranges on its pool (runtime/cpu/KilnThreads.cpp) and returns when all
// have run, so the struct outlives every reader; it is allocated once in
// the caller's entry block, so a call inside a loop does not grow the stack.
//
//===----------------------------------------------------------------------===//
#include "lowering/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"

namespace kiln {
#define GEN_PASS_DEF_PARALLELLOOPSTORUNTIME
#include "lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
using kiln::kParallelBodyPrefix;
using kiln::kParallelForPrefix;
constexpr llvm::StringLiteral kTaskPrefix = "__kiln_parallel_task_";
constexpr llvm::StringLiteral kRuntime = "kiln_rt_parallel_for";

struct ParallelLoopsToRuntimePass
    : kiln::impl::ParallelLoopsToRuntimeBase<ParallelLoopsToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::LLVMFuncOp> placeholders;
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      if (fn.isExternal() && fn.getSymName().starts_with(kParallelForPrefix))
        placeholders.push_back(fn);
    if (placeholders.empty())
      return;
    MLIRContext *context = module.getContext();
    OpBuilder b(context);
    auto ptr = LLVM::LLVMPointerType::get(context);
    Type i64 = b.getI64Type(), voidType = LLVM::LLVMVoidType::get(context);
    auto runtime = module.lookupSymbol<LLVM::LLVMFuncOp>(kRuntime);
    if (!runtime) {
      b.setInsertionPointToStart(module.getBody());
      runtime = LLVM::LLVMFuncOp::create(
          b, module.getLoc(), kRuntime, LLVM::LLVMFunctionType::get(voidType, {ptr, ptr, i64}));
    }
    // Every placeholder call, found in one walk.
    llvm::StringMap<SmallVector<LLVM::CallOp>> calls;
    module.walk([&](LLVM::CallOp call) {
      if (std::optional<StringRef> callee = call.getCallee())
        if (callee->starts_with(kParallelForPrefix))
          calls[*callee].push_back(call);
    });
    SymbolTable symbols(module);
    for (LLVM::LLVMFuncOp placeholder : placeholders)
      if (failed(lower(symbols, placeholder, calls[placeholder.getSymName()], runtime)))
        return signalPassFailure();
  }

  LogicalResult lower(SymbolTable &symbols, LLVM::LLVMFuncOp placeholder,
                      ArrayRef<LLVM::CallOp> calls, LLVM::LLVMFuncOp runtime) {
    MLIRContext *context = placeholder.getContext();
    StringRef suffix = placeholder.getSymName().drop_front(kParallelForPrefix.size());
    auto body = symbols.lookup<LLVM::LLVMFuncOp>((kParallelBodyPrefix + suffix).str());
    ArrayRef<Type> params = placeholder.getFunctionType().getParams();
    if (!body || params.empty() || body.getFunctionType().getNumParams() != params.size() + 1)
      return placeholder.emitError("parallel loop placeholder without its body function");
    ArrayRef<Type> captureTypes = params.drop_front();
    auto ctxType = LLVM::LLVMStructType::getLiteral(context, captureTypes);
    OpBuilder b(context);
    auto ptr = LLVM::LLVMPointerType::get(context);
    Type i64 = b.getI64Type(), voidType = LLVM::LLVMVoidType::get(context);
    Location loc = placeholder.getLoc();

    // The body's only caller is the task (below): internal, LLVM inlines it
    // there and drops it, rather than compiling it twice.
    body.setLinkage(LLVM::Linkage::Internal);
    // The task: (ctx, begin, end) -> body(begin, end, *ctx...).
    b.setInsertionPointAfter(body);
    auto task = LLVM::LLVMFuncOp::create(b, loc, (kTaskPrefix + suffix).str(),
                                         LLVM::LLVMFunctionType::get(voidType, {ptr, i64, i64}));
    task.setLinkage(LLVM::Linkage::Internal);
    Block *entry = task.addEntryBlock(b);
    b.setInsertionPointToStart(entry);
    SmallVector<Value> args = {entry->getArgument(1), entry->getArgument(2)};
    for (auto [i, type] : llvm::enumerate(captureTypes)) {
      Value field = LLVM::GEPOp::create(b, loc, ptr, ctxType, entry->getArgument(0),
                                        ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
      args.push_back(LLVM::LoadOp::create(b, loc, type, field));
    }
    LLVM::CallOp::create(b, loc, body, args);
    LLVM::ReturnOp::create(b, loc, ValueRange());

    // Each call: store the captures, hand the task to the runtime.
    for (LLVM::CallOp call : calls) {
      auto caller = call->getParentOfType<LLVM::LLVMFuncOp>();
      b.setInsertionPointToStart(&caller.getBody().front());
      Value one = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1));
      Value ctx = LLVM::AllocaOp::create(b, loc, ptr, ctxType, one);
      b.setInsertionPoint(call);
      for (auto [i, value] : llvm::enumerate(call.getArgOperands().drop_front())) {
        Value field = LLVM::GEPOp::create(b, loc, ptr, ctxType, ctx,
                                          ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
        LLVM::StoreOp::create(b, loc, value, field);
      }
      Value fn = LLVM::AddressOfOp::create(b, loc, ptr, task.getSymName());
      LLVM::CallOp::create(b, call.getLoc(), runtime,
                           ValueRange{fn, ctx, call.getArgOperands().front()});
      call.erase();
    }
    symbols.erase(placeholder);
    return success();
  }
};
} // namespace
