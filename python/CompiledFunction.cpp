//===- CompiledFunction.cpp - a compiled lax function, called with numpy --===//
//
// Inputs are passed to the compiled code without copying when they are
// aligned, C-contiguous numpy arrays of the input's dtype (JAX's CPU arrays
// convert to such arrays without a copy); anything else goes through
// numpy's conversion once per call, as jax.jit converts its arguments.
// Outputs are new numpy arrays the compiled code writes into.
//
//===----------------------------------------------------------------------===//

#include "python/Numpy.h"

#include "python/CompiledFunction.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <mutex>

#include "llvm/ADT/SmallVector.h"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <limits>

namespace kiln::python {

static int bfloat16Typenum = -2; // -2: not looked up yet; -1: no ml_dtypes

int typenumOf(ElementKind kind) {
  if (kind == ElementKind::BF16) {
    if (bfloat16Typenum == -2) {
      bfloat16Typenum = -1;
      try {
        nb::object bf16 = nb::module_::import_("ml_dtypes").attr("bfloat16");
        bfloat16Typenum = nb::cast<int>(nb::module_::import_("numpy").attr("dtype")(bf16).attr("num"));
      } catch (nb::python_error &) {
      }
    }
    return bfloat16Typenum;
  }
  static constexpr int typenums[] = {
#define KILN_ELEMENT_KIND(Kind, name, bytes, Class, NumpyType) NumpyType,
#include "compiler/ElementKinds.def"
  };
  return typenums[size_t(kind)];
}

std::optional<ElementKind> kindOfTypenum(int typenum) {
  for (ElementKind k : allElementKinds())
    if (PyArray_EquivTypenums(typenum, typenumOf(k)))
      return k;
  return std::nullopt;
}

nb::object dtypeOf(ElementKind kind) {
  int typenum = typenumOf(kind);
  if (typenum < 0)
    throw KilnError(KilnError::General, std::string("no numpy dtype for ") + elementKindName(kind) +
                                            " (install ml_dtypes)");
  return nb::steal(reinterpret_cast<PyObject *>(PyArray_DescrFromType(typenum)));
}

static std::string describe(const TensorSpec &spec) {
  std::string s = elementKindName(spec.kind);
  s += "[";
  for (size_t i = 0; i < spec.shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(spec.shape[i]);
  return s + "]";
}

CompiledFunction::CompiledFunction(std::unique_ptr<Executable> exe) : exe_(std::move(exe)) {
  for (const TensorSpec &s : exe_->inputs()) {
    inTypenums_.push_back(typenumOf(s.kind));
    inputBytes_ += int64_t(s.numBytes());
  }
  for (const TensorSpec &s : exe_->outputs()) {
    outTypenums_.push_back(typenumOf(s.kind));
    outDims_.emplace_back(s.shape.begin(), s.shape.end());
  }
  outTree_ = nb::none();
}

bool CompiledFunction::storeScalar(PyObject *value, ElementKind kind, void *out) {
  bool isBool = PyBool_Check(value), isInt = !isBool && PyLong_Check(value),
       isFloat = PyFloat_Check(value);
  switch (kind) {
  case ElementKind::F32:
  case ElementKind::F64: {
    if (!isBool && !isInt && !isFloat)
      return false;
    double v = PyFloat_AsDouble(value);
    if (v == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    if (kind == ElementKind::F32) {
      float f = float(v);
      std::memcpy(out, &f, sizeof f);
    } else {
      std::memcpy(out, &v, sizeof v);
    }
    return true;
  }
  case ElementKind::I8:
  case ElementKind::I16:
  case ElementKind::I32:
  case ElementKind::I64:
  case ElementKind::U8:
  case ElementKind::U16:
  case ElementKind::U32: {
    // (U64 takes numpy's path: a Python int above 2^63 - 1 is valid there.)
    if (!isInt && !isBool)
      return false;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return false;
    }
    unsigned bits = 8 * elementSize(kind);
    bool isSigned = elementClass(kind) == ElementClass::Signed;
    int64_t lo = isSigned ? (bits == 64 ? INT64_MIN : -(int64_t(1) << (bits - 1))) : 0;
    int64_t hi = bits == 64 ? INT64_MAX
                            : (isSigned ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1);
    if (v < lo || v > hi)
      return false;
    storeIntElement(out, kind, v);
    return true;
  }
  case ElementKind::Bool: {
    if (!isBool)
      return false;
    uint8_t x = value == Py_True;
    std::memcpy(out, &x, 1);
    return true;
  }
  default:
    return false; // f16/bf16: numpy converts
  }
}

nb::object CompiledFunction::inputArray(nb::handle value, size_t i, const std::string &what) const {
  const TensorSpec &spec = exe_->inputs()[i];
  if (inTypenums_[i] < 0)
    throw KilnError(KilnError::General, std::string("no numpy dtype for ") +
                                            elementKindName(spec.kind) + " (install ml_dtypes)");
  // The value's own dtype first: it must be the input's, or one JAX
  // canonicalizes to it without x64 (float64 -> float32, int64 -> int32,
  // uint64 -> uint32, as Python lists and scalars come). Anything else is
  // JAX's TypeError, not a cast (NaN had become INT_MIN + 1 in an int32
  // input, an int32 array float bits).
  PyObject *natural = PyArray_FromAny(value.ptr(), nullptr, 0, 0, 0, nullptr);
  if (!natural)
    throw nb::python_error();
  nb::object naturalArray = nb::steal(natural);
  int from = PyArray_DESCR(reinterpret_cast<PyArrayObject *>(natural))->type_num;
  int to = inTypenums_[i];
  auto is = [](int t, std::initializer_list<int> ts) {
    return llvm::any_of(ts, [&](int u) { return PyArray_EquivTypenums(t, u); });
  };
  bool canonical = PyArray_EquivTypenums(from, to) ||
                   (is(from, {NPY_DOUBLE}) && is(to, {NPY_FLOAT})) ||
                   (is(from, {NPY_LONG, NPY_LONGLONG}) && is(to, {NPY_INT})) ||
                   (is(from, {NPY_ULONG, NPY_ULONGLONG}) && is(to, {NPY_UINT}));
  if (!canonical) {
    std::string got = PyArray_DESCR(reinterpret_cast<PyArrayObject *>(natural))->typeobj->tp_name;
    throw nb::type_error(("Argument types differ from the types for which this computation was "
                          "compiled: " +
                          what + " was compiled with " + describe(spec) + " and called with " +
                          got + " values")
                             .c_str());
  }
  PyObject *o = PyArray_FromAny(natural, PyArray_DescrFromType(to), 0, 0,
                                NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST,
                                nullptr);
  if (!o)
    throw nb::python_error();
  nb::object array = nb::steal(o);
  auto *arr = reinterpret_cast<PyArrayObject *>(o);
  if (PyArray_NDIM(arr) != int(spec.shape.size()) ||
      !std::equal(spec.shape.begin(), spec.shape.end(), PyArray_DIMS(arr))) {
    std::string got = "[";
    for (int d = 0; d < PyArray_NDIM(arr); ++d)
      got += (d ? "," : "") + std::to_string(PyArray_DIMS(arr)[d]);
    throw KilnError(KilnError::General,
                    what + ": expected " + describe(spec) + ", got shape " + got + "]");
  }
  return array;
}

/// The handles given out (CompiledFunction::handle) of live objects.
static std::mutex handlesMutex;
static llvm::DenseSet<const CompiledFunction *> &liveHandles() {
  static auto *set = new llvm::DenseSet<const CompiledFunction *>();
  return *set;
}

intptr_t CompiledFunction::handle() const {
  std::lock_guard<std::mutex> lock(handlesMutex);
  liveHandles().insert(this);
  return reinterpret_cast<intptr_t>(this);
}

const CompiledFunction *CompiledFunction::fromHandle(int64_t handle) {
  auto *fn = reinterpret_cast<const CompiledFunction *>(intptr_t(handle));
  std::lock_guard<std::mutex> lock(handlesMutex);
  return liveHandles().contains(fn) ? fn : nullptr;
}

CompiledFunction::~CompiledFunction() {
  std::lock_guard<std::mutex> lock(handlesMutex);
  liveHandles().erase(this);
}

void CompiledFunction::bind(const std::vector<nb::object> &leading,
                            const std::vector<nb::object> &trailing) {
  size_t nIn = exe_->inputs().size();
  if (leading.size() + trailing.size() > nIn)
    throw KilnError(KilnError::General, "more constants than inputs");
  bound_.clear();
  boundData_.clear();
  numLeading_ = leading.size();
  auto bindOne = [&](nb::handle value, size_t i) {
    nb::object array = inputArray(value, i, "constant input " + std::to_string(i));
    boundData_.push_back(PyArray_DATA(reinterpret_cast<PyArrayObject *>(array.ptr())));
    bound_.push_back(std::move(array));
  };
  for (size_t i = 0; i < leading.size(); ++i)
    bindOne(leading[i], i);
  for (size_t i = 0; i < trailing.size(); ++i)
    bindOne(trailing[i], nIn - trailing.size() + i);
}

void CompiledFunction::placeBound(void **buffers) const {
  std::copy(boundData_.begin(), boundData_.begin() + numLeading_, buffers);
  std::copy(boundData_.begin() + numLeading_, boundData_.end(),
            buffers + numLeading_ + numFreeInputs());
}

nb::object CompiledFunction::run(void **buffers) const {
  size_t nIn = exe_->inputs().size(), nOut = outDims_.size();
  llvm::SmallVector<nb::object, 4> outs;
  for (size_t i = 0; i < nOut; ++i) {
    PyObject *o = PyArray_SimpleNew(int(outDims_[i].size()),
                                    const_cast<npy_intp *>(outDims_[i].data()), outTypenums_[i]);
    if (!o)
      throw nb::python_error();
    buffers[nIn + i] = PyArray_DATA(reinterpret_cast<PyArrayObject *>(o));
    outs.push_back(nb::steal(o));
  }
  std::string error;
  std::optional<nb::python_error> raised;
  // Long calls let other Python threads run meanwhile.
  bool ok = invoke(buffers, &error, &raised, inputBytes_ > (1 << 16));
  if (raised)
    throw std::move(*raised); // what the Python callback raised, as it raised it
  if (!ok) {
    // A temporary too large for the machine: Python's MemoryError.
    PyErr_SetString(PyExc_MemoryError, error.c_str());
    throw nb::python_error();
  }
  if (outTree_.is_none()) {
    if (nOut == 1)
      return outs[0];
    nb::tuple t = nb::steal<nb::tuple>(PyTuple_New(Py_ssize_t(nOut)));
    for (size_t i = 0; i < nOut; ++i)
      PyTuple_SET_ITEM(t.ptr(), Py_ssize_t(i), outs[i].release().ptr());
    return std::move(t);
  }
  nb::list l;
  for (nb::object &o : outs)
    l.append(o);
  return outTree_.attr("unflatten")(l);
}

nb::object CompiledFunction::callFree(void *const *free) const {
  size_t nFree = numFreeInputs();
  llvm::SmallVector<void *, 32> buffers(bound_.size() + nFree + outDims_.size());
  placeBound(buffers.data());
  std::copy(free, free + nFree, buffers.begin() + numLeading_);
  return run(buffers.data());
}

bool CompiledFunction::callInto(void *const *free, void *const *outs, std::string *error) const {
  size_t nFree = numFreeInputs(), nIn = exe_->inputs().size();
  llvm::SmallVector<void *, 32> buffers(nIn + outDims_.size());
  placeBound(buffers.data());
  std::copy(free, free + nFree, buffers.begin() + numLeading_);
  std::copy(outs, outs + outDims_.size(), buffers.begin() + nIn);
  std::optional<nb::python_error> raised;
  bool ok = invoke(buffers.data(), error, &raised, false);
  if (raised && error) {
    nb::gil_scoped_acquire gil;
    *error = std::string("a host callback raised ") + raised->what();
    raised.reset();
  }
  return ok;
}

namespace {
/// The host callback handler's context for one call.
struct CallbackState {
  nb::handle handler;
  std::optional<nb::python_error> *raised;
};

/// Runs a Python callback (lax.host_callback) from the compiled code, on
/// the calling thread; an exception is kept for the caller to raise.
int32_t runPythonCallback(void *context, int64_t index, void *const *buffers) {
  auto *state = static_cast<CallbackState *>(context);
  nb::gil_scoped_acquire gil;
  try {
    state->handler(index, reinterpret_cast<intptr_t>(buffers));
    return 0;
  } catch (nb::python_error &e) {
    state->raised->emplace(std::move(e));
  } catch (const std::exception &e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    state->raised->emplace();
  }
  return 1;
}
} // namespace

bool CompiledFunction::invoke(void *const *buffers, std::string *error,
                              std::optional<nb::python_error> *raised, bool releaseGil) const {
  bool callbacks = hostCallback_.is_valid() && !hostCallback_.is_none();
  CallbackState state{hostCallback_, raised};
  auto call = [&] {
    if (!callbacks && threads_ == 0)
      return exe_->callRawChecked(buffers, error);
    Executable::CallOptions options;
    if (callbacks)
      options.callbacks = {runPythonCallback, &state};
    options.threads = threads_;
    return exe_->callWith(buffers, options, error);
  };
  if (!releaseGil)
    return call();
  nb::gil_scoped_release release;
  return call();
}

nb::object CompiledFunction::call(nb::handle argsHandle) const {
  nb::sequence args = nb::borrow<nb::sequence>(argsHandle);
  size_t n = nb::len(args), nBound = numLeading_, nFree = numFreeInputs();
  if (n != nFree)
    throw KilnError(KilnError::General, "the function takes " + std::to_string(nFree) +
                                            " arrays, got " + std::to_string(n));
  llvm::SmallVector<void *, 32> buffers(bound_.size() + nFree + outDims_.size());
  llvm::SmallVector<int64_t, 16> scalars(nFree);
  llvm::SmallVector<nb::object, 16> keep;
  placeBound(buffers.data());
  for (size_t i = 0; i < nFree; ++i) {
    nb::object a = args[i];
    const TensorSpec &spec = freeInput(i);
    if (spec.shape.empty() && storeScalar(a.ptr(), spec.kind, &scalars[i])) {
      buffers[nBound + i] = &scalars[i];
      continue;
    }
    nb::object array = inputArray(a, numLeading_ + i, "argument " + std::to_string(i));
    auto *arr = reinterpret_cast<PyArrayObject *>(array.ptr());
    buffers[nBound + i] = PyArray_DATA(arr);
    keep.push_back(std::move(array));
  }
  return run(buffers.data());
}

void bindCompiledFunction(nb::module_ &m) {
  nb::class_<CompiledFunction>(m, "CompiledFunction",
                               "A lax function compiled for the CPU (kiln::Executable)")
      .def("__call__", [](const CompiledFunction &f, nb::args args) { return f.call(args); })
      .def("call_flat", &CompiledFunction::call, nb::arg("arrays"),
           "Calls with one array (or scalar) per input after the bound constants")
      .def("bind", &CompiledFunction::bind, nb::arg("leading"), nb::arg("trailing"))
      .def("set_output_tree", &CompiledFunction::setOutputTree, nb::arg("treedef").none())
      .def("set_host_callback", &CompiledFunction::setHostCallback, nb::arg("handler").none())
      .def("set_threads", &CompiledFunction::setThreads, nb::arg("threads"),
           "The most threads each call's runtime GEMM may use (0: the process default)")
      .def_prop_ro("input_types",
                   [](const CompiledFunction &f) {
                     nb::list l;
                     for (size_t i = 0; i < f.numFreeInputs(); ++i)
                       l.append(describe(f.freeInput(i)));
                     return l;
                   })
      .def_prop_ro("input_dtypes",
                   [](const CompiledFunction &f) {
                     nb::list l;
                     for (size_t i = 0; i < f.numFreeInputs(); ++i)
                       l.append(dtypeOf(f.freeInput(i).kind));
                     return l;
                   })
      .def_prop_ro("output_types",
                   [](const CompiledFunction &f) {
                     nb::list l;
                     for (const TensorSpec &s : f.executable().outputs())
                       l.append(describe(s));
                     return l;
                   })
      .def_prop_ro("address", &CompiledFunction::handle,
                   "The object's address: kiln.kernel's `executable` attribute (a handle "
                   "the FFI handler checks against the live ones)")
      .def_prop_ro("cache", [](const CompiledFunction &f) {
        return f.executable().cacheOutcome().describe();
      });
}

} // namespace kiln::python
