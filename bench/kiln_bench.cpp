//===- kiln_bench.cpp - Kiln's side of the benchmarks ---------------------===//
//
// kiln-bench FILE.mlir --entry F [--passes PIPELINE] --inputs a.npy,b.npy
//            [--outputs DIR] [--repeat N] [--warmup N] [--calls-per-sample K]
//            [--target cpu|gpu] [--paired FLOOR.mlir --paired-entry G]
//
// Runs PIPELINE (kiln-opt pass syntax, e.g. "builtin.module(kiln-optimize)")
// on the module, compiles it once with kiln::Compiler (LLVM JIT), runs it on
// the inputs `warmup` times untimed, then `repeat` timed samples of K calls
// each through Executable::callRaw on fixed caller-owned buffers, writes
// DIR/out0.npy... (with --outputs) and prints one JSON line:
//   {"times_s": [per-call seconds...], "compile_s": ..., "calls_per_sample": K}
// (f32/f64 inputs and outputs, as the seed workloads use). With
// --target=gpu the buffers are device buffers, filled once before timing:
// a timed call is the compiled function's launches up to its final wait.
//
// --paired FLOOR.mlir [--paired-entry G]: a second program on the same
// inputs (a roofline kernel such as out = a + b + c + d), compiled without
// PIPELINE and timed alternately with the first, sample by sample, in either
// order by turns; its times go to "paired_times_s". On a shared machine a
// slow stretch then falls on both of a pair, and their ratio stays.
//
//===----------------------------------------------------------------------===//
#include "bench/peers/Npy.h"
#include "compiler/Compiler.h"
#include "compiler/HeapStats.h"
#include "tools/CompileFlags.h"
#include "tools/JitRun.h"
#include "compiler/GpuCall.h"
#include "tools/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <chrono>
#include <iostream>

namespace cl = llvm::cl;
using Clock = std::chrono::steady_clock;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<file.mlir>"), cl::Required);
static cl::opt<std::string> entry("entry", cl::desc("Function to run"), cl::init("main"));
static cl::opt<std::string> passes("passes", cl::desc("Pass pipeline before lowering"),
                                   cl::init(""));
static cl::opt<std::string> inputs("inputs", cl::desc("Comma-separated .npy inputs"));
static cl::opt<std::string> outputs("outputs",
                                    cl::desc("Directory for out<i>.npy (default: not written)"),
                                    cl::init(""));
static cl::opt<int> repeat("repeat", cl::desc("Timed samples"), cl::init(10));
static cl::opt<int> warmup("warmup", cl::desc("Untimed calls first"), cl::init(2));
static cl::opt<std::string> target("target", cl::desc("cpu or gpu"), cl::init("cpu"));
static cl::opt<int> callsPerSample("calls-per-sample",
                                   cl::desc("Calls per timed sample (tiny kernels)"),
                                   cl::init(1));
// --scan-vector-bits, --matvec-vector-bits, ...: every CPU pipeline option
// (lowering/CpuPipelineOptions.def).
static kiln::CpuPipelineFlags pipelineFlags(cl::getGeneralCategory());

static cl::opt<bool> fpContract("fp-contract",
                                cl::desc("Multiplies and adds may become FMAs "
                                         "(CompileOptions::fpContract)"));

static cl::opt<std::string> pairedFile("paired",
                                       cl::desc("A second program on the same inputs, timed "
                                                "alternately with the first"),
                                       cl::init(""));
static cl::opt<std::string> pairedEntry("paired-entry", cl::desc("Function of --paired"),
                                        cl::init("main"));

static cl::opt<std::string> cacheDir("cache-dir",
                                    cl::desc("Compile cache directory (default: none, every run "
                                             "compiles)"),
                                    cl::init(""));

