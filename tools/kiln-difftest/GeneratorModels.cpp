//===- GeneratorModels.cpp - programs shaped like training steps ----------===//
//
// The `models` profile of the generator (GeneratorOptions::profile): what
// real JAX programs contain and the random profile's small DAGs do not. A
// program is a training step of a small network, written as JAX's autodiff
// writes it:
//
//   - a forward pass of 1-5 dense layers, h' = act(h @ W [+ b]) [+ h]
//     (tanh, logistic, relu or none; residual adds where the widths agree);
//   - a backward pass: g @ W^T for the inputs' gradient, h^T @ g for the
//     weights' (a lax.transpose feeding a dot_general, or a dot_general
//     contracting the batch), reduce_sum over the batch for the biases, so
//     that dot_generals share operands across transposes;
//   - sometimes an Adam-like update (a division by a computed sqrt);
//   - sometimes zero-size pieces: slices that end at an axis' end or are
//     empty, concatenations with them, sums and contractions over them;
//   - dimension sizes on both sides of the cost model's thresholds (1 to
//     256: the runtime GEMM's, the matvec's, the vector widths');
//   - f32, or bf16/f16 arithmetic with dots rounded to the narrow type
//     (as a mixed-precision policy computes).
//
// The inputs are uniform in [-1, 1], the weights scaled by 1/sqrt(fan-in)
// as initializers do, so that values stay in range through the layers.
//
//===----------------------------------------------------------------------===//
#include "tools/kiln-difftest/GeneratorImpl.h"

#include "reference/Comparison.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace kiln::difftest::gen;
using kiln::difftest::GeneratedInput;
using kiln::difftest::GeneratedProgram;
using llvm::StringRef;

namespace {

/// Sizes on both sides of the cost model's thresholds, small ones first.
constexpr int64_t kSizes[] = {1, 2, 3, 7, 8, 16, 17, 31, 32, 33, 63, 64, 65, 100, 128, 129, 256};

} // namespace

int64_t Generator::modelDim(int64_t maxSize) {
  int64_t n = 0;
  for (int64_t s : kSizes)
    n += s <= maxSize;
  return kSizes[rng.randrange(n)];
}

Value *Generator::modelOp(Block &blk, StringRef op, llvm::ArrayRef<Value *> operands) {
  std::string name = fresh();
  std::string line = name + " = lax." + op.str() + " ";
  line += namesOf(operands) + " : " + operands[0]->type();
  emit(blk, line);
  return add(blk, Value{name, operands[0]->shape, operands[0]->dt});
}

Value *Generator::modelSplat(Block &blk, const Shape &shape, StringRef dt, double value) {
  std::string name = fresh();
  emit(blk, name + " = lax.constant dense<" + literal(dt, Scalar{value, 0}) + "> : " +
                tensorType(shape, dt));
  return add(blk, Value{name, shape, dt.str()});
}

Value *Generator::modelDot(Block &blk, Value *a, Value *b, int64_t ca, int64_t cb,
                           StringRef outDt) {
  Shape out;
  out.push_back(a->shape[1 - ca]);
  out.push_back(b->shape[1 - cb]);
  std::string name = fresh();
  std::string attr = outDt == a->dt ? "" : " {preferred_element_type = " + outDt.str() + "}";
  emit(blk, name + " = lax.dot_general " + a->name + ", " + b->name + " contracting = [" +
                std::to_string(ca) + "] x [" + std::to_string(cb) + "] batch = [] x []" + attr +
                " : (" + a->type() + ", " + b->type() + ") -> " + tensorType(out, outDt));
  return add(blk, Value{name, out, outDt.str()});
}

Value *Generator::modelTranspose(Block &blk, Value *v) {
  Shape shape{v->shape[1], v->shape[0]};
  std::string name = fresh();
  emit(blk, name + " = lax.transpose " + v->name + " permutation = [1, 0] : " + v->type() +
                " -> " + tensorType(shape, v->dt));
  return add(blk, Value{name, shape, v->dt});
}

Value *Generator::modelBroadcastRows(Block &blk, Value *row, int64_t rows) {
  Shape shape{rows, row->shape[0]};
  std::string name = fresh();
  emit(blk, name + " = lax.broadcast_in_dim " + row->name + " shape = " + list(shape) +
                " dims = [1] : " + row->type() + " -> " + tensorType(shape, row->dt));
  return add(blk, Value{name, shape, row->dt});
}

