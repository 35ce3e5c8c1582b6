//===- GeneratorOps.cpp - the generator's op families ---------------------===//
//
// Each op_ draws its operands from the block's pool (or makes them), emits
// one op (sometimes a few) and returns the value made, or nullptr when what
// it drew does not fit (randomOp then draws another op).
//
//===----------------------------------------------------------------------===//

#include "tools/kiln-difftest/GeneratorImpl.h"

#include "dialect/LaxInterfaces.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <vector>

using namespace kiln::difftest;
using namespace kiln::difftest::gen;
using llvm::StringRef;

// The order in which a seed draws elementwise primitives: fixed, so that a
// seed's program stays the same. drawable() appends every other primitive
// the dialect defines for the element kind, so a new one is generated
// without an edit here. round (a parameter) is drawn as a plain unary op.
static const StringRef kFloatUnaryOrder[] = {
    "neg",   "abs",   "sign",  "exp",   "log",   "log1p", "sin",     "cos",
    "tanh",  "logistic", "sqrt", "rsqrt", "square", "floor", "ceil", "round",
    "exp2",  "expm1", "cbrt",  "tan",   "asin",  "acos",  "atan",    "sinh",
    "cosh",  "asinh", "acosh", "atanh", "erf",   "erfc",  "erf_inv"};
static const StringRef kIntUnaryOrder[] = {"neg",    "abs", "sign",
                                           "square", "not", "population_count"};
static const StringRef kFloatBinaryOrder[] = {"add", "sub", "mul", "div",   "rem",
                                              "max", "min", "pow", "atan2", "nextafter"};
static const StringRef kIntBinaryOrder[] = {
    "add", "sub", "mul", "div", "rem", "max", "min", "and", "or", "xor",
    "shift_left", "shift_right_arithmetic", "shift_right_logical"};
// On bools only the logical ops JAX defines (the dialect admits i1 for
// every integer op).
static const StringRef kBoolBinary[] = {"and", "or", "xor"};

/// Primitives compiled as XLA's approximation formulas, whose error against
/// the interpreter's exact value (about 1e-12 relative in f64 for digamma's
/// Lanczos sum) is beyond the error model's per-operation bound, and whose
/// magnitudes are unknown: checked against jax.jit and float64 in
/// tests/python/test_ecosystem_primitives.py instead of drawn here. clz is
/// not drawn either: one more integer unary op would change the program of
/// every pinned seed that draws one (it is checked bit for bit against
/// jax.jit and the interpreter there).
static const StringRef kNotDrawn[] = {"lgamma", "digamma", "clz"};

/// `order`, then the other elementwise primitives of `arity` whose operands
/// may be of `kind` (dialect/LaxInterfaces.h).
static std::vector<StringRef> drawable(llvm::ArrayRef<StringRef> order, unsigned arity,
                                       bool kiln::lax::ElementKinds::*kind) {
  std::vector<StringRef> ops(order.begin(), order.end());
  for (const kiln::lax::ElementwisePrimitive &p : kiln::lax::elementwisePrimitives())
    if (p.arity == arity && p.operands.*kind && !llvm::is_contained(ops, p.jaxName) &&
        !llvm::is_contained(kNotDrawn, p.jaxName))
      ops.push_back(p.jaxName);
  return ops;
}

