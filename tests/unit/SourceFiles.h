//===- SourceFiles.h - unit tests read files of the source tree -*- C++ -*-===//
#ifndef KILN_TESTS_UNIT_SOURCEFILES_H
#define KILN_TESTS_UNIT_SOURCEFILES_H

#include <fstream>
#include <sstream>
#include <string>

namespace kiln::test {

/// The text of `relative` (e.g. "examples/seeds/seed003_tdma.mlir") under
/// the source tree (KILN_SOURCE_DIR, set by tests/unit/CMakeLists.txt);
/// empty when it cannot be read.
inline std::string readSource(const std::string &relative) {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace kiln::test

#endif // KILN_TESTS_UNIT_SOURCEFILES_H
