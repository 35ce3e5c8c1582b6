//===- kiln-run.cpp - run a lax program: LLVM JIT or reference interpreter ===//
//
//   kiln-run FILE.mlir|FILE.jaxpr [--entry NAME]
//            (--inputs a.npy,b.npy | --random-inputs [--seed N] [--positive-inputs])
//            [--interpret [--f64-reference]] [--check] [--expect a.npy,...]
//            [--check-k K] [--rtol R --atol A]
//            [--repeat N --warmup N [--time-json]] [--outputs DIR]
//            [--passes PIPELINE] [--rules FILE --rule-tags TAGS --plugin LIB.so]
//
// Without --interpret the program is compiled by kiln::Compiler (the CPU
// pipeline, LLVM JIT) and run; --check also runs the reference interpreter
// and compares, --expect compares with outputs computed elsewhere (jax.jit),
// both under the error model of reference/Comparison.h. Rules, plugins and
// --passes apply before either.
//
//===----------------------------------------------------------------------===//
#include "compiler/CompileCache.h"
#include "compiler/Compiler.h"
#include "compiler/HeapStats.h"
#include "tools/CompileFlags.h"
#include "tools/JitRun.h"
#include "tools/Registration.h"
#include "tools/RunSupport.h"

#include "reference/Comparison.h"
#include "reference/Interpreter.h"
#include "rules/ApplyRules.h"
#include "rules/PluginLoader.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>
#include <cstring>

namespace cl = llvm::cl;
using namespace mlir;
using namespace kiln;
using interp::Tensor;

// Only these options show in --help (LLVM's own are under --help-hidden).
static cl::OptionCategory runCategory("kiln-run options");

static cl::opt<std::string> inputFile(cl::Positional, cl::cat(runCategory), cl::desc("<file.mlir|file.jaxpr>"),
                                      cl::Required);
static cl::opt<std::string> inputs("inputs", cl::cat(runCategory), cl::desc("Comma-separated .npy files, one per argument"));
static cl::opt<bool> randomInputsFlag("random-inputs", cl::cat(runCategory), cl::desc("Run on deterministic random inputs"));
static cl::opt<unsigned> seed("seed", cl::cat(runCategory), cl::desc("Seed of --random-inputs"), cl::init(0));
static cl::opt<bool> positiveInputs("positive-inputs",
                                    cl::cat(runCategory), cl::desc("Random floats in [0.5, 1.5] instead of [-1, 1]"));
static cl::opt<bool> interpretFlag("interpret", cl::cat(runCategory), cl::desc("Run the reference interpreter instead of the JIT"));
static cl::opt<bool> f64Reference("f64-reference",
                                  cl::cat(runCategory), cl::desc("Interpreter: compute every float op in double"));
static cl::opt<bool> check("check", cl::cat(runCategory), cl::desc("Also run the interpreter and compare the JIT's results"));
static cl::opt<std::string> expect("expect", cl::cat(runCategory),
                                   cl::desc("Comma-separated .npy files of the expected outputs "
                                            "(e.g. jax.jit's): compare the results with them"));
static cl::opt<double> checkK("check-k", cl::cat(runCategory),
                              cl::desc("--check/--expect: the error bound's multiple k of eps "
                                       "(docs/interpreter.md)"),
                              cl::init(interp::ErrorModel().k));
static cl::opt<double> relTol("rtol", cl::cat(runCategory),
                              cl::desc("--check/--expect: extra relative slack, for approximate "
                                       "math (default 0)"),
                              cl::init(0));
static cl::opt<double> absTol("atol", cl::cat(runCategory),
                              cl::desc("--check/--expect: extra absolute slack, for approximate "
                                       "math (default 0)"),
                              cl::init(0));
static cl::opt<int> repeat("repeat", cl::cat(runCategory), cl::desc("JIT: time this many calls"), cl::init(0));
static cl::opt<int> threads("runtime-threads", cl::cat(runCategory),
                            cl::desc("Threads of the runtime's GEMM (0: every CPU, or "
                                     "$KILN_NUM_THREADS); with 1 add --parallel-loops=false "
                                     "to keep the compiled loops on one thread too"),
                            cl::init(0));
static cl::opt<int> warmup("warmup", cl::cat(runCategory), cl::desc("JIT: untimed calls before timing"), cl::init(1));
static cl::opt<bool> timeJson("time-json", cl::cat(runCategory), cl::desc("Print the timings as one JSON line"));
static cl::opt<std::string> outputsDir("outputs", cl::cat(runCategory), cl::desc("Write out<i>.npy into this directory"));
static cl::opt<std::string> inputsOutDir("save-inputs", cl::cat(runCategory),
                                         cl::desc("Write the inputs (e.g. --random-inputs') as "
                                                  "in<i>.npy into this directory"));
