//===- Compiler.cpp - lax -> JIT-compiled Executable ----------------------===//
//
// compile():
//  1. clones the module, lowers lax to linalg and adds `__kiln_dps`, the
//     entry in destination-passing style: tensor inputs (marked not
//     writable, so the caller's buffers are never clobbered) and one
//     identity-layout memref per result, filled by a memref.copy that
//     --kiln-outputs-in-place turns into computing the result in place;
//  2. inlines the entry, runs --kiln-lower-cpu;
//  3. adds `__kiln_call(ptr %buffers)`, an LLVM function that loads the data
//     pointers and passes the static-shape memref descriptors to __kiln_dps,
//     so a call needs no descriptor set-up at all (LLVM inlines both);
//  4. JITs at -O3 for the host CPU (target machine and function attributes
//     from the host's name and features) and looks the raw symbol up once.
//
//===----------------------------------------------------------------------===//
#include "compiler/Compiler.h"
#include "compiler/HeapStats.h"
#include "compiler/CompileCache.h"
#include "compiler/GpuCall.h"
#include "compiler/HostJit.h"

#include "dialect/LaxDialect.h"
#include "compiler/Dialects.h"
#include "lowering/gpu/GpuPipeline.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Config/llvm-config.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>

#ifndef KILN_RUNTIME_CPU_PATH
#define KILN_RUNTIME_CPU_PATH ""
#endif

using namespace mlir;

