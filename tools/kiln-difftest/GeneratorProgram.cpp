//===- GeneratorProgram.cpp - while, cond, callees, the program -----------===//

#include "tools/kiln-difftest/GeneratorImpl.h"

#include "reference/Comparison.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace kiln::difftest;
using namespace kiln::difftest::gen;
using llvm::StringRef;

using ResultTypes = std::vector<std::pair<Shape, std::string>>;

Value *Generator::opWhile(Block &blk) {
  if (blk.depth >= 2)
    return nullptr;
  std::vector<Value *> carries, bconsts, cconsts;
  for (int64_t i = rng.randint(1, 2); i > 0; --i)
    carries.push_back(pick(blk.pool));
  for (int64_t i = rng.randint(0, 1); i > 0; --i)
    bconsts.push_back(pick(blk.pool));
  for (int64_t i = rng.randint(0, 1); i > 0; --i)
    cconsts.push_back(pick(blk.pool));
  int64_t limit = rng.randint(0, 4);
  std::string counterName = fresh("c");
  emit(blk, counterName + " = lax.constant dense<0> : tensor<i32>");
  Value *counterValue = newValue({counterName, {}, "i32"});
  std::vector<Value *> allCarries{counterValue};
  allCarries.insert(allCarries.end(), carries.begin(), carries.end());
  std::vector<Value *> sources = cconsts;
  sources.insert(sources.end(), bconsts.begin(), bconsts.end());
  sources.insert(sources.end(), carries.begin(), carries.end());

  // cond region: counter < limit, and (sometimes) a data-dependent test.
  std::vector<Value *> cargs;
  for (Value *v : cconsts)
    cargs.push_back(newValue({fresh("a"), v->shape, v->dt}));
  for (Value *v : allCarries)
    cargs.push_back(newValue({fresh("a"), v->shape, v->dt}));
  setArgsTaint(cargs, sources, /*loop=*/true);
  Block cb = subBlock(blk, cargs, /*capture=*/false);
  std::string lim = fresh("c");
  emit(cb, lim + " = lax.constant dense<" + std::to_string(limit) + "> : tensor<i32>");
  std::string p = fresh();
  Value *ic = cargs[cconsts.size()];
  emit(cb, p + " = lax.compare LT, " + ic->name + ", " + lim + " : tensor<i32>");
  Value *pred = newValue({p, {}, "i1"});
  if (rng.random() < 0.5) {
    addMade(cb, pred);
    for (int64_t i = rng.randint(1, 3); i > 0; --i)
      randomOp(cb);
    Value *q = body(cb, 0, {{{}, "i1"}})[0];
    std::string p2 = fresh();
    emit(cb, p2 + " = lax.and " + p + ", " + q->name + " : tensor<i1>");
    pred = newValue({p2, {}, "i1"});
  }

  std::vector<Value *> bargs;
  for (Value *v : bconsts)
    bargs.push_back(newValue({fresh("a"), v->shape, v->dt}));
  for (Value *v : allCarries)
    bargs.push_back(newValue({fresh("a"), v->shape, v->dt}));
  setArgsTaint(bargs, sources, /*loop=*/true);
  Value *bodyCounter = bargs[bconsts.size()];
  std::vector<Value *> bodyPool;
  for (Value *a : bargs)
    if (a != bodyCounter)
      bodyPool.push_back(a);
  Block bb = subBlock(blk, bodyPool);
  ResultTypes carryTypes;
  for (Value *c : carries)
    carryTypes.push_back({c->shape, c->dt});
  int64_t numOps = rng.randint(1, 4);
  std::vector<Value *> outs = body(bb, numOps, carryTypes);
  std::string one = fresh("c");
  emit(bb, one + " = lax.constant dense<1> : tensor<i32>");
  std::string next = fresh();
  emit(bb, next + " = lax.add " + bodyCounter->name + ", " + one + " : tensor<i32>");
  std::vector<Value *> res;
  for (Value *v : allCarries)
    res.push_back(newValue({fresh(), v->shape, v->dt}));
  std::vector<Value *> operands = cconsts;
  operands.insert(operands.end(), bconsts.begin(), bconsts.end());
  operands.insert(operands.end(), allCarries.begin(), allCarries.end());
  std::vector<std::string> parts;
  if (!cconsts.empty())
    parts.push_back("cond_consts(" + namesOf(cconsts) + ")");
  if (!bconsts.empty())
    parts.push_back("body_consts(" + namesOf(bconsts) + ")");
  parts.push_back("carry(" + namesOf(allCarries) + ")");
  emit(blk, namesOf(res) + " = lax.while " + llvm::join(parts, " ") + " : (" + typesOf(operands) +
                ") -> (" + typesOf(res) + ")");
  emit(blk, "cond {");
  appendRegion(blk, cb, cargs, {pred});
  emit(blk, "} body {");
  outs.insert(outs.begin(), newValue({next, {}, "i32"}));
  appendRegion(blk, bb, bargs, outs);
  emit(blk, "}");
  for (Value *r : res)
    addMade(blk, r);
  return res.back();
}

