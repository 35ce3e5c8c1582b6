//===- JaxprFromPython.h - a jaxpr syntax tree from JAX's objects -*- C++ -*-===//
#ifndef KILN_PYTHON_JAXPRFROMPYTHON_H
#define KILN_PYTHON_JAXPRFROMPYTHON_H

#include "importer/JaxprAst.h"

#include <nanobind/nanobind.h>

namespace kiln::python {

/// The syntax tree of the tuples kiln/_jaxpr.py's jaxpr_tree made of a
/// ClosedJaxpr; raises TypeError if `tree` is not such tuples.
jaxpr::Program jaxprProgramFromPython(nanobind::handle tree);

} // namespace kiln::python

#endif // KILN_PYTHON_JAXPRFROMPYTHON_H
