//===- CompileCache.h - compiled objects on disk, keyed by content -*- C++ -*-===//
//
// An entry is one file, `<dir>/<key digest>.kobj`:
//
//   "KILNOBJ2"            8 bytes, format magic
//   key digest           32 bytes, SHA-256 of the key text
//   object size           8 bytes, little-endian
//   object digest        32 bytes, SHA-256 of the object
//   integrity code       32 bytes, HMAC-SHA-256 of (key digest, object) under
//                                  the directory's secret
//   object              `size` bytes
//
// The key text names everything the object depends on (the IR after
// rewrites, the entry, the compile options, Kiln's build, LLVM's version and
// the host CPU and its features; see Compiler.cpp). An entry is used only
// when its magic, stored key digest, size, object digest and integrity code
// all check out: a truncated, corrupted, foreign (copied from another key)
// or forged file is reported and rebuilt, never executed. Entries are
// written to a temporary file and renamed into place, so readers never see
// half an entry.
//
// Trust model (docs/pipeline.md#compile-cache): an entry is native code that
// runs in the user's process, so the cache trusts only what the user's own
// Kiln wrote. The directory must belong to the user and not be writable by
// group or others (it is created 0700); an entry must be a regular file of
// the user's, not writable by group or others, and at most kMaxEntryBytes
// (it is opened without following symlinks or blocking on FIFOs). The
// directory holds a per-user secret (`secret`, 32 random bytes, 0600); the
// integrity code keyed by it shows that an entry was written by someone
// who can read the secret, i.e. the user.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_COMPILECACHE_H
#define KILN_COMPILER_COMPILECACHE_H

#include <cstdint>
#include <string>

namespace kiln {

/// $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else $HOME/.cache/kiln
/// (empty when none of these is set).
std::string defaultCompileCacheDir();

class CompileCache {
public:
  /// The largest entry read; a larger file is refused.
  static constexpr uint64_t kMaxEntryBytes = uint64_t(1) << 30;

  explicit CompileCache(std::string directory);

  enum class Status {
    Ready,      ///< load and store may be used
    Unwritable, ///< the directory cannot be created or the secret written
    Untrusted,  ///< the directory or its secret may have been written by others
  };
  /// Creates the directory (0700) when missing, checks that it is the
  /// user's and not writable by group or others, and reads (or creates) the
  /// secret. Anything but Ready sets `reason`; load and store then fail.
  Status open(std::string &reason);

  /// Hex SHA-256 of `keyText`: the entry's name.
  static std::string digest(const std::string &keyText);
  std::string entryPath(const std::string &keyDigest) const;

  enum class Lookup { Miss, Hit, Invalid };
  /// Reads the entry of `keyDigest` into `object`. Invalid: the file exists
  /// but fails a check; `reason` says which.
  Lookup load(const std::string &keyDigest, std::string &object,
              std::string &reason) const;
  /// Writes (or replaces) the entry atomically. False + `error` on failure.
  bool store(const std::string &keyDigest, const std::string &object,
             std::string *error) const;

private:
  std::string directory_;
  std::string secret_; ///< empty until open() succeeds
};

} // namespace kiln

#endif // KILN_COMPILER_COMPILECACHE_H
