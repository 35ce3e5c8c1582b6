//===- Bindings.h - what the kiln._kiln native module's parts share -*- C++ -*-===//
//
// The native half of the `kiln` Python package (python/kiln/): Program (a
// lax module in its own MLIRContext: import, rewrite, compile, interpret,
// export to Python), CompiledFunction (a kiln::Executable with the numpy
// calling convention) and JitFunction (kiln.jit's callable: the per-call path
// in C++). Errors are KilnError, raised in Python as kiln.Error or one of its
// subclasses with the tools' `file:line:col: error:` text.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PYTHON_BINDINGS_H
#define KILN_PYTHON_BINDINGS_H

#include "compiler/Compiler.h"

#include <nanobind/nanobind.h>

#include <optional>
#include <stdexcept>
#include <string>

namespace kiln::python {
namespace nb = nanobind;

/// An error of Kiln's, with the diagnostics as the tools print them.
struct KilnError : std::runtime_error {
  enum Kind { General, Import, Rule, Compile };
  KilnError(Kind kind, const std::string &text) : std::runtime_error(text), kind(kind) {}
  Kind kind;
};

/// The numpy type number of `kind` (bf16: ml_dtypes.bfloat16's, -1 when
/// ml_dtypes is missing).
int typenumOf(ElementKind kind);
/// The element kind of numpy type number `typenum`, if Kiln has one.
std::optional<ElementKind> kindOfTypenum(int typenum);

/// The numpy dtype object of `kind`.
nb::object dtypeOf(ElementKind kind);

/// Imports numpy's C API (module init, once).
void initNumpy();

void bindProgram(nb::module_ &m);
void bindCompiledFunction(nb::module_ &m);

} // namespace kiln::python

#endif // KILN_PYTHON_BINDINGS_H
