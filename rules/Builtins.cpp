//===- Builtins.cpp - Kiln's built-in native functions --------------------===//
//
// Registered through the same NativeRegistry API as a plugin's functions.
// Permutation conventions follow lax.transpose: result dimension i is
// operand dimension p[i].
//
//===----------------------------------------------------------------------===//
#include "rules/NativeRegistry.h"

#include "transforms/ScanPushUp.h"
#include "dialect/LaxControlFlowOps.h"
#include "dialect/LaxOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace kiln::rules;
using namespace mlir;
using A = ArgKind;

namespace {
std::vector<int64_t> L(const Val &v) { return v.asList().value_or(std::vector<int64_t>{}); }

bool isPermutation(const std::vector<int64_t> &p) {
  std::vector<bool> seen(p.size());
  for (int64_t d : p) {
    if (d < 0 || d >= (int64_t)p.size() || seen[d])
      return false;
    seen[d] = true;
  }
  return true;
}

ShapedType shaped(const Val &v) { return dyn_cast_or_null<ShapedType>(v.asType()); }

/// The splat value of a constant operand, if it is one.
std::optional<double> splatValue(Value v) {
  Attribute attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  auto splat = dyn_cast<SplatElementsAttr>(attr);
  if (auto dense = dyn_cast<DenseElementsAttr>(attr); dense && dense.isSplat()) {
    Type et = dense.getElementType();
    if (isa<FloatType>(et))
      return dense.getSplatValue<APFloat>().convertToDouble();
    if (et.isInteger(1))
      return dense.getSplatValue<bool>() ? 1.0 : 0.0;
    if (isa<IntegerType>(et))
      return double(dense.getSplatValue<APInt>().getSExtValue());
  }
  (void)splat;
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return double(i.getValue().getSExtValue());
  return std::nullopt;
}
/// The private function with a body that `op` (a func.call) calls, or null.
func::FuncOp privateCallee(Operation *op) {
  auto call = dyn_cast_or_null<func::CallOp>(op);
  if (!call)
    return {};
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
  if (!callee || !callee.isPrivate() || callee.isExternal() || !callee.getBody().hasOneBlock())
    return {};
  return callee;
}

/// A call of a private function replaced by a copy of its body (exact: the
/// same ops on the same values). The function stays for its other callers.
LogicalResult inlineCall(RewriterBase &rw, Operation *op) {
  func::FuncOp callee = privateCallee(op);
  if (!callee)
    return failure();
  Block &body = callee.getBody().front();
  IRMapping map;
  map.map(body.getArguments(), op->getOperands());
  rw.setInsertionPoint(op);
  for (Operation &inner : body.without_terminator())
    rw.clone(inner, map);
  SmallVector<Value> results;
  for (Value v : body.getTerminator()->getOperands())
    results.push_back(map.lookupOrDefault(v));
  rw.replaceOp(op, results);
  return success();
}

/// A lax.cond whose index is an integer constant replaced by the branch it
/// selects (what the branch computes is what the cond returns).
LogicalResult inlineSelectedBranch(RewriterBase &rw, Operation *op) {
  auto cond = dyn_cast_or_null<kiln::lax::CondOp>(op);
  if (!cond)
    return failure();
  auto index = splatValue(cond.getIndex());
  if (!index || !isa<IntegerType>(getElementTypeOrSelf(cond.getIndex().getType())))
    return failure();
  // An index out of range runs the last branch, as in jax.jit.
  Block &block = cond.getBranchBlock(cond.selectBranch(int64_t(*index)));
  Operation *yield = block.getTerminator();
  rw.inlineBlockBefore(&block, op, cond.getBranchOperands());
  SmallVector<Value> results(yield->getOperands());
  rw.replaceOp(op, results);
  rw.eraseOp(yield);
  return success();
}
/// A splat constant of `type` with the splat element of constant `like`.
Value splatLike(RewriterBase &rw, Location loc, Value like, RankedTensorType type) {
  Attribute attr;
  if (!matchPattern(like, m_Constant(&attr)))
    return {};
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return {};
  return kiln::lax::ConstantOp::create(
      rw, loc, DenseElementsAttr::get(type, dense.getSplatValue<Attribute>()));
}

bool sameSplat(Value a, Value b) {
  Attribute x, y;
  if (!matchPattern(a, m_Constant(&x)) || !matchPattern(b, m_Constant(&y)))
    return false;
  auto dx = dyn_cast<DenseElementsAttr>(x), dy = dyn_cast<DenseElementsAttr>(y);
  return dx && dy && dx.isSplat() && dy.isSplat() &&
         dx.getElementType() == dy.getElementType() &&
         dx.getSplatValue<Attribute>() == dy.getSplatValue<Attribute>();
}

/// `type` with the shape of `shape` (element type kept).
RankedTensorType withShape(Type type, RankedTensorType shape) {
  return RankedTensorType::get(shape.getShape(), getElementTypeOrSelf(type));
}

/// concatenate(E(a1, b1), E(a2, b2), ...) along d, with E one elementwise op
/// (the same name and attributes each time, each result read once), is
/// E(concatenate(a1, a2, ...), concatenate(b1, b2, ...)); an operand that is
/// the same splat constant everywhere stays one splat. Exact: every element
/// is computed by the same op from the same inputs.
LogicalResult concatOfElementwise(RewriterBase &rw, Operation *op) {
  auto concat = dyn_cast_or_null<kiln::lax::ConcatenateOp>(op);
  if (!concat || concat.getInputs().size() < 2)
    return failure();
  auto resultType = cast<RankedTensorType>(concat.getType());
  SmallVector<Operation *> parts;
  for (Value in : concat.getInputs()) {
    Operation *def = in.getDefiningOp();
    if (!def || def->getNumResults() != 1 || !def->hasTrait<OpTrait::Elementwise>() ||
        def->getNumRegions() != 0 || !in.hasOneUse())
      return failure();
    if (!parts.empty() && (def->getName() != parts[0]->getName() ||
                           def->getAttrDictionary() != parts[0]->getAttrDictionary() ||
                           def->getNumOperands() != parts[0]->getNumOperands()))
      return failure();
    parts.push_back(def);
  }
  if (llvm::is_contained(ArrayRef(parts).drop_front(), parts[0]))
    return failure();
  // Elementwise: every operand has the result's shape (a scalar operand
  // would be broadcast; not handled).
  for (Operation *part : parts)
    for (Value v : part->getOperands())
      if (cast<ShapedType>(v.getType()).getShape() !=
          cast<ShapedType>(part->getResult(0).getType()).getShape())
        return failure();
  Location loc = concat.getLoc();
  rw.setInsertionPoint(concat);
  IRMapping map;
  for (unsigned j = 0; j < parts[0]->getNumOperands(); ++j) {
    Value first = parts[0]->getOperand(j);
    bool splat = llvm::all_of(parts, [&](Operation *p) { return sameSplat(first, p->getOperand(j)); });
    Value joined;
    if (splat) {
      joined = splatLike(rw, loc, first, withShape(first.getType(), resultType));
    } else {
      SmallVector<Value> pieces;
      for (Operation *p : parts)
        pieces.push_back(p->getOperand(j));
      joined = kiln::lax::ConcatenateOp::create(rw, loc, withShape(first.getType(), resultType),
                                                pieces, concat.getDimension());
    }
    if (!joined)
      return failure();
    map.map(first, joined);
  }
  Operation *whole = rw.clone(*parts[0], map);
  whole->getResult(0).setType(resultType);
  rw.replaceOp(concat, whole->getResults());
  return success();
}

/// concatenate(slice(x, ...), slice(x, ...), ...) along d, of adjacent unit
/// stride slices of one x that are whole along every other dimension, is one
/// slice of x (x itself when they cover it). Exact: the same elements.
LogicalResult concatOfSlices(RewriterBase &rw, Operation *op) {
  auto concat = dyn_cast_or_null<kiln::lax::ConcatenateOp>(op);
  if (!concat || concat.getInputs().size() < 2)
    return failure();
  int64_t d = concat.getDimension();
  Value source;
  int64_t start = -1, next = -1;
  for (Value in : concat.getInputs()) {
    auto slice = in.getDefiningOp<kiln::lax::SliceOp>();
    if (!slice)
      return failure();
    if (!source)
      source = slice.getOperand();
    if (slice.getOperand() != source)
      return failure();
    auto shape = cast<RankedTensorType>(source.getType()).getShape();
    ArrayRef<int64_t> lo = slice.getStartIndices(), hi = slice.getLimitIndices(),
                      st = slice.getStrides();
    for (int64_t k = 0; k < (int64_t)shape.size(); ++k) {
      if (!st.empty() && st[k] != 1)
        return failure();
      if (k != d && (lo[k] != 0 || hi[k] != shape[k]))
        return failure();
    }
    if (start < 0)
      start = lo[d];
    else if (lo[d] != next)
      return failure();
    next = hi[d];
  }
  auto sourceType = cast<RankedTensorType>(source.getType());
  if (start == 0 && next == sourceType.getDimSize(d) && sourceType == concat.getType()) {
    rw.replaceOp(concat, source);
    return success();
  }
  SmallVector<int64_t> lo(sourceType.getRank(), 0), hi(sourceType.getShape()),
      st(sourceType.getRank(), 1);
  lo[d] = start;
  hi[d] = next;
  rw.setInsertionPoint(concat);
  Value whole = kiln::lax::SliceOp::create(rw, concat.getLoc(), concat.getType(), source, lo, hi, st);
  rw.replaceOp(concat, whole);
  return success();
}

/// expand_dims(E(a, b, ...)) with E elementwise is E(expand_dims(a), ...);
/// a splat constant operand becomes a splat of the new shape. Exact (the
/// same elements). Moves the expand_dims of a stacked row towards the row's
/// slice, where it cancels a squeeze.
LogicalResult expandDimsIntoElementwise(RewriterBase &rw, Operation *op) {
  auto expand = dyn_cast_or_null<kiln::lax::ExpandDimsOp>(op);
  if (!expand)
    return failure();
  Operation *def = expand.getOperand().getDefiningOp();
  if (!def || def->getNumResults() != 1 || !def->hasTrait<OpTrait::Elementwise>() ||
      def->getNumRegions() != 0 || !expand.getOperand().hasOneUse())
    return failure();
  auto type = cast<RankedTensorType>(expand.getType());
  for (Value v : def->getOperands())
    if (cast<ShapedType>(v.getType()).getShape() !=
        cast<ShapedType>(def->getResult(0).getType()).getShape())
      return failure();
  rw.setInsertionPoint(expand);
  IRMapping map;
  for (Value v : def->getOperands()) {
    if (map.contains(v))
      continue;
    Value e = splatLike(rw, expand.getLoc(), v, withShape(v.getType(), type));
    if (!e)
      e = kiln::lax::ExpandDimsOp::create(rw, expand.getLoc(), withShape(v.getType(), type), v,
                                          expand.getDimensions());
    map.map(v, e);
  }
  Operation *moved = rw.clone(*def, map);
  moved->getResult(0).setType(type);
  rw.replaceOp(expand, moved->getResults());
  return success();
}
} // namespace

