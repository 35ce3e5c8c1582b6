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
