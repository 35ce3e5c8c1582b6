//===- GeneratorValues.cpp - scalars, literals, constants, conversions ----===//

#include "tools/kiln-difftest/GeneratorImpl.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>

using namespace kiln::difftest;
using namespace kiln::difftest::gen;
using llvm::StringRef;

int64_t gen::numel(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string gen::tensorType(const Shape &shape, StringRef dt) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + dt.str() + ">";
}

std::string gen::list(const Shape &xs) {
  std::string s = "[";
  for (size_t i = 0; i < xs.size(); ++i)
    s += (i ? ", " : "") + std::to_string(xs[i]);
  return s + "]";
}

bool gen::isFloat(StringRef dt) { return dt == "f32" || dt == "f64" || dt == "f16" || dt == "bf16"; }
bool gen::isInt(StringRef dt) { return dt == "i8" || dt == "i32" || dt == "i64" || dt == "ui32"; }

unsigned gen::bitsOf(StringRef dt) {
  return llvm::StringSwitch<unsigned>(dt)
      .Cases({"f32", "i32", "ui32"}, 32)
      .Cases({"f64", "i64"}, 64)
      .Cases({"f16", "bf16"}, 16)
      .Case("i8", 8)
      .Default(1);
}

static std::string joined(llvm::ArrayRef<Value *> values,
                          llvm::function_ref<std::string(const Value &)> fn) {
  std::string s;
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + fn(*values[i]);
  return s;
}
std::string gen::namesOf(llvm::ArrayRef<Value *> values) {
  return joined(values, [](const Value &v) { return v.name; });
}
std::string gen::typesOf(llvm::ArrayRef<Value *> values) {
  return joined(values, [](const Value &v) { return v.type(); });
}
std::string gen::declsOf(llvm::ArrayRef<Value *> values) {
  return joined(values, [](const Value &v) { return v.name + ": " + v.type(); });
}

std::vector<std::string> gen::namesIn(StringRef text) {
  std::vector<std::string> names;
  auto isWord = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%' || i + 1 >= text.size() || !isWord(text[i + 1]))
      continue;
    size_t j = i + 1;
    while (j < text.size() && isWord(text[j]))
      ++j;
    names.push_back(text.slice(i, j).str());
    i = j - 1;
  }
  return names;
}

double gen::roundTo3(double x) {
  // CPython rounds through a correctly rounded decimal conversion, as
  // glibc's printf and strtod are.
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.3f", x);
  return std::strtod(buf, nullptr);
}

static const llvm::fltSemantics &semanticsOf(StringRef dt) {
  if (dt == "f16")
    return llvm::APFloat::IEEEhalf();
  if (dt == "bf16")
    return llvm::APFloat::BFloat();
  if (dt == "f32")
    return llvm::APFloat::IEEEsingle();
  return llvm::APFloat::IEEEdouble();
}

std::string gen::literal(StringRef dt, const Scalar &x) {
  if (isFloat(dt)) {
    // numpy rounds a Python float to f16/f32 once; ml_dtypes rounds to bf16
    // through float.
    llvm::APFloat value(dt == "bf16" ? double(float(x.f)) : x.f);
    bool lost;
    value.convert(semanticsOf(dt), llvm::APFloat::rmNearestTiesToEven, &lost);
    uint64_t bits = value.bitcastToAPInt().getZExtValue();
    std::string hex = llvm::utohexstr(bits, /*LowerCase=*/false, bitsOf(dt) / 4);
    return "0x" + hex;
  }
  if (dt == "i1")
    return x.i ? "true" : "false";
  return std::to_string(x.i);
}

