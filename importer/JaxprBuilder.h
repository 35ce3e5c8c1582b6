//===- JaxprBuilder.h - syntax tree to lax ops ------------------*- C++ -*-===//
//
// Builds the module of a parsed jaxpr. JaxprBuilder.cpp holds the structure
// (functions, scopes, calls, inlining, types), JaxprControlFlow.cpp scan,
// while and cond; each equation goes to the handler its primitive has in the
// registry (JaxprPrimitives.h).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IMPORTER_JAXPRBUILDER_H
#define KILN_IMPORTER_JAXPRBUILDER_H

#include "importer/JaxprAst.h"
#include "importer/JaxprImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SourceMgr.h"

#include <map>

namespace kiln::jaxpr {

/// The dtype of a threefry key array as the type annotations spell it.
inline constexpr llvm::StringLiteral kThreefryKeyDtype = "key<fry>";

/// How deeply jaxprs may be imported one inside the other (calls, inlined
/// bodies, scan/while/cond regions), so that a long chain of named jaxprs
/// calling each other cannot exhaust the stack.
inline constexpr unsigned kMaxJaxprImportDepth = 256;

/// The variables of one jaxpr: each jaxpr is closed, so scopes do not nest.
using Scope = llvm::StringMap<mlir::Value>;

class JaxprBuilder {
public:
  JaxprBuilder(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context,
               const Program &program, const JaxprImportOptions &options);

  /// Builds the module; `inputTypes` (possibly empty) types the main binders.
  mlir::OwningOpRef<mlir::ModuleOp> build(llvm::ArrayRef<TypeAnnotation> inputTypes);

  //===--- Locations, diagnostics, types -----------------------------------===//
  mlir::Location loc(llvm::SMLoc where);
  mlir::InFlightDiagnostic emitError(llvm::SMLoc where);
  /// A jaxpr dtype (`f32`, `bool`, or `float32` as params spell it) as an
  /// MLIR element type; null if unknown.
  mlir::Type convertDtype(llvm::StringRef dtype);
  mlir::FailureOr<mlir::RankedTensorType> convertType(const TypeAnnotation &type);
  /// `f32[3,4]`: a type as the jaxpr would write it.
  static std::string formatType(mlir::Type type);

  //===--- Operands ----------------------------------------------------------===//
  /// The value of `atom`. A literal becomes a lax.constant splat: of `like`'s
  /// shape (scalar without `like`), element type from its annotation, else
  /// `like`'s, else f32/i32/bool.
  mlir::FailureOr<mlir::Value> operand(const Atom &atom, Scope &scope,
                                       mlir::RankedTensorType like = nullptr);
  /// Operands [first, end) of an elementwise op, brought to one shape: literals
  /// become splats of the widest variable's shape, scalar variables are
  /// broadcast to it (lax elementwise ops take equal shapes).
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  elementwiseOperands(const Equation &eqn, Scope &scope, size_t first = 0);
  /// The operands of `eqn` as they are.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> allOperands(const Equation &eqn,
                                                              Scope &scope);

  //===--- Parameters --------------------------------------------------------===//
  const Param *requireParam(const Equation &eqn, llvm::StringRef name);
  mlir::FailureOr<int64_t> intParam(const Equation &eqn, llvm::StringRef name,
                                    std::optional<int64_t> byDefault = std::nullopt);
  mlir::FailureOr<bool> boolParam(const Equation &eqn, llvm::StringRef name,
                                  bool byDefault);
  /// A tuple of integers; `None` (or absence, with a default) gives `byDefault`.
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  intListParam(const Equation &eqn, llvm::StringRef name,
               std::optional<llvm::SmallVector<int64_t>> byDefault = std::nullopt);
  /// A tuple of integers as written in a value (used for dimension_numbers).
  mlir::FailureOr<llvm::SmallVector<int64_t>> intList(const ParamValue &value,
                                                      const llvm::Twine &what);
  /// A dtype parameter; null Type for `None` or an absent optional one.
  mlir::FailureOr<mlir::Type> dtypeParam(const Equation &eqn, llvm::StringRef name,
                                         bool optional);
  /// The first present parameter of `names` holding a jaxpr (inline or named).
  mlir::FailureOr<const Jaxpr *> jaxprParam(const Equation &eqn,
                                            llvm::ArrayRef<llvm::StringRef> names);

  //===--- Ops ---------------------------------------------------------------===//
  mlir::OpBuilder &opBuilder() { return builder; }
  /// Gives `op` its inferred result types (it was built with placeholders),
  /// then verifies it; on failure reports at the op's location and erases it.
  mlir::LogicalResult finishOp(mlir::Operation *op);