namespace kiln {

namespace {
struct ElementKindRow {
  const char *name;
  size_t bytes;
  ElementClass elementClass;
};
constexpr ElementKindRow kElementKindRows[] = {
#define KILN_ELEMENT_KIND(Kind, name, bytes, Class, NumpyType) {name, bytes, ElementClass::Class},
#include "compiler/ElementKinds.def"
};
constexpr ElementKind kElementKinds[] = {
#define KILN_ELEMENT_KIND(Kind, name, bytes, Class, NumpyType) ElementKind::Kind,
#include "compiler/ElementKinds.def"
};
const ElementKindRow &rowOf(ElementKind kind) { return kElementKindRows[size_t(kind)]; }
} // namespace

llvm::ArrayRef<ElementKind> allElementKinds() { return kElementKinds; }
ElementClass elementClass(ElementKind kind) { return rowOf(kind).elementClass; }
size_t elementSize(ElementKind kind) { return rowOf(kind).bytes; }
const char *elementKindName(ElementKind kind) { return rowOf(kind).name; }

std::optional<ElementKind> elementKindOf(mlir::Type t) {
  if (t.isF32())
    return ElementKind::F32;
  if (t.isF64())
    return ElementKind::F64;
  if (t.isF16())
    return ElementKind::F16;
  if (t.isBF16())
    return ElementKind::BF16;
  if (t.isSignlessInteger(1))
    return ElementKind::Bool;
  auto integer = dyn_cast<IntegerType>(t);
  if (!integer || integer.isSigned())
    return std::nullopt;
  for (ElementKind k : kElementKinds)
    if (isIntegerKind(k) && elementSize(k) * 8 == integer.getWidth() &&
        (elementClass(k) == ElementClass::Unsigned) == integer.isUnsigned())
      return k;
  return std::nullopt;
}

int64_t loadIntElement(const void *p, ElementKind kind) {
  uint64_t bits = 0;
  size_t bytes = elementSize(kind);
  std::memcpy(&bits, p, bytes); // little-endian host
  if (bytes == 8 || elementClass(kind) != ElementClass::Signed)
    return int64_t(bits);
  unsigned shift = 64 - 8 * bytes; // sign-extend from the element's width
  return int64_t(bits << shift) >> shift;
}

void storeIntElement(void *p, ElementKind kind, int64_t v) {
  uint64_t bits = uint64_t(v);
  std::memcpy(p, &bits, elementSize(kind)); // little-endian host: the low bytes
}

int64_t TensorSpec::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

namespace {


std::optional<TensorSpec> specOf(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt || !kiln::lax::tensorSizeFits(rt))
    return std::nullopt;
  auto kind = elementKindOf(rt.getElementType());
  if (!kind)
    return std::nullopt;
  return TensorSpec{
      std::vector<int64_t>(rt.getShape().begin(), rt.getShape().end()), *kind};
}

/// Identity of the binary that holds `address` (real path, size, inode,
/// modification time): a rebuilt Kiln changes it, so stale cache entries are
/// not reused even when the version number stays the same. The path is that
/// of the loaded file, made absolute and free of links (dladdr names the
/// main program as argv[0] did, a bare name when run through PATH); empty
/// when the file cannot be found, and then nothing is cached.
std::string binaryIdentity(const void *address) {
  Dl_info info;
  if (!dladdr(address, &info) || !info.dli_fname || !*info.dli_fname)
    return "";
  std::string path = info.dli_fname;
  if (path.find('/') == std::string::npos)
    path = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  llvm::SmallString<256> real;
  struct stat st;
  if (path.empty() || llvm::sys::fs::real_path(path, real) ||
      stat(real.c_str(), &st) != 0)
    return "";
  return std::string(real) + ":" + std::to_string(st.st_size) + ":" +
         std::to_string(st.st_ino) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

/// Kiln's libraries that make the code: the compiler and the lowering.
std::string kilnBuildIdentity() {
  std::string compiler = binaryIdentity(reinterpret_cast<const void *>(&binaryIdentity));
  std::string lowering =
      binaryIdentity(reinterpret_cast<const void *>(&buildKilnLinalgToLLVMPipeline));
  return compiler.empty() || lowering.empty() ? "" : compiler + " " + lowering;
}

/// Why cached code might not be what this process would compile, beyond
/// what the key names: an LLVM option set on the command line (LLVM's own
/// options, --disable-lsr, --unroll-threshold=0, ..., live in its general
/// category; those of Kiln's tools in their own) changes the generated code
/// in ways the key cannot name. Empty when there is none.
std::string llvmOptionsThatChangeCode() {
  std::string names;
  for (auto &[name, option] : llvm::cl::getRegisteredOptions()) {
    if (!option->getNumOccurrences() || option->isPositional() || option->isSink())
      continue;
    if (!llvm::is_contained(option->Categories, &llvm::cl::getGeneralCategory()) ||
        llvmOptionSetByKiln(name))
      continue;
    names += (names.empty() ? "--" : ", --") + name.str();
  }
  return names;
}

} // namespace

std::string runtimeLibraryPath(const CompileOptions &options) {
  if (options.target == Target::Gpu)
    return gpuRuntimePath(options.gpuRuntimeLibrary);
  if (!options.runtimeLibrary.empty())
    return options.runtimeLibrary;
  if (const char *env = std::getenv("KILN_RUNTIME_CPU"))
    return env;
  return KILN_RUNTIME_CPU_PATH;
}

namespace {

/// Step 1: the destination-passing wrapper around `entry`.
void addDpsWrapper(ModuleOp module, func::FuncOp entry) {
  OpBuilder b(module.getContext());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = entry.getLoc();
  FunctionType ft = entry.getFunctionType();
  SmallVector<Type> argTypes(ft.getInputs());
  for (Type r : ft.getResults()) {
    auto rt = cast<RankedTensorType>(r);
    argTypes.push_back(MemRefType::get(rt.getShape(), rt.getElementType()));
  }
  auto fn = func::FuncOp::create(b, loc, "__kiln_dps",
                                 b.getFunctionType(argTypes, {}));
  for (unsigned i = 0; i < ft.getNumInputs(); ++i)
    fn.setArgAttr(i, "bufferization.writable", b.getBoolAttr(false));
  Block *block = fn.addEntryBlock();
  b.setInsertionPointToStart(block);
  auto call = func::CallOp::create(
      b, loc, entry, block->getArguments().take_front(ft.getNumInputs()));
  // Each result is copied into its output memref; --kiln-outputs-in-place
  // then computes it there directly when its producers are private to it.
  // (bufferization.materialize_in_destination into a memref is avoided:
  // eliminate-empty-tensors rewrites through shared values for it and
  // corrupts other results.)
  for (auto [i, r] : llvm::enumerate(call.getResults())) {
    auto rt = cast<RankedTensorType>(r.getType());
    SmallVector<int64_t> strides(rt.getRank(), ShapedType::kDynamic);
    auto anyLayout = MemRefType::get(
        rt.getShape(), rt.getElementType(),
        StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, strides));
    Value buffer = bufferization::ToBufferOp::create(b, loc, anyLayout, r,
                                                     /*read_only=*/true);
    memref::CopyOp::create(b, loc, buffer,
                           block->getArgument(ft.getNumInputs() + i));
  }
  func::ReturnOp::create(b, loc);
  entry.setPrivate();
}

/// Step 3: `__kiln_call(ptr)` unpacking data pointers into descriptors.
LogicalResult addRawEntry(ModuleOp module, ArrayRef<TensorSpec> specs) {
  auto dps = module.lookupSymbol<LLVM::LLVMFuncOp>("__kiln_dps");
  if (!dps)
    return module.emitError("lowered module lacks __kiln_dps");
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  Location loc = dps.getLoc();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto i64 = b.getI64Type();
  auto fn = LLVM::LLVMFuncOp::create(
      b, loc, "__kiln_call",
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptrTy}));
  Block *block = fn.addEntryBlock(b);
  b.setInsertionPointToStart(block);
  auto cst = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  SmallVector<Value> args;
  for (auto [i, spec] : llvm::enumerate(specs)) {
    Value slot =
        LLVM::GEPOp::create(b, loc, ptrTy, ptrTy, block->getArgument(0),
                            ArrayRef<LLVM::GEPArg>{(int32_t)i});
    Value p = LLVM::LoadOp::create(b, loc, ptrTy, slot);
    args.append({p, p, cst(0)});
    for (int64_t d : spec.shape)
      args.push_back(cst(d));
    // Row-major strides.
    SmallVector<int64_t> strides(spec.shape.size(), 1);
    for (int64_t d = (int64_t)spec.shape.size() - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * spec.shape[d + 1];
    for (int64_t s : strides)
      args.push_back(cst(s));
  }
  if (args.size() != dps.getNumArguments())
    return dps.emitError("unexpected signature of the lowered entry");
  LLVM::CallOp::create(b, loc, dps, args);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  // __kiln_call is the only entry: __kiln_dps, with five parameters per
  // argument (a memref descriptor), is inlined into it before LLVM's
  // pipeline runs (optimizeModule's always-inliner). Left a function,
  // LLVM's interprocedural passes took time quadratic in its parameters
  // (CalledValuePropagation: 4.4 s of 5.9 for 2,400 inputs).
  dps.setLinkage(LLVM::Linkage::Internal);
  dps.setAlwaysInline(true);
  return success();
}

} // namespace

