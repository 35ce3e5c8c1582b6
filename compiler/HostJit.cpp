//===- HostJit.cpp - host object code: emit and link ----------------------===//
//
// Emission follows mlir::ExecutionEngine (translate, set the host triple and
// data layout, optimise with makeOptimizingTransformer) but stops at an
// object file, which the compile cache can keep. Linking uses a plain ORC
// LLJIT: a cached object is linked exactly like a fresh one, so a cache hit
// runs the same code as a miss.
//
//===----------------------------------------------------------------------===//
#include "compiler/HostJit.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>

namespace kiln {

namespace {

void initLLVMOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

template <typename T>
bool take(llvm::Expected<T> &value, const char *what, std::string *error) {
  if (value)
    return true;
  if (error)
    *error = std::string(what) + ": " + llvm::toString(value.takeError());
  return false;
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
hostTargetMachine(unsigned optLevel, bool fpContract = false, const ObjectTarget &target = {}) {
  initLLVMOnce();
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb)
    return jtmb.takeError();
  if (target.cpu != "host") {
    // Another CPU of the host's architecture: its own features, not the host's.
    llvm::orc::JITTargetMachineBuilder named(jtmb->getTargetTriple());
    named.setCPU(target.cpu);
    *jtmb = std::move(named);
  }
  if (target.positionIndependent)
    jtmb->setRelocationModel(llvm::Reloc::PIC_);
  // No AVX512-BF16 (nor AVX-NE-CONVERT): LLVM turns every fptrunc to
  // bfloat into VCVTNEPS2BF16, which treats subnormal inputs as zero and
  // flushes subnormal results, where a narrowing convert_element_type (and
  // an f32 computation of a bf16 op, as reduce_min) rounds them: f32 1e-39
  // became bf16 0, not 1.01e-39. And LLVM 22 cannot legalize some bf16
  // vectors with it: a <9 x bfloat> shuffle aborts the code generator ("Do
  // not know how to soft promote this operator's operand"). Without them
  // bf16 is converted in integer arithmetic, exactly, as on AVX2 hosts
  // (bf16-subnormals.mlir and bf16-odd-vector.mlir in
  // tests/differential/regressions).
  jtmb->getFeatures().AddFeature("avx512bf16", false);
  jtmb->getFeatures().AddFeature("avxneconvert", false);
  // No gathers formed by LLVM's vectorizers: on AVX-512 targets (where a
  // masked gather is legal; AVX2 AMD and Intel targets form none) LLVM
  // 22's SLP vectorizer can place a gather of a stack buffer above the
  // stores that fill it: a lax.gather reading a value computed into an
  // alloca read that buffer before it was written, garbage that changed
  // from run to run (`opt -passes=slp-vectorizer -mcpu=znver5`,
  // `skylake-avx512` or `icelake-server` on the JIT's module reproduces it).
  // With prefer-no-gather the vectorizers keep those loads scalar; Kiln's
  // own lowering emits no vector gathers
  // (tests/differential/regressions/gather-of-stack-buffer.mlir).
  jtmb->getFeatures().AddFeature("prefer-no-gather", true);
  jtmb->setCodeGenOptLevel(optLevel >= 3 ? llvm::CodeGenOptLevel::Aggressive
                           : optLevel == 0 ? llvm::CodeGenOptLevel::None
                                           : llvm::CodeGenOptLevel::Default);
  // Fast: the DAG combiner may fuse an fmul feeding an fadd/fsub into one
  // FMA whether or not the IR says `contract`; Standard (LLVM's default)
  // fuses only what the IR allows, which Kiln's lowering never does.
  if (fpContract)
    jtmb->getOptions().AllowFPOpFusion = llvm::FPOpFusion::Fast;
  return jtmb->createTargetMachine();
}

/// Replaces llvm.global_ctors / llvm.global_dtors (the GPU module load and
/// unload of gpu.binary) by two plain functions, `__kiln_init` and
/// `__kiln_fini`, that LoadedObject calls: an object file linked by LLJIT
/// without an ORC platform runtime would not run .init_array entries.
void lowerGlobalCtorsToFunctions(llvm::Module &module) {
  for (auto [global, name] : {std::pair{"llvm.global_ctors", "__kiln_init"},
                              std::pair{"llvm.global_dtors", "__kiln_fini"}}) {
    llvm::GlobalVariable *list = module.getGlobalVariable(global);
    if (!list)
      continue;
    std::vector<std::pair<uint64_t, llvm::Function *>> entries;
    if (auto *array = llvm::dyn_cast<llvm::ConstantArray>(list->getInitializer()))
      for (llvm::Use &u : array->operands())
        if (auto *entry = llvm::dyn_cast<llvm::ConstantStruct>(u.get()))
          if (auto *fn = llvm::dyn_cast<llvm::Function>(entry->getOperand(1)))
            entries.push_back(
                {llvm::cast<llvm::ConstantInt>(entry->getOperand(0))->getZExtValue(), fn});
    std::stable_sort(entries.begin(), entries.end(),
                     [](auto &a, auto &b) { return a.first < b.first; });
    list->eraseFromParent();
    llvm::LLVMContext &ctx = module.getContext();
    auto *fn = llvm::Function::Create(
        llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
        llvm::GlobalValue::ExternalLinkage, name, module);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
    for (auto &[priority, callee] : entries)
      b.CreateCall(callee);
    b.CreateRetVoid();
  }
}

/// The memref allocation functions (KilnRuntimeCpu's caching allocator)
/// return fresh memory, like malloc. Said on their declarations, alias
/// analysis can keep an accumulator in a register instead of storing it to
/// its buffer on every iteration, which otherwise also blocks vectorization.
void markAllocatorsNoAlias(llvm::Module &module) {
  for (const char *name : {"_mlir_memref_to_llvm_alloc", "_mlir_memref_to_llvm_aligned_alloc"})
    if (llvm::Function *fn = module.getFunction(name))
      fn->addRetAttr(llvm::Attribute::NoAlias);
}

/// The largest module (LLVM instructions before optimization) whose loops
/// LLVM unrolls. The seeds' kernels (150-950 instructions) run faster
/// unrolled (seed 004's MLP 0.27 against 0.45 us); past 1,000 unrolling
/// cost compile time for no speed (a scan of 8 blocks of a loop and a
/// matmul: 1.18 s against 0.18 s of codegen, 100 against 93 us).
constexpr size_t kUnrollModuleInstructions = 1000;

/// LLVM options Kiln sets as the command line would, unless the command
/// line set them; once per process, so the compile cache's key (which
/// names the compiler binary) fixes them.
///
/// - unroll-full-max-count=4: full unrolling of loops of at most 4
///   iterations (LLVM's default: any count whose cost is under its
///   threshold). LLVM fully unrolls before its loop vectorizer runs, and
///   Kiln runs no SLP vectorizer after it (compileToHostObject says why):
///   an unrolled 32-step inner loop of a generated contraction became 32
///   scalar FMAs per element, and a 2-layer 8 x 32 MLP ran in 12 us
///   instead of 1 us.
/// - post-RA-scheduler=false: the post-register-allocation list scheduler,
///   which the subtargets of some CPUs enable (AMD Zen; most Intel ones do
///   not), takes time quadratic in a basic block's length: 14 of the 18 s
///   of code generation of a flax CNN's gradient (long straight-line
///   blocks of buffer copies), 0.8 s for jax.jit. Out-of-order cores gain
///   little from it, and without it the code is the same on every host.
constexpr std::pair<llvm::StringLiteral, llvm::StringLiteral> kLlvmOptions[] = {
    {"unroll-full-max-count", "4"},
    {"post-RA-scheduler", "false"},
};
/// Which of kLlvmOptions setKilnLlvmOptions set (rather than the command line).
std::atomic<bool> llvmOptionSet[std::size(kLlvmOptions)];

void setKilnLlvmOptions() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto &options = llvm::cl::getRegisteredOptions();
    for (auto [i, option] : llvm::enumerate(kLlvmOptions)) {
      auto it = options.find(option.first);
      // LLVM reads such an option only when it occurred (some check its
      // position, which 0 means "not given"): it is given as the command
      // line's first argument would give it.
      if (it != options.end() && !it->second->getNumOccurrences())
        llvmOptionSet[i] = !it->second->addOccurrence(1, option.first, option.second);
    }
  });
}

