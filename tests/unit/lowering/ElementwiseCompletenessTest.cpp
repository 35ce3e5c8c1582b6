//===- ElementwiseCompletenessTest.cpp - every primitive has every piece --===//
//
// An elementwise primitive is one ODS definition (dialect/LaxOps.td) plus its
// scalar semantics in each layer (docs/dialect.md, "Adding an elementwise
// primitive"). For every op kiln::lax::elementwisePrimitives() lists, on
// each element kind its ODS constraint admits, this test checks each piece:
// the importer imports the primitive by its JAX name into that op; the
// reference interpreter evaluates it; the magnitude analysis has a rule for
// it (not the all-NaN "unknown"); the CPU JIT lowers it, and its results
// agree with the interpreter under the error model. A primitive missing any
// piece fails here, named.
//
//===----------------------------------------------------------------------===//
#include "tests/unit/lowering/LoweringTestUtils.h"

#include "dialect/LaxInterfaces.h"
#include "importer/JaxprImporter.h"
#include "reference/Comparison.h"
#include "reference/Interpreter.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>
#include <string>

using namespace kiln;
using kiln::interp::Tensor;

namespace {

struct Kind {
  const char *mlir;  // element type in MLIR
  const char *jaxpr; // dtype as a jaxpr prints it
};

/// The jaxpr `{ lambda ; a:T[8] (b:T[8]). let c:T[8] = NAME a (b) in (c,) }`.
std::string jaxprOf(const lax::ElementwisePrimitive &p, const Kind &kind) {
  std::string t = std::string(kind.jaxpr) + "[8]";
  std::string params = "a:" + t + (p.arity == 2 ? " b:" + t : "");
  std::string args = p.arity == 2 ? "a b" : "a";
  return "{ lambda ; " + params + ". let c:" + t + " = " + p.jaxName.str() + " " + args +
         " in (c,) }";
}

/// Inputs inside and outside every domain edge the primitives have (0, 1,
/// -1, above 1), so that each rule has elements it bounds.
void fillInputs(llvm::MutableArrayRef<Tensor> inputs) {
  static const double floats[8] = {0.25, -0.5, 0.75, 1.5, 2.5, -3.0, 0.125, 4.0};
  static const int64_t ints[8] = {3, -2, 7, 1, 0, 5, -9, 2};
  for (auto [k, t] : llvm::enumerate(inputs))
    for (int64_t i = 0; i < t.size(); ++i) {
      if (t.isFloat())
        t.setFloat(i, floats[(i + k) % 8]);
      else if (t.getElementType().isInteger(1))
        t.setInt(i, (i + k) % 2);
      else
        t.setInt(i, ints[(i + 3 * k) % 8]);
    }
}

void checkPrimitive(const lax::ElementwisePrimitive &p, const Kind &kind) {
  std::string text = jaxprOf(p, kind);
  SCOPED_TRACE(text);
  mlir::MLIRContext ctx;
  Compiler::prepareContext(ctx);
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "primitive.jaxpr"),
                             llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importJaxpr(sources, &ctx, JaxprImportOptions());
  ASSERT_TRUE(module) << "the importer does not import '" << p.jaxName.str() << "'";
  bool found = false;
  module->walk([&](mlir::Operation *op) { found |= op->getName().getStringRef() == p.opName; });
  ASSERT_TRUE(found) << "'" << p.jaxName.str() << "' did not import as " << p.opName.str();

  auto inputs = interp::randomInputs(*module, "main", 1);
  ASSERT_TRUE(succeeded(inputs));
  fillInputs(*inputs);
  auto reference = interp::interpret(*module, "main", *inputs);
  ASSERT_TRUE(succeeded(reference)) << "the interpreter does not evaluate " << p.opName.str();

  std::string magError;
  auto mags = interp::magnitudes(*module, "main", *inputs, magError);
  ASSERT_TRUE(succeeded(mags)) << magError;
  const Tensor &mag = (*mags)[0];
  // Unknown (NaN) by rule: rem steps at every multiple of its divisor,
  // which no first-order shadow bounds (reference/Magnitude.cpp's header);
  // lgamma and digamma have poles at every non-positive integer and
  // derivatives (digamma, trigamma) the shadow has no op for. Their
  // elements are judged against the float64 interpreter instead.
  bool unknownByRule = p.jaxName == "rem" || p.jaxName == "lgamma" || p.jaxName == "digamma";
  if (mag.isFloat() && !unknownByRule) {
    bool someKnown = false;
    for (int64_t i = 0; i < mag.size(); ++i)
      someKnown |= !std::isnan(mag.getFloat(i));
    EXPECT_TRUE(someKnown) << "reference/Magnitude.cpp has no rule for " << p.opName.str();
  }

  std::vector<std::vector<char>> argBytes;
  std::vector<BufferView> views = viewsOf(*inputs, argBytes);
  JitRunResult jit;
  std::string error;
  ASSERT_TRUE(runJit(*module, "main", views, 0, 0, jit, &error, CompileOptions()))
      << "the CPU JIT does not lower " << p.opName.str() << ": " << error;
  const Tensor &want = (*reference)[0];
  interp::OutputComparison c =
      interp::compareOutput(tensorOf(want.getType(), jit.outputs[0]), want, &mag);
  std::string report;
  llvm::raw_string_ostream os(report);
  c.print(os);
  EXPECT_TRUE(c.ok()) << "the JIT's " << p.opName.str() << " differs: " << report;
}

TEST(ElementwiseCompleteness, EveryPrimitiveHasEveryPiece) {
  ASSERT_GT(lax::elementwisePrimitives().size(), 40u);
  for (const lax::ElementwisePrimitive &p : lax::elementwisePrimitives()) {
    if (p.operands.floats) {
      checkPrimitive(p, {"f32", "f32"});
      checkPrimitive(p, {"bf16", "bf16"});
    }
    if (p.operands.ints)
      checkPrimitive(p, {"i32", "i32"});
    if (p.operands.preds)
      checkPrimitive(p, {"i1", "bool"});
  }
}

TEST(ElementwiseCompleteness, TraitsAnswerTheCostQuestions) {
  // The facts every "which ops are expensive or approximate" question reads.
  const lax::ElementwisePrimitive *erfInv = lax::findElementwisePrimitive("erf_inv");
  ASSERT_TRUE(erfInv);
  EXPECT_TRUE(erfInv->isApproximate());
  const lax::ElementwisePrimitive *sqrt = lax::findElementwisePrimitive("sqrt");
  ASSERT_TRUE(sqrt);
  EXPECT_TRUE(sqrt->libraryMath);
  EXPECT_FALSE(sqrt->isApproximate());
  const lax::ElementwisePrimitive *add = lax::findElementwisePrimitive("add");
  ASSERT_TRUE(add);
  EXPECT_FALSE(add->libraryMath);
  EXPECT_TRUE(add->operands.floats && add->operands.ints && !add->operands.preds);
  EXPECT_EQ(add->arity, 2u);
  EXPECT_EQ(lax::findElementwisePrimitive("no_such_primitive"), nullptr);
}

} // namespace
