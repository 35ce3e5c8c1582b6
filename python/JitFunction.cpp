//===- JitFunction.cpp - kiln.jit's callable: the per-call path in C++ ----===//
//
// kiln.jit(f) returns a JitFunction (python/kiln/_jit.py subclasses it).
// Its __call__ checks the positional arguments against the signatures
// compiled so far and calls the compiled code directly:
//  - an exact numpy array: same dtype, shape, aligned and C-contiguous (its
//    data is passed as is);
//  - a Python float, int or bool for a rank-0 input (converted in place);
//  - an object of the type seen before that exports a C-contiguous buffer of
//    the input's shape and element size (JAX's CPU arrays: the buffer
//    protocol waits for the array and gives its memory, no copy), with the
//    same `weak_type` as the traced one;
//  - a pinned pytree: the very object seen before (identity), immutable
//    (frozen dataclasses such as equinox modules, of JAX arrays — _jit.py
//    decides), whose leaves were converted once when it was pinned, and
//    whose lists and dicts (a module's `layers: list`) still hold the very
//    items they held then;
//  - a tree of dicts, lists, tuples and None (flax's parameters): walked on
//    every call, as it may change in place: the same keys and lengths, each
//    leaf an exact numpy array as above or the very JAX array seen before
//    (identity: JAX arrays are immutable), converted once.
// Everything else (a new signature, keyword or static arguments, other
// pytrees) goes to the Python fallback, which traces, compiles, caches and
// may register a new fast signature.
//
//===----------------------------------------------------------------------===//

#include "python/Numpy.h"

#include "python/CompiledFunction.h"

#include "llvm/ADT/SmallVector.h"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/vector.h>

#include <cstring>

namespace kiln::python {
namespace {

/// What the fast path checks of one positional argument, and which free
/// inputs of the compiled function it fills.
/// Whether `a` is an exact numpy array of `typenum` and `dims`, in the
/// host's byte order, aligned and C-contiguous: its data can be passed as is.
/// (The type number alone does not say the byte order: '>f4' is NPY_FLOAT.)
bool isExactArray(PyObject *a, int typenum, llvm::ArrayRef<npy_intp> dims) {
  if (!PyArray_CheckExact(a))
    return false;
  auto *arr = reinterpret_cast<PyArrayObject *>(a);
  constexpr int flags = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED;
  return PyArray_DESCR(arr)->type_num == typenum && PyArray_ISNOTSWAPPED(arr) &&
         PyArray_NDIM(arr) == int(dims.size()) &&
         (PyArray_FLAGS(arr) & flags) == flags &&
         std::equal(dims.begin(), dims.end(), PyArray_DIMS(arr));
}

/// Whether `a.is_deleted()` is true (a JAX array; an error counts as
/// deleted, so that the call takes the Python path and reports it).
bool isDeletedJaxArray(PyObject *a) {
  static PyObject *name = PyUnicode_InternFromString("is_deleted");
  PyObject *r = PyObject_CallMethodNoArgs(a, name);
  if (!r) {
    PyErr_Clear();
    return true;
  }
  bool deleted = r == Py_True;
  Py_DECREF(r);
  return deleted;
}

/// One node of a Tree argument, in the order JAX flattens it (a dict's
/// keys sorted), with the free input each leaf fills.
struct TreeNode {
  enum Kind { Dict, List, Tuple, None, HeldLeaf, ArrayLeaf } kind = None;
  std::vector<nb::object> keys;   // Dict
  std::vector<TreeNode> children; // Dict, List, Tuple
  size_t input = 0;               // leaves
  // HeldLeaf: the JAX array (compared by identity) and its data in the
  // input's dtype (`converted`, an array that keeps `data` alive).
  nb::object held, converted;
  void *data = nullptr;
  // ArrayLeaf: the input's numpy type and shape.
  int typenum = 0;
  llvm::SmallVector<npy_intp, 4> dims;

