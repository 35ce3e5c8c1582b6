//===- HostJit.h - LLVM-dialect module -> host object -> loaded code -*- C++ -*-===//
//
// The back half of kiln::Compiler, split in two so that the object file in
// between can be cached on disk (CompileCache.h):
//  - compileToHostObject: LLVM dialect -> LLVM IR -> -O3 for the host CPU ->
//    an ELF relocatable object (bytes);
//  - LoadedObject::load: links such an object into an ORC LLJIT, resolving
//    its calls against the runtime libraries (and the process).
//
// LLVM headers stay in HostJit.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_HOSTJIT_H
#define KILN_COMPILER_HOSTJIT_H

#include "compiler/Compiler.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
} // namespace mlir
namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace kiln {

/// "<triple> <cpu> <features>" of the host: what object code is specific to.
std::string hostTargetDescription();

/// Bits of the vector registers of `target`'s CPU: 512 with AVX-512F, 256
/// with AVX, else 128 (what the cost model's code shapes take, as
/// lowering::hostVectorRegisterBits says for the host); 0 for a CPU name
/// LLVM does not know.
int64_t vectorRegisterBits(const ObjectTarget &target);

/// Whether the LLVM command-line option `name` was set by Kiln itself
/// (HostJit.cpp's kLlvmOptions: full unrolling, the post-RA scheduler), not by
/// a user.
bool llvmOptionSetByKiln(llvm::StringRef name);

/// Translates `llvmDialectModule` to LLVM IR, optimises it at `optLevel` for
/// `target` and emits a relocatable object into `object`; `fpContract`:
/// multiplies and adds may become FMAs (CompileOptions::fpContract). Returns
/// false and sets `error` on failure.
bool compileToHostObject(mlir::ModuleOp llvmDialectModule, unsigned optLevel, bool fpContract,
                         std::string &object, std::string *error,
                         const ObjectTarget &target = {});

/// Object code linked into this process. Keeps the JIT (and the code) alive.
class LoadedObject {
public:
  ~LoadedObject();
  /// Links `object`; undefined symbols resolve against `sharedLibraries`
  /// (those exporting MLIR's `__mlir_execution_engine_init` contribute the
  /// symbols it returns) and then the process. Runs the object's
  /// `__kiln_init` (its global constructors), if any; the destructor runs
  /// `__kiln_fini`.
  static std::unique_ptr<LoadedObject>
  load(const std::string &object,
       const std::vector<std::string> &sharedLibraries, std::string *error);
  /// Address of `symbol`, or null (and `error` set).
  void *lookup(const std::string &symbol, std::string *error) const;

private:
  LoadedObject();
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  void (*fini_)() = nullptr; // __kiln_fini: the global destructors
};

} // namespace kiln

#endif // KILN_COMPILER_HOSTJIT_H