std::string compileCacheBuildIdentity() { return kilnBuildIdentity(); }

struct Executable::Impl {
  std::unique_ptr<LoadedObject> code;
  /// Target::Gpu: the runtime that moves buffers to and from the device.
  const GpuRuntimeApi *gpu = nullptr;
  /// Target::Cpu: the runtime's kiln_rt_guarded_call (an allocation that
  /// fails in the compiled code becomes an error of the call).
  int32_t (*guardedCall)(void (*)(void *const *), void *const *, size_t *) = nullptr;
  /// Target::Cpu: the runtime's kiln_rt_set_host_callback.
  void (*setHostCallback)(decltype(Executable::HostCallbacks::fn), void *,
                          decltype(Executable::HostCallbacks::fn) *, void **) = nullptr;
  /// Target::Cpu: the runtime's kiln_rt_set_thread_limit.
  int32_t (*setThreadLimit)(int32_t) = nullptr;
  std::vector<TensorSpec> inputs, outputs;
  std::string loweredIR;
  CacheOutcome cache;
  CompilePhaseTimes phases;
};

Executable::Executable(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executable::~Executable() = default;
const std::vector<TensorSpec> &Executable::inputs() const {
  return impl_->inputs;
}
const std::vector<TensorSpec> &Executable::outputs() const {
  return impl_->outputs;
}
const std::string &Executable::loweredIR() const { return impl_->loweredIR; }
const CacheOutcome &Executable::cacheOutcome() const { return impl_->cache; }
const CompilePhaseTimes &Executable::phaseTimes() const { return impl_->phases; }
Target Executable::target() const { return impl_->gpu ? Target::Gpu : Target::Cpu; }

const char *CacheOutcome::kindName() const {
  switch (kind) {
  case Off:
    return "off";
  case Hit:
    return "hit";
  case Miss:
    return "miss";
  case Rebuilt:
    return "rebuilt";
  }
  return "?";
}

std::string CacheOutcome::describe() const {
  std::string text = kindName();
  if (kind == Off && !offReason.empty())
    text += " (" + offReason + ")";
  if (kind != Off)
    text += " " + entry;
  if (kind == Rebuilt)
    text += ": " + invalid;
  if (!notStored.empty())
    text += " (not stored: " + notStored + ")";
  return text;
}

bool Executable::call(llvm::ArrayRef<BufferView> inputs, llvm::ArrayRef<BufferView> outputs,
                      std::string *error) const {
  auto fail = [&](const std::string &msg) {
    if (error)
      *error = msg;
    return false;
  };
  if (inputs.size() != impl_->inputs.size() ||
      outputs.size() != impl_->outputs.size())
    return fail("expected " + std::to_string(impl_->inputs.size()) +
                " inputs and " + std::to_string(impl_->outputs.size()) +
                " outputs");
  auto check = [&](const BufferView &v, const TensorSpec &s, const char *what,
                   size_t i) {
    if (!llvm::equal(v.shape, s.shape) || v.kind != s.kind || (!v.data && s.numElements()))
      return fail(
          std::string(what) + " " + std::to_string(i) +
          ": shape, element kind or data pointer differs from the signature");
    return true;
  };
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!check(inputs[i], impl_->inputs[i], "input", i))
      return false;
  for (size_t i = 0; i < outputs.size(); ++i)
    if (!check(outputs[i], impl_->outputs[i], "output", i))
      return false;
  // On the stack for up to 32 buffers: no heap allocation per call.
  llvm::SmallVector<void *, 32> buffers;
  for (const BufferView &v : inputs)
    buffers.push_back(v.data);
  for (const BufferView &v : outputs)
    buffers.push_back(v.data);
  if (impl_->gpu) {
    llvm::SmallVector<size_t, 32> bytes;
    for (const TensorSpec &spec : impl_->inputs)
      bytes.push_back(spec.numBytes());
    for (const TensorSpec &spec : impl_->outputs)
      bytes.push_back(spec.numBytes());
    return callOnGpu(*impl_->gpu, fn_, buffers.data(), bytes.data(), inputs.size(),
                     buffers.size(), error);
  }
  return callRawChecked(buffers.data(), error);
}

