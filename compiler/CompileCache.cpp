//===- CompileCache.cpp - compiled objects on disk ------------------------===//
#include "compiler/CompileCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdlib>
#include <cstring>

namespace kiln {

namespace {
constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'O', 'B', 'J', '1'};
constexpr size_t kDigestBytes = 32;
constexpr size_t kHeaderBytes = sizeof(kMagic) + kDigestBytes + 8 + kDigestBytes;

std::array<uint8_t, 32> sha256(llvm::StringRef bytes) {
  return llvm::SHA256::hash(llvm::arrayRefFromStringRef(bytes));
}
std::string asBytes(const std::array<uint8_t, 32> &d) {
  return std::string(reinterpret_cast<const char *>(d.data()), d.size());
}
} // namespace

std::string defaultCompileCacheDir() {
  if (const char *dir = std::getenv("KILN_CACHE_DIR"))
    return dir;
  llvm::SmallString<256> path;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    path = xdg;
  } else if (const char *home = std::getenv("HOME"); home && *home) {
    path = home;
    llvm::sys::path::append(path, ".cache");
  } else {
    return "";
  }
  llvm::sys::path::append(path, "kiln");
  return std::string(path);
}

CompileCache::CompileCache(std::string directory)
    : directory_(std::move(directory)) {}

std::string CompileCache::digest(const std::string &keyText) {
  return llvm::toHex(sha256(keyText), /*LowerCase=*/true);
}

std::string CompileCache::entryPath(const std::string &keyDigest) const {
  llvm::SmallString<256> path(directory_);
  llvm::sys::path::append(path, keyDigest + ".kobj");
  return std::string(path);
}

CompileCache::Lookup CompileCache::load(const std::string &keyDigest,
                                        std::string &object,
                                        std::string &reason) const {
  std::string path = entryPath(keyDigest);
  if (!llvm::sys::fs::exists(path))
    return Lookup::Miss;
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file) {
    reason = "cannot read it: " + file.getError().message();
    return Lookup::Invalid;
  }
  llvm::StringRef bytes = (*file)->getBuffer();
  if (bytes.size() < kHeaderBytes ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    reason = "not a Kiln cache entry (bad header)";
    return Lookup::Invalid;
  }
  size_t at = sizeof(kMagic);
  llvm::StringRef storedKey = bytes.substr(at, kDigestBytes);
  at += kDigestBytes;
  uint64_t size = 0;
  for (int i = 0; i < 8; ++i)
    size |= uint64_t(uint8_t(bytes[at + i])) << (8 * i);
  at += 8;
  llvm::StringRef storedDigest = bytes.substr(at, kDigestBytes);
  at += kDigestBytes;
  std::string expectedKey;
  if (!llvm::tryGetFromHex(keyDigest, expectedKey) ||
      storedKey != expectedKey) {
    reason = "it was stored under another key (foreign entry)";
    return Lookup::Invalid;
  }
  if (bytes.size() - at != size) {
    reason = "its size is wrong (truncated or extended)";
    return Lookup::Invalid;
  }
  llvm::StringRef payload = bytes.substr(at);
  if (asBytes(sha256(payload)) != storedDigest) {
    reason = "its checksum does not match (corrupt)";
    return Lookup::Invalid;
  }
  object = payload.str();
  return Lookup::Hit;
}

bool CompileCache::store(const std::string &keyDigest,
                         const std::string &object, std::string *error) const {
  auto fail = [&](const std::string &msg) {
    if (error)
      *error = msg;
    return false;
  };
  if (std::error_code ec = llvm::sys::fs::create_directories(directory_))
    return fail("cannot create '" + directory_ + "': " + ec.message());
  std::string key;
  if (!llvm::tryGetFromHex(keyDigest, key) || key.size() != kDigestBytes)
    return fail("malformed key digest");
  std::string header(kMagic, sizeof(kMagic));
  header += key;
  for (int i = 0; i < 8; ++i)
    header.push_back(char((uint64_t(object.size()) >> (8 * i)) & 0xff));
  header += asBytes(sha256(object));

  std::string path = entryPath(keyDigest);
  llvm::SmallString<256> temp;
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(
          path + ".tmp-%%%%%%%%", fd, temp))
    return fail("cannot create a file in '" + directory_ + "': " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << header << object;
    os.close();
    if (os.has_error()) {
      std::string msg = os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(temp);
      return fail("cannot write '" + std::string(temp) + "': " + msg);
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    return fail("cannot rename into '" + path + "': " + ec.message());
  }
  return true;
}

} // namespace kiln