using Kinds = kiln::lax::ElementKinds;
static const std::vector<StringRef> kFloatUnary = drawable(kFloatUnaryOrder, 1, &Kinds::floats);
static const std::vector<StringRef> kIntUnary = drawable(kIntUnaryOrder, 1, &Kinds::ints);
static const std::vector<StringRef> kFloatBinary = drawable(kFloatBinaryOrder, 2, &Kinds::floats);
static const std::vector<StringRef> kIntBinary = drawable(kIntBinaryOrder, 2, &Kinds::ints);
static const StringRef kCompare[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
static const StringRef kAllTypes[] = {"f32", "f64", "f16", "bf16", "i8",
                                      "i32", "i64", "ui32", "i1"};

/// The dimensions of `shape` but those in `drop`.
static Shape without(const Shape &shape, const Shape &drop) {
  Shape out;
  for (size_t i = 0; i < shape.size(); ++i)
    if (!llvm::is_contained(drop, int64_t(i)))
      out.push_back(shape[i]);
  return out;
}

static Shape iotaOf(int64_t n, int64_t from = 0) {
  Shape out;
  for (int64_t i = from; i < n; ++i)
    out.push_back(i);
  return out;
}

/// sorted(rng.sample(range(n), k))
static Shape sortedSample(Random &rng, const Shape &population, int64_t k) {
  llvm::SmallVector<int64_t> drawn = rng.sample(llvm::ArrayRef<int64_t>(population), k);
  Shape out(drawn.begin(), drawn.end());
  llvm::sort(out);
  return out;
}

Value *Generator::opUnary(Block &blk) {
  Value *v = pick(blk.pool);
  StringRef op;
  if (isFloat(v->dt)) {
    double r = rng.random();
    if (r < 0.08) {
      std::string name = fresh();
      emit(blk, name + " = lax.is_finite " + v->name + " : " + v->type() + " -> " +
                    tensorType(v->shape, "i1"));
      return add(blk, Value{name, v->shape, "i1"});
    }
    if (r < 0.18) {
      static const int64_t ys[] = {-3, -2, -1, 0, 2, 3, 5};
      int64_t y = rng.choice(llvm::ArrayRef<int64_t>(ys));
      std::string name = fresh();
      emit(blk, name + " = lax.integer_pow " + v->name + " y = " + std::to_string(y) + " : " +
                    v->type());
      return add(blk, Value{name, v->shape, v->dt});
    }
    op = rng.choice(llvm::ArrayRef<StringRef>(kFloatUnary));
  } else if (v->dt == "i1") {
    op = "not";
  } else {
    if (rng.random() < 0.15) {
      static const int64_t ys[] = {0, 1, 2, 3, 7};
      int64_t y = rng.choice(llvm::ArrayRef<int64_t>(ys));
      std::string name = fresh();
      emit(blk, name + " = lax.integer_pow " + v->name + " y = " + std::to_string(y) + " : " +
                    v->type());
      return add(blk, Value{name, v->shape, v->dt});
    }
    op = rng.choice(llvm::ArrayRef<StringRef>(kIntUnary));
  }
  std::string name = fresh();
  emit(blk, name + " = lax." + op.str() + " " + v->name + " : " + v->type());
  return add(blk, Value{name, v->shape, v->dt});
}

Value *Generator::opBinary(Block &blk) {
  Value *a = pick(blk.pool);
  llvm::ArrayRef<StringRef> ops = isFloat(a->dt) ? llvm::ArrayRef<StringRef>(kFloatBinary)
                                  : a->dt == "i1" ? llvm::ArrayRef<StringRef>(kBoolBinary)
                                                  : llvm::ArrayRef<StringRef>(kIntBinary);
  StringRef op = rng.choice(ops);
  Value *b = like(blk, a);
  if (rng.random() < 0.5)
    std::swap(a, b);
  std::string name = fresh();
  emit(blk, name + " = lax." + op.str() + " " + a->name + ", " + b->name + " : " + a->type());
  return add(blk, Value{name, a->shape, a->dt});
}

Value *Generator::opCompareSelect(Block &blk) {
  Value *a = pick(blk.pool);
  Value *b = like(blk, a);
  std::string name = fresh();
  StringRef direction = rng.choice(llvm::ArrayRef<StringRef>(kCompare));
  emit(blk, name + " = lax.compare " + direction.str() + ", " + a->name + ", " + b->name + " : " +
                a->type());
  Value *p = add(blk, Value{name, a->shape, "i1"});
  if (rng.random() < 0.7) {
    Value *x = pick(blk.pool, [&](const Value &u) { return u.shape == a->shape && u.dt != "i1"; });
    if (!x)
      x = a;
    Value *y = like(blk, x);
    name = fresh();
    emit(blk, name + " = lax.select_n " + p->name + ", " + x->name + ", " + y->name + " : " +
                  p->type() + ", " + x->type() + ", " + y->type());
    return add(blk, Value{name, x->shape, x->dt});
  }
  return p;
}

Value *Generator::opConvert(Block &blk) {
  Value *v = pick(blk.pool);
  if (rng.random() < 0.2) {
    std::vector<StringRef> same;
    for (StringRef d : kAllTypes)
      if (bitsOf(d) == bitsOf(v->dt) && d != v->dt && bitsOf(d) > 8)
        same.push_back(d);
    if (!same.empty()) {
      StringRef dt = rng.choice(same);
      std::string name = fresh();
      emit(blk, name + " = lax.bitcast_convert_type " + v->name + " : " + v->type() + " -> " +
                    tensorType(v->shape, dt));
      return add(blk, Value{name, v->shape, dt.str()});
    }
  }
  return convert(blk, v, randDt());
}

Value *Generator::opIota(Block &blk) {
  Shape shape = randShape();
  if (shape.empty())
    shape = {dimSize(5)};
  static const StringRef kinds[] = {"f32", "f64", "f16", "bf16", "i8", "i32", "i64", "ui32"};
  std::string dt = randDt(kinds);
  std::string name = fresh();
  int64_t dim = rng.randrange(shape.size());
  emit(blk, name + " = lax.iota dimension = " + std::to_string(dim) + " : " +
                tensorType(shape, dt));
  return add(blk, Value{name, shape, dt});
}

Value *Generator::opBroadcast(Block &blk) {
  Value *v = pick(blk.pool, [](const Value &u) { return u.shape.size() < 3; });
  if (!v)
    return nullptr;
  int64_t r = rng.randint(v->shape.size(), 3);
  Shape dims = sortedSample(rng, iotaOf(r), v->shape.size());
  Shape shape;
  for (int64_t i = 0; i < r; ++i)
    shape.push_back(dimSize(4));
  for (size_t i = 0; i < dims.size(); ++i) {
    bool keepOperand = rng.random() < 0.9 || v->shape[i] != 1;
    if (keepOperand)
      shape[dims[i]] = v->shape[i];
  }
  if (numel(shape) > maxElements())
    return nullptr;
  std::string name = fresh();
  emit(blk, name + " = lax.broadcast_in_dim " + v->name + " shape = " + list(shape) +
                " dims = " + list(dims) + " : " + v->type() + " -> " + tensorType(shape, v->dt));
  return add(blk, Value{name, shape, v->dt});
}

Value *Generator::opReshape(Block &blk) {
  Value *v = pick(blk.pool);
  int64_t n = numel(v->shape);
  Shape facts;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0)
      facts.push_back(d);
  Shape shape;
  int64_t rest = n;
  for (int64_t k = rng.randint(0, 3); k > 0; --k) {
    Shape fits;
    for (int64_t d : facts)
      if (rest % d == 0)
        fits.push_back(d);
    int64_t d = rng.choice(fits);
    shape.push_back(d);
    rest /= d;
  }
  if (rest != 1 || (shape.empty() && n != 1))
    shape.push_back(rest);
  std::string name = fresh();
  emit(blk, name + " = lax.reshape " + v->name + " : " + v->type() + " -> " +
                tensorType(shape, v->dt));
  return add(blk, Value{name, shape, v->dt});
}

