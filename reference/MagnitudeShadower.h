//===- MagnitudeShadower.h - the magnitude version's builder ---*- C++ -*-===//
//
// The Shadower of Magnitude.cpp (the rules of each op, see there) and
// MagnitudeRegions.cpp (region ops, calls, the entry function): private to
// the reference library.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_MAGNITUDESHADOWER_H
#define KILN_REFERENCE_MAGNITUDESHADOWER_H

#include "dialect/LaxControlFlowOps.h"
#include "dialect/LaxOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"

#include <cmath>
#include <optional>

namespace kiln::interp::magnitude {

// The names this header uses, declared for its namespace only.
using mlir::ArrayRef;
using mlir::Attribute;
using mlir::Block;
using mlir::BlockArgument;
using mlir::cast;
using mlir::DenseMap;
using mlir::DenseSet;
using mlir::dyn_cast;
using mlir::FailureOr;
using mlir::FloatType;
using mlir::isa;
using mlir::Location;
using mlir::ModuleOp;
using mlir::SymbolTable;
using mlir::UnitAttr;
using mlir::ValueRange;
namespace func = mlir::func;
using mlir::OpBuilder;
using mlir::Operation;
using mlir::RankedTensorType;
using mlir::SmallVector;
using mlir::Type;
using mlir::Value;


inline bool isFloatValue(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && isa<FloatType>(t.getElementType());
}

/// Whether every value of float type `from` is a value of `to` (f16 -> f32,
/// bf16 -> f64): converting cannot round.
inline bool isWideningFloat(Type from, Type to) {
  return llvm::APFloat::isRepresentableBy(cast<FloatType>(from).getFloatSemantics(),
                                          cast<FloatType>(to).getFloatSemantics());
}

/// The attribute on every op the Shadower builds (the shadow computations,
/// and the region ops it rebuilds to carry them): magnitudes() runs them in
/// double (InterpreterOptions::unroundedAttr), the original ops as the
/// reference does.
constexpr llvm::StringLiteral kShadowAttr = "kiln.magnitude_shadow";

/// Marks each op a builder inserts (clones included) with kShadowAttr.
struct ShadowMarker : OpBuilder::Listener {
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    op->setAttr(kShadowAttr, UnitAttr::get(op->getContext()));
  }
};

/// Adds the shadow computations to the functions of a module (a copy).
class Shadower {
public:
  explicit Shadower(ModuleOp module) : symbols(module), b(module.getContext()) {
    b.setListener(&marker);
  }

  /// Turns @`entry` into a new public function that takes the same inputs
  /// and returns S of each float result (a non-float result as it is).
  FailureOr<func::FuncOp> magnitudeFunction(func::FuncOp entry);

private:
  /// A copy of `f`, named apart, taking (args, S(float args)) and returning
  /// (results, S(float results)); null when `f` cannot be shadowed.
  func::FuncOp shadowedCallee(func::FuncOp f);
  /// Adds the shadows of the ops of `block` (terminator excluded).
  void shadowBlock(Block &block) { shadowOps(opsOf(block)); }
  static SmallVector<Operation *> opsOf(Block &block) {
    SmallVector<Operation *> ops;
    for (Operation &op : block.without_terminator())
      ops.push_back(&op);
    return ops;
  }
  void shadowOps(ArrayRef<Operation *> ops) {
    for (Operation *op : ops)
      shadowOp(op);
  }
  void shadowOp(Operation *op);
  void shadowScan(lax::ScanOp scan);
  void shadowWhile(lax::WhileOp loop);
  void shadowCond(lax::CondOp cond);
  void shadowCall(func::CallOp call);
  /// Appends to `block` one argument per float value of `values` (its
  /// shadow) and records it as the shadow of the matching block argument
  /// `args[i]`; inserts them at `at` when given.
  void addShadowArguments(Block &block, ArrayRef<Value> values, ArrayRef<BlockArgument> args,
                          std::optional<unsigned> at = std::nullopt);
  /// `values`, then the shadows of the float ones.
  SmallVector<Value> withShadows(ValueRange values);
  /// Sets the operands of `terminator` to its own, then their shadows.
  void yieldShadows(Operation *terminator);
  /// The shadow of `v`: one recorded, or NaN (unknown) after its definition.
  Value shadowOf(Value v);
  /// NaN for every float result of `op`.
  void unknown(Operation *op);