  /// Checks `a` against this node and fills the free inputs of its leaves.
  bool gather(PyObject *a, void **free) const {
    switch (kind) {
    case Dict: {
      if (!PyDict_CheckExact(a) || PyDict_GET_SIZE(a) != Py_ssize_t(keys.size()))
        return false;
      for (size_t i = 0; i < keys.size(); ++i) {
        PyObject *v = PyDict_GetItemWithError(a, keys[i].ptr()); // borrowed
        if (!v) {
          PyErr_Clear();
          return false;
        }
        if (!children[i].gather(v, free))
          return false;
      }
      return true;
    }
    case List:
    case Tuple: {
      bool list = kind == List;
      if (list ? !PyList_CheckExact(a) : !PyTuple_CheckExact(a))
        return false;
      Py_ssize_t n = list ? PyList_GET_SIZE(a) : PyTuple_GET_SIZE(a);
      if (n != Py_ssize_t(children.size()))
        return false;
      for (Py_ssize_t i = 0; i < n; ++i)
        if (!children[i].gather(list ? PyList_GET_ITEM(a, i) : PyTuple_GET_ITEM(a, i), free))
          return false;
      return true;
    }
    case None:
      return a == Py_None;
    case HeldLeaf:
      // A JAX array deleted since (`.delete()`, donation) goes back to
      // Python, which raises JAX's error; the converted copy is stale.
      if (a != held.ptr() || isDeletedJaxArray(a))
        return false;
      free[input] = data;
      return true;
    case ArrayLeaf:
      if (!isExactArray(a, typenum, dims))
        return false;
      free[input] = PyArray_DATA(reinterpret_cast<PyArrayObject *>(a));
      return true;
    }
    return false;
  }
};

bool formatFits(const char *format, ElementKind kind);

struct ArgSignature {
  enum Kind { Array, Float, Int, Bool, Pinned, Buffer, Tree } kind = Array;
  size_t firstInput = 0;
  // Array:
  int typenum = 0;
  llvm::SmallVector<npy_intp, 4> dims;
  // Buffer: the exporting type, the element size, and `weak_type` (JAX
  // traces weakly typed arrays differently).
  PyTypeObject *type = nullptr;
  Py_ssize_t itemsize = 0;
  ElementKind element = ElementKind::F32;
  bool weakType = false;
  // Held for the signature's life, so that the pointer compared stays the
  // object's own: Pinned's object, Buffer's type.
  nb::object held;
  // Pinned: the data of the object's leaves' arrays (held in `leaves`).
  std::vector<nb::object> leaves;
  std::vector<void *> leafData;
  // Pinned: the lists and dicts inside the object (an equinox module's
  // `layers: list`), which can change in place, with the items (a dict's
  // keys and values) they held when it was pinned, compared by identity
  // on every call: `model.layers[0] = new_layer` is seen.
  struct Watched {
    nb::object container;
    std::vector<nb::object> keys, items; // keys: dicts only
  };
  std::vector<Watched> watched;

  bool unchanged() const {
    for (const Watched &w : watched) {
      PyObject *c = w.container.ptr();
      if (PyList_CheckExact(c)) {
        if (PyList_GET_SIZE(c) != Py_ssize_t(w.items.size()))
          return false;
        for (size_t i = 0; i < w.items.size(); ++i)
          if (PyList_GET_ITEM(c, Py_ssize_t(i)) != w.items[i].ptr())
            return false;
      } else if (PyDict_CheckExact(c)) {
        if (PyDict_GET_SIZE(c) != Py_ssize_t(w.items.size()))
          return false;
        for (size_t i = 0; i < w.items.size(); ++i) {
          PyObject *v = PyDict_GetItemWithError(c, w.keys[i].ptr()); // borrowed
          if (v != w.items[i].ptr()) {
            PyErr_Clear();
            return false;
          }
        }
      } else {
        return false;
      }
    }
    return true;
  }
  // Tree: its root (checked in full by gather).
  TreeNode tree;

  bool matches(PyObject *a) const {
    switch (kind) {
    case Array:
      return isExactArray(a, typenum, dims);
    case Float:
      return PyFloat_CheckExact(a);
    case Int:
      return PyLong_CheckExact(a);
    case Bool:
      return PyBool_Check(a);
    case Pinned:
      return a == held.ptr() && unchanged();
    case Buffer:
      return Py_TYPE(a) == type && weakTypeOf(a) == int(weakType);
    case Tree:
      return true; // walked by gather
    }
    return false;
  }