/// LLVM's default pipeline at `optLevel`, as mlir::makeOptimizingTransformer
/// builds it, without the SLP vectorizer (compileToHostObject says why).
void optimizeModule(llvm::Module &module, llvm::TargetMachine *tm, unsigned optLevel) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  setKilnLlvmOptions();
  llvm::PipelineTuningOptions tuning;
  // Unrolling multiplies a large module's code (a 20-layer MLP of 8 x 32
  // matmuls: 13x, and 2.0 s of the 2.3 s LLVM spent on it); past
  // kUnrollModuleInstructions only loops their metadata asks to unroll are
  // (Kiln's own vector code is unrolled before it reaches LLVM).
  size_t instructions = 0;
  for (const llvm::Function &f : module)
    instructions += f.getInstructionCount();
  tuning.LoopUnrolling = instructions <= kUnrollModuleInstructions;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = false;
  llvm::PassBuilder pb(tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = optLevel >= 3   ? llvm::OptimizationLevel::O3
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                  : optLevel == 1 ? llvm::OptimizationLevel::O1
                                                  : llvm::OptimizationLevel::O0;
  llvm::ModulePassManager mpm;
  // Functions marked always_inline (the raw entry's descriptor-taking
  // callee, Compiler.cpp's addRawEntry) are inlined first: the default
  // pipeline's interprocedural passes run before its inliner.
  mpm.addPass(llvm::AlwaysInlinerPass(/*InsertLifetimeIntrinsics=*/false));
  mpm.addPass(level == llvm::OptimizationLevel::O0 ? pb.buildO0DefaultPipeline(level)
                                                   : pb.buildPerModuleDefaultPipeline(level));
  mpm.run(module, mam);
}