namespace {

struct HostBuffer {
  std::vector<char> bytes;
  std::vector<int64_t> shape;
  bool isF64 = false;
};

HostBuffer loadInput(const std::string &path, const kiln::TensorSpec &spec) {
  HostBuffer buffer;
  buffer.shape = spec.shape;
  buffer.isF64 = spec.kind == kiln::ElementKind::F64;
  auto copy = [&](auto array) {
    if (array.shape != spec.shape)
      throw std::runtime_error(path + ": shape does not match the function's input");
    const char *raw = reinterpret_cast<const char *>(array.data.data());
    buffer.bytes.assign(raw, raw + array.data.size() * sizeof(array.data[0]));
  };
  if (buffer.isF64)
    copy(bench::readNpy<double>(path));
  else
    copy(bench::readNpy<float>(path));
  return buffer;
}

/// Output buffers of `exe` (host memory) and the pointer list its callRaw
/// takes: `inputs`, then these outputs.
struct Call {
  std::vector<HostBuffer> outputs;
  std::vector<void *> raw;
};

Call bindOutputs(const kiln::Executable &exe, const std::vector<void *> &inputs) {
  Call call;
  for (const kiln::TensorSpec &spec : exe.outputs()) {
    HostBuffer out;
    out.shape = spec.shape;
    out.isF64 = spec.kind == kiln::ElementKind::F64;
    out.bytes.resize(spec.numBytes());
    call.outputs.push_back(std::move(out));
  }
  call.raw = inputs;
  for (HostBuffer &b : call.outputs)
    call.raw.push_back(b.bytes.data());
  return call;
}

/// Parses `file`, runs `pipeline` (kiln-opt syntax; none if empty) and
/// compiles `function`; null after printing why.
std::unique_ptr<kiln::Executable> compileFile(mlir::MLIRContext &context, const std::string &file,
                                              const std::string &function,
                                              const std::string &pipeline,
                                              const kiln::CompileOptions &options) {
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  auto module = mlir::parseSourceFile<mlir::ModuleOp>(file, sourceMgr, &context);
  if (!module)
    return nullptr;
  if (!pipeline.empty()) {
    mlir::PassManager pm(&context);
    if (failed(kiln::addPassPipeline(pm, pipeline, llvm::errs())) || failed(pm.run(*module)))
      return nullptr;
  }
  std::string error;
  auto exe = kiln::Compiler(options).compile(*module, function, &error);
  if (!exe)
    std::cerr << "kiln-bench: " << file << ": " << error << "\n";
  return exe;
}

double secondsOf(const kiln::Executable &exe, const Call &call, int calls) {
  auto t0 = Clock::now();
  for (int k = 0; k < calls; ++k)
    exe.callRaw(call.raw.data());
  return std::chrono::duration<double>(Clock::now() - t0).count() / calls;
}

void printList(const char *key, const std::vector<double> &values) {
  std::cout << "\"" << key << "\": [";
  for (size_t i = 0; i < values.size(); ++i)
    std::cout << (i ? ", " : "") << values[i];
  std::cout << "]";
}

} // namespace

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv, "Kiln benchmark driver\n");
  mlir::DialectRegistry registry;
  kiln::registerAllKilnDialects(registry);
  kiln::registerAllKilnPasses();
  mlir::MLIRContext context(registry);
  kiln::Compiler::prepareContext(context);

  const bool gpu = target == "gpu";
  kiln::CompileOptions options;
  options.target = gpu ? kiln::Target::Gpu : kiln::Target::Cpu;
  pipelineFlags.apply(options);
  options.cacheDir = cacheDir;
  options.fpContract = fpContract;
  auto start = Clock::now();
  auto exe = compileFile(context, inputFile, entry, passes, options);
  if (!exe)
    return 1;
  double compileSeconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::unique_ptr<kiln::Executable> paired;
  if (!pairedFile.empty()) {
    if (gpu) {
      std::cerr << "kiln-bench: --paired runs on the CPU only\n";
      return 1;
    }
    paired = compileFile(context, pairedFile, pairedEntry, "", options);
    if (!paired)
      return 1;
    auto sameSpec = [](const kiln::TensorSpec &x, const kiln::TensorSpec &y) {
      return x.shape == y.shape && x.kind == y.kind;
    };
    if (!std::equal(exe->inputs().begin(), exe->inputs().end(), paired->inputs().begin(),
                    paired->inputs().end(), sameSpec)) {
      std::cerr << "kiln-bench: " << pairedFile << ": @" << pairedEntry
                << " must take the same inputs as @" << entry << "\n";
      return 1;
    }
  }

  try {
    std::vector<HostBuffer> inputBuffers;
    llvm::SmallVector<llvm::StringRef> paths;
    llvm::StringRef(inputs).split(paths, ',', -1, false);
    if (paths.size() != exe->inputs().size())
      throw std::runtime_error("expected " + std::to_string(exe->inputs().size()) + " inputs");
    for (auto [path, spec] : llvm::zip(paths, exe->inputs()))
      inputBuffers.push_back(loadInput(path.str(), spec));
    std::vector<void *> inputPointers;
    for (HostBuffer &b : inputBuffers)
      inputPointers.push_back(b.bytes.data());
    Call call = bindOutputs(*exe, inputPointers);
    Call pairedCall = paired ? bindOutputs(*paired, inputPointers) : Call();
    // GPU: device copies of every buffer, the inputs filled once; `host`
    // keeps the host pointers for copying the outputs back.
    const kiln::GpuRuntimeApi *rt = nullptr;
    std::vector<size_t> bytes;
    std::vector<void *> host(call.raw);
    if (gpu) {
      std::string error;
      rt = kiln::loadGpuRuntime(kiln::gpuRuntimePath(""), error);
      if (!rt)
        throw std::runtime_error(error);
      for (HostBuffer &b : inputBuffers)
        bytes.push_back(b.bytes.size());
      for (HostBuffer &b : call.outputs)
        bytes.push_back(b.bytes.size());
      kiln::buffersToDevice(*rt, host.data(), bytes.data(), exe->inputs().size(),
                            call.raw.size(), call.raw.data(), nullptr);
      if (const char *why = rt->takeError())
        throw std::runtime_error(std::string("GPU: ") + why);
    }

    // Warm up for `warmup` calls and at least 20 ms: a cold core runs its
    // first 512-bit instructions slowly for some µs, which a single-call
    // sample of a µs-scale program would otherwise measure.
    auto warmStart = Clock::now();
    for (int i = 0; i < warmup || (Clock::now() - warmStart < std::chrono::milliseconds(20) &&
                                   i < 100000);
         ++i) {
      exe->callRaw(call.raw.data());
      if (paired)
        paired->callRaw(pairedCall.raw.data());
    }
    // The heap the compiled code needs at most during one call, beyond what
    // it holds between calls (CPU only: the runtime allocator counts it).
    kiln::HeapStats before = kiln::runtimeHeapStats(/*resetPeak=*/true);
    exe->callRaw(call.raw.data());
    int64_t peakHeap = gpu ? -1 : kiln::runtimeHeapStats().peak - before.live;
    std::vector<double> times, pairedTimes;
    for (int i = 0; i < repeat; ++i) {
      // The paired program first on odd samples: neither one always finds
      // the caches as the other left them.
      if (paired && i % 2)
        pairedTimes.push_back(secondsOf(*paired, pairedCall, callsPerSample));
      times.push_back(secondsOf(*exe, call, callsPerSample));
      if (paired && i % 2 == 0)
        pairedTimes.push_back(secondsOf(*paired, pairedCall, callsPerSample));
    }
    std::cout << "{";
    printList("times_s", times);
    if (paired) {
      std::cout << ", ";
      printList("paired_times_s", pairedTimes);
    }
    std::cout << ", \"compile_s\": " << compileSeconds << ", \"peak_heap_bytes\": " << peakHeap
              << ", \"calls_per_sample\": " << callsPerSample << "}" << std::endl;
    if (gpu) {
      kiln::buffersFromDevice(*rt, host.data(), bytes.data(), exe->inputs().size(),
                              call.raw.size(), call.raw.data(), nullptr);
      if (const char *why = rt->takeError())
        throw std::runtime_error(std::string("GPU: ") + why);
    }

    for (size_t i = 0; !outputs.empty() && i < call.outputs.size(); ++i) {
      HostBuffer &out = call.outputs[i];
      std::string path = outputs + "/out" + std::to_string(i) + ".npy";
      auto write = [&](auto tag) {
        using T = decltype(tag);
        bench::Array<T> array{out.shape, std::vector<T>(out.bytes.size() / sizeof(T))};
        std::memcpy(array.data.data(), out.bytes.data(), out.bytes.size());
        bench::writeNpy(path, array);
      };
      out.isF64 ? write(double()) : write(float());
    }
  } catch (const std::exception &e) {
    std::cerr << "kiln-bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
