//===- LaxDialect.td - the lax dialect ---------------------*- tablegen -*-===//
//
// The `lax` dialect mirrors JAX's lax primitives (the ops a jaxpr is made of)
// on ranked tensors, so that a jaxpr imports one equation per op.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_LAXDIALECT_TD
#define KILN_DIALECT_LAXDIALECT_TD

include "mlir/IR/OpBase.td"

def Lax_Dialect : Dialect {
  let name = "lax";
  let summary = "JAX's lax primitives on ranked tensors";
  let description = [{
    One op per lax primitive, with JAX's semantics: elementwise arithmetic,
    structural ops (broadcast_in_dim, transpose, slice, ...), dot_general with
    JAX's dimension numbers and result order (batch, lhs free, rhs free),
    reductions, and `lax.scan` with a region for the loop body.
  }];
  let cppNamespace = "::kiln::lax";
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 0;
}

// Element types JAX programs use.
def Lax_Float : AnyTypeOf<[F16, BF16, F32, F64]>;
def Lax_Int : AnyTypeOf<[I8, I16, I32, I64, UI8, UI16, UI32, UI64]>;
def Lax_Pred : I<1>;
def Lax_Element : AnyTypeOf<[Lax_Float, Lax_Int, Lax_Pred]>;

// JAX programs have static shapes; so does every lax value.
// Every tensor of a lax op has a static shape whose size in bytes fits in
// 2^62 (kiln::lax::tensorSizeFits): a tensor<4294967296x4294967296xf32>
// argument had passed the verifier, and its element count wrapped to 0 (the
// interpreter returned an empty result, the JIT segfaulted).
def Lax_SizeFits : CPred<"::kiln::lax::tensorSizeFits($_self)">;
class Lax_TensorOf<list<Type> allowed>
    : ConfinedType<StaticShapeTensorOf<allowed>, [Lax_SizeFits],
                   StaticShapeTensorOf<allowed>.summary # " of at most 2^62 bytes",
                   StaticShapeTensorOf<allowed>.cppType>;

def Lax_Tensor : Lax_TensorOf<[Lax_Element]>;
def Lax_FloatTensor : Lax_TensorOf<[Lax_Float]>;
def Lax_IntOrPredTensor : Lax_TensorOf<[Lax_Int, Lax_Pred]>;
def Lax_IntTensor : Lax_TensorOf<[Lax_Int]>;
def Lax_NumericTensor : Lax_TensorOf<[Lax_Float, Lax_Int]>;
def Lax_PredTensor : Lax_TensorOf<[Lax_Pred]>;
def Lax_IndexScalar : 0DTensorOf<[I32, I64, UI32]>;

// A 64-bit integer attribute read as signed (I64Attr reads as uint64_t).
def Lax_I64Attr : TypedSignlessIntegerAttrBase<I64, "int64_t",
    "64-bit signless integer attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

class Lax_Op<string mnemonic, list<Trait> traits = []>
    : Op<Lax_Dialect, mnemonic, traits>;

#endif // KILN_DIALECT_LAXDIALECT_TD