Value *Generator::opCond(Block &blk) {
  if (blk.depth >= 2)
    return nullptr;
  Value *idx = nullptr;
  int64_t numBranches;
  if (rng.random() < 0.5) {
    idx = pick(blk.pool, [](const Value &u) { return u.shape.empty() && u.dt == "i1"; });
    numBranches = 2;
  } else {
    numBranches = rng.randint(1, 3);
  }
  if (!idx) {
    idx = scalarI32(blk);
    if (idx->dt != "i32")
      idx = convert(blk, idx, "i32");
  }
  std::vector<Value *> operands;
  for (int64_t i = rng.randint(0, 2); i > 0; --i)
    operands.push_back(pick(blk.pool));
  ResultTypes resultTypes;
  for (int64_t i = rng.randint(1, 2); i > 0; --i) {
    Shape s = randShape(2);
    resultTypes.push_back({s, randDt()});
  }
  std::vector<Value *> res;
  for (auto &[s, d] : resultTypes)
    res.push_back(newValue({fresh(), s, d}));
  std::vector<Value *> typed{idx};
  typed.insert(typed.end(), operands.begin(), operands.end());
  emit(blk, namesOf(res) + " = lax.cond " + idx->name + " (" + namesOf(operands) + ") : (" +
                typesOf(typed) + ") -> (" + typesOf(res) + ")");
  for (int64_t b = 0; b < numBranches; ++b) {
    std::vector<Value *> args;
    for (Value *v : operands)
      args.push_back(newValue({fresh("a"), v->shape, v->dt}));
    for (size_t i = 0; i < args.size(); ++i)
      taint[args[i]->name] = taintOf(operands[i]->name);
    Block inner = subBlock(blk, args);
    int64_t numOps = rng.randint(0, 3);
    std::vector<Value *> outs = body(inner, numOps, resultTypes);
    emit(blk, (b == 0 ? "branch " : "} branch ") + std::to_string(b) + " {");
    appendRegion(blk, inner, args, outs);
  }
  emit(blk, "}");
  for (Value *r : res)
    addMade(blk, r);
  return res.front();
}

Value *Generator::opCall(Block &blk) {
  if (!blk.top)
    return nullptr;
  std::vector<Value *> args;
  const Callee *callee;
  if (!callees.empty() && rng.random() < 0.5) {
    callee = &callees[rng.choiceIndex(callees.size())];
    for (auto &[s, d] : callee->args) {
      std::vector<Value *> c;
      for (Value *u : blk.pool)
        if (u->shape == s && u->dt == d)
          c.push_back(u);
      args.push_back(!c.empty() ? rng.choice(c) : constant(blk, s, d));
    }
  } else {
    for (int64_t i = rng.randint(1, 2); i > 0; --i)
      args.push_back(pick(blk.pool));
    callee = &makeCallee(args);
  }
  std::vector<Value *> res;
  for (auto &[s, d] : callee->results)
    res.push_back(newValue({fresh(), s, d}));
  emit(blk, namesOf(res) + " = func.call @" + callee->name + "(" + namesOf(args) + ") : (" +
                typesOf(args) + ") -> (" + typesOf(res) + ")");
  for (Value *r : res)
    addMade(blk, r);
  return res.front();
}