/// The calls of intrinsic `id` in `module` that `keep` accepts, collected
/// first so that the caller may replace them.
llvm::SmallVector<llvm::CallInst *> callsOf(llvm::Module &module, llvm::Intrinsic::ID id,
                                            llvm::function_ref<bool(llvm::CallInst *)> keep) {
  llvm::SmallVector<llvm::CallInst *> calls;
  for (llvm::Function &f : module)
    if (f.getIntrinsicID() == id)
      for (llvm::User *user : f.users())
        if (auto *call = llvm::dyn_cast<llvm::CallInst>(user))
          if (call->getCalledFunction() == &f && keep(call))
            calls.push_back(call);
  return calls;
}

/// Rewrites each llvm.ldexp of f16 or bf16 values as the same ldexp in f32,
/// rounded once to the narrow type: LLVM 22's x86 code generator, with
/// AVX-512, promotes a vector f16 ldexp to VSCALEFPS without converting the
/// integer exponents to float, so it scales by their bit patterns read as
/// floats (exp2 of an i32 converted to f16, which InstCombine turns into
/// ldexp(1, n), gave NaN: tests/differential/regressions/exp2-f16-of-i32.mlir;
/// also `llc -mcpu=skylake-avx512`). Exact: an f16 value times 2^n is exact in
/// f32 wherever its f16 rounding is not 0 or inf (then its 11 bits lie
/// between 2^-36 and 2^16); a bf16 one wherever its 8 bits end at 2^-149 or
/// above, and below that it is under 2^-140, which rounds to 0 in both. An
/// overflow is inf in both. So the only rounding is the narrow type's.
void widenNarrowLdexp(llvm::Module &module) {
  for (llvm::CallInst *call : callsOf(module, llvm::Intrinsic::ldexp, [](llvm::CallInst *call) {
         return call->getType()->getScalarType()->isHalfTy() ||
                call->getType()->getScalarType()->isBFloatTy();
       })) {
    llvm::IRBuilder<> b(call);
    llvm::Type *f32 = b.getFloatTy();
    llvm::Type *wide = call->getType()->isVectorTy()
                           ? llvm::VectorType::get(f32, llvm::cast<llvm::VectorType>(call->getType()))
                           : f32;
    llvm::Value *x = b.CreateFPExt(call->getArgOperand(0), wide);
    llvm::Value *scaled = b.CreateIntrinsic(llvm::Intrinsic::ldexp,
                                            {wide, call->getArgOperand(1)->getType()},
                                            {x, call->getArgOperand(1)});
    call->replaceAllUsesWith(b.CreateFPTrunc(scaled, call->getType()));
    call->eraseFromParent();
  }
}

} // namespace