bool Executable::callRawChecked(void *const *buffers, std::string *error) const {
  if (!impl_->guardedCall) {
    fn_(buffers);
    return true;
  }
  size_t bytes = 0;
  int32_t status = impl_->guardedCall(fn_, buffers, &bytes);
  if (status == 0)
    return true;
  if (error)
    *error = status == 2 ? std::string("a host callback failed")
                         : "out of memory: the compiled code could not allocate " +
                               std::to_string(bytes) +
                               " bytes for a temporary (what it had allocated in this call "
                               "is not freed)";
  return false;
}

bool Executable::callWith(void *const *buffers, const CallOptions &options,
                          std::string *error) const {
  const HostCallbacks &callbacks = options.callbacks;
  if ((callbacks.fn && !impl_->setHostCallback) || (options.threads && !impl_->setThreadLimit)) {
    if (error)
      *error = callbacks.fn ? "host callbacks need the CPU runtime"
                            : "a thread count needs the CPU runtime";
    return false;
  }
  using Fn = decltype(HostCallbacks::fn);
  Fn previous = nullptr;
  void *previousContext = nullptr;
  if (callbacks.fn)
    impl_->setHostCallback(callbacks.fn, callbacks.context, &previous, &previousContext);
  int32_t previousThreads = options.threads ? impl_->setThreadLimit(options.threads) : 0;
  bool ok = callRawChecked(buffers, error);
  if (options.threads)
    impl_->setThreadLimit(previousThreads);
  if (callbacks.fn)
    impl_->setHostCallback(previous, previousContext, nullptr, nullptr);
  return ok;
}