const Callee &Generator::makeCallee(const std::vector<Value *> &args) {
  std::string name = "callee" + std::to_string(callees.size());
  std::vector<Value *> fargs;
  for (Value *a : args)
    fargs.push_back(newValue({fresh("a"), a->shape, a->dt}));
  // The callee's taint assuming its arguments exact; calls add theirs.
  for (Value *a : fargs)
    taint[a->name] = 0;
  Block inner;
  inner.indent = "  ";
  inner.pool = fargs;
  inner.depth = 1;
  for (int64_t i = rng.randint(1, 4); i > 0; --i)
    randomOp(inner);
  Value *out = inner.pool.back();
  std::string head = "func.func private @" + name + "(" + declsOf(fargs) + ") -> (" + out->type() +
                     ") {";
  std::string rest;
  for (const std::string &l : inner.lines)
    rest += "\n" + l;
  rest += "\n  return " + out->name + " : " + out->type() + "\n}";
  funcs.push_back(head + rest);
  calleeTaint[name] = taintOf(out->name);
  bool discrete = false;
  for (const std::string &l : inner.lines) {
    StringRef line = l;
    discrete |= line.contains("func.call");
    for (size_t pos = line.find("lax."); pos != StringRef::npos; pos = line.find("lax.", pos + 1)) {
      StringRef op = line.drop_front(pos + 4).take_while(
          [](char c) { return llvm::isAlnum(c) || c == '_'; });
      discrete |= isDiscrete(op);
    }
  }
  calleeDiscrete[name] = discrete;
  Callee sig{name, {}, {{out->shape, out->dt}}};
  for (Value *a : args)
    sig.args.push_back({a->shape, a->dt});
  size_t index = callees.size();
  callees.push_back(sig);
  if (rng.random() < 0.5) {
    // An identical twin (kiln-dedup-functions merges them).
    std::string twin = "callee" + std::to_string(callees.size());
    funcs.push_back("func.func private @" + twin + head.substr(head.find('(')) + rest);
    calleeTaint[twin] = calleeTaint[name];
    calleeDiscrete[twin] = discrete;
    Callee twinSig = sig;
    twinSig.name = twin;
    callees.push_back(twinSig);
  }
  return callees[index]; // a deque: the reference stays valid
}

Value *Generator::randomOp(Block &blk) {
  // The op families and their weights; the three with optional arguments
  // and `constant` are dispatched by index.
  using Op = Value *(Generator::*)(Block &);
  static const Op ops[] = {
      &Generator::opUnary,     &Generator::opBinary,        &Generator::opCompareSelect,
      &Generator::opConvert,   &Generator::opIota,          &Generator::opBroadcast,
      &Generator::opReshape,   nullptr /* opTranspose */,   nullptr /* opRev */,
      &Generator::opSlice,     &Generator::opConcat,        &Generator::opExpandSqueeze,
      &Generator::opDynamic,   nullptr /* opReduce */,      &Generator::opDot,
      &Generator::opGatherScatter, &Generator::opScan,      &Generator::opScanAccumulate,
      &Generator::opWhile,     &Generator::opCond,          &Generator::opCall,
      nullptr /* constant */};
  static const unsigned weights[] = {14, 20, 7, 7, 2, 5, 4, 4, 2, 4, 3,
                                     2,  3,  7, 5, 3, 5, 2, 2, 2, 2, 2};
  constexpr size_t kTranspose = 7, kRev = 8, kReduce = 13, kConstant = 21;
  // Families added after seeds were pinned in tests draw their chance from
  // a stream of their own: a program without them is what its seed gave.
  if (sortChance > 0 && lateRng.random() < sortChance)
    if (Value *r = opSort(blk))
      return r;
  for (int attempt = 0; attempt < 10; ++attempt) {
    size_t n = rng.weightedIndex(weights);
    if (n == kConstant || blk.pool.empty()) {
      Shape shape = randShape();
      return constant(blk, shape, randDt());
    }
    Value *r = n == kTranspose ? opTranspose(blk)
               : n == kRev     ? opRev(blk)
               : n == kReduce  ? opReduce(blk)
                               : (this->*ops[n])(blk);
    if (r)
      return r;
  }
  return opUnary(blk);
}