std::string hostTargetDescription() {
  // The host does not change while the process runs: build a target machine
  // once, not on every cached compile.
  static const std::string description = [] {
    auto tm = hostTargetMachine(3);
    if (!tm) {
      llvm::consumeError(tm.takeError());
      return std::string("unknown-host");
    }
    return (*tm)->getTargetTriple().str() + " " + llvm::sys::getHostCPUName().str() + " " +
           (*tm)->getTargetFeatureString().str();
  }();
  return description;
}

/// `module` in LLVM IR for the host: data layout, triple, the host CPU's
/// function attributes, constructors as plain functions, allocators noalias.
static std::unique_ptr<llvm::Module> translateForHost(mlir::ModuleOp module,
                                                      llvm::LLVMContext &context,
                                                      llvm::TargetMachine &tm) {
  // The noalias parameters kiln-outline-large-functions found for its
  // parts (a discardable attribute, which translation drops).
  llvm::StringMap<llvm::SmallVector<int64_t>> noaliasParams;
  module.walk([&](mlir::LLVM::LLVMFuncOp fn) {
    if (auto params = fn->getAttrOfType<mlir::DenseI64ArrayAttr>("kiln.noalias_params"))
      noaliasParams[fn.getSymName()].assign(params.asArrayRef().begin(), params.asArrayRef().end());
  });
  std::unique_ptr<llvm::Module> llvmModule = mlir::translateModuleToLLVMIR(module, context);
  if (!llvmModule)
    return nullptr;
  for (auto &[name, params] : noaliasParams)
    if (llvm::Function *fn = llvmModule->getFunction(name))
      for (int64_t i : params)
        if (i < int64_t(fn->arg_size()) && fn->getArg(i)->getType()->isPointerTy())
          fn->addParamAttr(unsigned(i), llvm::Attribute::NoAlias);
  llvmModule->setDataLayout(tm.createDataLayout());
  llvmModule->setTargetTriple(tm.getTargetTriple());
  // Function attributes for the host CPU, so the optimiser's cost models and
  // the vectoriser see AVX2/AVX-512 where the machine has them. With
  // AVX-512 the loop vectoriser may use all 512 bits (LLVM prefers 256 on
  // these CPUs by default, against clock throttling that recent cores no
  // longer have; Kiln's own vector code is 512 bits wide already).
  std::string cpu = tm.getTargetCPU().str();
  std::string features = tm.getTargetFeatureString().str();
  bool avx512 = llvm::StringRef(features).contains("+avx512f");
  for (llvm::Function &f : *llvmModule)
    if (!f.isDeclaration()) {
      f.addFnAttr("target-cpu", cpu);
      f.addFnAttr("target-features", features);
      if (avx512)
        f.addFnAttr("prefer-vector-width", "512");
    }
  lowerGlobalCtorsToFunctions(*llvmModule);
  markAllocatorsNoAlias(*llvmModule);
  // The parts of a large function (kiln-outline-large-functions) stay
  // functions of their own: inlined back, LLVM would optimize and compile
  // the one large function the split exists to avoid.
  for (llvm::Function &f : *llvmModule)
    if (f.getName().starts_with("__kiln_outlined_"))
      f.addFnAttr(llvm::Attribute::NoInline);
  return llvmModule;
}

