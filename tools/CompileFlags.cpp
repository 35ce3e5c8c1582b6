//===- CompileFlags.cpp - command-line flags for compile options ----------===//
#include "tools/CompileFlags.h"

using namespace kiln;

CpuPipelineFlags::CpuPipelineFlags(llvm::cl::OptionCategory &category) {
#define KILN_CPU_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, DESCRIPTION)                     \
  FIELD = std::make_unique<llvm::cl::opt<TYPE>>(FLAG, llvm::cl::desc(DESCRIPTION),            \
                                                llvm::cl::cat(category),                      \
                                                llvm::cl::init(CpuPipelineOptions().FIELD));
#include "lowering/CpuPipelineOptions.def"
}

CpuPipelineFlags::~CpuPipelineFlags() = default;

void CpuPipelineFlags::apply(CpuPipelineOptions &options) const {
#define KILN_CPU_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, DESCRIPTION)                     \
  if (FIELD->getNumOccurrences())                                                             \
    options.FIELD = *FIELD;
#include "lowering/CpuPipelineOptions.def"
}

ProgramFlags::ProgramFlags(llvm::cl::OptionCategory &category, const char *entryHelp) {
  namespace cl = llvm::cl;
  entry_ = std::make_unique<cl::opt<std::string>>("entry", cl::cat(category), cl::desc(entryHelp));
  jaxprInputTypes_ = std::make_unique<cl::opt<std::string>>(
      "jaxpr-input-types", cl::cat(category), cl::desc("Input types of an untyped .jaxpr"));
  passes_ = std::make_unique<cl::opt<std::string>>(
      "passes", cl::cat(category),
      cl::desc("Pass pipeline to run first, e.g. 'builtin.module(kiln-optimize)'"));
  rules_ = std::make_unique<cl::list<std::string>>(
      "rules", cl::cat(category), cl::desc("YAML rule file or directory (repeatable)"));
  ruleTags_ = std::make_unique<cl::list<std::string>>(
      "rule-tags", cl::cat(category), cl::desc("Enable/disable rule tags: +tag,-tag"),
      cl::CommaSeparated);
  plugins_ = std::make_unique<cl::list<std::string>>(
      "plugin", cl::cat(category), cl::desc("Load a Kiln plugin (repeatable)"));
}

ProgramFlags::~ProgramFlags() = default;

const std::string &ProgramFlags::entry() const { return *entry_; }
const std::string &ProgramFlags::jaxprInputTypes() const { return *jaxprInputTypes_; }

run::RewriteFlags ProgramFlags::rewrites() const {
  run::RewriteFlags flags;
  flags.passes = *passes_;
  flags.ruleFiles.assign(rules_->begin(), rules_->end());
  flags.ruleTags.assign(ruleTags_->begin(), ruleTags_->end());
  return flags;
}

bool ProgramFlags::rewritesGiven() const { return !rules_->empty() || !passes_->empty(); }
