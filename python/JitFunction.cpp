//===- JitFunction.cpp - kiln.jit's callable: the per-call path in C++ ----===//
//
// kiln.jit(f) returns a JitFunction (python/kiln/_jit.py subclasses it).
// Its __call__ checks the arguments against the signatures compiled so far
// (for each positional argument: an exact numpy array's dtype, shape and
// layout, or a Python scalar's type) and calls the compiled code directly;
// everything else (a new signature, pytrees, keyword or static arguments,
// JAX arrays) goes to the Python fallback, which traces, compiles, caches
// and may register a new fast signature.
//
//===----------------------------------------------------------------------===//

#include "python/Numpy.h"

#include "python/CompiledFunction.h"

#include "llvm/ADT/SmallVector.h"

#include <nanobind/stl/shared_ptr.h>

#include <cstring>

namespace kiln::python {
namespace {

/// What the fast path checks of one positional argument.
struct ArgSignature {
  enum Kind { Array, Float, Int, Bool } kind = Array;
  int typenum = 0;
  llvm::SmallVector<npy_intp, 4> dims;

  bool matches(PyObject *a) const {
    switch (kind) {
    case Array: {
      if (!PyArray_CheckExact(a))
        return false;
      auto *arr = reinterpret_cast<PyArrayObject *>(a);
      constexpr int flags = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED;
      return PyArray_DESCR(arr)->type_num == typenum && PyArray_NDIM(arr) == int(dims.size()) &&
             (PyArray_FLAGS(arr) & flags) == flags &&
             std::memcmp(PyArray_DIMS(arr), dims.data(), dims.size() * sizeof(npy_intp)) == 0;
    }
    case Float:
      return PyFloat_CheckExact(a);
    case Int:
      return PyLong_CheckExact(a);
    case Bool:
      return PyBool_Check(a);
    }
    return false;
  }
};

struct FastEntry {
  llvm::SmallVector<ArgSignature, 4> signature;
  std::shared_ptr<CompiledFunction> compiled;
};

class JitFunction {
public:
  explicit JitFunction(nb::object fallback) : fallback_(std::move(fallback)) {}

  nb::object call(nb::args args, nb::kwargs kwargs) {
    if (kwargs.size() == 0) {
      PyObject *tuple = args.ptr();
      Py_ssize_t n = PyTuple_GET_SIZE(tuple);
      for (const FastEntry &e : entries_) {
        if (Py_ssize_t(e.signature.size()) != n)
          continue;
        bool ok = true;
        for (Py_ssize_t i = 0; ok && i < n; ++i)
          ok = e.signature[i].matches(PyTuple_GET_ITEM(tuple, i));
        // A scalar that does not fit its input (an int out of i32's range)
        // is the fallback's to report, as jax.jit does.
        for (Py_ssize_t i = 0; ok && i < n; ++i) {
          PyObject *a = PyTuple_GET_ITEM(tuple, i);
          int64_t scratch;
          if (!PyArray_Check(a))
            ok = CompiledFunction::storeScalar(a, e.compiled->freeInput(size_t(i)).kind, &scratch);
        }
        if (ok)
          return e.compiled->callMatched(tuple);
      }
    }
    // fallback(self, *args, **kwargs): a function of the class, so that the
    // object holds no reference to itself.
    PyObject *tuple = args.ptr();
    Py_ssize_t n = PyTuple_GET_SIZE(tuple);
    nb::object withSelf = nb::steal(PyTuple_New(n + 1));
    nb::object self = nb::find(this);
    PyTuple_SET_ITEM(withSelf.ptr(), 0, self.release().ptr());
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject *a = PyTuple_GET_ITEM(tuple, i);
      Py_INCREF(a);
      PyTuple_SET_ITEM(withSelf.ptr(), i + 1, a);
    }
    PyObject *result = PyObject_Call(fallback_.ptr(), withSelf.ptr(),
                                     kwargs.size() ? kwargs.ptr() : nullptr);
    if (!result)
      throw nb::python_error();
    return nb::steal(result);
  }

  /// Registers `args` (positional, a tuple) as a fast signature of
  /// `compiled`, when every argument is one the fast path passes as is: an
  /// exact, aligned, C-contiguous ndarray of the input's dtype and shape, or
  /// a Python scalar for a rank-0 input. Returns whether it did.
  bool addFastPath(nb::tuple args, std::shared_ptr<CompiledFunction> compiled) {
    if (nb::len(args) != compiled->numFreeInputs())
      return false;
    FastEntry e;
    e.compiled = std::move(compiled);
    for (size_t i = 0; i < nb::len(args); ++i) {
      PyObject *a = PyTuple_GET_ITEM(args.ptr(), Py_ssize_t(i));
      const TensorSpec &spec = e.compiled->freeInput(i);
      ArgSignature s;
      if (PyArray_CheckExact(a)) {
        auto *arr = reinterpret_cast<PyArrayObject *>(a);
        s.kind = ArgSignature::Array;
        s.typenum = PyArray_DESCR(arr)->type_num;
        s.dims.assign(PyArray_DIMS(arr), PyArray_DIMS(arr) + PyArray_NDIM(arr));
        if (!PyArray_EquivTypenums(s.typenum, e.compiled->freeInputTypenum(i)) ||
            !std::equal(spec.shape.begin(), spec.shape.end(), s.dims.begin(), s.dims.end()))
          return false;
      } else if (spec.shape.empty() && (PyFloat_CheckExact(a) || PyLong_CheckExact(a) ||
                                        PyBool_Check(a))) {
        int64_t scratch;
        if (!CompiledFunction::storeScalar(a, spec.kind, &scratch))
          return false;
        s.kind = PyBool_Check(a)    ? ArgSignature::Bool
                 : PyFloat_Check(a) ? ArgSignature::Float
                                    : ArgSignature::Int;
      } else {
        return false;
      }
      if (!s.matches(a))
        return false;
      e.signature.push_back(std::move(s));
    }
    // Newest first: the signature just compiled is the likeliest next.
    entries_.insert(entries_.begin(), std::move(e));
    if (entries_.size() > 16)
      entries_.pop_back();
    return true;
  }

  void clear() { entries_.clear(); }
  size_t numFastPaths() const { return entries_.size(); }

private:
  nb::object fallback_;
  std::vector<FastEntry> entries_;
};

} // namespace

void bindJitFunction(nb::module_ &m) {
  nb::class_<JitFunction>(m, "JitFunction",
                          "kiln.jit's callable: compiled signatures are called from C++")
      .def(nb::init<nb::object>(), nb::arg("fallback"),
           "fallback(self, *args, **kwargs) handles every call the fast path does not")
      .def("__call__", &JitFunction::call)
      .def("_add_fast_path", &JitFunction::addFastPath, nb::arg("args"), nb::arg("compiled"))
      .def("_clear_fast_paths", &JitFunction::clear)
      .def_prop_ro("_num_fast_paths", &JitFunction::numFastPaths);
}

} // namespace kiln::python
