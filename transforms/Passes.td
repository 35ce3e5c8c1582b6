//===- Passes.td - Kiln's lax -> lax transforms ----------*- tablegen -*-===//
#ifndef KILN_TRANSFORMS_PASSES_TD
#define KILN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def CanonicalizeDotGeneral : Pass<"kiln-canonicalize-dot-general"> {
  let summary = "Fold transposes into dot_general and bring it to one canonical form";
  let description = [{
    Exact rewrites (jax-ml/jax#19327): a transpose of an operand folds into the
    dimension numbers when it keeps the operand's free dimensions in order; a
    transpose of the result that puts the rhs free dimensions first becomes an
    operand swap; contracting pairs are sorted by lhs dimension; an operand
    with no free dimensions goes on the right. After this pass jax-ml/jax#19327's f1
    and f2 are the same IR.
  }];
  let dependentDialects = ["::kiln::lax::LaxDialect"];
}

def FoldScanLayout : Pass<"kiln-fold-scan-layout"> {
  let summary = "Fold transposes and reverses around lax.scan into its axes";
  let description = [{
    Exact rewrites (jax-ml/jax#2491): a transpose feeding an xs operand becomes that
    operand's scan axis, a transpose consuming a ys result becomes its stacking
    axis, and `rev` along the scan axis of every xs and ys flips `reverse`.
  }];
  let dependentDialects = ["::kiln::lax::LaxDialect"];
}

def ScanPushUp : Pass<"kiln-scan-pushup"> {
  let summary = "Push elementwise consumers and reductions of a scan's ys into its body";
  let description = [{
    jax-ml/jax#4968: `reduce_sum((y - scan(...).ys) ** 2)` becomes a scan carrying the
    running sum; the stacked ys disappears. Elementwise sinking is exact;
    moving a sum into the body or into a carry reassociates floating-point
    additions and runs only with `reassociate=true` (tag `reassociates-float`).
  }];
  let options = [
    Option<"reassociate", "reassociate", "bool", /*default=*/"false",
           "Allow moving float sums into the body / a carry (reassociates-float)">
  ];
  let dependentDialects = ["::kiln::lax::LaxDialect"];
}

def ScanToReduction : Pass<"kiln-scan-to-reduction"> {
  let summary = "Turn a scan that only accumulates reductions of its xs into one reduction";
  let description = [{
    What the push-up leaves of jax-ml/jax#4968, a scan whose carry accumulates
    `reduce_sum(f(x_t))` with f elementwise, is `init + reduce_sum(f(xs))`
    over the stacked xs: the loop disappears, f fuses into one reduction over
    all steps, and the pipelines run it on every core. Exact for max/min and
    integer sums/products; float sums/products regroup, so they need
    `reassociate=true` (tag `reassociates-float`).
  }];
  let options = [
    Option<"reassociate", "reassociate", "bool", /*default=*/"false",
           "Allow regrouping float sums/products (reassociates-float)">
  ];
  let dependentDialects = ["::kiln::lax::LaxDialect"];
}

def DedupFunctions : Pass<"kiln-dedup-functions", "::mlir::ModuleOp"> {
  let summary = "Merge structurally identical private functions";
  let description = [{
    jax-ml/jax#7155: an inner jitted function called ten times imports as ten pjit
    calls; identical private function bodies (after canonicalization) are
    merged into one and calls redirected, so the body is compiled once.
    With `inline-max-ops=N`, private functions of at most N ops are inlined
    into their callers afterwards.
  }];
  let options = [
    Option<"inlineMaxOps", "inline-max-ops", "int64_t", /*default=*/"0",
           "Inline private functions with at most this many ops (0: never)">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def MisplacedPipeline : Pass<"kiln-misplaced-pipeline"> {
  let summary = "Fail with a diagnostic: a module pipeline was nested under another op";
  let description = [{
    Kiln's pipelines (`kiln-optimize`, `kiln-lower-cpu`, `kiln-lower-gpu`)
    hold module passes. Nested under another op
    (`builtin.module(func.func(kiln-optimize))`, or the inliner's
    `default-pipeline`), they used to abort with "LLVM ERROR: Can't add
    pass ... restricted to 'builtin.module'"; they build this pass instead,
    which reports where the pipeline belongs (addModulePipeline).
  }];
  let options = [
    Option<"pipeline", "pipeline", "std::string", /*default=*/"",
           "The pipeline that was misplaced">
  ];
}

#endif // KILN_TRANSFORMS_PASSES_TD