GeneratedProgram Generator::generate() {
  static const StringRef argTypes[] = {"f32", "f32", "f64", "f16", "i8",
                                       "i32", "i32", "i64", "ui32", "i1"};
  std::vector<Value *> args;
  for (int64_t i = 0, n = rng.randint(1, 4); i < n; ++i) {
    Shape shape = randShape();
    std::string dt = rng.choice(llvm::ArrayRef<StringRef>(argTypes)).str();
    args.push_back(newValue({"%arg" + std::to_string(i), shape, dt}));
  }
  Block blk;
  blk.indent = "  ";
  blk.pool = args;
  blk.top = true;
  for (unsigned i = 0; i < maxOps; ++i)
    randomOp(blk);
  // Results: values nothing else uses (the sinks), a few of them.
  std::string text = llvm::join(blk.lines, "\n");
  auto count = [&](const std::string &needle) {
    size_t n = 0;
    for (size_t pos = text.find(needle); pos != std::string::npos;
         pos = text.find(needle, pos + needle.size()))
      ++n;
    return n;
  };
  std::vector<Value *> sinks;
  for (Value *v : blk.pool)
    if (!llvm::is_contained(args, v) && count(v->name + " ") + count(v->name + ",") +
                                                count(v->name + "]") + count(v->name + ")") <=
                                            1)
      sinks.push_back(v);
  std::vector<Value *> outs(sinks.end() - std::min<size_t>(4, sinks.size()), sinks.end());
  if (outs.empty())
    outs.push_back(blk.pool.back());
  std::vector<Value *> rets;
  for (Value *v : outs)
    rets.push_back(v->dt == "bf16" ? convert(blk, v, "f32") : v);
  GeneratedProgram program;
  std::string main = "func.func @main(" + declsOf(args) + ") -> (" + typesOf(rets) + ") {";
  for (const std::string &l : blk.lines)
    main += "\n" + l;
  main += "\n  return " + namesOf(rets) + " : " + typesOf(rets) + "\n}";
  for (size_t i = 0; i < rets.size(); ++i) {
    int t = taintOf(rets[i]->name);
    if (t == 2)
      program.unstableOutputs.push_back(i);
    else if (t == 0 && isFloat(rets[i]->dt))
      program.exactOutputs.push_back(i);
  }
  program.text = options.header + "\n";
  auto markerLine = [&](llvm::StringRef marker, const std::vector<unsigned> &outputs) {
    if (!outputs.empty())
      program.text +=
          marker.str() + " " +
          llvm::join(llvm::map_range(outputs, [](unsigned i) { return std::to_string(i); }), ",") +
          "\n";
  };
  markerLine(kiln::interp::kUnstableOutputsMarker, program.unstableOutputs);
  markerLine(kiln::interp::kExactOutputsMarker, program.exactOutputs);
  for (const std::string &f : funcs)
    program.text += f + "\n";
  program.text += main + "\n";
  for (Value *a : args) {
    GeneratedInput input{a->dt, a->shape, {}, {}};
    for (const Scalar &s : randomValues(a->dt, numel(a->shape), hardP)) {
      if (isFloat(a->dt))
        input.floats.push_back(s.f);
      else
        input.ints.push_back(s.i);
    }
    program.inputs.push_back(std::move(input));
  }
  return program;
}

GeneratedProgram kiln::difftest::generateProgram(ChoiceSource &source,
                                                 const GeneratorOptions &options) {
  Generator generator(source, options);
  return options.profile == GeneratorOptions::Profile::Models ? generator.generateModel()
                                                              : generator.generate();
}

GeneratedProgram kiln::difftest::generateProgramForSeed(int64_t seed, unsigned maxOps,
                                                        unsigned sizeScale,
                                                        GeneratorOptions::Profile profile) {
  PythonRandom source(seed);
  GeneratorOptions options;
  options.maxOps = maxOps;
  options.sizeScale = std::max(1u, sizeScale);
  options.profile = profile;
  options.header = "// generated by kiln-difftest generate --seed " + std::to_string(seed);
  options.lateFamiliesSeed = seed;
  if (options.sizeScale != 1)
    options.header += " --size-scale " + std::to_string(options.sizeScale);
  if (profile == GeneratorOptions::Profile::Models)
    options.header += " --profile models";
  return generateProgram(source, options);
}
