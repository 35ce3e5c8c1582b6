//===- CompileCache.cpp - compiled objects on disk ------------------------===//
#include "compiler/CompileCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln {

namespace {
constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'O', 'B', 'J', '2'};
constexpr size_t kDigestBytes = 32;
constexpr size_t kHeaderBytes = sizeof(kMagic) + kDigestBytes + 8 + 2 * kDigestBytes;
constexpr size_t kSecretBytes = 32;
constexpr const char *kSecretName = "secret";

std::array<uint8_t, 32> sha256(llvm::StringRef bytes) {
  return llvm::SHA256::hash(llvm::arrayRefFromStringRef(bytes));
}
std::string asBytes(const std::array<uint8_t, 32> &d) {
  return std::string(reinterpret_cast<const char *>(d.data()), d.size());
}
std::string littleEndian64(uint64_t v) {
  std::string s;
  for (int i = 0; i < 8; ++i)
    s.push_back(char((v >> (8 * i)) & 0xff));
  return s;
}

/// HMAC-SHA-256 (RFC 2104) of the concatenation of `parts` under `key`
/// (at most one 64-byte block).
std::string hmacSha256(llvm::StringRef key, llvm::ArrayRef<llvm::StringRef> parts) {
  uint8_t block[64] = {0};
  std::memcpy(block, key.data(), std::min<size_t>(key.size(), sizeof(block)));
  uint8_t pad[64];
  llvm::SHA256 inner;
  for (size_t i = 0; i < sizeof(block); ++i)
    pad[i] = block[i] ^ 0x36;
  inner.update(llvm::ArrayRef<uint8_t>(pad));
  for (llvm::StringRef part : parts)
    inner.update(part);
  std::array<uint8_t, 32> innerHash = inner.final();
  llvm::SHA256 outer;
  for (size_t i = 0; i < sizeof(block); ++i)
    pad[i] = block[i] ^ 0x5c;
  outer.update(llvm::ArrayRef<uint8_t>(pad));
  outer.update(llvm::ArrayRef<uint8_t>(innerHash));
  return asBytes(outer.final());
}

/// The integrity code of an entry: its key digest, size and object.
std::string integrityCode(llvm::StringRef secret, llvm::StringRef key, llvm::StringRef object) {
  std::string size = littleEndian64(object.size());
  return hmacSha256(secret, {key, size, object});
}

std::string errnoMessage(int error) { return std::strerror(error); }

/// A file descriptor closed at the end of the scope.
struct FileDescriptor {
  int fd = -1;
  ~FileDescriptor() {
    if (fd >= 0)
      ::close(fd);
  }
};

/// Reads up to `limit` bytes of `fd` into `out`; false on a read error.
bool readAll(int fd, uint64_t limit, std::string &out) {
  out.clear();
  char buffer[1 << 16];
  while (out.size() < limit) {
    ssize_t n = ::read(fd, buffer, std::min<uint64_t>(sizeof(buffer), limit - out.size()));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return false;
    if (n == 0)
      break;
    out.append(buffer, size_t(n));
  }
  return true;
}

/// Why a file (or directory) `st` describes is not to be trusted; empty when
/// it is the user's and not writable by group or others.
std::string untrustedOwnership(const struct stat &st) {
  if (st.st_uid != ::geteuid())
    return "it belongs to another user (uid " + std::to_string(st.st_uid) + ")";
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", unsigned(st.st_mode & 07777));
    return std::string("it is writable by group or others (mode ") + mode + ")";
  }
  return "";
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