Compiler::Compiler(CompileOptions options) : options_(std::move(options)) {}
Compiler::~Compiler() = default;

void Compiler::prepareContext(MLIRContext &context) {
  DialectRegistry registry;
  registerAllKilnDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  context.appendDialectRegistry(registry);
  context.loadDialect<lax::LaxDialect, func::FuncDialect,
                      bufferization::BufferizationDialect, LLVM::LLVMDialect,
                      memref::MemRefDialect>();
}

namespace {
/// Collects the diagnostics of a compile as "LOCATION: MESSAGE" lines, for
/// the error a failed compile returns.
class DiagnosticsToText {
public:
  explicit DiagnosticsToText(MLIRContext *ctx)
      : os_(text_), handler_(ctx, [this](Diagnostic &d) {
          os_ << d.getLocation() << ": " << d << "\n";
          return success();
        }) {}
  /// `*error` = `message`, then the diagnostics (when `error` is given).
  void setError(std::string *error, const std::string &message) const {
    if (error)
      *error = message + (text_.empty() ? "" : "\n" + text_);
  }

private:
  std::string text_;
  llvm::raw_string_ostream os_;
  ScopedDiagnosticHandler handler_;
};

} // namespace

std::unique_ptr<Executable> Compiler::compileSource(const std::string &source,
                                                    const std::string &entry,
                                                    std::string *error) const {
  MLIRContext context;
  prepareContext(context);
  OwningOpRef<ModuleOp> module;
  {
    DiagnosticsToText diags(&context);
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module) {
      diags.setError(error, "parse error");
      return nullptr;
    }
  }
  return compile(*module, entry, error);
}

namespace {
std::string keyValue(bool v) { return v ? "1" : "0"; }
std::string keyValue(int64_t v) { return std::to_string(v); }
std::string keyValue(unsigned v) { return std::to_string(v); }
std::string keyValue(const std::string &v) { return v; }
std::string keyValue(Target v) { return v == Target::Gpu ? "gpu" : "cpu"; }
} // namespace

CompileOptions::CompileOptions() {
  scanRegisterBits = lowering::hostCpuCostModel().scanRegisterBits;
  matvecVectorBits = lowering::hostCpuCostModel().matvecVectorBits;
}

std::string compileCacheKeyText(ModuleOp module, const std::string &entry,
                                const CompileOptions &options, const std::string &gpuChip,
                                const std::string &buildIdentity) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "kiln-cache-v3\nentry " << entry << "\ntarget "
     << (options.target == Target::Gpu ? "gpu " + gpuChip : "cpu") << "\n";
  // Every option of the two declarations that changes the object.
#define KILN_CPU_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, DESCRIPTION)                     \
  os << FLAG << " " << keyValue(options.FIELD) << "\n";
#include "lowering/CpuPipelineOptions.def"
#define KILN_COMPILE_OPTION(TYPE, FIELD, DEFAULT, KEYED, DESCRIPTION)                         \
  if (KEYED)                                                                                  \
    os << #FIELD << " " << keyValue(options.FIELD) << "\n";
#include "compiler/CompileOptions.def"
  os << "llvm " << LLVM_VERSION_STRING << "\nkiln " << buildIdentity << "\nhost "
     << hostTargetDescription() << "\n";
  module.print(os, OpPrintingFlags().useLocalScope());
  return text;
}

CompileOptions withMinimumThresholds(CompileOptions options) {
  options.runtimeGemmMinMacs = 1;
  options.minParallelWork = 1;
  options.scanLaneGroups = 2;
  // Not a size, but a code shape the host may never pick: block transposes
  // with two rows to a register (on AVX2 the code generator splits them).
  options.scanRegisterBits = 512;
  return options;
}

