//===- kiln-difftest.cpp - differential checks of lax programs, in one process ===//
//
//   kiln-difftest PATH... [--comparisons=NAME,...] [--no-jit]
//                 [--comparison=NAME=PIPELINE[:K]]... [--seed N] [--json]
//   kiln-difftest --generate N [--seed S] [--max-ops M] [--profile models]
//                 [options as above]
//   kiln-difftest --generate-seeds S1,S2,... [--max-ops M] [options as above]
//   kiln-difftest generate (--seed N | --bytes FUZZ-INPUT) [--max-ops M] [--out DIR]
//   kiln-difftest --list-comparisons [--json]
//
// What tests/differential/run.py checks for each generated program
// (docs/soundness.md), without a process per step: Checker.h's comparisons
// (every Kiln pass, --canonicalize, the CPU JIT against the reference
// interpreter on the original program).
//
// A PATH is a program directory (prog.mlir and its inputs in0.npy, in1.npy,
// ...: what `generate --out` writes), a directory of such directories
// (checked in name order), or an .mlir file of one or more modules separated
// by `// -----` lines, run on random inputs (interp::randomInputs, seed
// --seed plus the module's index). --generate checks generated programs
// (ProgramGenerator.h) of seeds S, S+1, ... without writing them, each named
// seedN; `generate` prints a seed's program, or writes it and its inputs to
// DIR/prog.mlir and DIR/in<i>.npy.
//
// Crashes and hangs end the process: run.py's batches watch the progress
// lines (--json) and blame the comparison in flight; the stack dump names it
// too. Exit status: 0 when every comparison agrees, 1 on a finding, 2 on bad
// arguments or inputs.
//
//===----------------------------------------------------------------------===//
#include "tools/kiln-difftest/Checker.h"
#include "tools/kiln-difftest/ProgramGenerator.h"

#include "tools/Registration.h"

#include "reference/Comparison.h"
#include "reference/Npy.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

namespace cl = llvm::cl;
using namespace mlir;
using namespace kiln;
using namespace kiln::difftest;

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
static cl::opt<bool> noJit("no-jit", cl::cat(difftestCategory),
                           cl::desc("Skip the JIT comparisons (jit, jit-min-thresholds)"));
static cl::opt<unsigned> minThresholdsEvery(
    "min-thresholds-every", cl::cat(difftestCategory),
    cl::desc("Run jit-min-thresholds on every N-th program only: generated programs whose "
             "seed is a multiple of N, the N-th, 2N-th, ... of the files (0: never)"),
    cl::init(1));
static cl::opt<int64_t> seed("seed", cl::cat(difftestCategory),
                             cl::desc("The (first) generated program's seed; random inputs of "
                                      ".mlir files: seed of the first module"),
                             cl::init(0));
static cl::opt<unsigned> generateCount("generate", cl::cat(difftestCategory),
                                       cl::desc("Check N generated programs, seeds --seed, "
                                                "--seed + 1, ..."),
                                       cl::init(0));
static cl::list<int64_t> generateSeeds("generate-seeds", cl::cat(difftestCategory),
                                       cl::CommaSeparated,
                                       cl::desc("Check the generated programs of these seeds"));
static cl::opt<unsigned> maxOps("max-ops", cl::cat(difftestCategory),
                                cl::desc("Generated programs: top-level ops of @main (default: "
                                         "random, 4 to 18)"),
                                cl::init(0));
static cl::opt<unsigned> sizeScale(
    "size-scale", cl::cat(difftestCategory),
    cl::desc("Generated programs: dimension sizes from ranges N times longer, up to 48 N^2 "
             "elements a tensor (default 1: at most 48; other values give other programs)"),
    cl::init(1));
static cl::opt<GeneratorOptions::Profile> profile(
    "profile", cl::cat(difftestCategory),
    cl::desc("Generated programs: what they are like (default: random)"),
    cl::values(clEnumValN(GeneratorOptions::Profile::Random, "random",
                          "small random DAGs of every op family (the campaigns' seeds)"),
               clEnumValN(GeneratorOptions::Profile::Models, "models",
                          "training steps of small networks at realistic sizes: dot chains "
                          "sharing operands across transposes, residual adds, bf16/f16, "
                          "zero-size slices")),
    cl::init(GeneratorOptions::Profile::Random));
static cl::opt<std::string> outDir("out", cl::cat(difftestCategory),
                                   cl::desc("generate: write DIR/prog.mlir and DIR/in<i>.npy "
                                            "instead of printing the program"));
static cl::opt<std::string> bytesFile(
    "bytes", cl::cat(difftestCategory),
    cl::desc("generate: the program of a kiln-fuzz-generated input (its bytes as the "
             "decisions) instead of a seed's"));
static cl::opt<bool> json("json", cl::cat(difftestCategory),
                          cl::desc("One JSON line per step started and per program checked"));
static cl::opt<bool> listComparisons("list-comparisons", cl::cat(difftestCategory),
                                     cl::desc("Print the comparisons (name, pipeline, k) and exit"));

