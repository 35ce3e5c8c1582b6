//===- LaxControlFlowOps.td - lax control flow operations ---*- tablegen -*-===//
//
// While and cond: loops and branches with regions. Generated apart from LaxOps.td (its own .inc files
// and header, dialect/LaxControlFlowOps.h) so that only the code using these ops
// rebuilds when they change.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_LAXCONTROLFLOWOPS_TD
#define KILN_DIALECT_LAXCONTROLFLOWOPS_TD

include "dialect/LaxDialect.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/LoopLikeInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Lax_WhileOp : Lax_Op<"while", [RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<RegionBranchOpInterface,
        ["getEntrySuccessorOperands"]>,
    DeclareOpInterfaceMethods<LoopLikeOpInterface,
        ["getInitsMutable", "getRegionIterArgs", "getYieldedValuesMutable",
         "getLoopResults"]>]> {
  let summary = "a loop while a predicate holds, carrying state (jaxpr `while`)";
  let description = [{
    Operands are, in order: `num_cond_consts` consts of the `cond` region,
    `num_body_consts` consts of the `body` region, then the initial carries.
    The `cond` region's arguments are its consts and the current carries; it
    yields one `tensor<i1>`. The `body` region's arguments are its consts and
    the current carries; it yields the next carries (of the carries' types).
    Results are the carries when `cond` first yields false (the initial
    carries if it yields false at once).

    ```mlir
    %x, %n = lax.while cond_consts(%tol) carry(%x0, %n0)
        : (tensor<f32>, tensor<8xf32>, tensor<i32>) -> (tensor<8xf32>, tensor<i32>)
    cond {
    ^bb0(%t: tensor<f32>, %x: tensor<8xf32>, %n: tensor<i32>):
      ...
      lax.yield %p : tensor<i1>
    } body {
    ^bb0(%x: tensor<8xf32>, %n: tensor<i32>):
      ...
      lax.yield %x2, %n2 : tensor<8xf32>, tensor<i32>
    }
    ```

    Values defined outside may also be used in the regions directly, as in
    `lax.scan`; the consts are what a jaxpr passes explicitly
    (`cond_nconsts`, `body_nconsts`). There is no bound on the number of
    iterations.
  }];
  let arguments = (ins Variadic<Lax_Tensor>:$args,
                       Lax_I64Attr:$num_cond_consts,
                       Lax_I64Attr:$num_body_consts);
  let results = (outs Variadic<Lax_Tensor>:$results);
  let regions = (region SizedRegion<1>:$cond, SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    // An op with empty regions (the caller fills them).
    OpBuilder<(ins "::mlir::ValueRange":$condConsts,
      "::mlir::ValueRange":$bodyConsts, "::mlir::ValueRange":$inits)>
  ];
  let extraClassDeclaration = [{
    using CondBuilderFn = ::llvm::function_ref<::mlir::Value(
        ::mlir::OpBuilder &, ::mlir::Location, ::mlir::ValueRange consts,
        ::mlir::ValueRange carries)>;
    using BodyBuilderFn = ::llvm::function_ref<::llvm::SmallVector<::mlir::Value>(
        ::mlir::OpBuilder &, ::mlir::Location, ::mlir::ValueRange consts,
        ::mlir::ValueRange carries)>;
    /// Builds a complete while: `condBuilder` returns the predicate,
    /// `bodyBuilder` the next carries.
    static WhileOp create(::mlir::OpBuilder &builder, ::mlir::Location loc,
        ::mlir::ValueRange condConsts, ::mlir::ValueRange bodyConsts,
        ::mlir::ValueRange inits, CondBuilderFn condBuilder,
        BodyBuilderFn bodyBuilder);

    ::mlir::OperandRange getCondConsts() {
      return getArgs().take_front(getNumCondConsts());
    }
    ::mlir::OperandRange getBodyConsts() {
      return getArgs().slice(getNumCondConsts(), getNumBodyConsts());
    }
    ::mlir::OperandRange getInits() {
      return getArgs().drop_front(getNumCondConsts() + getNumBodyConsts());
    }
    int64_t getNumCarry() { return getResults().size(); }
    ::mlir::Block &getCondBlock() { return getCond().front(); }
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    ::mlir::Block::BlockArgListType getCondConstArgs() {
      return getCondBlock().getArguments().take_front(getNumCondConsts());
    }
    ::mlir::Block::BlockArgListType getCondCarryArgs() {
      return getCondBlock().getArguments().drop_front(getNumCondConsts());
    }
    ::mlir::Block::BlockArgListType getBodyConstArgs() {
      return getBodyBlock().getArguments().take_front(getNumBodyConsts());
    }
    ::mlir::Block::BlockArgListType getBodyCarryArgs() {
      return getBodyBlock().getArguments().drop_front(getNumBodyConsts());
    }
    /// The predicate the cond region yields.
    ::mlir::Value getPredicate();
    /// The next carries the body region yields.
    ::mlir::OperandRange getNextCarries();
  }];
}

// A cond runs one branch once: it may be speculated when its branches may.
// (Not so lax.while, which may not end.)
def Lax_CondOp : Lax_Op<"cond", [RecursiveMemoryEffects, RecursivelySpeculatable,
    DeclareOpInterfaceMethods<RegionBranchOpInterface,
        ["getEntrySuccessorOperands", "getEntrySuccessorRegions",
         "getRegionInvocationBounds"]>]> {
  let summary = "runs one of its branches, chosen by an index (jaxpr `cond`)";
  let description = [{
    `index` picks the branch region that runs; each branch takes the other
    operands as its arguments and yields values of the result types. An i32
    index i runs branch i when 0 <= i < N (N branches) and branch N-1
    otherwise, negative indices included: what jax.jit does with the `cond`
    primitive (XLA's Conditional, StableHLO's `case`). `lax.switch` clamps
    its index before it reaches `cond`, and `lax.cond(pred, true_fun,
    false_fun)` passes `convert_element_type(pred)` with
    `branches=(false_fun, true_fun)`. An i1 index (exactly 2 branches) runs
    branch 1 when true.

    ```mlir
    %r = lax.cond %i (%x) : (tensor<i32>, tensor<8xf32>) -> tensor<8xf32>
    branch 0 {
    ^bb0(%a: tensor<8xf32>):
      %s = lax.sin %a : tensor<8xf32>
      lax.yield %s : tensor<8xf32>
    } branch 1 {
    ^bb0(%a: tensor<8xf32>):
      %c = lax.cos %a : tensor<8xf32>
      lax.yield %c : tensor<8xf32>
    }
    ```

    A constant index folds the op into the branch it picks (canonicalization).
  }];
  let arguments = (ins 0DTensorOf<[I32, I1]>:$index,
                       Variadic<Lax_Tensor>:$branch_operands);
  let results = (outs Variadic<Lax_Tensor>:$results);
  let regions = (region VariadicRegion<SizedRegion<1>>:$branches);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    // An op with `numBranches` empty regions (the caller fills them).
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::Value":$index,
      "::mlir::ValueRange":$operands, "unsigned":$numBranches)>
  ];
  let extraClassDeclaration = [{
    /// Builds one branch: returns the values it yields.
    using BranchBuilderFn = ::llvm::function_ref<::llvm::SmallVector<::mlir::Value>(
        ::mlir::OpBuilder &, ::mlir::Location, unsigned branch,
        ::mlir::ValueRange args)>;
    /// Builds a complete cond of `numBranches` branches.
    static CondOp create(::mlir::OpBuilder &builder, ::mlir::Location loc,
        ::mlir::TypeRange resultTypes, ::mlir::Value index,
        ::mlir::ValueRange operands, unsigned numBranches,
        BranchBuilderFn branchBuilder);

    unsigned getNumBranches() { return getBranches().size(); }
    ::mlir::Block &getBranchBlock(unsigned i) { return getBranches()[i].front(); }
    /// The branch that runs for index value `index`: an index out of
    /// [0, N-1] runs the last branch (jax.jit's semantics).
    unsigned selectBranch(int64_t index) {
      int64_t n = getNumBranches();
      return (unsigned)(index >= 0 && index < n ? index : n - 1);
    }
  }];
}

#endif // KILN_DIALECT_LAXCONTROLFLOWOPS_TD
