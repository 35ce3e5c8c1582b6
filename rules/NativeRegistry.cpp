//===- NativeRegistry.cpp - C++ functions callable from rules -------------===//
#include "rules/NativeRegistry.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"

using namespace kiln::rules;
using namespace mlir;

//===----------------------------------------------------------------------===//
// Val
//===----------------------------------------------------------------------===//

std::optional<int64_t> Val::asInt() const {
  if (kind == Int)
    return i;
  if (kind == Bool)
    return b ? 1 : 0;
  if (kind == Attr)
    if (auto a = dyn_cast<IntegerAttr>(attr))
      return a.getValue().getSExtValue();
  return std::nullopt;
}

/// Calls `fn` on each element of `v` read as an integer list; false when it
/// has no such reading (`fn` may then have seen some elements).
template <typename Fn>
static bool forEachListElement(const Val &v, Fn fn) {
  if (v.kind == Val::IntList) {
    llvm::for_each(v.list, fn);
    return true;
  }
  if (v.kind != Val::Attr || !v.attr)
    return false;
  if (auto a = dyn_cast<DenseI64ArrayAttr>(v.attr)) {
    llvm::for_each(a.asArrayRef(), fn);
    return true;
  }
  if (auto a = dyn_cast<DenseI32ArrayAttr>(v.attr)) {
    llvm::for_each(a.asArrayRef(), fn);
    return true;
  }
  if (auto a = dyn_cast<ArrayAttr>(v.attr)) {
    for (Attribute e : a) {
      auto ia = dyn_cast<IntegerAttr>(e);
      if (!ia)
        return false;
      fn(ia.getValue().getSExtValue());
    }
    return true;
  }
  if (auto a = dyn_cast<DenseIntElementsAttr>(v.attr)) {
    for (const APInt &e : a.getValues<APInt>())
      fn(e.getSExtValue());
    return true;
  }
  return false;
}

std::optional<std::vector<int64_t>> Val::asList() const {
  if (kind == IntList)
    return list;
  std::vector<int64_t> out;
  if (!forEachListElement(*this, [&](int64_t e) { out.push_back(e); }))
    return std::nullopt;
  return out;
}

bool Val::isList() const {
  return forEachListElement(*this, [](int64_t) {});
}

std::optional<bool> Val::asBool() const {
  if (kind == Bool)
    return b;
  if (kind == Attr)
    if (auto a = dyn_cast<BoolAttr>(attr))
      return a.getValue();
  return std::nullopt;
}

std::optional<double> Val::asFloat() const {
  if (kind == Float)
    return f;
  if (kind == Int)
    return double(i);
  if (kind == Attr) {
    if (auto a = dyn_cast<FloatAttr>(attr))
      return a.getValueAsDouble();
    if (auto a = dyn_cast<IntegerAttr>(attr))
      return double(a.getValue().getSExtValue());
  }
  return std::nullopt;
}

mlir::Type Val::asType() const {
  switch (kind) {
  case Type:
    return type;
  case Value:
    return value.getType();
  case Op:
    return op->getNumResults() ? op->getResult(0).getType() : mlir::Type();
  case Attr:
    if (auto t = dyn_cast_or_null<TypeAttr>(attr))
      return t.getValue();
    return {};
  default:
    return {};
  }
}

mlir::Value Val::asValue() const {
  if (kind == Value)
    return value;
  if (kind == Op && op->getNumResults() == 1)
    return op->getResult(0);
  return {};
}

Operation *Val::asOp() const {
  if (kind == Op)
    return op;
  if (kind == Value)
    return value.getDefiningOp();
  return nullptr;
}

Attribute Val::toAttribute(MLIRContext *ctx) const {
  Builder b(ctx);
  switch (kind) {
  case Attr:
    return attr;
  case Bool:
    return b.getBoolAttr(this->b);
  case Int:
    return b.getI64IntegerAttr(i);
  case Float:
    return b.getF64FloatAttr(f);
  case IntList:
    return b.getDenseI64ArrayAttr(list);
  case Str:
    return b.getStringAttr(str);
  case Type:
    return TypeAttr::get(type);
  default:
    return {};
  }
}