Value *Generator::opTranspose(Block &blk, Value *v) {
  if (!v)
    v = pick(blk.pool, [](const Value &u) { return u.shape.size() >= 2; });
  if (!v)
    return nullptr;
  Shape perm = iotaOf(v->shape.size());
  rng.shuffle(llvm::MutableArrayRef<int64_t>(perm));
  Shape shape;
  for (int64_t p : perm)
    shape.push_back(v->shape[p]);
  std::string name = fresh();
  emit(blk, name + " = lax.transpose " + v->name + " permutation = " + list(perm) + " : " +
                v->type() + " -> " + tensorType(shape, v->dt));
  return add(blk, Value{name, shape, v->dt});
}

Value *Generator::opRev(Block &blk, Value *v, const Shape *dimsArg) {
  if (!v)
    v = pick(blk.pool, [](const Value &u) { return u.shape.size() >= 1; });
  if (!v)
    return nullptr;
  Shape dims;
  if (dimsArg) {
    dims = *dimsArg;
  } else {
    int64_t k = rng.randint(1, v->shape.size());
    dims = sortedSample(rng, iotaOf(v->shape.size()), k);
  }
  std::string name = fresh();
  emit(blk, name + " = lax.rev " + v->name + " dims = " + list(dims) + " : " + v->type());
  return add(blk, Value{name, v->shape, v->dt});
}

