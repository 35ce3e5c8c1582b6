//===- KilnModule.cpp - the kiln._kiln native module ----------------------===//
//
// Binds Program, CompiledFunction and JitFunction, and maps KilnError to
// Python: kiln.Error, with the subclasses JaxprImportError, RuleError and
// CompileError (python/kiln/__init__.py re-exports them).
//
//===----------------------------------------------------------------------===//

#define KILN_NUMPY_IMPORT
#include "python/Numpy.h"

#include "python/Bindings.h"

#include <cstring>

namespace nb = nanobind;

namespace kiln::python {
void bindJitFunction(nb::module_ &m);
void bindFfiCall(nb::module_ &m);

void initNumpy() {
  if (_import_array() < 0)
    throw nb::python_error();
}
} // namespace kiln::python

using namespace kiln::python;

NB_MODULE(_kiln, m) {
  m.doc() = "Kiln's native module: import, rewrite and compile lax programs";
  initNumpy();
  // JAX's caches (jit's, for kiln.rewrite's functions) keep Kiln's objects
  // alive until the interpreter ends; nanobind would report each as leaked.
  nb::set_leak_warnings(false);

  // Created once and never freed: the translator may run until the
  // interpreter's end.
  static PyObject *error = PyErr_NewExceptionWithDoc(
      "kiln.Error", "An error of Kiln's: the message is the diagnostics as Kiln's tools print them "
                    "(file:line:col: error: ...).",
      PyExc_Exception, nullptr);
  auto subclass = [&](const char *name, const char *doc) {
    return PyErr_NewExceptionWithDoc(name, doc, error, nullptr);
  };
  static PyObject *importError =
      subclass("kiln.JaxprImportError", "A jaxpr Kiln cannot import (unsupported primitive, bad text).");
  static PyObject *ruleError =
      subclass("kiln.RuleError", "A rule file, rule or plugin that does not load or apply.");
  static PyObject *compileError =
      subclass("kiln.CompileError", "A program Kiln's pipeline cannot compile.");
  m.attr("Error") = nb::borrow(error);
  m.attr("JaxprImportError") = nb::borrow(importError);
  m.attr("RuleError") = nb::borrow(ruleError);
  m.attr("CompileError") = nb::borrow(compileError);
  nb::register_exception_translator([](const std::exception_ptr &p, void *) {
    try {
      std::rethrow_exception(p);
    } catch (const KilnError &e) {
      PyObject *type = e.kind == KilnError::Import    ? importError
                       : e.kind == KilnError::Rule    ? ruleError
                       : e.kind == KilnError::Compile ? compileError
                                                      : error;
      // Decoded leniently: a diagnostic may quote bytes of the input that
      // are not UTF-8 (PyErr_SetString's strict decoding raised a
      // UnicodeDecodeError in place of the error).
      PyObject *message = PyUnicode_DecodeUTF8(e.what(), Py_ssize_t(std::strlen(e.what())),
                                               "replace");
      if (message) {
        PyErr_SetObject(type, message);
        Py_DECREF(message);
      }
    }
  });

  bindProgram(m);
  bindCompiledFunction(m);
  bindJitFunction(m);
  bindFfiCall(m);
}