std::string Val::str_() const {
  std::string out;
  llvm::raw_string_ostream os(out);
  switch (kind) {
  case None:
    os << "none";
    break;
  case Bool:
    os << (b ? "true" : "false");
    break;
  case Int:
    os << i;
    break;
  case Float:
    os << f;
    break;
  case IntList:
    os << "[";
    llvm::interleaveComma(list, os);
    os << "]";
    break;
  case Str:
    os << '"' << str << '"';
    break;
  case Attr:
    os << attr;
    break;
  case Type:
    os << type;
    break;
  case Value:
    os << value.getType() << " value";
    break;
  case Op:
    os << "'" << op->getName() << "' op";
    break;
  case ValueList:
    os << values.size() << " values";
    break;
  }
  return out;
}

const char *kiln::rules::argKindName(ArgKind k) {
  switch (k) {
  case ArgKind::Any: return "any";
  case ArgKind::Value: return "value";
  case ArgKind::Attribute: return "attribute";
  case ArgKind::Type: return "type";
  case ArgKind::Op: return "op";
  case ArgKind::Int: return "int";
  case ArgKind::IntList: return "int list";
  case ArgKind::Bool: return "bool";
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// NativeRegistry
//===----------------------------------------------------------------------===//

NativeRegistry &NativeRegistry::global() {
  static NativeRegistry *registry = [] {
    auto *r = new NativeRegistry();
    registerBuiltinNatives(*r);
    return r;
  }();
  return *registry;
}

bool NativeRegistry::add(NativeFunction f) {
  std::string name = f.name;
  if (parent && parent->lookup(name))
    return false;
  return functions.try_emplace(name, std::move(f)).second;
}

const NativeFunction *NativeRegistry::lookup(llvm::StringRef name) const {
  auto it = functions.find(name);
  if (it != functions.end())
    return &it->second;
  return parent ? parent->lookup(name) : nullptr;
}

const NativeFunction *NativeScope::lookup(llvm::StringRef name) const {
  if (const NativeFunction *f = NativeRegistry::global().lookup(name))
    return f;
  for (const NativeRegistry *plugin : plugins)
    if (const NativeFunction *f = plugin->lookup(name))
      return f;
  return nullptr;
}

std::vector<const NativeFunction *> NativeRegistry::all() const {
  std::vector<const NativeFunction *> out;
  for (auto &e : functions)
    out.push_back(&e.second);
  llvm::sort(out, [](auto *a, auto *b) { return a->name < b->name; });
  return out;
}

bool NativeRegistry::addConstraint(std::string name, std::vector<ArgKind> args,
                                   std::function<bool(llvm::ArrayRef<Val>)> fn,
                                   std::string doc) {
  NativeFunction f;
  f.name = std::move(name);
  f.doc = std::move(doc);
  f.role = NativeFunction::Constraint;
  f.args = std::move(args);
  f.fn = [fn](RewriterBase &, llvm::ArrayRef<Val> a) -> std::optional<Val> {
    return Val::ofBool(fn(a));
  };
  return add(std::move(f));
}

bool NativeRegistry::addFunction(std::string name, std::vector<ArgKind> args,
                                 std::function<std::optional<Val>(llvm::ArrayRef<Val>)> fn,
                                 std::string doc) {
  NativeFunction f;
  f.name = std::move(name);
  f.doc = std::move(doc);
  f.role = NativeFunction::Function;
  f.args = std::move(args);
  f.fn = [fn](RewriterBase &, llvm::ArrayRef<Val> a) { return fn(a); };
  return add(std::move(f));
}

bool NativeRegistry::addOpRewrite(
    std::string name, std::function<LogicalResult(RewriterBase &, Operation *)> fn,
    std::string doc) {
  NativeFunction f;
  f.name = std::move(name);
  f.doc = std::move(doc);
  f.role = NativeFunction::Rewrite;
  f.args = {ArgKind::Op};
  f.fn = [fn](RewriterBase &rewriter, llvm::ArrayRef<Val> a) -> std::optional<Val> {
    if (failed(fn(rewriter, a[0].asOp())))
      return std::nullopt;
    return Val();
  };
  return add(std::move(f));
}
