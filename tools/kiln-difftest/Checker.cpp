//===- Checker.cpp - kiln-difftest's checks of one program ----------------===//

#include "tools/kiln-difftest/Checker.h"

#include "compiler/Compiler.h"
#include "tools/JitRun.h"
#include "tools/Registration.h"
#include "tools/RunSupport.h"

#include "reference/Comparison.h"
#include "reference/Interpreter.h"
#include "reference/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace kiln;
using namespace kiln::difftest;
using interp::Tensor;

/// run.py's comparisons, in its order. The JIT comes after them.
std::vector<PassComparison> difftest::defaultPassComparisons() {
  return {
      {"canonicalize", "builtin.module(canonicalize)", 0},
      {"kiln-canonicalize-dot-general", "builtin.module(kiln-canonicalize-dot-general)", 0},
      {"kiln-fold-scan-layout", "builtin.module(kiln-fold-scan-layout)", 0},
      {"kiln-scan-pushup", "builtin.module(kiln-scan-pushup)", 0},
      {"kiln-scan-pushup-reassociate", "builtin.module(kiln-scan-pushup{reassociate=true})", 64},
      {"kiln-scan-to-reduction", "builtin.module(kiln-scan-to-reduction)", 0},
      {"kiln-scan-to-reduction-reassociate",
       "builtin.module(kiln-scan-to-reduction{reassociate=true})", 64},
      {"kiln-dedup-functions", "builtin.module(kiln-dedup-functions{inline-max-ops=6})", 0},
      {"kiln-optimize", "builtin.module(kiln-optimize)", 0},
      {"kiln-optimize-reassociate", "builtin.module(kiln-optimize{reassociate=true})", 64},
  };
}
namespace {
/// Whether every output that fails differs, at its first failing element,
/// only in where an infinity or a NaN is: a reassociating rewrite may
/// overflow in one order and not in the other (docs/soundness.md).
bool differsOnlyInNonFinite(const interp::Comparison &comparison) {
  if (!comparison.countMismatch.empty())
    return false;
  bool any = false;
  for (const interp::OutputComparison &output : comparison.outputs) {
    if (output.ok())
      continue;
    const interp::ElementReport &e = output.firstFailure;
    if (!output.typeMismatch.empty() || !isa<FloatType>(output.type.getElementType()) ||
        (std::isfinite(e.got) && std::isfinite(e.ref)))
      return false;
    any = true;
  }
  return any;
}

/// The larger of two magnitude runs, element by element; a number wins over
/// a NaN (unknown). A rewritten program is judged against the original's
/// result: both carry rounding errors, each bounded by its own run (a
/// reassociating pass can remove an underflow the original amplifies, or
/// add one).
SmallVector<Tensor> largerMagnitudes(ArrayRef<Tensor> a, ArrayRef<Tensor> b) {
  SmallVector<Tensor> larger(a);
  for (auto [l, other] : llvm::zip(larger, b)) {
    if (!l.isFloat() || l.getType() != other.getType())
      continue;
    for (int64_t i = 0; i < l.size(); ++i) {
      double x = l.getFloat(i), y = other.getFloat(i);
      if (std::isnan(x) || y > x)
        l.copyElement(i, other, i);
    }
  }
  return larger;
}

} // namespace

void Checker::start(const Program &program, StringRef step) {
  std::snprintf(stepNote, sizeof(stepNote), "kiln-difftest: checking %s, step %s",
                program.name.c_str(), step.str().c_str());
  if (progress) {
    llvm::json::Object line{{"program", program.name}, {"step", step}};
    *progress << llvm::json::Value(std::move(line)) << "\n";
    progress->flush();
  }
}

MLIRContext &Checker::nextContext() {
  if (!context || contextUses == kProgramsPerContext) {
    context.reset(); // the old one first: only one context's memory at a time
    // Single-threaded: run.py runs several of these processes.
    context = std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
    Compiler::prepareContext(*context);
    contextUses = 0;
  }
  ++contextUses;
  return *context;
}

