//===- JaxprRandom.cpp - jax.random's threefry primitives -----------------===//
//
// jax.random with the default threefry implementation, built from lax ops on
// ui32 as JAX itself lowers it (jax/_src/prng.py, with
// jax_threefry_partitionable, the default since JAX 0.5):
//
//   random_wrap[impl=fry] k, random_unwrap k   a key<fry>[dims] is its data,
//                                               ui32[dims, 2], so both are
//                                               the identity
//   random_bits[bit_width=32 shape=S] k        threefry2x32(k, iota(S)) and
//                                               the xor of its two halves (8
//                                               and 16 bits: that, truncated;
//                                               64: the halves side by side)
//   random_split[shape=S] k                    threefry2x32(k, iota(S)), the
//                                               halves stacked as new keys
//   random_seed[impl=fry] s                    the key [s >> 32, s & 0xFFFFFFFF]
//                                               as ui32 (0 high word for a
//                                               32-bit seed)
//   random_fold_in k d                         threefry2x32(k, (0, d)), the
//                                               two words as the new key
//
// iota(S) is the row-major index of each element as a 64-bit counter split
// into two ui32 words (high, low); threefry2x32 is Salmon et al.'s
// Threefry-2x32 with 20 rounds, the key schedule and rotations of JAX's.
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxOps.h"

using namespace mlir;
using namespace kiln::jaxpr;
using namespace kiln::lax;
using llvm::SmallVector;

namespace {

/// Builds ui32 lax ops of one shape.
struct ThreefryBuilder {
  PrimitiveEmitter &e;
  RankedTensorType type; // ui32 of the counters' shape