static cl::opt<bool> printIR("print-ir-after-all", cl::cat(runCategory), cl::desc("Print the IR after every pass (the rewrites, then the lowering)"));
static cl::opt<std::string> cacheDir("cache-dir", cl::cat(runCategory),
                                     cl::desc("Compile cache directory (default: $KILN_CACHE_DIR, "
                                              "else ~/.cache/kiln)"));
static cl::opt<std::string> target("target", cl::cat(runCategory),
                                   cl::desc("Where the JIT runs the function: cpu (default) or gpu "
                                            "(CUDA; results copied back to the host)"),
                                   cl::init("cpu"));
static cl::opt<std::string> gpuChip("gpu-chip", cl::cat(runCategory),
                                    cl::desc("--target=gpu: the GPU architecture (default: the "
                                             "device's)"));
// --use-runtime-gemm, --scan-vector-bits, ...: every CPU pipeline option
// (lowering/CpuPipelineOptions.def); given ones override --min-thresholds.
static kiln::CpuPipelineFlags pipelineFlags(runCategory);
static cl::opt<bool> fpContract("fp-contract", cl::cat(runCategory),
                                cl::desc("Let the CPU code fuse a multiply and an add into one FMA "
                                         "(one rounding), as XLA:CPU does"));
static cl::opt<bool> minThresholds(
    "min-thresholds", cl::cat(runCategory),
    cl::desc("CPU: every size threshold of the cost model at its minimum (the runtime GEMM "
             "for every GEMM-shaped contraction, every parallel loop dispatched), so that a "
             "small program takes a large one's code paths"));
static cl::opt<bool> noCache("no-cache", cl::cat(runCategory), cl::desc("Do not use the compile cache"));
static cl::opt<bool> cacheStats("cache-stats", cl::cat(runCategory),
                                cl::desc("Print what the compile cache did (hit, miss, rebuilt)"));
// --entry, --jaxpr-input-types, --passes, --rules, --rule-tags, --plugin.
static kiln::ProgramFlags programFlags(runCategory,
                                       "Function to run (default: the only public one)");

namespace {

/// --passes, then the rules.
LogicalResult rewrite(ModuleOp module, MLIRContext &context) {
  run::RewriteFlags flags = programFlags.rewrites();
  flags.printIR = printIR;
  return run::applyRewrites(module, context, flags, "kiln-run");
}

/// The error model of --check and --expect, as the header of their reports.
std::string describeModel(const interp::ErrorModel &model) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("|got - ref| <= %g (eps (|ref| + mag) + tiny)", model.k);
  if (model.atol != 0 || model.rtol != 0)
    os << llvm::format(" + %g + %g |ref|", model.atol, model.rtol);
  return s;
}