ProgramReport Checker::check(const Program &program) {
  ProgramReport report;
  report.name = program.name;
  llvm::PrettyStackTraceString crashNote(stepNote);
  auto finding = [&](StringRef comparison, StringRef kind, const Twine &detail) {
    report.findings.push_back({comparison.str(), kind.str(), detail.str() + takeDiagnostics()});
  };

  MLIRContext &context = nextContext();
  llvm::SourceMgr sourceMgr;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, diagnosticStream);

  start(program, "parse");
  if (failed(checkMlirNesting(program.text, program.bufferName, &diagnosticStream))) {
    finding("parse", "invalid", "");
    return report;
  }
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(program.text, program.bufferName),
                               llvm::SMLoc());
  OwningOpRef<ModuleOp> original = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!original) {
    finding("parse", "invalid", "");
    return report;
  }
  FailureOr<std::string> entry = run::chooseEntry(*original, "");
  if (failed(entry)) {
    finding("parse", "invalid", "");
    return report;
  }

  start(program, "inputs");
  SmallVector<Tensor> inputs;
  if (program.randomSeed) {
    FailureOr<SmallVector<Tensor>> random =
        interp::randomInputs(*original, *entry, *program.randomSeed);
    if (failed(random)) {
      finding("inputs", "error", "");
      return report;
    }
    inputs = std::move(*random);
  } else if (program.generatedInputs) {
    for (const GeneratedInput &input : *program.generatedInputs)
      inputs.push_back(toTensor(input, &context));
  } else {
    auto func = cast<func::FuncOp>(SymbolTable::lookupSymbolIn(*original, *entry));
    if (func.getNumArguments() != program.inputFiles.size()) {
      finding("inputs", "error",
              "@" + *entry + " takes " + Twine(func.getNumArguments()) + " inputs but " +
                  Twine(program.inputFiles.size()) + " .npy files were found\n");
      return report;
    }
    for (auto [i, file] : llvm::enumerate(program.inputFiles)) {
      std::string error;
      FailureOr<Tensor> t = interp::readNpy(file, &context, error);
      if (succeeded(t) && t->getType() != func.getArgumentTypes()[i]) {
        llvm::raw_string_ostream(error) << file << ": holds " << t->getType() << " but input #"
                                        << i << " is " << func.getArgumentTypes()[i];
        t = failure();
      }
      if (failed(t)) {
        finding("inputs", "error", error + "\n");
        return report;
      }
      inputs.push_back(std::move(*t));
    }
  }

  start(program, "interpreter");
  FailureOr<SmallVector<Tensor>> reference = interp::interpret(*original, *entry, inputs);
  if (failed(reference)) {
    finding("interpreter", "error", "");
    return report;
  }

  llvm::SmallDenseSet<unsigned> unstable = interp::unstableOutputs(program.text);
  for (const PassComparison &pass : passes) {
    start(program, pass.name);
    ++report.comparisons;
    if (std::optional<Finding> f =
            checkPass(pass, *original, *entry, inputs, *reference, unstable))
      report.findings.push_back(std::move(*f));
  }
  SmallVector<StringRef, 2> jits;
  if (jit)
    jits.push_back(kJitComparison);
  if (jitMinThresholds && program.minThresholds)
    jits.push_back(kJitMinThresholdsComparison);
  if (!jits.empty())
    checkJit(program, *original, *entry, inputs, *reference, jits, report);
  return report;
}