  Value cst(uint32_t v) {
    return ConstantOp::create(
        e.b, e.loc, DenseElementsAttr::get(type, e.b.getIntegerAttr(type.getElementType(), v)));
  }
  Value add(Value a, Value b) { return AddOp::create(e.b, e.loc, type, a, b); }
  Value xorOf(Value a, Value b) { return XorOp::create(e.b, e.loc, type, a, b); }
  Value rotateLeft(Value x, uint32_t d) {
    Value left = ShiftLeftOp::create(e.b, e.loc, type, x, cst(d));
    Value right = ShiftRightLogicalOp::create(e.b, e.loc, type, x, cst(32 - d));
    return OrOp::create(e.b, e.loc, type, left, right);
  }
  /// Threefry-2x32, 20 rounds, on counters (x0, x1) under key (k0, k1).
  std::pair<Value, Value> hash(Value k0, Value k1, Value x0, Value x1) {
    static constexpr uint32_t rotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
    Value ks[3] = {k0, k1, xorOf(xorOf(k0, k1), cst(0x1BD11BDA))};
    x0 = add(x0, ks[0]);
    x1 = add(x1, ks[1]);
    for (uint32_t block = 0; block < 5; ++block) {
      for (uint32_t r : rotations[block % 2]) {
        x0 = add(x0, x1);
        x1 = xorOf(x0, rotateLeft(x1, r));
      }
      x0 = add(x0, ks[(block + 1) % 3]);
      x1 = add(add(x1, ks[(block + 2) % 3]), cst(block + 1));
    }
    return {x0, x1};
  }
};

/// The two words of each key of a key array key<fry>[B] (ui32[B, 2]), as
/// ui32[B] arrays (rank 0 for a single key).
FailureOr<std::pair<Value, Value>> keyWords(PrimitiveEmitter &e, Value key) {
  auto type = cast<RankedTensorType>(key.getType());
  if (type.getRank() < 1 || type.getShape().back() != 2 ||
      !type.getElementType().isUnsignedInteger(32))
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'" << e.primitive() << "' takes threefry keys (key<fry>[...], u32[..., 2]), got "
           << JaxprBuilder::formatType(type);
  ArrayRef<int64_t> batch = type.getShape().drop_back();
  int64_t rank = type.getRank();
  Value words[2];
  auto wordsType = RankedTensorType::get(batch, type.getElementType());
  for (int64_t i = 0; i < 2; ++i) {
    SmallVector<int64_t> start(rank, 0), limit(type.getShape()), strides(rank, 1);
    start.back() = i;
    limit.back() = i + 1;
    Operation *slice = SliceOp::create(e.b, e.loc, e.placeholder, key, start, limit, strides);
    if (failed(e.builder.finishOp(slice)))
      return failure();
    words[i] = ReshapeOp::create(e.b, e.loc, wordsType, slice->getResult(0));
  }
  return std::make_pair(words[0], words[1]);
}

/// threefry2x32(key, iota(shape)) for each key of a key array of shape B:
/// the two output words, of shape B + shape (jax.vmap of the single-key
/// hash: every key hashes the same counters).
FailureOr<std::pair<Value, Value>> hashCounters(PrimitiveEmitter &e, Value key,
                                                ArrayRef<int64_t> shape) {
  FailureOr<std::pair<Value, Value>> k = keyWords(e, key);
  if (failed(k))
    return failure();
  auto batch = cast<RankedTensorType>(k->first.getType()).getShape();
  auto ui32 = IntegerType::get(e.b.getContext(), 32, IntegerType::Unsigned);
  SmallVector<int64_t> full(batch);
  full.append(shape.begin(), shape.end());
  ThreefryBuilder t{e, RankedTensorType::get(full, ui32)};
  int64_t count = RankedTensorType::get(shape, ui32).getNumElements();
  if (count > (int64_t(1) << 32))
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'" << e.primitive() << "' of more than 2^32 values per key is not supported";
  // The high words of the counters are 0 below 2^32 elements.
  Value hi = t.cst(0);
  Value lo = IotaOp::create(e.b, e.loc, RankedTensorType::get({count}, ui32), 0);
  lo = ReshapeOp::create(e.b, e.loc, RankedTensorType::get(shape, ui32), lo);
  // The counters along the trailing dimensions, the key words along the
  // leading (batch) ones.
  auto dims = [](int64_t from, int64_t n) {
    return llvm::to_vector(llvm::seq<int64_t>(from, from + n));
  };
  int64_t b = batch.size(), s = shape.size();
  auto spread = [&](Value v, ArrayRef<int64_t> into) -> Value {
    if (cast<RankedTensorType>(v.getType()).getShape() == ArrayRef<int64_t>(full))
      return v;
    return BroadcastInDimOp::create(e.b, e.loc, v, full, into);
  };
  return t.hash(spread(k->first, dims(0, b)), spread(k->second, dims(0, b)), hi,
                spread(lo, dims(b, s)));
}

EmitResult emitRandomWrap(PrimitiveEmitter &e) { return e.operands(1, 1); }

/// random_bits[bit_width shape]: at 32 bits the xor of the two words; at 8
/// and 16 that xor converted (truncated) to ui8/ui16, what bf16/f16 and
/// narrow integer samplers draw; at 64 the first word above the second
/// (jax/_src/prng.py, _threefry_random_bits_partitionable).
EmitResult emitRandomBits(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  FailureOr<SmallVector<int64_t>> shape = e.builder.intListParam(e.eqn, "shape");
  FailureOr<int64_t> width = e.builder.intParam(e.eqn, "bit_width");
  if (failed(x) || failed(shape) || failed(width))
    return failure();
  if (*width != 8 && *width != 16 && *width != 32 && *width != 64)
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'random_bits' of bit_width " << *width << ": JAX's widths are 8, 16, 32 and 64";
  FailureOr<std::pair<Value, Value>> words = hashCounters(e, (*x)[0], *shape);
  if (failed(words))
    return failure();
  auto u32 = cast<RankedTensorType>(words->first.getType());
  auto bits = u32.clone(IntegerType::get(e.b.getContext(), unsigned(*width), IntegerType::Unsigned));
  if (*width == 64) {
    SmallVector<Value> wide;
    for (Value w : {words->first, words->second}) {
      FailureOr<Value> converted = e.built(ConvertElementTypeOp::create(e.b, e.loc, bits, w));
      if (failed(converted))
        return failure();
      wide.push_back(*converted);
    }
    FailureOr<Value> shift = e.built(ConstantOp::create(
        e.b, e.loc, DenseElementsAttr::get(bits, e.b.getIntegerAttr(bits.getElementType(), 32))));
    FailureOr<Value> high =
        failed(shift) ? shift : e.built(ShiftLeftOp::create(e.b, e.loc, bits, wide[0], *shift));
    if (failed(high))
      return failure();
    return e.finish(OrOp::create(e.b, e.loc, bits, *high, wide[1]));
  }
  Operation *mixed = XorOp::create(e.b, e.loc, u32, words->first, words->second);
  if (*width == 32)
    return e.finish(mixed);
  FailureOr<Value> xored = e.built(mixed);
  if (failed(xored))
    return failure();
  return e.finish(ConvertElementTypeOp::create(e.b, e.loc, bits, *xored));
}

/// random_split[shape]: new keys whose words are the two hash words.
EmitResult emitRandomSplit(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  FailureOr<SmallVector<int64_t>> shape = e.builder.intListParam(e.eqn, "shape");
  if (failed(x) || failed(shape))
    return failure();
  FailureOr<std::pair<Value, Value>> words = hashCounters(e, (*x)[0], *shape);
  if (failed(words))
    return failure();
  int64_t rank = cast<RankedTensorType>(words->first.getType()).getRank();
  SmallVector<Value> halves;
  for (Value w : {words->first, words->second}) {
    Operation *expanded =
        ExpandDimsOp::create(e.b, e.loc, e.placeholder, w, SmallVector<int64_t>{rank});
    if (failed(e.builder.finishOp(expanded)))
      return failure();
    halves.push_back(expanded->getResult(0));
  }
  return e.finish(ConcatenateOp::create(e.b, e.loc, e.placeholder, halves, rank));
}

/// The key [hi, lo] of two rank-0 ui32 words.
EmitResult keyOf(PrimitiveEmitter &e, Value hi, Value lo) {
  SmallVector<Value> words;
  for (Value w : {hi, lo}) {
    FailureOr<Value> one = e.built(
        ReshapeOp::create(e.b, e.loc, RankedTensorType::get({1}, getElementTypeOrSelf(w)), w));
    if (failed(one))
      return failure();
    words.push_back(*one);
  }
  return e.finish(ConcatenateOp::create(e.b, e.loc, e.placeholder, words, 0));
}

/// A scalar integer operand as the two ui32 words of threefry's seed:
/// (x >> 32, x & 0xFFFFFFFF), as jax.random's _threefry_seed splits it.
FailureOr<std::pair<Value, Value>> seedWords(PrimitiveEmitter &e, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  if (type.getRank() != 0 || !isa<IntegerType>(element) || element.isInteger(1))
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'" << e.primitive() << "' takes a scalar integer, got "
           << JaxprBuilder::formatType(type);
  auto ui32 = RankedTensorType::get({}, IntegerType::get(e.b.getContext(), 32,
                                                          IntegerType::Unsigned));
  // Converting between integers keeps the low bits (two's complement).
  FailureOr<Value> lo = e.built(ConvertElementTypeOp::create(e.b, e.loc, ui32, x));
  if (failed(lo))
    return failure();
  Value hi;
  if (element.getIntOrFloatBitWidth() <= 32) {
    hi = ConstantOp::create(e.b, e.loc, ui32, 0.0);
  } else {
    Value shift = ConstantOp::create(e.b, e.loc, type, 32.0);
    FailureOr<Value> high =
        e.built(ShiftRightLogicalOp::create(e.b, e.loc, type, x, shift));
    if (failed(high))
      return failure();
    FailureOr<Value> word = e.built(ConvertElementTypeOp::create(e.b, e.loc, ui32, *high));
    if (failed(word))
      return failure();
    hi = *word;
  }
  return std::make_pair(hi, *lo);
}

/// random_seed[impl=fry] s.
EmitResult emitRandomSeed(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  if (failed(x))
    return failure();
  if (const Param *impl = e.eqn.findParam("impl"))
    if (impl->value.text != "fry" && !StringRef(impl->value.text).contains("threefry"))
      return e.builder.emitError(impl->value.loc)
             << "'random_seed' supports the threefry implementation (impl=fry), got '"
             << impl->value.spelling << "'";
  FailureOr<std::pair<Value, Value>> words = seedWords(e, (*x)[0]);
  if (failed(words))
    return failure();
  return keyOf(e, words->first, words->second);
}

/// random_fold_in k d: threefry2x32 of the counters (0, d) under k.
EmitResult emitRandomFoldIn(PrimitiveEmitter &e) {
  EmitResult x = e.operands(2, 2);
  if (failed(x))
    return failure();
  FailureOr<std::pair<Value, Value>> k = keyWords(e, (*x)[0]);
  FailureOr<std::pair<Value, Value>> d = seedWords(e, (*x)[1]);
  if (failed(k) || failed(d))
    return failure();
  if (cast<RankedTensorType>(k->first.getType()).getRank() != 0)
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'random_fold_in' of a key array is not supported (a single key, key<fry>[])";
  auto ui32 = IntegerType::get(e.b.getContext(), 32, IntegerType::Unsigned);
  ThreefryBuilder t{e, RankedTensorType::get({}, ui32)};
  auto [y0, y1] = t.hash(k->first, k->second, d->first, d->second);
  return keyOf(e, y0, y1);
}

} // namespace

void kiln::jaxpr::registerRandomPrimitives(PrimitiveTable &table) {
  addPrimitives(table, {
      {"random_wrap", emitRandomWrap},
      {"random_unwrap", emitRandomWrap},
      {"random_bits", emitRandomBits},
      {"random_split", emitRandomSplit},
      {"random_seed", emitRandomSeed},
      {"random_fold_in", emitRandomFoldIn},
  });
}
