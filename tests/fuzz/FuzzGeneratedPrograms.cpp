//===- FuzzGeneratedPrograms.cpp - libFuzzer target: generated programs ---===//
//
// Structure-aware differential fuzzing (docs/soundness.md): the input bytes
// are the decisions of the program generator (ByteChoiceSource: each choice
// takes a few bytes, every choice past the end is 0), so every input is a
// valid lax program with its inputs, and a mutated byte changes one
// decision. The program then goes through kiln-difftest's checks in process
// (Checker.h): every pass comparison and --canonicalize against the
// reference interpreter on the original program; the JIT too when
// KILN_FUZZ_JIT=1 (slow under ASan). A finding (a mismatch, or an error on
// the valid program) prints its report and the program, then aborts, so
// that libFuzzer keeps the input; crashes and sanitizer reports are
// findings as in every target. `kiln-difftest generate --bytes INPUT --out
// DIR` writes an input's program, which `kiln-difftest DIR` checks again.
//
//===----------------------------------------------------------------------===//

#include "tools/Registration.h"
#include "tools/kiln-difftest/Checker.h"
#include "tools/kiln-difftest/ProgramGenerator.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

using namespace kiln::difftest;

namespace {
Checker &checker() {
  static Checker *instance = [] {
    auto *registry = new mlir::DialectRegistry;
    kiln::registerAllKilnDialects(*registry);
    kiln::registerAllKilnPasses();
    const char *jit = std::getenv("KILN_FUZZ_JIT");
    bool withJit = jit && std::strcmp(jit, "1") == 0;
    return new Checker(*registry, defaultPassComparisons(), withJit, withJit);
  }();
  return *instance;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ByteChoiceSource source(data, size);
  GeneratorOptions options;
  options.header = kFuzzInputHeader.str();
  GeneratedProgram generated = generateProgram(source, options);
  Program program;
  program.name = "fuzz-input";
  program.bufferName = program.name;
  program.text = std::move(generated.text);
  program.generatedInputs = std::move(generated.inputs);
  ProgramReport report = checker().check(program);
  if (report.findings.empty())
    return 0;
  llvm::errs() << "kiln-fuzz-generated: " << report.findings.size() << " findings\n";
  for (const Finding &f : report.findings)
    llvm::errs() << f.comparison << ": " << f.kind << "\n" << f.detail << "\n";
  llvm::errs() << "--- the program:\n" << program.text;
  llvm::errs().flush();
  std::abort();
}