  /// `a.weak_type` as 0 or 1 (-1: no such attribute).
  static int weakTypeOf(PyObject *a) {
    static PyObject *name = PyUnicode_InternFromString("weak_type");
    PyObject *w = PyObject_GetAttr(a, name);
    if (!w) {
      PyErr_Clear();
      return -1;
    }
    int v = PyObject_IsTrue(w);
    Py_DECREF(w);
    return v;
  }

  /// Takes `a`'s buffer into `view` when it is C-contiguous with `dims`,
  /// `itemsize` and a format of `element`'s class in the host's byte order;
  /// false (nothing held) otherwise. The format is checked on every call:
  /// a JAX int32 array has float32's type and item size (it was read as
  /// float32 bits).
  bool takeBuffer(PyObject *a, Py_buffer &view) const {
    if (PyObject_GetBuffer(a, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
      PyErr_Clear();
      return false;
    }
    bool ok = view.itemsize == itemsize && formatFits(view.format, element) &&
              view.ndim == int(dims.size()) &&
              (view.ndim == 0 || std::equal(dims.begin(), dims.end(), view.shape));
    if (!ok)
      PyBuffer_Release(&view);
    return ok;
  }
};

/// Buffers taken during one call, released when it ends.
struct HeldBuffers {
  llvm::SmallVector<Py_buffer, 4> views;
  ~HeldBuffers() {
    for (Py_buffer &v : views)
      PyBuffer_Release(&v);
  }
};

/// Whether buffer format `format` (struct module syntax) holds elements of
/// `kind`: the same class (float, signed, unsigned, bool); sizes are
/// compared apart.
bool formatFits(const char *format, ElementKind kind) {
  if (!format)
    return false;
  while (*format == '@' || *format == '=' || *format == '<')
    ++format;
  char c = *format;
  if (kind == ElementKind::BF16)
    return false; // no standard format code
  switch (elementClass(kind)) {
  case ElementClass::Float:
    return c == 'f' || c == 'd' || c == 'e';
  case ElementClass::Signed:
    return c == 'b' || c == 'h' || c == 'i' || c == 'l' || c == 'q';
  case ElementClass::Unsigned:
    return c == 'B' || c == 'H' || c == 'I' || c == 'L' || c == 'Q';
  case ElementClass::Bool:
    return c == '?';
  }
  return false;
}

struct FastEntry {
  llvm::SmallVector<ArgSignature, 4> signature;
  std::shared_ptr<CompiledFunction> compiled;

  /// Fills `free` (and `scalars`, the storage of converted scalars) from
  /// `args`; false when a scalar does not fit its input (an int out of
  /// i32's range: the fallback reports it, as jax.jit does).
  bool gather(PyObject *args, void **free, int64_t *scalars, HeldBuffers &held) const {
    for (size_t i = 0; i < signature.size(); ++i) {
      const ArgSignature &s = signature[i];
      PyObject *a = PyTuple_GET_ITEM(args, Py_ssize_t(i));
      switch (s.kind) {
      case ArgSignature::Array:
        free[s.firstInput] = PyArray_DATA(reinterpret_cast<PyArrayObject *>(a));
        break;
      case ArgSignature::Buffer: {
        Py_buffer view;
        if (!s.takeBuffer(a, view))
          return false;
        held.views.push_back(view);
        free[s.firstInput] = view.buf;
        break;
      }
      case ArgSignature::Pinned:
        std::copy(s.leafData.begin(), s.leafData.end(), free + s.firstInput);
        break;
      case ArgSignature::Tree:
        if (!s.tree.gather(a, free))
          return false;
        break;
      default:
        if (!CompiledFunction::storeScalar(a, compiled->freeInput(s.firstInput).kind,
                                           &scalars[s.firstInput]))
          return false;
        free[s.firstInput] = &scalars[s.firstInput];
      }
    }
    return true;
  }
};

class JitFunction {
public:
  explicit JitFunction(nb::object fallback) : fallback_(std::move(fallback)) {}

