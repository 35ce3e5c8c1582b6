//===- LaxToLinalgElementwise.cpp - elementwise lax -> linalg.generic -----===//
//
// Every elementwise lax op becomes one linalg.generic with identity indexing
// maps (all operands share the result's shape, which the lax verifiers
// guarantee) whose body is the scalar arith/math computation.
//
//===----------------------------------------------------------------------===//
#include "lowering/LaxToLinalg.h"

#include "dialect/LaxOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
namespace kiln::lowering {

bool isSupportedElement(Type t) { return isa<IntegerType, FloatType>(t); }

LogicalResult checkStaticTensors(Operation *op, ConversionPatternRewriter &rewriter) {
  for (Type t :
       llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt || !rt.hasStaticShape() || !isSupportedElement(rt.getElementType()))
      return rewriter.notifyMatchFailure(
          op, "needs static shapes and signless integer or float elements");
  }
  return success();
}

bool isUnsignedElement(Type t) {
  auto i = dyn_cast<IntegerType>(getElementTypeOrSelf(t));
  return i && i.isUnsigned();
}

Type signless(Type t) {
  if (auto rt = dyn_cast<RankedTensorType>(t))
    return rt.clone(signless(rt.getElementType()));
  if (auto i = dyn_cast<IntegerType>(t); i && !i.isSignless())
    return IntegerType::get(t.getContext(), i.getWidth());
  return t;
}

RankedTensorType signlessTensor(Type t) {
  return cast<RankedTensorType>(signless(t));
}

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  if (auto ft = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   Value value) {
  Value empty = emptyTensor(b, loc, type);
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

namespace {

bool isFloat(Type t) { return isa<FloatType>(t); }

/// Builds an elementwise linalg.generic over `inputs` (all of `resultType`'s
/// shape, or rank 0 for a scalar broadcast operand) yielding `body`'s value.
Value buildElementwise(
    OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange inputs,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  unsigned rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  SmallVector<AffineMap> maps;
  for (Value in : inputs) {
    // A rank-0 operand (select_n's scalar predicate) reads the same element
    // at every point.
    if (cast<RankedTensorType>(in.getType()).getRank() == 0 && rank != 0)
      maps.push_back(AffineMap::get(rank, 0, {}, ctx));
    else
      maps.push_back(identity);
  }
  maps.push_back(identity);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs,
      ValueRange{emptyTensor(b, loc, resultType)}, maps, iters,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value v = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, v);
      });
  return generic.getResult(0);
}

/// The scalar computation of one elementwise op; null when unsupported.
struct ScalarBuilder {
  OpBuilder &b;
  Location loc;
  /// The lax operands are unsigned integers (ui32): unsigned division,
  /// remainder, min/max, comparisons and extensions.
  bool uns = false;

  Value cst(Type t, double v) { return scalarConstant(b, loc, t, v); }

  Value binary(Operation *op, Value x, Value y) {
    Type t = x.getType();
    bool f = isFloat(t);
    if (isa<lax::AddOp>(op))
      return f ? (Value)arith::AddFOp::create(b, loc, x, y)
               : (Value)arith::AddIOp::create(b, loc, x, y);
    if (isa<lax::SubOp>(op))
      return f ? (Value)arith::SubFOp::create(b, loc, x, y)
               : (Value)arith::SubIOp::create(b, loc, x, y);
    if (isa<lax::MulOp>(op))
      return f ? (Value)arith::MulFOp::create(b, loc, x, y)
               : (Value)arith::MulIOp::create(b, loc, x, y);
    // JAX integer division truncates toward zero and rem takes the
    // dividend's sign (C semantics): divsi/remsi; float rem is fmod: remf.
    if (isa<lax::DivOp>(op))
      return f ? (Value)arith::DivFOp::create(b, loc, x, y)
               : (uns ? (Value)arith::DivUIOp::create(b, loc, x, y)
                      : (Value)arith::DivSIOp::create(b, loc, x, y));
    if (isa<lax::RemOp>(op))
      return f ? (Value)arith::RemFOp::create(b, loc, x, y)
               : (uns ? (Value)arith::RemUIOp::create(b, loc, x, y)
                      : (Value)arith::RemSIOp::create(b, loc, x, y));
    // lax.max/min propagate NaN: maximumf/minimumf, not maxnumf.
    if (isa<lax::MaxOp>(op))
      return f ? (Value)arith::MaximumFOp::create(b, loc, x, y)
               : (uns ? (Value)arith::MaxUIOp::create(b, loc, x, y)
                      : (Value)arith::MaxSIOp::create(b, loc, x, y));
    if (isa<lax::MinOp>(op))
      return f ? (Value)arith::MinimumFOp::create(b, loc, x, y)
               : (uns ? (Value)arith::MinUIOp::create(b, loc, x, y)
                      : (Value)arith::MinSIOp::create(b, loc, x, y));
    if (isa<lax::PowOp>(op))
      return math::PowFOp::create(b, loc, x, y);
    if (isa<lax::AndOp>(op))
      return arith::AndIOp::create(b, loc, x, y);
    if (isa<lax::OrOp>(op))
      return arith::OrIOp::create(b, loc, x, y);
    return {};
  }

