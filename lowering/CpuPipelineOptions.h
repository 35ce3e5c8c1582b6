//===- CpuPipelineOptions.h - the CPU pipeline's options --------*- C++ -*-===//
#ifndef KILN_LOWERING_CPUPIPELINEOPTIONS_H
#define KILN_LOWERING_CPUPIPELINEOPTIONS_H

#include "lowering/CpuCostModel.h"

#include <cstdint>

namespace kiln {

/// Options of the CPU pipeline (lax -> LLVM dialect): one field per entry
/// of lowering/CpuPipelineOptions.def, with its default and description.
struct CpuPipelineOptions {
#define KILN_CPU_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, DESCRIPTION) TYPE FIELD = DEFAULT;
#include "lowering/CpuPipelineOptions.def"
};

} // namespace kiln

#endif // KILN_LOWERING_CPUPIPELINEOPTIONS_H