Value *Generator::opSlice(Block &blk) {
  Value *v = pick(blk.pool, [](const Value &u) { return u.shape.size() >= 1; });
  if (!v)
    return nullptr;
  Shape start, limit, strides, shape;
  static const int64_t strideChoices[] = {1, 1, 2, 3};
  for (int64_t d : v->shape) {
    int64_t s = rng.randint(0, d - 1);
    int64_t l = rng.randint(s + 1, d);
    int64_t st = rng.choice(llvm::ArrayRef<int64_t>(strideChoices));
    start.push_back(s);
    limit.push_back(l);
    strides.push_back(st);
    shape.push_back((l - s + st - 1) / st);
  }
  std::string name = fresh();
  emit(blk, name + " = lax.slice " + v->name + " start = " + list(start) + " limit = " +
                list(limit) + " strides = " + list(strides) + " : " + v->type() + " -> " +
                tensorType(shape, v->dt));
  return add(blk, Value{name, shape, v->dt});
}

Value *Generator::opConcat(Block &blk) {
  Value *a = pick(blk.pool, [](const Value &u) { return u.shape.size() >= 1; });
  if (!a)
    return nullptr;
  size_t d = rng.randrange(a->shape.size());
  std::vector<Value *> parts{a};
  for (int64_t k = rng.randint(1, 2); k > 0; --k) {
    std::vector<Value *> fits;
    for (Value *u : blk.pool) {
      if (u->dt != a->dt || u->shape.size() != a->shape.size())
        continue;
      bool same = true;
      for (size_t i = 0; i < a->shape.size(); ++i)
        same &= i == d || u->shape[i] == a->shape[i];
      if (same)
        fits.push_back(u);
    }
    if (!fits.empty() && rng.random() < 0.7)
      parts.push_back(rng.choice(fits));
    else
      parts.push_back(like(blk, a));
  }
  Shape shape = a->shape;
  shape[d] = 0;
  for (Value *p : parts)
    shape[d] += p->shape[d];
  if (numel(shape) > maxElements())
    return nullptr;
  std::string name = fresh();
  std::string names, types;
  for (size_t i = 0; i < parts.size(); ++i) {
    names += (i ? ", " : "") + parts[i]->name;
    types += (i ? ", " : "") + parts[i]->type();
  }
  emit(blk, name + " = lax.concatenate " + names + " dim = " + std::to_string(d) + " : (" + types +
                ") -> " + tensorType(shape, a->dt));
  return add(blk, Value{name, shape, a->dt});
}

Value *Generator::opExpandSqueeze(Block &blk) {
  Value *v = pick(blk.pool);
  Shape ones;
  for (size_t i = 0; i < v->shape.size(); ++i)
    if (v->shape[i] == 1)
      ones.push_back(i);
  std::string name = fresh();
  Shape shape;
  if (!ones.empty() && rng.random() < 0.6) {
    int64_t k = rng.randint(1, ones.size());
    Shape dims = sortedSample(rng, ones, k);
    shape = without(v->shape, dims);
    emit(blk, name + " = lax.squeeze " + v->name + " dims = " + list(dims) + " : " + v->type() +
                  " -> " + tensorType(shape, v->dt));
  } else {
    if (v->shape.size() >= 3)
      return nullptr;
    int64_t pos = rng.randrange(v->shape.size() + 1);
    shape = v->shape;
    shape.insert(shape.begin() + pos, 1);
    emit(blk, name + " = lax.expand_dims " + v->name + " dims = [" + std::to_string(pos) +
                  "] : " + v->type() + " -> " + tensorType(shape, v->dt));
  }
  return add(blk, Value{name, shape, v->dt});
}

Value *Generator::opDynamic(Block &blk) {
  Value *v = pick(blk.pool, [](const Value &u) { return u.shape.size() >= 1; });
  if (!v)
    return nullptr;
  std::vector<Value *> idx;
  for (size_t i = 0; i < v->shape.size(); ++i)
    idx.push_back(scalarI32(blk));
  std::string indexTypes, indexNames;
  for (size_t i = 0; i < idx.size(); ++i) {
    indexTypes += (i ? ", " : "") + idx[i]->type();
    indexNames += (i ? ", " : "") + idx[i]->name;
  }
  if (rng.random() < 0.5) {
    Shape sizes;
    for (int64_t d : v->shape)
      sizes.push_back(rng.randint(1, d));
    std::string name = fresh();
    emit(blk, name + " = lax.dynamic_slice " + v->name + "[" + indexNames + "] sizes = " +
                  list(sizes) + " : (" + v->type() + ", " + indexTypes + ") -> " +
                  tensorType(sizes, v->dt));
    return add(blk, Value{name, sizes, v->dt});
  }
  Value *u = pick(blk.pool, [&](const Value &u) {
    if (u.dt != v->dt || u.shape.size() != v->shape.size())
      return false;
    for (size_t i = 0; i < u.shape.size(); ++i)
      if (u.shape[i] > v->shape[i])
        return false;
    return true;
  });
  if (!u)
    return nullptr;
  std::string name = fresh();
  emit(blk, name + " = lax.dynamic_update_slice " + v->name + "[" + indexNames + "], " + u->name +
                " : (" + v->type() + ", " + u->type() + ", " + indexTypes + ") -> " + v->type());
  return add(blk, Value{name, v->shape, v->dt});
}

