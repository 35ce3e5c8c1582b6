//===- Comparison.cpp - the one error model for comparing results ---------===//
//
// compareOutput() applies the model of Comparison.h element by element; the
// magnitudes come from Magnitude.cpp.
//
//===----------------------------------------------------------------------===//
#include "reference/Comparison.h"
#include "reference/Evaluator.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace kiln::interp;

double kiln::interp::epsilonOf(Type element) {
  auto f = cast<FloatType>(element);
  // 2^(1 - precision): 2^-23 for f32, 2^-52 for f64, 2^-10 for f16, 2^-7
  // for bf16.
  return std::ldexp(1.0, 1 - int(llvm::APFloat::semanticsPrecision(f.getFloatSemantics())));
}

double kiln::interp::tinyOf(Type element) {
  auto f = cast<FloatType>(element);
  return std::ldexp(1.0, int(llvm::APFloat::semanticsMinExponent(f.getFloatSemantics())));
}

namespace {

/// The largest finite value of `element` and half its ulp: a value of that
/// magnitude or more rounds to infinity.
std::pair<double, double> overflowEdge(Type element) {
  const llvm::fltSemantics &sem = cast<FloatType>(element).getFloatSemantics();
  llvm::APFloat largest = llvm::APFloat::getLargest(sem), below = largest;
  below.next(/*nextDown=*/true);
  auto toDouble = [](llvm::APFloat v) {
    bool lost = false;
    v.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &lost);
    return v.convertToDouble();
  };
  double max = toDouble(largest);
  return {max, (max - toDouble(below)) / 2};
}

/// Judges element i of a float output; fills `e` and returns whether it
/// passes. `edge`: overflowEdge of the element type.
bool judgeFloat(double got, double ref, double mag, bool magKnown, double eps, double tiny,
                std::pair<double, double> edge, const ErrorModel &model, ElementReport &e,
                const double *ref64 = nullptr, double rounded = 0, double level = 0,
                double scale64 = 0, double typeTiny = 0) {
  e.got = got;
  e.ref = ref;
  e.mag = mag;
  e.bound = 0;
  // The bound of a finite reference; k = 0 asks for identical values
  // whatever mag is (0 * inf is NaN).
  auto boundOf = [&] {
    double carried = model.k == 0 ? 0 : model.k * (eps * (std::fabs(ref) + mag) + tiny);
    return carried + model.atol + model.rtol * std::fabs(ref);
  };
  if (model.k > 0 && mag == INFINITY && !std::isinf(ref)) {
    // Unbounded: the error carried in may be anything (log of a value
    // whose error reaches 0, cos(1.7e38) then log: the reference's -0.96
    // gives NaN, a JIT's 1 gives 0). An infinite reference stays exact
    // (exp(1000) must overflow however its S came out).
    e.error = std::isnan(ref) || std::isnan(got) ? INFINITY : std::fabs(got - ref);
    e.bound = INFINITY;
    if (ref64 && std::isfinite(*ref64) && std::isfinite(rounded) && std::isfinite(got)) {
      // Judged against the float64 run (OutputComparison::numUnboundedJudged).
      e.error = std::fabs(got - *ref64);
      e.bound = std::max(16 * std::fabs(rounded - *ref64),
                         level * std::max(std::fabs(*ref64), scale64)) +
                model.k * typeTiny + model.atol + model.rtol * std::fabs(ref);
      e.ratio = e.error == 0 ? 0 : e.error / e.bound;
      e.againstF64 = true;
      e.ref = *ref64;
      return e.ratio <= 1;
    }
    return true;
  }
  if (model.k > 0 && magKnown && std::isinf(got) && std::isfinite(ref) && std::isfinite(mag) &&
      std::signbit(got) == std::signbit(ref)) {
    // An approximate result may round past the largest finite value where
    // the reference did not: the infinity passes when a value within the
    // bound of the reference, on its side, rounds to it (the JIT's f32
    // x * x * x at x = -6.98e12 is -inf, the interpreter's one rounding of
    // the exact cube -FLT_MAX; ComparisonTest.OverflowWithinTheBound and
    // tests/differential/regressions/integer-pow-overflow-edge.mlir). Only
    // with the element's own magnitude: the fallback's (the output's scale)
    // knows nothing of the element, and FLT_MAX's scale would let any
    // infinity stand for FLT_MAX. A finite result against an infinite
    // reference stays exact.
    e.bound = boundOf();
    e.error = INFINITY;
    if ((edge.first - std::fabs(ref)) + edge.second <= e.bound) {
      e.ratio = 1;
      return true;
    }
  }
  if (std::isnan(ref) || std::isnan(got) || std::isinf(ref) || std::isinf(got)) {
    // NaN exactly where the reference has NaN; an infinity exactly where it
    // has the same infinity.
    bool same = (std::isnan(ref) && std::isnan(got)) || got == ref;
    e.error = same ? 0 : INFINITY;
    e.ratio = same ? 0 : INFINITY;
    return same;
  }
  e.error = std::fabs(got - ref);
  e.bound = boundOf();
  e.ratio = e.error == 0 ? 0 : e.error / e.bound; // x / 0 = inf
  // A bound of 0 asks for the identical value: zeros of the same sign too.
  // That is k = 0 without slack, or a zero whose known magnitude is 0 (made
  // of nothing or of exact zeros: its sign does not depend on the order of
  // a sum, the JIT's empty sum gave -0 for JAX's +0).
  if (e.bound == 0 && got == 0 && std::signbit(got) != std::signbit(ref))
    e.ratio = INFINITY;
  return e.ratio <= 1;
}