namespace {
/// Values that break naive implementations.
std::vector<Scalar> hardValues(StringRef dt) {
  std::vector<Scalar> out;
  if (isFloat(dt)) {
    const llvm::fltSemantics &sem = semanticsOf(dt);
    double tiny = llvm::APFloat::getSmallestNormalized(sem).convertToDouble();
    double big = llvm::APFloat::getLargest(sem).convertToDouble();
    double sub = llvm::APFloat::getSmallest(sem).convertToDouble();
    double inf = std::numeric_limits<double>::infinity();
    for (double f : {0.0, -0.0, inf, -inf, std::numeric_limits<double>::quiet_NaN(), sub, -sub,
                     tiny, -tiny, big, -big, big / 2, 1.0, -1.0, 0.5, -2.0, 3.0, 1e-3})
      out.push_back({f, 0});
    return out;
  }
  auto ints = [&](std::initializer_list<int64_t> xs) {
    for (int64_t i : xs)
      out.push_back({0, i});
    return out;
  };
  if (dt == "i1")
    return ints({1, 0});
  if (dt == "ui32")
    return ints({0, 1, 2, (int64_t(1) << 31) - 1, int64_t(1) << 31, (int64_t(1) << 32) - 1,
                 3000000000, 7});
  int64_t b = bitsOf(dt);
  int64_t lo = b == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (b - 1));
  int64_t hi = b == 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (b - 1)) - 1;
  return ints({0, 0, 1, -1, lo, hi, lo + 1, hi - 1, 2, -2, b - 1, b, b + 1});
}
} // namespace

Generator::Generator(ChoiceSource &source, const GeneratorOptions &options)
    : rng(source), lateSource(options.lateFamiliesSeed), options(options) {
  maxOps = options.maxOps ? options.maxOps : unsigned(rng.randint(4, 18));
  static const double rates[] = {0.0, 0.1, 0.3, 0.6};
  hardP = rates[rng.choiceIndex(4)];
  mayOverflow = hardP > 0;
  sortChance = lateRng.random() < 0.1 ? 0.15 : 0.0;
}

std::string Generator::fresh(StringRef prefix) {
  ++counter;
  return "%" + prefix.str() + std::to_string(counter);
}

Shape Generator::randShape(unsigned maxRank) {
  static const int64_t ranks[] = {0, 1, 1, 2, 2, 2, 3, 3};
  int64_t rank = ranks[rng.choiceIndex(std::min<size_t>(8, 2 + 2 * maxRank))];
  while (true) {
    Shape s;
    for (int64_t i = 0; i < rank; ++i)
      s.push_back(dimSize(5));
    if (numel(s) <= maxElements())
      return s;
  }
}

std::string Generator::randDt(llvm::ArrayRef<StringRef> kinds) {
  static const StringRef all[] = {"f32", "f32", "f64", "f16", "bf16", "i8",
                                  "i32", "i32", "i64", "ui32", "i1"};
  if (kinds.empty())
    kinds = all;
  return rng.choice(kinds).str();
}

Value *Generator::pick(const std::vector<Value *> &pool, Predicate pred) {
  std::vector<Value *> candidates;
  for (Value *v : pool)
    if (pred(*v))
      candidates.push_back(v);
  if (candidates.empty())
    return nullptr;
  // Recency bias: deep chains rather than wide fans.
  size_t k = candidates.size();
  double r = rng.random();
  size_t i = std::min<size_t>(k - 1, size_t(double(k) * (1 - std::pow(r, 2.0))));
  return candidates[i];
}

Value *Generator::newValue(Value value) {
  values.push_back(std::move(value));
  // Every value's type is known from its creation: the stability rules ask
  // it of region and callee arguments too (a scan carry's f32 converted to
  // ui32 in the body was not seen as a float conversion, so an integer of
  // an approximate value was compared; the REGION check of
  // tests/tools/difftest-stability.test).
  dtypes[values.back().name] = values.back().dt;
  return &values.back();
}

Value *Generator::add(Block &blk, Value value) { return addMade(blk, newValue(std::move(value))); }

Value *Generator::addMade(Block &blk, Value *v) {
  blk.pool.push_back(v);
  taint[v->name] = inferTaint(blk, *v);
  return v;
}

std::vector<Scalar> Generator::randomValues(StringRef dt, int64_t n, double hardP) {
  std::vector<Scalar> out;
  std::vector<Scalar> hard = hardValues(dt);
  for (int64_t k = 0; k < n; ++k) {
    if (rng.random() < hardP) {
      out.push_back(rng.choice(hard));
    } else if (isFloat(dt)) {
      double r = rng.random();
      if (r < 0.7)
        out.push_back({roundTo3(rng.uniform(-2, 2)), 0});
      else if (r < 0.85)
        out.push_back({double(rng.randint(-4, 4)), 0});
      else
        out.push_back({rng.uniform(-100, 100), 0});
    } else if (dt == "i1") {
      out.push_back({0, rng.random() < 0.5});
    } else if (dt == "ui32") {
      out.push_back({0, rng.randint(0, 9)});
    } else {
      out.push_back({0, rng.randint(-6, 6)});
    }
  }
  return out;
}

