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

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/Support/FileSystem.h"

#include <string>
#include <vector>

int main(int argc, char **argv) {
  kiln::registerJaxprImportTranslation();

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
    return mlir::failed(mlir::mlirTranslateMain(argc, argv, "Kiln translation driver\n"));
  llvm::sys::fs::closeFile(fd);
  std::string replaced = prefix + temp.str().str();
  args[outputIndex] = replaced.data();
  bool ok = mlir::succeeded(mlir::mlirTranslateMain(argc, args.data(), "Kiln translation driver\n"));
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