CompileCache::Status CompileCache::open(std::string &reason) {
  secret_.clear();
  struct stat st;
  if (::stat(directory_.c_str(), &st) != 0) {
    if (std::error_code ec = llvm::sys::fs::create_directories(
            directory_, /*IgnoreExisting=*/true, llvm::sys::fs::owner_all)) {
      reason = "cannot create '" + directory_ + "': " + ec.message();
      return Status::Unwritable;
    }
    if (::stat(directory_.c_str(), &st) != 0) {
      reason = "cannot access '" + directory_ + "': " + errnoMessage(errno);
      return Status::Unwritable;
    }
  }
  if (!S_ISDIR(st.st_mode)) {
    reason = "cannot create '" + directory_ + "': it exists and is not a directory";
    return Status::Unwritable;
  }
  if (std::string why = untrustedOwnership(st); !why.empty()) {
    reason = "the cache directory '" + directory_ + "' is not private: " + why +
             "; Kiln runs code from it only when it is the user's own and not "
             "writable by others (chmod go-w)";
    return Status::Untrusted;
  }

  // The secret: read it, or create it (another process may race: the first
  // link wins and everyone reads that one).
  llvm::SmallString<256> secretPath(directory_);
  llvm::sys::path::append(secretPath, kSecretName);
  FileDescriptor file;
  file.fd = ::open(secretPath.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (file.fd < 0 && errno == ENOENT) {
    char random[kSecretBytes];
    if (::getentropy(random, sizeof(random)) != 0) {
      reason = "cannot make a secret: " + errnoMessage(errno);
      return Status::Unwritable;
    }
    llvm::SmallString<256> temp;
    int fd = -1;
    if (std::error_code ec = llvm::sys::fs::createUniqueFile(
            secretPath + ".tmp-%%%%%%%%", fd, temp, llvm::sys::fs::OF_None,
            llvm::sys::fs::owner_read | llvm::sys::fs::owner_write)) {
      reason = "cannot create a file in '" + directory_ + "': " + ec.message();
      return Status::Unwritable;
    }
    bool written = ::write(fd, random, sizeof(random)) == ssize_t(sizeof(random));
    written &= ::close(fd) == 0;
    int linkError = written && ::link(temp.c_str(), secretPath.c_str()) != 0 ? errno : 0;
    llvm::sys::fs::remove(temp);
    if (!written || (linkError && linkError != EEXIST)) {
      reason = "cannot write '" + std::string(secretPath) + "'";
      return Status::Unwritable;
    }
    file.fd = ::open(secretPath.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  }
  if (file.fd < 0) {
    int error = errno;
    reason = "cannot read the cache secret '" + std::string(secretPath) +
             "': " + errnoMessage(error);
    return error == ELOOP ? Status::Untrusted : Status::Unwritable;
  }
  struct stat sst;
  std::string bytes;
  if (::fstat(file.fd, &sst) != 0 || !S_ISREG(sst.st_mode) || sst.st_uid != ::geteuid() ||
      (sst.st_mode & 077) || sst.st_size != kSecretBytes ||
      !readAll(file.fd, kSecretBytes, bytes) || bytes.size() != kSecretBytes) {
    reason = "the cache secret '" + std::string(secretPath) +
             "' is not a 32-byte file readable by its user only; remove it (or the "
             "whole cache directory) to start afresh";
    return Status::Untrusted;
  }
  secret_ = std::move(bytes);
  return Status::Ready;
}

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
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 && errno == ENOENT)
    return Lookup::Miss;
  if (secret_.empty()) {
    reason = "the cache is not open";
    return Lookup::Invalid;
  }
  // Never follow a link, never block (a FIFO), read only a regular file of
  // the user's of a bounded size.
  FileDescriptor file;
  file.fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (file.fd < 0) {
    int error = errno;
    reason = error == ELOOP ? "it is a symbolic link (refused)"
                            : "cannot read it: " + errnoMessage(error);
    return Lookup::Invalid;
  }
  if (::fstat(file.fd, &st) != 0) {
    reason = "cannot read it: " + errnoMessage(errno);
    return Lookup::Invalid;
  }
  if (!S_ISREG(st.st_mode)) {
    reason = "it is not a regular file (refused)";
    return Lookup::Invalid;
  }
  if (std::string why = untrustedOwnership(st); !why.empty()) {
    reason = why + " (refused)";
    return Lookup::Invalid;
  }
  if (uint64_t(st.st_size) > kMaxEntryBytes) {
    reason = "it is larger than " + std::to_string(kMaxEntryBytes >> 20) + " MiB (refused)";
    return Lookup::Invalid;
  }
  std::string contents;
  if (!readAll(file.fd, kMaxEntryBytes + 1, contents)) {
    reason = "cannot read it: " + errnoMessage(errno);
    return Lookup::Invalid;
  }
  llvm::StringRef bytes = contents;
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
  llvm::StringRef storedCode = bytes.substr(at, kDigestBytes);
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
  if (integrityCode(secret_, storedKey, payload) != storedCode) {
    reason = "its integrity code does not match this cache's secret (not written by this "
             "user's Kiln: forged, or copied from another cache)";
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
  if (secret_.empty())
    return fail("the cache is not open");
  std::string key;
  if (!llvm::tryGetFromHex(keyDigest, key) || key.size() != kDigestBytes)
    return fail("malformed key digest");
  std::string header(kMagic, sizeof(kMagic));
  header += key;
  header += littleEndian64(object.size());
  header += asBytes(sha256(object));
  header += integrityCode(secret_, key, object);

  std::string path = entryPath(keyDigest);
  llvm::SmallString<256> temp;
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(
          path + ".tmp-%%%%%%%%", fd, temp, llvm::sys::fs::OF_None,
          llvm::sys::fs::owner_read | llvm::sys::fs::owner_write))
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
