//===- JaxprFromPython.cpp - a jaxpr syntax tree from JAX's objects -------===//
//
// kiln.jit imports the ClosedJaxpr it traced without printing it: kiln's
// _jaxpr.py walks JAX's objects into plain tuples (jaxpr_tree, which
// documents the layout) and this reads them into the same syntax tree the
// text parser makes, for the same builder. A parameter that is not a jaxpr
// arrives as the text JAX's printer would write for it (`str(value)`, which
// is all the printer does with one) and is read by the parser's value
// grammar, so both paths see identical parameters.
//
//===----------------------------------------------------------------------===//
#include "python/JaxprFromPython.h"

#include "importer/JaxprParser.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/StringSaver.h"

#include <nanobind/stl/string.h>

namespace kiln::python {
namespace nb = nanobind;
namespace {

using jaxpr::Atom;
using jaxpr::Binder;
using jaxpr::Equation;
using jaxpr::Jaxpr;
using jaxpr::ParamValue;
using llvm::SMLoc;

class TreeReader {
public:
  jaxpr::Program read(nb::handle tree) {
    nb::tuple top = tuple(tree, 2);
    nb::list positions = nb::cast<nb::list>(top[0]);
    program.reservePositions(positions.size());
    for (size_t i = 0; i < positions.size(); ++i) {
      nb::tuple p = tuple(positions[i], 3);
      program.positions[i] = {nb::cast<std::string>(p[0]), nb::cast<unsigned>(p[1]),
                              nb::cast<unsigned>(p[2])};
    }
    program.strings = std::make_shared<llvm::BumpPtrAllocator>();
    saver.emplace(*program.strings);
    program.main = jaxpr(top[1]);
    return std::move(program);
  }

private:
  static nb::tuple tuple(nb::handle h, size_t size) {
    nb::tuple t = nb::cast<nb::tuple>(h);
    if (t.size() != size)
      throw nb::type_error("kiln: malformed jaxpr tree (kiln/_jaxpr.py jaxpr_tree)");
    return t;
  }

  SMLoc at(nb::handle index) {
    size_t i = nb::cast<size_t>(index);
    if (i >= program.positions.size())
      throw nb::index_error("kiln: jaxpr tree position out of range");
    return program.positionHandle(i);
  }

  /// (key, position, constvars, invars, equations, outs); one syntax tree
  /// per key, so a jaxpr JAX shares (one object) stays one.
  std::shared_ptr<Jaxpr> jaxpr(nb::handle h) {
    nb::tuple t = tuple(h, 6);
    auto key = nb::cast<int64_t>(t[0]);
    if (std::shared_ptr<Jaxpr> seen = jaxprs.lookup(key))
      return seen;
    auto j = std::make_shared<Jaxpr>();
    jaxprs[key] = j;
    SMLoc loc = at(t[1]);
    j->loc = j->outsLoc = loc;
    binders(t[2], loc, j->constvars);
    binders(t[3], loc, j->invars);
    for (nb::handle e : nb::cast<nb::list>(t[4]))
      j->equations.push_back(equation(e));
    for (nb::handle a : nb::cast<nb::list>(t[5]))
      j->outs.push_back(atom(a, loc));
    return j;
  }

  /// (position, outs, primitive, [(name, value)], ins).
  Equation equation(nb::handle h) {
    nb::tuple t = tuple(h, 5);
    Equation eqn;
    eqn.loc = eqn.primitiveLoc = at(t[0]);
    binders(t[1], eqn.loc, eqn.outs);
    eqn.primitive = nb::cast<std::string>(t[2]);
    for (nb::handle p : nb::cast<nb::list>(t[3])) {
      nb::tuple kv = tuple(p, 2);
      jaxpr::Param &param = eqn.params.emplace_back();
      param.loc = eqn.loc;
      param.name = nb::cast<std::string>(kv[0]);
      param.value = value(kv[1], eqn.loc);
    }
    for (nb::handle a : nb::cast<nb::list>(t[4]))
      eqn.ins.push_back(atom(a, eqn.loc));
    return eqn;
  }