namespace {
/// Function `entry` of `module` with the specs of its arguments and
/// results; null with `why` when it is missing or not compilable.
func::FuncOp entryWithSpecs(ModuleOp module, const std::string &entry,
                            std::vector<TensorSpec> &inputs, std::vector<TensorSpec> &outputs,
                            std::string &why) {
  auto fn = module.lookupSymbol<func::FuncOp>(entry);
  if (!fn || fn.isExternal()) {
    why = "no function @" + entry + " with a body";
    return nullptr;
  }
  auto specsOf = [&](TypeRange types, std::vector<TensorSpec> &specs, const char *what) {
    for (Type t : types) {
      std::optional<TensorSpec> spec = specOf(t);
      if (!spec) {
        why = "@" + entry + ": " + what +
              " must be statically shaped tensors of at most 2^62 bytes";
        return false;
      }
      specs.push_back(*spec);
    }
    return true;
  };
  if (!specsOf(fn.getFunctionType().getInputs(), inputs, "arguments") ||
      !specsOf(fn.getFunctionType().getResults(), outputs, "results"))
    return nullptr;
  return fn;
}
} // namespace

std::optional<CompiledObject> Compiler::compileObject(ModuleOp module, const std::string &entry,
                                                      const ObjectTarget &target,
                                                      std::string *error) const {
  prepareContext(*module.getContext());
  DiagnosticsToText diags(module.getContext());
  auto fail = [&](const std::string &msg) -> std::optional<CompiledObject> {
    diags.setError(error, msg);
    return std::nullopt;
  };
  OwningOpRef<ModuleOp> clone(module.clone());
  CompiledObject result;
  std::string why;
  func::FuncOp fn = entryWithSpecs(*clone, entry, result.inputs, result.outputs, why);
  if (!fn)
    return fail(why);
  result.target = options_.target;
  if (result.target == Target::Gpu) {
    // No device is asked: the object may be built where none is.
    result.gpuChip = options_.gpuChip.empty() ? GpuPipelineConfig().chip : options_.gpuChip;
  }
  CompilePhaseTimes phases;
  if (!lowerToObject(*clone, fn, result.inputs, result.outputs, result.gpuChip, target, phases,
                     nullptr, result.object, why))
    return fail(why);
  return result;
}

std::unique_ptr<Executable> Compiler::compile(ModuleOp module,
                                              const std::string &entry,
                                              std::string *error) const {
  MLIRContext *ctx = module.getContext();
  prepareContext(*ctx);
  DiagnosticsToText diags(ctx);
  auto fail = [&](const std::string &msg) -> std::unique_ptr<Executable> {
    diags.setError(error, msg);
    return nullptr;
  };

  OwningOpRef<ModuleOp> clone(module.clone());
  auto impl = std::make_unique<Executable::Impl>();
  std::string why;
  func::FuncOp fn = entryWithSpecs(*clone, entry, impl->inputs, impl->outputs, why);
  if (!fn)
    return fail(why);
  const bool gpu = options_.target == Target::Gpu;
  std::string gpuChip;
  if (gpu) {
    std::string why;
    impl->gpu = loadGpuRuntime(gpuRuntimePath(options_.gpuRuntimeLibrary), why);
    if (!impl->gpu)
      return fail("GPU target: " + why);
    gpuChip = options_.gpuChip;
    const char *deviceChip = impl->gpu->status() ? nullptr : impl->gpu->chip();
    if (gpuChip.empty())
      gpuChip = deviceChip && *deviceChip ? deviceChip : GpuPipelineConfig().chip;
  }
  // The compile cache: the key names everything the object depends on.
  std::optional<CompileCache> cache;
  std::string key;
  if (!options_.cacheDir.empty() && !options_.keepLoweredIR && !options_.printIRAfterAll) {
    std::string build = kilnBuildIdentity();
    std::string options = llvmOptionsThatChangeCode();
    std::string why;
    if (build.empty()) {
      impl->cache.offReason = "cannot identify Kiln's build (its libraries' files)";
    } else if (!options.empty()) {
      impl->cache.offReason = "LLVM options that change the code are set: " + options;
    } else {
      cache.emplace(options_.cacheDir);
      key = CompileCache::digest(compileCacheKeyText(*clone, entry, options_, gpuChip, build));
      impl->cache.entry = cache->entryPath(key);
      switch (cache->open(why)) {
      case CompileCache::Status::Ready:
        break;
      case CompileCache::Status::Unwritable:
        impl->cache.kind = CacheOutcome::Miss;
        impl->cache.notStored = why;
        cache.reset();
        break;
      case CompileCache::Status::Untrusted:
        impl->cache.offReason = why;
        cache.reset();
        break;
      }
    }
    std::string object;
    switch (!cache ? CompileCache::Lookup::Miss
                   : cache->load(key, object, impl->cache.invalid)) {
    case CompileCache::Lookup::Hit: {
      impl->cache.kind = CacheOutcome::Hit;
      std::string why;
      if (auto exe = link(std::move(impl), object, why))
        return exe;
      return fail(why);
    }
    case CompileCache::Lookup::Invalid:
      impl->cache.kind = CacheOutcome::Rebuilt;
      break;
    case CompileCache::Lookup::Miss:
      if (cache)
        impl->cache.kind = CacheOutcome::Miss;
      break;
    }
  }

  std::string object;
  if (!lowerToObject(*clone, fn, impl->inputs, impl->outputs, gpuChip, ObjectTarget{},
                     impl->phases, options_.keepLoweredIR ? &impl->loweredIR : nullptr,
                     object, why))
    return fail(why);
  if (cache && !cache->store(key, object, &why))
    impl->cache.notStored = why;
  if (auto exe = link(std::move(impl), object, why))
    return exe;
  return fail(why);
}