std::string formatIndex(int64_t flat, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> index;
  unravel(flat, shape, index);
  std::string s = "[";
  for (auto [i, v] : llvm::enumerate(index))
    s += (i ? ", " : "") + std::to_string(v);
  return s + "]";
}

/// "at [i, j]: got G, reference R" and why it fails or how close it is.
void printElement(llvm::raw_ostream &os, const ElementReport &e, RankedTensorType type,
                  StringRef refName) {
  bool isFloat = isa<FloatType>(type.getElementType());
  const char *fmt = !isFloat ? "%.17g" : type.getElementType().isF64() ? "%.17g" : "%.9g";
  os << "at " << formatIndex(e.index, type.getShape()) << ": got " << llvm::format(fmt, e.got)
     << ", " << refName << " " << llvm::format(fmt, e.ref);
  if (!isFloat)
    return;
  if (std::isnan(e.got) || std::isnan(e.ref))
    os << " (NaN must be where the " << refName << " has NaN)";
  else if (std::isinf(e.got) && std::isfinite(e.ref) && e.ratio <= 1)
    os << llvm::format(" (an overflow within the bound %.3g, mag %.3g)", e.bound, e.mag);
  else if (std::isinf(e.got) || std::isinf(e.ref))
    os << " (infinities must be where the " << refName << " has the same infinity)";
  else if (e.error == 0 && e.ratio > 1)
    os << " (zeros of different signs)";
  else if (e.againstF64)
    os << llvm::format(" (the float64 run's: unbounded by the model), error %.3g = %.3g x "
                       "bound %.3g",
                       e.error, e.ratio, e.bound);
  else
    os << llvm::format(", error %.3g = %.3g x bound %.3g (mag %.3g)", e.error, e.ratio, e.bound,
                       e.mag);
}

} // namespace