Value *Generator::opReduce(Block &blk, Value *v, StringRef kindArg, const Shape *axesArg) {
  if (!v)
    v = pick(blk.pool, [](const Value &u) { return u.shape.size() >= 1 && u.dt != "i1"; });
  if (!v)
    return nullptr;
  Shape axes;
  if (axesArg) {
    axes = *axesArg;
  } else {
    int64_t k = rng.randint(1, v->shape.size());
    axes = sortedSample(rng, iotaOf(v->shape.size()), k);
  }
  Shape shape = without(v->shape, axes);
  std::string name = fresh();
  if (kindArg.empty() && v->dt != "i1" && rng.random() < 0.15) {
    static const StringRef argKinds[] = {"argmax", "argmin"};
    static const StringRef indexTypes[] = {"i32", "i64"};
    StringRef k = rng.choice(llvm::ArrayRef<StringRef>(argKinds));
    StringRef it = rng.choice(llvm::ArrayRef<StringRef>(indexTypes));
    int64_t ax = rng.randrange(v->shape.size());
    shape = without(v->shape, {ax});
    emit(blk, name + " = lax." + k.str() + " " + v->name + " axes = [" + std::to_string(ax) +
                  "] : " + v->type() + " -> " + tensorType(shape, it));
    return add(blk, Value{name, shape, it.str()});
  }
  static const StringRef kinds[] = {"reduce_sum", "reduce_max", "reduce_min", "reduce_prod"};
  StringRef kind = kindArg.empty() ? rng.choice(llvm::ArrayRef<StringRef>(kinds)) : kindArg;
  emit(blk, name + " = lax." + kind.str() + " " + v->name + " axes = " + list(axes) + " : " +
                v->type() + " -> " + tensorType(shape, v->dt));
  return add(blk, Value{name, shape, v->dt});
}