/// Clears `reassoc` from every floating-point add, subtract, multiply,
/// divide and negation once the optimizer is done, leaving it on reduction
/// intrinsics (llvm.vector.reduce.*, which it lets sum in a tree). The
/// vectorizers needed it on a contraction's or reduction's adds to reorder
/// the sum (the order Kiln leaves unspecified), but the code generator reads
/// it as a licence for algebra: with `contract` too, x*c1 + x*c2 becomes
/// fma(x, c1, x*c2) and then x*(c1 + c2), which is no order of the sum: an
/// infinite x with c1, c2 of opposite signs gave inf where every order gives
/// NaN (a small dot of a broadcast exp2 overflow by constants:
/// tests/differential/regressions/dot-factoring-infinite.mlir). Sound:
/// clearing a fast-math flag only forbids rewrites.
static void clearReassociation(llvm::Module &module) {
  for (llvm::Function &f : module)
    for (llvm::Instruction &inst : llvm::instructions(f)) {
      unsigned opcode = inst.getOpcode();
      if (opcode == llvm::Instruction::FAdd || opcode == llvm::Instruction::FSub ||
          opcode == llvm::Instruction::FMul || opcode == llvm::Instruction::FDiv ||
          opcode == llvm::Instruction::FNeg)
        inst.setHasAllowReassoc(false);
    }
}

/// Replaces each llvm.masked.store whose mask is a constant by plain stores
/// of its enabled lanes. LLVM 22's x86 code generator, with AVX-512, turns a
/// truncating masked store with one enabled lane into a scalar store of the
/// untruncated element: masked.store(trunc <4 x i64> to <4 x i32>, mask
/// [1, 0, 0, 0]) writes 8 bytes (`llc -mcpu=skylake-avx512`; i32 to i16
/// likewise), so a parallel scan's last lane group of one valid lane,
/// converting i64 to i32, overwrote the next element of its result (with
/// the cost model's thresholds at their minimum;
/// tests/differential/regressions/scan-masked-store-truncated.mlir). Exact:
/// the stores write the same lanes to the same places.
static void scalarizeConstantMaskedStores(llvm::Module &module) {
  for (llvm::CallInst *call :
       callsOf(module, llvm::Intrinsic::masked_store, [](llvm::CallInst *call) {
         return llvm::isa<llvm::Constant>(call->getArgOperand(2));
       })) {
    llvm::IRBuilder<> b(call);
    llvm::Value *value = call->getArgOperand(0), *pointer = call->getArgOperand(1);
    auto *mask = llvm::cast<llvm::Constant>(call->getArgOperand(2));
    auto *type = llvm::cast<llvm::FixedVectorType>(value->getType());
    llvm::Type *element = type->getElementType();
    llvm::Align align = call->getParamAlign(1).valueOrOne();
    uint64_t size = module.getDataLayout().getTypeStoreSize(element);
    for (unsigned lane = 0; lane < type->getNumElements(); ++lane) {
      auto *enabled = llvm::dyn_cast_or_null<llvm::ConstantInt>(mask->getAggregateElement(lane));
      if (!enabled || enabled->isZero())
        continue;
      llvm::Value *address = b.CreateConstInBoundsGEP1_64(element, pointer, lane);
      b.CreateAlignedStore(b.CreateExtractElement(value, lane), address,
                           llvm::commonAlignment(align, lane * size));
    }
    call->eraseFromParent();
  }
}

/// With $KILN_DUMP_LLVM_IR=PREFIX set, writes the module the JIT compiles to
/// PREFIX.before.ll (as translated, with the host's attributes) and
/// PREFIX.after.ll (as optimized): `opt` and `llc` with the same
/// -mcpu/-mattr then reproduce what the JIT did, a stage at a time.
static void dumpModule(const llvm::Module &module, llvm::StringRef stage) {
  const char *prefix = std::getenv("KILN_DUMP_LLVM_IR");
  if (!prefix || !*prefix)
    return;
  std::error_code ec;
  llvm::raw_fd_ostream os((llvm::Twine(prefix) + "." + stage + ".ll").str(), ec);
  if (!ec)
    module.print(os, nullptr);
}

/// The host's target machine for `optLevel` and `fpContract`, made once per
/// thread (a target machine is not shared between threads; ORC's compile
/// layer, too, compiles module after module with one): building its
/// subtarget tables took 3 % of a small program's compile.
static llvm::Expected<llvm::TargetMachine *> threadHostTargetMachine(unsigned optLevel,
                                                                     bool fpContract) {
  thread_local std::map<std::pair<unsigned, bool>, std::unique_ptr<llvm::TargetMachine>> machines;
  std::unique_ptr<llvm::TargetMachine> &slot = machines[{optLevel, fpContract}];
  if (!slot) {
    auto tm = hostTargetMachine(optLevel, fpContract);
    if (!tm)
      return tm.takeError();
    slot = std::move(*tm);
  }
  return slot.get();
}