  Value unary(Operation *op, Value x) {
    Type t = x.getType();
    bool f = isFloat(t);
    if (isa<lax::NegOp>(op))
      return f ? (Value)arith::NegFOp::create(b, loc, x)
               : (Value)arith::SubIOp::create(b, loc, cst(t, 0), x);
    if (isa<lax::AbsOp>(op) && uns)
      return x;
    if (isa<lax::SignOp>(op) && uns) // 1 where x != 0, else 0.
      return arith::ExtUIOp::create(
          b, loc, t,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                cst(t, 0)));
    if (isa<lax::AbsOp>(op))
      return f ? (Value)math::AbsFOp::create(b, loc, x)
               : (Value)math::AbsIOp::create(b, loc, x);
    if (isa<lax::SignOp>(op)) {
      // sign(x) = x > 0 ? 1 : (x < 0 ? -1 : x); returning x itself for the
      // last case keeps +-0 and NaN as JAX does.
      Value zero = cst(t, 0);
      Value gt = f ? (Value)arith::CmpFOp::create(
                         b, loc, arith::CmpFPredicate::OGT, x, zero)
                   : (Value)arith::CmpIOp::create(
                         b, loc, arith::CmpIPredicate::sgt, x, zero);
      Value lt = f ? (Value)arith::CmpFOp::create(
                         b, loc, arith::CmpFPredicate::OLT, x, zero)
                   : (Value)arith::CmpIOp::create(
                         b, loc, arith::CmpIPredicate::slt, x, zero);
      Value neg = arith::SelectOp::create(b, loc, lt, cst(t, -1), x);
      return arith::SelectOp::create(b, loc, gt, cst(t, 1), neg);
    }
    if (isa<lax::ExpOp>(op))
      return math::ExpOp::create(b, loc, x);
    if (isa<lax::LogOp>(op))
      return math::LogOp::create(b, loc, x);
    if (isa<lax::Log1pOp>(op))
      return math::Log1pOp::create(b, loc, x);
    if (isa<lax::SinOp>(op))
      return math::SinOp::create(b, loc, x);
    if (isa<lax::CosOp>(op))
      return math::CosOp::create(b, loc, x);
    if (isa<lax::TanhOp>(op))
      return math::TanhOp::create(b, loc, x);
    if (isa<lax::SqrtOp>(op))
      return math::SqrtOp::create(b, loc, x);
    if (isa<lax::RsqrtOp>(op))
      return math::RsqrtOp::create(b, loc, x);
    if (isa<lax::LogisticOp>(op)) {
      // logistic(x) = 1 / (1 + exp(-x)).
      Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
      Value one = cst(t, 1);
      return arith::DivFOp::create(b, loc, one,
                                   arith::AddFOp::create(b, loc, one, e));
    }
    if (isa<lax::SquareOp>(op))
      return f ? (Value)arith::MulFOp::create(b, loc, x, x)
               : (Value)arith::MulIOp::create(b, loc, x, x);
    if (isa<lax::NotOp>(op)) // Bitwise not (logical for i1): x xor all-ones.
      return arith::XOrIOp::create(
          b, loc, x,
          arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, -1)));
    return {};
  }

  /// x**y by repeated squaring; a negative y is 1 / x**|y| (floats only).
  Value integerPow(Value x, int64_t y) {
    Type t = x.getType();
    bool f = isFloat(t);
    auto mul = [&](Value a, Value c) -> Value {
      return f ? (Value)arith::MulFOp::create(b, loc, a, c)
               : (Value)arith::MulIOp::create(b, loc, a, c);
    };
    uint64_t n = y < 0 ? -static_cast<uint64_t>(y) : y;
    Value acc, base = x;
    while (n) {
      if (n & 1)
        acc = acc ? mul(acc, base) : base;
      n >>= 1;
      if (n)
        base = mul(base, base);
    }
    if (!acc)
      acc = cst(t, 1);
    if (y < 0)
      acc = arith::DivFOp::create(b, loc, cst(t, 1), acc);
    return acc;
  }

  Value compare(lax::ComparisonDirection dir, Value x, Value y) {
    Type t = x.getType();
    using D = lax::ComparisonDirection;
    if (isFloat(t)) {
      // Ordered predicates except NE, which is true on NaN as in IEEE/JAX.
      arith::CmpFPredicate p;
      switch (dir) {
      case D::EQ:
        p = arith::CmpFPredicate::OEQ;
        break;
      case D::NE:
        p = arith::CmpFPredicate::UNE;
        break;
      case D::LT:
        p = arith::CmpFPredicate::OLT;
        break;
      case D::LE:
        p = arith::CmpFPredicate::OLE;
        break;
      case D::GT:
        p = arith::CmpFPredicate::OGT;
        break;
      case D::GE:
        p = arith::CmpFPredicate::OGE;
        break;
      }
      return arith::CmpFOp::create(b, loc, p, x, y);
    }
    // Booleans order false < true: unsigned predicates for i1 and ui32.
    bool u = uns || t.isInteger(1);
    arith::CmpIPredicate p;
    switch (dir) {
    case D::EQ:
      p = arith::CmpIPredicate::eq;
      break;
    case D::NE:
      p = arith::CmpIPredicate::ne;
      break;
    case D::LT:
      p = u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
      break;
    case D::LE:
      p = u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
      break;
    case D::GT:
      p = u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
      break;
    case D::GE:
      p = u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
      break;
    }
    return arith::CmpIOp::create(b, loc, p, x, y);
  }

  /// `x` (unsigned when `uns`) to `to` (unsigned when `toUns`).
  Value convert(Value x, Type to, bool toUns) {
    Type from = x.getType();
    if (from == to)
      return x;
    auto fi = dyn_cast<IntegerType>(from), ti = dyn_cast<IntegerType>(to);
    auto ff = dyn_cast<FloatType>(from), tf = dyn_cast<FloatType>(to);
    // To bool: x != 0 (NaN is true, as in numpy/JAX).
    if (ti && ti.getWidth() == 1) {
      Value zero = cst(from, 0);
      if (ff)
        return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                     zero);
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
    }
    if (fi && ti) {
      if (fi.getWidth() == 1 || (uns && fi.getWidth() < ti.getWidth()))
        return arith::ExtUIOp::create(b, loc, to, x); // bools are 0/1
      if (fi.getWidth() < ti.getWidth())
        return arith::ExtSIOp::create(b, loc, to, x);
      return arith::TruncIOp::create(b, loc, to, x);
    }
    if (fi && tf)
      return fi.getWidth() == 1 || uns
                 ? (Value)arith::UIToFPOp::create(b, loc, to, x)
                 : (Value)arith::SIToFPOp::create(b, loc, to, x);
    if (ff && ti)
      return toUns ? (Value)arith::FPToUIOp::create(b, loc, to, x)
                   : (Value)arith::FPToSIOp::create(b, loc, to, x);
    if (ff && tf) {
      if (ff.getWidth() < tf.getWidth())
        return arith::ExtFOp::create(b, loc, to, x);
      if (ff.getWidth() > tf.getWidth())
        return arith::TruncFOp::create(b, loc, to, x);
      // f16 <-> bf16: through f32.
      Value w = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
      return arith::TruncFOp::create(b, loc, to, w);
    }
    return {};
  }
};