Value *Generator::opDot(Block &blk) {
  Value *a = pick(blk.pool, [](const Value &u) { return u.dt != "i1" && u.shape.size() >= 1; });
  if (!a)
    return nullptr;
  int64_t r = a->shape.size();
  Shape dims = iotaOf(r);
  rng.shuffle(llvm::MutableArrayRef<int64_t>(dims));
  int64_t nb = rng.randint(0, std::min<int64_t>(1, r - 1));
  int64_t nc = rng.randint(r - nb >= 1 ? 1 : 0, r - nb);
  Shape batch(dims.begin(), dims.begin() + nb), contr(dims.begin() + nb, dims.begin() + nb + nc);
  // rhs: batch and contracting dims of a's sizes, plus 0-1 free dims, in
  // random order. ('b', i), ('c', i) or ('f', size).
  std::vector<std::pair<char, int64_t>> rdims;
  for (int64_t i = 0; i < nb; ++i)
    rdims.push_back({'b', i});
  for (int64_t i = 0; i < nc; ++i)
    rdims.push_back({'c', i});
  if (rng.random() < 0.7)
    rdims.push_back({'f', dimSize(4)});
  rng.shuffle(llvm::MutableArrayRef<std::pair<char, int64_t>>(rdims));
  Shape rshape, rfree;
  for (auto [k, i] : rdims)
    rshape.push_back(k == 'b' ? a->shape[batch[i]] : k == 'c' ? a->shape[contr[i]] : i);
  auto positionOf = [&](char k, int64_t i) {
    return int64_t(llvm::find(rdims, std::make_pair(k, i)) - rdims.begin());
  };
  Shape rb, rc;
  for (int64_t i = 0; i < nb; ++i)
    rb.push_back(positionOf('b', i));
  for (int64_t i = 0; i < nc; ++i)
    rc.push_back(positionOf('c', i));
  for (size_t j = 0; j < rdims.size(); ++j)
    if (rdims[j].first == 'f')
      rfree.push_back(rshape[j]);
  auto outShape = [&](Value *lhs) {
    Shape out;
    for (int64_t i : batch)
      out.push_back(lhs->shape[i]);
    for (int64_t i = 0; i < r; ++i)
      if (!llvm::is_contained(batch, i) && !llvm::is_contained(contr, i))
        out.push_back(lhs->shape[i]);
    out.insert(out.end(), rfree.begin(), rfree.end());
    return out;
  };
  Shape out = outShape(a);
  if (numel(out) > maxElements() || out.size() > 4)
    return nullptr;
  Value *b = pick(blk.pool, [&](const Value &u) { return u.shape == rshape && u.dt == a->dt; });
  if (!b || rng.random() < 0.3)
    b = rng.random() < 0.3 ? constant(blk, rshape, a->dt) : nullptr;
  if (!b) {
    Value *src = pick(blk.pool, [&](const Value &u) { return numel(u.shape) == numel(rshape); });
    if (!src) {
      b = constant(blk, rshape, a->dt);
    } else {
      std::string name = fresh();
      emit(blk, name + " = lax.reshape " + src->name + " : " + src->type() + " -> " +
                    tensorType(rshape, src->dt));
      b = add(blk, Value{name, rshape, src->dt});
      if (b->dt != a->dt)
        b = convert(blk, b, a->dt);
    }
  }
  if (rng.random() < 0.3 && a->shape.size() >= 2) {
    // A transposed operand (kiln-canonicalize-dot-general folds it); the
    // dimension numbers follow it.
    Shape perm = iotaOf(r);
    rng.shuffle(llvm::MutableArrayRef<int64_t>(perm));
    Shape inv(r), tshape;
    for (int64_t i = 0; i < r; ++i)
      inv[perm[i]] = i;
    for (int64_t p : perm)
      tshape.push_back(a->shape[p]);
    std::string t = fresh();
    emit(blk, t + " = lax.transpose " + a->name + " permutation = " + list(perm) + " : " +
                  a->type() + " -> " + tensorType(tshape, a->dt));
    a = add(blk, Value{t, tshape, a->dt});
    for (int64_t &i : batch)
      i = inv[i];
    for (int64_t &i : contr)
      i = inv[i];
    out = outShape(a);
  }
  std::string name = fresh();
  emit(blk, name + " = lax.dot_general " + a->name + ", " + b->name + " contracting = " +
                list(contr) + " x " + list(rc) + " batch = " + list(batch) + " x " + list(rb) +
                " : (" + a->type() + ", " + b->type() + ") -> " + tensorType(out, a->dt));
  Value *res = add(blk, Value{name, out, a->dt});
  if (rng.random() < 0.3 && out.size() >= 2)
    opTranspose(blk, res);
  return res;
}

/// lax.sort of one or two keys with a value behind them (another pooled
/// value of the shape, or the positions: an argsort), or lax.top_k; one of
/// the results joins the pool.
Value *Generator::opSort(Block &blk) {
  Value *key = pick(blk.pool, [](const Value &u) { return u.shape.size() >= 1; });
  if (!key)
    return nullptr;
  int64_t axis = rng.randrange(key->shape.size());
  std::string a = fresh(), b = fresh();
  if (rng.random() < 0.3) {
    // k >= 1: the random profile's values have no zero-size dimension
    // (its ops draw positions from each one).
    int64_t k = rng.randint(1, key->shape[axis]);
    Shape shape = key->shape;
    shape[axis] = k;
    emit(blk, a + ", " + b + " = lax.top_k " + key->name + " k = " + std::to_string(k) +
                  " axis = " + std::to_string(axis) + " : " + key->type());
    add(blk, Value{b, shape, "i32"});
    return add(blk, Value{a, shape, key->dt});
  }
  std::vector<Value *> operands{key};
  Value *other = pick(blk.pool, [&](const Value &u) { return u.shape == key->shape && &u != key; });
  bool twoKeys = other && rng.random() < 0.3;
  if (other)
    operands.push_back(other);
  if (!other || twoKeys) {
    std::string name = fresh();
    emit(blk, name + " = lax.iota dimension = " + std::to_string(axis) + " : " +
                  tensorType(key->shape, "i32"));
    operands.push_back(add(blk, Value{name, key->shape, "i32"}));
  }
  std::vector<std::string> names, operandNames, types;
  for (Value *v : operands) {
    names.push_back(fresh());
    operandNames.push_back(v->name);
    types.push_back(v->type());
  }
  emit(blk, llvm::join(names, ", ") + " = lax.sort " + llvm::join(operandNames, ", ") +
                " dimension = " + std::to_string(axis) + " num_keys = " +
                std::to_string(twoKeys ? 2 : 1) + " : " + llvm::join(types, ", "));
  size_t kept = rng.randrange(operands.size());
  return add(blk, Value{names[kept], operands[kept]->shape, operands[kept]->dt});
}