/// --check (the JIT's `results` against the interpreter's) and --expect
/// (`results` against `expected`, when given). False after an error message
/// if a comparison fails or the interpreter cannot run.
/// With --rules/--passes, `module` is the original program (before them):
/// --check then checks the rewrite too, and also under --interpret.
bool compare(ModuleOp module, StringRef entry, ArrayRef<Tensor> args, ArrayRef<Tensor> results,
             const FailureOr<SmallVector<Tensor>> &expected, bool isOriginal) {
  bool checking = check && (!interpretFlag || isOriginal), expecting = succeeded(expected);
  if (!checking && !expecting)
    return true;
  interp::ErrorModel model;
  model.k = checkK;
  model.rtol = relTol;
  model.atol = absTol;
  // mag_i: the interpreter's run of the program's magnitude version.
  std::string error;
  FailureOr<SmallVector<Tensor>> mags = interp::magnitudes(module, entry, args, error);
  if (failed(mags))
    llvm::errs() << "kiln-run: warning: no magnitudes for the error bound (" << error
                 << "); each output's largest |value| stands in\n";
  ArrayRef<Tensor> magRef = succeeded(mags) ? ArrayRef<Tensor>(*mags) : ArrayRef<Tensor>();
  // The interpreter's run (--check's reference) and its float64 run, each
  // computed once, when first needed: elements the model cannot bound are
  // judged against the float64 run.
  FailureOr<SmallVector<Tensor>> reference = failure(), f64 = failure();
  auto compareWithF64 = [&](ArrayRef<Tensor> ref) {
    interp::Comparison c = interp::compareOutputs(results, ref, magRef, model);
    if (!c.anyUnbounded())
      return c;
    if (failed(f64)) {
      interp::InterpreterOptions options;
      options.f64Reference = true;
      f64 = interp::interpret(module, entry, args, options);
    }
    if (failed(reference))
      reference = interp::interpret(module, entry, args);
    if (failed(f64) || failed(reference))
      return c;
    return interp::compareOutputs(results, ref, magRef, model, *f64, *reference);
  };
  bool ok = true;
  if (checking) {
    reference = interp::interpret(module, entry, args);
    if (failed(reference))
      return false;
    llvm::outs() << "check against the reference interpreter"
                 << (isOriginal ? " on the original program (before --rules/--passes)" : "")
                 << " (" << describeModel(model) << "):\n";
    interp::Comparison c = compareWithF64(*reference);
    c.print(llvm::outs(), "reference");
    if (!c.ok()) {
      llvm::errs() << "kiln-run: error: the " << (interpretFlag ? "rewritten program's" : "JIT's")
                   << " results differ from the interpreter's"
                   << (isOriginal ? " on the original program" : "") << ": "
                   << c.firstProblem("reference") << "\n";
      ok = false;
    }
  }
  if (expecting) {
    llvm::outs() << "comparison with the expected outputs (" << describeModel(model) << "):\n";
    interp::Comparison c = compareWithF64(*expected);
    c.print(llvm::outs(), "expected");
    if (!c.ok()) {
      llvm::errs() << "kiln-run: error: the results differ from the expected outputs: "
                   << c.firstProblem("expected") << "\n";
      ok = false;
    }
  }
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  DialectRegistry registry;
  if (!registerKilnTool(registry, argc, argv, "kiln-run"))
    return 1;
  // --mlir-timing and the pass manager's other options, applied to the
  // compiler's pass managers (Compiler.cpp): per-pass times of a compile.
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(argc, argv, "Kiln: run a lax program (LLVM JIT or interpreter)\n");
  // A bound that cannot test is an error: a negative k or slack made every
  // comparison say "matches", x against -x included.
  for (auto [name, value] : {std::pair<const char *, double>{"--check-k", checkK},
                             {"--rtol", relTol},
                             {"--atol", absTol}})
    if (!(value >= 0) || std::isinf(value)) {
      llvm::errs() << "kiln-run: error: " << name << " must be a finite number >= 0, got "
                   << llvm::formatv("{0}", value) << "\n";
      return 1;
    }
  for (auto [name, value] : {std::pair<const char *, int>{"--repeat", repeat},
                             {"--warmup", warmup},
                             {"--runtime-threads", threads}})
    if (value < 0) {
      llvm::errs() << "kiln-run: error: " << name << " must be >= 0, got " << value << "\n";
      return 1;
    }
  // Read by the runtime when it first needs its thread count.
  if (threads > 0)
    setenv("KILN_NUM_THREADS", std::to_string(int(threads)).c_str(), 1);
  // Neither is fine for a function without arguments (readInputs says
  // what is missing otherwise).
  if (!inputs.empty() && randomInputsFlag) {
    llvm::errs() << "kiln-run: error: give one of --inputs and --random-inputs, not both\n";
    return 1;
  }
  if (target != "cpu" && target != "gpu") {
    llvm::errs() << "kiln-run: error: --target must be cpu or gpu, got '" << target << "'\n";
    return 1;
  }
  CpuPipelineOptions flagged;
  pipelineFlags.apply(flagged);
  if (check && !interpretFlag && flagged.flushSubnormals) {
    llvm::errs() << "kiln-run: error: --check compares with the reference interpreter, which "
                    "keeps IEEE subnormals: it cannot judge --flush-subnormals (compare with "
                    "jax.jit's outputs through --expect)\n";
    return 1;
  }

  MLIRContext context(registry);
  Compiler::prepareContext(context);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = run::loadProgram(inputFile, sourceMgr, &context,
                                                    programFlags.jaxprInputTypes());
  if (!module)
    return 1;
  // --check compares with the program as it was read: the rules and passes
  // are checked too (comparing the rewritten program with itself would not).
  OwningOpRef<ModuleOp> original;
  if (check && (programFlags.rewritesGiven() || !rules::commandLinePlugins().empty()))
    original = module->clone();
  if (failed(rewrite(*module, context)))
    return 1;
  if (!interpretFlag && failed(run::refuseHostCallbacks(*module, "kiln-run")))
    return 1;
  FailureOr<std::string> entry = run::chooseEntry(*module, programFlags.entry());
  if (failed(entry))
    return 1;
  auto entryArgs = cast<func::FuncOp>(SymbolTable::lookupSymbolIn(*module, *entry)).getNumArguments();
  if (inputs.empty() && !randomInputsFlag && entryArgs > 0) {
    llvm::errs() << "kiln-run: error: @" << *entry << " takes " << entryArgs
                 << " arguments: give their .npy files with --inputs, or --random-inputs\n";
    return 1;
  }
  FailureOr<SmallVector<Tensor>> args =
      randomInputsFlag ? interp::randomInputs(*module, *entry, seed, positiveInputs)
                       : run::readInputs(*module, *entry, inputs);
  if (failed(args))
    return 1;
  if (!inputsOutDir.empty() && failed(run::writeOutputs(inputsOutDir, *args, "in")))
    return 1;
  FailureOr<SmallVector<Tensor>> expected = failure(); // --expect
  if (!expect.empty() && failed(expected = run::readExpected(*module, *entry, expect)))
    return 1;

  SmallVector<Tensor> results;
  if (interpretFlag) {
    interp::InterpreterOptions options;
    options.f64Reference = f64Reference;
    FailureOr<SmallVector<Tensor>> out = interp::interpret(*module, *entry, *args, options);
    if (failed(out))
      return 1;
    results = std::move(*out);
  } else {
    std::vector<std::vector<char>> argBytes;
    std::vector<BufferView> views = viewsOf(*args, argBytes);
    JitRunResult jit;
    std::string error;
    CompileOptions compileOptions;
    if (minThresholds)
      compileOptions = withMinimumThresholds(compileOptions);
    compileOptions.target = target == "gpu" ? Target::Gpu : Target::Cpu;
    compileOptions.gpuChip = gpuChip;
    compileOptions.printIRAfterAll = printIR;
    compileOptions.fpContract = fpContract;
    pipelineFlags.apply(compileOptions);
    if (!noCache)
      compileOptions.cacheDir = cacheDir.empty() ? defaultCompileCacheDir() : cacheDir;
    if (!runJit(*module, *entry, views, warmup, repeat, jit, &error, compileOptions)) {
      llvm::errs() << "kiln-run: error: " << error << "\n";
      return 1;
    }
    if (jit.cache.kind == CacheOutcome::Off && !jit.cache.offReason.empty())
      llvm::errs() << "kiln-run: warning: compile cache not used: " << jit.cache.offReason
                   << "\n";
    if (jit.cache.kind == CacheOutcome::Rebuilt)
      llvm::errs() << "kiln-run: warning: compile cache entry " << jit.cache.entry << ": "
                   << jit.cache.invalid << "; recompiled it\n";
    if (cacheStats)
      llvm::errs() << "compile cache: " << jit.cache.describe() << "\n";
    auto entryFunc = cast<func::FuncOp>(SymbolTable::lookupSymbolIn(*module, *entry));
    for (auto [type, bytes] : llvm::zip(entryFunc.getResultTypes(), jit.outputs))
      results.push_back(tensorOf(cast<RankedTensorType>(type), bytes));
    if (repeat > 0) {
      if (timeJson)
        llvm::outs() << llvm::formatv(
            // e6: formatv's default for doubles is two decimals, which
            // turned every sub-10 ms time into 0.00.
            "{{\"min_s\": {0:e6}, \"median_s\": {1:e6}, \"call_overhead_s\": {2:e6}, "
            "\"repeat\": {3}, \"compile_s\": {4:e6}, \"cache\": \"{5}\", "
            "\"phases_s\": {{\"to_linalg\": {6:e6}, \"to_llvm\": {7:e6}, \"codegen\": {8:e6}, "
            "\"link\": {9:e6}}}\n",
            jit.timings.minSeconds, jit.timings.medianSeconds, jit.timings.callOverheadSeconds,
            jit.timings.repeat, jit.compileSeconds, jit.cache.kindName(), jit.phases.laxToLinalg,
            jit.phases.toLLVM, jit.phases.codegen, jit.phases.link);
      else
        llvm::outs() << formatTimings(jit) << "\n";
    }
  }

  run::printSummary(llvm::outs(), results);
  if (!outputsDir.empty() && failed(run::writeOutputs(outputsDir, results)))
    return 1;
  if (!compare(original ? *original : *module, *entry, *args, results, expected, bool(original)))
    return 1;
  return 0;
}
