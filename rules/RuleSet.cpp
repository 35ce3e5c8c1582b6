//===- RuleSet.cpp - loaded rules compiled to PDL -------------------------===//
#include "rules/RuleSet.h"

#include "rules/RuleParser.h"
#include "rules/RuleRuntime.h"

#include "mlir/Dialect/PDL/IR/PDL.h"
#include "mlir/Dialect/PDLInterp/IR/PDLInterp.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <atomic>

using namespace kiln::rules;
using namespace mlir;

static std::atomic<unsigned> nextRuleSetId{0};

RuleSet::RuleSet(MLIRContext *ctx, NativeScope natives)
    : ctx(ctx), natives(std::move(natives)), runtime(std::make_unique<RuleRuntime>()), uid(nextRuleSetId++) {
  ctx->getOrLoadDialect<pdl::PDLDialect>();
  ctx->getOrLoadDialect<pdl_interp::PDLInterpDialect>();
}

RuleSet::~RuleSet() = default;

LogicalResult RuleSet::loadPath(const std::string &path) {
  if (!llvm::sys::fs::is_directory(path)) {
    SmallString<256> real;
    if (!llvm::sys::fs::real_path(path, real) && !loadedFiles.insert(real.str().str()).second)
      return success(); // already loaded
    std::vector<Rule> parsed;
    if (failed(parseRuleFile(ctx, path, parsed)))
      return failure();
    std::vector<std::unique_ptr<CompiledRule>> compiled;
    bool ok = true;
    for (Rule &r : parsed) {
      if (!r.include.empty()) {
        SmallString<256> target(r.include);
        if (!llvm::sys::path::is_absolute(target)) {
          target = llvm::sys::path::parent_path(path);
          llvm::sys::path::append(target, r.include);
        }
        if (!llvm::sys::fs::exists(target)) {
          emitError(toLocation(ctx, r.loc)) << "cannot include '" << r.include << "': no such file";
          ok = false;
          continue;
        }
        ok &= succeeded(loadPath(target.str().str()));
        continue;
      }
      ok &= succeeded(compile(std::move(r), compiled));
    }
    if (!ok) {
      discard(compiled);
      return failure(); // nothing of a file with errors is applied
    }
    commit(compiled);
    return success();
  }
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(path, ec), end; it != end && !ec; it.increment(ec)) {
    StringRef ext = llvm::sys::path::extension(it->path());
    if (ext == ".yaml" || ext == ".yml")
      files.push_back(it->path());
  }
  if (ec) {
    emitError(FileLineColLoc::get(ctx, path, 0, 0))
        << "cannot read rule directory '" << path << "': " << ec.message();
    return failure();
  }
  llvm::sort(files);
  bool ok = true;
  for (const std::string &f : files)
    ok &= succeeded(loadPath(f));
  return success(ok);
}

LogicalResult RuleSet::loadString(const std::string &text, const std::string &name) {
  std::vector<Rule> parsed;
  if (failed(parseRuleString(ctx, text, name, parsed)))
    return failure();
  std::vector<std::unique_ptr<CompiledRule>> compiled;
  bool ok = true;
  for (Rule &r : parsed) {
    if (!r.include.empty()) {
      emitError(toLocation(ctx, r.loc)) << "include is only allowed in a rule file";
      ok = false;
      continue;
    }
    ok &= succeeded(compile(std::move(r), compiled));
  }
  if (!ok) {
    discard(compiled);
    return failure();
  }
  commit(compiled);
  return success();
}

void RuleSet::discard(const std::vector<std::unique_ptr<CompiledRule>> &compiled) {
  for (auto &c : compiled)
    pendingNames.erase(c->rule.name);
}

void RuleSet::commit(std::vector<std::unique_ptr<CompiledRule>> &compiled) {
  for (auto &c : compiled) {
    // Past kMaxPdlRules, Kiln's own matcher and planned rewriter run the
    // rule (as for region rules): loading stays linear in the rules.
    if (c->isPdl() && numPdlRules >= kMaxPdlRules)
      c->planned = c->pastPdlLimit = true;
    if (c->isPdl())
      ++numPdlRules;
    pendingNames.erase(c->rule.name);
    byName[c->rule.name] = c.get();
    rules.push_back(std::move(c));
  }
}

LogicalResult RuleSet::compile(Rule rule, std::vector<std::unique_ptr<CompiledRule>> &out) {
  if (byName.count(rule.name) || pendingNames.count(rule.name)) {
    emitError(toLocation(ctx, rule.loc)) << "a rule named '" << rule.name << "' is already loaded";
    return failure();
  }
  auto c = std::make_unique<CompiledRule>();
  std::string prefix = "kiln" + std::to_string(uid) + "_r" + std::to_string(rules.size() + out.size());
  if (failed(compileRule(ctx, rule, prefix, natives, *c)))
    return failure();
  if (c->rule.isRegion() && failed(checkRegionRule(ctx, *c, natives)))
    return failure();
  // Check the generated PDL now, so a problem is reported at the rule.
  std::string firstError;
  {
    ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &d) {
      if (firstError.empty())
        firstError = d.str();
      return success();
    });
    OwningOpRef<ModuleOp> mod =
        parseSourceString<ModuleOp>("module {\n" + c->pdl + "}\n", ParserConfig(ctx));
    if (!mod)
      firstError = firstError.empty() ? "unknown error" : firstError;
    else
      firstError.clear();
  }
  if (!firstError.empty()) {
    emitError(toLocation(ctx, rule.loc))
        << "rule '" << rule.name << "' does not compile to valid PDL: " << firstError;
    return failure();
  }
  pendingNames.insert(c->rule.name);
  out.push_back(std::move(c));
  return success();
}

