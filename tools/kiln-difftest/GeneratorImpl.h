//===- GeneratorImpl.h - the program generator's state -----------*- C++ -*-===//
//
// Internal to ProgramGenerator: the generator's values, blocks and
// decisions. Split by responsibility: GeneratorValues.cpp (scalars,
// literals, constants, conversions), GeneratorStability.cpp (which values
// the JIT comparison can compare), GeneratorOps.cpp (the op families),
// GeneratorRegions.cpp (region bodies, scans), GeneratorProgram.cpp (while,
// cond, callees, the choice of op, the program).
//
// Values are compared by identity (their address), names are the text's SSA
// names, and every decision is drawn in a fixed order: that order is the
// program, so reordering two draws changes every seed's program.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_DIFFTEST_GENERATORIMPL_H
#define KILN_TOOLS_KILN_DIFFTEST_GENERATORIMPL_H

#include "tools/kiln-difftest/ProgramGenerator.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <deque>
#include <string>
#include <vector>

namespace kiln::difftest::gen {

using Shape = std::vector<int64_t>;

/// Most elements of a tensor at GeneratorOptions::sizeScale 1.
constexpr int64_t kMaxElements = 48;

int64_t numel(const Shape &shape);
/// tensor<2x3xf32>
std::string tensorType(const Shape &shape, llvm::StringRef dt);
/// [1, 2, 3]
std::string list(const Shape &xs);
bool isFloat(llvm::StringRef dt);
bool isInt(llvm::StringRef dt); // i8, i32, i64, ui32 (not i1)
unsigned bitsOf(llvm::StringRef dt);

/// A value of the program: its SSA name, shape and element type.
struct Value {
  std::string name;
  Shape shape;
  std::string dt;
  std::string type() const { return tensorType(shape, dt); }
};

/// A scalar as the generator draws it: a double for floats, an integer
/// otherwise (0/1 for i1).
struct Scalar {
  double f = 0;
  int64_t i = 0;
};

/// The lines being emitted for one region (or @main, or a callee) and the
/// values its ops may use.
struct Block {
  std::vector<std::string> lines;
  std::string indent;
  std::vector<Value *> pool;
  unsigned depth = 0;
  bool top = false;
};

using Predicate = llvm::function_ref<bool(const Value &)>;

struct Callee {
  std::string name;
  std::vector<std::pair<Shape, std::string>> args, results;
};

/// Appends a region's block to `blk`: `^bb0(args):`, the lines of
/// `inner`, and `lax.yield outs`.
void appendRegion(Block &blk, const Block &inner, const std::vector<Value *> &args,
                  const std::vector<Value *> &outs);

class Generator {
public:
  Generator(ChoiceSource &source, const GeneratorOptions &options);
  GeneratedProgram generate();

  // Values and scalars (GeneratorValues.cpp).
  std::string fresh(llvm::StringRef prefix = "v");
  /// A dimension size in [1, hi * sizeScale].
  int64_t dimSize(int64_t hi) { return rng.randint(1, hi * int64_t(options.sizeScale)); }
  /// Most elements of a tensor: kMaxElements * sizeScale^2.
  int64_t maxElements() const {
    return kMaxElements * int64_t(options.sizeScale) * int64_t(options.sizeScale);
  }
  Shape randShape(unsigned maxRank = 3);
  std::string randDt(llvm::ArrayRef<llvm::StringRef> kinds = {});
  /// A value of the pool satisfying `pred`, biased to the recent ones.
  Value *pick(const std::vector<Value *> &pool, Predicate pred = [](const Value &) {
    return true;
  });
  void emit(Block &blk, const std::string &line) { blk.lines.push_back(blk.indent + line); }
  Value *add(Block &blk, Value value);
  /// Adds a value made before its op was emitted (a region op's results).
  Value *addMade(Block &blk, Value *v);
  Value *newValue(Value value);
  std::vector<Scalar> randomValues(llvm::StringRef dt, int64_t n, double hardP);
  Value *constant(Block &blk, const Shape &shape, llvm::StringRef dt, int splat = -1);
  Value *like(Block &blk, Value *v, llvm::StringRef dt = "");
  Value *convert(Block &blk, Value *v, llvm::StringRef dt);
  Value *scalarI32(Block &blk);

  // Stability for the JIT comparison (GeneratorStability.cpp).
  int argTaint(llvm::ArrayRef<Value *> sources);
  void setArgsTaint(llvm::ArrayRef<Value *> args, llvm::ArrayRef<Value *> sources, bool loop);
  int inferTaint(const Block &blk, const Value &v);
  int taintOf(llvm::StringRef name) const { return taint.lookup(name); }
  static bool isDiscrete(llvm::StringRef op);

