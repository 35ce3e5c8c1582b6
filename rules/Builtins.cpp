//===- Builtins.cpp - Kiln's built-in native functions --------------------===//
//
// Registered through the same NativeRegistry API as a plugin's functions.
// Permutation conventions follow lax.transpose: result dimension i is
// operand dimension p[i].
//
//===----------------------------------------------------------------------===//
#include "rules/NativeRegistry.h"

#include "transforms/ScanPushUp.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

#include <algorithm>
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

  registerScanNatives(r);
}