void RuleSet::setTags(StringRef spec) {
  SmallVector<StringRef> parts;
  spec.split(parts, ',', -1, false);
  for (StringRef p : parts) {
    p = p.trim();
    if (p.consume_front("-"))
      enabledTags.erase(p.str());
    else if (p.consume_front("+") || !p.empty())
      enabledTags.insert(p.str());
  }
}

std::vector<std::string> RuleSet::unknownTags(StringRef spec) const {
  std::set<std::string> known = {"exact", "reassociates-float", "changes-precision"};
  for (auto &r : rules)
    known.insert(r->rule.tags.begin(), r->rule.tags.end());
  std::vector<std::string> unknown;
  SmallVector<StringRef> parts;
  spec.split(parts, ',', -1, false);
  for (StringRef p : parts) {
    p = p.trim();
    if (!p.consume_front("-"))
      p.consume_front("+");
    if (!p.empty() && !known.count(p.str()))
      unknown.push_back(p.str());
  }
  return unknown;
}

bool RuleSet::isEnabled(const Rule &rule) const {
  if (!onlyRule.empty())
    return rule.name == onlyRule;
  return llvm::all_of(rule.tags, [&](const std::string &t) { return enabledTags.count(t); }) &&
         (!rule.tags.empty() || enabledTags.count("exact"));
}

std::string RuleSet::getPDL(std::optional<int> phase) const {
  std::string out = "module {\n";
  for (auto &r : rules)
    if (isEnabled(r->rule) && r->isPdl() && (!phase || r->rule.phase == *phase))
      out += r->pdl;
  return out + "}\n";
}

std::string RuleSet::describe() const {
  std::string out = getPDL();
  for (auto &r : rules)
    if (isEnabled(r->rule) && r->rule.rewriteCall)
      out += "// rule '" + r->rule.name + "' calls native rewrite '" + r->rule.rewriteCall->name +
             "': a C++ pattern with Kiln's matcher (a PDL rewrite may not fail)\n";
    else if (isEnabled(r->rule) && r->rule.isRegion())
      out += "// rule '" + r->rule.name +
             "' is a region rule: a C++ pattern with Kiln's matcher and region rewriter\n";
    else if (isEnabled(r->rule) && r->pastPdlLimit)
      out += "// rule '" + r->rule.name + "' is past the first " + std::to_string(kMaxPdlRules) +
             " PDL rules: a C++ pattern with Kiln's matcher and planned rewriter\n";
    else if (isEnabled(r->rule) && r->planned)
      out += "// rule '" + r->rule.name +
             "' creates ops whose types are known only while rewriting (or given with ->): a C++ "
             "pattern with Kiln's matcher and planned rewriter (a PDL rewrite may not fail)\n";
  return out;
}

const CompiledRule *RuleSet::lookup(StringRef name) const { return byName.lookup(name); }

std::vector<int> RuleSet::getPhases() const {
  std::set<int> phases = {0};
  for (auto &r : rules)
    if (isEnabled(r->rule))
      phases.insert(r->rule.phase);
  return std::vector<int>(phases.begin(), phases.end());
}

LogicalResult RuleSet::populate(RewritePatternSet &patterns, std::optional<int> phase) {
  auto inPhase = [&](const CompiledRule &r) {
    return isEnabled(r.rule) && (!phase || r.rule.phase == *phase);
  };
  for (auto &r : rules) {
    if (inPhase(*r) && r->rule.rewriteCall)
      patterns.add(makeNativeCallPattern(*r, *runtime, ctx));
    if (inPhase(*r) && !r->rule.rewriteCall && r->isCpp())
      patterns.add(makeRegionRulePattern(*r, *runtime, ctx));
  }
  if (llvm::none_of(rules, [&](auto &r) { return inPhase(*r) && r->isPdl(); }))
    return success();
  OwningOpRef<ModuleOp> mod = parseSourceString<ModuleOp>(getPDL(phase), ParserConfig(ctx));
  if (!mod)
    return emitError(UnknownLoc::get(ctx)) << "internal error: the rules' PDL does not parse";
  PDLPatternModule pm(std::move(mod));
  for (auto &r : rules)
    if (inPhase(*r) && r->isPdl())
      runtime->registerSites(*r, pm);
  patterns.add(std::move(pm));
  return success();
}
