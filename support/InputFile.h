//===- InputFile.h - reading the files a user names -------------*- C++ -*-===//
//
// Every file Kiln reads because a user named it (a rule file and what it
// includes, a program for kiln-run, an .npy input) is read here: only a
// regular file (or standard input as "-" where a tool allows it), and at
// most a given size. A FIFO had blocked forever, /dev/zero had ended in
// bad_alloc or "LLVM ERROR: out of memory".
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SUPPORT_INPUTFILE_H
#define KILN_SUPPORT_INPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

namespace kiln::support {

/// The largest input file read by default: 1 GiB.
inline constexpr uint64_t kMaxInputFileBytes = uint64_t(1) << 30;

/// The contents of `path`; null with `error` set ("not a regular file (a
/// FIFO)", "larger than 1073741824 bytes", the system's message) when it
/// cannot or must not be read. `allowStdin`: "-" reads standard input (up to
/// `maxBytes` too).
std::unique_ptr<llvm::MemoryBuffer> readInputFile(llvm::StringRef path, std::string &error,
                                                  bool allowStdin = false,
                                                  uint64_t maxBytes = kMaxInputFileBytes,
                                                  bool isText = true);

} // namespace kiln::support

#endif // KILN_SUPPORT_INPUTFILE_H
