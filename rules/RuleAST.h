//===- RuleAST.h - the in-memory form of YAML rewrite rules -----*- C++ -*-===//
//
// A rule file parses into Rules; every string in a rule (an op DAG, a `where`
// condition, an attribute value, a native call) parses into the same small
// expression tree, Expr, which the PDL generator and the evaluator share.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RULES_RULEAST_H
#define KILN_RULES_RULEAST_H

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kiln::rules {

/// A position in a rule file, 1-based like MLIR's FileLineColLoc.
struct SrcLoc {
  std::string file;
  unsigned line = 0, col = 0;
};

struct Expr;
struct NativeFunction;
using ExprP = std::shared_ptr<Expr>;

struct Expr {
  enum Kind {
    Capture,  ///< $x (name = "x"); `variadic` for $xs...
    Ref,      ///< a node name (name), optionally `#index` for a result
    Wildcard, ///< _
    Int,
    Float,
    Bool,
    String,
    Literal,  ///< `raw MLIR attribute or type text`
    List,     ///< [a, b, ...] (args)
    Call,     ///< fn(args): a native function
    Op,       ///< dialect.op(args) {attrs} : type
    Binary,   ///< args[0] <name> args[1]
    Unary,    ///< <name> args[0] ("-" or "not")
    Index,    ///< args[0][args[1]]
  };
  Kind kind;
  std::string name;
  long long ival = 0;
  double fval = 0;
  bool variadic = false;
  int resultIndex = 0;
  std::vector<ExprP> args;
  std::vector<std::pair<std::string, ExprP>> attrs; ///< Op only
  ExprP type;                                       ///< Op only: `: type`
  SrcLoc loc;
  /// Call: the native function, set when a rule using it is compiled (the
  /// registry never drops one), so that evaluation need not look it up by
  /// name on every match; null before (evaluation then looks it up).
  const NativeFunction *native = nullptr;

  explicit Expr(Kind kind) : kind(kind) {}
};

/// `name: expr` in a match or rewrite section.
struct Node {
  std::string name;
  ExprP expr;
  /// Several values replacing a multi-result op (`node: [$a, $b]`).
  std::vector<ExprP> values;
  SrcLoc loc;
};

struct Rule {
  /// `- include: FILE` in a rule file: not a rule, but FILE's rules (a path
  /// relative to the including file; a file already loaded is skipped).
  std::string include;
  std::string name, description;
  int benefit = 1;
  /// Rules run phase by phase, each to a fixpoint, in increasing order.
  int phase = 0;
  std::vector<std::string> tags;
  /// kiln-verify-rules: the k of the error model this rule may cause (-1:
  /// from its tags), and the inputs it is checked on ("" or "any", or
  /// "positive": floats > 0, for rules that assume it; "finite": no inf or
  /// NaN; "positive-finite": both; "positive-moderate": positive numbers
  /// far from overflow and underflow, no subnormals).
  double tolerance = -1;
  std::string inputs;
  /// Match nodes whose two operands may come in either order.
  std::vector<std::string> anyOrder;
  std::vector<Node> match;
  /// Region rules: `name: expr` bindings evaluated in order after the match
  /// (scan_of($ys), ys_slice($ys), parent_scan(root), ...). A rule with a
  /// `loop` section is a region rule: Kiln's own matcher and rewriter run it
  /// as a C++ pattern (rules/RegionRules.cpp), never PDL.
  std::vector<Node> loop;
  bool isRegion() const { return !loop.empty(); }
  std::vector<ExprP> where;
  /// Either a call to a native rewrite function (rewriteCall) or a DAG.
  ExprP rewriteCall;
  std::vector<Node> rewrite;
  SrcLoc loc;
};

} // namespace kiln::rules

#endif // KILN_RULES_RULEAST_H
