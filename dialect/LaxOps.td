//===- LaxOps.td - lax operations --------------------------*- tablegen -*-===//
//
// Each op documents its jaxpr counterpart. Shape rules live in
// LaxTypeInference.cpp (shared by the verifiers and the builders), folders and
// canonicalizations in LaxFolds.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_LAXOPS_TD
#define KILN_DIALECT_LAXOPS_TD

include "dialect/LaxDialect.td"
include "dialect/LaxInterfaces.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/LoopLikeInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Lax_ComparisonDirection : I32EnumAttr<"ComparisonDirection",
    "comparison direction of lax.compare (jaxpr eq/ne/lt/le/gt/ge)", [
      I32EnumAttrCase<"EQ", 0>, I32EnumAttrCase<"NE", 1>,
      I32EnumAttrCase<"LT", 2>, I32EnumAttrCase<"LE", 3>,
      I32EnumAttrCase<"GT", 4>, I32EnumAttrCase<"GE", 5>]> {
  let cppNamespace = "::kiln::lax";
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// The element kinds a tensor constraint of LaxDialect.td admits.
class Lax_ElementKindsOf<Type type> {
  string name = !cast<string>(type);
  bit floats = !or(!eq(name, "Lax_FloatTensor"), !eq(name, "Lax_NumericTensor"),
                   !eq(name, "Lax_Tensor"));
  bit ints = !or(!eq(name, "Lax_NumericTensor"), !eq(name, "Lax_IntOrPredTensor"),
                 !eq(name, "Lax_IntTensor"), !eq(name, "Lax_Tensor"));
  bit preds = !or(!eq(name, "Lax_IntOrPredTensor"), !eq(name, "Lax_PredTensor"),
                  !eq(name, "Lax_Tensor"));
  assert !or(floats, ints, preds), "no element kinds known for " # name;
  string cpp = "{" # !if(floats, "true", "false") # ", " # !if(ints, "true", "false") #
               ", " # !if(preds, "true", "false") # "}";
}

// An elementwise op that is one JAX primitive without parameters; its facts
// (name, operand kinds, traits of LaxInterfaces.td) are all here, and every
// layer reads them (kiln::lax::elementwisePrimitives()).
class Lax_ElementwisePrimitiveOp<string mnemonic, Type type, string jaxpr,
                                 list<Trait> traits>
    : Lax_Op<mnemonic, traits # [Pure, Elementwise, SameOperandsAndResultType,
                                 Lax_ElementwisePrimitiveOpInterface]> {
  let summary = "elementwise " # mnemonic # " (jaxpr `" # jaxpr # "`)";
  let results = (outs type:$result);
  let extraClassDeclaration = [{
    static ::llvm::StringRef getJaxPrimitive() { return "}] # jaxpr # [{"; }
    static constexpr ::kiln::lax::ElementKinds kOperandKinds = }] #
      Lax_ElementKindsOf<type>.cpp # [{;
  }];
}