  nb::object call(nb::args args, nb::kwargs kwargs) {
    PyObject *tuple = args.ptr();
    Py_ssize_t n = PyTuple_GET_SIZE(tuple);
    if (kwargs.size() == 0) {
      // By index, each entry held by a copy: gathering an argument can run
      // Python (an object's buffer export), and another thread may then add
      // an entry (reallocating entries_) or clear them; a reference into
      // the vector, or its iterator, would dangle (a segfault in the
      // boundary fuzzer's threaded calls).
      for (size_t k = 0; k < entries_.size(); ++k) {
        std::shared_ptr<FastEntry> entry = entries_[k];
        const FastEntry &e = *entry;
        if (Py_ssize_t(e.signature.size()) != n)
          continue;
        bool ok = true;
        for (Py_ssize_t i = 0; ok && i < n; ++i)
          ok = e.signature[i].matches(PyTuple_GET_ITEM(tuple, i));
        if (!ok)
          continue;
        size_t nFree = e.compiled->numFreeInputs();
        llvm::SmallVector<void *, 32> free(nFree);
        llvm::SmallVector<int64_t, 16> scalars(nFree);
        HeldBuffers held;
        if (e.gather(tuple, free.data(), scalars.data(), held)) {
          // The call releases the GIL: another thread may clear or replace
          // the entries meanwhile (clear_cache), which had freed the code
          // and the pinned data under the call. `entry` keeps both.
          return entry->compiled->callFree(free.data());
        }
      }
    }
    // fallback(self, *args, **kwargs): a function of the class, so that the
    // object holds no reference to itself.
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
  /// `compiled`. `pinned[i]` is None for an argument passed as is (an exact,
  /// aligned, C-contiguous ndarray of the input's dtype and shape, a Python
  /// scalar for a rank-0 input, or an object exporting such a buffer);
  /// ("pinned", arrays, watched): the arrays argument i flattens to (already
  /// of the inputs' dtypes) and its lists and dicts with their items
  /// (ArgSignature::Watched): the argument is then matched by identity, its
  /// containers by their items' identities; or ("tree", node): a tree of
  /// dicts, lists, tuples and None walked on every call, each node
  /// ("dict", keys, children), ("list", children), ("tuple", children),
  /// ("none",), ("held", jax_array, converted) or ("array", ndarray) (_jit.py's
  /// _tree_spec). Returns whether it registered.
  bool addFastPath(nb::tuple args, std::shared_ptr<CompiledFunction> compiled,
                   std::vector<nb::object> pinned) {
    size_t nArgs = nb::len(args);
    if (pinned.size() != nArgs)
      return false;
    FastEntry e;
    e.compiled = std::move(compiled);
    size_t input = 0, nFree = e.compiled->numFreeInputs();
    for (size_t i = 0; i < nArgs; ++i) {
      PyObject *a = PyTuple_GET_ITEM(args.ptr(), Py_ssize_t(i));
      ArgSignature s;
      s.firstInput = input;
      if (nb::isinstance<nb::tuple>(pinned[i]) && nb::len(pinned[i]) == 3) {
        // ("pinned", leaves, watched): watched is [(list, items)] or
        // [(dict, keys, values)].
        nb::tuple spec = nb::borrow<nb::tuple>(pinned[i]);
        s.kind = ArgSignature::Pinned;
        s.held = nb::borrow(a);
        for (nb::handle leaf : nb::borrow<nb::sequence>(spec[1])) {
          if (input >= nFree || !fitsInput(leaf, *e.compiled, input))
            return false;
          s.leaves.push_back(nb::borrow(leaf));
          s.leafData.push_back(PyArray_DATA(reinterpret_cast<PyArrayObject *>(leaf.ptr())));
          ++input;
        }
        for (nb::handle w : nb::borrow<nb::sequence>(spec[2])) {
          nb::tuple t = nb::borrow<nb::tuple>(w);
          ArgSignature::Watched watched;
          watched.container = nb::borrow(t[0]);
          bool dict = nb::len(t) == 3;
          if (dict)
            for (nb::handle k : nb::borrow<nb::sequence>(t[1]))
              watched.keys.push_back(nb::borrow(k));
          for (nb::handle v : nb::borrow<nb::sequence>(t[dict ? 2 : 1]))
            watched.items.push_back(nb::borrow(v));
          s.watched.push_back(std::move(watched));
        }
        if (!s.matches(a))
          return false;
        e.signature.push_back(std::move(s));
        continue;
      }
      if (nb::isinstance<nb::tuple>(pinned[i])) {
        nb::tuple spec = nb::borrow<nb::tuple>(pinned[i]);
        s.kind = ArgSignature::Tree;
        if (nb::len(spec) != 2 || !buildTree(spec[1], *e.compiled, input, s.tree))
          return false;
        llvm::SmallVector<void *, 32> free(nFree);
        if (!s.tree.gather(a, free.data()))
          return false;
        e.signature.push_back(std::move(s));
        continue;
      }
      if (!pinned[i].is_none())
        return false;
      if (input >= nFree)
        return false;
      const TensorSpec &spec = e.compiled->freeInput(input);
      if (PyArray_CheckExact(a)) {
        if (!fitsInput(a, *e.compiled, input))
          return false;
        auto *arr = reinterpret_cast<PyArrayObject *>(a);
        s.kind = ArgSignature::Array;
        s.typenum = PyArray_DESCR(arr)->type_num;
        s.dims.assign(PyArray_DIMS(arr), PyArray_DIMS(arr) + PyArray_NDIM(arr));
      } else if (spec.shape.empty() && (PyFloat_CheckExact(a) || PyLong_CheckExact(a) ||
                                        PyBool_Check(a))) {
        int64_t scratch;
        if (!CompiledFunction::storeScalar(a, spec.kind, &scratch))
          return false;
        s.kind = PyBool_Check(a)    ? ArgSignature::Bool
                 : PyFloat_Check(a) ? ArgSignature::Float
                                    : ArgSignature::Int;
      } else if (PyObject_CheckBuffer(a)) {
        s.kind = ArgSignature::Buffer;
        s.type = Py_TYPE(a);
        s.itemsize = Py_ssize_t(elementSize(spec.kind));
        s.element = spec.kind;
        s.dims.assign(spec.shape.begin(), spec.shape.end());
        int weak = ArgSignature::weakTypeOf(a);
        s.weakType = weak == 1;
        Py_buffer view;
        if (!s.takeBuffer(a, view))
          return false;
        PyBuffer_Release(&view);
        s.held = nb::borrow(reinterpret_cast<PyObject *>(s.type));
      } else {
        return false;
      }
      if (!s.matches(a))
        return false;
      e.signature.push_back(std::move(s));
      ++input;
    }
    if (input != nFree)
      return false;
    // A tree's held leaves are replaced at every step of a training loop:
    // its older entries for the same function go, rather than keep up to
    // kMaxEntries generations of parameters alive.
    auto hasTree = [](const FastEntry &f) {
      return llvm::any_of(f.signature,
                          [](const ArgSignature &s) { return s.kind == ArgSignature::Tree; });
    };
    if (hasTree(e))
      llvm::erase_if(entries_, [&](const std::shared_ptr<FastEntry> &f) {
        return f->compiled == e.compiled && hasTree(*f);
      });
    // Newest first: the signature just compiled is the likeliest next.
    entries_.insert(entries_.begin(), std::make_shared<FastEntry>(std::move(e)));
    if (entries_.size() > kMaxEntries)
      entries_.pop_back();
    return true;
  }

  void clear() { entries_.clear(); }
  size_t numFastPaths() const { return entries_.size(); }

private:
  /// Whether `a` is an array that can stand for free input `input` as it
  /// is: of its dtype and shape, aligned and C-contiguous.
  static bool fitsInput(nb::handle a, const CompiledFunction &compiled, size_t input) {
    if (!PyArray_Check(a.ptr()))
      return false;
    auto *arr = reinterpret_cast<PyArrayObject *>(a.ptr());
    const TensorSpec &spec = compiled.freeInput(input);
    constexpr int flags = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED;
    return PyArray_EquivTypenums(PyArray_DESCR(arr)->type_num, compiled.freeInputTypenum(input)) &&
           PyArray_ISNOTSWAPPED(arr) && (PyArray_FLAGS(arr) & flags) == flags &&
           std::equal(spec.shape.begin(), spec.shape.end(), PyArray_DIMS(arr),
                      PyArray_DIMS(arr) + PyArray_NDIM(arr));
  }

  /// Builds `node` from its description (see addFastPath), numbering the
  /// leaves' free inputs from `input`; false on a malformed description or
  /// a leaf that does not fit its input.
  static bool buildTree(nb::handle desc, const CompiledFunction &compiled, size_t &input,
                        TreeNode &node) {
    if (!nb::isinstance<nb::tuple>(desc) || nb::len(desc) == 0 ||
        !nb::isinstance<nb::str>(desc[0]))
      return false;
    nb::object kindName = desc[0];
    auto is = [&](const char *name) {
      return PyUnicode_CompareWithASCIIString(kindName.ptr(), name) == 0;
    };
    size_t size = nb::len(desc);
    auto children = [&](nb::handle list) {
      if (!nb::isinstance<nb::tuple>(list))
        return false;
      for (nb::handle child : nb::borrow<nb::tuple>(list)) {
        node.children.emplace_back();
        if (!buildTree(child, compiled, input, node.children.back()))
          return false;
      }
      return true;
    };
    if (is("dict") && size == 3) {
      node.kind = TreeNode::Dict;
      for (nb::handle key : nb::borrow<nb::tuple>(desc[1]))
        node.keys.push_back(nb::borrow(key));
      return children(desc[2]) && node.keys.size() == node.children.size();
    }
    if ((is("list") || is("tuple")) && size == 2) {
      node.kind = is("list") ? TreeNode::List : TreeNode::Tuple;
      return children(desc[1]);
    }
    if (is("none") && size == 1) {
      node.kind = TreeNode::None;
      return true;
    }
    if (input >= compiled.numFreeInputs())
      return false;
    node.input = input++;
    if (is("held") && size == 3 && fitsInput(desc[2], compiled, node.input)) {
      node.kind = TreeNode::HeldLeaf;
      node.held = nb::borrow(desc[1]);
      node.converted = nb::borrow(desc[2]);
      node.data = PyArray_DATA(reinterpret_cast<PyArrayObject *>(node.converted.ptr()));
      return true;
    }
    if (is("array") && size == 2 && PyArray_CheckExact(desc[1].ptr()) &&
        fitsInput(desc[1], compiled, node.input)) {
      auto *arr = reinterpret_cast<PyArrayObject *>(desc[1].ptr());
      node.kind = TreeNode::ArrayLeaf;
      node.typenum = PyArray_DESCR(arr)->type_num;
      node.dims.assign(PyArray_DIMS(arr), PyArray_DIMS(arr) + PyArray_NDIM(arr));
      return true;
    }
    return false;
  }

  static constexpr size_t kMaxEntries = 16;
  nb::object fallback_;
  /// Shared: a call in flight keeps its entry (JitFunction::call).
  std::vector<std::shared_ptr<FastEntry>> entries_;
};

} // namespace

void bindJitFunction(nb::module_ &m) {
  nb::class_<JitFunction>(m, "JitFunction",
                          "kiln.jit's callable: compiled signatures are called from C++")
      .def(nb::init<nb::object>(), nb::arg("fallback"),
           "fallback(self, *args, **kwargs) handles every call the fast path does not")
      .def("__call__", &JitFunction::call)
      .def("_add_fast_path", &JitFunction::addFastPath, nb::arg("args"), nb::arg("compiled"),
           nb::arg("pinned"))
      .def("_clear_fast_paths", &JitFunction::clear)
      .def_prop_ro("_num_fast_paths", &JitFunction::numFastPaths);
}

} // namespace kiln::python
