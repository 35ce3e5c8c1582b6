//===- Passes.td - the rule engine's pass ------------------*- tablegen -*-===//
#ifndef KILN_RULES_PASSES_TD
#define KILN_RULES_PASSES_TD

include "mlir/Pass/PassBase.td"

// On builtin.module only: the rules' trace/stats state is shared by the
// pattern set, so the pass must not run on several functions in parallel.
def ApplyRules : Pass<"kiln-apply-rules", "::mlir::ModuleOp"> {
  let summary = "Apply YAML rewrite rules (--rules) and plugin patterns with the greedy driver";
  let description = [{
    Loads the rule files (and the plugins of `plugins`) when the pass is initialized (a rule file error fails
    the pipeline before any IR is touched), then runs the enabled rules and
    the plugins' C++ patterns with MLIR's greedy driver, phase by phase. When
    the driver does not converge, one more bounded round records which rules
    kept firing. See docs/rules.md.

    kiln-opt's and kiln-run's rule flags (--rules, --rule-tags, --rule-trace,
    --rule-stats, --rule-explain, --rule-verify, --dump-pdl,
    --rule-max-iterations, --rule-max-rewrites) set these options on every
    kiln-apply-rules pass of their pipeline (rules::addRuleFlags): rule files
    and tags add to the pass's own (the flags' first), the on/off flags turn
    on, and a value the pass was given itself wins over the flag's.
  }];
  let options = [
    ListOption<"ruleFiles", "rules", "std::string",
               "Rule files or directories (besides --rules)">,
    ListOption<"plugins", "plugins", "std::string",
               "Plugin libraries (.so) whose rule files, patterns and native "
               "functions these rules use (besides the tool's --plugin)">,
    Option<"tags", "tags", "std::string", /*default=*/"\"\"",
           "Tags to enable (+t) or disable (-t)">,
    Option<"maxIterations", "max-iterations", "int", /*default=*/"10",
           "Greedy driver iterations before non-convergence is an error "
           "(0 or unset: --rule-max-iterations)">,
    Option<"maxRewrites", "max-rewrites", "int64_t", /*default=*/"100000",
           "Rewrites before non-convergence is an error (unset: --rule-max-rewrites)">,
    Option<"trace", "trace", "bool", /*default=*/"false",
           "Print each rule application: name, location, op before and after (stderr)">,
    Option<"stats", "stats", "bool", /*default=*/"false",
           "Print how often each rule applied">,
    Option<"explain", "explain", "std::string", /*default=*/"\"\"",
           "Remark, for each op named like the rule's root, why the rule does not match">,
    Option<"verify", "verify", "bool", /*default=*/"false",
           "Verify the IR after each rule application">,
    Option<"dumpPdl", "dump-pdl", "bool", /*default=*/"false",
           "Print the PDL the rules compile to (stderr)">
  ];
}

#endif // KILN_RULES_PASSES_TD