Value *Generator::modelSum(Block &blk, Value *v, const Shape &axes) {
  Shape shape;
  for (int64_t d = 0; d < int64_t(v->shape.size()); ++d)
    if (!llvm::is_contained(axes, d))
      shape.push_back(v->shape[d]);
  std::string name = fresh();
  emit(blk, name + " = lax.reduce_sum " + v->name + " axes = " + list(axes) + " : " + v->type() +
                " -> " + tensorType(shape, v->dt));
  return add(blk, Value{name, shape, v->dt});
}

Value *Generator::modelSlice(Block &blk, Value *v, int64_t dim, int64_t start) {
  Shape begin(v->shape.size(), 0), limit = v->shape, strides(v->shape.size(), 1), shape = v->shape;
  begin[dim] = start;
  shape[dim] = v->shape[dim] - start;
  std::string name = fresh();
  emit(blk, name + " = lax.slice " + v->name + " start = " + list(begin) + " limit = " +
                list(limit) + " strides = " + list(strides) + " : " + v->type() + " -> " +
                tensorType(shape, v->dt));
  return add(blk, Value{name, shape, v->dt});
}

Value *Generator::modelConcat(Block &blk, Value *a, Value *b, int64_t dim) {
  Shape shape = a->shape;
  shape[dim] += b->shape[dim];
  std::string name = fresh();
  emit(blk, name + " = lax.concatenate " + a->name + ", " + b->name + " dim = " +
                std::to_string(dim) + " : (" + a->type() + ", " + b->type() + ") -> " +
                tensorType(shape, a->dt));
  return add(blk, Value{name, shape, a->dt});
}

