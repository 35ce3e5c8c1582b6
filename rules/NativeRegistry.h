//===- NativeRegistry.h - C++ functions callable from rules -----*- C++ -*-===//
//
// Every name a rule may call - `rank($x)`, `permute_dims($lc, $p)`,
// `sink_elementwise_into_scan(root)` - is a NativeFunction in one registry,
// with declared argument kinds so that calls are checked when a rule file
// is loaded. Kiln's built-ins are registered exactly as plugins register
// theirs.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RULES_NATIVEREGISTRY_H
#define KILN_RULES_NATIVEREGISTRY_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <string>
#include <vector>

namespace mlir {
class RewriterBase;
} // namespace mlir

namespace kiln::rules {

/// A value computed while a rule matches or rewrites. Attributes convert to
/// Int/IntList/Float/Bool on demand (IntegerAttr, DenseI64ArrayAttr, ArrayAttr
/// of integers, integer elements attrs), so `$axes == [0, 1]` just works.
struct Val {
  enum Kind { None, Bool, Int, Float, IntList, Str, Attr, Type, Value, Op, ValueList };
  Kind kind = None;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::vector<int64_t> list;
  std::string str;
  mlir::Attribute attr;
  mlir::Type type;
  mlir::Value value;
  mlir::Operation *op = nullptr;
  std::vector<mlir::Value> values;

  static Val ofBool(bool v) { Val r; r.kind = Bool; r.b = v; return r; }
  static Val ofInt(int64_t v) { Val r; r.kind = Int; r.i = v; return r; }
  static Val ofFloat(double v) { Val r; r.kind = Float; r.f = v; return r; }
  static Val ofList(std::vector<int64_t> v) { Val r; r.kind = IntList; r.list = std::move(v); return r; }
  static Val ofStr(std::string v) { Val r; r.kind = Str; r.str = std::move(v); return r; }
  static Val ofAttr(mlir::Attribute v) { Val r; r.kind = Attr; r.attr = v; return r; }
  static Val ofType(mlir::Type v) { Val r; r.kind = Type; r.type = v; return r; }
  static Val ofValue(mlir::Value v) { Val r; r.kind = Value; r.value = v; return r; }
  static Val ofOp(mlir::Operation *v) { Val r; r.kind = Op; r.op = v; return r; }

  /// Conversions; std::nullopt when the value has no such reading.
  std::optional<int64_t> asInt() const;
  std::optional<std::vector<int64_t>> asList() const;
  /// Whether asList() has a value (without building the list).
  bool isList() const;
  std::optional<bool> asBool() const;
  std::optional<double> asFloat() const;
  /// The type of a Value/Op (first result)/TypeAttr/Type.
  mlir::Type asType() const;
  mlir::Value asValue() const;
  mlir::Operation *asOp() const;
  /// An attribute for an op under construction: lists become
  /// DenseI64ArrayAttr, ints i64 IntegerAttr, and so on.
  mlir::Attribute toAttribute(mlir::MLIRContext *ctx) const;
  std::string str_() const;
};

/// What an argument must be; checked where the rule is compiled (when the
/// kind of the argument is known there) and again at run time.
enum class ArgKind { Any, Value, Attribute, Type, Op, Int, IntList, Bool };

struct NativeFunction {
  enum Role {
    Constraint, ///< returns a Bool; used in `where`
    Function,   ///< returns a value; used in `where` and attribute values
    Rewrite,    ///< mutates the IR through the rewriter; `rewrite: fn(...)`
  };
  std::string name, doc;
  Role role = Function;
  std::vector<ArgKind> args;
  bool variadic = false; ///< the last kind repeats
  /// Returns std::nullopt to fail (a constraint not holding, a rewrite not
  /// applicable: it must then leave the IR untouched).
  std::function<std::optional<Val>(mlir::RewriterBase &, llvm::ArrayRef<Val>)> fn;
};

class NativeRegistry {
public:
  /// A registry that also finds (and never shadows) the functions of
  /// `parent`: a plugin's own registry over the built-ins.
  explicit NativeRegistry(const NativeRegistry *parent = nullptr) : parent(parent) {}

  /// The process-wide registry (built-ins are added on first use).
  static NativeRegistry &global();

  /// Adds `f`; false if the name is taken (here or in the parent).
  bool add(NativeFunction f);
  const NativeFunction *lookup(llvm::StringRef name) const;
  std::vector<const NativeFunction *> all() const;

  /// Conveniences for the common shapes.
  bool addConstraint(std::string name, std::vector<ArgKind> args,
                     std::function<bool(llvm::ArrayRef<Val>)> fn, std::string doc = "");
  bool addFunction(std::string name, std::vector<ArgKind> args,
                   std::function<std::optional<Val>(llvm::ArrayRef<Val>)> fn,
                   std::string doc = "");
  /// A rewrite on the matched op, like the ScanPushUp building blocks.
  bool addOpRewrite(std::string name,
                    std::function<mlir::LogicalResult(mlir::RewriterBase &, mlir::Operation *)> fn,
                    std::string doc = "");

private:
  const NativeRegistry *parent;
  llvm::StringMap<NativeFunction> functions;
};

/// The native functions one rule set sees: Kiln's built-ins (and any added
/// to NativeRegistry::global()), then those of the plugins it was given, in
/// order. A plugin's functions are visible only to the rule sets that load
/// it, so a rule file behaves the same whatever other plugins the process
/// loaded before.
class NativeScope {
public:
  void add(const NativeRegistry &plugin) { plugins.push_back(&plugin); }
  const NativeFunction *lookup(llvm::StringRef name) const;

private:
  std::vector<const NativeRegistry *> plugins;
};

/// Adds Kiln's built-in functions (permutations, shapes, the scan push-up
/// rewrites) to `registry`.
void registerBuiltinNatives(NativeRegistry &registry);
/// Adds the role functions of region rules (scan, while and cond roles:
/// rules/RegionMatch.cpp); part of registerBuiltinNatives.
void registerScanNatives(NativeRegistry &registry);

const char *argKindName(ArgKind k);

} // namespace kiln::rules

#endif // KILN_RULES_NATIVEREGISTRY_H