void kiln::rules::registerBuiltinNatives(NativeRegistry &r) {
  // Shapes and types.
  r.addFunction("rank", {A::Any}, [](auto a) -> std::optional<Val> {
    auto t = shaped(a[0]);
    if (!t || !t.hasRank())
      return std::nullopt;
    return Val::ofInt(t.getRank());
  }, "rank of a value's (or op's first result's) shaped type");
  r.addFunction("shape", {A::Any}, [](auto a) -> std::optional<Val> {
    auto t = shaped(a[0]);
    if (!t || !t.hasRank())
      return std::nullopt;
    return Val::ofList(std::vector<int64_t>(t.getShape().begin(), t.getShape().end()));
  }, "the dimension sizes of a shaped value");
  r.addFunction("dim", {A::Any, A::Int}, [](auto a) -> std::optional<Val> {
    auto t = shaped(a[0]);
    int64_t i = *a[1].asInt();
    if (!t || !t.hasRank() || i < 0 || i >= t.getRank())
      return std::nullopt;
    return Val::ofInt(t.getDimSize(i));
  }, "size of dimension i");
  r.addFunction("type_of", {A::Any}, [](auto a) -> std::optional<Val> {
    Type t = a[0].asType();
    return t ? std::optional<Val>(Val::ofType(t)) : std::nullopt;
  }, "the type of a value");
  r.addFunction("element_type", {A::Any}, [](auto a) -> std::optional<Val> {
    Type t = a[0].asType();
    if (!t)
      return std::nullopt;
    return Val::ofType(getElementTypeOrSelf(t));
  }, "element type of a shaped value (the type itself otherwise)");
  r.addConstraint("is_float", {A::Any}, [](auto a) {
    Type t = a[0].asType();
    return t && isa<FloatType>(getElementTypeOrSelf(t));
  }, "the element type is a float type");
  r.addConstraint("is_unsigned", {A::Any}, [](auto a) {
    Type t = a[0].asType();
    return t && getElementTypeOrSelf(t).isUnsignedInteger();
  }, "the element type is an unsigned integer type (ui32)");
  r.addConstraint("has_one_use", {A::Any}, [](auto a) {
    Value v = a[0].asValue();
    return v && v.hasOneUse();
  }, "the value (or single-result op) has exactly one use");
  r.addConstraint("is_splat", {A::Value, A::Any}, [](auto a) {
    auto s = splatValue(a[0].asValue());
    auto want = a[1].asFloat();
    return s && want && *s == *want;
  }, "the value is a constant whose every element equals the number");
  r.addConstraint("is_constant", {A::Value}, [](auto a) {
    Value v = a[0].asValue();
    return v && matchPattern(v, m_Constant());
  }, "the value is produced by a constant-like op");

  // Integer lists.
  r.addFunction("len", {A::IntList}, [](auto a) -> std::optional<Val> {
    return Val::ofInt(L(a[0]).size());
  }, "number of elements");
  r.addConstraint("contains", {A::IntList, A::Int}, [](auto a) {
    auto l = L(a[0]);
    return std::find(l.begin(), l.end(), *a[1].asInt()) != l.end();
  }, "membership; also written `x in list`");
  r.addFunction("sorted", {A::IntList}, [](auto a) -> std::optional<Val> {
    auto l = L(a[0]);
    std::sort(l.begin(), l.end());
    return Val::ofList(l);
  }, "the list in increasing order");
  r.addFunction("range", {A::Int}, [](auto a) -> std::optional<Val> {
    std::vector<int64_t> l(std::max<int64_t>(0, *a[0].asInt()));
    for (size_t i = 0; i < l.size(); ++i)
      l[i] = i;
    return Val::ofList(l);
  }, "[0, 1, ..., n-1]");
  r.addFunction("concat", {A::IntList, A::IntList}, [](auto a) -> std::optional<Val> {
    auto l = L(a[0]), m = L(a[1]);
    l.insert(l.end(), m.begin(), m.end());
    return Val::ofList(l);
  }, "concatenation of two lists");

  // Permutations.
  r.addConstraint("is_permutation", {A::IntList}, [](auto a) { return isPermutation(L(a[0])); },
                  "a permutation of 0..n-1");
  r.addConstraint("is_identity_permutation", {A::IntList}, [](auto a) {
    auto p = L(a[0]);
    for (size_t i = 0; i < p.size(); ++i)
      if (p[i] != (int64_t)i)
        return false;
    return true;
  }, "p[i] == i for all i");
  r.addFunction("permute_dims", {A::IntList, A::IntList}, [](auto a) -> std::optional<Val> {
    auto dims = L(a[0]), p = L(a[1]);
    std::vector<int64_t> out;
    for (int64_t d : dims) {
      if (d < 0 || d >= (int64_t)p.size())
        return std::nullopt;
      out.push_back(p[d]);
    }
    return Val::ofList(out);
  }, "permute_dims(dims, p)[i] = p[dims[i]]: dimension numbers of transpose(x, p) as "
     "dimension numbers of x");
  r.addFunction("compose_permutation", {A::IntList, A::IntList}, [](auto a) -> std::optional<Val> {
    auto p = L(a[0]), q = L(a[1]);
    if (p.size() != q.size() || !isPermutation(p) || !isPermutation(q))
      return std::nullopt;
    std::vector<int64_t> out;
    for (int64_t d : q)
      out.push_back(p[d]);
    return Val::ofList(out);
  }, "transpose(transpose(x, p), q) == transpose(x, compose_permutation(p, q))");
  r.addFunction("inverse_permutation", {A::IntList}, [](auto a) -> std::optional<Val> {
    auto p = L(a[0]);
    if (!isPermutation(p))
      return std::nullopt;
    std::vector<int64_t> out(p.size());
    for (size_t i = 0; i < p.size(); ++i)
      out[p[i]] = i;
    return Val::ofList(out);
  }, "q with q[p[i]] = i");
  r.addConstraint("keeps_free_dims_order", {A::IntList, A::IntList, A::IntList}, [](auto a) {
    // Transpose p feeding a dot_general operand whose contracting/batch
    // dimensions are c and b: its free dimensions (the rest) must map to
    // increasing dimensions of the transpose's operand.
    auto p = L(a[0]), c = L(a[1]), b = L(a[2]);
    std::set<int64_t> bound(c.begin(), c.end());
    bound.insert(b.begin(), b.end());
    int64_t last = -1;
    for (size_t d = 0; d < p.size(); ++d) {
      if (bound.count(d))
        continue;
      if (p[d] <= last)
        return false;
      last = p[d];
    }
    return isPermutation(p);
  }, "the free (non-contracting, non-batch) dimensions keep their order under p");

  r.addConstraint("has_attr", {A::Op, A::Any}, [](auto a) {
    return a[1].kind == Val::Str && a[0].asOp()->getAttr(a[1].str) != nullptr;
  }, "has_attr(node, \"name\"): the op carries that attribute");
  r.addFunction("merge_reduce_axes", {A::IntList, A::IntList}, [](auto a) -> std::optional<Val> {
    // reduce(reduce(x, inner), outer): `outer` numbers the dimensions left
    // after `inner`; the union, in x's numbering, sorted.
    auto inner = L(a[0]), outer = L(a[1]);
    std::set<int64_t> removed(inner.begin(), inner.end());
    std::vector<int64_t> kept;
    int64_t maxDim = removed.empty() ? 0 : *removed.rbegin() + 1;
    for (int64_t d = 0; kept.size() < outer.size() + maxDim + 1; ++d)
      if (!removed.count(d))
        kept.push_back(d);
    std::set<int64_t> all(inner.begin(), inner.end());
    for (int64_t d : outer) {
      if (d < 0 || d >= (int64_t)kept.size())
        return std::nullopt;
      all.insert(kept[d]);
    }
    return Val::ofList(std::vector<int64_t>(all.begin(), all.end()));
  }, "axes of reduce(reduce(x, inner), outer) as one reduction of x");

  r.addConstraint("all_dims_one", {A::Any, A::IntList}, [](auto a) {
    auto t = shaped(a[0]);
    if (!t || !t.hasRank())
      return false;
    for (int64_t d : L(a[1]))
      if (d < 0 || d >= t.getRank() || t.getDimSize(d) != 1)
        return false;
    return true;
  }, "every listed dimension of the value has size 1");

  // Scan push-up building blocks (transforms/ScanPushUp.h).
  r.addOpRewrite("sink_elementwise_into_scan", kiln::sinkElementwiseIntoScan,
                 "moves an elementwise consumer of a scan's ys into the body (exact)");
  r.addOpRewrite("move_reduction_into_scan_body", kiln::moveReductionIntoScanBody,
                 "moves a reduction of a ys over non-scan axes into the body "
                 "(reassociates float sums/products)");
  r.addOpRewrite("scan_reduction_to_carry", kiln::scanReductionToCarry,
                 "turns a reduction of a ys over its scan axis into a carry "
                 "(reassociates float sums/products)");
  r.addOpRewrite("push_reduction_into_scan",
                 [](RewriterBase &rw, Operation *op) {
                   return success(succeeded(kiln::moveReductionIntoScanBody(rw, op)) ||
                                  succeeded(kiln::scanReductionToCarry(rw, op)));
                 },
                 "move_reduction_into_scan_body, else scan_reduction_to_carry");
  r.addConstraint("reduction_reassociates", {A::Op},
                  [](auto a) { return kiln::reductionReassociates(a[0].asOp()); },
                  "reduce_sum/reduce_prod on floats");
  r.addConstraint("is_elementwise", {A::Op}, [](auto a) {
    return a[0].asOp()->template hasTrait<OpTrait::Elementwise>();
  }, "the op has the Elementwise trait");
  r.addConstraint("is_reduction", {A::Op}, [](auto a) {
    return isa<kiln::lax::ReduceSumOp, kiln::lax::ReduceMaxOp, kiln::lax::ReduceMinOp,
               kiln::lax::ReduceProdOp>(a[0].asOp());
  }, "lax.reduce_sum/max/min/prod");
  r.addConstraint("reads_scan_ys", {A::Op}, [](auto a) {
    return llvm::any_of(a[0].asOp()->getOperands(),
                        [](Value v) { return kiln::asScanYs(v).has_value(); });
  }, "some operand of the op is a ys result of a lax.scan");
  r.addConstraint("is_scan_ys", {A::Value},
                  [](auto a) { return kiln::asScanYs(a[0].asValue()).has_value(); },
                  "the value is a ys result of a lax.scan");

  // Calls and constant conditionals, opened so that rules see across them
  // (jnp.trace, jnp.diag are jit calls; jnp.diag's body a cond on a constant).
  r.addFunction("callee_num_ops", {A::Op}, [](auto a) -> std::optional<Val> {
    func::FuncOp callee = privateCallee(a[0].asOp());
    if (!callee)
      return std::nullopt;
    int64_t n = 0;
    callee.getBody().walk([&](Operation *) { ++n; });
    return Val::ofInt(n);
  }, "ops in the body of the private function a func.call calls (fails for any other op)");
  r.addOpRewrite("inline_call", inlineCall,
                 "replaces a func.call of a private function by a copy of its body (exact)");
  r.addOpRewrite("inline_selected_branch", inlineSelectedBranch,
                 "replaces a lax.cond on a constant index by the branch it selects (exact)");

  r.addOpRewrite("concat_of_elementwise", concatOfElementwise,
                 "concatenate(E(a1, ..), E(a2, ..), ..) -> E(concatenate(a1, a2, ..), ..) for one "
                 "elementwise op E (exact)");
  r.addOpRewrite("concat_of_slices", concatOfSlices,
                 "a concatenate of adjacent whole slices of one value -> one slice, or the value "
                 "(exact)");
  r.addOpRewrite("expand_dims_into_elementwise", expandDimsIntoElementwise,
                 "expand_dims(E(a, ..)) -> E(expand_dims(a), ..) for an elementwise E (exact)");
  r.addFunction("complement_dims", {A::Int, A::IntList}, [](auto a) -> std::optional<Val> {
    std::vector<int64_t> dims = L(a[1]), out;
    for (int64_t d = 0; d < *a[0].asInt(); ++d)
      if (std::find(dims.begin(), dims.end(), d) == dims.end())
        out.push_back(d);
    return Val::ofList(out);
  }, "complement_dims(n, dims): 0..n-1 without dims, in order");
  r.addFunction("splat_value", {A::Value}, [](auto a) -> std::optional<Val> {
    auto s = splatValue(a[0].asValue());
    return s ? std::optional<Val>(Val::ofFloat(*s)) : std::nullopt;
  }, "the number every element of a splat constant equals (fails for anything else)");
  r.addConstraint("is_power_of_two_splat", {A::Value}, [](auto a) {
    auto s = splatValue(a[0].asValue());
    if (!s || !(*s != 0) || !std::isfinite(*s))
      return false;
    int e;
    // Normal reciprocals only (1/2^k must not overflow or lose bits).
    return std::fabs(std::frexp(*s, &e)) == 0.5 && e > -100 && e < 100;
  }, "a splat constant +-2^k (k may be negative): dividing by it is multiplying by its "
     "exact reciprocal");

  r.addFunction("op_name", {A::Value}, [](auto a) -> std::optional<Val> {
    Value v = a[0].asValue();
    if (!v)
      return std::nullopt;
    Operation *def = v.getDefiningOp();
    return Val::ofStr(def ? def->getName().getStringRef().str() : "");
  }, "the name of the op defining a value (\"lax.mul\"), \"\" for a block argument");

  r.addConstraint("only_used_by", {A::Any, A::Any}, [](auto a) {
    Value v = a[0].asValue();
    if (!v || a[1].kind != Val::Str || v.use_empty())
      return false;
    return llvm::all_of(v.getUsers(), [&](Operation *user) {
      return user->getName().getStringRef() == a[1].str;
    });
  }, "only_used_by(v, \"lax.concatenate\"): v has users, all ops of that name");

  registerScanNatives(r);
}
