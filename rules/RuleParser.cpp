//===- RuleParser.cpp - YAML rule files to Rules --------------------------===//
//
// Schema (see docs/rules.md): a file is a sequence of rules, each a mapping
// with keys name, description, benefit, phase, tags, any_order, match, where,
// rewrite. match/rewrite map node names to expressions; rewrite may instead
// be one native call.
//
//===----------------------------------------------------------------------===//
#include "rules/RuleParser.h"

#include "support/InputFile.h"

#include "rules/ExprParser.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"

#include <yaml-cpp/yaml.h>

#include "llvm/ADT/STLExtras.h"

#include <fstream>
#include <set>
#include <sstream>

using namespace kiln::rules;
using namespace mlir;

Location kiln::rules::toLocation(MLIRContext *ctx, const SrcLoc &loc) {
  return FileLineColLoc::get(ctx, loc.file, loc.line, loc.col);
}

namespace {
struct YamlRuleParser {
  MLIRContext *ctx;
  std::string path;
  bool failed = false;

  /// yaml-cpp marks are 0-based; a quoted scalar's mark is its quote.
  SrcLoc locOf(const YAML::Node &n, bool content = false) {
    YAML::Mark m = n.Mark();
    SrcLoc l{path, unsigned(m.line + 1), unsigned(m.column + 1)};
    if (content && n.IsScalar() && n.Tag() == "!")
      ++l.col;
    return l;
  }
  void error(const SrcLoc &loc, const std::string &msg) {
    failed = true;
    emitError(toLocation(ctx, loc)) << msg;
  }

  bool scalar(const YAML::Node &n, const char *what, std::string &out) {
    if (!n.IsScalar()) {
      error(locOf(n), std::string("expected a string for '") + what + "'");
      return false;
    }
    out = n.Scalar();
    return true;
  }
  /// A decimal integer in [0, max]; "'<what>' must be an integer in [0, max]"
  /// otherwise.
  bool boundedInt(const YAML::Node &n, const char *what, long max, int &out) {
    std::string s;
    if (!scalar(n, what, s))
      return false;
    char *end = nullptr;
    long value = strtol(s.c_str(), &end, 10);
    if (s.empty() || *end || value < 0 || value > max) {
      error(locOf(n, true), std::string("'") + what + "' must be an integer in [0, " +
                                std::to_string(max) + "]");
      return false;
    }
    out = int(value);
    return true;
  }
  ExprP expr(const YAML::Node &n, const char *what) {
    std::string text;
    if (!scalar(n, what, text))
      return nullptr;
    std::optional<ExprError> err;
    SrcLoc base = locOf(n, /*content=*/true);
    ExprP e = parseExpr(text, base, err);
    if (err) {
      SrcLoc at = base;
      at.col += err->offset;
      error(at, "in '" + std::string(what) + "': " + err->message);
      return nullptr;
    }
    return e;
  }
  bool nodes(const YAML::Node &n, const char *what, std::vector<Node> &out,
             bool allowLists) {
    if (!n.IsMap()) {
      error(locOf(n), std::string("'") + what + "' must map node names to expressions");
      return false;
    }
    std::set<std::string> seen;
    for (auto it = n.begin(); it != n.end(); ++it) {
      // Copies: `it->` yields a temporary proxy whose members die with it.
      YAML::Node key = it->first, value = it->second;
      Node node;
      node.loc = locOf(key);
      if (!scalar(key, what, node.name))
        return false;
      // YAML keeps both entries of a repeated key; a node is named once.
      if (!seen.insert(node.name).second) {
        error(node.loc, "node '" + node.name + "' appears twice in '" + what + "'");
        return false;
      }
      if (allowLists && value.IsSequence()) {
        for (const YAML::Node &v : value) {
          ExprP e = expr(v, what);
          if (!e)
            return false;
          node.values.push_back(e);
        }
      } else if (!(node.expr = expr(value, what))) {
        return false;
      }
      out.push_back(std::move(node));
    }
    return true;
  }
  bool strings(const YAML::Node &n, const char *what, std::vector<std::string> &out) {
    if (n.IsScalar()) {
      out.push_back(n.Scalar());
      return true;
    }
    if (!n.IsSequence()) {
      error(locOf(n), std::string("'") + what + "' must be a list of strings");
      return false;
    }
    for (const YAML::Node &v : n) {
      std::string s;
      if (!scalar(v, what, s))
        return false;
      out.push_back(s);
    }
    return true;
  }

