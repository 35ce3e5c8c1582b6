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
#include "tools/RunSupport.h"

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

/// The flags of the tools that read a program and rewrite it before
/// compiling (kiln-run, kiln-compile): --entry, --jaxpr-input-types,
/// --passes, --rules, --rule-tags and --plugin (plugins are loaded by
/// registerKilnTool before parsing; the flag is declared here so that it
/// parses). Construct before parsing the command line.
class ProgramFlags {
public:
  /// `entryHelp`: --entry's description ("Function to run (...)").
  ProgramFlags(llvm::cl::OptionCategory &category, const char *entryHelp);
  ~ProgramFlags();
  const std::string &entry() const;
  const std::string &jaxprInputTypes() const;
  /// --passes, --rules and --rule-tags.
  run::RewriteFlags rewrites() const;
  /// Whether --passes or --rules was given (plugins' rules aside).
  bool rewritesGiven() const;

private:
  std::unique_ptr<llvm::cl::opt<std::string>> entry_, jaxprInputTypes_, passes_;
  std::unique_ptr<llvm::cl::list<std::string>> rules_, ruleTags_, plugins_;
};

} // namespace kiln

#endif // KILN_TOOLS_COMPILEFLAGS_H
