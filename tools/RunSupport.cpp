//===- RunSupport.cpp - loading, inputs and outputs for kiln-run ----------===//
#include "tools/RunSupport.h"

#include "importer/JaxprImporter.h"
#include "reference/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>

using namespace mlir;
using namespace kiln;
using namespace kiln::interp;

OwningOpRef<ModuleOp> run::loadProgram(StringRef path, llvm::SourceMgr &sourceMgr,
                                       MLIRContext *context, StringRef jaxprInputTypes) {
  auto file = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!file) {
    llvm::errs() << "kiln-run: error: cannot read " << path << ": "
                 << file.getError().message() << "\n";
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  if (path.ends_with(".jaxpr")) {
    JaxprImportOptions options;
    options.inputTypes = jaxprInputTypes.str();
    return importJaxpr(sourceMgr, context, options);
  }
  return parseSourceFile<ModuleOp>(sourceMgr, context);
}

FailureOr<std::string> run::chooseEntry(ModuleOp module, StringRef requested) {
  if (!requested.empty()) {
    if (!isa_and_nonnull<func::FuncOp>(SymbolTable::lookupSymbolIn(module, requested))) {
      module.emitError("no function named '") << requested << "'";
      return failure();
    }
    return requested.str();
  }
  SmallVector<func::FuncOp> publicFuncs;
  for (auto f : module.getOps<func::FuncOp>())
    if (f.isPublic())
      publicFuncs.push_back(f);
  if (publicFuncs.size() != 1) {
    module.emitError("the module has ") << publicFuncs.size()
                                        << " public functions: choose one with --entry";
    return failure();
  }
  return publicFuncs.front().getSymName().str();
}

FailureOr<SmallVector<Tensor>> run::readInputs(ModuleOp module, StringRef entry,
                                               StringRef paths) {
  auto func = cast<func::FuncOp>(SymbolTable::lookupSymbolIn(module, entry));
  SmallVector<StringRef> files;
  paths.split(files, ',', -1, /*KeepEmpty=*/false);
  if (files.size() != func.getNumArguments()) {
    func.emitError("@") << entry << " takes " << func.getNumArguments() << " inputs but "
                        << files.size() << " .npy files were given";
    return failure();
  }
  SmallVector<Tensor> inputs;
  for (auto [i, file] : llvm::enumerate(files)) {
    std::string error;
    FailureOr<Tensor> t = readNpy(file, module.getContext(), error);
    if (failed(t)) {
      llvm::errs() << "kiln-run: error: " << error << "\n";
      return failure();
    }
    if (t->getType() != func.getArgumentTypes()[i]) {
      llvm::errs() << "kiln-run: error: " << file << ": holds " << t->getType() << " but input #"
                   << i << " of @" << entry << " is " << func.getArgumentTypes()[i] << "\n";
      return failure();
    }
    inputs.push_back(std::move(*t));
  }
  return inputs;
}

void run::printSummary(llvm::raw_ostream &os, ArrayRef<Tensor> outputs) {
  for (auto [i, t] : llvm::enumerate(outputs)) {
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    for (int64_t k = 0; k < t.size(); ++k) {
      double v = t.asDouble(k);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      sum += v;
    }
    os << "output " << i << ": " << t.getType();
    if (t.size() > 0)
      os << llvm::format(" min %.6g max %.6g mean %.6g", lo, hi, sum / t.size());
    os << " values [";
    for (int64_t k = 0; k < std::min<int64_t>(t.size(), 6); ++k)
      os << (k ? ", " : "") << llvm::format("%.6g", t.asDouble(k));
    os << (t.size() > 6 ? ", ...]" : "]") << "\n";
  }
}

LogicalResult run::writeOutputs(StringRef dir, ArrayRef<Tensor> outputs) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    llvm::errs() << "kiln-run: error: cannot create " << dir << ": " << ec.message() << "\n";
    return failure();
  }
  for (auto [i, t] : llvm::enumerate(outputs)) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, "out" + std::to_string(i) + ".npy");
    std::string error;
    if (failed(writeNpy(path, t, error))) {
      llvm::errs() << "kiln-run: error: " << error << "\n";
      return failure();
    }
  }
  return success();
}

bool run::compareOutputs(llvm::raw_ostream &os, ArrayRef<Tensor> got, ArrayRef<Tensor> want,
                         double rtol, double atol) {
  bool ok = got.size() == want.size();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(got, want))) {
    auto [g, w] = pair;
    if (g.getType() != w.getType()) {
      os << "output " << i << ": type " << g.getType() << " differs from " << w.getType() << "\n";
      ok = false;
      continue;
    }
    double worst = 0;
    int64_t worstAt = -1;
    for (int64_t k = 0; k < g.size(); ++k) {
      double a = g.asDouble(k), b = w.asDouble(k);
      if (std::isnan(a) && std::isnan(b))
        continue;
      double excess = std::fabs(a - b) - (atol + rtol * std::fabs(b));
      if (std::isnan(a) != std::isnan(b))
        excess = INFINITY;
      if (worstAt < 0 || excess > worst) {
        worst = excess;
        worstAt = k;
      }
    }
    bool match = worstAt < 0 || worst <= 0;
    ok &= match;
    os << "output " << i << ": " << (match ? "matches" : "DIFFERS");
    if (worstAt >= 0)
      os << llvm::format(" (worst element %lld: %.9g vs reference %.9g)", (long long)worstAt,
                         g.asDouble(worstAt), w.asDouble(worstAt));
    os << "\n";
    // A float sum's rounding error grows with the size of its terms, which a
    // result near zero does not show: say how large the difference is next
    // to the output's largest value, so rounding can be told from a bug.
    if (!match && worstAt >= 0 && std::isfinite(worst)) {
      double largest = 0;
      for (int64_t k = 0; k < w.size(); ++k)
        if (std::isfinite(w.asDouble(k)))
          largest = std::max(largest, std::fabs(w.asDouble(k)));
      double diff = std::fabs(g.asDouble(worstAt) - w.asDouble(worstAt));
      if (largest > 0 && diff <= 1e-5 * largest)
        os << llvm::format("  the difference, %.3g, is %.2g of the output's largest |value| "
                           "(%.6g): float rounding of a long sum? --atol sets the absolute "
                           "tolerance\n",
                           diff, diff / largest, largest);
    }
  }
  return ok;
}
