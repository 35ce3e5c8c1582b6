//===- kiln-difftest.cpp - differential checks of lax programs, in one process ===//
//
//   kiln-difftest PATH... [--comparisons=NAME,...] [--no-jit]
//                 [--comparison=NAME=PIPELINE[:K]]... [--seed N] [--json]
//   kiln-difftest --list-comparisons [--json]
//
// What tests/differential/run.py checks for each generated program
// (docs/soundness.md), without a process per step: the reference
// interpreter runs the original program on its inputs, and its outputs are
// the oracle of every comparison:
//
//   - each Kiln lax -> lax pass alone, --kiln-optimize and --canonicalize
//     (the pass pipeline, the result printed and parsed again, then the
//     interpreter): exact ones bit for bit (k = 0), reassociating ones
//     within the error model (k = 64), where a difference only in where inf
//     or NaN is is allowed (the tag allows regrouping that overflows);
//   - the CPU JIT (kiln::Compiler, no cache) within the error model, on the
//     program without the outputs the generator marked unstable
//     (`// jit-unstable-outputs: 1,3`: discrete functions of approximate
//     values, which the model cannot compare).
//
// Every comparison goes through reference/Comparison.h, the one
// implementation of the error model. A PATH is a program directory
// (prog.mlir and its inputs in0.npy, in1.npy, ...: generate.py's layout), a
// directory of such directories (checked in name order), or an .mlir file of
// one or more modules separated by `// -----` lines, run on random inputs
// (interp::randomInputs, seed --seed plus the module's index).
//
// A finding is a mismatch, or an error on a valid program (a pass or the
// lowering failing, the interpreter refusing); its report holds the
// comparison's printout and the diagnostics. Crashes and hangs end the
// process: run.py's batches watch the progress lines (--json) and blame the
// comparison in flight; the stack dump names it too. Exit status: 0 when
// every comparison agrees, 1 on a finding, 2 on bad arguments or inputs.
//
//===----------------------------------------------------------------------===//
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
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cl = llvm::cl;
using namespace mlir;
using namespace kiln;
using interp::Tensor;

static cl::OptionCategory difftestCategory("kiln-difftest options");

static cl::list<std::string> paths(cl::Positional, cl::cat(difftestCategory),
                                   cl::desc("<program dir | dir of program dirs | file.mlir>..."));
static cl::list<std::string> onlyComparisons(
    "comparisons", cl::cat(difftestCategory), cl::CommaSeparated,
    cl::desc("Run only these comparisons (names as --list-comparisons prints them)"));
static cl::list<std::string> extraComparisons(
    "comparison", cl::cat(difftestCategory),
    cl::desc("Add a comparison NAME=PIPELINE[:K] (K = 0, exact, by default), e.g. "
             "'mine=builtin.module(kiln-apply-rules{rules=my.yaml}):64' (repeatable)"));
static cl::opt<bool> noJit("no-jit", cl::cat(difftestCategory), cl::desc("Skip the JIT comparison"));
static cl::opt<unsigned> seed("seed", cl::cat(difftestCategory),
                              cl::desc("Random inputs of .mlir files: seed of the first module"),
                              cl::init(0));
static cl::opt<bool> json("json", cl::cat(difftestCategory),
                          cl::desc("One JSON line per step started and per program checked"));
static cl::opt<bool> listComparisons("list-comparisons", cl::cat(difftestCategory),
                                     cl::desc("Print the comparisons (name, pipeline, k) and exit"));

