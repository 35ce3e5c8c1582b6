//===- HelpOptions.h - --help shows Kiln's options first --------*- C++ -*-===//
//
// LLVM registers hundreds of options (backends, IR2Vec, Polly, ...) in every
// tool that links it; mlir-opt's --help lists them all. Kiln's tools show
// their own categories and the few MLIR options a user needs; the others are
// hidden (cl::Hidden, not ReallyHidden): still accepted, and listed by
// --help-hidden. kiln-verify-rules shows only its own options
// (cl::HideUnrelatedOptions).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_HELPOPTIONS_H
#define KILN_TOOLS_HELPOPTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

namespace kiln {

/// Moves the registered options named in `common` to `commonCategory`, then
/// hides every registered option outside `shown` and `commonCategory` (LLVM's
/// generic --help, --help-list and --version stay). Call it after the tool's
/// options are registered and before the command line is parsed.
inline void showKilnOptionsFirst(llvm::ArrayRef<const llvm::cl::OptionCategory *> shown,
                                 llvm::cl::OptionCategory &commonCategory,
                                 llvm::ArrayRef<llvm::StringRef> common) {
  namespace cl = llvm::cl;
  auto &options = cl::getRegisteredOptions();
  for (llvm::StringRef name : common)
    if (auto it = options.find(name); it != options.end())
      it->second->addCategory(commonCategory);
  for (auto &entry : options) {
    cl::Option *option = entry.second;
    llvm::StringRef name = entry.first;
    if (name == "help" || name == "help-list" || name == "version" ||
        option->getOptionHiddenFlag() != cl::NotHidden)
      continue;
    bool related = llvm::any_of(option->Categories, [&](const cl::OptionCategory *c) {
      return c == &commonCategory || llvm::is_contained(shown, c);
    });
    if (!related)
      option->setHiddenFlag(cl::Hidden);
  }
}

} // namespace kiln

#endif // KILN_TOOLS_HELPOPTIONS_H