class Lax_UnaryOp<string mnemonic, Type type, string jaxpr, list<Trait> traits = []>
    : Lax_ElementwisePrimitiveOp<mnemonic, type, jaxpr, traits> {
  let arguments = (ins type:$operand);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

class Lax_BinaryOp<string mnemonic, Type type, string jaxpr, list<Trait> traits = []>
    : Lax_ElementwisePrimitiveOp<mnemonic, type, jaxpr, traits> {
  let arguments = (ins type:$lhs, type:$rhs);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Lax_AddOp : Lax_BinaryOp<"add", Lax_NumericTensor, "add", [Commutative]>;
def Lax_SubOp : Lax_BinaryOp<"sub", Lax_NumericTensor, "sub">;
def Lax_MulOp : Lax_BinaryOp<"mul", Lax_NumericTensor, "mul", [Commutative]>;
def Lax_DivOp : Lax_BinaryOp<"div", Lax_NumericTensor, "div">;
def Lax_RemOp : Lax_BinaryOp<"rem", Lax_NumericTensor, "rem">;
def Lax_MaxOp : Lax_BinaryOp<"max", Lax_NumericTensor, "max", [Commutative]>;
def Lax_MinOp : Lax_BinaryOp<"min", Lax_NumericTensor, "min", [Commutative]>;
def Lax_PowOp : Lax_BinaryOp<"pow", Lax_FloatTensor, "pow", [Lax_LibraryMath]>;
def Lax_AndOp : Lax_BinaryOp<"and", Lax_IntOrPredTensor, "and", [Commutative]>;
def Lax_OrOp : Lax_BinaryOp<"or", Lax_IntOrPredTensor, "or", [Commutative]>;

def Lax_NegOp : Lax_UnaryOp<"neg", Lax_NumericTensor, "neg">;
def Lax_AbsOp : Lax_UnaryOp<"abs", Lax_NumericTensor, "abs">;
def Lax_SignOp : Lax_UnaryOp<"sign", Lax_NumericTensor, "sign">;
def Lax_ExpOp : Lax_UnaryOp<"exp", Lax_FloatTensor, "exp", [Lax_LibraryMath]>;
def Lax_LogOp : Lax_UnaryOp<"log", Lax_FloatTensor, "log", [Lax_LibraryMath]>;
def Lax_Log1pOp : Lax_UnaryOp<"log1p", Lax_FloatTensor, "log1p", [Lax_LibraryMath]>;
def Lax_SinOp : Lax_UnaryOp<"sin", Lax_FloatTensor, "sin", [Lax_LibraryMath]>;
def Lax_CosOp : Lax_UnaryOp<"cos", Lax_FloatTensor, "cos", [Lax_LibraryMath]>;
def Lax_TanhOp : Lax_UnaryOp<"tanh", Lax_FloatTensor, "tanh", [Lax_LibraryMath]>;
def Lax_LogisticOp : Lax_UnaryOp<"logistic", Lax_FloatTensor, "logistic", [Lax_LibraryMath]>;
def Lax_SqrtOp : Lax_UnaryOp<"sqrt", Lax_FloatTensor, "sqrt", [Lax_LibraryMath, Lax_CorrectlyRounded]>;
def Lax_RsqrtOp : Lax_UnaryOp<"rsqrt", Lax_FloatTensor, "rsqrt", [Lax_LibraryMath]>;
def Lax_SquareOp : Lax_UnaryOp<"square", Lax_NumericTensor, "square">;
def Lax_NotOp : Lax_UnaryOp<"not", Lax_IntOrPredTensor, "not">;

// Elementwise ops without folders (the folders of LaxFolds.cpp cover the
// arithmetic above; these evaluate only in the interpreter and the JIT).
class Lax_UnfoldedBinaryOp<string mnemonic, Type type, string jaxpr,
                           list<Trait> traits = []>
    : Lax_BinaryOp<mnemonic, type, jaxpr, traits> {
  let hasFolder = 0;
}

def Lax_Atan2Op : Lax_UnfoldedBinaryOp<"atan2", Lax_FloatTensor, "atan2", [Lax_LibraryMath]>;
def Lax_NextAfterOp : Lax_UnfoldedBinaryOp<"nextafter", Lax_FloatTensor, "nextafter"> {
  let description = [{
    The next representable number after `lhs` in the direction of `rhs`
    (C's nextafter); NaN if either is NaN, `rhs` if they are equal.
  }];
}
def Lax_XorOp : Lax_UnfoldedBinaryOp<"xor", Lax_IntOrPredTensor, "xor", [Commutative]>;
def Lax_ShiftLeftOp : Lax_UnfoldedBinaryOp<"shift_left", Lax_IntOrPredTensor,
                                           "shift_left"> {
  let description = [{
    `lhs << rhs`; a shift amount outside [0, bit width) gives 0 (XLA's
    semantics; C leaves it undefined).
  }];
}
def Lax_ShiftRightLogicalOp : Lax_UnfoldedBinaryOp<"shift_right_logical",
                                                   Lax_IntOrPredTensor,
                                                   "shift_right_logical"> {
  let description = [{
    `lhs >> rhs` filling with zeros; an amount outside [0, bit width) gives 0.
  }];
}
def Lax_ShiftRightArithmeticOp : Lax_UnfoldedBinaryOp<"shift_right_arithmetic",
                                                      Lax_IntOrPredTensor,
                                                      "shift_right_arithmetic"> {
  let description = [{
    `lhs >> rhs` filling with the sign bit; an amount outside [0, bit width)
    gives 0 or -1 (the sign of `lhs`).
  }];
}

def Lax_Expm1Op : Lax_UnaryOp<"expm1", Lax_FloatTensor, "expm1", [Lax_LibraryMath]>;
def Lax_Exp2Op : Lax_UnaryOp<"exp2", Lax_FloatTensor, "exp2", [Lax_LibraryMath]>;
def Lax_TanOp : Lax_UnaryOp<"tan", Lax_FloatTensor, "tan", [Lax_LibraryMath]>;
def Lax_AsinOp : Lax_UnaryOp<"asin", Lax_FloatTensor, "asin", [Lax_LibraryMath]>;
def Lax_AcosOp : Lax_UnaryOp<"acos", Lax_FloatTensor, "acos", [Lax_LibraryMath]>;
def Lax_AtanOp : Lax_UnaryOp<"atan", Lax_FloatTensor, "atan", [Lax_LibraryMath]>;
def Lax_SinhOp : Lax_UnaryOp<"sinh", Lax_FloatTensor, "sinh", [Lax_LibraryMath]>;
def Lax_CoshOp : Lax_UnaryOp<"cosh", Lax_FloatTensor, "cosh", [Lax_LibraryMath]>;
def Lax_AsinhOp : Lax_UnaryOp<"asinh", Lax_FloatTensor, "asinh", [Lax_LibraryMath]>;
def Lax_AcoshOp : Lax_UnaryOp<"acosh", Lax_FloatTensor, "acosh", [Lax_LibraryMath]>;
def Lax_AtanhOp : Lax_UnaryOp<"atanh", Lax_FloatTensor, "atanh", [Lax_LibraryMath]>;
def Lax_CbrtOp : Lax_UnaryOp<"cbrt", Lax_FloatTensor, "cbrt", [Lax_LibraryMath]>;
def Lax_ErfOp : Lax_UnaryOp<"erf", Lax_FloatTensor, "erf", [Lax_LibraryMath]>;
def Lax_ErfcOp : Lax_UnaryOp<"erfc", Lax_FloatTensor, "erfc", [Lax_LibraryMath]>;
def Lax_ErfInvOp : Lax_UnaryOp<"erf_inv", Lax_FloatTensor, "erf_inv", [Lax_LibraryMath]> {
  let description = [{
    The inverse of erf on (-1, 1); -inf and +inf at -1 and 1, NaN outside.
  }];
}
def Lax_LgammaOp : Lax_UnaryOp<"lgamma", Lax_FloatTensor, "lgamma", [Lax_LibraryMath]> {
  let description = [{
    log |Gamma(x)|: +inf at the poles (0, -1, -2, ...) and at +-inf. Compiled
    as XLA computes it (a Lanczos approximation, g = 7, with the reflection
    formula below 1/2), in f32 for the narrow floats.
  }];
}
def Lax_DigammaOp : Lax_UnaryOp<"digamma", Lax_FloatTensor, "digamma", [Lax_LibraryMath]> {
  let description = [{
    The derivative of lgamma: NaN at the poles (0, -1, -2, ...). Compiled as
    XLA computes it (the Lanczos approximation's derivative, with the
    reflection formula below 1/2).
  }];
}
def Lax_FloorOp : Lax_UnaryOp<"floor", Lax_FloatTensor, "floor">;
def Lax_CeilOp : Lax_UnaryOp<"ceil", Lax_FloatTensor, "ceil">;
def Lax_PopulationCountOp : Lax_UnaryOp<"population_count", Lax_IntOrPredTensor,
                                        "population_count">;
def Lax_ClzOp : Lax_UnaryOp<"clz", Lax_IntTensor, "clz"> {
  let description = [{
    The number of leading zero bits of each integer (its width for 0).
  }];
}

def Lax_ReducePrecisionOp : Lax_Op<"reduce_precision", [Pure, Elementwise,
    SameOperandsAndResultType]> {
  let summary = "elementwise rounding to a narrower float format (jaxpr `reduce_precision`)";
  let description = [{
    Each value rounded to a float of `exponent_bits` exponent and
    `mantissa_bits` mantissa bits and back, as XLA's ReducePrecision does:
    the mantissa rounded to nearest even, then a value whose exponent the
    narrow format cannot hold becomes a signed infinity (above) or a signed
    zero (below: the narrow format's subnormals are flushed). A NaN is kept
    as it is. Formats as wide as the operand's leave it unchanged.
  }];
  let arguments = (ins Lax_FloatTensor:$operand, Lax_I64Attr:$exponent_bits,
                       Lax_I64Attr:$mantissa_bits);
  let results = (outs Lax_FloatTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Lax_RoundOp : Lax_Op<"round", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "elementwise rounding to an integral value (jaxpr `round`)";
  let description = [{
    `rounding_method` 0 rounds halfway cases away from zero (C's round), 1 to
    the nearest even integer (jnp.round's choice).
  }];
  let arguments = (ins Lax_FloatTensor:$operand,
                       DefaultValuedAttr<Lax_I64Attr, "0">:$rounding_method);
  let results = (outs Lax_FloatTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Lax_IsFiniteOp : Lax_Op<"is_finite", [Pure, Elementwise,
    SameOperandsAndResultShape]> {
  let summary = "elementwise: neither infinite nor NaN (jaxpr `is_finite`)";
  let arguments = (ins Lax_FloatTensor:$operand);
  let results = (outs Lax_PredTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
}

def Lax_BitcastConvertTypeOp : Lax_Op<"bitcast_convert_type",
    [Pure, Elementwise, SameOperandsAndResultShape]> {
  let summary = "reinterprets each element's bits (jaxpr `bitcast_convert_type`)";
  let description = [{
    Between element types of the same bit width (f32 <-> i32/ui32, f64 <->
    i64, ...); the bits are unchanged.
  }];
  let arguments = (ins Lax_Tensor:$operand);
  let results = (outs Lax_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

def Lax_IntegerPowOp : Lax_Op<"integer_pow",
    [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "x ** y for a constant integer y (jaxpr `integer_pow[y=...]`)";
  let arguments = (ins Lax_NumericTensor:$operand, Lax_I64Attr:$y);
  let results = (outs Lax_NumericTensor:$result);
  let assemblyFormat = "$operand `y` `=` $y attr-dict `:` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Lax_CompareOp : Lax_Op<"compare", [Pure, Elementwise, SameTypeOperands,
    InferTypeOpAdaptor]> {
  let summary = "elementwise comparison (jaxpr `eq`, `ne`, `lt`, `le`, `gt`, `ge`)";
  let description = [{
    `%p = lax.compare LT, %a, %b : tensor<4xf32>` yields `tensor<4xi1>`.
  }];
  let arguments = (ins Lax_ComparisonDirection:$direction,
                       Lax_Tensor:$lhs, Lax_Tensor:$rhs);
  let results = (outs Lax_PredTensor:$result);
  let assemblyFormat = "$direction `,` $lhs `,` $rhs attr-dict `:` type($lhs)";
}

def Lax_SelectNOp : Lax_Op<"select_n", [Pure, InferTypeOpAdaptor]> {
  let summary = "picks cases[which] elementwise (jaxpr `select_n`)";
  let description = [{
    `which` is i1 (false picks case 0) or an integer tensor of the cases'
    shape; all cases share one type.
  }];
  let arguments = (ins Lax_IntOrPredTensor:$which, Variadic<Lax_Tensor>:$cases);
  let results = (outs Lax_Tensor:$result);
  let assemblyFormat = [{
    $which `,` $cases attr-dict `:` type($which) `,` type($cases)
  }];
}

def Lax_ConvertElementTypeOp : Lax_Op<"convert_element_type",
    [Pure, Elementwise, SameOperandsAndResultShape]> {
  let summary = "elementwise type conversion (jaxpr `convert_element_type`)";
  let arguments = (ins Lax_Tensor:$operand);
  let results = (outs Lax_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

def Lax_ConstantOp : Lax_Op<"constant",
    [Pure, ConstantLike, InferTypeOpAdaptor]> {
  let summary = "a constant tensor, splat or dense (jaxpr literals and consts)";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Lax_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let builders = [
    // A splat of `value` (a float or integer) with the shape of `type`.
    OpBuilder<(ins "::mlir::RankedTensorType":$type, "double":$value)>
  ];
}

def Lax_IotaOp : Lax_Op<"iota", [Pure]> {
  let summary = "0, 1, 2, ... along one dimension (jaxpr `iota`)";
  let arguments = (ins Lax_I64Attr:$dimension);
  let results = (outs Lax_NumericTensor:$result);
  let assemblyFormat = "`dimension` `=` $dimension attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Lax_BroadcastInDimOp : Lax_Op<"broadcast_in_dim",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "broadcast to `shape` (jaxpr `broadcast_in_dim`)";
  let description = [{
    Operand dimension i becomes result dimension broadcast_dimensions[i]; its
    size must be 1 or equal to shape[broadcast_dimensions[i]].
  }];
  let arguments = (ins Lax_Tensor:$operand, DenseI64ArrayAttr:$shape,
                       DenseI64ArrayAttr:$broadcast_dimensions);
  let results = (outs Lax_Tensor:$result);
  let assemblyFormat = [{
    $operand `shape` `=` $shape `dims` `=` $broadcast_dimensions attr-dict
    `:` type($operand) `->` type($result)
  }];
  let hasFolder = 1;
}

def Lax_ReshapeOp : Lax_Op<"reshape", [Pure]> {
  let summary = "row-major reshape (jaxpr `reshape[new_sizes=... dimensions=None]`)";
  let arguments = (ins Lax_Tensor:$operand);
  let results = (outs Lax_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Lax_TransposeOp : Lax_Op<"transpose", [Pure, InferTypeOpAdaptor]> {
  let summary = "permute dimensions (jaxpr `transpose[permutation=...]`)";
  let description = [{
    Result dimension i is operand dimension permutation[i].
  }];
  let arguments = (ins Lax_Tensor:$operand, DenseI64ArrayAttr:$permutation);
  let results = (outs Lax_Tensor:$result);
  let assemblyFormat = [{
    $operand `permutation` `=` $permutation attr-dict `:` type($operand) `->` type($result)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Lax_RevOp : Lax_Op<"rev", [Pure, SameOperandsAndResultType]> {
  let summary = "reverse along dimensions (jaxpr `rev[dimensions=...]`)";
  let arguments = (ins Lax_Tensor:$operand, DenseI64ArrayAttr:$dimensions);
  let results = (outs Lax_Tensor:$result);
  let assemblyFormat = "$operand `dims` `=` $dimensions attr-dict `:` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Lax_SliceOp : Lax_Op<"slice", [Pure, InferTypeOpAdaptor]> {
  let summary = "static strided slice (jaxpr `slice[start_indices limit_indices strides]`)";
  let arguments = (ins Lax_Tensor:$operand, DenseI64ArrayAttr:$start_indices,
                       DenseI64ArrayAttr:$limit_indices,
                       DenseI64ArrayAttr:$strides);
  let results = (outs Lax_Tensor:$result);
  let assemblyFormat = [{
    $operand `start` `=` $start_indices `limit` `=` $limit_indices
    `strides` `=` $strides attr-dict `:` type($operand) `->` type($result)
  }];
  let hasFolder = 1;
}

def Lax_DynamicSliceOp : Lax_Op<"dynamic_slice", [Pure, InferTypeOpAdaptor]> {
  let summary = "slice at run-time offsets (jaxpr `dynamic_slice[slice_sizes=...]`)";
  let description = [{
    Offsets are scalar integer tensors, one per dimension, clamped like JAX
    into [0, dim - size].
  }];
  let arguments = (ins Lax_Tensor:$operand, Variadic<Lax_IndexScalar>:$start_indices,
                       DenseI64ArrayAttr:$slice_sizes);
  let results = (outs Lax_Tensor:$result);
  let assemblyFormat = [{
    $operand `[` $start_indices `]` `sizes` `=` $slice_sizes attr-dict
    `:` functional-type(operands, results)
  }];
}

def Lax_DynamicUpdateSliceOp : Lax_Op<"dynamic_update_slice",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "write `update` at run-time offsets (jaxpr `dynamic_update_slice`)";
  let arguments = (ins Lax_Tensor:$operand, Lax_Tensor:$update,
                       Variadic<Lax_IndexScalar>:$start_indices);
  let results = (outs Lax_Tensor:$result);
  let assemblyFormat = [{
    $operand `[` $start_indices `]` `,` $update attr-dict
    `:` functional-type(operands, results)
  }];
}

def Lax_ConcatenateOp : Lax_Op<"concatenate", [Pure, InferTypeOpAdaptor]> {
  let summary = "join along one dimension (jaxpr `concatenate[dimension=...]`)";
  let arguments = (ins Variadic<Lax_Tensor>:$inputs, Lax_I64Attr:$dimension);
  let results = (outs Lax_Tensor:$result);
  let assemblyFormat = [{
    $inputs `dim` `=` $dimension attr-dict `:` functional-type($inputs, results)
  }];
  let hasFolder = 1;
}

def Lax_SqueezeOp : Lax_Op<"squeeze", [Pure, InferTypeOpAdaptor]> {
  let summary = "drop size-1 dimensions (jaxpr `squeeze[dimensions=...]`)";
  let arguments = (ins Lax_Tensor:$operand, DenseI64ArrayAttr:$dimensions);
  let results = (outs Lax_Tensor:$result);
  let assemblyFormat = [{
    $operand `dims` `=` $dimensions attr-dict `:` type($operand) `->` type($result)
  }];
}

def Lax_ExpandDimsOp : Lax_Op<"expand_dims", [Pure, InferTypeOpAdaptor]> {
  let summary = "insert size-1 dimensions (jnp.expand_dims)";
  let description = [{
    `dimensions` are positions in the result, as in `jnp.expand_dims`.
  }];
  let arguments = (ins Lax_Tensor:$operand, DenseI64ArrayAttr:$dimensions);
  let results = (outs Lax_Tensor:$result);
  let assemblyFormat = [{
    $operand `dims` `=` $dimensions attr-dict `:` type($operand) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Contraction
//===----------------------------------------------------------------------===//

def Lax_DotGeneralOp : Lax_Op<"dot_general", [Pure, InferTypeOpAdaptor]> {
  let summary = "generalized tensor contraction (jaxpr `dot_general`)";
  let description = [{
    JAX's `dimension_numbers=((lhs_contracting, rhs_contracting), (lhs_batch,
    rhs_batch))`. The result's dimensions are, in order: the batch dimensions,
    the free dimensions of lhs, the free dimensions of rhs. The element type
    is `preferred_element_type` when given, else the operands' type.

    ```mlir
    %f = lax.dot_general %d, %e contracting = [1] x [2] batch = [] x []
        : (tensor<600x821xf32>, tensor<32x100x821xf32>) -> tensor<600x32x100xf32>
    ```
  }];
  let arguments = (ins Lax_NumericTensor:$lhs, Lax_NumericTensor:$rhs,
                       DenseI64ArrayAttr:$lhs_contracting_dimensions,
                       DenseI64ArrayAttr:$rhs_contracting_dimensions,
                       DenseI64ArrayAttr:$lhs_batch_dimensions,
                       DenseI64ArrayAttr:$rhs_batch_dimensions,
                       OptionalAttr<TypeAttr>:$preferred_element_type);
  let results = (outs Lax_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `contracting` `=` $lhs_contracting_dimensions `x`
    $rhs_contracting_dimensions `batch` `=` $lhs_batch_dimensions `x`
    $rhs_batch_dimensions attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Lax_ReduceOp<string mnemonic, Type type>
    : Lax_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = mnemonic # " over `axes` (jaxpr `" # mnemonic # "[axes=...]`)";
  let arguments = (ins type:$operand, DenseI64ArrayAttr:$axes);
  let results = (outs type:$result);
  let assemblyFormat = [{
    $operand `axes` `=` $axes attr-dict `:` type($operand) `->` type($result)
  }];
  let hasFolder = 1;
}

def Lax_ReduceSumOp : Lax_ReduceOp<"reduce_sum", Lax_NumericTensor>;
def Lax_ReduceMaxOp : Lax_ReduceOp<"reduce_max", Lax_NumericTensor>;
def Lax_ReduceMinOp : Lax_ReduceOp<"reduce_min", Lax_NumericTensor>;
def Lax_ReduceProdOp : Lax_ReduceOp<"reduce_prod", Lax_NumericTensor>;

class Lax_ArgReduceOp<string mnemonic> : Lax_Op<mnemonic, [Pure]> {
  let summary = "index of the " # !substr(mnemonic, 3) #
                " along one axis (jaxpr `" # mnemonic # "[axes=(k,) index_dtype=...]`)";
  let arguments = (ins Lax_NumericTensor:$operand, DenseI64ArrayAttr:$axes);
  let results = (outs Lax_TensorOf<[I32, I64, UI32]>:$result);
  let assemblyFormat = [{
    $operand `axes` `=` $axes attr-dict `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Lax_ArgMaxOp : Lax_ArgReduceOp<"argmax">;
def Lax_ArgMinOp : Lax_ArgReduceOp<"argmin">;

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

// As scf.for: the carries are the loop's iter_args (forwarded from the inits
// on entry and from the yield on each back edge); the consts and the xs
// slices are not forwarded values, so analyses see them as unknown inputs.
// A scan always ends (after `length` steps), so it may be speculated when its
// body may (RecursivelySpeculatable, as scf.if; unlike lax.while).
//===----------------------------------------------------------------------===//
// Linear algebra (jax.lax.linalg); CPU: runtime/cpu's loops
//===----------------------------------------------------------------------===//

def Lax_CholeskyOp : Lax_Op<"cholesky", [Pure, SameOperandsAndResultType]> {
  let summary = "Cholesky factor of symmetric positive definite matrices (jaxpr `cholesky`)";
  let description = [{
    For each matrix A of the operand's two trailing dimensions (square),
    the lower triangle and diagonal of the result are the lower-triangular
    L with A = L L^T, computed from A's lower triangle; the strict upper
    triangle is A's, untouched (what LAPACK's potrf leaves; `jnp.linalg.
    cholesky` zeroes it after the primitive). Where A is not positive
    definite (a pivot <= 0 or NaN), every element of that result is NaN,
    as JAX returns it.
  }];
  let arguments = (ins Lax_FloatTensor:$operand);
  let results = (outs Lax_FloatTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Lax_LuOp : Lax_Op<"lu", [Pure]> {
  let summary = "LU decomposition with partial pivoting (jaxpr `lu`)";
  let description = [{
    For each m x n matrix A of the operand's two trailing dimensions, what
    LAPACK's getrf computes: for each column j < min(m, n) in turn, the row
    p >= j with the largest |A[p, j]| (the first such) is swapped with row j
    (`pivots[j] = p`), then, unless the pivot is zero, the column below it
    is divided by it and the trailing block updated. `lu` holds the unit
    lower factor below the diagonal and the upper factor on and above it;
    `permutation` is the row order the swaps produce (P A = L U with
    P = the identity's rows in that order).
  }];
  let arguments = (ins Lax_FloatTensor:$operand);
  let results = (outs Lax_FloatTensor:$lu, Lax_TensorOf<[I32]>:$pivots,
                      Lax_TensorOf<[I32]>:$permutation);
  let assemblyFormat = [{
    $operand attr-dict `:` type($operand) `->` type($lu) `,` type($pivots) `,` type($permutation)
  }];
  let hasVerifier = 1;
}

def Lax_GeqrfOp : Lax_Op<"geqrf", [Pure]> {
  let summary = "Householder QR factorization in LAPACK's packed form (jaxpr `geqrf`)";
  let description = [{
    For each m x n matrix A of the operand's two trailing dimensions, what
    LAPACK's geqrf computes: `packed` holds R on and above the diagonal and
    the essential parts of the Householder vectors v_i below it (v_i[i] = 1
    implied), `taus` the min(m, n) coefficients, with
    A = H_0 H_1 ... H_{k-1} R and H_i = I - tau_i v_i v_i^T.
  }];
  let arguments = (ins Lax_FloatTensor:$operand);
  let results = (outs Lax_FloatTensor:$packed, Lax_FloatTensor:$taus);
  let assemblyFormat = [{
    $operand attr-dict `:` type($operand) `->` type($packed) `,` type($taus)
  }];
  let hasVerifier = 1;
}

def Lax_HouseholderProductOp : Lax_Op<"householder_product",
    [Pure, AllTypesMatch<["operand", "result"]>, AllElementTypesMatch<["operand", "taus"]>]> {
  let summary = "the first columns of a product of Householder reflections (jaxpr `householder_product`)";
  let description = [{
    LAPACK's orgqr: for each m x n matrix of the operand (m >= n) holding
    Householder vectors below its diagonal as geqrf leaves them, and the k
    coefficients of `taus` (k <= n), the first n columns of
    Q = H_0 ... H_{k-1}.
  }];
  let arguments = (ins Lax_FloatTensor:$operand, Lax_FloatTensor:$taus);
  let results = (outs Lax_FloatTensor:$result);
  let assemblyFormat = "$operand `,` $taus attr-dict `:` type($operand) `,` type($taus)";
  let hasVerifier = 1;
}

def Lax_SvdOp : Lax_Op<"svd", [Pure]> {
  let summary = "singular value decomposition (jaxpr `svd`)";
  let description = [{
    For each m x n matrix A of the operand's two trailing dimensions, the
    k = min(m, n) singular values, descending, and with `compute_uv` the
    factors of A = U diag(s) V^T: U (m x m with `full_matrices`, else
    m x k) and V^T (n x n, else k x n). Singular vectors are determined up
    to sign (and within repeated singular values): Kiln's may differ from
    LAPACK's there.
  }];
  let arguments = (ins Lax_FloatTensor:$operand,
                       DefaultValuedAttr<BoolAttr, "false">:$full_matrices,
                       DefaultValuedAttr<BoolAttr, "true">:$compute_uv);
  let results = (outs Variadic<Lax_FloatTensor>:$results);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($results)";
  let hasVerifier = 1;
}

def Lax_EighOp : Lax_Op<"eigh", [Pure]> {
  let summary = "eigendecomposition of symmetric matrices (jaxpr `eigh`)";
  let description = [{
    For each n x n matrix of the operand's two trailing dimensions, read as
    the symmetric matrix its lower (`lower`) or upper triangle defines: the
    eigenvectors as the columns of `vectors` and the eigenvalues, ascending,
    in `values`. Eigenvectors are determined up to sign (and within
    repeated eigenvalues): Kiln's may differ from LAPACK's there.
  }];
  let arguments = (ins Lax_FloatTensor:$operand, DefaultValuedAttr<BoolAttr, "true">:$lower);
  let results = (outs Lax_FloatTensor:$vectors, Lax_FloatTensor:$values);
  let assemblyFormat = [{
    $operand attr-dict `:` type($operand) `->` type($vectors) `,` type($values)
  }];
  let hasVerifier = 1;
}

def Lax_EigOp : Lax_Op<"eig", [Pure]> {
  let summary = "eigenvalues (and right eigenvectors) of general matrices, as real parts (jaxpr `eig`)";
  let description = [{
    For each n x n real matrix of the operand's two trailing dimensions, its
    n (complex) eigenvalues as `values_re` and `values_im` (complex
    conjugate pairs adjacent, in the order of the real Schur form, as
    LAPACK's geev), and with `compute_vectors` the right eigenvectors as
    the columns of `vectors_re` + i `vectors_im`, each of unit norm (their
    phase may differ from LAPACK's). Kiln's lax types are real: kiln.jit
    writes JAX's complex results in these parts (kiln/_complex.py).
  }];
  let arguments = (ins Lax_FloatTensor:$operand,
                       DefaultValuedAttr<BoolAttr, "false">:$compute_vectors);
  let results = (outs Variadic<Lax_FloatTensor>:$results);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($results)";
  let hasVerifier = 1;
}

def Lax_HostCallbackOp : Lax_Op<"host_callback",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "a call back into the host program (jaxpr `pure_callback`, `io_callback`, `debug_callback`)";
  let description = [{
    Calls the host's callback number `index` of the running program with
    the operands' values and returns what it writes as the results. The
    callbacks are the caller's: `kiln.jit` numbers the callbacks of a traced
    function (Python functions: equinox's runtime checks, `jax.debug.print`,
    `jax.pure_callback`) and hands them to each call. `name` says which
    callback it was, for messages only.

    A callback may fail (a Python exception): the call of the compiled
    program then ends there and reports the failure. So the op has effects:
    it is never hoisted out of the `lax.cond` branch that guards it, never
    speculated, never duplicated or removed, and runs in program order with
    the other callbacks. The reference interpreter and the C++ tools have no
    host: they refuse it.
  }];
  let arguments = (ins Variadic<Lax_Tensor>:$operands, Lax_I64Attr:$index, StrAttr:$name);
  let results = (outs Variadic<Lax_Tensor>:$results);
  let assemblyFormat = [{
    $index $name (`(` $operands^ `)`)? attr-dict `:` functional-type($operands, $results)
  }];
  let hasVerifier = 1;
}

def Lax_TriangularSolveOp : Lax_Op<"triangular_solve",
    [Pure, AllTypesMatch<["b", "result"]>, AllElementTypesMatch<["a", "b"]>]> {
  let summary = "solve a triangular system (jaxpr `triangular_solve[...]`)";
  let description = [{
    For each matrix a of `a`'s two trailing dimensions (square, m x m) and
    the matching b: x with op(a) x = b (`left_side`, b is m x n) or
    x op(a) = b (b is n x m), where op(a) is a or its transpose
    (`transpose_a`) and only a's lower (`lower`) or upper triangle is read;
    with `unit_diagonal` the diagonal is taken as ones. Leading (batch)
    dimensions of a and b are equal. (`conjugate_a` has no effect on real
    types, the only ones lax has.)
  }];
  let arguments = (ins Lax_FloatTensor:$a, Lax_FloatTensor:$b, BoolAttr:$left_side,
                       BoolAttr:$lower, BoolAttr:$transpose_a, BoolAttr:$unit_diagonal);
  let results = (outs Lax_FloatTensor:$result);
  let assemblyFormat = [{
    $a `,` $b attr-dict `:` type($a) `,` type($b)
  }];
  let hasVerifier = 1;
}

def Lax_ScanOp : Lax_Op<"scan", [RecursiveMemoryEffects, RecursivelySpeculatable,
    SingleBlockImplicitTerminator<"YieldOp">,
    DeclareOpInterfaceMethods<RegionBranchOpInterface,
        ["getEntrySuccessorOperands", "getEntrySuccessorRegions",
         "getRegionInvocationBounds"]>,
    DeclareOpInterfaceMethods<LoopLikeOpInterface,
        ["getInitsMutable", "getRegionIterArgs", "getYieldedValuesMutable",
         "getLoopResults", "getStaticTripCount"]>]> {
  let summary = "a loop over slices of its xs, carrying state (jaxpr `scan`)";
  let description = [{
    Operands are, in order: `num_consts` consts, `num_carry` initial carries,
    then the xs. The body's block arguments are the consts, the carries and
    one slice of each xs (the xs with its scan axis removed). The body yields
    the new carries, then one slice of each ys. Results are the final carries,
    then the ys: the yielded slices stacked along their scan axis (`length`
    slices). With `reverse`, iteration runs from `length - 1` down to 0 and
    slice i still lands at position i.

    Beyond JAX, each xs operand and each ys result has its own scan axis
    (`xs_axes`, `ys_axes`; default 0), so a scan over axis 1 needs no
    transpose. See docs/dialect.md for an example.
  }];
  let arguments = (ins Variadic<Lax_Tensor>:$args, Lax_I64Attr:$length,
                       Lax_I64Attr:$num_consts, Lax_I64Attr:$num_carry,
                       DefaultValuedAttr<BoolAttr, "false">:$reverse,
                       DefaultValuedAttr<Lax_I64Attr, "1">:$unroll,
                       DenseI64ArrayAttr:$xs_axes, DenseI64ArrayAttr:$ys_axes);
  let results = (outs Variadic<Lax_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  // The body's arguments and yielded values are checked in verify(): the
  // interfaces' region verifiers run before verifyRegions() would, with less
  // telling messages.
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::ValueRange":$args,
      "int64_t":$length, "int64_t":$numConsts, "int64_t":$numCarry,
      "bool":$reverse, "int64_t":$unroll, "::llvm::ArrayRef<int64_t>":$xsAxes,
      "::llvm::ArrayRef<int64_t>":$ysAxes)>
  ];
  let extraClassDeclaration = [{
    using BodyBuilderFn = ::llvm::function_ref<::llvm::SmallVector<::mlir::Value>(
        ::mlir::OpBuilder &, ::mlir::Location, ::mlir::ValueRange consts,
        ::mlir::ValueRange carries, ::mlir::ValueRange xSlices)>;
    /// Builds a complete scan: `bodyBuilder` returns the new carries followed
    /// by one slice of each ys; result types follow from what it returns.
    static ScanOp create(::mlir::OpBuilder &builder, ::mlir::Location loc,
        ::mlir::ValueRange consts, ::mlir::ValueRange inits, ::mlir::ValueRange xs,
        int64_t length, BodyBuilderFn bodyBuilder, bool reverse = false,
        ::llvm::ArrayRef<int64_t> xsAxes = {}, ::llvm::ArrayRef<int64_t> ysAxes = {});

    ::mlir::OperandRange getConsts() { return getArgs().take_front(getNumConsts()); }
    ::mlir::OperandRange getInits() {
      return getArgs().slice(getNumConsts(), getNumCarry());
    }
    ::mlir::OperandRange getXs() {
      return getArgs().drop_front(getNumConsts() + getNumCarry());
    }
    ::mlir::ResultRange getFinalCarries() { return getResults().take_front(getNumCarry()); }
    ::mlir::ResultRange getYs() { return getResults().drop_front(getNumCarry()); }
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    ::mlir::Block::BlockArgListType getConstArgs() {
      return getBodyBlock().getArguments().take_front(getNumConsts());
    }
    ::mlir::Block::BlockArgListType getCarryArgs() {
      return getBodyBlock().getArguments().slice(getNumConsts(), getNumCarry());
    }
    ::mlir::Block::BlockArgListType getXSliceArgs() {
      return getBodyBlock().getArguments().drop_front(getNumConsts() + getNumCarry());
    }
    /// The scan axis of xs operand `i` / ys result `i`.
    int64_t getXsAxis(unsigned i) { return getXsAxes()[i]; }
    int64_t getYsAxis(unsigned i) { return getYsAxes()[i]; }
  }];
}

// Not ReturnLike: in a while's cond region the predicate is not forwarded
// (getMutableSuccessorOperands, dialect/LaxControlFlow.cpp).
def Lax_YieldOp : Lax_Op<"yield", [Pure, Terminator,
    DeclareOpInterfaceMethods<RegionBranchTerminatorOpInterface>,
    ParentOneOf<["ScanOp", "WhileOp", "CondOp"]>]> {
  let summary = "ends a region of scan, while or cond, yielding its values";
  let arguments = (ins Variadic<Lax_Tensor>:$values);
  let builders = [OpBuilder<(ins), [{ /* empty yield */ }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // KILN_DIALECT_LAXOPS_TD
