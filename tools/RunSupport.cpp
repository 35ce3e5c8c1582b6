//===- RunSupport.cpp - loading, inputs and outputs for kiln-run ----------===//
#include "tools/RunSupport.h"

#include "support/InputFile.h"
#include "tools/Registration.h"

#include "dialect/LaxOps.h"
#include "importer/JaxprImporter.h"
#include "reference/Npy.h"
#include "rules/ApplyRules.h"
#include "rules/PluginLoader.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"

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
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file =
      support::readInputFile(path, error, /*allowStdin=*/true);
  if (!file) {
    llvm::errs() << "kiln-run: error: " << error << "\n";
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  if (path.ends_with(".jaxpr")) {
    JaxprImportOptions options;
    options.inputTypes = jaxprInputTypes.str();
    return importJaxpr(sourceMgr, context, options);
  }
  if (failed(checkMlirNesting(
          sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer(), path)))
    return nullptr;
  return parseSourceFile<ModuleOp>(sourceMgr, context);
}

LogicalResult run::refuseHostCallbacks(ModuleOp module, StringRef tool) {
  WalkResult walk = module.walk([&](lax::HostCallbackOp op) {
    op.emitError() << tool << " cannot run host callback " << op.getIndex() << " ('"
                   << op.getName()
                   << "'): it calls back into the Python program that kiln.jit compiled";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

FailureOr<std::string> run::chooseEntry(ModuleOp module, StringRef requested) {
  SmallVector<func::FuncOp> publicFuncs;
  for (auto f : module.getOps<func::FuncOp>())
    if (f.isPublic() && !f.isExternal())
      publicFuncs.push_back(f);
  // Errors name the candidates; they are reported at the module's location
  // without the module itself (which may be large).
  auto listPublic = [&](InFlightDiagnostic &diag) {
    if (publicFuncs.empty()) {
      diag << " (it has no public function with a body)";
      return;
    }
    diag << " (public functions: ";
    llvm::interleaveComma(publicFuncs, diag,
                          [&](func::FuncOp f) { diag << "@" << f.getSymName(); });
    diag << ")";
  };
  if (!requested.empty()) {
    auto func = dyn_cast_or_null<func::FuncOp>(SymbolTable::lookupSymbolIn(module, requested));
    if (!func || func.isExternal()) {
      InFlightDiagnostic diag = emitError(module.getLoc())
                                << "no function named '" << requested << "'";
      if (func)
        diag << " with a body";
      listPublic(diag);
      return failure();
    }
    return requested.str();
  }
  if (publicFuncs.size() != 1) {
    InFlightDiagnostic diag = emitError(module.getLoc())
                              << "the module has " << publicFuncs.size()
                              << " public functions: choose one with --entry";
    listPublic(diag);
    return failure();
  }
  return publicFuncs.front().getSymName().str();
}

/// Reads comma-separated .npy `paths`, one per type of `types`: `what` (e.g.
/// "input") names the values in errors.
static FailureOr<SmallVector<Tensor>> readNpyList(func::FuncOp func, StringRef paths,
                                                  TypeRange types, StringRef what,
                                                  StringRef countError) {
  SmallVector<StringRef> files;
  paths.split(files, ',', -1, /*KeepEmpty=*/false);
  if (files.size() != types.size()) {
    func.emitError("@") << func.getSymName() << " " << countError << " " << types.size() << " "
                        << what << "s but " << files.size() << " .npy files were given";
    return failure();
  }
  SmallVector<Tensor> tensors;
  for (auto [i, file] : llvm::enumerate(files)) {
    std::string error;
    FailureOr<Tensor> t = readNpy(file, func.getContext(), error);
    if (failed(t)) {
      llvm::errs() << "kiln-run: error: " << error << "\n";
      return failure();
    }
    if (t->getType() != types[i]) {
      llvm::errs() << "kiln-run: error: " << file << ": holds " << t->getType() << " but " << what
                   << " #" << i << " of @" << func.getSymName() << " is " << types[i] << "\n";
      return failure();
    }
    tensors.push_back(std::move(*t));
  }
  return tensors;
}

FailureOr<SmallVector<Tensor>> run::readInputs(ModuleOp module, StringRef entry, StringRef paths) {
  auto func = cast<func::FuncOp>(SymbolTable::lookupSymbolIn(module, entry));
  return readNpyList(func, paths, func.getArgumentTypes(), "input", "takes");
}

FailureOr<SmallVector<Tensor>> run::readExpected(ModuleOp module, StringRef entry,
                                                 StringRef paths) {
  auto func = cast<func::FuncOp>(SymbolTable::lookupSymbolIn(module, entry));
  return readNpyList(func, paths, func.getResultTypes(), "output", "returns");
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
    // Integers exactly (INT_MIN, all-ones ui32); floats to 6 digits.
    for (int64_t k = 0; k < std::min<int64_t>(t.size(), 6); ++k) {
      os << (k ? ", " : "");
      if (t.isFloat())
        os << llvm::format("%.6g", t.getFloat(k));
      else
        os << t.getInt(k);
    }
    os << (t.size() > 6 ? ", ...]" : "]") << "\n";
  }
}

LogicalResult run::writeOutputs(StringRef dir, ArrayRef<Tensor> outputs, StringRef stem) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    llvm::errs() << "kiln-run: error: cannot create " << dir << ": " << ec.message() << "\n";
    return failure();
  }
  for (auto [i, t] : llvm::enumerate(outputs)) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, stem + std::to_string(i) + ".npy");
    std::string error;
    if (failed(writeNpy(path, t, error))) {
      llvm::errs() << "kiln-run: error: " << error << "\n";
      return failure();
    }
  }
  return success();
}

namespace kiln::run {
mlir::LogicalResult applyRewrites(mlir::ModuleOp module, mlir::MLIRContext &context,
                                  const RewriteFlags &flags, llvm::StringRef tool) {
  // The rule flags become options of the --kiln-apply-rules passes.
  ApplyRulesOptions ruleFlags;
  ruleFlags.ruleFiles.assign(flags.ruleFiles.begin(), flags.ruleFiles.end());
  ruleFlags.tags = llvm::join(flags.ruleTags, ",");
  mlir::PassManager pm(&context);
  if (flags.printIR) {
    context.disableMultithreading();
    pm.enableIRPrinting([](mlir::Pass *, mlir::Operation *) { return false; },
                        [](mlir::Pass *, mlir::Operation *) { return true; },
                        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
  }
  if (!flags.passes.empty() && failed(addPassPipeline(pm, flags.passes, llvm::errs()))) {
    llvm::errs() << tool << ": error: invalid --passes pipeline '" << flags.passes << "'\n";
    return mlir::failure();
  }
  if (!flags.ruleFiles.empty() || !rules::commandLinePlugins().empty())
    pm.addPass(createApplyRules());
  // Tags without rules would select nothing, silently (a misspelt tag too).
  if (rules::addRuleFlags(pm, ruleFlags) == 0 && !flags.ruleTags.empty()) {
    llvm::errs() << tool << ": error: --rule-tags without rules: give --rules or a plugin "
                            "with rules\n";
    return mlir::failure();
  }
  return pm.run(module);
}
} // namespace kiln::run
