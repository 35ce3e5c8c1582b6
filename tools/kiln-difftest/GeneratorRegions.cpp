//===- GeneratorRegions.cpp - region bodies, lax.scan ---------------------===//

#include "tools/kiln-difftest/GeneratorImpl.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace kiln::difftest;
using namespace kiln::difftest::gen;
using llvm::StringRef;

using ResultTypes = std::vector<std::pair<Shape, std::string>>;

static std::vector<Value *> concat(std::initializer_list<std::vector<Value *>> parts) {
  std::vector<Value *> out;
  for (const auto &p : parts)
    out.insert(out.end(), p.begin(), p.end());
  return out;
}

Block Generator::subBlock(Block &blk, const std::vector<Value *> &args, bool capture) {
  Block inner;
  inner.indent = blk.indent + "  ";
  if (capture && rng.random() < 0.4)
    inner.pool = blk.pool;
  inner.pool.insert(inner.pool.end(), args.begin(), args.end());
  inner.depth = blk.depth + 1;
  return inner;
}

std::vector<Value *> Generator::body(Block &inner, int64_t numOps, const ResultTypes &results) {
  for (int64_t i = 0; i < numOps; ++i)
    randomOp(inner);
  std::vector<Value *> out;
  for (const auto &[shape, dt] : results) {
    std::vector<Value *> c;
    for (Value *u : inner.pool)
      if (u->shape == shape && u->dt == dt)
        c.push_back(u);
    // Prefer computed values over captured ones and arguments.
    if (!c.empty() && rng.random() < 0.9) {
      out.push_back(rng.random() < 0.6 ? c.back() : rng.choice(c));
      continue;
    }
    c.clear();
    for (Value *u : inner.pool)
      if (u->shape == shape)
        c.push_back(u);
    if (!c.empty() && rng.random() < 0.8)
      out.push_back(convert(inner, rng.choice(c), dt));
    else
      out.push_back(constant(inner, shape, dt));
  }
  return out;
}

void gen::appendRegion(Block &blk, const Block &inner, const std::vector<Value *> &args,
                       const std::vector<Value *> &outs) {
  blk.lines.push_back(blk.indent + "^bb0(" + declsOf(args) + "):");
  blk.lines.insert(blk.lines.end(), inner.lines.begin(), inner.lines.end());
  blk.lines.push_back(inner.indent + "lax.yield " + namesOf(outs) + " : " + typesOf(outs));
}

static std::string axesAttr(StringRef name, const Shape &axes) {
  std::string s = name.str() + " = array<i64: ";
  for (size_t i = 0; i < axes.size(); ++i)
    s += (i ? ", " : "") + std::to_string(axes[i]);
  return s + ">";
}