Value *Generator::opGatherScatter(Block &blk) {
  Value *x = pick(blk.pool, [](const Value &u) { return 1 <= u.shape.size() && u.shape.size() <= 2; });
  if (!x)
    return nullptr;
  int64_t k = rng.randint(1, 4);
  static const StringRef indexTypes[] = {"i32", "i64"};
  StringRef ity = rng.choice(llvm::ArrayRef<StringRef>(indexTypes));
  Shape idxShape{k, 1};
  Value *idx = pick(blk.pool, [&](const Value &u) { return u.shape == idxShape && u.dt == ity; });
  if (!idx) {
    Value *src = pick(blk.pool, [&](const Value &u) { return isInt(u.dt) && numel(u.shape) == k; });
    if (src && rng.random() < 0.6) {
      std::string name = fresh();
      emit(blk, name + " = lax.reshape " + src->name + " : " + src->type() + " -> " +
                    tensorType(idxShape, src->dt));
      idx = add(blk, Value{name, idxShape, src->dt});
      if (src->dt != ity)
        idx = convert(blk, idx, ity);
    } else {
      std::string name = fresh("c");
      std::string body = "[";
      for (int64_t i = 0; i < k; ++i)
        body += (i ? ", [" : "[") + std::to_string(rng.randint(-2, x->shape[0] + 1)) + "]";
      emit(blk, name + " = lax.constant dense<" + body + "]> : " + tensorType(idxShape, ity));
      idx = add(blk, Value{name, idxShape, ity.str()});
    }
  }
  static const StringRef modes[] = {"clip", "promise_in_bounds", "fill_or_drop"};
  StringRef mode = rng.choice(llvm::ArrayRef<StringRef>(modes));
  Shape rest(x->shape.begin() + 1, x->shape.end());
  Shape updateShape{k};
  updateShape.insert(updateShape.end(), rest.begin(), rest.end());
  Shape windowDims = iotaOf(x->shape.size(), 1);
  std::string name = fresh();
  if (rng.random() < 0.5) {
    Shape sliceSizes{1};
    sliceSizes.insert(sliceSizes.end(), rest.begin(), rest.end());
    emit(blk, name + " = lax.gather " + x->name + "[" + idx->name + "] offset_dims = " +
                  list(windowDims) + " collapsed_slice_dims = [0] start_index_map = [0] " +
                  "slice_sizes = " + list(sliceSizes) + " mode = " + mode.str() + " : (" +
                  x->type() + ", " + idx->type() + ") -> " + tensorType(updateShape, x->dt));
    return add(blk, Value{name, updateShape, x->dt});
  }
  static const StringRef boolKinds[] = {"set", "min", "max"};
  static const StringRef kinds[] = {"set", "add", "mul", "min", "max"};
  StringRef kind = x->dt == "i1" ? rng.choice(llvm::ArrayRef<StringRef>(boolKinds))
                                 : rng.choice(llvm::ArrayRef<StringRef>(kinds));
  if (mode == "promise_in_bounds")
    mode = "clip";
  Value *u = pick(blk.pool, [&](const Value &u) { return u.shape == updateShape && u.dt == x->dt; });
  if (!u)
    u = constant(blk, updateShape, x->dt);
  emit(blk, name + " = lax.scatter " + kind.str() + " " + x->name + "[" + idx->name + "], " +
                u->name + " update_window_dims = " + list(windowDims) +
                " inserted_window_dims = [0] scatter_dims_to_operand_dims = [0] mode = " +
                mode.str() + " : (" + x->type() + ", " + idx->type() + ", " + u->type() +
                ") -> " + x->type());
  return add(blk, Value{name, x->shape, x->dt});
}
