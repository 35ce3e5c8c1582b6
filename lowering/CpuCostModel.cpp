//===- CpuCostModel.cpp - the host's part of the CPU cost model -----------===//
#include "lowering/CpuCostModel.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

namespace kiln::lowering {

int64_t hostVectorRegisterBits() {
  static const int64_t bits = [] {
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    if (features.lookup("avx512f"))
      return int64_t{512};
    if (features.lookup("avx"))
      return int64_t{256};
    return int64_t{128};
  }();
  return bits;
}

const CpuCostModel &hostCpuCostModel() {
  static const CpuCostModel model = [] {
    CpuCostModel m = defaultCpuCostModel();
    m.matvecVectorBits = hostVectorRegisterBits();
    m.scanRegisterBits = hostVectorRegisterBits();
    return m;
  }();
  return model;
}

} // namespace kiln::lowering
