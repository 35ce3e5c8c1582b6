//===- InputFile.cpp - reading the files a user names ---------------------===//
#include "support/InputFile.h"

#include "llvm/Support/FileSystem.h"

using namespace kiln::support;

static const char *describeType(llvm::sys::fs::file_type type) {
  using llvm::sys::fs::file_type;
  switch (type) {
  case file_type::directory_file: return "a directory";
  case file_type::fifo_file: return "a FIFO";
  case file_type::character_file: return "a character device";
  case file_type::block_file: return "a block device";
  case file_type::socket_file: return "a socket";
  default: return "not a regular file";
  }
}

std::unique_ptr<llvm::MemoryBuffer> kiln::support::readInputFile(llvm::StringRef path,
                                                                 std::string &error,
                                                                 bool allowStdin,
                                                                 uint64_t maxBytes,
                                                                 bool isText) {
  if (allowStdin && path == "-") {
    auto buffer = llvm::MemoryBuffer::getSTDIN();
    if (!buffer) {
      error = "cannot read standard input: " + buffer.getError().message();
      return nullptr;
    }
    if ((*buffer)->getBufferSize() > maxBytes) {
      error = "standard input is larger than " + std::to_string(maxBytes) + " bytes";
      return nullptr;
    }
    return std::move(*buffer);
  }
  // Status first (it follows links and does not open the file: opening a
  // FIFO blocks until a writer comes).
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status)) {
    error = "cannot read " + path.str() + ": " + ec.message();
    return nullptr;
  }
  if (status.type() != llvm::sys::fs::file_type::regular_file) {
    error = "cannot read " + path.str() + ": " + describeType(status.type()) +
            ", not a regular file";
    return nullptr;
  }
  if (status.getSize() > maxBytes) {
    error = "cannot read " + path.str() + ": larger than " + std::to_string(maxBytes) +
            " bytes (" + std::to_string(status.getSize()) + ")";
    return nullptr;
  }
  auto buffer = llvm::MemoryBuffer::getFile(path, isText, /*RequiresNullTerminator=*/true);
  if (!buffer) {
    error = "cannot read " + path.str() + ": " + buffer.getError().message();
    return nullptr;
  }
  return std::move(*buffer);
}