bool Compiler::lowerToObject(ModuleOp module, func::FuncOp fn,
                             const std::vector<TensorSpec> &inputs,
                             const std::vector<TensorSpec> &outputs, const std::string &gpuChip,
                             const ObjectTarget &target, CompilePhaseTimes &phases,
                             std::string *loweredIR, std::string &object,
                             std::string &error) const {
  auto fail = [&](const std::string &msg) {
    error = msg;
    return false;
  };
  // lax -> linalg first: unsigned types become signless in every
  // signature, so the wrapper is built on the lowered entry's types.
  // The same two halves as --kiln-lower-cpu, split so the wrapper can be
  // added in between.
  const CpuPipelineOptions &pipeline = options_;
  MLIRContext *ctx = module.getContext();
  const bool gpu = options_.target == Target::Gpu;
  const std::string entry = fn.getSymName().str();
  GpuPipelineConfig gpuConfig;
  gpuConfig.chip = gpuChip;
  gpuConfig.runtimeGemmMinMacs =
      options_.useRuntimeGemm ? options_.runtimeGemmMinMacs : INT64_MAX;
  gpuConfig.approximateMath = options_.approximateMath;
  gpuConfig.foldScanLayout = options_.foldScanLayout;
  // Printing the lowering's IR needs the passes to run one at a time.
  auto printing = [&](PassManager &pm) {
    if (options_.printIRAfterAll) {
      ctx->disableMultithreading();
      pm.enableIRPrinting([](Pass *, Operation *) { return false; },
                         [](Pass *, Operation *) { return true; }, /*printModuleScope=*/true,
                         /*printAfterOnlyOnChange=*/false);
    }
  };
  // Wall-clock seconds since `start`, restarting it.
  auto lap = [](std::chrono::steady_clock::time_point &start) {
    auto now = std::chrono::steady_clock::now();
    double s = std::chrono::duration<double>(now - start).count();
    start = now;
    return s;
  };
  auto phaseStart = std::chrono::steady_clock::now();
  PassManager laxPm(ctx);
  printing(laxPm);
  (void)applyPassManagerCLOptions(laxPm); // --mlir-timing etc., where a tool registered them
  applyDefaultTimingPassManagerCLOptions(laxPm);
  if (gpu)
    buildKilnLaxToLinalgForGpu(laxPm, gpuConfig);
  else
    buildKilnLaxToLinalgPipeline(laxPm, pipeline);
  if (failed(laxPm.run(module)))
    return fail("lowering @" + entry + " to linalg failed");
  addDpsWrapper(module, fn);
  phases.laxToLinalg = lap(phaseStart);

  PassManager pm(ctx);
  printing(pm);
  (void)applyPassManagerCLOptions(pm);
  applyDefaultTimingPassManagerCLOptions(pm);
  pm.addPass(createInlinerPass());
  pm.addPass(createSymbolDCEPass());
  if (gpu)
    buildKilnLinalgToGpuPipeline(pm, gpuConfig);
  else
    buildKilnLinalgToLLVMPipeline(pm, pipeline);
  if (failed(pm.run(module)))
    return fail("lowering @" + entry + " failed");
  std::vector<TensorSpec> all(inputs);
  all.insert(all.end(), outputs.begin(), outputs.end());
  if (failed(addRawEntry(module, all)))
    return fail("cannot build the raw entry");
  if (loweredIR) {
    llvm::raw_string_ostream ir(*loweredIR);
    module.print(ir);
  }

  phases.toLLVM = lap(phaseStart);

  std::string why;
  if (!compileToHostObject(module, options_.optLevel, options_.fpContract, object, &why, target))
    return fail("code generation for @" + entry + " failed: " + why);
  phases.codegen = lap(phaseStart);
  return true;
}