std::optional<Finding> Checker::checkPass(const PassComparison &pass, ModuleOp original,
                                          StringRef entry, ArrayRef<Tensor> inputs,
                                          ArrayRef<Tensor> reference,
                                          const llvm::SmallDenseSet<unsigned> &unstable) {
  MLIRContext *context = original.getContext();
  auto error = [&](const Twine &what) {
    return Finding{pass.name, "error", what.str() + takeDiagnostics()};
  };
  OwningOpRef<ModuleOp> rewritten = original.clone();
  PassManager pm(context);
  std::string pipelineErrors;
  llvm::raw_string_ostream pipelineStream(pipelineErrors);
  if (failed(addPassPipeline(pm, pass.pipeline, pipelineStream)))
    return error("invalid pipeline '" + pass.pipeline + "': " + pipelineErrors + "\n");
  if (failed(pm.run(*rewritten)))
    return error("the pipeline failed\n");
  // As kiln-opt's output file: what the pass leaves must print and parse.
  std::string printed;
  llvm::raw_string_ostream(printed) << *rewritten;
  OwningOpRef<ModuleOp> reparsed =
      parseSourceString<ModuleOp>(printed, ParserConfig(context), "after-" + pass.name);
  if (!reparsed)
    return error("the pipeline's result does not parse again\n");
  FailureOr<SmallVector<Tensor>> got = interp::interpret(*reparsed, entry, inputs);
  if (failed(got))
    return error("the interpreter failed on the pipeline's result\n");
  interp::ErrorModel model;
  model.k = pass.k;
  // The bound of an exact comparison is 0 whatever the magnitudes.
  FailureOr<SmallVector<Tensor>> mags = failure();
  if (pass.k > 0) {
    std::string magError;
    mags = interp::magnitudes(*reparsed, entry, inputs, magError);
    FailureOr<SmallVector<Tensor>> originalMags =
        interp::magnitudes(original, entry, inputs, magError);
    if (succeeded(mags) && succeeded(originalMags))
      mags = largerMagnitudes(*mags, *originalMags);
    else if (succeeded(originalMags))
      mags = std::move(originalMags);
  }
  interp::Comparison comparison = interp::compareOutputs(
      *got, reference, succeeded(mags) ? ArrayRef<Tensor>(*mags) : ArrayRef<Tensor>(), model);
  takeDiagnostics(); // the magnitude run's, if any
  // A tagged pass (k > 0) computes approximately, as the JIT does: the
  // outputs the generator marks unstable for the JIT (a discrete function
  // of an approximate value, such as the bitcast of a regrouped product)
  // are left out of its comparison too.
  if (comparison.ok() ||
      (pass.k > 0 && (differsOnlyInNonFinite(comparison) || comparison.okExcept(unstable))))
    return std::nullopt;
  std::string detail;
  llvm::raw_string_ostream os(detail);
  os << "after " << pass.pipeline << ", k = " << llvm::format("%g", pass.k) << ":\n";
  comparison.print(os, "reference");
  return Finding{pass.name, "mismatch", detail};
}

/// The compile options of a JIT comparison (no cacheDir: no compile cache,
/// as run.py's --no-cache).
static CompileOptions jitOptions(StringRef name) {
  return name == kJitMinThresholdsComparison ? withMinimumThresholds({}) : CompileOptions{};
}