/// Unary and binary elementwise ops.
template <typename OpTy> struct ElementwisePattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
    Operation *raw = op.getOperation();
    auto type = signlessTensor(op.getType());
    bool failedScalar = false;
    Value r = buildElementwise(
        rewriter, op.getLoc(), type, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          ScalarBuilder sb{b, loc,
                           isUnsignedElement(raw->getOperand(0).getType())};
          Value v = args.size() == 1 ? sb.unary(raw, args[0])
                                     : sb.binary(raw, args[0], args[1]);
          if (!v) {
            failedScalar = true;
            v = args[0];
          }
          return v;
        });
    if (failedScalar) {
      rewriter.eraseOp(r.getDefiningOp());
      return rewriter.notifyMatchFailure(op, "no scalar lowering");
    }
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct IntegerPowPattern : OpConversionPattern<lax::IntegerPowOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(lax::IntegerPowOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
    auto type = signlessTensor(op.getType());
    if (op.getY() < 0 && !isFloat(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "negative power of an integer");
    Value r = buildElementwise(
        rewriter, op.getLoc(), type, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return ScalarBuilder{b, loc}.integerPow(args[0], op.getY());
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct ComparePattern : OpConversionPattern<lax::CompareOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(lax::CompareOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
    Value r = buildElementwise(
        rewriter, op.getLoc(), signlessTensor(op.getType()),
        adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return ScalarBuilder{b, loc, isUnsignedElement(op.getLhs().getType())}
              .compare(op.getDirection(), args[0], args[1]);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct SelectNPattern : OpConversionPattern<lax::SelectNOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(lax::SelectNOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
    auto whichType = signlessTensor(op.getWhich().getType());
    auto type = signlessTensor(op.getType());
    if (whichType.getRank() != 0 && whichType.getShape() != type.getShape())
      return rewriter.notifyMatchFailure(
          op, "which must be scalar or match the cases");
    Value r = buildElementwise(
        rewriter, op.getLoc(), type, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value which = args[0];
          ValueRange cases = args.drop_front();
          if (which.getType().isInteger(1))
            return arith::SelectOp::create(
                b, loc, which, cases[cases.size() > 1 ? 1 : 0], cases[0]);
          // Integer which: cases[which]; out-of-range picks the last case
          // (JAX leaves it unspecified).
          Value acc = cases.back();
          for (int64_t i = cases.size() - 2; i >= 0; --i) {
            Value idx = arith::ConstantOp::create(
                b, loc, b.getIntegerAttr(which.getType(), i));
            Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                             which, idx);
            acc = arith::SelectOp::create(b, loc, eq, cases[i], acc);
          }
          return acc;
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct ConvertPattern : OpConversionPattern<lax::ConvertElementTypeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(lax::ConvertElementTypeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
    auto type = signlessTensor(op.getType());
    if (signless(op.getOperand().getType()) == type) {
      rewriter.replaceOp(op, adaptor.getOperand());
      return success();
    }
    Value r = buildElementwise(
        rewriter, op.getLoc(), type, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return ScalarBuilder{b, loc,
                               isUnsignedElement(op.getOperand().getType())}
              .convert(args[0], type.getElementType(),
                       isUnsignedElement(op.getType()));
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void populateElementwisePatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns
      .add<ElementwisePattern<lax::AddOp>, ElementwisePattern<lax::SubOp>,
           ElementwisePattern<lax::MulOp>, ElementwisePattern<lax::DivOp>,
           ElementwisePattern<lax::RemOp>, ElementwisePattern<lax::MaxOp>,
           ElementwisePattern<lax::MinOp>, ElementwisePattern<lax::PowOp>,
           ElementwisePattern<lax::AndOp>, ElementwisePattern<lax::OrOp>,
           ElementwisePattern<lax::NegOp>, ElementwisePattern<lax::AbsOp>,
           ElementwisePattern<lax::SignOp>, ElementwisePattern<lax::ExpOp>,
           ElementwisePattern<lax::LogOp>, ElementwisePattern<lax::Log1pOp>,
           ElementwisePattern<lax::SinOp>, ElementwisePattern<lax::CosOp>,
           ElementwisePattern<lax::TanhOp>, ElementwisePattern<lax::LogisticOp>,
           ElementwisePattern<lax::SqrtOp>, ElementwisePattern<lax::RsqrtOp>,
           ElementwisePattern<lax::SquareOp>, ElementwisePattern<lax::NotOp>,
           IntegerPowPattern, ComparePattern, SelectNPattern, ConvertPattern>(
          ctx);
}

} // namespace kiln::lowering