namespace {

/// Between the modules of one .mlir file, as mlir-opt's --split-input-file.
constexpr llvm::StringLiteral kModuleSeparator = "// -----";

/// A program directory: prog.mlir and in0.npy, in1.npy, ... beside it.
FailureOr<Program> readProgramDir(StringRef dir, std::string &error) {
  SmallString<256> path(dir);
  llvm::sys::path::append(path, "prog.mlir");
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file) {
    error = (path + ": cannot read: " + file.getError().message()).str();
    return failure();
  }
  Program program;
  program.name = dir.str();
  program.bufferName = path.str().str();
  program.text = (*file)->getBuffer().str();
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

/// `generate`: a seed's (or a fuzzer input's) program on stdout, or in DIR
/// as run.py reads it.
int writeGenerated() {
  GeneratedProgram program;
  if (bytesFile.empty()) {
    program = generateProgramForSeed(seed, maxOps, sizeScale, profile);
  } else {
    auto file = llvm::MemoryBuffer::getFile(bytesFile);
    if (!file) {
      llvm::errs() << "kiln-difftest: error: " << bytesFile
                   << ": cannot read: " << file.getError().message() << "\n";
      return 2;
    }
    StringRef bytes = (*file)->getBuffer();
    ByteChoiceSource source(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
    GeneratorOptions options;
    options.maxOps = maxOps;
    options.sizeScale = std::max(1u, unsigned(sizeScale));
    options.profile = profile;
    options.header = kFuzzInputHeader.str();
    program = generateProgram(source, options);
  }
  if (outDir.empty()) {
    llvm::outs() << program.text;
    return 0;
  }
  auto fail = [](const Twine &what) {
    llvm::errs() << "kiln-difftest: error: " << what << "\n";
    return 2;
  };
  if (std::error_code ec = llvm::sys::fs::create_directories(outDir))
    return fail(outDir + ": cannot create: " + ec.message());
  SmallString<256> path(outDir.getValue());
  llvm::sys::path::append(path, "prog.mlir");
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return fail(path + ": cannot write: " + ec.message());
  os << program.text;
  MLIRContext context; // builtin types only
  for (auto [i, input] : llvm::enumerate(program.inputs)) {
    SmallString<256> file(outDir.getValue());
    llvm::sys::path::append(file, "in" + Twine(i) + ".npy");
    std::string error;
    if (failed(interp::writeNpy(file, toTensor(input, &context), error)))
      return fail(error);
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // `kiln-difftest generate ...`: the subcommand word, then the options.
  bool generateCommand = argc > 1 && std::strcmp(argv[1], "generate") == 0;
  if (generateCommand) {
    for (int i = 1; i + 1 < argc; ++i)
      argv[i] = argv[i + 1];
    --argc;
  }
  DialectRegistry registry;
  if (!registerKilnTool(registry, argc, argv, "kiln-difftest"))
    return 2;
  cl::HideUnrelatedOptions(difftestCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "Kiln: differential checks of lax programs against the reference "
                              "interpreter (passes, --canonicalize, the JIT), in one process\n\n"
                              "  kiln-difftest generate (--seed N | --bytes INPUT) [--max-ops M] "
                              "[--out DIR]\n    prints (or writes) a generated program\n");

  if (generateCommand) {
    if (!paths.empty()) {
      llvm::errs() << "kiln-difftest: error: generate takes no paths\n";
      return 2;
    }
    return writeGenerated();
  }

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
    for (auto [name, what] :
         {std::pair(kJitComparison, "the CPU JIT"),
          std::pair(kJitMinThresholdsComparison,
                    "the CPU JIT, the cost model's size thresholds at their minimum")}) {
      if (json)
        llvm::outs() << llvm::json::Value(llvm::json::Object{
                            {"name", name}, {"pipeline", nullptr}, {"k", interp::ErrorModel().k}})
                     << "\n";
      else
        llvm::outs() << name << " (" << what << ") k="
                     << llvm::format("%g", interp::ErrorModel().k) << "\n";
    }
    return 0;
  }
  std::vector<int64_t> seeds(generateSeeds.begin(), generateSeeds.end());
  for (unsigned i = 0; i < generateCount; ++i)
    seeds.push_back(seed + i);
  if (paths.empty() && seeds.empty()) {
    llvm::errs() << "kiln-difftest: error: no programs given\n";
    return 2;
  }

  // --comparisons selects among the passes and the JIT.
  std::vector<PassComparison> selected;
  bool jit = !noJit, jitMinThresholds = !noJit && minThresholdsEvery > 0;
  if (!onlyComparisons.empty()) {
    llvm::StringSet<> wanted;
    for (const std::string &name : onlyComparisons)
      wanted.insert(name);
    for (const PassComparison &pass : all)
      if (wanted.erase(pass.name))
        selected.push_back(pass);
    // Erased whether they run or not (--no-jit): a known name is no error.
    jit = wanted.erase(kJitComparison) && jit;
    jitMinThresholds = wanted.erase(kJitMinThresholdsComparison) && jitMinThresholds;
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

  Checker checker(registry, std::move(selected), jit, jitMinThresholds,
                  json ? &llvm::outs() : nullptr);
  unsigned numFindings = 0, numComparisons = 0;
  auto check = [&](const Program &program) {
    ProgramReport report = checker.check(program);
    numFindings += report.findings.size();
    numComparisons += report.comparisons;
    printReport(report);
  };
  for (auto [i, program] : llvm::enumerate(programs)) {
    program.minThresholds = minThresholdsEvery > 0 && (i + 1) % minThresholdsEvery == 0;
    check(program);
  }
  // Generated programs, one at a time, named by their seed.
  for (int64_t s : seeds) {
    GeneratedProgram generated = generateProgramForSeed(s, maxOps, sizeScale, profile);
    Program program;
    program.name = "seed" + std::to_string(s);
    program.bufferName = program.name;
    program.text = std::move(generated.text);
    program.generatedInputs = std::move(generated.inputs);
    program.minThresholds = minThresholdsEvery > 0 && s % int64_t(minThresholdsEvery) == 0;
    check(program);
  }
  if (!json)
    llvm::outs() << programs.size() + seeds.size() << " programs, " << numComparisons << " comparisons, "
                 << numFindings << " findings\n";
  return numFindings ? 1 : 0;
}