  /// Replaces every `{key}` in the scalars of `n` (keys and values).
  static void substitute(YAML::Node n, const std::vector<std::pair<std::string, std::string>> &subst) {
    if (n.IsScalar()) {
      std::string text = n.Scalar();
      bool changed = false;
      for (auto &[k, v] : subst)
        for (size_t at; (at = text.find("{" + k + "}")) != std::string::npos; changed = true)
          text.replace(at, k.size() + 2, v);
      if (changed)
        n = text;
      return;
    }
    if (n.IsSequence()) {
      for (YAML::Node c : n)
        substitute(c, subst);
      return;
    }
    if (n.IsMap()) {
      // Keys too: rebuild the map in order.
      YAML::Node copy(YAML::NodeType::Map);
      for (auto it = n.begin(); it != n.end(); ++it) {
        YAML::Node k = YAML::Clone(it->first), v = it->second;
        substitute(k, subst);
        substitute(v, subst);
        copy[k] = v;
      }
      n = copy;
    }
  }

  /// `each: {key: [a, b, ...], ...}`: the rule once per position, with
  /// `{key}` replaced in every string of the rule (lists of equal length).
  bool expandEach(const YAML::Node &n, std::vector<YAML::Node> &out) {
    if (!n.IsMap() || !n["each"]) {
      out.push_back(n);
      return true;
    }
    YAML::Node each = n["each"];
    std::vector<std::pair<std::string, std::vector<std::string>>> lists;
    size_t count = 0;
    if (!each.IsMap() || each.size() == 0) {
      error(locOf(each), "'each' must map names to lists of strings of equal length");
      return false;
    }
    for (auto it = each.begin(); it != each.end(); ++it) {
      YAML::Node k = it->first, v = it->second;
      std::vector<std::string> values;
      if (!k.IsScalar() || !v.IsSequence() || !strings(v, "each", values))
        return error(locOf(k), "'each' must map names to lists of strings of equal length"), false;
      if (!lists.empty() && values.size() != count)
        return error(locOf(v), "the lists of 'each' must have the same length"), false;
      count = values.size();
      lists.emplace_back(k.Scalar(), values);
    }
    std::string name = n["name"] && n["name"].IsScalar() ? n["name"].Scalar() : "";
    if (llvm::none_of(lists, [&](auto &l) { return name.find("{" + l.first + "}") != std::string::npos; }))
      return error(locOf(n), "a rule with 'each' must use one of its names in 'name' "
                             "(rule names are unique)"), false;
    for (size_t i = 0; i < count; ++i) {
      std::vector<std::pair<std::string, std::string>> subst;
      for (auto &[k, vs] : lists)
        subst.emplace_back(k, vs[i]);
      YAML::Node copy(YAML::NodeType::Map);
      for (auto it = n.begin(); it != n.end(); ++it) {
        YAML::Node k = it->first;
        if (k.IsScalar() && k.Scalar() == "each")
          continue;
        YAML::Node v = YAML::Clone(it->second);
        substitute(v, subst);
        copy[k] = v;
      }
      out.push_back(copy);
    }
    return true;
  }