namespace {

/// A comparison of a pass pipeline's result with the oracle: the error
/// model's k (0: bit for bit).
struct PassComparison {
  std::string name, pipeline;
  double k;
};

/// run.py's comparisons, in its order. The JIT comes after them.
std::vector<PassComparison> defaultPassComparisons() {
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
constexpr llvm::StringLiteral kJitComparison = "jit";
/// What the generator writes above @main (generate.py).
constexpr llvm::StringLiteral kUnstableMarker = "// jit-unstable-outputs:";
/// Between the modules of one .mlir file, as mlir-opt's --split-input-file.
constexpr llvm::StringLiteral kModuleSeparator = "// -----";

/// One program to check and where its inputs come from.
struct Program {
  std::string name;       // the directory, or FILE#index
  std::string bufferName; // for diagnostics
  std::string text;
  std::vector<std::string> inputFiles; // .npy, one per argument of the entry
  std::optional<uint64_t> randomSeed;  // instead of inputFiles
};

struct Finding {
  std::string comparison, kind, detail;
};

struct ProgramReport {
  std::string name;
  unsigned comparisons = 0;
  std::string skipped; // why a comparison did not run
  std::vector<Finding> findings;
};

/// A program directory: prog.mlir and in0.npy, in1.npy, ... beside it.
FailureOr<Program> readProgramDir(StringRef dir, std::string &error) {
  SmallString<256> path(dir);
  llvm::sys::path::append(path, "prog.mlir");
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file) {
    error = (path + ": cannot read: " + file.getError().message()).str();
    return failure();
  }
  Program program{dir.str(), path.str().str(), (*file)->getBuffer().str(), {}, std::nullopt};
  for (unsigned i = 0;; ++i) {
    SmallString<256> input(dir);
    llvm::sys::path::append(input, "in" + Twine(i) + ".npy");
    if (!llvm::sys::fs::exists(input))
      break;
    program.inputFiles.push_back(input.str().str());
  }
  return program;
}

/// The programs named by `path` (see the file comment), appended to `out`.
LogicalResult collectPrograms(StringRef path, std::vector<Program> &out, std::string &error) {
  if (llvm::sys::fs::is_directory(path)) {
    SmallString<256> prog(path);
    llvm::sys::path::append(prog, "prog.mlir");
    if (llvm::sys::fs::exists(prog)) {
      FailureOr<Program> p = readProgramDir(path, error);
      if (failed(p))
        return failure();
      out.push_back(std::move(*p));
      return success();
    }
    std::vector<std::string> dirs;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(path, ec), end; it != end && !ec; it.increment(ec)) {
      SmallString<256> inner(it->path());
      llvm::sys::path::append(inner, "prog.mlir");
      if (llvm::sys::fs::exists(inner))
        dirs.push_back(it->path());
    }
    if (ec) {
      error = (path + ": cannot list: " + ec.message()).str();
      return failure();
    }
    if (dirs.empty()) {
      error = (path + ": no program directories (with a prog.mlir) in it").str();
      return failure();
    }
    llvm::sort(dirs);
    for (const std::string &dir : dirs) {
      FailureOr<Program> p = readProgramDir(dir, error);
      if (failed(p))
        return failure();
      out.push_back(std::move(*p));
    }
    return success();
  }
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file) {
    error = (path + ": cannot read: " + file.getError().message()).str();
    return failure();
  }
  // Split at separator lines, keeping line numbers out of it: each module is
  // its own buffer, named FILE#i.
  SmallVector<StringRef> lines;
  (*file)->getBuffer().split(lines, '\n');
  std::string current;
  unsigned index = 0;
  auto flush = [&] {
    Program program;
    program.name = (path + "#" + Twine(index)).str();
    program.bufferName = program.name;
    program.text = std::move(current);
    program.randomSeed = seed + index++;
    out.push_back(std::move(program));
    current.clear();
  };
  for (StringRef line : lines) {
    if (line.trim() == kModuleSeparator) {
      flush();
      continue;
    }
    current += line;
    current += '\n';
  }
  flush();
  return success();
}

/// The entry's indices of the outputs `// jit-unstable-outputs: 1,3` marks.
llvm::SmallDenseSet<unsigned> unstableOutputs(StringRef text) {
  llvm::SmallDenseSet<unsigned> unstable;
  size_t pos = text.find(kUnstableMarker);
  if (pos == StringRef::npos)
    return unstable;
  StringRef list = text.drop_front(pos + kUnstableMarker.size()).take_until([](char c) {
    return c == '\n';
  });
  SmallVector<StringRef> items;
  list.split(items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    unsigned i;
    if (!item.trim().getAsInteger(10, i))
      unstable.insert(i);
  }
  return unstable;
}

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