GeneratedProgram Generator::generateModel() {
  // The arithmetic's type; arguments are f32 (or f16) and converted.
  double pick = rng.random();
  std::string dt = pick < 0.7 ? "f32" : pick < 0.85 ? "bf16" : "f16";
  std::string argDt = dt == "f16" ? "f16" : "f32";
  int64_t layers = rng.randint(1, 5);
  // At most ~2^23 multiply-adds per dot: the interpreter's exact sums stay
  // fast enough for a campaign.
  int64_t batch = modelDim(256);
  std::vector<int64_t> widths{modelDim(256)};
  for (int64_t i = 0; i < layers; ++i)
    widths.push_back(rng.random() < 0.4 ? widths.back() : modelDim(128));
  for (int64_t &w : widths)
    while (batch * w * 256 > (int64_t(1) << 23) && w > 1)
      w = std::max<int64_t>(1, w / 2);
  bool adam = rng.random() < 0.3;

  std::vector<Value *> args;
  std::vector<double> scales; // each argument's values are uniform in +-scale
  auto arg = [&](Shape shape, double scale) {
    Value *v = newValue({"%arg" + std::to_string(args.size()), std::move(shape), argDt});
    args.push_back(v);
    scales.push_back(scale);
    return v;
  };
  Block blk;
  blk.indent = "  ";
  blk.top = true;
  auto inDt = [&](Value *v) { return v->dt == dt ? v : convert(blk, v, dt); };
  Value *x = arg({batch, widths[0]}, 1.0);
  std::vector<Value *> weights, biases;
  for (int64_t i = 0; i < layers; ++i) {
    weights.push_back(arg({widths[i], widths[i + 1]}, 1.0 / std::sqrt(double(widths[i]))));
    biases.push_back(rng.random() < 0.5 ? arg({widths[i + 1]}, 0.1) : nullptr);
  }
  blk.pool = args;
  // Forward: hs[i] is layer i's input, acts[i] its activation.
  static const StringRef kActs[] = {"tanh", "logistic", "relu", "none"};
  std::vector<Value *> hs{inDt(x)}, ws, outs;
  std::vector<StringRef> acts;
  for (int64_t i = 0; i < layers; ++i) {
    Value *h = hs.back();
    Value *w = inDt(weights[i]);
    ws.push_back(w);
    Value *z = modelDot(blk, h, w, 1, 0, dt);
    if (biases[i])
      z = modelOp(blk, "add", {z, modelBroadcastRows(blk, inDt(biases[i]), batch)});
    StringRef act = kActs[rng.randrange(4)];
    acts.push_back(act);
    Value *a = act == "none" ? z
               : act == "relu"
                   ? modelOp(blk, "max", {z, modelSplat(blk, z->shape, dt, 0.0)})
                   : modelOp(blk, act, {z});
    // A residual connection: x + f(x), or (x + x @ W) feeding what follows.
    if (widths[i] == widths[i + 1] && rng.random() < 0.6)
      a = modelOp(blk, "add", {h, a});
    hs.push_back(a);
  }
  // Backward: g is the loss's gradient at the current layer's output.
  Value *g = hs.back();
  if (rng.random() < 0.5)
    g = modelOp(blk, "sub", {g, modelSplat(blk, g->shape, dt, 0.25)});
  for (int64_t i = layers - 1; i >= 0; --i) {
    Value *h = hs[i];
    if (acts[i] == "tanh") {
      // d tanh = 1 - tanh^2 (of the activation before a residual add, here
      // of the layer's output: only the shape of the computation matters).
      Value *one = modelSplat(blk, g->shape, dt, 1.0);
      Value *sq = modelOp(blk, "mul", {hs[i + 1], hs[i + 1]});
      g = modelOp(blk, "mul", {g, modelOp(blk, "sub", {one, sq})});
    } else if (acts[i] == "logistic") {
      g = modelOp(blk, "mul", {g, hs[i + 1]});
    }
    // The weights' gradient h^T @ g, as JAX writes it: a transpose feeding
    // a dot_general, or one dot_general contracting the batch.
    Value *dw = rng.random() < 0.5 ? modelDot(blk, modelTranspose(blk, h), g, 1, 0, dt)
                                   : modelDot(blk, h, g, 0, 0, dt);
    if (biases[i])
      outs.push_back(modelSum(blk, g, {0}));
    if (adam) {
      // m = 0.9 m + 0.1 dw (m = dw from zero), v = 0.999 v + 0.001 dw^2,
      // w' = w - 0.01 m / (sqrt(v) + 1e-8): a division by computed values.
      Value *m = modelOp(blk, "mul", {dw, modelSplat(blk, dw->shape, dt, 0.1)});
      Value *v = modelOp(blk, "mul", {modelOp(blk, "mul", {dw, dw}),
                                      modelSplat(blk, dw->shape, dt, 0.001)});
      Value *den = modelOp(blk, "add", {modelOp(blk, "sqrt", {v}),
                                        modelSplat(blk, dw->shape, dt, 1e-3)});
      Value *step = modelOp(blk, "div", {m, den});
      Value *lr = modelSplat(blk, dw->shape, dt, 0.01);
      outs.push_back(modelOp(blk, "sub", {ws[i], modelOp(blk, "mul", {lr, step})}));
    } else {
      outs.push_back(dw);
    }
    // The inputs' gradient g @ W^T (through the residual: + g).
    Value *gin = rng.random() < 0.5 ? modelDot(blk, g, modelTranspose(blk, ws[i]), 1, 0, dt)
                                    : modelDot(blk, g, ws[i], 1, 1, dt);
    if (g->shape == gin->shape && rng.random() < 0.5)
      gin = modelOp(blk, "add", {gin, g});
    g = gin;
  }
  outs.push_back(g);
  // Zero-size pieces, as associative_scan, jnp.roll and x[:, k:] make them.
  if (rng.random() < 0.3) {
    Value *h = hs[rng.randrange(hs.size())];
    int64_t dim = rng.randrange(2);
    int64_t n = h->shape[dim];
    int64_t start = rng.random() < 0.6 ? n : rng.randint(0, n);
    Value *s = modelSlice(blk, h, dim, start);
    outs.push_back(modelConcat(blk, h, s, dim));
    outs.push_back(modelSum(blk, s, {dim}));
    outs.push_back(modelSum(blk, s, {0, 1}));
    // s s^T contracts the sliced dimension: empty when start = n.
    outs.push_back(modelDot(blk, s, s, dim, dim, dt));
  }
  outs.push_back(modelSum(blk, hs.back(), {0, 1}));

  std::vector<Value *> rets;
  for (Value *v : outs)
    rets.push_back(v->dt == "bf16" ? convert(blk, v, "f32") : v);
  GeneratedProgram program;
  program.text = options.header + "\n";
  std::string main = "func.func @main(" + declsOf(args) + ") -> (" + typesOf(rets) + ") {";
  for (const std::string &l : blk.lines)
    main += "\n" + l;
  main += "\n  return " + namesOf(rets) + " : " + typesOf(rets) + "\n}";
  program.text += main + "\n";
  for (auto [a, scale] : llvm::zip(args, scales)) {
    GeneratedInput input{a->dt, a->shape, {}, {}};
    for (int64_t i = 0, n = numel(a->shape); i < n; ++i)
      input.floats.push_back(roundTo3(rng.uniform(-1, 1)) * scale);
    program.inputs.push_back(std::move(input));
  }
  return program;
}