  // Builders at the current insertion point.
  Value abs(Value v) { return lax::AbsOp::create(b, loc, v.getType(), v); }
  Value add(Value x, Value y) { return lax::AddOp::create(b, loc, x.getType(), x, y); }
  Value mul(Value x, Value y) { return lax::MulOp::create(b, loc, x.getType(), x, y); }
  Value div(Value x, Value y) { return lax::DivOp::create(b, loc, x.getType(), x, y); }
  Value max(Value x, Value y) { return lax::MaxOp::create(b, loc, x.getType(), x, y); }
  Value sub(Value x, Value y) { return lax::SubOp::create(b, loc, x.getType(), x, y); }
  Value square(Value x) { return mul(x, x); }
  /// x `direction` y elementwise (i1).
  Value compare(lax::ComparisonDirection direction, Value x, Value y) {
    auto type = cast<RankedTensorType>(x.getType());
    return lax::CompareOp::create(b, loc, RankedTensorType::get(type.getShape(), b.getI1Type()),
                                  lax::ComparisonDirectionAttr::get(b.getContext(), direction), x,
                                  y);
  }
  Value equal(Value x, Value y) { return compare(lax::ComparisonDirection::EQ, x, y); }
  Value atLeast(Value x, Value y) { return compare(lax::ComparisonDirection::GE, x, y); }
  /// `ifTrue` where `which`, else `ifFalse`.
  Value select(Value which, Value ifFalse, Value ifTrue) {
    return lax::SelectNOp::create(b, loc, ifFalse.getType(), which, ValueRange{ifFalse, ifTrue});
  }
  Value splat(Type type, double value) {
    return lax::ConstantOp::create(b, loc, cast<RankedTensorType>(type), value);
  }
  /// S of a value without rounding error (an input, a constant): |v|, but 0
  /// where v is infinite. An infinity has no rounding error and the model
  /// compares it exactly; as |v| it would make infinite (or, times a zero
  /// derivative, NaN) the S of everything it reaches, even exp(-inf) = 0 or
  /// max(-inf, x).
  Value exact(Value v) {
    exactValues.insert(v);
    Value a = abs(v);
    return select(equal(a, splat(v.getType(), INFINITY)), a, splat(v.getType(), 0));
  }
  /// Whether S(v) is exact(v): v has no rounding error.
  bool isExact(Value v) const { return exactValues.contains(v); }
  /// S(v) - |v| (at least 0): the part of S that is error carried in.
  Value excess(Value v) { return max(sub(shadowOf(v), abs(v)), splat(v.getType(), 0)); }
  /// The first-order rule S = |derivative| * S(x) + |r|.
  Value smooth(Value derivative, Value sx, Value r) {
    return add(mul(abs(derivative), sx), abs(r));
  }

  /// `shadow`, but +inf (unbounded) where the operand's error at the
  /// default k, k eps S(x), reaches `distance`, the operand's distance to
  /// the edge of the function's domain: there the function may be NaN on
  /// one side and a number on the other, or anything near a pole.
  Value unboundedNear(Value sx, Value distance, Value shadow);

  SymbolTable symbols;
  ShadowMarker marker;
  OpBuilder b;
  Location loc = b.getUnknownLoc();
  DenseMap<Value, Value> shadows;
  /// Original values whose shadow is exact(v).
  DenseSet<Value> exactValues;
  DenseMap<Operation *, func::FuncOp> shadowedCallees;
};

} // namespace kiln::interp::magnitude

#endif // KILN_REFERENCE_MAGNITUDESHADOWER_H
