//===- Registration.cpp - what Kiln's tools register ----------------------===//
#include "tools/Registration.h"

#include "lowering/gpu/GpuPipeline.h"
#include "lowering/Passes.h"
#include "transforms/Passes.h"
#include "rules/ApplyRules.h"
#include "rules/PluginLoader.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/InitAllPasses.h"
#include "llvm/Support/raw_ostream.h"

void kiln::registerAllKilnPasses() {
  mlir::registerAllPasses();
  kiln::registerKilnTransformsPasses();
  kiln::registerOptimizePipeline();
  kiln::registerGpuPipeline();
  kiln::registerKilnLowering();
  kiln::registerKilnRules();
}

bool kiln::registerKilnTool(mlir::DialectRegistry &registry, int argc, char **argv,
                            const char *tool) {
  registerAllKilnDialects(registry);
  registerAllKilnPasses();
  return rules::loadPluginsFromArgs(argc, argv, tool);
}

llvm::LogicalResult kiln::addPassPipeline(mlir::OpPassManager &pm, llvm::StringRef pipeline,
                                          llvm::raw_ostream &errors) {
  llvm::StringRef text = pipeline.trim();
  if (text.contains('(') && !text.take_until([](char c) { return c == '('; }).contains(',')) {
    // Anchored ("op(...)"): valid as a whole? Then its content goes into `pm`
    // when the anchor is pm's own op, or pm takes any op (the default of a
    // PassManager, run on the module).
    mlir::FailureOr<mlir::OpPassManager> parsed = mlir::parsePassPipeline(text, errors);
    if (mlir::failed(parsed))
      return mlir::failure();
    llvm::StringRef anchor = parsed->getOpAnchorName();
    if (anchor == pm.getOpAnchorName() ||
        pm.getOpAnchorName() == mlir::OpPassManager::getAnyOpAnchorName()) {
      llvm::StringRef inner = text.drop_front(text.find('(') + 1).drop_back();
      return mlir::parsePassPipeline(inner, pm, errors);
    }
  }
  return mlir::parsePassPipeline(text, pm, errors);
}

llvm::LogicalResult kiln::checkMlirNesting(llvm::StringRef text, llvm::StringRef bufferName,
                                           llvm::raw_ostream *errors) {
  unsigned depth = 0, line = 1;
  size_t lineStart = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    switch (c) {
    case '\n':
      ++line;
      lineStart = i + 1;
      break;
    case '"': // a string literal, with escapes; it may not span lines
      for (++i; i < e && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      if (i < e && text[i] == '\n')
        --i;
      break;
    case '/':
      if (i + 1 < e && text[i + 1] == '/')
        while (i + 1 < e && text[i + 1] != '\n')
          ++i;
      break;
    case '(':
    case '[':
    case '{':
    case '<':
      if (c == '<' && i + 1 < e && text[i + 1] == '=')
        break; // `<=` in an affine constraint
      if (++depth > kMaxMlirNesting) {
        if (errors)
          *errors << bufferName << ":" << line << ":" << (i - lineStart + 1)
                     << ": error: nesting deeper than " << kMaxMlirNesting
                     << " levels of brackets ('(', '[', '{', '<'), more than Kiln's "
                        "tools accept\n";
        return llvm::failure();
      }
      break;
    case ')':
    case ']':
    case '}':
    case '>':
      if (c == '>' && ((i > 0 && text[i - 1] == '-') || (i + 1 < e && text[i + 1] == '=')))
        break; // `->`, `>=`
      if (depth)
        --depth;
      break;
    default:
      break;
    }
  }
  return llvm::success();
}