/// Checks programs one after the other, each in its own MLIRContext.
class Checker {
public:
  Checker(DialectRegistry &registry, std::vector<PassComparison> passes, bool jit)
      : registry(registry), passes(std::move(passes)), jit(jit) {}

  ProgramReport check(const Program &program);

private:
  /// Announces the step about to run: a progress line (--json) and the
  /// stack dump's note should it crash.
  void start(const Program &program, StringRef step);
  /// The pipeline on a copy of `original`, printed and parsed again, then
  /// the interpreter, compared with `reference`.
  std::optional<Finding> checkPass(const PassComparison &pass, ModuleOp original,
                                   StringRef entry, ArrayRef<Tensor> inputs,
                                   ArrayRef<Tensor> reference);
  /// The JIT on the original without its unstable outputs.
  std::optional<Finding> checkJit(ModuleOp original, StringRef text, StringRef entry,
                                  ArrayRef<Tensor> inputs, ArrayRef<Tensor> reference,
                                  std::string &skipped);
  /// The diagnostics gathered since the last call.
  std::string takeDiagnostics() {
    std::string text = std::move(diagnostics);
    diagnostics.clear();
    return text;
  }

  DialectRegistry &registry;
  std::vector<PassComparison> passes;
  bool jit;
  std::string diagnostics;
  /// What the stack dump says should a step crash (a fixed buffer: the
  /// PrettyStackTraceString holds on to its address).
  char stepNote[512] = "kiln-difftest: starting";
};

void Checker::start(const Program &program, StringRef step) {
  std::snprintf(stepNote, sizeof(stepNote), "kiln-difftest: checking %s, step %s",
                program.name.c_str(), step.str().c_str());
  if (json) {
    llvm::json::Object line{{"program", program.name}, {"step", step}};
    llvm::outs() << llvm::json::Value(std::move(line)) << "\n";
    llvm::outs().flush();
  }
}

ProgramReport Checker::check(const Program &program) {
  ProgramReport report;
  report.name = program.name;
  llvm::PrettyStackTraceString crashNote(stepNote);
  auto finding = [&](StringRef comparison, StringRef kind, const Twine &detail) {
    report.findings.push_back({comparison.str(), kind.str(), detail.str() + takeDiagnostics()});
  };

  // A context per program: nothing one program uniqued or registered
  // outlives it. Single-threaded: run.py runs several of these processes.
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  Compiler::prepareContext(context);
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

  for (const PassComparison &pass : passes) {
    start(program, pass.name);
    ++report.comparisons;
    if (std::optional<Finding> f = checkPass(pass, *original, *entry, inputs, *reference))
      report.findings.push_back(std::move(*f));
  }
  if (jit) {
    start(program, kJitComparison);
    ++report.comparisons;
    if (std::optional<Finding> f =
            checkJit(*original, program.text, *entry, inputs, *reference, report.skipped))
      report.findings.push_back(std::move(*f));
  }
  return report;
}

std::optional<Finding> Checker::checkPass(const PassComparison &pass, ModuleOp original,
                                          StringRef entry, ArrayRef<Tensor> inputs,
                                          ArrayRef<Tensor> reference) {
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
  }
  interp::Comparison comparison = interp::compareOutputs(
      *got, reference, succeeded(mags) ? ArrayRef<Tensor>(*mags) : ArrayRef<Tensor>(), model);
  takeDiagnostics(); // the magnitude run's, if any
  if (comparison.ok() || (pass.k > 0 && differsOnlyInNonFinite(comparison)))
    return std::nullopt;
  std::string detail;
  llvm::raw_string_ostream os(detail);
  os << "after " << pass.pipeline << ", k = " << llvm::format("%g", pass.k) << ":\n";
  comparison.print(os, "reference");
  return Finding{pass.name, "mismatch", detail};
}

