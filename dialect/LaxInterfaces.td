//===- LaxInterfaces.td - facts every layer reads ----------*- tablegen -*-===//
//
// What an elementwise op is, stated once: its JAX primitive and how it is
// computed. The importer, the Python exporter, the differential generator
// and every "which ops are expensive or approximate" question read these;
// each layer keeps only the op's scalar semantics (docs/dialect.md, "Adding
// an elementwise primitive").
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_LAXINTERFACES_TD
#define KILN_DIALECT_LAXINTERFACES_TD

include "mlir/IR/OpBase.td"

def Lax_ElementwisePrimitiveOpInterface
    : OpInterface<"ElementwisePrimitiveOpInterface"> {
  let cppNamespace = "::kiln::lax";
  let description = [{
    An elementwise op that is exactly one JAX primitive without parameters:
    it is imported from, exported to and generated as that primitive by name
    alone (kiln::lax::elementwisePrimitives() lists them with their facts).
  }];
  let methods = [
    StaticInterfaceMethod<"The JAX primitive's name (`erf_inv`).",
      "::llvm::StringRef", "getJaxPrimitive">,
  ];
}

// Computed by a math-library routine (a polynomial, a libm call, a square
// root) in at least f32: f16 and bf16 operands are widened and the result
// rounded once. Such an op costs a polynomial per element unless it is also
// Lax_CorrectlyRounded.
def Lax_LibraryMath : NativeOpTrait<"LibraryMath"> {
  let cppNamespace = "::kiln::lax";
}

// A library-math op whose result is correctly rounded (IEEE's sqrt): every
// correct implementation gives the same bits.
def Lax_CorrectlyRounded : NativeOpTrait<"CorrectlyRounded"> {
  let cppNamespace = "::kiln::lax";
}

#endif // KILN_DIALECT_LAXINTERFACES_TD