Value *Generator::opScan(Block &blk) {
  if (blk.depth >= 2)
    return nullptr;
  int64_t length = rng.randint(1, 5);
  bool reverse = rng.random() < 0.3;
  std::vector<Value *> consts, carries, xs;
  for (int64_t i = rng.randint(0, 1); i > 0; --i)
    consts.push_back(pick(blk.pool));
  for (int64_t i = rng.randint(0, 2); i > 0; --i)
    carries.push_back(pick(blk.pool));
  Shape xsAxes;
  std::vector<std::pair<Shape, std::string>> slices;
  for (int64_t n = rng.randint(carries.empty() ? 1 : 0, 2); n > 0; --n) {
    std::vector<Value *> cands;
    for (Value *u : blk.pool)
      if (llvm::is_contained(u->shape, length))
        cands.push_back(u);
    Value *x;
    int64_t ax;
    auto axesOfLength = [&](Value *v) {
      Shape out;
      for (size_t i = 0; i < v->shape.size(); ++i)
        if (v->shape[i] == length)
          out.push_back(i);
      return out;
    };
    if (!cands.empty() && rng.random() < 0.8) {
      x = rng.choice(cands);
      ax = rng.choice(axesOfLength(x));
    } else {
      x = opBroadcastTo(blk, length);
      if (!x)
        continue;
      ax = 0;
    }
    if (rng.random() < 0.25 && x->shape.size() >= 2) {
      // A transposed xs: kiln-fold-scan-layout folds it into the axis.
      Value *t = opTranspose(blk, x);
      ax = rng.choice(axesOfLength(t));
      x = t;
    }
    xs.push_back(x);
    xsAxes.push_back(ax);
    Shape slice = x->shape;
    slice.erase(slice.begin() + ax);
    slices.push_back({slice, x->dt});
  }
  if (carries.empty() && xs.empty())
    return nullptr;
  std::vector<Value *> args;
  for (Value *v : concat({consts, carries}))
    args.push_back(newValue({fresh("a"), v->shape, v->dt}));
  for (auto &[shape, dt] : slices)
    args.push_back(newValue({fresh("a"), shape, dt}));
  setArgsTaint(args, concat({consts, carries, xs}), /*loop=*/true);
  Block inner = subBlock(blk, args);
  int64_t ny = rng.randint(carries.empty() ? 1 : 0, 2);
  ResultTypes drawn, yshapes;
  for (int64_t i = 0; i < ny; ++i) {
    Shape s = randShape(2);
    drawn.push_back({s, randDt()});
  }
  for (auto &y : drawn)
    if (numel(y.first) * length <= maxElements())
      yshapes.push_back(y);
  if (yshapes.empty() && carries.empty())
    yshapes.push_back({{}, "f32"});
  ResultTypes resultTypes;
  for (Value *c : carries)
    resultTypes.push_back({c->shape, c->dt});
  resultTypes.insert(resultTypes.end(), yshapes.begin(), yshapes.end());
  int64_t numOps = rng.randint(1, 5);
  std::vector<Value *> outs = body(inner, numOps, resultTypes);
  Shape ysAxes;
  for (auto &y : yshapes)
    ysAxes.push_back(rng.randint(0, y.first.size()));
  std::vector<Value *> res;
  for (Value *c : carries)
    res.push_back(newValue({fresh(), c->shape, c->dt}));
  for (size_t i = 0; i < yshapes.size(); ++i) {
    Shape s = yshapes[i].first;
    s.insert(s.begin() + ysAxes[i], length);
    res.push_back(newValue({fresh(), s, yshapes[i].second}));
  }
  std::vector<std::string> attrs;
  if (reverse)
    attrs.push_back("reverse = true");
  if (llvm::any_of(xsAxes, [](int64_t a) { return a != 0; }))
    attrs.push_back(axesAttr("xs_axes", xsAxes));
  if (llvm::any_of(ysAxes, [](int64_t a) { return a != 0; }))
    attrs.push_back(axesAttr("ys_axes", ysAxes));
  std::string attr = attrs.empty() ? "" : " {" + llvm::join(attrs, ", ") + "}";
  std::vector<Value *> operands = concat({consts, carries, xs});
  std::string constPart = consts.empty() ? "" : " consts(" + namesOf(consts) + ")";
  emit(blk, namesOf(res) + " = lax.scan length = " + std::to_string(length) + constPart +
                " carry(" + namesOf(carries) + ") xs(" + namesOf(xs) + ")" + attr + " : (" +
                typesOf(operands) + ") -> (" + typesOf(res) + ") {");
  appendRegion(blk, inner, args, outs);
  emit(blk, "}");
  for (Value *r : res)
    addMade(blk, r);
  // Consumers the scan rewrites look for.
  std::vector<Value *> ysResults(res.begin() + carries.size(), res.end());
  if (!ysResults.empty() && rng.random() < 0.5) {
    size_t which = rng.choiceIndex(ysResults.size());
    Value *y = ysResults[which];
    int64_t ax = ysAxes[which];
    double r = rng.random();
    if (r < 0.4 && y->dt != "i1") {
      static const StringRef kinds[] = {"reduce_sum", "reduce_max", "reduce_min"};
      StringRef kind = rng.choice(llvm::ArrayRef<StringRef>(kinds));
      Shape axes{ax};
      for (size_t i = 0; i < y->shape.size(); ++i)
        if (rng.random() < 0.3 && !llvm::is_contained(axes, int64_t(i)))
          axes.push_back(i);
      llvm::sort(axes);
      opReduce(blk, y, kind, &axes);
    } else if (r < 0.7 && y->shape.size() >= 2) {
      opTranspose(blk, y);
    } else {
      Shape dims{ax};
      opRev(blk, y, &dims);
    }
  }
  return res.empty() ? nullptr : res.front();
}

