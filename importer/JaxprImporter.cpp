//===- JaxprImporter.cpp - jaxpr text to lax: entry points ----------------===//
#include "importer/JaxprImporter.h"

#include "dialect/LaxDialect.h"
#include "importer/JaxprBuilder.h"
#include "importer/JaxprParser.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace kiln::jaxpr;

/// Reports only the first error while `context` imports: what an equation
/// would report next (a missing parameter after an undefined operand) only
/// repeats the cause.
class FirstErrorOnly {
public:
  explicit FirstErrorOnly(MLIRContext *context)
      : handler(context, [this](Diagnostic &diag) {
          if (diag.getSeverity() != DiagnosticSeverity::Error)
            return failure(); // pass on to the next handler
          if (reported)
            return success(); // swallowed
          reported = true;
          return failure();
        }) {}

private:
  bool reported = false;
  ScopedDiagnosticHandler handler;
};

OwningOpRef<ModuleOp> kiln::importJaxpr(llvm::SourceMgr &sourceMgr,
                                        MLIRContext *context,
                                        const JaxprImportOptions &options) {
  context->loadDialect<lax::LaxDialect, func::FuncDialect>();
  FirstErrorOnly firstErrorOnly(context);
  auto emitAt = [&](llvm::SMLoc where, const llvm::Twine &message) {
    unsigned buffer = sourceMgr.FindBufferContainingLoc(where);
    auto [line, column] = sourceMgr.getLineAndColumn(where, buffer);
    mlir::emitError(FileLineColLoc::get(
        context, sourceMgr.getMemoryBuffer(buffer)->getBufferIdentifier(), line,
        column))
        << message;
  };

  llvm::SmallVector<TypeAnnotation> inputTypes;
  if (!options.inputTypes.empty()) {
    // A buffer of its own, so errors in the option point into it.
    unsigned buffer = sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(options.inputTypes, "<jaxpr-input-types>"),
        llvm::SMLoc());
    std::optional<llvm::SmallVector<TypeAnnotation>> parsed = parseTypeAnnotationList(
        sourceMgr.getMemoryBuffer(buffer)->getBuffer(), emitAt);
    if (!parsed)
      return nullptr;
    inputTypes = std::move(*parsed);
  }

  llvm::StringRef text =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  std::optional<Program> program = parseJaxprProgram(text, emitAt);
  if (!program)
    return nullptr;
  return JaxprBuilder(sourceMgr, context, *program, options).build(inputTypes);
}

OwningOpRef<ModuleOp> kiln::importJaxprProgram(const Program &program,
                                               MLIRContext *context,
                                               const JaxprImportOptions &options) {
  context->loadDialect<lax::LaxDialect, func::FuncDialect>();
  FirstErrorOnly firstErrorOnly(context);
  llvm::SourceMgr noText; // every location is a SourcePosition
  return JaxprBuilder(noText, context, program, options).build({});
}

void kiln::registerJaxprImportTranslation() {
  static llvm::cl::opt<std::string> entryName(
      "jaxpr-entry-name", llvm::cl::desc("Name of the function made of the main jaxpr"),
      llvm::cl::init("main"));
  static llvm::cl::opt<std::string> inputTypes(
      "jaxpr-input-types",
      llvm::cl::desc("Types of the main jaxpr's inputs for untyped jaxprs, e.g. "
                     "\"f32[10,5,8],f32[30]\""),
      llvm::cl::init(""));
  static TranslateToMLIRRegistration registration(
      "import-jaxpr", "Import jaxpr text (as JAX prints it) into lax",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *context) -> OwningOpRef<Operation *> {
        JaxprImportOptions options;
        options.entryName = entryName;
        options.inputTypes = inputTypes;
        return importJaxpr(sourceMgr, context, options);
      },
      [](DialectRegistry &registry) {
        registry.insert<lax::LaxDialect, func::FuncDialect>();
      });
}
