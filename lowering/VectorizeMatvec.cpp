//===- VectorizeMatvec.cpp - --kiln-vectorize-matvec ----------------------===//
//
// A small matrix-vector product y[i] += sum_k W[i, k] * x[k] with W
// row-major (what a dense layer of batch 1 lowers to, patrick-kidger/equinox#928's MLP) as
// vector code that sums L rows at once. Left to LLVM, each row is L-wide
// multiply-adds followed by a horizontal sum of its accumulator: log2(L)
// shuffles and adds per row, all on the one shuffle port of x86 cores,
// which bound the 64x64 layer. Here a block of L rows keeps L accumulators
// and one shuffle-and-add tree reduces them together: each stage pairs the
// vectors, moves half of each one's partial sums beside half of its
// partner's and adds, so L vectors become one holding the L row sums in
// 2(L - 1) shuffles instead of L log2(L).
//
// Sound because the generic's add carries `reassoc` (kiln-lax-to-linalg
// sets it on contractions: their sum order is unspecified in JAX/XLA, as
// it is already once LLVM vectorizes the loop): the tree adds the same
// products into each row in another order.
//
// The other orientation, y[i] += sum_k x[k] * W[k, i] (x @ W with W
// row-major: flax's Dense of batch 1), strides through W's columns when
// left to the loop nest; here L consecutive outputs accumulate in one
// vector over k (VectorizeVecmat), in the loop's own order. Every other
// generic is left as it is.
//
//===----------------------------------------------------------------------===//
#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_VECTORIZEMATVEC
#include "lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// The operands of a matvec generic on memrefs: W [M, K] row-major, x [K],
/// y [M], its body y += W * x with a reassociable add.
struct Matvec {
  Value w, x, y;
  int64_t rows, depth;
  arith::FastMathFlagsAttr flags;
};

bool contiguousRows(MemRefType type) {
  if (!type.hasStaticShape())
    return false;
  auto [strides, offset] = type.getStridesAndOffset();
  return strides.back() == 1;
}

/// Matches a matvec generic; `transposed`: W is indexed [k, i] (a vector
/// times a row-major matrix, x @ W: what flax's Dense of batch 1 lowers to)
/// rather than [i, k].
std::optional<Matvec> matchMatvec(linalg::GenericOp op, bool transposed) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != 2 || op.getIteratorTypesArray() !=
                                   SmallVector<utils::IteratorType>{utils::IteratorType::parallel,
                                                                    utils::IteratorType::reduction})
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  AffineExpr i = getAffineDimExpr(0, ctx), k = getAffineDimExpr(1, ctx);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap wMap = transposed ? AffineMap::get(2, 0, {k, i}, ctx) : AffineMap::get(2, 0, {i, k}, ctx);
  if (maps[0] != wMap || maps[1] != AffineMap::get(2, 0, {k}, ctx) ||
      maps[2] != AffineMap::get(2, 0, {i}, ctx))
    return std::nullopt;
  // The body: %p = mulf %w, %x; %s = addf %acc, %p (either order); yield %s.
  Block &body = *op.getBody();
  if (body.getOperations().size() != 3)
    return std::nullopt;
  auto mul = dyn_cast<arith::MulFOp>(body.front());
  auto add = dyn_cast<arith::AddFOp>(*std::next(body.begin()));
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (!mul || !add || yield.getValues() != ValueRange{add.getResult()})
    return std::nullopt;
  Value wArg = body.getArgument(0), xArg = body.getArgument(1), acc = body.getArgument(2);
  bool mulOk = (mul.getLhs() == wArg && mul.getRhs() == xArg) ||
               (mul.getLhs() == xArg && mul.getRhs() == wArg);
  bool addOk = (add.getLhs() == acc && add.getRhs() == mul.getResult()) ||
               (add.getRhs() == acc && add.getLhs() == mul.getResult());
  // The transposed form keeps each row's order of additions (below): it
  // needs no reassociation.
  if (!mulOk || !addOk ||
      (!transposed && !arith::bitEnumContainsAll(add.getFastmath(), arith::FastMathFlags::reassoc)))
    return std::nullopt;
  Value w = op.getDpsInputs()[0], x = op.getDpsInputs()[1], y = op.getDpsInits()[0];
  auto wType = cast<MemRefType>(w.getType());
  if (!contiguousRows(wType) || !contiguousRows(cast<MemRefType>(x.getType())) ||
      !contiguousRows(cast<MemRefType>(y.getType())) ||
      !(wType.getElementType().isF32() || wType.getElementType().isF64()))
    return std::nullopt;
  if (transposed)
    return Matvec{w, x, y, wType.getDimSize(1), wType.getDimSize(0), add.getFastmathAttr()};
  return Matvec{w, x, y, wType.getDimSize(0), wType.getDimSize(1), add.getFastmathAttr()};
}