OutputComparison kiln::interp::compareOutput(const Tensor &got, const Tensor &ref,
                                             const Tensor *mag, const ErrorModel &model,
                                             const Tensor *f64, const Tensor *rounded) {
  OutputComparison c;
  c.type = ref.getType();
  if (got.getType() != ref.getType()) {
    llvm::raw_string_ostream(c.typeMismatch) << "type " << got.getType() << " vs " << ref.getType();
    return c;
  }
  if (mag && (!mag->isFloat() || mag->getType().getShape() != ref.shape()))
    mag = nullptr;
  if (f64 && (!f64->isFloat() || f64->getType().getShape() != ref.shape()))
    f64 = nullptr;
  if (!rounded || rounded->getType() != ref.getType())
    rounded = &ref;
  c.numElements = ref.size();
  auto record = [&](bool pass, ElementReport &e, int64_t i) {
    e.index = i;
    if (!pass) {
      if (c.numFailures++ == 0)
        c.firstFailure = e;
    }
    if (e.ratio > c.worst.ratio || (c.worst.index < 0 && e.ratio > 0))
      c.worst = e;
  };
  if (!ref.isFloat()) {
    for (int64_t i = 0; i < ref.size(); ++i) {
      ElementReport e;
      e.got = double(got.getInt(i));
      e.ref = double(ref.getInt(i));
      bool pass = got.getInt(i) == ref.getInt(i); // exact, no double round trip
      e.error = pass ? 0 : INFINITY;
      e.ratio = e.error;
      record(pass, e, i);
    }
    return c;
  }
  for (int64_t i = 0; i < ref.size(); ++i)
    if (std::isfinite(ref.getFloat(i)))
      c.scale = std::max(c.scale, std::fabs(ref.getFloat(i)));
  Type element = ref.getElementType();
  double eps = epsilonOf(element), tiny = tinyOf(element);
  // The relative level an unbounded element is judged at against the
  // float64 run: cbrt(eps) (4.9e-3 in f32: the JIT's reassociated f32 sums
  // are further from the float64 value than the interpreter's exact ones,
  // 2e-4 relative on Adam's cancelled gradients), or 16 times the median
  // relative distance of the rounded interpreter from the float64 run over
  // the output, which is the precision the output was computed in (a bf16
  // computation widened to f32 is ~2^-9 from its float64 values).
  // The level also applies to the output's median |value| (`scale64`): an
  // element that is small because it cancelled (a bf16 Adam step w - lr *
  // m / sqrt(v) with w close to lr * m / sqrt(v)) carries the error of its
  // larger terms.
  double level = std::cbrt(eps), scale64 = 0;
  auto median = [](std::vector<double> &v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  if (f64) {
    std::vector<double> rel, mags;
    for (int64_t i = 0; i < ref.size(); ++i) {
      double r64 = f64->getFloat(i), rr = rounded->getFloat(i);
      if (std::isfinite(r64))
        mags.push_back(std::fabs(r64));
      if (std::isfinite(r64) && std::isfinite(rr) && r64 != 0)
        rel.push_back(std::fabs(rr - r64) / std::fabs(r64));
    }
    if (!rel.empty())
      level = std::max(level, 16 * median(rel));
    if (!mags.empty())
      scale64 = median(mags);
  }
  ErrorModel elementModel = model;
  if (element.isF16() || element.isBF16())
    elementModel.k = std::min(model.k, model.narrowK);
  std::pair<double, double> edge = overflowEdge(element);
  for (int64_t i = 0; i < ref.size(); ++i) {
    double m = mag ? mag->getFloat(i) : NAN;
    // A known magnitude carries the underflows of the ops that computed the
    // element (Magnitude.cpp); the model's blanket tiny(T) is for the
    // fallback only. In f16 it is 6.1e-5: at k = 64 any result below 0.004
    // passed (the JIT's f16 log1p(1.5e-5) = 0;
    // ComparisonTest.MagnitudesOfNarrowFunctionsUnderflow).
    double absolute = 0;
    bool known = !(std::isnan(m) || m == -INFINITY);
    if (!known) {
      m = c.scale;
      absolute = tiny;
      c.numFallbacks += std::isfinite(ref.getFloat(i)); // else compared exactly
    }
    ElementReport e;
    double r64 = f64 ? f64->getFloat(i) : NAN;
    bool pass =
        judgeFloat(got.getFloat(i), ref.getFloat(i), std::max(m, 0.0), known, eps, absolute, edge,
                   elementModel, e, f64 ? &r64 : nullptr, rounded->getFloat(i), level, scale64,
                   tiny);
    c.numUnbounded += model.k > 0 && m == INFINITY && !std::isinf(ref.getFloat(i));
    c.numUnboundedJudged += e.againstF64;
    record(pass, e, i);
  }
  return c;
}

bool Comparison::anyUnbounded() const {
  return llvm::any_of(outputs, [](const OutputComparison &o) { return o.numUnbounded > 0; });
}

Comparison kiln::interp::compareOutputs(ArrayRef<Tensor> got, ArrayRef<Tensor> ref,
                                        ArrayRef<Tensor> mags, const ErrorModel &model,
                                        ArrayRef<Tensor> f64, ArrayRef<Tensor> rounded) {
  Comparison c;
  if (got.size() != ref.size())
    c.countMismatch =
        std::to_string(got.size()) + " outputs, " + std::to_string(ref.size()) + " expected";
  for (size_t i = 0; i < std::min(got.size(), ref.size()); ++i)
    c.outputs.push_back(
        compareOutput(got[i], ref[i], mags.size() == ref.size() ? &mags[i] : nullptr, model,
                      f64.size() == ref.size() ? &f64[i] : nullptr,
                      rounded.size() == ref.size() ? &rounded[i] : nullptr));
  return c;
}

void OutputComparison::print(llvm::raw_ostream &os, StringRef refName) const {
  if (!typeMismatch.empty()) {
    os << "DIFFERS (" << typeMismatch << ")";
    return;
  }
  bool isFloat = isa<FloatType>(type.getElementType());
  if (ok()) {
    os << "matches";
    if (worst.index < 0) {
      os << (numElements ? " (all equal)" : " (no elements)");
    } else {
      os << llvm::format(" (worst %.3g x bound, ", worst.ratio);
      printElement(os, worst, type, refName);
      os << ")";
    }
  } else {
    os << "DIFFERS: " << numFailures << " of " << numElements << " elements "
       << (isFloat ? "over the bound" : "differ") << "; first ";
    printElement(os, firstFailure, type, refName);
    if (worst.index != firstFailure.index) {
      os << "; worst ";
      printElement(os, worst, type, refName);
    }
  }
  if (numUnbounded > 0) {
    os << "; unbounded (mag inf) for " << numUnbounded << " of " << numElements << " elements";
    if (numUnboundedJudged > 0)
      os << ", " << numUnboundedJudged << " of them judged against the float64 run";
    if (numUnboundedJudged < numUnbounded)
      os << ", " << numUnbounded - numUnboundedJudged << " unchecked";
  }
  if (numFallbacks > 0)
    os << llvm::format("; mag unknown for %lld of %lld elements, the output's scale %.3g "
                       "stands in",
                       (long long)numFallbacks, (long long)numElements, scale);
}

bool Comparison::ok() const {
  return countMismatch.empty() &&
         llvm::all_of(outputs, [](const OutputComparison &o) { return o.ok(); });
}

bool Comparison::okExcept(const llvm::SmallDenseSet<unsigned> &skipped) const {
  if (!countMismatch.empty())
    return false;
  for (auto [i, output] : llvm::enumerate(outputs))
    if (!output.ok() && !skipped.contains(i))
      return false;
  return true;
}

/// The output indices listed on the line of `text` that starts with
/// `marker` ("// jit-unstable-outputs: 1,3").
static llvm::SmallDenseSet<unsigned> markedOutputs(llvm::StringRef text,
                                                   llvm::StringRef marker) {
  llvm::SmallDenseSet<unsigned> marked;
  size_t pos = text.find(marker);
  if (pos == llvm::StringRef::npos)
    return marked;
  llvm::StringRef list =
      text.drop_front(pos + marker.size()).take_until([](char c) { return c == '\n'; });
  llvm::SmallVector<llvm::StringRef> items;
  list.split(items, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef item : items) {
    unsigned i;
    if (!item.trim().getAsInteger(10, i))
      marked.insert(i);
  }
  return marked;
}

llvm::SmallDenseSet<unsigned> kiln::interp::unstableOutputs(llvm::StringRef text) {
  return markedOutputs(text, kUnstableOutputsMarker);
}

llvm::SmallDenseSet<unsigned> kiln::interp::exactOutputs(llvm::StringRef text) {
  return markedOutputs(text, kExactOutputsMarker);
}

double Comparison::worst(const llvm::SmallDenseSet<unsigned> &skipped) const {
  double w = countMismatch.empty() ? 0 : INFINITY;
  for (auto [i, o] : llvm::enumerate(outputs))
    if (!skipped.contains(i))
      w = std::max(w, o.typeMismatch.empty() ? o.worst.ratio : INFINITY);
  return w;
}

void Comparison::print(llvm::raw_ostream &os, StringRef refName) const {
  if (!countMismatch.empty())
    os << "DIFFERS: " << countMismatch << "\n";
  for (auto [i, o] : llvm::enumerate(outputs)) {
    os << "output " << i << ": ";
    o.print(os, refName);
    os << "\n";
  }
  os << llvm::format("worst error: %.3g x bound\n", worst());
}

std::string Comparison::firstProblem(StringRef refName) const {
  if (!countMismatch.empty())
    return countMismatch;
  for (auto [i, o] : llvm::enumerate(outputs))
    if (!o.ok()) {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << "output " << i << ": ";
      o.print(os, refName);
      return s;
    }
  return "";
}