/// Why `target` names no CPU LLVM knows for the host's triple; none for
/// "host" or a known one. Asked before a target machine is made for it,
/// which would warn on stderr and go on with a generic CPU.
static std::optional<std::string> unknownCpu(const ObjectTarget &target) {
  if (target.cpu == "host")
    return std::nullopt;
  initLLVMOnce();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string why;
  const llvm::Target *llvmTarget = llvm::TargetRegistry::lookupTarget(triple, why);
  if (!llvmTarget)
    return "no target for " + triple.str() + ": " + why;
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      llvmTarget->createMCSubtargetInfo(triple, "", ""));
  if (info && info->isCPUStringValid(target.cpu))
    return std::nullopt;
  return "unknown CPU '" + target.cpu + "' for " + triple.str() +
         " (e.g. x86-64, x86-64-v3, x86-64-v4, znver4, sapphirerapids, host)";
}

int64_t vectorRegisterBits(const ObjectTarget &target) {
  if (unknownCpu(target))
    return 0;
  auto tm = hostTargetMachine(/*optLevel=*/3, /*fpContract=*/false, target);
  if (!tm) {
    llvm::consumeError(tm.takeError());
    return 0;
  }
  const llvm::MCSubtargetInfo *info = (*tm)->getMCSubtargetInfo();
  // As lowering::hostVectorRegisterBits reads the host's features.
  return info->checkFeatures("+avx512f") ? 512 : info->checkFeatures("+avx") ? 256 : 128;
}

bool compileToHostObject(mlir::ModuleOp module, unsigned optLevel, bool fpContract,
                         std::string &object, std::string *error, const ObjectTarget &target) {
  if (std::optional<std::string> unknown = unknownCpu(target)) {
    if (error)
      *error = *unknown;
    return false;
  }
  // An ahead-of-time target is used once: its machine is not kept.
  std::unique_ptr<llvm::TargetMachine> ownMachine;
  llvm::Expected<llvm::TargetMachine *> tm = nullptr;
  if (target.cpu == "host" && !target.positionIndependent) {
    tm = threadHostTargetMachine(optLevel, fpContract);
  } else if (auto made = hostTargetMachine(optLevel, fpContract, target)) {
    ownMachine = std::move(*made);
    tm = ownMachine.get();
  } else {
    tm = made.takeError();
  }
  if (!take(tm, "no target machine", error))
    return false;
  // Without LLVM's SLP vectorizer: on AVX-512 hosts LLVM 22 miscompiled
  // what it made of fully unrolled elementwise code (a vector `or` with a
  // constant lane, whose lane the x86 code generator dropped), and it had
  // broken the module (SROA after it left a shufflevector used before its
  // definition on AVX2 targets) and hoisted a masked gather above the
  // stores it reads (slp-or-constant-lane.mlir, llvm-slp-broken-module.mlir
  // and gather-of-stack-buffer.mlir in tests/differential/regressions). Kiln's
  // lowering emits the vector code of its hot loops itself and the loop
  // vectorizer handles the rest, so it is not run (docs/pipeline.md says
  // what it cost). The optimized module is still verified before code
  // generation, which would crash on a broken one.
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = translateForHost(module, llvmContext, **tm);
  if (!llvmModule) {
    if (error)
      *error = "translation to LLVM IR failed";
    return false;
  }
  dumpModule(*llvmModule, "before");
  optimizeModule(*llvmModule, *tm, optLevel);
  widenNarrowLdexp(*llvmModule);
  clearReassociation(*llvmModule);
  scalarizeConstantMaskedStores(*llvmModule);
  dumpModule(*llvmModule, "after");
  std::string broken;
  llvm::raw_string_ostream os(broken);
  bool valid = !llvm::verifyModule(*llvmModule, &os);
  if (!valid) {
    if (error)
      *error = "LLVM's optimizer produced an invalid module (an LLVM bug): " + broken;
    return false;
  }
  llvm::orc::SimpleCompiler compile(**tm);
  auto buffer = compile(*llvmModule);
  if (!take(buffer, "code generation failed", error))
    return false;
  object.assign((*buffer)->getBufferStart(), (*buffer)->getBufferSize());
  return true;
}