Value *Generator::constant(Block &blk, const Shape &shape, StringRef dt, int splat) {
  std::string name = fresh("c");
  int64_t n = numel(shape);
  if (splat < 0)
    splat = n == 1 || rng.random() < 0.5;
  std::vector<Scalar> vals = randomValues(dt, splat ? 1 : n, std::max(hardP, 0.2));
  if (isFloat(dt)) {
    double largest = dt == "f64" ? 1.7976931348623157e308 : dt == "f16" ? 65504.0 : 3.4028234663852886e38;
    for (const Scalar &v : vals)
      mayOverflow |= std::fabs(v.f) >= largest / 8;
  }
  std::string body;
  if (splat) {
    body = literal(dt, vals[0]);
  } else {
    // Nested brackets, row-major.
    std::function<std::string(size_t, size_t)> nest = [&](size_t offset, size_t dim) {
      if (dim == shape.size())
        return literal(dt, vals[offset]);
      Shape inner(shape.begin() + dim + 1, shape.end());
      int64_t step = numel(inner);
      std::string s = "[";
      for (int64_t i = 0; i < shape[dim]; ++i)
        s += (i ? ", " : "") + nest(offset + i * step, dim + 1);
      return s + "]";
    };
    body = nest(0, 0);
  }
  emit(blk, name + " = lax.constant dense<" + body + "> : " + tensorType(shape, dt));
  return add(blk, Value{name, shape, dt.str()});
}

Value *Generator::like(Block &blk, Value *v, StringRef dtArg) {
  std::string dt = dtArg.empty() ? v->dt : dtArg.str();
  std::vector<Value *> same;
  for (Value *u : blk.pool)
    if (u->shape == v->shape && u->dt == dt && u != v)
      same.push_back(u);
  double r = rng.random();
  if (!same.empty() && r < 0.6)
    return rng.choice(same);
  if (r < 0.8) {
    Value *src = pick(blk.pool, [&](const Value &u) { return u.shape == v->shape && u.dt != dt; });
    if (src)
      return convert(blk, src, dt);
  }
  if (r < 0.9 && dt == v->dt)
    return v;
  return constant(blk, v->shape, dt);
}

Value *Generator::convert(Block &blk, Value *v, StringRef dt) {
  std::string name = fresh();
  emit(blk, name + " = lax.convert_element_type " + v->name + " : " + v->type() + " -> " +
                tensorType(v->shape, dt));
  return add(blk, Value{name, v->shape, dt.str()});
}

Value *Generator::scalarI32(Block &blk) {
  Value *v = pick(blk.pool, [](const Value &u) {
    return u.shape.empty() && (u.dt == "i32" || u.dt == "i64");
  });
  if (v && rng.random() < 0.7)
    return v;
  v = pick(blk.pool, [](const Value &u) { return u.shape.empty() && u.dt != "i1"; });
  if (v && rng.random() < 0.5)
    return convert(blk, v, "i32");
  return constant(blk, {}, "i32");
}

kiln::interp::Tensor kiln::difftest::toTensor(const GeneratedInput &input, mlir::MLIRContext *context) {
  StringRef dt = input.elementType;
  mlir::Type element;
  if (dt == "f32")
    element = mlir::Float32Type::get(context);
  else if (dt == "f64")
    element = mlir::Float64Type::get(context);
  else if (dt == "f16")
    element = mlir::Float16Type::get(context);
  else if (dt == "bf16")
    element = mlir::BFloat16Type::get(context);
  else if (dt == "ui32")
    element = mlir::IntegerType::get(context, 32, mlir::IntegerType::Unsigned);
  else
    element = mlir::IntegerType::get(context, bitsOf(dt));
  kiln::interp::Tensor tensor(mlir::RankedTensorType::get(input.shape, element));
  for (int64_t i = 0; i < tensor.size(); ++i) {
    if (tensor.isFloat())
      tensor.setFloat(i, input.floats[i]);
    else
      tensor.setInt(i, input.ints[i]);
  }
  return tensor;
}
