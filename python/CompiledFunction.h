//===- CompiledFunction.h - a compiled lax function, called with numpy -*- C++ -*-===//
//
// A kiln::Executable plus what calling it from Python needs: the numpy type
// numbers of its inputs and outputs, the leading inputs bound once to
// arrays the function closes over (a jaxpr's constants), and the pytree
// definition its outputs are returned in.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PYTHON_COMPILEDFUNCTION_H
#define KILN_PYTHON_COMPILEDFUNCTION_H

#include "python/Bindings.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::python {

class CompiledFunction {
public:
  explicit CompiledFunction(std::unique_ptr<Executable> exe);

  const Executable &executable() const { return *exe_; }
  /// Inputs between the bound ones: what a call passes.
  size_t numFreeInputs() const { return exe_->inputs().size() - bound_.size(); }
  const TensorSpec &freeInput(size_t i) const { return exe_->inputs()[numLeading_ + i]; }
  int freeInputTypenum(size_t i) const { return inTypenums_[numLeading_ + i]; }

  /// Binds the first inputs to `leading` and the last to `trailing` (a
  /// jaxpr's constants, and those of its nested jaxprs, which the importer
  /// puts after the arguments), each converted once to the input's dtype
  /// and layout and kept alive by this object.
  void bind(const std::vector<nb::object> &leading, const std::vector<nb::object> &trailing);
  /// Calls return outputs through `treedef.unflatten(list)`; None: one
  /// output bare, several as a tuple.
  void setOutputTree(nb::object treedef) { outTree_ = std::move(treedef); }
  /// The program's host callbacks (lax.host_callback): `handler(index,
  /// address)` runs callback `index` with the address of its buffers'
  /// pointers (kiln/_callbacks.py); None for a program without.
  void setHostCallback(nb::object handler) { hostCallback_ = std::move(handler); }
  /// The most threads each call's runtime GEMM may use (0: the default).
  void setThreads(int32_t threads) { threads_ = std::max<int32_t>(threads, 0); }

  /// The general entry: `args` (a sequence of arrays or scalars, one per
  /// free input) converted with numpy where dtype or layout differ.
  nb::object call(nb::handle args) const;
  /// The per-call path (JitFunction's, after its signature check): the
  /// data pointers of the free inputs, in order, already of the inputs'
  /// types and row-major.
  nb::object callFree(void *const *free) const;
  /// Runs on caller-owned buffers: the free inputs' data, then the outputs'
  /// (XLA's, for kiln.kernel). No Python objects; the GIL is not needed.
  /// False with `error` when an allocation of the compiled code failed.
  bool callInto(void *const *free, void *const *outs, std::string *error) const;

  /// Python scalar `value` stored as element kind `kind` at `out` (8
  /// bytes); false when it does not fit exactly (an int out of range).
  static bool storeScalar(PyObject *value, ElementKind kind, void *out);

  /// This object's address as kiln.kernel's `executable` handle; the object
  /// is registered as a live handle, which it stays for its life.
  intptr_t handle() const;
  /// The function a handle names, if it is one handle() gave and its object
  /// is alive; null otherwise (a forged address had been called).
  static const CompiledFunction *fromHandle(int64_t handle);
  ~CompiledFunction();

private:
  /// `value` as input `i` takes it: an aligned C-contiguous array of the
  /// input's dtype (numpy converts where it is not), of the input's shape
  /// (else a KilnError naming it `what`).
  nb::object inputArray(nb::handle value, size_t i, const std::string &what) const;
  nb::object run(void **buffers) const;
  /// Bound data into `buffers` around the free inputs.
  void placeBound(void **buffers) const;
  /// Runs the compiled code on `buffers` with the host callbacks installed;
  /// false with `error` set when it failed, and with `*raised` holding the
  /// exception a Python callback raised.
  bool invoke(void *const *buffers, std::string *error,
              std::optional<nb::python_error> *raised, bool releaseGil) const;
  std::unique_ptr<Executable> exe_;
  std::vector<int> inTypenums_, outTypenums_;
  std::vector<std::vector<intptr_t>> outDims_;
  std::vector<nb::object> bound_;
  std::vector<void *> boundData_; // leading, then trailing
  size_t numLeading_ = 0;
  nb::object outTree_;
  nb::object hostCallback_;
  int32_t threads_ = 0;
  int64_t inputBytes_ = 0;
};

} // namespace kiln::python

#endif // KILN_PYTHON_COMPILEDFUNCTION_H
