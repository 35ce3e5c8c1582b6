//===- CompileFlags.h - command-line flags for compile options --*- C++ -*-===//
//
// One flag per CPU pipeline option (lowering/CpuPipelineOptions.def), named
// as --kiln-lower-cpu names it, for the tools that compile (kiln-run,
// kiln-bench): a new option is a flag of both without an edit here.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_COMPILEFLAGS_H
#define KILN_TOOLS_COMPILEFLAGS_H

#include "lowering/CpuPipelineOptions.h"

#include "llvm/Support/CommandLine.h"

#include <memory>

namespace kiln {

class CpuPipelineFlags {
public:
  /// Registers the flags in `category`; construct before parsing the
  /// command line.
  explicit CpuPipelineFlags(llvm::cl::OptionCategory &category);
  ~CpuPipelineFlags();
  /// Sets in `options` each option whose flag was given (the others keep
  /// the caller's defaults, e.g. CompileOptions' host vector widths).
  void apply(CpuPipelineOptions &options) const;

private:
#define KILN_CPU_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, DESCRIPTION)                     \
  std::unique_ptr<llvm::cl::opt<TYPE>> FIELD;
#include "lowering/CpuPipelineOptions.def"
};

} // namespace kiln

#endif // KILN_TOOLS_COMPILEFLAGS_H