LoadedObject::LoadedObject() = default;
LoadedObject::~LoadedObject() {
  if (fini_)
    fini_();
}

std::unique_ptr<LoadedObject>
LoadedObject::load(const std::string &object,
                   const std::vector<std::string> &sharedLibraries,
                   std::string *error) {
  initLLVMOnce();
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!take(jtmb, "no host target", error))
    return nullptr;
  auto dataLayout = jtmb->getDefaultDataLayoutForTarget();
  if (!take(dataLayout, "no host data layout", error))
    return nullptr;
  const llvm::DataLayout layout = *dataLayout;
  const char prefix = layout.getGlobalPrefix();
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(*jtmb))
                 .setDataLayout(layout)
                 .create();
  if (!take(jit, "cannot create the JIT", error))
    return nullptr;
  llvm::orc::JITDylib &main = (*jit)->getMainJITDylib();

  // Libraries with MLIR's init protocol hand over the symbols they want
  // visible; the others are searched by name. Libraries stay loaded for the
  // life of the process (getPermanentLibrary), so their destroy hooks are
  // not called.
  llvm::StringMap<void *> exported;
  for (const std::string &path : sharedLibraries) {
    std::string why;
    auto lib = llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &why);
    if (!lib.isValid()) {
      if (error)
        *error = "cannot load runtime library '" + path + "': " + why;
      return nullptr;
    }
    if (void *init = lib.getAddressOfSymbol(
            mlir::ExecutionEngine::kLibraryInitFnName)) {
      reinterpret_cast<mlir::ExecutionEngine::LibraryInitFn>(init)(exported);
      continue;
    }
    main.addGenerator(std::make_unique<llvm::orc::DynamicLibrarySearchGenerator>(
        lib, prefix));
  }
  if (!exported.empty()) {
    llvm::orc::MangleAndInterner mangle((*jit)->getExecutionSession(), layout);
    llvm::orc::SymbolMap symbols;
    for (auto &entry : exported)
      symbols[mangle(entry.getKey())] = {
          llvm::orc::ExecutorAddr::fromPtr(entry.getValue()),
          llvm::JITSymbolFlags::Exported};
    if (llvm::Error e = main.define(llvm::orc::absoluteSymbols(symbols))) {
      if (error)
        *error = "cannot define runtime symbols: " + llvm::toString(std::move(e));
      return nullptr;
    }
  }
  auto process =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!take(process, "cannot search the process", error))
    return nullptr;
  main.addGenerator(std::move(*process));

  if (llvm::Error e = (*jit)->addObjectFile(
          llvm::MemoryBuffer::getMemBufferCopy(object, "kiln-object"))) {
    if (error)
      *error = "cannot link the object: " + llvm::toString(std::move(e));
    return nullptr;
  }
  if (llvm::Error e = (*jit)->initialize(main)) {
    if (error)
      *error = "JIT initialisation failed: " + llvm::toString(std::move(e));
    return nullptr;
  }
  std::unique_ptr<LoadedObject> loaded(new LoadedObject());
  loaded->jit_ = std::move(*jit);
  if (auto init = loaded->jit_->lookup("__kiln_init"))
    init->toPtr<void (*)()>()();
  else
    llvm::consumeError(init.takeError());
  if (auto fini = loaded->jit_->lookup("__kiln_fini"))
    loaded->fini_ = fini->toPtr<void (*)()>();
  else
    llvm::consumeError(fini.takeError());
  return loaded;
}

void *LoadedObject::lookup(const std::string &symbol, std::string *error) const {
  auto address = jit_->lookup(symbol);
  if (!take(address, ("no symbol '" + symbol + "'").c_str(), error))
    return nullptr;
  return address->toPtr<void *>();
}

bool llvmOptionSetByKiln(llvm::StringRef name) {
  for (auto [i, option] : llvm::enumerate(kLlvmOptions))
    if (name == option.first)
      return llvmOptionSet[i];
  return false;
}

} // namespace kiln
