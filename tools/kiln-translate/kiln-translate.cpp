//===- kiln-translate.cpp - Kiln's mlir-translate -------------------------===//
//
// Translations into and out of Kiln's IR:
//   kiln-translate --import-jaxpr f.jaxpr [--jaxpr-entry-name=NAME]
//                  [--jaxpr-input-types="f32[3],f32[4,5]"]
//
// An -o file is written to a temporary beside it and renamed over it only
// when the translation succeeds: a failed run leaves an existing file as it
// was (mlir-translate truncates it, then deletes it).
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprImporter.h"
#include "tools/HelpOptions.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/Timing.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/FileSystem.h"

#include <string>
#include <vector>

/// --help's overview: Kiln's translation first.
static const char *const kOverview =
    "Kiln translation driver\n\n"
    "  kiln-translate --import-jaxpr f.jaxpr [--jaxpr-entry-name=NAME] "
    "[--jaxpr-input-types=TYPES]\n"
    "  reads a jaxpr as print(jax.make_jaxpr(f)(...)) writes it and prints the lax module.\n"
    "  LLVM's and MLIR's other options: --help-hidden.\n";

int main(int argc, char **argv) {
  kiln::registerJaxprImportTranslation();
  // --help: the importer's options and what mlirTranslateMain registers
  // (the translations, -o, --split-input-file, ...); LLVM's and MLIR's
  // other options are hidden (--help-hidden lists them). The MLIR option
  // sets mlirTranslateMain would register are registered here first (each
  // registers once), so that they are hidden too.
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerTranslationCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  static llvm::cl::OptionCategory importCategory("Kiln jaxpr import (--import-jaxpr)");
  kiln::showKilnOptionsFirst({}, importCategory, {"jaxpr-entry-name", "jaxpr-input-types"});

  // Find the -o value (`-o F`, `--o F`, `-o=F`, `--o=F`; the last one counts).
  std::vector<char *> args(argv, argv + argc);
  int outputIndex = -1;
  std::string prefix, output;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--")
      break;
    if ((arg == "-o" || arg == "--o") && i + 1 < argc) {
      outputIndex = ++i;
      prefix.clear();
      output = argv[i];
    } else if (arg.starts_with("-o=") || arg.starts_with("--o=")) {
      outputIndex = i;
      prefix = arg.take_front(arg.find('=') + 1).str();
      output = arg.drop_front(prefix.size()).str();
    }
  }
  llvm::sys::fs::file_status status;
  bool special = !llvm::sys::fs::status(output, status) &&
                 status.type() != llvm::sys::fs::file_type::regular_file;
  llvm::SmallString<128> temp;
  int fd = -1;
  if (outputIndex < 0 || output == "-" || special ||
      llvm::sys::fs::createUniqueFile(output + ".tmp-%%%%%%", fd, temp))
    return mlir::failed(mlir::mlirTranslateMain(argc, argv, kOverview));
  llvm::sys::fs::closeFile(fd);
  std::string replaced = prefix + temp.str().str();
  args[outputIndex] = replaced.data();
  bool ok = mlir::succeeded(mlir::mlirTranslateMain(argc, args.data(), kOverview));
  if (ok) {
    if (std::error_code ec = llvm::sys::fs::rename(temp, output)) {
      llvm::errs() << "kiln-translate: error: cannot write '" << output << "': " << ec.message()
                   << "\n";
      ok = false;
    }
  }
  if (!ok)
    llvm::sys::fs::remove(temp);
  return ok ? 0 : 1;
}