  // Ops (GeneratorOps.cpp).
  Value *opUnary(Block &blk);
  Value *opBinary(Block &blk);
  Value *opCompareSelect(Block &blk);
  Value *opConvert(Block &blk);
  Value *opIota(Block &blk);
  Value *opBroadcast(Block &blk);
  Value *opReshape(Block &blk);
  Value *opTranspose(Block &blk, Value *v = nullptr);
  Value *opRev(Block &blk, Value *v = nullptr, const Shape *dims = nullptr);
  Value *opSlice(Block &blk);
  Value *opConcat(Block &blk);
  Value *opExpandSqueeze(Block &blk);
  Value *opDynamic(Block &blk);
  Value *opReduce(Block &blk, Value *v = nullptr, llvm::StringRef kind = "",
                  const Shape *axes = nullptr);
  Value *opDot(Block &blk);
  Value *opGatherScatter(Block &blk);
  Value *opSort(Block &blk);

  // The `models` profile (GeneratorModels.cpp).
  GeneratedProgram generateModel();
  /// One of the sizes around the cost model's thresholds, at most maxSize.
  int64_t modelDim(int64_t maxSize);
  /// `lax.<op> operands : T` of same-typed operands.
  Value *modelOp(Block &blk, llvm::StringRef op, llvm::ArrayRef<Value *> operands);
  Value *modelSplat(Block &blk, const Shape &shape, llvm::StringRef dt, double value);
  /// a x b of matrices contracting a's dim ca with b's cb.
  Value *modelDot(Block &blk, Value *a, Value *b, int64_t ca, int64_t cb, llvm::StringRef outDt);
  Value *modelTranspose(Block &blk, Value *v);
  Value *modelBroadcastRows(Block &blk, Value *row, int64_t rows);
  Value *modelSum(Block &blk, Value *v, const Shape &axes);
  /// v[..., start:, ...] along `dim`.
  Value *modelSlice(Block &blk, Value *v, int64_t dim, int64_t start);
  Value *modelConcat(Block &blk, Value *a, Value *b, int64_t dim);

  // Regions, calls and the program (GeneratorRegions.cpp).
  Block subBlock(Block &blk, const std::vector<Value *> &args, bool capture = true);
  std::vector<Value *> body(Block &inner, int64_t numOps,
                            const std::vector<std::pair<Shape, std::string>> &results);
  Value *opScan(Block &blk);
  Value *opScanAccumulate(Block &blk);
  Value *opBroadcastTo(Block &blk, int64_t length);
  Value *opWhile(Block &blk);
  Value *opCond(Block &blk);
  Value *opCall(Block &blk);
  const Callee &makeCallee(const std::vector<Value *> &args);
  Value *randomOp(Block &blk);

  Random rng;
  /// The late families' stream (GeneratorOptions::lateFamiliesSeed).
  PythonRandom lateSource;
  Random lateRng{lateSource};
  /// The chance that an op of randomOp is a sort or top_k: 0.15 in one
  /// program of ten, else 0 (drawn from lateRng).
  double sortChance = 0;
  GeneratorOptions options;
  unsigned maxOps;
  double hardP;
  /// Whether a float sum may overflow in another order than the
  /// interpreter's: the inputs have hard values (the largest finite numbers
  /// among them) or a constant holds a float within 8x of its type's largest.
  bool mayOverflow = false;
  unsigned counter = 0;
  std::deque<Value> values; // every value; addresses are identities
  llvm::StringMap<int> taint;
  llvm::StringMap<std::string> dtypes;
  llvm::StringMap<int> calleeTaint;
  llvm::StringMap<bool> calleeDiscrete;
  std::vector<std::string> funcs;
  std::deque<Callee> callees;
};

/// "%a, %b" of values' names, "T, U" of their types, "%a: T, %b: U" of a
/// block's arguments.
std::string namesOf(llvm::ArrayRef<Value *> values);
std::string typesOf(llvm::ArrayRef<Value *> values);
std::string declsOf(llvm::ArrayRef<Value *> values);

/// Python's round(x, 3).
double roundTo3(double x);
/// The MLIR literal of a scalar of `dt` (floats in hex, bit-exact after
/// rounding to dt as numpy / ml_dtypes round).
std::string literal(llvm::StringRef dt, const Scalar &x);
/// The SSA names (%[\w]+) in `text`, in order.
std::vector<std::string> namesIn(llvm::StringRef text);

} // namespace kiln::difftest::gen

#endif // KILN_TOOLS_KILN_DIFFTEST_GENERATORIMPL_H