Value *Generator::opScanAccumulate(Block &blk) {
  // A scan whose carry accumulates a reduction of an elementwise function of
  // its xs slice (what kiln-scan-to-reduction turns into one reduction over
  // the stacked xs).
  if (blk.depth >= 2)
    return nullptr;
  Value *x = pick(blk.pool, [](const Value &u) { return u.shape.size() >= 1 && u.dt != "i1"; });
  if (!x)
    return nullptr;
  int64_t ax = rng.randrange(x->shape.size());
  int64_t length = x->shape[ax];
  Shape sl = x->shape;
  sl.erase(sl.begin() + ax);
  Shape axes;
  if (!sl.empty()) {
    int64_t k = rng.randint(0, sl.size());
    Shape all;
    for (size_t i = 0; i < sl.size(); ++i)
      all.push_back(i);
    llvm::SmallVector<int64_t> drawn = rng.sample(llvm::ArrayRef<int64_t>(all), k);
    axes.assign(drawn.begin(), drawn.end());
    llvm::sort(axes);
  }
  Shape cshape;
  for (size_t i = 0; i < sl.size(); ++i)
    if (!llvm::is_contained(axes, int64_t(i)))
      cshape.push_back(sl[i]);
  static const std::pair<StringRef, StringRef> kinds[] = {
      {"reduce_sum", "add"}, {"reduce_max", "max"}, {"reduce_min", "min"}, {"reduce_prod", "mul"}};
  auto [kind, comb] = kinds[rng.choiceIndex(4)];
  Value *init =
      pick(blk.pool, [&](const Value &u) { return u.shape == cshape && u.dt == x->dt; });
  if (!init)
    init = constant(blk, cshape, x->dt);
  Value *ca = newValue({fresh("a"), cshape, x->dt});
  Value *xa = newValue({fresh("a"), sl, x->dt});
  setArgsTaint({ca, xa}, {init, x}, /*loop=*/true);
  Block inner;
  inner.indent = blk.indent + "  ";
  inner.pool = {xa};
  inner.depth = blk.depth + 1;
  Value *f = xa;
  for (int64_t i = rng.randint(0, 2); i > 0; --i) {
    if (isFloat(x->dt))
      f = rng.random() < 0.5 ? opUnary(inner) : opBinary(inner);
    else
      f = opBinary(inner);
    if (f->shape != sl || f->dt != x->dt)
      f = xa;
  }
  if (!axes.empty()) {
    std::string r = fresh();
    emit(inner, r + " = lax." + kind.str() + " " + f->name + " axes = " + list(axes) + " : " +
                    f->type() + " -> " + tensorType(cshape, x->dt));
    f = add(inner, Value{r, cshape, x->dt});
  }
  std::string n = fresh();
  emit(inner, n + " = lax." + comb.str() + " " + ca->name + ", " + f->name + " : " + ca->type());
  Value *next = add(inner, Value{n, cshape, x->dt});
  Value res{fresh(), cshape, x->dt};
  std::vector<std::string> attrs;
  if (rng.random() < 0.3)
    attrs.push_back("reverse = true");
  if (ax)
    attrs.push_back("xs_axes = array<i64: " + std::to_string(ax) + ">");
  std::string attr = attrs.empty() ? "" : " {" + llvm::join(attrs, ", ") + "}";
  emit(blk, res.name + " = lax.scan length = " + std::to_string(length) + " carry(" +
                init->name + ") xs(" + x->name + ")" + attr + " : (" + init->type() + ", " +
                x->type() + ") -> " + res.type() + " {");
  appendRegion(blk, inner, {ca, xa}, {next});
  emit(blk, "}");
  return add(blk, res);
}

Value *Generator::opBroadcastTo(Block &blk, int64_t length) {
  Value *v = pick(blk.pool, [&](const Value &u) {
    return u.shape.size() <= 2 && numel(u.shape) * length <= maxElements();
  });
  if (!v)
    return nullptr;
  Shape shape{length};
  shape.insert(shape.end(), v->shape.begin(), v->shape.end());
  Shape dims;
  for (size_t i = 1; i < shape.size(); ++i)
    dims.push_back(i);
  std::string name = fresh();
  emit(blk, name + " = lax.broadcast_in_dim " + v->name + " shape = " + list(shape) +
                " dims = " + list(dims) + " : " + v->type() + " -> " + tensorType(shape, v->dt));
  return add(blk, Value{name, shape, v->dt});
}