void Checker::checkJit(const Program &program, ModuleOp original, StringRef entry,
                       ArrayRef<Tensor> inputs, ArrayRef<Tensor> reference,
                       ArrayRef<StringRef> names, ProgramReport &report) {
  auto error = [&](StringRef name, const Twine &what) {
    report.findings.push_back(Finding{name.str(), "error", what.str() + takeDiagnostics()});
  };
  // The view and its magnitudes are the first comparison's step.
  start(program, names.front());
  // The view: @entry without the unstable outputs, and their dead producers.
  OwningOpRef<ModuleOp> view = original.clone();
  auto func = cast<func::FuncOp>(SymbolTable::lookupSymbolIn(*view, entry));
  llvm::SmallDenseSet<unsigned> unstable = interp::unstableOutputs(program.text);
  llvm::SmallDenseSet<unsigned> exact = interp::exactOutputs(program.text);
  llvm::BitVector drop(func.getNumResults());
  SmallVector<Tensor> kept;
  SmallVector<unsigned> keptExact; // positions in `kept`
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    if (unstable.contains(i)) {
      drop.set(i);
      continue;
    }
    if (exact.contains(i))
      keptExact.push_back(kept.size());
    kept.push_back(reference[i]);
  }
  if (kept.empty()) {
    report.comparisons += names.size(); // run, with nothing to compare
    report.skipped = "jit: every output is a discrete function of approximate values";
    return;
  }
  if (drop.any()) {
    for (Block &block : func.getBody())
      if (auto ret = dyn_cast<func::ReturnOp>(block.getTerminator()))
        ret->eraseOperands(drop);
    if (failed(func.eraseResults(drop)))
      return error(names.front(), "cannot drop the unstable outputs\n");
    // Producers before users: one reverse sweep drops every dead chain.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(func.getBody().front())))
      if (isOpTriviallyDead(&op))
        op.erase();
  }

  std::string magError;
  FailureOr<SmallVector<Tensor>> mags = interp::magnitudes(*view, entry, inputs, magError);
  takeDiagnostics();
  // The view's float64 run, computed when a comparison has elements the
  // model cannot bound: they are judged against it.
  FailureOr<SmallVector<Tensor>> f64 = failure();
  bool f64Tried = false;
  std::vector<std::vector<char>> argBytes;
  std::vector<BufferView> argViews = viewsOf(inputs, argBytes);
  for (StringRef name : names) {
    if (name != names.front())
      start(program, name);
    ++report.comparisons;
    JitRunResult result;
    std::string jitError;
    // runJit compiles a clone: the view stays as it is for the next one.
    if (!runJit(*view, entry.str(), argViews, /*warmup=*/0, /*repeat=*/0, result, &jitError,
                jitOptions(name))) {
      error(name, jitError + "\n");
      continue;
    }
    SmallVector<Tensor> got;
    for (auto [type, bytes] : llvm::zip(func.getResultTypes(), result.outputs))
      got.push_back(tensorOf(cast<RankedTensorType>(type), bytes));
    ArrayRef<Tensor> magRef = succeeded(mags) ? ArrayRef<Tensor>(*mags) : ArrayRef<Tensor>();
    interp::Comparison comparison = interp::compareOutputs(got, kept, magRef, {});
    if (comparison.anyUnbounded()) {
      if (!f64Tried) {
        f64Tried = true;
        interp::InterpreterOptions options;
        options.f64Reference = true;
        f64 = interp::interpret(*view, entry, inputs, options);
        takeDiagnostics();
      }
      if (succeeded(f64))
        comparison = interp::compareOutputs(got, kept, magRef, {}, *f64);
    }
    // The outputs marked exact: identical values (k = 0), not the model's
    // (the magnitudes only annotate the report).
    interp::ErrorModel identical;
    identical.k = 0;
    for (unsigned j : keptExact)
      if (j < comparison.outputs.size() && j < got.size())
        comparison.outputs[j] = interp::compareOutput(
            got[j], kept[j], succeeded(mags) && j < mags->size() ? &(*mags)[j] : nullptr,
            identical);
    if (comparison.ok())
      continue;
    std::string detail;
    llvm::raw_string_ostream os(detail);
    os << "the JIT";
    if (name == kJitMinThresholdsComparison)
      os << " with the cost model's size thresholds at their minimum";
    os << " on the program";
    if (drop.any())
      os << " without its unstable outputs (output i below is the i-th output kept)";
    os << ", k = " << llvm::format("%g", interp::ErrorModel().k);
    if (!keptExact.empty())
      os << " (k = 0 for output" << (keptExact.size() > 1 ? "s " : " ")
         << llvm::join(llvm::map_range(keptExact, [](unsigned j) { return std::to_string(j); }),
                       ", ")
         << ", marked exact)";
    os << ":\n";
    comparison.print(os, "reference");
    report.findings.push_back(Finding{name.str(), "mismatch", detail});
  }
}