std::unique_ptr<Executable>
Compiler::link(std::unique_ptr<Executable::Impl> impl,
               const std::string &object, std::string &why) const {
  // Timed here, so that a cache hit, which only links, reports it too.
  auto start = std::chrono::steady_clock::now();
  std::vector<std::string> libs;
  if (impl->gpu) {
    // Loading runs the kernels' module loads: only where a GPU can.
    if (const char *status = impl->gpu->status()) {
      why = std::string("compiled for the GPU, but no GPU can run it: ") + status;
      return nullptr;
    }
    impl->gpu->takeError(); // start clean
    libs.push_back(impl->gpu->path);
  } else {
    if (std::string rt = runtimeLibraryPath(options_); !rt.empty())
      libs.push_back(rt);
  }
  impl->code = LoadedObject::load(object, libs, &why);
  if (!impl->code) {
    why = "JIT failed: " + why;
    return nullptr;
  }
  if (impl->gpu)
    if (const char *error = impl->gpu->takeError()) {
      why = std::string("loading the GPU kernels failed: ") + error;
      return nullptr;
    }
  void *raw = impl->code->lookup("__kiln_call", &why);
  if (!raw) {
    why = "JIT lookup failed: " + why;
    return nullptr;
  }
  if (!impl->gpu) {
    impl->guardedCall = reinterpret_cast<decltype(impl->guardedCall)>(
        llvm::sys::DynamicLibrary::SearchForAddressOfSymbol("kiln_rt_guarded_call"));
    impl->setHostCallback = reinterpret_cast<decltype(impl->setHostCallback)>(
        llvm::sys::DynamicLibrary::SearchForAddressOfSymbol("kiln_rt_set_host_callback"));
    impl->setThreadLimit = reinterpret_cast<decltype(impl->setThreadLimit)>(
        llvm::sys::DynamicLibrary::SearchForAddressOfSymbol("kiln_rt_set_thread_limit"));
  }
  impl->phases.link = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::unique_ptr<Executable> exe(new Executable(std::move(impl)));
  exe->fn_ = reinterpret_cast<void (*)(void *const *)>(raw);
  return exe;
}

HeapStats runtimeHeapStats(bool resetPeak) {
  // The runtime library is loaded permanently by the first CPU compile.
  using StatsFn = void (*)(int64_t *, int64_t *, int32_t);
  auto stats = reinterpret_cast<StatsFn>(
      llvm::sys::DynamicLibrary::SearchForAddressOfSymbol("kiln_rt_heap_stats"));
  HeapStats result;
  if (stats)
    stats(&result.live, &result.peak, resetPeak ? 1 : 0);
  return result;
}

} // namespace kiln