/// Sums each of `vectors` (L of them, L lanes each) into lane r of one
/// vector: stage by stage, partners' halves side by side, then added.
/// `owner[j]` tracks which row lane j's partial sum belongs to.
Value reduceRows(OpBuilder &b, Location loc, SmallVector<Value> vectors,
                 arith::FastMathFlagsAttr flags) {
  int64_t lanes = vectors.size();
  // owners[v][j]: the row whose partial sum vector v holds in lane j.
  SmallVector<SmallVector<int64_t>> owners;
  for (int64_t r = 0; r < lanes; ++r)
    owners.push_back(SmallVector<int64_t>(lanes, r));
  for (int64_t width = lanes; vectors.size() > 1; width /= 2) {
    // Within each segment of `width` lanes (one row's partial sums) the
    // first halves of both partners go to `low`, the second halves to
    // `high`: low + high then has segments of width / 2, one per row.
    int64_t half = width / 2;
    SmallVector<Value> next;
    SmallVector<SmallVector<int64_t>> nextOwners;
    for (size_t v = 0; v < vectors.size(); v += 2) {
      SmallVector<int64_t> low, high, owner;
      for (int64_t segment = 0; segment < lanes; segment += width) {
        for (int64_t partner = 0; partner < 2; ++partner) {
          int64_t base = partner * lanes + segment;
          for (int64_t j = 0; j < half; ++j) {
            low.push_back(base + j);
            high.push_back(base + half + j);
            owner.push_back(owners[v + partner][segment]);
          }
        }
      }
      Value lo = vector::ShuffleOp::create(b, loc, vectors[v], vectors[v + 1], low);
      Value hi = vector::ShuffleOp::create(b, loc, vectors[v], vectors[v + 1], high);
      next.push_back(arith::AddFOp::create(b, loc, lo, hi, flags));
      nextOwners.push_back(owner);
    }
    vectors = std::move(next);
    owners = std::move(nextOwners);
  }
  // Lane j holds row owners[0][j]'s sum: put row r in lane r.
  SmallVector<int64_t> order(lanes);
  for (int64_t j = 0; j < lanes; ++j)
    order[owners[0][j]] = j;
  if (llvm::equal(order, llvm::seq<int64_t>(0, lanes)))
    return vectors[0];
  return vector::ShuffleOp::create(b, loc, vectors[0], vectors[0], order);
}

struct VectorizeMatvec : OpRewritePattern<linalg::GenericOp> {
  VectorizeMatvec(MLIRContext *ctx, int64_t vectorBits, int64_t maxMacs)
      : OpRewritePattern(ctx), vectorBits(vectorBits), maxMacs(maxMacs) {}

  LogicalResult matchAndRewrite(linalg::GenericOp op, PatternRewriter &rewriter) const override {
    std::optional<Matvec> m = matchMatvec(op, /*transposed=*/false);
    if (!m)
      return rewriter.notifyMatchFailure(op, "not a small row-major matvec");
    Type elementType = cast<MemRefType>(m->w.getType()).getElementType();
    int64_t lanes = vectorBits / elementType.getIntOrFloatBitWidth();
    if (lanes < 2 || m->rows < lanes || m->depth % lanes != 0 || m->rows * m->depth > maxMacs)
      return rewriter.notifyMatchFailure(op, "shape does not fill whole vectors");
    Location loc = op.getLoc();
    auto vectorType = VectorType::get({lanes}, elementType);
    auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };
    Value zero = arith::ConstantOp::create(rewriter, loc, vectorType,
                                           DenseElementsAttr::get(vectorType, rewriter.getZeroAttr(elementType)));
    Value c0 = index(0), depth = index(m->depth), step = index(lanes);
    // Rows [first, first + count): `count` accumulators over the depth.
    auto accumulate = [&](OpBuilder &b, Value first, int64_t count) {
      auto loop = scf::ForOp::create(
          b, loc, c0, depth, step, SmallVector<Value>(count, zero),
          [&](OpBuilder &lb, Location ll, Value k, ValueRange accs) {
            Value xs = vector::LoadOp::create(lb, ll, vectorType, m->x, ValueRange{k});
            SmallVector<Value> next;
            for (int64_t r = 0; r < count; ++r) {
              Value row = arith::AddIOp::create(lb, ll, first, index(r));
              Value ws = vector::LoadOp::create(lb, ll, vectorType, m->w, ValueRange{row, k});
              Value product = arith::MulFOp::create(lb, ll, ws, xs, m->flags);
              next.push_back(arith::AddFOp::create(lb, ll, accs[r], product, m->flags));
            }
            scf::YieldOp::create(lb, ll, next);
          });
      return SmallVector<Value>(loop.getResults());
    };
    // Whole blocks of `lanes` rows: one tree, one vector load and store of y.
    int64_t blocks = m->rows / lanes;
    scf::ForOp::create(rewriter, loc, c0, index(blocks * lanes), step, ValueRange{},
                       [&](OpBuilder &b, Location l, Value first, ValueRange) {
                         Value sums = reduceRows(b, l, accumulate(b, first, lanes), m->flags);
                         Value y = vector::LoadOp::create(b, l, vectorType, m->y, first);
                         vector::StoreOp::create(
                             b, l, arith::AddFOp::create(b, l, y, sums, m->flags), m->y, first);
                         scf::YieldOp::create(b, l);
                       });
    // The rows after them, each summed on its own.
    if (int64_t rest = m->rows % lanes) {
      Value first = index(blocks * lanes);
      SmallVector<Value> accs = accumulate(rewriter, first, rest);
      for (int64_t r = 0; r < rest; ++r) {
        Value row = arith::AddIOp::create(rewriter, loc, first, index(r));
        Value y = memref::LoadOp::create(rewriter, loc, m->y, ValueRange{row});
        Value sum = vector::ReductionOp::create(rewriter, loc, vector::CombiningKind::ADD, accs[r],
                                                y, m->flags.getValue());
        memref::StoreOp::create(rewriter, loc, sum, m->y, ValueRange{row});
      }
    }
    rewriter.eraseOp(op);
    return success();
  }

  int64_t vectorBits, maxMacs;
};

