//===- Numpy.h - numpy's C API for the kiln._kiln module ---------*- C++ -*-===//
//
// One copy of numpy's API table for the whole module: KilnModule.cpp imports
// it (defines KILN_NUMPY_IMPORT); the other files include this header only.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PYTHON_NUMPY_H
#define KILN_PYTHON_NUMPY_H

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL KILN_PyArray_API
#ifndef KILN_NUMPY_IMPORT
#define NO_IMPORT_ARRAY
#endif
#include <Python.h>
#include <numpy/arrayobject.h>

#endif // KILN_PYTHON_NUMPY_H
