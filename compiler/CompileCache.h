//===- CompileCache.h - compiled objects on disk, keyed by content -*- C++ -*-===//
//
// An entry is one file, `<dir>/<key digest>.kobj`:
//
//   "KILNOBJ1"            8 bytes, format magic
//   key digest           32 bytes, SHA-256 of the key text
//   object size           8 bytes, little-endian
//   object digest        32 bytes, SHA-256 of the object
//   object              `size` bytes
//
// The key text names everything the object depends on (the IR after
// rewrites, the entry, the compile options, Kiln's build, LLVM's version and
// the host CPU and its features; see Compiler.cpp). An entry is used only
// when its magic, stored key digest, size and object digest all check out:
// a truncated, corrupted or foreign (copied from another key) file is
// reported and rebuilt, never executed. Entries are written to a temporary
// file and renamed into place, so readers never see half an entry.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_COMPILECACHE_H
#define KILN_COMPILER_COMPILECACHE_H

#include <string>

namespace kiln {

/// $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else $HOME/.cache/kiln
/// (empty when none of these is set).
std::string defaultCompileCacheDir();

class CompileCache {
public:
  explicit CompileCache(std::string directory);

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
};

} // namespace kiln

#endif // KILN_COMPILER_COMPILECACHE_H