  bool parseRule(const YAML::Node &n, Rule &rule) {
    rule.loc = locOf(n);
    if (!n.IsMap()) {
      error(locOf(n), "a rule must be a mapping with 'name', 'match' and 'rewrite'");
      return false;
    }
    static const std::set<std::string> known = {
        "name", "description", "benefit", "phase", "tags", "any_order",
        "match", "loop", "where", "rewrite", "tolerance", "inputs"};
    std::set<std::string> seen;
    for (auto it = n.begin(); it != n.end(); ++it) {
      YAML::Node keyNode = it->first; // a copy, as in nodes()
      std::string key = keyNode.IsScalar() ? keyNode.Scalar() : "";
      // YAML keeps both entries of a repeated key (a second 'rewrite' was
      // merged into the first, and the rule's rewrite then failed halfway:
      // a segfault found by kiln-fuzz-rules).
      if (known.count(key) && !seen.insert(key).second) {
        error(locOf(keyNode), "key '" + key + "' appears twice in rule");
        return false;
      }
      if (!known.count(key)) {
        error(locOf(keyNode),
              "unknown key '" + key +
                  "' in rule (expected name, description, benefit, phase, tags, any_order, "
                  "match, loop, where, rewrite, tolerance, inputs)");
        return false;
      }
      YAML::Node v = it->second; // a copy: it->second is a temporary proxy
      if (key == "name") {
        if (!scalar(v, "name", rule.name))
          return false;
      } else if (key == "description") {
        if (!scalar(v, "description", rule.description))
          return false;
      } else if (key == "benefit") {
        if (!boundedInt(v, "benefit", 65535, rule.benefit))
          return false;
      } else if (key == "phase") {
        if (!boundedInt(v, "phase", 1000, rule.phase))
          return false;
      } else if (key == "tolerance") {
        std::string t;
        if (!scalar(v, "tolerance", t))
          return false;
        char *end = nullptr;
        double k = strtod(t.c_str(), &end);
        if (t.empty() || *end || !(k >= 0) || k > 1e12) {
          error(locOf(v, true), "'tolerance' must be a number k >= 0 (the error model's "
                                "multiple of eps, docs/interpreter.md)");
          return false;
        }
        rule.tolerance = k;
      } else if (key == "inputs") {
        if (!scalar(v, "inputs", rule.inputs))
          return false;
        if (rule.inputs != "any" && rule.inputs != "positive" && rule.inputs != "finite" &&
            rule.inputs != "positive-finite" && rule.inputs != "positive-moderate") {
          error(locOf(v, true), "'inputs' must be 'any', 'positive', 'finite', "
                                "'positive-finite' or 'positive-moderate'");
          return false;
        }
      } else if (key == "tags") {
        if (!strings(v, "tags", rule.tags))
          return false;
      } else if (key == "any_order") {
        if (!strings(v, "any_order", rule.anyOrder))
          return false;
      } else if (key == "match") {
        if (!nodes(v, "match", rule.match, /*allowLists=*/false))
          return false;
      } else if (key == "loop") {
        if (!nodes(v, "loop", rule.loop, /*allowLists=*/false))
          return false;
        if (rule.loop.empty()) {
          error(locOf(v), "'loop' binds nothing");
          return false;
        }
      } else if (key == "where") {
        std::vector<YAML::Node> conds;
        if (v.IsSequence())
          for (const YAML::Node &c : v)
            conds.push_back(c);
        else
          conds.push_back(v);
        for (const YAML::Node &c : conds) {
          ExprP e = expr(c, "where");
          if (!e)
            return false;
          rule.where.push_back(e);
        }
      } else if (key == "rewrite") {
        if (v.IsScalar()) {
          rule.rewriteCall = expr(v, "rewrite");
          if (!rule.rewriteCall)
            return false;
          if (rule.rewriteCall->kind != Expr::Call) {
            error(rule.rewriteCall->loc,
                  "'rewrite' must be a native call such as fn(root) or a mapping of "
                  "node names to replacements");
            return false;
          }
        } else if (!nodes(v, "rewrite", rule.rewrite, /*allowLists=*/true)) {
          return false;
        }
      }
    }
    for (const char *required : {"name", "match", "rewrite"})
      if (!n[required]) {
        error(rule.loc, std::string("rule is missing '") + required + "'");
        return false;
      }
    if (rule.match.empty()) {
      error(rule.loc, "rule '" + rule.name + "' matches nothing");
      return false;
    }
    return true;
  }

  LogicalResult parse(const std::string &text, std::vector<Rule> &rules) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception &e) {
      SrcLoc l{path, unsigned(e.mark.line + 1), unsigned(e.mark.column + 1)};
      if (e.mark.is_null())
        l.line = l.col = 1;
      std::string hint;
      if (e.msg == "illegal map value")
        hint = " (in a rule string write attributes as {name = value} and result types "
               "as -> T, or quote the string)";
      error(l, "YAML syntax error: " + e.msg + hint);
      return failure();
    }
    if (root.IsNull())
      return success(); // an empty file holds no rules
    if (!root.IsSequence()) {
      error(locOf(root), "a rule file must be a list of rules");
      return failure();
    }
    std::set<std::string> names;
    std::vector<YAML::Node> expanded;
    for (const YAML::Node &n : root)
      if (!expandEach(n, expanded))
        return failure();
    for (const YAML::Node &n : expanded) {
      Rule rule;
      if (n.IsMap() && n["include"]) {
        if (n.size() != 1 || !n["include"].IsScalar()) {
          error(locOf(n), "an include is `- include: FILE` alone");
          continue;
        }
        rule.include = n["include"].Scalar();
        rule.loc = locOf(n);
        rules.push_back(std::move(rule));
        continue;
      }
      if (!parseRule(n, rule))
        continue;
      if (!names.insert(rule.name).second) {
        error(rule.loc, "duplicate rule name '" + rule.name + "'");
        continue;
      }
      rules.push_back(std::move(rule));
    }
    return failure(failed);
  }
};
} // namespace

LogicalResult kiln::rules::parseRuleString(MLIRContext *ctx, const std::string &text,
                                           const std::string &path,
                                           std::vector<Rule> &rules) {
  YamlRuleParser p{ctx, path};
  return p.parse(text, rules);
}

LogicalResult kiln::rules::parseRuleFile(MLIRContext *ctx, const std::string &path,
                                         std::vector<Rule> &rules) {
  // A regular file of at most 64 MiB: a FIFO (or a rule file including one)
  // had blocked forever, /dev/zero ended in bad_alloc.
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file =
      support::readInputFile(path, error, /*allowStdin=*/false, kMaxRuleFileBytes);
  if (!file) {
    emitError(FileLineColLoc::get(ctx, path, 0, 0)) << "rule file: " << error;
    return failure();
  }
  return parseRuleString(ctx, file->getBuffer().str(), path, rules);
}