  //===--- Calls and control flow (registerControlFlowPrimitives) ------------===//
  /// pjit and friends: a func.call of a private function built for the body.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> emitCall(const Equation &eqn,
                                                           Scope &scope);
  /// custom_jvp_call and friends: the primal body, inlined.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> emitInlined(const Equation &eqn,
                                                              Scope &scope);
  /// custom_linear_solve: its `solve` jaxpr applied to the solve consts and
  /// the right-hand sides (the forward value; matvec and the transposes
  /// only define derivatives).
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> emitLinearSolve(const Equation &eqn,
                                                                  Scope &scope);
  /// lax.scan of the body, with num_consts consts and num_carry carries.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> emitScan(const Equation &eqn,
                                                           Scope &scope);
  /// lax.while of cond_jaxpr and body_jaxpr (cond_nconsts and body_nconsts
  /// consts). A predicate batched by vmap (a bool array, a prefix of the
  /// carries' shapes) loops while any element holds and updates only the
  /// carries whose element holds, as JAX does.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> emitWhile(const Equation &eqn,
                                                            Scope &scope);
  /// lax.cond with one region per jaxpr of `branches` (inline or named).
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> emitCond(const Equation &eqn,
                                                           Scope &scope);
  /// The reducer `body` of reduce or reduce_window (a jaxpr on scalars)
  /// applied elementwise to `args`, all of
  /// one shape: while it is imported, a value of that shape stands for each
  /// of its rank-0 variables (its elementwise ops broadcast as lax's do;
  /// anything else is an error at the equation, as a type mismatch). Its
  /// results have that shape.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  applyElementwise(const Jaxpr &body, llvm::ArrayRef<mlir::Value> args);

private:
  /// What a private function made of a jaxpr needs from its callers.
  struct FunctionRecord {
    mlir::func::FuncOp func;
    llvm::SmallVector<mlir::Type> argTypes; // the operand types it was built for
    /// Own constvars (leading arguments) and constvars of nested jaxprs
    /// (trailing arguments), whose values the caller must pass.
    llvm::SmallVector<const Binder *> constvars, hoisted;
  };
  /// The function being built and the arguments added for captured consts.
  struct FunctionState {
    mlir::func::FuncOp func;
    llvm::DenseMap<const Binder *, mlir::Value> constValues;
    llvm::SmallVector<const Binder *> hoisted;
  };

  mlir::LogicalResult importBody(const Jaxpr &jaxpr, llvm::ArrayRef<mlir::Value> consts,
                                 llvm::ArrayRef<mlir::Value> args,
                                 llvm::SmallVectorImpl<mlir::Value> &results);
  /// Imports `jaxpr` into a new entry block of `region`, with arguments of
  /// `argTypes` (the jaxpr's invars) and the current function's values of
  /// its constvars; ends it with lax.yield of the outputs, which are also
  /// returned in `outs`. `extend` (may be null) may replace the outputs
  /// before the yield is built, with more ops built in the block.
  mlir::LogicalResult
  importRegion(const Jaxpr &jaxpr, mlir::Region &region, mlir::TypeRange argTypes,
               mlir::Location loc, llvm::SmallVectorImpl<mlir::Value> &outs,
               llvm::function_ref<mlir::LogicalResult(
                   mlir::ValueRange args, llvm::SmallVectorImpl<mlir::Value> &outs)>
                   extend = nullptr);
  /// Whether `type` stands for the rank-0 `annotated` while applyElementwise
  /// imports a reducer.
  bool appliedElementwise(mlir::RankedTensorType annotated, mlir::Type type) const;
  mlir::LogicalResult bindBinders(llvm::ArrayRef<Binder> binders,
                                  llvm::ArrayRef<mlir::Value> values, Scope &scope,
                                  llvm::StringRef producer);
  /// Block arguments get the location of the binder they stand for.
  void setArgumentLocations(llvm::ArrayRef<mlir::Value> args,
                            llvm::ArrayRef<Binder> binders);
  mlir::LogicalResult emitEquation(const Equation &eqn, Scope &scope);
  /// The value of a nested jaxpr's constvar inside the current function: an
  /// argument, added on first use.
  mlir::FailureOr<mlir::Value> constValue(const Binder &constvar);
  /// The annotated type of a nested jaxpr's constvar (which nothing else types).
  mlir::FailureOr<mlir::RankedTensorType> constvarType(const Binder &constvar);
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  constValues(llvm::ArrayRef<Binder> constvars);
  mlir::FailureOr<FunctionRecord>
  getOrBuildFunction(const Jaxpr &jaxpr, llvm::StringRef name,
                     llvm::ArrayRef<mlir::Type> argTypes);
  std::string uniqueSymbolName(llvm::StringRef base);

  llvm::SourceMgr &sourceMgr;
  mlir::MLIRContext *context;
  const Program &program;
  const JaxprImportOptions &options;
  mlir::OpBuilder builder;
  mlir::ModuleOp module;
  FunctionState *function = nullptr;

  /// Functions built per jaxpr (one per operand-type signature).
  llvm::DenseMap<const Jaxpr *, llvm::SmallVector<FunctionRecord, 1>> functionsOf;
  /// Printed bodies of the private functions per base name, to share
  /// identical bodies.
  std::map<std::string, llvm::SmallVector<std::pair<std::string, mlir::func::FuncOp>>>
      bodiesByName;
  llvm::StringSet<> usedSymbols;
  /// The jaxprs being imported, outermost first (a call of one of them is
  /// recursion), and the equation being emitted (where such errors point).
  llvm::SmallVector<const Jaxpr *> activeJaxprs;
  const Equation *activeEquation = nullptr;
  /// While applyElementwise imports a reducer: the shape its rank-0
  /// variables take.
  std::optional<llvm::SmallVector<int64_t>> elementwiseShape;
};

} // namespace kiln::jaxpr

#endif // KILN_IMPORTER_JAXPRBUILDER_H