std::optional<Finding> Checker::checkJit(ModuleOp original, StringRef text, StringRef entry,
                                         ArrayRef<Tensor> inputs, ArrayRef<Tensor> reference,
                                         std::string &skipped) {
  auto error = [&](const Twine &what) {
    return Finding{kJitComparison.str(), "error", what.str() + takeDiagnostics()};
  };
  // The view: @entry without the unstable outputs, and their dead producers.
  OwningOpRef<ModuleOp> view = original.clone();
  auto func = cast<func::FuncOp>(SymbolTable::lookupSymbolIn(*view, entry));
  llvm::SmallDenseSet<unsigned> unstable = unstableOutputs(text);
  llvm::BitVector drop(func.getNumResults());
  SmallVector<Tensor> kept;
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    if (unstable.contains(i))
      drop.set(i);
    else
      kept.push_back(reference[i]);
  }
  if (kept.empty()) {
    skipped = "jit: every output is a discrete function of approximate values";
    return std::nullopt;
  }
  if (drop.any()) {
    for (Block &block : func.getBody())
      if (auto ret = dyn_cast<func::ReturnOp>(block.getTerminator()))
        ret->eraseOperands(drop);
    if (failed(func.eraseResults(drop)))
      return error("cannot drop the unstable outputs\n");
    // Producers before users: one reverse sweep drops every dead chain.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(func.getBody().front())))
      if (isOpTriviallyDead(&op))
        op.erase();
  }

  std::string magError;
  FailureOr<SmallVector<Tensor>> mags = interp::magnitudes(*view, entry, inputs, magError);
  takeDiagnostics();
  std::vector<std::vector<char>> argBytes;
  std::vector<BufferView> argViews = viewsOf(inputs, argBytes);
  JitRunResult result;
  std::string jitError;
  CompileOptions options; // no cacheDir: no compile cache, as run.py's --no-cache
  if (!runJit(*view, entry.str(), argViews, /*warmup=*/0, /*repeat=*/0, result, &jitError,
              options))
    return error(jitError + "\n");
  SmallVector<Tensor> got;
  for (auto [type, bytes] : llvm::zip(func.getResultTypes(), result.outputs))
    got.push_back(tensorOf(cast<RankedTensorType>(type), bytes));
  interp::Comparison comparison = interp::compareOutputs(
      got, kept, succeeded(mags) ? ArrayRef<Tensor>(*mags) : ArrayRef<Tensor>(), {});
  if (comparison.ok())
    return std::nullopt;
  std::string detail;
  llvm::raw_string_ostream os(detail);
  os << "the JIT on the program";
  if (drop.any())
    os << " without its unstable outputs (output i below is the i-th output kept)";
  os << ", k = " << llvm::format("%g", interp::ErrorModel().k) << ":\n";
  comparison.print(os, "reference");
  return Finding{kJitComparison.str(), "mismatch", detail};
}

/// --comparison NAME=PIPELINE[:K].
FailureOr<PassComparison> parseExtraComparison(StringRef spec) {
  auto [name, rest] = spec.split('=');
  if (name.empty() || rest.empty())
    return failure();
  PassComparison pass{name.str(), rest.str(), 0};
  // The pipeline ends with ')'; what follows a last ':' after it is k.
  size_t colon = rest.rfind(':');
  if (colon != StringRef::npos && rest.find(')', colon) == StringRef::npos) {
    if (rest.drop_front(colon + 1).getAsDouble(pass.k) || pass.k < 0)
      return failure();
    pass.pipeline = rest.take_front(colon).str();
  }
  return pass;
}