/// y[i] += sum_k x[k] * W[k, i], W row-major: L consecutive outputs at a
/// time, each an accumulator vector that starts at y and adds x[k] * W[k,
/// i..i+L) for k = 0, 1, ...: contiguous loads of W's rows, no horizontal
/// sums. Exact: every y[i] adds the same products in the same order (k
/// increasing) as the generic's loop does.
struct VectorizeVecmat : OpRewritePattern<linalg::GenericOp> {
  VectorizeVecmat(MLIRContext *ctx, int64_t vectorBits, int64_t maxMacs)
      : OpRewritePattern(ctx), vectorBits(vectorBits), maxMacs(maxMacs) {}

  LogicalResult matchAndRewrite(linalg::GenericOp op, PatternRewriter &rewriter) const override {
    std::optional<Matvec> m = matchMatvec(op, /*transposed=*/true);
    if (!m)
      return rewriter.notifyMatchFailure(op, "not a small vector-matrix product");
    Type elementType = cast<MemRefType>(m->w.getType()).getElementType();
    int64_t lanes = vectorBits / elementType.getIntOrFloatBitWidth();
    if (lanes < 2 || m->rows % lanes != 0 || m->rows * m->depth > maxMacs)
      return rewriter.notifyMatchFailure(op, "shape does not fill whole vectors");
    Location loc = op.getLoc();
    auto vectorType = VectorType::get({lanes}, elementType);
    auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };
    Value c0 = index(0), c1 = index(1), depth = index(m->depth), step = index(lanes);
    scf::ForOp::create(
        rewriter, loc, c0, index(m->rows), step, ValueRange{},
        [&](OpBuilder &b, Location l, Value first, ValueRange) {
          Value init = vector::LoadOp::create(b, l, vectorType, m->y, first);
          auto loop = scf::ForOp::create(
              b, l, c0, depth, c1, ValueRange{init},
              [&](OpBuilder &lb, Location ll, Value k, ValueRange acc) {
                Value xk = memref::LoadOp::create(lb, ll, m->x, ValueRange{k});
                Value xs = vector::BroadcastOp::create(lb, ll, vectorType, xk);
                Value ws = vector::LoadOp::create(lb, ll, vectorType, m->w, ValueRange{k, first});
                Value product = arith::MulFOp::create(lb, ll, ws, xs, m->flags);
                scf::YieldOp::create(
                    lb, ll, ValueRange{arith::AddFOp::create(lb, ll, acc[0], product, m->flags)});
              });
          vector::StoreOp::create(b, l, loop.getResult(0), m->y, first);
          scf::YieldOp::create(b, l);
        });
    rewriter.eraseOp(op);
    return success();
  }

  int64_t vectorBits, maxMacs;
};

struct VectorizeMatvecPass : kiln::impl::VectorizeMatvecBase<VectorizeMatvecPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<VectorizeMatvec, VectorizeVecmat>(&getContext(), vectorBits, maxMacs);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