  /// (name, dtype, shape) each; `_` for a dropped one.
  void binders(nb::handle list, SMLoc loc, llvm::SmallVectorImpl<Binder> &out) {
    for (nb::handle h : nb::cast<nb::list>(list)) {
      nb::tuple t = tuple(h, 3);
      Binder &b = out.emplace_back();
      b.loc = loc;
      b.name = nb::cast<std::string>(t[0]);
      b.type = type(t[1], t[2], loc);
    }
  }

  static jaxpr::TypeAnnotation type(nb::handle dtype, nb::handle shape, SMLoc loc) {
    jaxpr::TypeAnnotation type;
    type.loc = loc;
    type.dtype = nb::cast<std::string>(dtype);
    for (nb::handle d : nb::cast<nb::tuple>(shape))
      type.shape.push_back(nb::cast<int64_t>(d));
    return type;
  }

  /// A variable's name, or (kind 'f'|'i'|'b', value, text, dtype, shape).
  Atom atom(nb::handle h, SMLoc loc) {
    Atom a;
    a.loc = loc;
    if (nb::isinstance<nb::str>(h)) {
      a.name = nb::cast<std::string>(h);
      return a;
    }
    nb::tuple t = tuple(h, 5);
    std::string kind = nb::cast<std::string>(t[0]);
    a.name = nb::cast<std::string>(t[2]);
    a.type = type(t[3], t[4], loc);
    if (kind == "f") {
      a.kind = Atom::Kind::FloatLiteral;
      a.floatValue = nb::cast<double>(t[1]);
    } else {
      a.kind = kind == "b" ? Atom::Kind::BoolLiteral : Atom::Kind::IntLiteral;
      a.intValue = nb::cast<int64_t>(t[1]);
      a.floatValue = (double)a.intValue;
    }
    return a;
  }

  /// The printed text of a value (str), or ('jaxpr', jaxpr), ('list',
  /// [values]), ('call', type name, [(field, value)]) for the values that
  /// hold jaxprs.
  ParamValue value(nb::handle h, SMLoc loc) {
    ParamValue v;
    if (nb::isinstance<nb::str>(h)) {
      llvm::StringRef text = saver->save(nb::cast<std::string>(h));
      if (std::optional<ParamValue> parsed = jaxpr::parseParamValue(text))
        v = std::move(*parsed);
      else
        v.kind = ParamValue::Kind::Opaque; // free text, as the parser keeps it
      if (v.kind == ParamValue::Kind::Opaque)
        v.text = text.str();
      v.spelling = text;
      relocate(v, loc);
      return v;
    }
    nb::tuple t = nb::cast<nb::tuple>(h);
    std::string tag = nb::cast<std::string>(t[0]);
    v.loc = loc;
    if (tag == "jaxpr") {
      v.kind = ParamValue::Kind::Jaxpr;
      v.jaxpr = jaxpr(t[1]);
    } else if (tag == "list") {
      v.kind = ParamValue::Kind::List;
      for (nb::handle item : nb::cast<nb::list>(t[1]))
        v.items.push_back(value(item, loc));
    } else if (tag == "call") {
      v.kind = ParamValue::Kind::Call;
      v.text = nb::cast<std::string>(t[1]);
      for (nb::handle item : nb::cast<nb::list>(t[2])) {
        nb::tuple kv = tuple(item, 2);
        ParamValue &field = v.items.emplace_back(value(kv[1], loc));
        field.key = nb::cast<std::string>(kv[0]);
      }
    } else {
      throw nb::type_error("kiln: malformed jaxpr tree value");
    }
    return v;
  }

  /// Points a parsed value and its items at the equation's position.
  static void relocate(ParamValue &v, SMLoc loc) {
    v.loc = loc;
    for (ParamValue &item : v.items)
      relocate(item, loc);
  }

  jaxpr::Program program;
  std::optional<llvm::StringSaver> saver;
  llvm::DenseMap<int64_t, std::shared_ptr<Jaxpr>> jaxprs;
};

} // namespace

jaxpr::Program jaxprProgramFromPython(nb::handle tree) { return TreeReader().read(tree); }

} // namespace kiln::python