void printReport(const ProgramReport &report) {
  if (json) {
    llvm::json::Array findings;
    for (const Finding &f : report.findings)
      findings.push_back(llvm::json::Object{
          {"comparison", f.comparison}, {"kind", f.kind}, {"detail", f.detail}});
    llvm::json::Object line{{"program", report.name},
                            {"done", true},
                            {"comparisons", report.comparisons},
                            {"skipped", report.skipped},
                            {"findings", std::move(findings)}};
    llvm::outs() << llvm::json::Value(std::move(line)) << "\n";
    llvm::outs().flush();
    return;
  }
  llvm::outs() << report.name << ": "
               << (report.findings.empty() ? "ok" : Twine(report.findings.size()) + " findings")
               << " (" << report.comparisons << " comparisons"
               << (report.skipped.empty() ? "" : "; " + report.skipped) << ")\n";
  for (const Finding &f : report.findings) {
    llvm::outs() << "  " << f.comparison << ": " << f.kind << "\n";
    SmallVector<StringRef> lines;
    StringRef(f.detail).rtrim().split(lines, '\n');
    for (StringRef line : lines)
      llvm::outs() << "    " << line << "\n";
  }
  llvm::outs().flush();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  DialectRegistry registry;
  if (!registerKilnTool(registry, argc, argv, "kiln-difftest"))
    return 2;
  cl::HideUnrelatedOptions(difftestCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "Kiln: differential checks of lax programs against the reference "
                              "interpreter (passes, --canonicalize, the JIT), in one process\n");

  std::vector<PassComparison> all = defaultPassComparisons();
  for (const std::string &spec : extraComparisons) {
    FailureOr<PassComparison> pass = parseExtraComparison(spec);
    if (failed(pass)) {
      llvm::errs() << "kiln-difftest: error: --comparison wants NAME=PIPELINE[:K], got '" << spec
                   << "'\n";
      return 2;
    }
    all.push_back(std::move(*pass));
  }
  if (listComparisons) {
    for (const PassComparison &pass : all) {
      if (json)
        llvm::outs() << llvm::json::Value(llvm::json::Object{
                            {"name", pass.name}, {"pipeline", pass.pipeline}, {"k", pass.k}})
                     << "\n";
      else
        llvm::outs() << pass.name << " " << pass.pipeline << " k=" << llvm::format("%g", pass.k)
                     << "\n";
    }
    if (json)
      llvm::outs() << llvm::json::Value(llvm::json::Object{{"name", kJitComparison},
                                                            {"pipeline", nullptr},
                                                            {"k", interp::ErrorModel().k}})
                   << "\n";
    else
      llvm::outs() << kJitComparison << " (the CPU JIT) k="
                   << llvm::format("%g", interp::ErrorModel().k) << "\n";
    return 0;
  }
  if (paths.empty()) {
    llvm::errs() << "kiln-difftest: error: no programs given\n";
    return 2;
  }

  // --comparisons selects among the passes and the JIT.
  std::vector<PassComparison> selected;
  bool jit = !noJit;
  if (!onlyComparisons.empty()) {
    llvm::StringSet<> wanted;
    for (const std::string &name : onlyComparisons)
      wanted.insert(name);
    for (const PassComparison &pass : all)
      if (wanted.erase(pass.name))
        selected.push_back(pass);
    jit = jit && wanted.erase(kJitComparison);
    if (!wanted.empty()) {
      llvm::errs() << "kiln-difftest: error: unknown comparison '" << wanted.begin()->getKey()
                   << "' (--list-comparisons prints them)\n";
      return 2;
    }
  } else {
    selected = std::move(all);
  }

  std::vector<Program> programs;
  for (const std::string &path : paths) {
    std::string error;
    if (failed(collectPrograms(path, programs, error))) {
      llvm::errs() << "kiln-difftest: error: " << error << "\n";
      return 2;
    }
  }

  Checker checker(registry, std::move(selected), jit);
  unsigned numFindings = 0, numComparisons = 0;
  for (const Program &program : programs) {
    ProgramReport report = checker.check(program);
    numFindings += report.findings.size();
    numComparisons += report.comparisons;
    printReport(report);
  }
  if (!json)
    llvm::outs() << programs.size() << " programs, " << numComparisons << " comparisons, "
                 << numFindings << " findings\n";
  return numFindings ? 1 : 0;
}
